"""Sentences quoted whole: an English page's sentences one by one, a semicolon sentence with the clauses before the
one chosen, and a price stated against another price read as a price (a fresh-clone helper's round, session 20,
over a pet-boarding shop's pages written by the helper)."""

from __future__ import annotations

from core.generators.extractive import ExtractiveGenerator
from core.generators.question_types import unstated
from core.generators.sentences import split_sentences
from tests.generators.test_extractive import rc


def test_an_english_paragraph_is_split_at_its_full_stops():
    """An English page's paragraph had been one "sentence" (only 。！？!?； ended one): a Chinese question about its
    parking fee was answered with the whole paragraph, led by "Visitors may park in the underground garage."."""
    text = "Visitors may park in the underground garage. The first hour is free; after that it costs 5 yuan per hour."
    assert [s for _, s in split_sentences(text)] == [
        "Visitors may park in the underground garage.",
        "The first hour is free; after that it costs 5 yuan per hour.",
    ]
    # not an end: a decimal, a file name, a full stop before a lower-case word, a Chinese sentence's inner dot
    for whole in ("Set it to 1.5 in config.yaml before you restart.", "详见 1.5 节的 values.yaml 说明。"):
        assert [s for _, s in split_sentences(whole)] == [whole]
    assert all(text[at : at + len(s)] == s for at, s in split_sentences(text))


def test_a_later_clause_of_a_semicolon_sentence_comes_with_the_clauses_before_it():
    """ "订了房提前一周取消，能退钱吗？" was answered "入住当天取消或不来，定金不退。", the last clause of the refund rule,
    which reads as the opposite of what the rule says for a week ahead (its first clause: 全额退还定金)."""
    rule = "答：入住前 3 天以上取消，全额退还定金；入住前 1–3 天取消，退还定金的 50%；入住当天取消或不来，定金不退。"
    faq = f"**问：预订后取消怎么退款？**\n{rule}定金是首晚房费。春节期间预订一律不退定金。"
    draft = ExtractiveGenerator().generate("订了房提前一周取消，能退钱吗？", [rc("faq.md#1", ("常见问题",), faq, 1)])
    assert draft.text.startswith(rule), draft.text
    quotes = [s.quote for s in draft.supports]
    assert quotes[:3] == [
        "答：入住前 3 天以上取消，全额退还定金；",
        "入住前 1–3 天取消，退还定金的 50%；",
        "入住当天取消或不来，定金不退。",
    ], quotes


def test_a_price_stated_against_another_is_a_price():
    """ "春节寄养怎么收费？" was prefixed "检索到的内容没有直接说明所问的金额或费用" over "春节期间…在节假日价格基础上再
    加收 30%。", which states how it is charged; a discount (88 折, 半价) and "按 70% 收费" do too. A question for how
    much (多少钱) still wants an amount."""
    surcharge = [("寄养服务与价格", "春节期间所有房型在节假日价格基础上再加收 30%。")]
    assert unstated("春节寄养怎么收费？", [surcharge[0][1]], surcharge) is None
    for said in ("金卡会员洗护享受 88 折。", "第二只同住的猫按半价收取。", "第二只按 70% 收费。"):
        assert unstated("会员洗护怎么收费？", [said], [("价格", said)]) is None, said
    assert unstated("寄养怎么收费？", ["寄养期间每天遛狗两次。"], [("服务", "寄养期间每天遛狗两次。")]) == "money"


