"""The asked detail found where a person would look for it (a fresh-clone helper's round, session 21, over a
kindergarten's handbook, a command-line tool's docs and a shared flat's rules, all written by the helper): the price
in the sentence before the one that names the topic, a deposit stated as a month's rent, the sentence that has
what a part asks for, the table row the question names, and an upper bound not taken for a lower one."""

from __future__ import annotations

from core.generators.extractive import ExtractiveGenerator
from core.generators.question_types import unstated, wanted_share
from tests.generators.test_extractive import rc

LATE = (
    "超过 17:15 仍未接走且未报名延时托管的幼儿，将被统一带到值班室等候，按每 30 分钟 20 元收取临时看护费，"
    "不足 30 分钟按 30 分钟计。一学期内晚接累计 3 次以上的，园方将约谈家长。"
)
LATE_CHUNK = f"早上 8:30 以后到园的幼儿，请由家长送到门卫室登记后再由保育员带入班级。\n\n{LATE}"


def test_the_price_in_the_sentence_before_the_one_that_names_the_topic_is_quoted():
    """ "晚接怎么收费？" matched only "一学期内晚接累计 3 次以上的，园方将约谈家长。" (its word 晚接) and was prefixed "没有
    直接说明所问的金额或费用", while the sentence before it in the same paragraph gives the price (未接走, 20 元). That
    sentence now comes first, and a two-part question that also asks how many times gets both."""
    chunk = rc("01.md#5", ("入园与接送", "迟到与晚接"), LATE_CHUNK, 1)
    for question in ("晚接怎么收费？", "晚接怎么收费？一学期晚接几次会被约谈？"):
        draft = ExtractiveGenerator().generate(question, [chunk])
        assert draft.text.startswith("超过 17:15 仍未接走"), (question, draft.text)
        assert "一学期内晚接累计 3 次以上的" in draft.text
        assert "没有直接说明" not in draft.text
        assert "早上 8:30" not in draft.text  # the paragraph before is another topic


def test_the_sentence_before_joins_only_from_the_same_paragraph_and_only_for_a_checked_detail():
    """The price of another paragraph is not taken; nor is a time of day for a yes/no question that names a day
    ("周末在家能用电钻打孔吗？" had been led by the weekday hours before its answer: a time of day is not a detail the
    answer is checked for)."""
    apart = "按每 30 分钟 20 元收取临时看护费。\n\n一学期内晚接累计 3 次以上的，园方将约谈家长。"
    draft = ExtractiveGenerator().generate("晚接怎么收费？", [rc("01.md#5", ("入园与接送", "迟到与晚接"), apart, 1)])
    assert not draft.text.startswith("按每 30 分钟"), draft.text
    rules = (
        "周一到周五 8:30–12:00、14:00–18:00 可以施工。周六、周日和法定节假日只能干不出声的活，比如刷漆、贴墙纸，"
        "电钻、电锤、切割机一律不能用。"
    )
    draft = ExtractiveGenerator().generate("周末在家能用电钻打孔吗？", [rc("d.md#1", ("装修", "施工时间"), rules, 1)])
    assert draft.text.startswith("周六、周日和法定节假日"), draft.text


def test_a_deposit_of_one_months_rent_states_how_much():
    """ "押金多少？" was prefixed "没有直接说明所问的金额或费用" over "押金为一个月房租…": so many periods of another price
    is an amount. It answers a how-much question less directly than a figure, so a figure leads where both are
    near the question ("How much is the late fee…?" stays led by "每天加收 50 元滞纳金")."""
    deposit = "押金为一个月房租，退租时如无损坏和欠费，在交还钥匙后 7 天内全额退还。"
    assert unstated("押金多少？", [deposit], [("房租与押金", deposit)]) is None
    assert unstated("违约要赔多少？", ["提前解约须赔偿两个月工资。"], [("合同", "提前解约须赔偿两个月工资。")]) is None
    # every month is no amount
    assert unstated("房租多少钱？", ["每个月房租按时转账。"], [("房租", "每个月房租按时转账。")]) == "money"
    money = frozenset({"money"})
    assert wanted_share("逾期交租超过 3 天的，每天加收 50 元滞纳金。", money) == 1.0
    assert wanted_share(deposit, money) == 0.5
    assert wanted_share("退租前请清理房间。", money) == 0.0


