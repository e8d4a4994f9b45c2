"""Offset units: UTF-8 bytes, UTF-16 code units and code points, converted at the edge.

Inside the product every offset is a **0-based, end-exclusive index of Unicode
code points** into the answer text (Python ``text[start:end]``). Providers
speak other units; this module is the one place that converts them:

* ``"codepoint"`` - Python ``str`` indices;
* ``"utf8"``      - UTF-8 bytes (Gemini ``Segment.startIndex/endIndex``,
  Interactions annotations);
* ``"utf16"``     - UTF-16 code units (browsers, JavaScript).

A lone surrogate code point (possible in JSON-decoded text) counts as 3 UTF-8
bytes and 1 UTF-16 unit (as with the ``surrogatepass`` error handler).

An offset that is negative, runs past the end, or falls inside a character
raises :class:`OffsetBoundsError` (a :class:`core.errors.OffsetError`); never
clamped (:func:`core.grounding.supports.ground` drops and audits such a support).
:func:`rebase` moves a code-point offset relative to one part of a multi-part
answer onto the joined text.

Errors::

    OffsetError (core.errors)
    ├── OffsetBoundsError      offset, unit and reason as attributes
    └── (plain OffsetError)    rebase: part index or offset outside its part
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Iterable, Sequence
from itertools import accumulate
from typing import Literal

from core.errors import OffsetError

Unit = Literal["codepoint", "utf8", "utf16"]
UNITS: tuple[str, ...] = ("codepoint", "utf8", "utf16")

OffsetReason = Literal["negative", "past_end", "inside_character", "not_an_integer", "bad_unit"]


class OffsetBoundsError(OffsetError):
    """An offset that cannot be converted: negative, past the end, inside a character.

    ``offset`` and ``unit`` are the rejected value and its unit; ``reason`` is
    one of ``negative``, ``past_end``, ``inside_character``, ``not_an_integer``,
    ``bad_unit``.
    """

    def __init__(self, message: str, *, offset: object, unit: str, reason: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.unit = unit
        self.reason = reason


@functools.lru_cache(maxsize=256)
def _prefix(text: str, unit: str) -> tuple[int, ...]:
    """``table[i]`` = length in ``unit`` of ``text[:i]`` (i in code points)."""
    if unit == "utf8":
        widths: Iterable[int] = (1 if o < 0x80 else 2 if o < 0x800 else 3 if o < 0x10000 else 4 for o in map(ord, text))
    else:
        widths = (2 if o > 0xFFFF else 1 for o in map(ord, text))
    return (0, *accumulate(widths))


def _check_unit(unit: str, offset: object) -> None:
    if unit not in UNITS:
        raise OffsetBoundsError(
            f"unknown offset unit {unit!r} (expected one of {', '.join(UNITS)})",
            offset=offset,
            unit=str(unit),
            reason="bad_unit",
        )
    if not isinstance(offset, int) or isinstance(offset, bool):
        raise OffsetBoundsError(
            f"{unit} offset {offset!r} is not an integer",
            offset=offset,
            unit=unit,
            reason="not_an_integer",
        )


def text_length(text: str, unit: Unit) -> int:
    """Length of ``text`` measured in ``unit`` (code points, UTF-8 bytes or UTF-16 units)."""
    if unit == "codepoint":
        return len(text)
    _check_unit(unit, 0)
    return _prefix(text, unit)[-1]


def to_codepoint(text: str, offset: int, unit: Unit) -> int:
    """Convert ``offset`` measured in ``unit`` into a code-point offset into ``text``.

    ``offset`` is a boundary (0 .. length of ``text`` in ``unit``, end included)
    in UTF-8 bytes (``"utf8"``), UTF-16 code units (``"utf16"``) or code points
    (``"codepoint"``). Returns the code-point index ``i`` such that ``text[:i]``
    is exactly ``offset`` units long.

    Raises :class:`OffsetBoundsError` (an ``OffsetError``) naming the offset, the
    unit and the reason when the offset is negative, past the end, inside a
    multi-unit character, not an integer, or the unit is unknown. Never clamps.
    """
    _check_unit(unit, offset)
    if offset < 0:
        raise OffsetBoundsError(f"{unit} offset {offset} is negative", offset=offset, unit=unit, reason="negative")
    if unit == "codepoint":
        if offset > len(text):
            raise OffsetBoundsError(
                f"codepoint offset {offset} is past the end of the text ({len(text)} code points)",
                offset=offset,
                unit=unit,
                reason="past_end",
            )
        return offset
    table = _prefix(text, unit)
    if offset > table[-1]:
        raise OffsetBoundsError(
            f"{unit} offset {offset} is past the end of the text ({table[-1]} {unit} units)",
            offset=offset,
            unit=unit,
            reason="past_end",
        )
    i = bisect.bisect_left(table, offset)
    if table[i] != offset:
        ch = text[i - 1]
        raise OffsetBoundsError(
            f"{unit} offset {offset} falls inside the character {ch!r} (U+{ord(ch):04X}), "
            f"which spans {unit} units {table[i - 1]}..{table[i]}",
            offset=offset,
            unit=unit,
            reason="inside_character",
        )
    return i


def from_codepoint(text: str, cp_offset: int, unit: Unit) -> int:
    """Convert the code-point offset ``cp_offset`` (0 .. ``len(text)``) into ``unit``.

    Returns the length of ``text[:cp_offset]`` in UTF-8 bytes (``"utf8"``),
    UTF-16 code units (``"utf16"``) or code points (``"codepoint"``). Every
    code-point offset is a boundary in every unit. Raises
    :class:`OffsetBoundsError` when ``cp_offset`` is negative, past the end or
    not an integer, or the unit is unknown.
    """
    _check_unit(unit, cp_offset)
    if cp_offset < 0:
        raise OffsetBoundsError(
            f"codepoint offset {cp_offset} is negative",
            offset=cp_offset,
            unit="codepoint",
            reason="negative",
        )
    if cp_offset > len(text):
        raise OffsetBoundsError(
            f"codepoint offset {cp_offset} is past the end of the text ({len(text)} code points)",
            offset=cp_offset,
            unit="codepoint",
            reason="past_end",
        )
    if unit == "codepoint":
        return cp_offset
    return _prefix(text, unit)[cp_offset]


def rebase(parts: Sequence[str], part_index: int, cp_offset: int) -> int:
    """Code-point offset relative to ``parts[part_index]`` -> code points on ``"".join(parts)``.

    Raises ``OffsetError`` when ``part_index`` is out of range or ``cp_offset``
    lies outside the part (0 .. ``len(part)``).
    """
    if not isinstance(part_index, int) or not 0 <= part_index < len(parts):
        raise OffsetError(f"part_index {part_index!r} is out of range ({len(parts)} parts)")
    if not 0 <= cp_offset <= len(parts[part_index]):
        raise OffsetError(
            f"codepoint offset {cp_offset} is outside part {part_index} ({len(parts[part_index])} code points)"
        )
    return sum(len(p) for p in parts[:part_index]) + cp_offset


__all__ = [
    "OffsetBoundsError",
    "OffsetReason",
    "UNITS",
    "Unit",
    "from_codepoint",
    "rebase",
    "text_length",
    "to_codepoint",
]
