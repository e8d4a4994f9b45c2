"""Times of day named in a question and stated in a sentence (``core.clock``)."""

from __future__ import annotations

import pytest

from core.clock import meets, named_days, named_times, stated_days, stated_times


@pytest.mark.parametrize(
    ("question", "intervals"),
    [
        ("中午十二点多过去，还能交钱拿药吗？", [(720, 779)]),  # clinic-014: some minutes past twelve
        ("周六下午3点半还开门吗？", [(930, 930)]),
        ("中午一点可以吗？", [(780, 780)]),  # 中午一点 is 13:00
        ("晚上八点呢？", [(1200, 1200)]),
        ("八点一刻到得了吗？", [(495, 495)]),
        ("十点左右人多吗？", [(570, 630)]),
        ("12点30分还收吗？", [(750, 750)]),
        ("9:30 能到吗？", [(570, 570)]),
        ("Is it open at 7 pm?", [(1140, 1140)]),
        ("Can I come at 12 am?", [(0, 0)]),
        # not a time of day named: asked for, a few points, a bit, a version, a duration
        ("几点开门？", []),
        ("使用健身房有两点注意事项？", []),
        ("能便宜一点吗？", []),
        ("v1.2 版本支持吗？", []),
        ("一次最多开 12 周的药吗？", []),
        # a part of the day without an hour: the hours it commonly means (a helper's round, session 25)
        ("周六傍晚过去能吃上饭吗？", [(1020, 1140)]),
        ("周二早上能去游泳吗？", [(360, 540)]),
        ("What time does the pool open on Saturday morning?", [(360, 719)]),
        ("半夜有急事找谁？", [(0, 359)]),  # the small hours, not 夜 of another part
    ],
)
def test_named_times(question, intervals):
    assert [iv for _, iv in named_times(question)] == intervals


def test_named_times_keep_the_words_that_name_them():
    assert named_times("中午十二点多过去，还能交钱拿药吗？") == (("中午十二点多", (720, 779)),)


@pytest.mark.parametrize(
    ("sentence", "intervals"),
    [
        ("周一至周五，上午 8:00–11:30，下午 13:30–17:00。", [(480, 690), (810, 1020)]),
        ("上午挂号截止到 11:15。", [(675, 675)]),  # a lone time: 到 joins no second one
        ("午间 11:30–13:30 医生休息。", [(690, 810)]),
        ("每周一、三、五晚上 18:00 至 20:30 开设夜间门诊。", [(1080, 1230)]),
        ("周一至周五 | 06:30 | 22:30", [(390, 1350)]),  # a table row's open and close cells
        ("Open 9am-5pm.", [(540, 1020)]),
        ("一次最多可以开 12 周的用量。", []),
        ("版本 3.10 发布。", []),
        # past midnight (a helper's round, session 25: the off-peak row had read as two lone times)
        ("| 低谷 | 22:00–次日 8:00 | 0.32 | 0.40 |", [(1320, 1439), (0, 480)]),
        ("每晚 22:00 至次日 6:00 停水。", [(1320, 1439), (0, 360)]),
        ("| 22:30 | 06:30 |", [(1350, 1350), (390, 390)]),  # two cells, the later first: no range
    ],
)
def test_stated_times(sentence, intervals):
    assert list(stated_times(sentence)) == intervals


def test_meets_is_an_overlap_with_both_ends_included():
    assert meets(((720, 779),), ((690, 810),))
    assert meets(((690, 690),), ((480, 690),))  # 11:30 is still inside 8:00–11:30
    assert not meets(((720, 779),), ((480, 690), (810, 1020)))  # a lunch break between two sessions
    assert not meets((), ((0, 1439),))


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_CLOCKISH = st.text(alphabet="0123456789:：点时半刻分多左右上午下中晚一二两三十零〇 -–~至到ampm.|周天", max_size=40)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_CLOCKISH, st.text(max_size=60)))
def test_any_text_reads_as_intervals_inside_a_day(text):
    """Random text never raises, and every interval read is inside one day (0..1439 minutes), first ≤ last."""
    for _, (lo, hi) in named_times(text):
        assert 0 <= lo <= hi <= 1439
    for lo, hi in stated_times(text):
        assert 0 <= lo <= hi <= 1439


