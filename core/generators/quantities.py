"""Quantities in sentences: each number with the unit written after it, the ranges a sentence states for a quantity,
and whether a sentence states an amount in the unit a question asks in. Used by the extractive answer to tell
the number asked from another ("孩子 10 岁" is not "借阅 10 册图书"), to find a number inside a stated range ("工作
满 12 年" in "满 10 年不满 20 年的") and, by ``core.generators.question_types.unstated``, to say that the evidence
does not state the quantity asked ("最长可以借多少天" over "单日最高 10 元").

Pure functions over ``str``; numbers in digits, amounts also in Chinese numerals (三十天). Offsets are not read.
"""

from __future__ import annotations

import functools
import re
from typing import Sequence

import cn2an

from core.retrieval.question import ENGLISH_UNITS, analyse

# The units that state a quantity asked in a unit (``QuestionAnalysis.unit``): 天 is stated as 3 天, 三十天, 5 个工作日
# or 24 日, not as a date's 日 (9 月 1 日).
_STATING_UNITS = {
    "天": r"天|日|工作日|自然日|days?\b",
    "日": r"天|日|工作日|自然日|days?\b",
    "工作日": r"工作日|天|日|(?:working |business )?days?\b",
    "小时": r"小时|钟头|hours?\b|hrs?\b",
    "分钟": r"分钟|分|minutes?\b|mins?\b",
    "秒": r"秒|seconds?\b|secs?\b",
    "周": r"周|星期|礼拜|weeks?\b",
    "星期": r"周|星期|礼拜|weeks?\b",
    "年": r"年|years?\b",
    "岁": r"岁|周岁|years? old\b",
    "公里": r"公里|千米|km\b|kilomet(?:er|re)s?\b",
    "次": r"次|回|times\b",
    "人": r"人|名|位|people\b|persons?\b",  # 多少人: "每班不超过 6 人", "限 20 名"
    "%": r"%|％|percent\b|per cent\b",
}
_AMOUNT_OF = r"(?<![月\d.])(?<!月 )(?:\d+(?:\.\d+)?|[零一二两三四五六七八九十百千万半]+)\s*个?\s*(?:{})"


def states_asked_unit(question: str, texts: Sequence[str]) -> bool:
    """Whether ``texts`` state an amount in the unit the question asks in (``QuestionAnalysis.unit``: 多少天 → 3 天,
    三十天, 5 个工作日), or a count of it by name and a number: "重试次数为 3", a table row "`retry.max-times` | 3 |
    …最大重试次数。" (its value cell has no unit); True for a question that names no unit."""
    unit = analyse(question).unit
    if unit is None or unit not in _STATING_UNITS:
        return True
    units = _STATING_UNITS[unit]
    stated = re.compile(_AMOUNT_OF.format(units), re.IGNORECASE)
    named = re.compile(rf"(?:{units})数")  # 次数, 天数, 年数
    if unit == "%":  # 百分之四十 and a share's column (占比 | 40%) state one too
        return any(stated.search(t) or _IN_WORDS_PERCENT.search(t) for t in texts)
    return any(stated.search(t) or (named.search(t) and _DIGITS.search(t)) for t in texts)


_IN_WORDS_PERCENT = re.compile(r"百分之[零一二两三四五六七八九十百]+|[一二三四五六七八九]成")


_DIGITS = re.compile(r"\d")


# A number and the unit after it: "10 岁" → 岁, "10 册图书" → 册图, "64 个字符" → 字符 (the measure word 个 skipped, unless
# nothing follows it: "充电桩 24 个（…" → 个, a count of things, not the 24 of "24小时"), "64 KB"
# → kb, the hour of a time of day ("12:00") → ":"; a bare number ("| 10 |", "10–20") → "". The minutes of 12:30 are a
# time's too (":").
_NUMBER_UNIT = re.compile(
    r"(?<![\d.:])(\d+(?:\.\d+)?)(?![\d.])[ \t]*(?:个[ \t]*(?=[\u3400-\u9fff]))?"
    r"(:(?=\d\d)|[\u3400-\u9fff]{1,2}|[A-Za-z%]+)?"
)
_MINUTES = re.compile(r"(?<=\d:)(\d\d)(?!\d)")
#: What may follow the hour of a question's time of day (12 点, 12 pm) when a sentence writes it as 12:00.
_HOUR_UNITS = ("点", "时", "am", "pm", "o", "h", "hr", "hrs")


