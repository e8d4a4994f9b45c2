"""The line a person looks for first (fresh-clone helpers' rounds, session 24, over a bank card's terms and a
swimming pool's one-page notice the helpers wrote): the phone number a question asks for, the way to do what a how-to
question asks in the section that says it, and the count in the unit asked."""

from __future__ import annotations

from core.generators.extractive import ExtractiveGenerator
from tests.generators.test_extractive import rc

LOST_CARD = (
    "请立即通过以下任一方式办理挂失：\n"
    "- 24 小时客服热线 400-820-6688（境外请拨 +86-21-3869-6688）；\n"
    "- 手机银行 App：“信用卡—卡片管理—挂失”；\n"
    "- 本行任意营业网点，须持本人有效身份证件。\n\n"
    "挂失即时生效。电话及手机银行挂失为正式挂失，无需再到网点补办手续。"
)
TRAINING = (
    "本馆常年开设游泳培训班，由持证教练授课。\n\n"
    "| 班型 | 对象 | 课时 | 价格 |\n| --- | --- | --- | --- |\n"
    "| 少儿初级班 | 6–12 岁零基础 | 12 次课，每次 60 分钟 | 1280 元 |\n"
    "| 成人初级班 | 18 岁以上零基础 | 10 次课，每次 60 分钟 | 1380 元 |\n\n"
    "- 报名：服务台现场报名或拨打 0571-8612 3300。\n"
    "- 少儿班每班不超过 8 人，成人班每班不超过 6 人。\n"
    "- 开课后因个人原因退课的，按剩余课时的 80% 退费。"
)
POOL = "东湖区全民健身中心游泳馆开放公告"


def test_an_english_question_for_a_phone_number_is_led_by_the_line_that_gives_one():
    """ "What is the phone number for reporting a lost card?" (h30a a-11) had been answered with the app and branch
    channels, the hotline left out: over Chinese lines the meaning decides, and the hotline's line shares little of
    it. A sentence that gives a phone number now leads such a question (``CROSS_PHONE_BONUS``)."""
    gen = ExtractiveGenerator()
    # a similarity that prefers every other line, as the second embedder did (0.47 against 0.16)
    gen.sentence_similarity = lambda question, sentences: [0.16 if "400-820" in s else 0.47 for s in sentences]
    draft = gen.generate(
        "What is the phone number for reporting a lost card?",
        [rc("l.md#1", ("挂失与补卡", "发现卡片丢失怎么办"), LOST_CARD, 1)],
    )
    first = draft.text.split("\n\n")[0]
    assert "400-820-6688" in first, draft.text


def test_a_how_to_question_is_led_by_the_sections_line_that_says_the_action():
    """ "游泳馆的成人初级班怎么报名？" (h30c c-15) had been led by the class's table row (its name, no 报名) over "报名：服务台
    现场报名…", the section's line for every class, which does not repeat the class's name."""
    draft = ExtractiveGenerator().generate(
        "游泳馆的成人初级班怎么报名？", [rc("n.md#4", (POOL, "四、游泳培训"), TRAINING, 1)]
    )
    assert draft.text.startswith("报名：服务台现场报名"), draft.text


def test_a_count_of_people_is_led_by_the_line_that_states_one():
    """ "那一个班有多少人？" after "游泳馆的成人初级班怎么报名？" (h30c c-16, searched with 成人初级班 carried) had been led by the
    class's row (ages, lessons and a price, but no number of people) over "…成人班每班不超过 6 人。"."""
    draft = ExtractiveGenerator().generate(
        "成人初级班一个班有多少人？", [rc("n.md#4", (POOL, "四、游泳培训"), TRAINING, 1)]
    )
    assert draft.text.startswith("少儿班每班不超过 8 人，成人班每班不超过 6 人。"), draft.text


def test_a_count_of_calendar_days_is_stated_in_days():
    """多少天 is stated as 15 个自然日 too ("出差结束后 15 个自然日内，在 OA 填写差旅报销单。", hr C07): with the lead
    that states the asked unit, that line would otherwise have given way to "超过 60 天仍未报销的…"."""
    from core.generators.quantities import states_asked_unit

    assert states_asked_unit("出差结束后多少天内要填差旅报销单？", ["出差结束后 15 个自然日内，在 OA 填写差旅报销单。"])
    assert states_asked_unit("一个班有多少人？", ["成人班每班不超过 6 人。"])
    assert not states_asked_unit("一个班有多少人？", ["成人初级班 | 18 岁以上零基础 | 10 次课 | 1380 元"])


