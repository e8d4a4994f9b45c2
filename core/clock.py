"""Times of day and days of the week in text: the times a question names and the times a sentence states.

A question that names a time ("中午十二点多过去还能交钱吗？", "周六下午 3 点半还开门吗？", "Is it open at 7 pm?")
is answered by the sentence whose hours include that time ("午间 11:30–13:30 …收费处…保留 1 个窗口"), which
shares no word with it. ``named_times`` reads the question's times as intervals of minutes since midnight;
``stated_times`` reads a sentence's times and ranges the same way; ``meets`` says whether one of each overlaps.

A question that names a day of the week ("单车铺周三营业到几点？") is answered by the sentence whose days include it
("周一至周五：09:00–19:00"): ``named_days`` and ``stated_days`` read days as 1 (Monday) .. 7 (Sunday), a range
"周一至周五" / "星期二到星期六" as every day in it, 工作日 as Monday to Friday, 周末 as Saturday and Sunday.

Units: minutes since midnight (0..1439), both ends included. Chinese numerals are read by cn2an
(https://github.com/Ailln/cn2an, ``cn2an.cn2an(text, "smart")``). Never raises: text that does not read as
a time of day gives no interval.
"""

from __future__ import annotations

import functools
import re

import cn2an

Interval = tuple[int, int]

# 点 as "a point" or "a bit", not an hour: 有两点注意事项, 三点建议, 快一点, 一点点
_NOT_HOUR = r"(?!注意|建议|要求|原因|意见|区别|不同|内容|事项|说明|理由|好处|优势|问题|点|儿|钟头)"
_PERIOD = r"凌晨|清晨|早上|早晨|上午|中午|午间|下午|傍晚|晚上|晚间|夜里|夜间"
_NUMERAL = r"[零〇一二两三四五六七八九十\d]{1,3}"
# 十二点, 下午 3 点半, 八点一刻, 12点30分, 九点多, 十点左右 (Chinese); the hour is a numeral before 点 or 时
_CHINESE = re.compile(
    rf"(?P<period>{_PERIOD})?\s*(?P<hour>{_NUMERAL})\s*[点點时]{_NOT_HOUR}"
    rf"(?:\s*(?P<half>半)|\s*(?P<quarter>[一三])刻|\s*(?P<minute>{_NUMERAL})\s*分?)?"
    r"(?P<about>多|左右|前后)?"
)
# 11:30, 8：00, 7 pm, 7:30 a.m.
_DIGITS = re.compile(
    r"(?<![\d.:])(?P<hour>\d{1,2})\s*[:：]\s*(?P<minute>\d{2})(?![\d:])(?:\s*(?P<ampm>[ap]\.?m\.?)(?![a-z]))?"
    r"|(?<![\d.:])(?P<hour2>\d{1,2})\s*(?P<ampm2>[ap]\.?m\.?)(?![a-z])",
    re.IGNORECASE,
)
# what joins the two ends of a range: 8:00–11:30, 8:00 至 12:00, 9 点到 17 点, 9am-5pm, and two adjacent cells
# of a table row ("周一至周五 | 06:30 | 22:30" under "日期 | 开门 | 关门")
_RANGE_JOIN = re.compile(r"\s*(?:[-–—~～〜|]|至|到|and|to)\s*$", re.IGNORECASE)
# ... and of a range past midnight, its end before its start: "22:00–次日 8:00", "22:00 至次日 6:00", "23:00-7:00" (a
# helper's round, session 25: the off-peak row had read as two lone times, and "晚上 11 点以后充电…" led with the peak row)
_OVERNIGHT_JOIN = re.compile(r"\s*(?:[-–—~～〜]|至|到|to)\s*(?:次日|第二天|翌日|隔天|the next day)?\s*$", re.IGNORECASE)
_AFTERNOON = frozenset({"下午", "傍晚", "晚上", "晚间", "夜里", "夜间"})
_NOON = frozenset({"中午", "午间"})


