"""The answer a person looks for first (fresh-clone helpers' rounds, sessions 22 and 23, over notices and handbooks the
helpers wrote): the price of the thing asked about, from the table row that names it."""

from __future__ import annotations

from core.generators.extractive import ExtractiveGenerator
from tests.generators.test_extractive import rc

BOARDING = (
    "- 价格：小型犬 80 元/天，中大型犬 120 元/天，猫 60 元/天；满 7 天 9 折。\n"
    "- 要求：疫苗齐全且最后一针已满 14 天，驱虫在 1 个月内。\n"
    "- 请携带：疫苗本、常吃的粮食、牵引绳；不收玩具和衣物以免丢失。"
)
VACCINES = (
    "| 项目 | 价格 | 说明 |\n| --- | --- | --- |\n"
    "| 犬四联/六联疫苗 | 120 元 / 180 元 | 幼犬 6–8 周龄首针，间隔 21 天共 3 针 |\n"
    "| 猫三联疫苗 | 150 元 | 幼猫 8 周龄首针，间隔 21 天共 3 针 |\n"
    "| 狂犬疫苗 | 60 元 | 3 月龄以上，每年 1 针 |"
)
PARKING = (
    "家里来客人的话，业主可以在小程序里提前给访客登记车牌，登记过的访客车当天免费停 4 小时。\n\n"
    "晚上 22:00 到第二天早上 7:00 停在小区里的，按 20 元一晚收。"
)


def test_a_price_question_is_led_by_the_row_that_names_what_is_priced():
    """ "给猫打疫苗多少钱？" (h27c-1) had been led by the boarding page's "价格：…猫 60 元/天；" (its chunk ranked first: a
    price, and 猫, and 疫苗 in its page's title, but not in the line) over the row "猫三联疫苗 | 150 元 | …"."""
    title = "爱宠仁心动物医院 疫苗接种与寄养须知（2024 年 9 月起执行）"
    chunks = [rc("p.md#2", (title, "寄养"), BOARDING, 1), rc("p.md#1", (title, "疫苗接种"), VACCINES, 2)]
    draft = ExtractiveGenerator().generate("给猫打疫苗多少钱？", chunks)
    first = draft.text.split("\n\n")[0]
    assert "猫三联疫苗 | 150 元" in first, draft.text


def test_a_sentence_that_only_names_the_word_is_not_its_price_row():
    """ "朋友开车来家里玩，车停小区里要钱不？" (property D10) keeps its lead, the free visitor parking, although the
    overnight rate's sentence names 小区: only a table row whose first cell names the word is that word's price."""
    draft = ExtractiveGenerator().generate(
        "朋友开车来家里玩，车停小区里要钱不？", [rc("c.md#3", ("停车", "外来车辆"), PARKING, 1)]
    )
    assert draft.text.startswith("家里来客人的话"), draft.text


def test_a_name_the_question_writes_as_the_sentence_does_is_matched_inside_it():
    """ "Can I run burrow on a Raspberry Pi with a 32-bit OS?" (h29b-7) had been answered with "burrow runs on Linux,
    macOS 12…", which reads as yes: the next sentence's 32-bit was read as a hyphenated name the question only
    shares a word with. The question writes 32-bit too, so the sentence that says it is not supported leads;
    "What does burrow prune do?" (h29b-22) likewise finds `burrow prune`. A code name the question does not write
    still does not count (pessimistic in `pessimistic-txn…`)."""
    install = "burrow runs on Linux, macOS 12 or later and Windows 10 or later. It needs 64-bit hardware; 32-bit ARM is not supported."
    draft = ExtractiveGenerator().generate(
        "Can I run burrow on a Raspberry Pi with a 32-bit OS?", [rc("i.md#1", ("Install", "Requirements"), install, 1)]
    )
    assert draft.text.startswith("It needs 64-bit hardware; 32-bit ARM is not supported."), draft.text
    prune = (
        "Only one backup or prune can run on a repository at a time; a second one waits up to 5 minutes for the lock.\n\n"
        "`burrow prune` deletes snapshots that the `keep_*` options no longer keep."
    )
    draft = ExtractiveGenerator().generate(
        "What does burrow prune do?", [rc("c.md#2", ("Commands", "prune"), prune, 1)]
    )
    assert draft.text.startswith("`burrow prune` deletes snapshots"), draft.text