@functools.lru_cache(maxsize=8192)
def number_units(text: str) -> dict[str, frozenset[str]]:
    """Each number written in digits in ``text`` → what is written after it (up to two Chinese characters, or an
    ASCII word lower-cased; "" for nothing): "孩子 10 岁" → {"10": {"岁"}}. Cached: do not mutate the result."""
    out: dict[str, set[str]] = {}
    for m in _NUMBER_UNIT.finditer(text):
        out.setdefault(m[1], set()).add((m[2] or "").lower())
    for m in _MINUTES.finditer(text):
        out.setdefault(m[1], set()).add(":")
    return {k: frozenset(v) for k, v in out.items()}


def _same_unit(a: str, b: str) -> bool:
    if ":" in (a, b):  # 12:00 is a time of day: not 12 years, 12 年 or 12 天, maybe 12 点 or 12 pm
        other = b if a == ":" else a
        return other == ":" or other.startswith(_HOUR_UNITS)
    if a.isascii() != b.isascii():
        return True  # 64 个字符 and 64 characters: another language, not another unit
    if "个" in (a, b):  # a count of things ("充电桩 24 个") is no time, age or sum ("24小时"), and may be 5 个人
        other = b if a == "个" else a
        return other == "个" or other[0] not in _MEASURE_FIRST
    return a[0] in b or b[0] in a  # 岁 and 周岁, 字符 and 字符串


# The first characters of units that measure time, age, money, length or weight (not a count of things).
_MEASURE_FIRST = frozenset("小时天日分秒年月周星岁元块角度米公千斤克%")


# Ranges a sentence states for a quantity, by their unit (one Chinese character, 个月 or 周岁): "满 10 年不满 20 年"
# [10, 20), "10–20 天" and "10 至 20 天" [10, 20], "不满 10 年" [0, 10), "10 年以下" [0, 10], "满 20 年" / "20 年以上" [20, ∞).
_N = r"(\d+(?:\.\d+)?)"
_U = r"(个月|周岁|小时|分钟|星期|工作日|[\u3400-\u9fff])"
_BOUNDED = re.compile(rf"(?:已?满|超过)?\s*{_N}\s*{_U}(?:及?以上)?\s*[、，,]?\s*(?:不满|未满|不足|少于)\s*{_N}\s*{_U}")
_SPAN = re.compile(rf"{_N}\s*{_U}?\s*(?:–|—|-|~|～|至|到)\s*{_N}\s*{_U}")
_BELOW = re.compile(rf"(?:不满|未满|不足|少于)\s*{_N}\s*{_U}|{_N}\s*{_U}(?:以下|以内|之内)")
_ABOVE = re.compile(rf"(?:已?满|超过)\s*{_N}\s*{_U}|{_N}\s*{_U}(?:及|或)?以上")


@functools.lru_cache(maxsize=8192)
def stated_ranges(sentence: str) -> tuple[tuple[float, float, str], ...]:
    """The ranges ``sentence`` states for a quantity, as ``(low, high, unit)``, ``high`` = inf when open (see the
    patterns above); a range written with an upper bound excludes it ("不满 20 年" < 20), a span includes it.
    Cached: the extractive answer asks it for each number of the question and each sentence."""
    out: list[tuple[float, float, str]] = []
    rest = sentence
    for m in _BOUNDED.finditer(rest):
        # bounds in two units ("48 小时以上、不足 8 天": a refund table's row) in the lower bound's: [48, 192) 小时
        per = 1 if m[2][:1] == m[4][:1] else _PER_UNIT.get((m[4][:1], m[2][:1]))
        if per:
            out.append((float(m[1]), float(m[3]) * per - 1e-9, m[2] if per != 1 else m[4]))
    rest = _BOUNDED.sub(" ", rest)
    for m in _SPAN.finditer(rest):
        out.append((float(m[1]), float(m[3]), m[4]))
    rest = _SPAN.sub(" ", rest)
    for m in _BELOW.finditer(rest):
        out.append((0.0, float(m[1]) - 1e-9, m[2]) if m[1] else (0.0, float(m[3]), m[4]))  # 以下 includes it
    rest = _BELOW.sub(" ", rest)
    for m in _ABOVE.finditer(rest):
        out.append((float(m[1] or m[3]), float("inf"), m[2] or m[4]))
    return tuple(r for r in out if r[0] <= r[1])  # "满 20 年不满 10 年", "不满 0 年" state no range