def test_the_part_that_asks_for_a_price_is_answered_by_the_sentence_that_has_one():
    """ "押金多少？什么时候退？" led with "…押金不退；" from the better-ranked 退租 chunk: it matches 押金 as well as
    "押金为一个月房租…" does, but has no amount. Of the sentences that match as many of a part's words, the one with
    what the part asks for answers it."""
    leave = (
        "合同期一般为一年。租期内提前退租，需要提前 30 天告知房东，押金不退；如能自己找到房东认可的新租客接替，"
        "押金可以全额退还。"
    )
    rent = "房租按月支付，每月 5 日前转账给房东。押金为一个月房租，退租时如无损坏和欠费，在交还钥匙后 7 天内全额退还。"
    chunks = [rc("flat.md#6", ("租房须知", "退租"), leave, 1), rc("flat.md#1", ("租房须知", "房租与押金"), rent, 2)]
    draft = ExtractiveGenerator().generate("押金多少？什么时候退？", chunks)
    assert draft.text.startswith("押金为一个月房租"), draft.text
    assert "没有直接说明" not in draft.text


TABLE = """| 配置项 | 命令行参数 | 默认值 | 说明 |
| --- | --- | --- | --- |
| `max_retries` | `--max-retries` | 3 | 单个文件上传失败后的最大重试次数，设为 0 表示不重试 |
| `concurrency` | `--concurrency` | 8 | 同时上传的文件数，最大 64 |
| `chunk_size` | `--chunk-size` | 16MiB | 分片上传时每片的大小，最小 5MiB |
"""


def test_a_row_the_question_does_not_name_is_not_its_answer_and_a_lower_bound_is_no_upper_one():
    """ "chunk_size 最大可以设到多少？" led with the `max_retries` row (its description says 最大重试次数) and was not
    flagged, though the `chunk_size` row gives only a minimum. The row the question names leads, the rows it names
    another key of are left out, and the answer says the asked bound is not stated."""
    chunk = rc("config.md#3", ("配置文件说明", "[sync] 段"), TABLE, 1)
    draft = ExtractiveGenerator().generate("chunk_size 最大可以设到多少？", [chunk])
    assert "`chunk_size` | `--chunk-size`" in draft.text, draft.text
    assert "max_retries" not in draft.text and "concurrency" not in draft.text
    assert draft.text.startswith("检索到的内容没有直接说明所问的上限或下限"), draft.text
    # the row that states the maximum is an answer
    draft = ExtractiveGenerator().generate("concurrency 最大可以设到多少？", [chunk])
    assert "`concurrency` | `--concurrency` | 8 | 同时上传的文件数，最大 64" in draft.text
    assert "没有直接说明" not in draft.text and "max_retries" not in draft.text


def test_an_upper_bound_is_not_answered_by_a_lower_one():
    """Directions of a bound: 最小/至少 do not answer 最大/最多 and the other way round; 超过 bounds only a quantity
    ("超过 90 天不再补打" does, "超过 `chunk_size` 的文件会分片上传" is a condition); a question that names no
    direction takes any bound."""
    lower = "分片大小最小 5MiB。"
    assert unstated("分片最大可以设到多少？", [lower], [("分片", lower)]) == "bound"
    assert unstated("分片最小可以设到多少？", [lower], [("分片", lower)]) is None
    condition = "超过 `chunk_size` 的文件会分片上传。"
    assert unstated("文件最大能传多少？", [condition], [("分片", condition)]) == "bound"
    window = "请在就诊后 90 天内到收费窗口补打，超过 90 天不再补打。"
    assert unstated("发票最多能晚多少天补打？", [window], [("发票", window)]) is None
    assert unstated("最少要提前几天？", ["至少提前 3 天预约。"], [("预约", "至少提前 3 天预约。")]) is None
    assert unstated("最多要提前几天？", ["至少提前 3 天预约。"], [("预约", "至少提前 3 天预约。")]) == "bound"