def test_days_of_the_week_a_question_names_one_by_one():
    assert named_days("单车铺周三营业到几点？") == (("周三", frozenset({3})),)
    assert named_days("星期天开门吗？") == (("星期天", frozenset({7})),)
    assert named_days("周末营业吗？") == (("周末", frozenset({6, 7})),)
    assert named_days("周五前要交吗？") == ()  # a deadline, not the day's hours
    assert named_days("三周内能办好吗？") == ()


def test_days_a_sentence_states_singly_in_lists_and_in_ranges():
    assert stated_days("周一至周五：09:00–19:00") == frozenset(range(1, 6))
    assert stated_days("周二至周五 | 06:30–21:30") == frozenset({2, 3, 4, 5})
    assert stated_days("星期二到星期六开放") == frozenset(range(2, 7))
    assert stated_days("每周二、周四、周六上午 8:00–11:30 开放。") == frozenset({2, 4, 6})
    assert stated_days("周五至周一营业") == frozenset({5, 6, 7, 1})  # a range across the week's end
    assert stated_days("工作日 9:00 开门") == frozenset(range(1, 6))
    assert stated_days("周六：10:00–18:00") == frozenset({6})
    assert stated_days("三周内办结") == frozenset()


@settings(max_examples=300, deadline=None)
@given(st.one_of(_CLOCKISH, st.text(max_size=60)))
def test_any_text_reads_as_days_of_one_week(text):
    """Random text never raises; every day read is 1..7."""
    assert stated_days(text) <= frozenset(range(1, 8))
    for _, days in named_days(text):
        assert days and days <= frozenset(range(1, 8))


def test_english_days_of_the_week():
    assert named_days("What are the opening hours on Tuesday?") == (("Tuesday", frozenset({2})),)
    assert named_days("游泳馆 Saturday 几点开门？") == (("Saturday", frozenset({6})),)
    assert stated_days("Monday to Friday: 9:00–17:00") == frozenset(range(1, 6))
    assert stated_days("Mon–Fri 9:00, Sat-Sun 10:00") == frozenset(range(1, 8))
    assert stated_days("Sundays closed") == frozenset({7})
    assert stated_days("The sun is bright; we sat down.") == frozenset()


def test_a_day_before_a_word_that_starts_with_qian_is_still_that_day():
    assert named_days("周三前台几点下班？") == (("周三", frozenset({3})),)  # 前台, not "before Wednesday"
    assert named_days("周五前要交吗？") == ()


def test_weekdays_by_their_names():
    assert named_days("家庭套房平日多少钱？") == (("平日", frozenset(range(1, 6))),)
    assert named_days("How much is the tatami room on a weekday?") == (("weekday", frozenset(range(1, 6))),)
    assert stated_days("工作日 9:00 开门，平日人少") == frozenset(range(1, 6))


def test_open_around_the_clock_is_every_hour_and_late_night_is_the_small_hours():
    """A helper's round (session 23): "半夜有急事找物业打哪个电话？" led with the office's number ("工作日 08:30–17:30") over
    "24小时值班电话：138…": a line staffed around the clock states every hour, and 半夜 names the small hours. A span of
    24 hours ("24 小时内上门") is no time of day."""
    from core.clock import meets, named_times, stated_times

    assert stated_times("24小时值班电话：138 0571 2468") == ((0, 1440),)
    assert stated_times("Our hotline is open 24 hours a day.") == ((0, 1440),)
    assert stated_times("一般报修 2 小时内联系，24 小时内上门") == ()
    assert named_times("半夜有急事找物业打哪个电话？") == (("半夜", (0, 359)),)
    assert named_times("凌晨三点能取吗？") == (("凌晨三点", (180, 180)),)  # a time it names stays that time
    asked = tuple(iv for _, iv in named_times("半夜有急事找物业打哪个电话？"))
    assert meets(asked, stated_times("24小时值班电话：138 0571 2468"))
    assert not meets(asked, stated_times("物业服务中心：0571-8765 4321（工作日 08:30–17:30）"))
