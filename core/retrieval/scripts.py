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
from typing import Mapping, Sequence

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


#: A cross-script question's top-k is followed by this many chunks at most that are not in its script, when the top-k
#: holds fewer: an English question over a Chinese knowledge base with an English page had its top-k filled by that
#: page (its words match the question's in BM25 and its meaning is nearer in the first model), so the Chinese chunk
#: that answered ("How many points do I get when I first sign up?", ranked sixth) was never judged (session 26).
BASE_SCRIPT_SLOTS = 1


def base_script_chunks(question: str, ordered: Sequence[str], text_of: Mapping[str, str], k: int) -> list[str]:
    """The chunks to judge after the first ``k`` of ``ordered`` (chunk ids, best first): the best ones below them not
    written in ``question``'s script, so that the first ``k + len(result)`` hold ``BASE_SCRIPT_SLOTS`` such chunks
    when the ranking has them. ``text_of``: chunk id -> its text. For a cross-script question
    (``core.retrieval.query.QueryPlan.cross_script``), whose knowledge base is written in the other script. The top-k
    stays as it was: its chunks are judged among the same chunks as without these."""
    want = BASE_SCRIPT_SLOTS - sum(1 for c in ordered[:k] if not in_own_script(question, text_of[c]))
    if want <= 0:
        return []
    return [c for c in ordered[k:] if not in_own_script(question, text_of[c])][:want]
