"""The line a person looks for first (fresh-clone helpers' rounds, session 27, over a company's fire-drill notice, a
neighbourhood's bulky-waste notice, a ski resort's guide and a rental agency's pages the helpers wrote): a floor or a
building named as the table names it in another way, a place the question names is not the place it asks for, a
colon-ended lead-in that states a deadline, an English question's function words, and a follow-up's new answer."""

from __future__ import annotations

from core.generators.extractive import ExtractiveGenerator
from core.generators.question_types import has_wanted
from core.generators.sentences import split_sentences
from core.lexical import tokenize
from core.retrieval.question import analyse
from tests.generators.test_extractive import rc

DRILL = "关于开展2024年度秋季消防疏散演练的通知"
FLOORS = (
    "| 楼层 | 部门 | 演练开始时间 | 疏散楼梯 | 集合点 |\n| --- | --- | --- | --- | --- |\n"
    "| 3F | 客服中心、前台 | 14:00 | 东侧楼梯 | A 集合点（大厦正门广场） |\n"
    "| 4F | 财务部、人力资源部 | 14:00 | 西侧楼梯 | A 集合点（大厦正门广场） |\n"
    "| 5F | 研发一部、测试部 | 14:20 | 东侧楼梯 | B 集合点（北侧停车场） |\n"
    "| 6F | 研发二部、产品部 | 14:20 | 西侧楼梯 | B 集合点（北侧停车场） |\n"
    "| 7F | 市场部、销售部、总经办 | 14:40 | 东、西侧楼梯 | C 集合点（东侧篮球场） |\n\n"
    "（注：演练全程约 1 小时，各楼层疏散完毕后在集合点清点人数，15:30 前结束。）"
)
EXEMPT = (
    "以下人员经部门负责人批准后可不参加疏散演练，但须在 10月22日 前将名单报行政部：\n\n"
    "- 孕期员工及身体不适、行动不便的员工；\n- 当日在外出差或休假的员工；\n"
    "- 机房值班人员（IT 部安排 2 人留守，须在演练期间保持电话畅通）；\n"
    "- 正在接待外部客户的员工，须提前报备，并由接待人负责引导客户一同疏散。"
)


def _first(question: str, chunks, history=()) -> str:  # noqa: ANN001
    return ExtractiveGenerator().generate(question, chunks, history).text.split("\n\n")[0]


def test_a_floor_asked_as_5楼_is_the_tables_5F_row():
    """ "5楼几点开始演练？" (h41c c01) had been answered with the 3F and 4F rows: jieba cuts 5楼 into 5 / 楼 and keeps
    5F whole, so the 5F row shared no word with the question."""
    first = _first("5楼几点开始演练？", [rc("d.md#1", (DRILL, "一、演练时间与楼层安排"), FLOORS, 1)])
    assert "5F | 研发一部、测试部 | 14:20" in first, first
    assert "3F" not in first and "4F" not in first, first


def test_an_english_floor_is_the_same_row():
    """ "What time does the drill start on the 7th floor?" (h41c c12) had been led by the note under the table."""
    first = _first(
        "What time does the drill start on the 7th floor?", [rc("d.md#1", (DRILL, "一、演练时间与楼层安排"), FLOORS, 1)]
    )
    assert "7F | 市场部、销售部、总经办 | 14:40" in first, first


WASTE = "关于开展2024年秋季大件垃圾及旧家具集中清运的通知"
SCHEDULE = (
    "| 日期 | 楼栋 | 时间 |\n| --- | --- | --- |\n"
    "| 10月12日（星期六） | 1-6号楼 | 8:00-11:30 |\n| 10月13日（星期日） | 7-12号楼 | 8:00-11:30 |\n"
    "| 10月19日（星期六） | 13-18号楼 | 8:00-11:30 |\n| 10月20日（星期日） | 19-22号楼及沿街商铺 | 8:00-11:30 |"
)
PLACES = (
    "请将物品于清运当天早上 8:00 以后搬至指定地点，不得提前堆放在楼道或消防通道内：\n\n"
    "1. 1-12号楼：小区北门西侧临时堆放点（自行车棚旁）。\n2. 13-22号楼及商铺：南门停车场东侧空地。"
)


def test_a_range_of_buildings_asked_is_its_row_not_a_date_holding_its_number():
    """ "7-12号楼哪天清运？" (h40c c01) had been answered with where to put things (1-12号楼：…北门…) and the 1-6号楼 row:
    its 12 had read as naming the row of 10月12日, and the 7-12号楼 row had been left out as another row's."""
    chunks = [
        rc("w.md#1", (WASTE, "一、清运时间（按楼栋安排）"), SCHEDULE, 1),
        rc("w.md#2", (WASTE, "二、投放地点"), PLACES, 2),
    ]
    first = _first("7-12号楼哪天清运？", chunks)
    assert "10月13日（星期日） | 7-12号楼" in first, first
    assert "10月19日（星期六） | 13-18号楼" in _first("我住15号楼，旧沙发哪天清运？", chunks)


