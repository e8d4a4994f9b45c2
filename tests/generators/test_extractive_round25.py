"""The line a person looks for first (fresh-clone helpers' rounds, session 25, over a company's annual-party notice and
an EV charging app's price page the helpers wrote): a time stated before the list it introduces, the row whose hours
hold the time asked (past midnight too), a count of places in the unit that counts them, a span of time that is not a
date."""

from __future__ import annotations

from core.generators.extractive import ExtractiveGenerator
from tests.generators.test_extractive import rc

PARTY = "关于举办 2025 年度年会的通知"
BUSES = (
    "公司安排两条班车线路，1 月 17 日 13:30 准时发车，过时不候：\n\n"
    "1. A 线：园区总部大楼北门 → 凯悦酒店，车程约 20 分钟；\n"
    "2. B 线：相城研发中心东门 → 凯悦酒店，车程约 45 分钟。\n\n"
    "返程班车 21:45 从酒店正门出发，按原线路送回出发地点。需要乘坐班车的同事，请在 1 月 10 日前在企业微信“年会报名”中"
    "勾选班车线路。"
)
PRIZES = (
    "- 一等奖 5 名：华为 MatePad 平板电脑\n- 二等奖 10 名：戴森吹风机\n- 三等奖 30 名：500 元京东卡\n\n"
    "奖品须本人到场领取，不能由他人代领。"
)
PRICES = (
    "| 时段 | 时间 | 电费（元/度） | 服务费（元/度） |\n| --- | --- | --- | --- |\n"
    "| 高峰 | 8:00–11:00、13:00–19:00、21:00–22:00 | 0.92 | 0.80 |\n"
    "| 平段 | 11:00–13:00 | 0.62 | 0.60 |\n"
    "| 低谷 | 22:00–次日 8:00 | 0.32 | 0.40 |"
)


def _first(question: str, heading: str, text: str) -> str:
    draft = ExtractiveGenerator().generate(question, [rc("p.md#1", (PARTY, heading), text, 1)])
    return draft.text.split("\n\n")[0]


def test_a_time_stated_before_the_list_it_introduces_answers_when():
    """ "班车几点发车？" (h33c c-05) had been led by the return bus's 21:45: "…13:30 准时发车，过时不候：" ends with a colon
    before the routes and was no sentence of the answer's."""
    assert (
        _first("班车几点发车？", "三、班车安排", BUSES) == "公司安排两条班车线路，1 月 17 日 13:30 准时发车，过时不候"
    )


def test_a_question_for_how_long_is_not_led_by_a_date():
    """ "我在相城上班，坐公司的车过去要多久？" (h33c c-06) is led by the route's 45 分钟, not by the departure's 1 月 17 日."""
    assert _first("我在相城上班，坐公司的车过去要多久？", "三、班车安排", BUSES).endswith("车程约 45 分钟。")


def test_the_row_whose_hours_run_past_midnight_answers_a_late_hour():
    """ "晚上 11 点以后充电，一度电一共多少钱？" (h33b b-06) had been led by the peak row: "22:00–次日 8:00" had read as two
    lone times, so no row held 23:00."""
    assert "低谷 | 22:00–次日 8:00" in _first("晚上 11 点以后充电，一度电一共多少钱？", "收费标准", PRICES)


def test_places_are_counted_by_the_unit_that_counts_them():
    """ "那它有几个名额？" after "二等奖是什么？" (h33c c-16) had its answer "二等奖 10 名：…" prefixed with "检索到的内容没有直接
    说明所问的具体数字或时间": 名额 is counted in 名, not by its last character 额."""
    draft = ExtractiveGenerator().generate(
        "二等奖 那它有几个名额？", [rc("p.md#5", (PARTY, "五、抽奖与奖品"), PRIZES, 1)]
    )
    assert draft.text.startswith("二等奖 10 名：戴森吹风机"), draft.text


MEALS = (
    "| 餐次 | 时间 | 备注 |\n| --- | --- | --- |\n| 早餐 | 6:30–8:30 | 周一至周日 |\n| 午餐 | 11:00–13:00 | 周一至周日 |\n"
    "| 晚餐 | 17:00–18:30 | 仅周一至周五 |\n\n"
    "法定节假日只供应午餐。每月最后一个周六下午进行大扫除，当天不供应晚餐（本来周六也无晚餐），早餐和午餐照常。"
)


def test_a_question_for_a_time_is_led_by_a_line_that_gives_one_of_its_topic():
    """ "晚餐几点开始供应？" (h34c c-01) had been led by "…当天不供应晚餐…" (more of its words, no time) over the row
    "晚餐 | 17:00–18:30 | …"; "周六傍晚过去能吃上饭吗？" (c-05) by the breakfast and lunch rows (every day) over the dinner
    row, whose hours hold 傍晚 and whose note says 仅周一至周五."""
    canteen = "杏花里社区长者食堂就餐须知"

    def first(question: str) -> str:
        draft = ExtractiveGenerator().generate(question, [rc("c.md#1", (canteen, "开放时间"), MEALS, 1)])
        return draft.text.split("\n\n")[0]

    assert "晚餐 | 17:00–18:30" in first("晚餐几点开始供应？")
    assert "晚餐 | 17:00–18:30" in first("周六傍晚过去能吃上饭吗？")
