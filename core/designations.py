"""Floor and building numbers however they are written: one search term for each.

A notice writes a floor as ``5F``, ``5 楼``, ``5层`` or ``五楼`` and a building as ``3号楼``, ``3 栋`` or
``3幢``; its tables give ranges (``3F-4F``, ``13-18号楼``, ``4—6 栋``) and a person asks "5楼几点开始演练？",
"我住15号楼…", "What time does the drill start on the 7th floor?" or "When is the collection for building 3?".
jieba cuts ``5楼`` into 5 / 楼 and keeps ``5F`` whole, so the question and the row shared no term, and a range
names none of the numbers inside it (two helpers' rounds, session 27: "5楼几点开始演练？" was answered with the
3F and 4F rows; "我住15号楼，旧沙发哪天可以扔？" found no row).

``terms(text)`` gives one term per floor (``5楼``) and per building (``15号楼``) that ``text`` names, each number of a
range included (a range of at most ``MAX_RANGE`` numbers); ``core.lexical.tokenize`` adds them to the words of every
text it cuts, so the question and the documents meet on them in BM25, in coverage and in sentence selection. General
Chinese and English usage, not any one base's: 楼/层/F for a floor (层 only after digits: 七层 is also a network layer),
号楼/栋/幢 for a building, "Nth floor", "floor N", "building N".
"""

from __future__ import annotations

import re

__all__ = ["terms", "is_designation", "number_of", "MAX_RANGE"]

#: The longest range whose numbers are each named (``1-30号楼``); a longer one is no list of floors or buildings.
MAX_RANGE = 40

_CN_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN = "[一二两三四五六七八九十]{1,3}"
_NUM = rf"(\d{{1,3}}|{_CN})"
_DASH = r"\s*(?:-|–|—|~|～|至|到)\s*"

# a building: 3号楼, 3 栋, 3幢, 13-18号楼, 4—6 栋 (号楼 before 楼, so that 15号楼 is no floor)
_BUILDING = re.compile(rf"{_NUM}(?:{_DASH}{_NUM})?\s*(?:号楼|号\s*楼|栋|幢)")
# a floor: 5F, 5 楼, 5层, 五楼, 3F-4F, 3-4楼; not 15号楼, not 1F of a longer ASCII word, not 楼 of 楼梯/楼道/楼下…
_FLOOR = re.compile(
    rf"(?<![A-Za-z0-9.])(\d{{1,3}}|{_CN})\s*(?:F|f)?(?:{_DASH}(\d{{1,3}}|{_CN}))?\s*(F|f|楼|层)"
    r"(?![A-Za-z0-9]|梯|道|下|上|房|盘|宇|主|层)"
)
_EN_FLOOR = re.compile(r"\b(\d{1,3})(?:st|nd|rd|th)\s+floor\b|\bfloor\s+(\d{1,3})\b", re.I)
_EN_BUILDING = re.compile(r"\b(?:building|bldg\.?|block)\s+(\d{1,3})\b", re.I)
_TERM = re.compile(r"(\d{1,3})(?:号楼|楼)")


def _number(text: str) -> int | None:
    """``12`` or ``十二`` → 12; None for anything else (or past 999)."""
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, ones = text.partition("十")
        if len(tens) > 1 or len(ones) > 1:
            return None
        t = _CN_DIGITS.get(tens, 1 if not tens else 0)
        o = _CN_DIGITS.get(ones, 0) if ones else 0
        return t * 10 + o if t and (o or not ones) else None
    return _CN_DIGITS.get(text) if len(text) == 1 else None


def _span(first: str, last: str | None) -> range:
    a = _number(first)
    b = _number(last) if last else a
    if a is None or b is None or b < a or b - a >= MAX_RANGE:
        return range(0)
    return range(a, b + 1)


def terms(text: str) -> list[str]:
    """The floor (``5楼``) and building (``15号楼``) terms of ``text``, in order of appearance, repeated as often as
    named (BM25 counts them); [] when it names none."""
    out: list[str] = []
    taken: list[tuple[int, int]] = []
    for m in _BUILDING.finditer(text):
        out.extend(f"{n}号楼" for n in _span(m.group(1), m.group(2)))
        taken.append(m.span())
    for m in _FLOOR.finditer(text):
        if any(a <= m.start() < b for a, b in taken):
            continue
        first, last, mark = m.group(1), m.group(2), m.group(3)
        if mark == "层" and not (first.isdigit() and (last is None or last.isdigit())):
            continue  # 七层 (a network layer) is no floor; 7层 is
        out.extend(f"{n}楼" for n in _span(first, last))
    for m in _EN_FLOOR.finditer(text):
        out.extend(f"{n}楼" for n in _span(m.group(1) or m.group(2), None))
    for m in _EN_BUILDING.finditer(text):
        out.extend(f"{n}号楼" for n in _span(m.group(1), None))
    return out


def is_designation(term: str) -> bool:
    """Whether ``term`` is one that ``terms`` makes (``5楼``, ``15号楼``)."""
    return bool(_TERM.fullmatch(term))


def number_of(term: str) -> str:
    """The number of a term ``terms`` makes, as written in it ("15" of ``15号楼``); "" for any other term."""
    m = _TERM.fullmatch(term)
    return m.group(1) if m else ""