def test_a_question_for_when_leads_with_the_sentence_that_says_a_time():
    """ "厨余垃圾什么时候可以扔？" led with "…投放点在 6 栋楼下东侧。" (6 is a number, which 什么时候 also takes) over the
    sentence with the hours; a bare number answers when less than a time, a day or a span does."""
    rubbish = (
        "小区实行垃圾分类，厨余垃圾、可回收物、有害垃圾、其他垃圾分开投放，投放点在 6 栋楼下东侧。\n"
        "厨余垃圾每天投放时间为早上 7:00–9:00 和晚上 18:00–20:00，其他时间请不要放在门口。"
    )
    draft = ExtractiveGenerator().generate(
        "厨余垃圾什么时候可以扔？", [rc("flat.md#4", ("租房须知", "垃圾"), rubbish, 1)]
    )
    assert draft.text.startswith("厨余垃圾每天投放时间为早上 7:00–9:00"), draft.text
    when = frozenset({"when"})
    assert wanted_share("投放点在 6 栋楼下东侧。", when) == 0.5
    assert wanted_share("在交还钥匙后 7 天内全额退还。", when) == 1.0


LOG = (
    "日志默认输出到标准错误；加上 `--log-file PATH` 可以写入文件。"
    "日志级别用 `--log-level` 或环境变量 `TIDESYNC_LOG_LEVEL` 设置，可选 `debug`、`info`、`warn`、`error`，默认 `info`。"
)


def test_an_english_phrase_written_as_an_option_name_is_found_in_it():
    """ "What is the default log level?" over Chinese docs led with "日志默认输出到标准错误；": its words log and level
    are only in `--log-level` and TIDESYNC_LOG_LEVEL, code the question's plain words are not looked for in. Two
    adjacent words of the question written as one name name that option. One word alone still is not found in code
    ("pessimistic" in `pessimistic-txn.deadlock-history-collect-retryable`)."""
    draft = ExtractiveGenerator().generate(
        "What is the default log level?", [rc("config.md#5", ("配置", "日志"), LOG, 1)]
    )
    assert draft.text.startswith("日志级别用 `--log-level`"), draft.text


def test_a_rule_is_quoted_with_the_exceptions_its_next_line_lists():
    """ "孩子可以带零食去幼儿园吗？" was answered "为了食品安全，幼儿园原则上不允许幼儿自带零食和饮料入园。" alone, a plain
    no, while the handbook lists two exceptions right under it ("以下情况例外："). The rule comes with the words that
    announce them and the items, each quoted where the chunk has it."""
    text = (
        "为了食品安全，幼儿园原则上不允许幼儿自带零食和饮料入园。以下情况例外：\n\n"
        "- 医生证明需要的特殊配方奶粉，须用原装罐带来并写上孩子的姓名；\n"
        "- 生日庆祝：可带不含坚果的蛋糕，需提前 2 天告知班主任，蛋糕须为有正规包装和生产日期的成品。\n"
    )
    chunk = rc("food.md#2", ("餐饮与过敏", "自带食物"), text, 1)
    draft = ExtractiveGenerator().generate("孩子可以带零食去幼儿园吗？", [chunk])
    assert draft.text.startswith("为了食品安全，幼儿园原则上不允许幼儿自带零食和饮料入园。以下情况例外："), draft.text
    assert "特殊配方奶粉" in draft.text and "生日庆祝" in draft.text
    for s in draft.supports:
        assert draft.text[s.start : s.end] == s.quote and s.quote in text, s
    # a list that is not announced as exceptions does not come along
    plain = text.replace("以下情况例外：", "常见的零食有：")
    draft = ExtractiveGenerator().generate(
        "孩子可以带零食去幼儿园吗？", [rc("food.md#2", ("餐饮", "自带食物"), plain, 1)]
    )
    assert "特殊配方奶粉" not in draft.text, draft.text