def _number(text: str) -> int | None:
    text = text.strip()
    if text.isdigit():
        return int(text)
    try:
        value = cn2an.cn2an(text, "smart")
    except (ValueError, KeyError, TypeError):
        return None
    return int(value) if float(value).is_integer() else None


def _hour(hour: int, period: str | None) -> int | None:
    if not 0 <= hour <= 24:
        return None
    if period in _AFTERNOON and hour < 12:
        return hour + 12
    if period in _NOON and hour < 6:  # 中午一点 is 13:00
        return hour + 12
    return hour


def _points(text: str) -> list[tuple[int, int, Interval]]:
    """(start, end, interval) of every time of day in ``text``, by position."""
    found: list[tuple[int, int, Interval]] = []
    for m in _CHINESE.finditer(text):
        hour = _number(m["hour"])
        if hour is None or (hour == 1 and not m["period"] and not (m["half"] or m["minute"] or m["quarter"])):
            continue  # 一点 alone is "a bit" (快一点), not one o'clock
        hour = _hour(hour, m["period"])
        minute = 30 if m["half"] else 15 * (1 if m["quarter"] == "一" else 3) if m["quarter"] else 0
        if m["minute"]:
            got = _number(m["minute"])
            if got is None or not 0 <= got <= 59:
                continue
            minute = got
        if hour is None:
            continue
        start = min(hour * 60 + minute, 24 * 60 - 1)
        if m["about"] == "多":  # 十二点多: some minutes past
            found.append((m.start(), m.end(), (start, min(start + (9 if m["minute"] else 59), 1439))))
        elif m["about"]:  # 十点左右: half an hour either way
            found.append((m.start(), m.end(), (max(start - 30, 0), min(start + 30, 1439))))
        else:
            found.append((m.start(), m.end(), (start, start)))
    taken = [(s, e) for s, e, _ in found]
    for m in _DIGITS.finditer(text):
        if any(s <= m.start() < e for s, e in taken):
            continue
        hour = int(m["hour"] or m["hour2"])
        minute = int(m["minute"] or 0)
        ampm = (m["ampm"] or m["ampm2"] or "").lower()
        if hour > 24 or minute > 59 or (ampm and not 1 <= hour <= 12):
            continue
        if ampm.startswith("p") and hour < 12:
            hour += 12
        elif ampm.startswith("a") and hour == 12:
            hour = 0
        start = min(hour * 60 + minute, 1439)
        found.append((m.start(), m.end(), (start, start)))
    return sorted(found)


@functools.lru_cache(maxsize=8192)
def named_times(question: str) -> tuple[tuple[str, Interval], ...]:
    """The times of day ``question`` names: (the words that name it, its interval of minutes since midnight),
    e.g. ("中午十二点多", (720, 779)), ("下午3点半", (930, 930)), ("7 pm", (1140, 1140)), ("十点左右", (570, 630)).
    Empty when it names none (几点 asks for a time and names none). A late-night word alone (半夜, 深夜, 凌晨, 夜里)
    names the small hours, 0:00–5:59 (a helper's round, session 23: "半夜有急事找物业打哪个电话？"), and another part of the
    day without an hour the hours it commonly means (``_PART_SPANS``: 傍晚 17:00–19:00, morning 6:00–11:59). Cached;
    never raises."""
    points = _points(question)
    taken = [(s, e) for s, e, _ in points]
    words = [(m, (0, 6 * 60 - 1)) for m in _SMALL_HOURS.finditer(question)]
    words += [(m, _PART_SPANS[m.group(0).lower()]) for m in _PART_OF_DAY.finditer(question)]
    for m, span in words:  # a part of the day named without an hour, unless inside a time named with one
        if not any(s <= m.start() < e for s, e in taken):
            points.append((m.start(), m.end(), span))
            taken.append((m.start(), m.end()))
    return tuple((question[s:e].strip(), iv) for s, e, iv in sorted(points))