SKI = "云岭山国际滑雪场交通与开放时间"
BUS = (
    "雪场为持当日雪票或酒店住宿凭证的游客提供免费接驳巴士。\n\n"
    "| 线路 | 上车地点 | 发车时间 | 单程时长 |\n| --- | --- | --- | --- |\n"
    "| 1号线 | 昆明南站北广场 3 号门 | 7:00、8:30、10:00 | 约 90 分钟 |\n"
    "| 2号线 | 市区东风广场（东风西路口） | 7:30、9:00 | 约 75 分钟 |\n\n"
    "1. 请提前 10 分钟到达上车点，凭购票成功页面或雪卡上车。\n2. 接驳巴士不接受预约，满员即发车；每车 45 座。"
)


def test_the_place_a_question_names_is_not_the_place_it_asks_for():
    """ "接驳巴士在哪里上车？" (h41a a16) had been led by "雪场为…提供免费接驳巴士。": jieba tags 巴士 as a place name,
    so the sentence seemed to state a place; the rows of the 上车地点 column do."""
    first = _first("接驳巴士在哪里上车？", [rc("t.md#2", (SKI, "二、免费接驳巴士"), BUS, 1)])
    assert "昆明南站北广场 3 号门" in first, first
    assert not has_wanted("接驳巴士不接受预约，满员即发车；", frozenset({"place"}), "接驳巴士在哪里上车？")
    assert has_wanted("集合地点：东侧篮球场", frozenset({"place"}), "接驳巴士在哪里上车？")


def test_a_lead_in_that_states_a_deadline_is_a_sentence():
    """ "免于参加演练的名单什么时候前报给行政部？" (h41c c07) had been answered with the list's items: the deadline is in the
    colon-ended line that announces the list, which had been dropped as a lead-in."""
    first = _first(
        "免于参加演练的名单什么时候前报给行政部？", [rc("d.md#3", (DRILL, "三、免于参加演练的人员"), EXEMPT, 1)]
    )
    assert "10月22日" in first and "名单报行政部" in first, first


def test_a_colour_asked_for_is_a_colour_stated():
    """ "疏散引导员戴什么颜色的袖标？" (h41c c18): 颜色 names the kind of answer (黄色), not a topic the notice lacks."""
    q = analyse("疏散引导员戴什么颜色的袖标？")
    assert "color" in q.wants and "颜色" in q.kind_words
    assert has_wanted("各部门疏散引导员佩戴黄色袖标，负责引导本部门人员并最后撤离。", q.wants)
    assert not has_wanted("到达集合点后按部门列队。", q.wants)


RENT = "水杉公寓 租客指南"
UTILITIES = (
    "| 项目 | 收费标准 | 缴费方式 |\n| --- | --- | --- |\n| 电费 | 0.68元/度 | 智能电表预充值 |\n"
    "| 水费 | 5.2元/吨 | 每月10日随账单缴纳 |"
)
ENGLISH = (
    "- Rent is paid in advance, either every three months or every month (monthly payment adds a 100 RMB service fee).\n"
    "- Late payment incurs a fee of 0.5% of the due rent per day."
)


def test_an_english_questions_function_words_match_no_sentence():
    """ "How much is electricity per kWh?" (h40a a11) had been answered "Late payment incurs a fee … per day." from the
    base's English page: per (and much) matched there; the electricity row of the Chinese table answers."""
    chunks = [
        rc("u.md#1", (RENT, "一、水电燃气"), UTILITIES, 1),
        rc("en.md#2", ("Tenant guide (English)", "Rent and payment"), ENGLISH, 2),
    ]
    text = ExtractiveGenerator().generate("How much is electricity per kWh?", chunks).text
    assert "per day" not in text.split("\n\n")[0], text


PASSES = (
    "1. 成人季卡：3980 元，雪季内不限次数滑行，早鸟价（11月15日前购买）3280 元。\n2. 青少年季卡：2980 元。\n"
    "3. 十次卡：2880 元，可多人共用，每次入场扣除 1 次。\n4. 季卡仅限本人使用，首次使用须在售票中心绑定人脸信息。"
)