INSTALL = (
    "脚本默认把二进制文件安装到 `/usr/local/bin`。如果你没有 root 权限，可以设置环境变量 `TIDESYNC_INSTALL_DIR` "
    "改到其他目录，例如：\n\n```sh\ncurl -fsSL https://get.tidesync.dev/install.sh | TIDESYNC_INSTALL_DIR=$HOME/.local/bin sh\n```\n"
)


def test_a_sentence_that_ends_by_introducing_an_example_is_quoted_without_that_clause():
    """ "我没有 root 权限，怎么安装到自己的目录？" never saw its answer: the sentence ends "…改到其他目录，例如：" before
    a command, and a sentence that ends with a colon was dropped as one that only announces a block. Its statement is
    quoted without the clause that introduces the example, and, being about the person's case (its opening condition
    says root 权限), it leads over the sentence that says 安装."""
    from core.generators.sentences import split_sentences

    assert [s for _, s in split_sentences(INSTALL)][1] == (
        "如果你没有 root 权限，可以设置环境变量 `TIDESYNC_INSTALL_DIR` 改到其他目录"
    )
    chunk = rc("install.md#2", ("安装", "一键安装脚本"), INSTALL, 1)
    draft = ExtractiveGenerator().generate("我没有 root 权限，怎么安装到自己的目录？", [chunk])
    assert draft.text.startswith("如果你没有 root 权限"), draft.text


def test_a_how_to_question_still_leads_with_the_action_over_a_sentence_about_its_topic():
    """The action's sentence leads when the lead is no condition the person states: "孩子生病了怎么请假？" leads with
    the sentence that says 请假, not with "孩子在园期间出现发热等不适…" (its headings say 生病)."""
    leave = rc(
        "sick.md#1",
        ("生病与请假", "请假"),
        '幼儿因事或因病不能来园，请家长在当天早上 8:00 前通过"阳光树家园"小程序提交请假，或打电话给班主任。'
        "连续请假 3 天以上的，需要写明原因。",
        1,
    )
    ill = rc(
        "sick.md#2",
        ("生病与请假", "在园期间生病"),
        "孩子在园期间出现发热等不适，保健医生会先将孩子带到隔离观察室，并立即通知家长。家长须在接到电话后 1 小时内到园接孩子。",
        2,
    )
    draft = ExtractiveGenerator().generate("孩子生病了怎么请假？", [leave, ill])
    assert draft.text.startswith("幼儿因事或因病不能来园"), draft.text


def test_a_count_of_things_just_named_needs_the_sentence_that_names_them():
    """ "家里两个孩子都在园有优惠吗？" ended with "- 两项优惠不能同时享受。" on its own: which two? A sentence that opens with a
    count of things (两项, 两者, 三种) refers to the ones just named and comes with the sentence before it."""
    from core.generators.sentences import needs_previous

    assert needs_previous("两项优惠不能同时享受。", first_in_chunk=False)
    assert needs_previous("两者不能同时使用。", first_in_chunk=False)
    assert not needs_previous("两个孩子同时在园的，第二个孩子减免 10%。", first_in_chunk=False)
    text = (
        "同一家庭有两个孩子同时在园的，第二个孩子的保育教育费减免 10%。本园教职工子女减免 30%。两项优惠不能同时享受。"
    )
    draft = ExtractiveGenerator().generate(
        "家里两个孩子都在园有优惠吗？", [rc("fee.md#3", ("收费与退费", "优惠政策"), text, 1)]
    )
    assert "本园教职工子女减免 30%。两项优惠不能同时享受。" in draft.text, draft.text