_SMALL_HOURS = re.compile(r"半夜|深夜|凌晨|夜里|后半夜|\b(?:midnight|middle of the night)\b", re.IGNORECASE)
# A part of the day without an hour ("周六傍晚过去能吃上饭吗？"; a helper's round, session 25, had the breakfast and lunch
# rows, not the dinner row "晚餐 | 17:00–18:30 | 仅周一至周五"): the hours it commonly means, in minutes since midnight.
_PART_SPANS = {
    "清晨": (360, 540),
    "早上": (360, 540),
    "早晨": (360, 540),
    "上午": (480, 719),
    "中午": (690, 810),
    "午间": (690, 810),
    "下午": (780, 1079),
    "傍晚": (1020, 1140),
    "晚上": (1080, 1380),
    "晚间": (1080, 1380),
    "morning": (360, 719),
    "afternoon": (720, 1079),
    "evening": (1080, 1320),
    "tonight": (1080, 1380),
}
_PART_OF_DAY = re.compile(
    "|".join(w if not w.isascii() else rf"\b{w}\b" for w in sorted(_PART_SPANS, key=len, reverse=True)), re.IGNORECASE
)


# Something open or staffed at every hour ("24小时值班电话", "全天 24 小时营业", "7×24 客服", "open 24 hours"), not a
# span of 24 hours ("24 小时内上门"): the whole day (a helper's round, session 23: "半夜有急事找物业打哪个电话？" led
# with the office's 08:30–17:30 number over "24小时值班电话：138…").
_AROUND_THE_CLOCK = re.compile(
    r"(?:全天)?\s*24\s*小时(?=\s*(?:值班|营业|服务|开放|热线|客服|在线|有人|接听|急诊|运营))|全天候|7\s*[x×*]\s*24"
    r"|\b(?:open|staffed|available)\s+24\s*(?:hours|h)\b|\b24/7\b|\baround the clock\b",
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=8192)
def stated_times(sentence: str) -> tuple[Interval, ...]:
    """The times of day and ranges ``sentence`` states, as intervals of minutes since midnight:
    "上午 8:00–11:30，下午 13:30–17:00" → ((480, 690), (810, 1020)); a lone "挂号截止到 11:15" → ((675, 675),);
    something open or staffed around the clock ("24小时值班电话", ``_AROUND_THE_CLOCK``) → the whole day first.
    Two times joined by –, ~, 至 or 到 are one range; one whose end is before its start runs past midnight and is two
    ("22:00–次日 8:00" → ((1320, 1439), (0, 480))). Cached; never raises."""
    points = _points(sentence)
    out: list[Interval] = [(0, 24 * 60)] if _AROUND_THE_CLOCK.search(sentence) else []
    n = 0
    while n < len(points):
        start, end, (lo, _) = points[n]
        if n + 1 < len(points):
            nxt_start, _, (_, nxt_hi) = points[n + 1]
            if _RANGE_JOIN.match(sentence[end:nxt_start]) and nxt_hi >= lo:
                out.append((lo, nxt_hi))
                n += 2
                continue
            if _OVERNIGHT_JOIN.match(sentence[end:nxt_start]) and nxt_hi < lo:
                out.extend(((lo, 24 * 60 - 1), (0, nxt_hi)))  # "22:00–次日 8:00": to midnight, and from it
                n += 2
                continue
        out.append(points[n][2])
        n += 1
    return tuple(out)


def meets(asked: tuple[Interval, ...], stated: tuple[Interval, ...]) -> bool:
    """Whether some interval of ``asked`` overlaps some interval of ``stated`` (ends included)."""
    return any(a_lo <= s_hi and s_lo <= a_hi for a_lo, a_hi in asked for s_lo, s_hi in stated)