def _answer_over_lines(question: str, title: str, lines: tuple[str, ...], answering: str):
    """The extractive answer to the English ``question`` over one chunk per line of ``lines`` (headed ``title``), with a
    sentence similarity that prefers every other line (0.4) to the one holding ``answering`` (0.35, close enough to be
    chosen too), as the second embedder did for the helpers' questions."""
    gen = ExtractiveGenerator()
    gen.sentence_similarity = lambda q, sentences: [0.35 if answering in s else 0.4 for s in sentences]
    chunks = [rc(f"p.md#{i}", (title, f"第 {i} 条"), line, i) for i, line in enumerate(lines, start=1)]
    return gen.generate(question, chunks)


def test_an_english_question_for_a_number_of_days_is_led_by_the_line_that_states_days():
    """ "How many days in advance can I buy a ticket?" (h29a-14) had been led by "一个账户每天最多可购买 20 张车票…" (每天, and
    the closest meaning), the pre-sale period "江澄城际车票预售期为 15 天（含当天）。" third: an English question's unit (how
    many days → 天) is read as a Chinese one's, and the line that states it leads. English sentences state it too."""
    from core.generators.quantities import states_asked_unit
    from core.retrieval.question import analyse

    assert analyse("How many days in advance can I buy a ticket?").unit == "天"
    assert analyse("How many people can join a class?").unit == "人"
    assert states_asked_unit("How many days are daily snapshots kept?", ["Daily snapshots are kept for 7 days."])
    lines = (
        "一个账户每天最多可购买 20 张车票，每个乘车人每天限购同一车次车票 1 张。",
        "在官方 App 或网站购买的车票，可在线上直接退票。",
        "江澄城际车票预售期为 15 天（含当天）。",
    )
    draft = _answer_over_lines("How many days in advance can I buy a ticket?", "购票须知", lines, "预售期")
    assert draft.text.startswith("江澄城际车票预售期为 15 天"), draft.text


def test_a_question_for_how_long_is_led_by_the_line_that_states_a_span_of_time():
    """ "How long is the loan period for books?" (library A15) had been led by "有逾期未还图书期间，读者证暂停借书…" (the closest
    meaning) over "图书的借期为 30 天。"; "How long is the warranty on the inverter motor of the HL-WF10B?" (h26b-14) by
    "适用型号：HL-WF10B（10 公斤…）" over the row "变频电机（HL-WF10B） | 10 年". A line that states a span of time now leads
    a question for how long (``core.retrieval.asked_detail.DURATION``)."""
    lines = ("有逾期未还图书期间，读者证暂停借书，但可以正常还书和续借其他未逾期的图书。", "图书的借期为 30 天。")
    draft = _answer_over_lines("How long is the loan period for books?", "借阅规则", lines, "借期")
    assert draft.text.startswith("图书的借期为 30 天。"), draft.text


def test_a_sentence_before_an_example_that_names_the_value_in_code_is_kept():
    """ "API Key 放在哪个请求头里？" (h31b b-01) never saw "推荐把 Key 放在请求头 `X-YT-Key` 中：", a sentence ending with a
    colon before an example command: it names the header in code and points at nothing, so it is a sentence (without
    its colon, at its offset). One that breaks off at "such as" ("…日志中的特定行，如：", k8s dev-025) states nothing yet."""
    from core.generators.sentences import split_sentences

    text = (
        '推荐把 Key 放在请求头 `X-YT-Key` 中：\n\n```bash\ncurl -H "X-YT-Key: your_api_key" https://api.example/v2/now\n```\n\n'
        "如果这步操作仍然失败，请查看 `kube-proxy` 日志中的特定行，如：\n\n```\nSetting endpoints for default/hostnames\n```"
    )
    sentences = split_sentences(text)
    assert (0, "推荐把 Key 放在请求头 `X-YT-Key` 中") in sentences, sentences
    assert not any("特定行" in s for _, s in sentences), sentences
    assert all(text[at : at + len(s)] == s for at, s in sentences)
