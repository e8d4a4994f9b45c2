"""The question analysis (issue 26, "one question analysis"): one value per question that retrieval, the
decision and the generator read; no other module of ``core/`` parses the question for what it asks."""

from __future__ import annotations

import ast
from pathlib import Path

from core.retrieval.question import QuestionAnalysis, analyse

ROOT = Path(__file__).resolve().parents[2]


def test_one_value_holds_what_the_question_asks():
    q = analyse("赤狐平台的值班轮换周期最多是多少天？另外，和青鸟平台比较有什么区别？")
    assert isinstance(q, QuestionAnalysis) and q.text.startswith("赤狐平台")
    assert q.named == ("赤狐", "青鸟")
    assert {"number", "bound"} <= q.wants and "yesno" not in q.forms
    assert q.asks_number and q.asks_detail and not q.asks_steps
    assert q.parts == ("赤狐平台的值班轮换周期最多是多少天？", "和青鸟平台比较有什么区别？")
    assert "值班" in q.terms and "多少" not in q.content_terms  # an interrogative is no content
    assert not q.drawback and q.sides is None
    cmp = analyse("Deployment 和 StatefulSet 有什么区别？它们各有什么缺点？")
    assert cmp.sides == ("Deployment", "StatefulSet") and cmp.drawback and len(cmp.parts) == 2
    yesno = analyse("如果不设置 startingDeadlineSeconds，任务会补跑吗？")
    assert yesno.forms == {"yesno", "case", "unset"} and yesno.named == ("startingDeadlineSeconds",)


def test_names_asked_one_by_one_are_parts_of_their_own():
    # dev-043: each name's answer is in its own section, so each is retrieved and covered as a part (session 18)
    q = analyse("ConfigMap 和 Secret 以卷的方式挂载时，分别用什么字段把某一个键放到自定义的文件路径下？")
    assert q.parts == (
        "ConfigMap 以卷的方式挂载时，用什么字段把某一个键放到自定义的文件路径下？",
        "Secret 以卷的方式挂载时，用什么字段把某一个键放到自定义的文件路径下？",
    )
    three = analyse("`READ ONLY` 和 `AS OF` 的事务里写入，结果各自是什么？如果不写默认是什么？")
    assert three.parts == (
        "`READ ONLY` 的事务里写入，结果是什么？",
        "`AS OF` 的事务里写入，结果是什么？",
        "如果不写默认是什么？",
    )
    # 打几折 asks for a number; 多少天 asks in days (a helper's round, session 18)
    assert "number" in analyse("学生卡坐地铁打几折？").wants
    assert analyse("最长可以借多少天？").unit == "天" and analyse("几个小时能办好？").unit == "小时"
    assert analyse("怎么办理？").unit is None
    # a Chinese pair has no end a pattern can find: one part
    assert len(analyse("城乡医保和职工医保分别报销多少？").parts) == 1


def test_the_analysis_is_read_once_per_question_text():
    assert analyse("Pod 是什么？") is analyse("Pod 是什么？")
    empty = analyse("")
    assert empty.terms == () and empty.parts == ("",) and empty.named == ()


#: The question readers: only ``core/retrieval/question.py`` calls them (``aspects.py`` owns the drawback words).
READERS = {"question_wants", "question_forms", "named_terms", "question_parts", "compared_sides"}


def _calls(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        n.func.id if isinstance(n.func, ast.Name) else n.func.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, (ast.Name, ast.Attribute))
    }


def test_no_other_module_parses_the_question():
    """Before: the question was re-read in seven places, four importing private names across modules."""
    readers = {
        p.relative_to(ROOT).as_posix(): _calls(p) & READERS
        for p in (ROOT / "core").rglob("*.py")
        if p.name != "question.py" or p.parent.name != "retrieval"
    }
    assert {p: c for p, c in readers.items() if c} == {}
    calls_drawback = {
        p.relative_to(ROOT).as_posix() for p in (ROOT / "core").rglob("*.py") if "asks_drawback" in _calls(p)
    }
    assert calls_drawback <= {"core/retrieval/question.py", "core/retrieval/aspects.py"}


def test_no_private_name_crosses_a_module_of_core():
    """``from core.x import _y`` reads another module's internals (the question's interrogatives and terms
    were imported that way); an ``import … as _alias`` of a public name is fine."""
    crossing = []
    for p in (ROOT / "core").rglob("*.py"):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("core"):
                crossing += [f"{p.relative_to(ROOT)}: {a.name}" for a in node.names if a.name.startswith("_")]
    assert crossing == []