def test_a_follow_up_is_led_by_what_the_last_answer_did_not_say():
    """ "这个可以给家里人用吗？" after "成人季卡多少钱？" (h41a a23) had repeated the price first: neither that line nor the
    others have the new words (家里人), so the best line not quoted before leads."""
    history = [("成人季卡多少钱？", "成人季卡：3980 元，雪季内不限次数滑行，早鸟价（11月15日前购买）3280 元。")]
    first = _first(
        "季卡 成人 这个可以给家里人用吗？", [rc("p.md#2", ("雪票价格", "二、季卡与次卡"), PASSES, 1)], history
    )
    assert first.startswith("季卡仅限本人使用"), first


SIZES = (
    "| 预设名称 | 长边像素 | 分辨率 |\n| --- | --- | --- |\n| 原始尺寸 | 与原图相同 | 300 ppi |\n"
    "| 朋友圈 | 1080 px | 72 ppi |\n| 小红书 | 1440 px | 72 ppi |\n| 4K 桌面 | 3840 px | 72 ppi |\n\n"
    "单张导出的最大尺寸为 30000 × 30000 像素，超过时请先裁剪或缩小。"
)


def test_a_word_jieba_glued_a_character_onto_is_the_evidences_word():
    """ "发小红书应该导出多大的尺寸？" (h40b b15) had been led by the largest size: jieba cuts 发小红书 as one word (小红书 is
    in no dictionary), so the row "小红书 | 1440 px" matched nothing."""
    first = _first("发小红书应该导出多大的尺寸？", [rc("e.md#2", ("导出格式与尺寸", "尺寸预设"), SIZES, 1)])
    assert "小红书 | 1440 px" in first, first


def test_a_sentence_cut_out_of_a_parenthesis_has_no_stray_bracket():
    """The answers had shown "（不支持 32 位系统，也不支持 Linux。" and "节假日私教课加收 20%。）" (h40b, h41a): a parenthesis
    holding two sentences is cut between them; each keeps its exact offset without the bracket it does not close."""
    text = (
        "系统要求如下。\n\n（不支持 32 位系统，也不支持 Linux。AI 降噪功能需要显存 4 GB 以上。）\n\n（注：仅限周末。）"
    )
    got = split_sentences(text)
    assert [s for _, s in got] == [
        "系统要求如下。",
        "不支持 32 位系统，也不支持 Linux。",
        "AI 降噪功能需要显存 4 GB 以上。",
        "（注：仅限周末。）",
    ]
    assert all(text[at : at + len(s)] == s for at, s in got)


def test_two_function_characters_jieba_glued_are_no_word():
    """ "这个软件能在 Linux 上用吗？" (h40b b08) had been refused over "…也不支持 Linux。": jieba's HMM cut 上用, a word no
    document has, which weighed as much as Linux in the question's "absent" share."""
    assert tokenize("这个软件能在 Linux 上用吗？") == ["这个", "软件", "linux"]
    assert "上下班" in tokenize("上下班时间")  # a word of the dictionary stays


INSPECTION = (
    "检查时间为每天 9:00—12:00、14:00—18:00，具体安排如下：\n\n| 楼栋 | 检查日期 |\n| --- | --- |\n"
    "| 1—3 栋 | 11 月 4 日（周一）至 11 月 5 日（周二） |\n| 4—6 栋 | 11 月 6 日（周三）至 11 月 7 日（周四） |\n"
    "| 7—9 栋 | 11 月 8 日（周五）至 11 月 9 日（周六） |"
)


def test_the_number_of_a_building_is_no_number_of_its_own():
    """ "When will building 5 be inspected?" (h38c c11, left in session 26) had been answered with the 1—3 栋 row, whose
    "11 月 5 日" has a 5; building 5 is in the 4—6 栋 row."""
    chunks = [rc("g.md#1", ("入户燃气安全检查通知", "检查时间安排"), INSPECTION, 1)]
    assert "4—6 栋 | 11 月 6 日" in _first("When will building 5 be inspected?", chunks)
    assert "7—9 栋 | 11 月 8 日" in _first("我住8栋，哪天来查？", chunks)


EXTRAS = (  # as the chunker keeps it (the bold labels plain)
    "- 童锁：同时按住“温度”和“转速”键 3 秒开启或解除。童锁开启时除电源键外所有按键失效。\n"
    "- 中途添衣：运行中按“启动/暂停”键，待门锁指示灯熄灭后可打开机门。筒内水温高于 50 ℃ 或水位过高时不能开门。"
)


def test_a_how_to_lead_saying_the_action_of_another_thing_gives_way():
    """ "怎么打开童锁？" (h26b-11, session 22's set) over its one chunk had been led by "中途添衣：…可打开机门。": 打开 is in
    one sentence and 童锁 in two, so the action's sentence scored first; the sentence naming 童锁 leads."""
    first = _first("怎么打开童锁？", [rc("w.md#4", ("洗涤程序与洗涤剂", "附加功能"), EXTRAS, 1)])
    assert first.startswith("童锁：同时按住"), first