def test_rows_the_question_names_are_quoted_and_their_look_alikes_are_not():
    """ "固定工位每月多少钱？" also quoted the 流动工位（月卡） row (工位 is in its first cell too): a row is another row's
    look-alike when the question names a word of that row's first cell that this one lacks, and nothing of its own the
    other lacks. A question naming two rows gets both."""
    table = (
        "| 会员类型 | 月费 | 押金 |\n| --- | --- | --- |\n| 流动工位（月卡） | 1,280 元/月 | 500 元 |\n"
        "| 固定工位 | 1,880 元/月 | 1,000 元 |\n| 独立办公室（4 人间） | 8,600 元/月 | 两个月租金 |\n"
    )
    chunk = rc("membership.md#0", ("会员类型与价格",), table, 1)
    draft = ExtractiveGenerator().generate("固定工位每月多少钱？", [chunk])
    assert "固定工位 | 1,880 元/月" in draft.text and "流动工位" not in draft.text, draft.text
    draft = ExtractiveGenerator().generate("固定工位和独立办公室每月分别多少钱？", [chunk])
    assert "固定工位 | 1,880 元/月" in draft.text and "独立办公室（4 人间） | 8,600 元/月" in draft.text, draft.text


LATE_RULES = (
    "- 迟交 24 小时以内：扣除该次作业得分的 10%。\n- 迟交 24 至 72 小时：扣除该次作业得分的 30%。\n"
    "- 迟交超过 72 小时：该次作业记 0 分，不再接受提交。\n"
)


def test_a_quantity_in_words_is_found_in_the_range_that_holds_it_in_another_unit():
    """ "作业晚交了两天，会扣多少分？" quoted the rules for under 24 hours and over 72 hours and left out the one for its
    case: 两天 is 48 小时, inside "24 至 72 小时". A span "24 小时以内" is a range too."""
    from core.generators.quantities import quantity_in_stated_range, stated_ranges

    assert quantity_in_stated_range("两天", "迟交 24 至 72 小时：扣除该次作业得分的 30%。")
    assert not quantity_in_stated_range("两天", "迟交超过 72 小时：该次作业记 0 分。")
    assert quantity_in_stated_range("4天", "迟交超过 72 小时：该次作业记 0 分。")
    assert quantity_in_stated_range("半个月", "补办须在 10 至 20 天内完成。")
    assert not quantity_in_stated_range("两年", "补办须在 10 至 20 天内完成。")  # no conversion from years to days
    assert stated_ranges("迟交 24 小时以内：扣除 10%。") == ((0.0, 24.0, "小时"),)
    draft = ExtractiveGenerator().generate(
        "作业晚交了两天，会扣多少分？", [rc("hw.md#2", ("作业与迟交", "迟交扣分"), LATE_RULES, 1)]
    )
    assert draft.text.startswith("迟交 24 至 72 小时：扣除该次作业得分的 30%。"), draft.text


def test_a_question_for_a_share_wants_a_percentage():
    """ "期末考试占总评成绩的百分之几？" led with "期末考试卷面成绩低于 40 分…不及格" (40 points, not 40%) over the table's
    40% row; 百分之几 asked for no number at all. It asks a number in %, and a number in another unit has it in part."""
    from core.retrieval.question import analyse

    assert analyse("期末考试占总评成绩的百分之几？").unit == "%"
    assert "number" in analyse("期末考试占总评成绩的百分之几？").wants
    rule = "期末考试卷面成绩低于 40 分（满分 100 分）的，总评成绩直接记为不及格，不再按上表加权计算。"
    table = "| 项目 | 占比 | 说明 |\n| --- | --- | --- |\n| 平时作业 | 30% | 共 6 次 |\n| 期末考试 | 40% | 闭卷，120 分钟 |\n"
    chunks = [rc("grading.md#1", ("成绩构成", "及格"), rule, 1), rc("grading.md#0", ("成绩构成", "总评"), table, 2)]
    draft = ExtractiveGenerator().generate("期末考试占总评成绩的百分之几？", chunks)
    assert "期末考试 | 40%" in draft.text.split("\n\n")[0], draft.text