# A quantity the person states in one term, in digits or a Chinese numeral ("两天", "3 小时", "半个月").
_QUANTITY_TERM = re.compile(
    r"^(\d+(?:\.\d+)?|[一二两三四五六七八九十半])\s*个?\s*(天|日|周|星期|小时|钟头|分钟|月|年)$"
)
#: How many of a range's unit (its first character) one of the asked unit is: 两天 is 48 小时.
_PER_UNIT = {
    ("天", "小"): 24,
    ("日", "小"): 24,
    ("天", "钟"): 24,
    ("周", "天"): 7,
    ("周", "日"): 7,
    ("星", "天"): 7,
    ("小", "分"): 60,
    ("钟", "分"): 60,
    ("年", "月"): 12,
    ("年", "个"): 12,
    ("月", "天"): 30,
    ("天", "日"): 1,
    ("日", "天"): 1,
    ("钟", "小"): 1,
    ("小", "钟"): 1,
    ("星", "周"): 1,
    ("周", "星"): 1,
}


def quantity_in_stated_range(term: str, sentence: str) -> bool:
    """Whether ``term``, a quantity the question states in one word ("两天", "3小时"), falls in a range ``sentence``
    states, in the same unit or another one it converts to (``_PER_UNIT``): "作业晚交了两天，会扣多少分？" is the case of
    "迟交 24 至 72 小时：扣除该次作业得分的 30%。" (a helper's round, session 21)."""
    m = _QUANTITY_TERM.match(term)
    if m is None:
        return False
    n = 0.5 if m[1] == "半" else float(cn2an.cn2an(m[1], "smart"))  # 两 → 2, 3 → 3.0 (cn2an, as core.clock reads hours)
    unit = m[2][:1]
    for lo, hi, stated in stated_ranges(sentence):
        factor = 1 if stated[:1] == unit else _PER_UNIT.get((unit, stated[:1]))
        if factor and lo <= n * factor <= hi:
            return True
    return False


def in_stated_range(number: str, question: str, sentence: str) -> bool:
    """Whether ``number`` (digits, a term of ``question``, with a unit after it there: "工作满 12 年", "12 years") falls
    in a range ``sentence`` states for that unit ("已满 10 年不满 20 年的，年休假 10 天"): the clause a policy writes for
    the person's case, which does not write their number (a fresh-clone helper's round, session 17)."""
    asked = {ENGLISH_UNITS.get(u, u)[:1] for u in number_units(question).get(number, frozenset()) if u}
    if not asked:
        return False
    n = float(number)
    # the unit's first or last character: 周岁 states 岁 ("我65岁了" in "18 至 70 周岁", a helper's round, session 19)
    return any(lo <= n <= hi and (unit[:1] in asked or unit[-1:] in asked) for lo, hi, unit in stated_ranges(sentence))


def same_quantity(number: str, question: str, sentence: str) -> bool:
    """Whether ``number`` (digits, a term of ``question``) is the question's quantity where ``sentence`` has it:
    False only when both write something after it in the same script and no pair shares its first character
    ("10 岁" is not "10 册图书"; "14 岁" is "14 周岁"; "12 years" is not the hour of "12:00", "12 点" may be); a bare
    number on either side may be it."""
    if _as_clock(number, sentence) and not _as_clock(number, question) and not _HOUR_OF.search(question):
        return False  # "the 8-lesson course" is not the 8 of "8:00–12:00" (a helper's round, session 19)
    asked = number_units(question).get(number, frozenset())
    stated = number_units(sentence).get(number, frozenset())
    if not asked or not stated or "" in asked or "" in stated:
        return True
    return any(_same_unit(a, b) for a in asked for b in stated)