def test_a_chinese_question_over_english_sentences_weighs_the_words_they_say_in_meaning():
    """A helper's round (session 23), Chinese questions over an English tool's pages: no sentence shares a word with
    the question, so the closest in meaning leads (``sentence_similarity``); the dictionary meanings of the question's
    words (每周 → every week, 快照 → snapshot) now weigh too. With a similarity that cannot tell the rows apart, the
    weekly row leads, not the first; without the meanings' weight the first row led."""
    from tests.fakes import retrieved

    rows = (
        "| option | default | meaning |\n| --- | --- | --- |\n"
        "| `keep_daily` | `7` | daily snapshots kept by `burrow prune` |\n"
        "| `keep_weekly` | `4` | weekly snapshots kept by `burrow prune` |\n"
        "| `keep_monthly` | `12` | monthly snapshots kept by `burrow prune` |"
    )
    gen = ExtractiveGenerator()
    gen.sentence_similarity = lambda question, sentences: [0.3] * len(sentences)
    chunk = retrieved("c.md@v#1", rows, heading_path=("Configuration", "Options"), rank=1)
    draft = gen.generate("每周的快照默认保留几个？", [chunk])
    assert draft.text.startswith("`keep_weekly` | `4`"), draft.text


REFUND = (
    "旅客在开车前办理退票，按距开车时间的长短核收退票手续费，手续费按票面价格计算。\n\n"
    "| 距开车时间 | 退票手续费 |\n| --- | --- |\n"
    "| 开车前 8 天以上 | 免收 |\n"
    "| 开车前 48 小时以上、不足 8 天 | 5% |\n"
    "| 开车前 24 小时以上、不足 48 小时 | 10% |\n"
    "| 开车前不足 24 小时 | 20% |"
)
CHANGED = "已经改签的车票再办理退票时，开车前不足 24 小时的，一律按 20% 核收手续费。"


def test_the_row_for_the_persons_case_leads_a_refund_question():
    """A helper's round (session 23): "车票不想要了，提前三天退能退回多少钱？" led with the changed-ticket rule (20%) and
    the refund table's row for three days before departure never appeared: its range is written in two units (48 小时
    以上、不足 8 天), its fee as a bare 5% under 退票手续费, and no rule put the row of the person's case first."""
    from core.generators.quantities import quantity_in_stated_range, stated_ranges, with_header_units

    assert stated_ranges("开车前 48 小时以上、不足 8 天 | 5%") == ((48.0, 8 * 24 - 1e-9, "小时"),)
    assert quantity_in_stated_range("三天", "开车前 48 小时以上、不足 8 天") and not quantity_in_stated_range(
        "一天", "开车前 48 小时以上、不足 8 天"
    )
    assert with_header_units("距开车时间 | 退票手续费", "开车前 48 小时以上、不足 8 天 | 5%").endswith("按 5% ")
    assert "免费" in with_header_units("距开车时间 | 退票手续费", "开车前 8 天以上 | 免收")
    chunks = [rc("c.md#2", ("改签", "改签后退票"), CHANGED, 1), rc("r.md#1", ("退票规定", "退票手续费"), REFUND, 2)]
    draft = ExtractiveGenerator().generate("车票不想要了，提前三天退能退回多少钱？", chunks)
    # (a share of the fare is no sum of money: the answer may say so before the row; the row is its first quote)
    assert draft.supports[0].quote.startswith("开车前 48 小时以上、不足 8 天 | 5%"), draft.text
    # an ordinal is no quantity: 第二天 is the next day, not two days (its case is not "48 小时以内")
    draft = ExtractiveGenerator().generate(
        "能改到第二天的车吗？", [rc("r.md#1", ("退票规定", "退票手续费"), REFUND, 1)]
    )
    assert "不足 48 小时" not in draft.text.split("\n\n")[0], draft.text


CARDS = (
    "俱乐部提供以下四种会员卡，所有价格均含税：\n\n"
    "| 卡种 | 价格 | 有效期 | 可冻结次数 |\n| --- | --- | --- | --- |\n"
    "| 月卡 | 399 元 | 30 天 | 不可冻结 |\n"
    "| 年卡 | 2,680 元 | 365 天 | 2 次 |"
)
DISCOUNTS = "全日制在校学生凭有效学生证办理年卡可享八折优惠，每人限办一张。\n\n两名及以上直系亲属同时办理年卡，每张减免 300 元。"


def test_an_amount_taken_off_a_price_is_not_the_price():
    """A helper's round (session 23): "年卡多少钱？" was answered with the discounts ("…办理年卡，每张减免 300 元。"), which a
    person takes for the price, and the price row never appeared: the discount line counted as stating 年卡's price,
    so retrieval added no chunk with one, and it led. An amount taken off a price is no price."""
    from core.retrieval.asked_detail import _states_price_of

    assert not _states_price_of(DISCOUNTS, "年卡") and _states_price_of(CARDS, "年卡")
    chunks = [
        rc("m.md#3", ("会员卡与价格", "学生与家庭优惠"), DISCOUNTS, 1),
        rc("m.md#1", ("会员卡与价格", "会员卡种类"), CARDS, 2),
    ]
    draft = ExtractiveGenerator().generate("年卡多少钱？", chunks)
    assert draft.supports[0].quote.startswith("卡种 | 价格") and "年卡 | 2,680 元" in draft.text.split("\n\n")[0], (
        draft.text
    )
