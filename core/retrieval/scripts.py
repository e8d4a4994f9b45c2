"""The script a chunk is written in, against a question's: an English page of a Chinese knowledge base asked in
Chinese is in the other script (``in_other_script``), asked in English in the question's own (``in_own_script``).
Read by the fusion (``core.retrieval.hybrid.script_stand_in``) and the decision (``core.retrieval.sufficiency``).

A chunk's script is its prose's: code (fenced blocks, inline spans) and addresses (a link's target, a bare URL) are
Latin in any language's documents and left out; a text with fewer than ``SCRIPT_MIN_LETTERS`` letters left is of
no script. Shares are of letters (CJK ideographs against Latin letters, ``core.retrieval.query.cjk_share``), with
the thresholds a cross-script question is told by (``CROSS_SCRIPT_SHARE``).
"""

from __future__ import annotations

import functools
import re

from core.retrieval.query import CROSS_SCRIPT_SHARE, question_cjk_share

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")

# Code (fenced blocks, inline spans) and addresses (a link's target, a bare URL) are Latin in any language's
# documents: not the script a text is written in.
_CODE = re.compile(r"```.*?(?:```|$)|`[^`\n]*`|\]\([^)\s]*\)|https?://\S+", re.DOTALL)


def in_other_script(question: str, text: str) -> bool:
    """Whether ``text`` (a chunk's prose, code left out) is written in the other script than ``question``: a
    Chinese question (CJK share ≥ 1 − ``CROSS_SCRIPT_SHARE``) over English prose (≤ ``CROSS_SCRIPT_SHARE``), or
    the reverse. False for a text with few letters outside code (``SCRIPT_MIN_LETTERS``)."""
    q, t = _script(question_cjk_share(question)), _script(prose_cjk_share(text))
    return q is not None and t is not None and q != t


def in_own_script(question: str, text: str) -> bool:
    """Whether ``text`` (a chunk's prose, code left out) is written clearly in ``question``'s script: both Chinese
    (CJK share ≥ 1 − ``CROSS_SCRIPT_SHARE``) or both English (≤ ``CROSS_SCRIPT_SHARE``); an English page of a Chinese
    knowledge base for an English question. False for a text with few letters outside code, or of mixed script."""
    q, t = _script(question_cjk_share(question)), _script(prose_cjk_share(text))
    return q is not None and q == t


def _script(share: float | None) -> str | None:
    """ "zh" for a CJK share ≥ 1 − ``CROSS_SCRIPT_SHARE``, "en" for one ≤ ``CROSS_SCRIPT_SHARE``, None between them
    or for no share."""
    if share is None:
        return None
    if share >= 1 - CROSS_SCRIPT_SHARE:
        return "zh"
    return "en" if share <= CROSS_SCRIPT_SHARE else None


#: A text with fewer letters than this outside its code (a code block under its heading, "EndpointSlice API") is
#: written in no script of its own.
SCRIPT_MIN_LETTERS = 40


@functools.lru_cache(maxsize=16384)
def prose_cjk_share(text: str) -> float | None:
    """``cjk_share`` of ``text`` without its code; None when fewer than ``SCRIPT_MIN_LETTERS`` letters are left
    (cached: a chunk's text is read at every question that ranks it)."""
    prose = _CODE.sub(" ", text)
    cjk, latin = len(_CJK.findall(prose)), len(_LATIN.findall(prose))
    if cjk + latin < SCRIPT_MIN_LETTERS:
        return None
    return cjk / (cjk + latin)