def test_a_question_for_which_kinds_leads_with_the_list_items_that_name_them():
    """ "寄养前要打哪些疫苗？" led with the grooming page's "打过疫苗后 7 天内不能洗澡；" while the list that names the
    vaccines went unquoted or came after it: its lead-in ("入住时请出示宠物的免疫证本：") does not say 疫苗, its items do,
    as kinds of it (狂犬疫苗, 猫三联疫苗). The items that name a kind lead, in order, before the other lines."""
    from core.generators.lists import names_a_kind

    assert names_a_kind("猫咪：狂犬疫苗和猫三联疫苗在有效期内", "疫苗")
    assert not names_a_kind("打过疫苗后 7 天内不能洗澡；", "疫苗")  # 疫苗 after the particle 过
    assert not names_a_kind("入住前 30 天内做过体内外驱虫；", "疫苗")
    grooming = "洗护须知如下：\n\n1. 打过疫苗后 7 天内不能洗澡；\n2. 有攻击性的宠物请提前告知，美容师会戴口罩；"
    health = (
        "入住时请出示宠物的免疫证本（纸质或电子均可）：\n\n"
        "1. 狗狗：狂犬疫苗和犬八联（或犬六联）疫苗均在有效期内，最后一针需在入住前至少 14 天完成；\n"
        "2. 猫咪：狂犬疫苗和猫三联疫苗在有效期内，同样需要间隔 14 天；\n"
        "3. 入住前 30 天内做过体内外驱虫；\n\n"
        "年满 8 岁的老年宠物可以入住，但需要主人签署知情书。"
    )
    draft = ExtractiveGenerator().generate(
        "寄养前要打哪些疫苗？",
        [
            rc("grooming.md#2", ("洗护美容", "注意事项"), grooming, 1),
            rc("boarding.md#2", ("入住须知", "疫苗和健康要求"), health, 2),
        ],
    )
    quotes = [s.quote for s in draft.supports]
    assert quotes[0].startswith("狗狗：狂犬疫苗和犬八联"), quotes
    assert quotes[1].startswith("猫咪：狂犬疫苗和猫三联疫苗"), quotes


def test_a_how_to_question_leads_with_the_sentence_that_says_the_action():
    """ "洗护美容怎么预约？" led with the page's opening sentence ("洗护美容区在二楼…"), which names the service in full and
    not how to book it; the section headed 预约方式 opens with the way: "微信小程序“泡泡爪”预约，或拨打前台电话…"."""
    from core.retrieval.question import analyse

    assert analyse("洗护美容怎么预约？").action == "预约" and analyse("电脑丢了怎么办？").action == ""
    intro = (
        "洗护美容区在二楼，由两位持证美容师负责（王师傅有 CKU B 级美容师证）。寄养中的宠物和只来洗澡的宠物都可以预约。"
    )
    way = (
        "- 微信小程序“泡泡爪”预约，或拨打前台电话 0571-8866 2301；\n- 美容服务只在周二到周日提供，每周一美容师休息；\n"
        "- 最早预约时段 9:30，最晚 17:00（精致美容最晚 16:00 开始）；\n- 迟到超过 30 分钟，预约自动取消，需要重新排队。"
    )
    draft = ExtractiveGenerator().generate(
        "洗护美容怎么预约？",
        [
            rc("grooming.md#0", ("洗护与美容服务",), intro, 1),
            rc("grooming.md#2", ("洗护与美容服务", "预约方式"), way, 2),
        ],
    )
    assert draft.text.startswith("微信小程序“泡泡爪”预约，或拨打前台电话 0571-8866 2301"), draft.text


def test_an_amount_in_english_currency_words_is_a_price():
    """A second helper's round (session 20): "损坏俱乐部的船要赔多少钱？" over an English page was prefixed "检索到的内容
    没有直接说明所问的金额或费用" before "…you pay for the repair, up to 500 pounds.": pounds was no currency."""
    said = "If you damage a club boat, you pay for the repair, up to 500 pounds."
    assert unstated("损坏俱乐部的船要赔多少钱？", [said], [("Safety", said)]) is None
    assert unstated("损坏俱乐部的船要赔多少钱？", ["Report any damage to the boathouse."], [("Safety", "")]) == "money"


def test_a_list_whose_items_end_with_semicolons_is_one_sentence():
    """A list whose items end with "；" and its last with "。" is one sentence, as its writer joined it: "错过投放时间怎么
    办？" had got "其他时间请投放到…" without the hours it refers to (a helper's round, session 20)."""
    hours = "- 早上 7:00–9:00，晚上 18:00–20:30；\n- 其他时间请投放到 3 号楼北侧的“误时投放点”，该点 24 小时开放。"
    draft = ExtractiveGenerator().generate(
        "错过投放时间怎么办？", [rc("notice.md#1", ("垃圾投放须知", "投放时间"), hours, 1)]
    )
    assert draft.text.startswith("早上 7:00–9:00，晚上 18:00–20:30；其他时间请投放到"), draft.text
