"""An English question searched in a Chinese knowledge base's words (core.retrieval.english_glosses; a helper's round,
session 22: "Can I smoke on the balcony?" over house rules that say "不允许在室内吸烟（阳台也不行）" was refused, and 3 of 5
English questions over each of two new bases missed the asked value)."""

from __future__ import annotations

from core.lexical import LexicalIndex
from core.retrieval.english_glosses import LIMIT, chinese_glosses
from core.retrieval.query import plan_query

RULES = [
    "不允许在室内吸烟（阳台也不行），违者罚款 200 元。",
    "押金为一个月房租，退租时全额退还。",
    "晚上 22:00 以后不能使用洗衣机。",
    "垃圾请分类投放到楼下的垃圾桶。",
]


def _df(words: dict[str, int]):
    return lambda w: words.get(w, 0)


def test_an_english_words_glosses_are_the_ones_the_base_has():
    base = _df({"吸烟": 1, "阳台": 1, "押金": 3, "抽烟": 0})
    assert chinese_glosses("Can I smoke on the balcony?", base) == ["吸烟", "阳台"]  # 抽烟 is not in the base
    assert chinese_glosses("Is there a deposit?", base) == ["押金"]
    assert chinese_glosses("Can I do it?", base) == []  # words that ask or point are not glossed


def test_a_phrase_is_glossed_whole_and_a_word_the_base_has_is_left_as_it_is():
    base = _df({"会议室": 2, "会议": 5, "房间": 4, "支付": 3})
    assert chinese_glosses("How much is the meeting room?", base) == ["会议室"]  # not 会议 and 房间 besides
    assert chinese_glosses("Can I pay with Visa?", _df({"支付": 3, "pay": 1})) == []  # an English page says pay
    many = " ".join(f"w{i}" for i in range(30))
    assert len(chinese_glosses("smoke balcony deposit " + many, base)) <= LIMIT


def test_an_english_question_over_a_chinese_base_is_searched_with_the_glosses():
    lexical = LexicalIndex([f"c{i}" for i in range(len(RULES))], RULES)
    plan = plan_query("Can I smoke on the balcony?", lexical)
    assert plan.cross_script
    assert {"吸烟", "阳台"} <= set(plan.expansion) and "吸烟" in plan.lexical_text
    assert plan.own_text == "Can I smoke on the balcony?"  # what the decision's evidence width reads
    assert lexical.search(plan.lexical_text, 1)[0][0] == "c0"
    assert lexical.search("Can I smoke on the balcony?", 1) == []  # without the glosses BM25 finds nothing
    chinese = plan_query("阳台可以吸烟吗？", lexical)
    assert not chinese.cross_script and chinese.own_text is None


TOOL = [
    "SignatureDoesNotMatch: the secret key does not match the access key. This error is usually caused by a wrong key.",
    "burrow is a command-line backup tool. Schedule `burrow backup` with cron to back up every day.",
]


def test_a_chinese_question_naming_an_english_identifier_is_chinese():
    """A helper's round (session 23): "出现 SignatureDoesNotMatch 错误是什么原因？" over an English tool's pages was refused
    (0.556 against 0.57): its 21 Latin letters against 9 Chinese characters made it of no script, so its Chinese words
    counted as absent from the English pages. Its own words are Chinese: it is a Chinese question over English text."""
    from core.retrieval.query import cjk_share, question_cjk_share
    from core.retrieval.scripts import in_other_script

    q = "出现 SignatureDoesNotMatch 错误是什么原因？"
    assert cjk_share(q) < 0.4 and question_cjk_share(q) == 1.0
    assert in_other_script(q, TOOL[0] * 2)
    assert plan_query(q, LexicalIndex(["a", "b"], TOOL)).cross_script
    assert question_cjk_share("use_tls") == cjk_share("use_tls")  # nothing but a name: the name's own script


def test_a_chinese_word_is_absent_from_english_pages_when_no_meaning_of_it_is_there():
    """The same round: with its Chinese words no sign of absence across scripts, "burrow 有图形界面吗？" would be answered
    with the install lines. A Chinese word is judged by its CC-CEDICT meanings over a base of English pages: 界面
    ("interface") is nowhere in the tool's pages, 错误 ("error") is; over a Chinese base the words are left out as
    before."""
    from core.retrieval import sufficiency_terms as terms
    from core.retrieval.english_glosses import english_meanings

    assert "interface" in english_meanings("界面") and "error" in english_meanings("错误")
    assert english_meanings("没有这个词") == ()
    kb = LexicalIndex(["a", "b"], TOOL)
    gui = terms.absent_share("burrow 有图形界面吗？", kb, cross_script=True)
    error = terms.absent_share("出现 SignatureDoesNotMatch 错误是什么原因？", kb, cross_script=True)
    assert gui > 0.5 and gui > error
    assert "错误" not in terms.absence_terms("SignatureDoesNotMatch 错误是什么原因？", True)  # a Chinese base's rule
    assert "错误" in terms.absence_terms("SignatureDoesNotMatch 错误是什么原因？", True, english_base=True)


def test_a_chinese_name_the_dictionary_lacks_is_absent_from_english_pages():
    """A word CC-CEDICT has no meaning for (a made-up name) is judged as before over English pages: nowhere, absent."""
    from core.retrieval import sufficiency_terms as terms

    kb = LexicalIndex(["a", "b"], TOOL)
    assert terms._nowhere("赤狐", kb) and not terms._nowhere("错误", kb)