_DAY_NAME = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "日": 7, "天": 7}
_DAY = r"(?:周|星期|礼拜)(?P<{}>[一二三四五六日天])"
# 周一至周五, 星期二到星期六, 周一~五, 周二-周日 (the second 周 may be left out)
_DAY_RANGE = re.compile(
    _DAY.format("a")
    + r"\s*(?:至|到|-|–|—|~|～|〜)\s*(?:周|星期|礼拜)?(?P<b>[一二三四五六日天])(?![一二三四五六七八九十\d])"
)
_ONE_DAY = re.compile(_DAY.format("d") + r"(?!内|以内|后|前(?![台门厅面往])|[一二三四五六七八九十\d])")
_WEEKEND = re.compile(r"周末|双休日|\bweekends?\b", re.IGNORECASE)
_WORKDAYS = re.compile(r"工作日|平日|\bweekdays?\b", re.IGNORECASE)
_ENGLISH_DAY = {d: n for n, d in enumerate("monday tuesday wednesday thursday friday saturday sunday".split(), start=1)}
# Monday, Tuesdays, Mon–Fri, Monday to Friday (English documents and questions)
_EN_NAME = r"(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day)?\.?"
_EN_RANGE = re.compile(
    rf"\b(?P<a>{_EN_NAME})\s*(?:-|–|—|~|to|through|until)\s*(?P<b>{_EN_NAME})(?![a-z])", re.IGNORECASE
)
_EN_DAY = re.compile(r"\b(?P<d>monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b", re.IGNORECASE)


def _english_day(word: str) -> int:
    stem = word.lower().rstrip(".")[:3]
    return next(n for d, n in _ENGLISH_DAY.items() if d.startswith(stem))


def _days_in(text: str, ranges: bool) -> list[tuple[int, int, frozenset[int]]]:
    found: list[tuple[int, int, frozenset[int]]] = []
    taken: list[tuple[int, int]] = []
    if ranges:
        spans = [(m, _DAY_NAME[m["a"]], _DAY_NAME[m["b"]]) for m in _DAY_RANGE.finditer(text)]
        spans += [(m, _english_day(m["a"]), _english_day(m["b"])) for m in _EN_RANGE.finditer(text)]
        for m, a, b in spans:
            days = range(a, b + 1) if a <= b else [*range(a, 8), *range(1, b + 1)]  # 周五至周一 wraps
            found.append((m.start(), m.end(), frozenset(days)))
            taken.append(m.span())
    for m in _WORKDAYS.finditer(text):
        found.append((m.start(), m.end(), frozenset(range(1, 6))))
    for m in _ONE_DAY.finditer(text):
        if not any(lo <= m.start() < hi for lo, hi in taken):
            found.append((m.start(), m.end(), frozenset({_DAY_NAME[m["d"]]})))
    for m in _EN_DAY.finditer(text):
        if not any(lo <= m.start() < hi for lo, hi in taken):
            found.append((m.start(), m.end(), frozenset({_english_day(m["d"])})))
    for m in _WEEKEND.finditer(text):
        found.append((m.start(), m.end(), frozenset({6, 7})))
    return sorted(found, key=lambda f: f[0])


@functools.lru_cache(maxsize=8192)
def named_days(question: str) -> tuple[tuple[str, frozenset[int]], ...]:
    """The days of the week ``question`` names one by one: (its words, {day}), 1 = Monday .. 7 = Sunday, e.g.
    ("周三", {3}), ("星期日", {7}), ("周末", {6, 7}), ("平日", {1..5}), ("Tuesday", {2}). A range in a question is not
    read (it names no one day). Not a deadline (周五前, 周三以内) nor a span of weeks (三周内). Cached; never raises."""
    return tuple((question[s:e], days) for s, e, days in _days_in(question, ranges=False))


@functools.lru_cache(maxsize=8192)
def stated_days(sentence: str) -> frozenset[int]:
    """Every day of the week ``sentence`` states, singly or in a range: "周一至周五：09:00–19:00" → {1..5},
    "每周二、周四、周六上午开放" → {2, 4, 6}, "工作日" → {1..5}, "Mon–Fri" → {1..5}. Empty when it names none. Cached; never raises."""
    return frozenset().union(*(days for _, _, days in _days_in(sentence, ranges=True)))
