"""Which characters are CJK: the one definition every layer uses.

Low level on purpose (no imports from ``core``), so chunking, rendering,
grounding and the generator adapters may all import it. Arguments are single
Unicode **code points** (``str`` of length 1); behaviour for longer strings is
undefined.

The ranges are Unicode blocks (source: the Unicode Character Database,
``Blocks.txt``): CJK Radicals Supplement .. Ideographic Description Characters
(U+2E80..U+2FDF), CJK Symbols and Punctuation, Hiragana, Katakana, Bopomofo,
Hangul Compatibility Jamo, Kanbun, Enclosed CJK, CJK Compatibility, CJK
Extension A and the Unified Ideographs (U+3000..U+9FFF), Hangul Jamo
Extended-A, Hangul Syllables, CJK Compatibility Ideographs, CJK Compatibility
Forms, Halfwidth and Fullwidth Forms, and the supplementary ideograph planes
up to CJK Extension G (U+20000..U+3134F). Emoji are **not** CJK.

One narrower definition lives elsewhere on purpose: the CMRC 2018 metric
(:func:`core.evaluation.mixed_segmentation`) counts U+4E00..U+9FA5 only,
because its official evaluation script does.
"""

from __future__ import annotations

import unicodedata

__all__ = ["IDEOGRAPH_CLASS", "fold_lookalike", "is_cjk", "is_cjk_punct"]

_CJK_RANGES = (
    (0x2E80, 0x2FDF),
    (0x3000, 0x303F),
    (0x3040, 0x30FF),
    (0x3100, 0x31FF),
    (0x3200, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xA960, 0xA97F),
    (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF),
    (0xFE30, 0xFE4F),
    (0xFF00, 0xFFEF),
    (0x20000, 0x3134F),
)
_CJK_PUNCT_RANGES = (
    (0x3000, 0x303F),
    (0xFE30, 0xFE4F),
    (0xFF00, 0xFF0F),
    (0xFF1A, 0xFF20),
    (0xFF3B, 0xFF40),
    (0xFF5B, 0xFF65),
)

#: A regular-expression character class of the BMP Han ideographs only
#: (CJK Extension A, Unified Ideographs, Compatibility Ideographs): the
#: characters between which a single space carries no meaning in Chinese prose.
IDEOGRAPH_CLASS = "[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"


def _in(ch: str, ranges: tuple[tuple[int, int], ...]) -> bool:
    o = ord(ch)
    return any(lo <= o <= hi for lo, hi in ranges)


def is_cjk(ch: str) -> bool:
    """True when the code point ``ch`` is in one of the CJK blocks listed above
    (Han, kana, Bopomofo, Hangul, CJK and full-width punctuation and forms)."""
    return _in(ch, _CJK_RANGES)


def is_cjk_punct(ch: str) -> bool:
    """True when ``ch`` is CJK punctuation: CJK Symbols and Punctuation
    (U+3000..U+303F), CJK Compatibility Forms, and the punctuation of the
    Full-width Forms block (``，：（）［］｛｝`` …, not full-width letters or digits)."""
    return _in(ch, _CJK_PUNCT_RANGES)


#: Compatibility look-alikes that text extraction (PDF) produces and no question contains:
#: CJK Radicals Supplement and Kangxi Radicals (U+2E80..U+2EFF, U+2F00..U+2FDF: ⼿ for 手),
#: full-width digits and Latin letters (U+FF10..U+FF19, U+FF21..U+FF3A, U+FF41..U+FF5A).
_LOOKALIKE_RANGES = ((0x2E80, 0x2EFF), (0x2F00, 0x2FDF), (0xFF10, 0xFF19), (0xFF21, 0xFF3A), (0xFF41, 0xFF5A))


def fold_lookalike(ch: str) -> str:
    """``ch`` (one code point) with a compatibility look-alike (:data:`_LOOKALIKE_RANGES`) replaced by
    its NFKC form when that is one code point too, so offsets stay put; every other character as
    it is (CJK punctuation keeps its full width)."""
    if _in(ch, _LOOKALIKE_RANGES):
        norm = unicodedata.normalize("NFKC", ch)
        if len(norm) == 1:
            return norm
    return ch
