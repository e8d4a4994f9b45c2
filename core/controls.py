"""Control characters in untrusted text: :func:`clean_controls` (standard library only, light to import)."""

from __future__ import annotations

import re

#: C0 controls but tab and line endings, DEL, C1 controls, bidi embeddings/overrides/isolates
#: (U+202A-U+202E, U+2066-U+2069: they reorder what is shown), lone surrogates (not UTF-8).
CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def clean_controls(text: str) -> str:
    """``text`` with every :data:`CONTROLS` character replaced by U+FFFD (same length in code
    points, so offsets into it stay valid); ``\\t``, ``\\n`` and ``\\r`` are kept."""
    return CONTROLS.sub("\ufffd", text)


#: Characters that show nothing and join or break nothing a reader sees: zero-width space, non-joiner and
#: joiner, word joiner, byte-order mark, soft hyphen. Inside a question they only split its words for the
#: tokenizer ("流\u200b感\u200b疫\u200b苗" found nothing that "流感疫苗" finds).
INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")


def without_invisible(text: str) -> str:
    """``text`` without the :data:`INVISIBLE` characters (shorter: not for text whose offsets are kept)."""
    return INVISIBLE.sub("", text)