def test_a_cut_across_two_words_is_no_name():
    """A helper's round (session 22): jieba cuts "新生报到当天…" as 新生报 / 到 and tags 新生报 as a proper noun, so the
    question was refused as 「新生报」 absent although its best chunk scored 0.94. A word that splits into a common word
    (新生) and a rest that makes a word with what follows (报到) is no name; real names stay."""
    assert "新生报" not in analyse("新生报到当天几点到几点可以办理入住？").named
    assert "赤狐" in analyse("赤狐平台的值班轮换周期是多久？").named
    assert "新闻台" in analyse("胡天衡在哪个新闻台曾经工作过两年？").named


def test_what_is_going_on_asks_a_meaning_not_steps():
    """Two helpers' manuals (a fault code on the display): "屏幕显示 F0 是怎么回事？" asks what F0 means, like "F0 是
    什么意思？": not the steps of 怎么 (怎么安装), and 回事 / 怎么回事 are no words of its topic."""
    q = analyse("屏幕显示 F0 是怎么回事？")
    assert not q.asks_steps and "definition" in q.forms
    assert "回事" not in q.content_terms and "怎么回事" not in q.content_terms and "f0" in q.content_terms
    assert analyse("滤网怎么安装？").asks_steps  # 怎么 still asks the way


def test_a_number_with_a_unit_is_a_quantity_not_a_version_name():
    """A helper's round (session 23): "身高 1.3 米的儿童买什么票？" was refused with 「知识库中没有关于「1.3」的内容」 over
    "身高 1.2 米至 1.5 米的儿童应购买儿童票": 1.3 was read as a version the documents lack. With a unit it is a quantity
    the person states; without one it is still a version (Python 3.9, v1.2)."""
    assert analyse("身高 1.3 米的儿童买什么票？").named == ()
    assert analyse("体重 2.5 公斤的猫能寄养吗？").named == ()
    assert analyse("Is a 1.5 m child free?").named == ()
    assert analyse("Python 3.9 能用吗？").named == ("3.9", "Python")
    assert analyse("v1.2 还维护吗？").named == ("v1.2",) and analyse("升级到 2.4.1 之后要做什么？").named == ("2.4.1",)


def test_the_thing_a_question_for_how_many_counts():
    """The thing after 多少/几 and a classifier (a helper's round, session 23): a number of another thing does not answer
    it. 哪几个 asks which, and 多少天 counts days (a unit), so neither counts a thing."""
    assert analyse("路由器最多能同时连多少台设备？").counted == "设备"
    assert analyse("托班每个班配几个老师？").counted == "老师"
    assert analyse("普通证能同时借几本纸质书和几本电子书？").counted == "纸质书"
    assert analyse("在 NetworkPolicy 里，哪几个方向的策略都得允许？").counted == ""
    assert analyse("最多能借多少天？").counted == ""


def test_a_question_for_a_phone_number_asks_for_one_and_no_meaning():
    """ "What is the phone number for reporting a lost card?" (h30a a-11) had read as a definition question (what is
    X?) asking nothing typed; it asks for a phone number, as "挂失电话是多少？" and "打哪个电话投诉？" do. Phoning as a way
    ("可以电话预约吗？") asks no number."""
    from core.retrieval.question import analyse

    english = analyse("What is the phone number for reporting a lost card?")
    assert "phone" in english.wants and "definition" not in english.forms
    assert "phone" in analyse("挂失电话是多少？").wants
    assert "phone" in analyse("打哪个电话可以投诉？").wants
    assert "phone" not in analyse("可以电话预约吗？").wants


def test_a_count_of_people_is_asked_in_people():
    """多少人 and 几个人 ask a number of people (h30c c-16: "那一个班有多少人？"); 多少人民币 asks money, no unit."""
    from core.retrieval.question import analyse

    assert analyse("那一个班有多少人？").unit == "人"
    assert analyse("一次最多几个人？").unit == "人"
    assert analyse("要付多少人民币？").unit is None


def test_a_question_for_what_a_thing_holds_asks_for_a_list():
    """A helper's round (session 25): "物资包里都有什么？" asks for the items (都有什么, 包括什么), as 哪些 does."""
    assert "list" in analyse("物资包里都有什么？").wants
    assert "list" in analyse("套餐包括什么？").wants
    assert "list" not in analyse("这个功能有什么用？").wants


def test_a_compared_side_is_not_the_pronoun_after_a_carried_subject():
    """A helper's round (session 25): "那它跟尊享保障有什么区别？" after "优享保障服务多少钱一天？" is searched as "优享保障服务
    那它跟尊享保障有什么区别？", and the answer had ended "知识库中没有找到关于「优享保障服务 那它」的说明。"."""
    from core.retrieval.question import compared_sides

    assert compared_sides("优享保障服务 那它跟尊享保障有什么区别？") == ("优享保障服务", "尊享保障")
    assert compared_sides("免费版和专业版有什么不同？") == ("免费版", "专业版")