def test_a_count_of_things_is_not_a_span_of_time():
    """ "充电桩是24小时开放的吗？" got "地下车库 B2 层设有公共充电桩 24 个…" as if its 24 were the hours: a number whose
    measure word 个 ends it counts things, and is no time, age or sum; it may still be a count of people."""
    from core.generators.quantities import same_quantity

    chargers = "地下车库 B2 层设有公共充电桩 24 个（其中快充 8 个、慢充 16 个）。"
    assert not same_quantity("24", "充电桩是24小时开放的吗？", chargers)
    assert same_quantity("5", "能坐5个人吗？", "每辆车最多坐 5 个。")
    assert same_quantity("64", "名字最多64个字符吗？", "名称最多 64 个字符。")


def test_where_a_room_or_a_building_is_stated_answers_where():
    """ "期末考试是什么时候，在哪里考？" was answered with the time and the syllabus's 范围 line, not "地点：第一教学楼 105
    大教室": jieba tags no such place. A place's label, a numbered room or building says where; and
    a question whose words are only in the section's heading gets that section's lines by what it asks for."""
    from core.generators.question_types import has_wanted

    place = frozenset({"place"})
    assert has_wanted("地点：第一教学楼 105 大教室", place)
    assert has_wanted("请到 3 号楼 201 室登记。", place)
    assert not has_wanted("需要纸质发票的，请到收费窗口补打。", place)  # "去哪里下载" is not answered by a window
    assert not has_wanted("范围：全部章节，重点为图、排序和查找", place)
    exams = "- 时间：2025 年 1 月 10 日（星期五）9:00–11:00\n- 范围：全部章节，重点为图、排序和查找\n- 地点：第一教学楼 105 大教室\n"
    draft = ExtractiveGenerator().generate(
        "期末考试是什么时候，在哪里考？", [rc("exams.md#1", ("考试安排", "期末考试"), exams, 1)]
    )
    assert draft.text.startswith("时间：2025 年 1 月 10 日"), draft.text
    assert "地点：第一教学楼 105 大教室" in draft.text


def test_a_question_for_which_day_leads_with_a_date():
    """ "期中考试是哪天？" led with the grading table's row "期中考试 | 20% | 闭卷，90 分钟" (its words; 90 分钟 is a span of
    time) over the line under the heading 期中考试 that gives the date. A question for which day is led by a unit that
    states a date or a weekday and is about it; the final exam's date is not about the midterm."""
    from core.retrieval.question import analyse

    assert analyse("期中考试是哪天？").asks_date and not analyse("期中考试考多久？").asks_date
    grading = "| 项目 | 占比 | 说明 |\n| --- | --- | --- |\n| 期中考试 | 20% | 闭卷，90 分钟 |\n| 期末考试 | 40% | 闭卷，120 分钟 |\n"
    midterm = "- 时间：2024 年 11 月 8 日（星期五）14:00–15:30\n- 地点：第三教学楼 301、302 教室\n"
    final = "- 时间：2025 年 1 月 10 日（星期五）9:00–11:00\n- 地点：第一教学楼 105 大教室\n"
    chunks = [
        rc("grading.md#1", ("成绩构成",), grading, 1),
        rc("exams.md#1", ("考试安排", "期末考试"), final, 2),
        rc("exams.md#0", ("考试安排", "期中考试"), midterm, 3),
    ]
    draft = ExtractiveGenerator().generate("期中考试是哪天？", chunks)
    assert draft.text.startswith("时间：2024 年 11 月 8 日"), draft.text