# A question that asks about a time of day (几点, what time, 8 点, 8 am): its number may be an hour.
_HOUR_OF = re.compile(r"几点|点钟|\bwhat time\b|\d\s*(?:点|時|am\b|pm\b|a\.m\.|p\.m\.|o'clock)", re.IGNORECASE)


def _as_clock(number: str, text: str) -> bool:
    """Whether ``text`` writes ``number`` only as the hour of a time of day ("8:00", "8：30")."""
    found = list(re.finditer(rf"(?<![\d.]){re.escape(number)}(?![\d.])", text))
    return bool(found) and all(re.match(r"\s*[:：]\d{2}", text[m.end() :]) for m in found)


# A header cell that gives its column's unit in brackets ("价格（元/人）", "学费(元)", "时长（分钟）").
_HEADER_UNIT = re.compile(r"[（(]\s*([^（）()]{1,8}?)\s*[）)]\s*$")
# A cell that is a bare number ("238", "1,680", "2.5").
_BARE_NUMBER = re.compile(r"\s*\d[\d,]*(?:\.\d+)?\s*")
# A header cell that names a fee or a price, and the cells under it that state one as a share or waive it (a refund
# table's "| 开车前 48 小时以上、不足 8 天 | 5% |" under "| 距开车时间 | 退票手续费 |"; a helper's round, session 23).
_FEE_HEAD = re.compile(r"费|价|金额")
_BARE_PERCENT = re.compile(r"\s*\d+(?:\.\d+)?\s*[%％]\s*")
_WAIVED = re.compile(r"\s*(?:免收|免|不收)\s*")


@functools.lru_cache(maxsize=4096)
def with_header_units(header_row: str, row: str) -> str:
    """``row`` (a table row's cells joined by "|", as quoted) read with the units its header gives: a cell that is a
    bare number under a header cell ending in a bracketed unit gets the unit written after it ("拉坯体验课 | 2.5 小时
    | 238" under "课程 | 时长 | 价格（元/人）" → "拉坯体验课 | 2.5 小时 | 238元/人"), so the row states a price like a
    sentence does (a helper's round, session 19: every table price was answered "检索到的内容没有直接说明所问的金额");
    a bare percentage under a header cell that names a fee reads "按 5%", and 免收 there reads 免费 (session 23).
    For reading only (the answer quotes ``row`` as written); ``row`` unchanged when the cells do not line up."""
    heads = [h.strip() for h in header_row.split("|")]
    cells = row.split("|")
    if not header_row or len(heads) != len(cells):
        return row
    out = []
    for head, cell in zip(heads, cells):
        m = _HEADER_UNIT.search(head)
        if m and _BARE_NUMBER.fullmatch(cell):
            out.append(cell.rstrip() + m[1] + " ")
        elif _FEE_HEAD.search(head) and _BARE_PERCENT.fullmatch(cell):  # "5%" under 退票手续费: charged at 5%
            out.append(" 按 " + cell.strip() + " ")
        elif _FEE_HEAD.search(head) and _WAIVED.fullmatch(cell):  # "免收" under 退票手续费: free
            out.append(" 免费 ")
        else:
            out.append(cell)
    return "|".join(out)


def outside_stated_ranges(question: str, sentences: Sequence[str]) -> bool:
    """Whether a number the question states with a unit ("一年内第 3 次逾期…") falls outside every range ``sentences``
    state in that unit while one of them states such a range ("累计逾期 5 次及以上的，…暂停借阅 30 天"): the clause
    written is for another case than the person's (an eval set's A31, answered with the fifth time's penalty). False
    when no sentence states a range in the unit, or one holds the number."""
    found = False
    for number, units in number_units(question).items():
        n = float(number)
        for unit in (u for u in units if u and not u.isascii()):
            ranges = [(lo, hi) for s in sentences for lo, hi, stated in stated_ranges(s) if stated[:1] == unit[:1]]
            if not ranges:
                continue
            if any(lo <= n <= hi for lo, hi in ranges):
                return False
            found = True
    return found
