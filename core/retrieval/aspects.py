"""Questions that ask for a thing's drawbacks ("CronJob 有什么缺点？", "What are the downsides of X?").

Technical documentation rarely passes a verdict on what it documents; it states limits in its own
words (a "限制" section, "不支持…", "caveat"). So such a question is read two ways:

* ``limits_wording(question)``: the question as the documentation would put it ("有什么缺点" →
  "有什么限制"), read by both rankings and the sufficiency decision, so a drawback question is found
  and judged as its 限制 wording is;
* ``drawback_expansion(question)``: the words the keyword ranking also searches for
  (``DRAWBACK_QUERY_WORDS``: 局限, and 限制 for an English question);
* ``drawback_evidence(...)``: the evidence is the limits sections of the documents the decision is sure
  of, or the chunks that state a drawback (``DRAWBACK_EVIDENCE``); with none, whatever sentences match
  the thing's name do not answer the question, and it is refused rather than answered with them;
* ``without_drawback_words(question)``: the subject the extractive answer scores sentences by (it adds a
  bonus to those that state a drawback or sit in a limits section).

Found in use: "Deployment 和 StatefulSet 有什么区别？" then "那它的缺点是什么？" was answered with a
sentence on when to use Deployment, and "CronJob 有什么缺点？" with what a CronJob is. Bare 限制 is
ambiguous in Kubernetes text (resource limits, "to limit", a field's limit), so it finds a limits
section but never counts as stating a drawback.

Only drawbacks: an advantage is told in ordinary words ("可以…", "便于…"), with no vocabulary of
its own to check for. The dev question sets ask for neither (no dev figure moves). Pure functions;
strings are ``str``, lengths in code points.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from core.models import Chunk, RetrievedChunk

# The question asks for drawbacks: a Chinese drawback word in a question frame ("有什么缺点",
# "缺点是什么", "的局限性有哪些", "…的优缺点？"), or an English one. Bare 不足 is not one: "资源不足时…"
# asks what happens when something is insufficient; nor 局限于 ("confined to"), nor a word that
# only describes ("修复内核缺陷时…").
_ZH_WORDS = r"优缺点|缺点|弊端|弊病|劣势|坏处|短板|缺陷|局限性|局限(?!于)|利弊|不足之处"
_ZH_ASKS = re.compile(
    rf"(?:{_ZH_WORDS})[^，。,.;；！!]{{0,6}}?(?:是什么|是啥|有哪些|有什么|有啥|在哪|呢|吗|？|\?|$)"
    rf"|(?:有|存在|具有)(?:什么|哪些|啥|何)(?:样的)?(?:{_ZH_WORDS}|不足)"
)
_ZH_WORD = re.compile(rf"{_ZH_WORDS}|(?<=[什么哪些啥何的])不足(?!之处)")
_EN_ASKS = re.compile(
    r"\b(?:drawbacks?|disadvantages?|downsides?|cons|weakness(?:es)?|shortcomings?|limitations?)\b", re.I
)
#: Words an evidence text uses when it states a drawback or limit (code-point substrings, any case).
#: Bare 限制 and 约束 are not among them: in Kubernetes text they are mostly resource limits
#: ("资源请求或限制", "CPU 限制值"), a verb ("PDB 将限制…") or a field ("任务历史限制", "拓扑分布约束").
DRAWBACK_EVIDENCE = re.compile(
    r"缺点|弊端|劣势|坏处|不足|缺陷|局限|有所限制|存在(?:一些|以下)?限制|以下限制|限制如下|受到.{0,12}?的?限制"
    r"|代价|风险|不支持|不适用|无法|不能"
    r"|drawback|disadvantage|downside|limitation|caveat|not supported",
    re.I,
)
#: A section heading that announces limits ("限制", "CronJob 的限制", "局限性", "注意事项", "Limitations").
LIMITS_HEADING = re.compile(
    r"(?:.{0,20}的)?(?:限制|局限性?|优缺点|缺点|不足之处|已知问题|已知限制|注意事项|警告)(?:分析|说明)?"
    r"|(?:known )?(?:limitations?|caveats?|issues)|pros and cons",
    re.I,
)
#: The refusal when nothing retrieved speaks of a drawback or limit.
NO_DRAWBACK_MESSAGE = "知识库的相关内容没有谈到这个问题所问的缺点或限制。"
#: What the keyword ranking searches for besides the question's own words.
DRAWBACK_QUERY_WORDS = ("限制", "局限")


def asks_drawback(question: str) -> bool:
    """Whether ``question`` asks for a thing's drawbacks, shortcomings or limitations."""
    return bool(_ZH_ASKS.search(question) or _EN_ASKS.search(question))


def is_drawback_word(word: str) -> bool:
    """Whether ``word`` (one term) is itself a word for drawbacks (缺点, 局限性, drawbacks…): it asks, it names no topic."""
    return bool(_ZH_WORD.fullmatch(word) or _EN_ASKS.fullmatch(word))


def limits_wording(question: str) -> str:
    """``question`` with its Chinese drawback words put as 限制 when it ``asks_drawback``
    ("StatefulSet 有什么缺点？" → "StatefulSet 有什么限制？"): the wording the knowledge base uses,
    for both rankings and the sufficiency decision (the extractive answer scores by
    ``without_drawback_words`` instead). Any other question, and English words, are returned unchanged."""
    if not _ZH_ASKS.search(question):
        return question
    return _ZH_WORD.sub("限制", question)


def without_drawback_words(question: str) -> str:
    """``question`` without its drawback words ("Init 容器有什么缺点？" → "Init 容器有什么？"): what is left
    names the subject, for scoring sentences by it."""
    return _EN_ASKS.sub(" ", _ZH_WORD.sub("", question))


def drawback_expansion(question: str) -> tuple[str, ...]:
    """``DRAWBACK_QUERY_WORDS`` and the question's own drawback words (缺点, 不足…) that ``limits_wording(question)``
    does not already hold, when the question ``asks_drawback``; else ``()``."""
    if not asks_drawback(question):
        return ()
    worded = limits_wording(question)
    # the person's own word too (缺点): a small base may state drawbacks only as "…的缺点：" (a helper's round,
    # session 17: "有哪些缺点？" was refused over a page listing 本地加密存储的缺点)
    own = tuple(m.group(0) for m in _ZH_WORD.finditer(question))
    return tuple(dict.fromkeys(w for w in (*DRAWBACK_QUERY_WORDS, *own) if w not in worded))


class _Candidate(Protocol):  # core.retrieval.sufficiency.Candidate, read here without importing it
    chunk_id: str
    text: str  # heading path (space-joined) on its first line, then the chunk's text
    document: str
    heading: tuple[str, ...]


def is_limits_section(heading: Sequence[str]) -> bool:
    """Whether a chunk's section headings (its heading path below the title) announce limits (``LIMITS_HEADING``)."""
    return any(LIMITS_HEADING.fullmatch(h.strip()) for h in heading)


_OF_PART = re.compile(r"(.{1,20}?)的(?=限制|局限|缺点|不足)")


def _of_another_part(heading: str, question: str) -> bool:
    """Whether a limits ``heading`` names what it limits ("重试的局限性": 重试) and ``question`` does not name it."""
    m = _OF_PART.match(heading.strip())
    return bool(m) and m.group(1).strip().lower() not in question.lower()


def _about(c: _Candidate, subject: Sequence[str]) -> bool:
    """Whether the candidate's heading path names one of ``subject`` (lower-case terms); True without a subject."""
    line = c.text.split("\n", 1)[0].lower()
    return not subject or any(t in line for t in subject)


def drawback_evidence(
    question: str,
    candidates: Sequence[_Candidate],
    deciding: Sequence[str],
    evidence: tuple[str, ...],
    subject: Sequence[str] = (),
) -> tuple[tuple[str, ...], str | None, str | None]:
    """``(evidence ids, reason or None, refusal message or None)`` for ``question`` given the sufficiency
    decision's ``deciding`` chunks (at the threshold), its ``evidence`` (ids, best first) and the
    question's ``subject`` (its most specific terms, lower-case: ``core.retrieval.query.key_terms``).

    For a question that ``asks_drawback``, within the documents of the deciding chunks and among the
    candidates whose heading path names the subject: their limits sections (``is_limits_section``) are
    the evidence; else the evidence chunks among them that state a drawback or limit
    (``DRAWBACK_EVIDENCE``); else any of them that state one; else nothing, with
    ``NO_DRAWBACK_MESSAGE``. Any other question, or no evidence, gets ``evidence`` back unchanged."""
    if not evidence or not asks_drawback(question):
        return evidence, None, None
    docs = {c.document for c in candidates if c.chunk_id in deciding and c.document}
    ours = [c for c in candidates if c.document in docs and _about(c, subject)]
    limits = [c for c in ours if is_limits_section(c.heading)]
    # "重试的局限性" states the limits of a part (重试); a section about the limits of the thing itself
    # ("优缺点分析", "限制") answers "它有哪些缺点" before it, unless the question names that part
    whole = [c for c in limits if not any(_of_another_part(h, question) for h in c.heading)]
    sections = tuple(c.chunk_id for c in (whole or limits))
    if sections:
        return sections, "asks for drawbacks: evidence is the limits sections of the deciding chunks' documents", None
    kept = tuple(c.chunk_id for c in ours if c.chunk_id in evidence and DRAWBACK_EVIDENCE.search(c.text))
    if kept:
        return kept, "asks for drawbacks: evidence is the chunks that state one", None
    stated = tuple(c.chunk_id for c in ours if DRAWBACK_EVIDENCE.search(c.text))
    if stated:
        return stated, "asks for drawbacks: evidence is the limits stated in the deciding chunks' documents", None
    return (), "asks for drawbacks; no evidence states a drawback or limit", NO_DRAWBACK_MESSAGE


#: At most this many limits sections a drawback question may take from outside its top-k.
MAX_SECTIONS = 3


def limits_sections(
    question: str,
    chunks: Sequence[RetrievedChunk],
    active: dict[str, Chunk],
    ranking: Sequence[RetrievedChunk],
    now,  # noqa: ANN001 - the retrieval's timestamp
) -> tuple[RetrievedChunk, ...]:
    """For a question for drawbacks: the limits sections (``core.retrieval.aspects.is_limits_section``) of
    the documents of the top-k ``chunks`` that are not among them, at most ``MAX_SECTIONS``, in document
    order (the one of the best chunk first). "那它有哪些缺点？" after a turn about TiDB's optimistic
    transactions found that model's 原理 chunks, while its 优缺点分析 section was ranked further down: the
    decision may now take it (``core.retrieval.aspects.drawback_evidence``). Each is the fused ranking's
    ``RetrievedChunk`` when it is in ``ranking``, else one ranked after it with no scores."""
    order = {d: n for n, d in enumerate(dict.fromkeys(rc.chunk.document_id for rc in chunks))}
    seen = {rc.chunk_id for rc in chunks}
    ranked = {rc.chunk_id: rc for rc in ranking}
    # one pass over the served chunks (the full archive is tens of thousands), then the documents' order
    found = sorted(
        (
            c
            for c in active.values()
            if c.document_id in order and c.chunk_id not in seen and is_limits_section(c.heading_path[1:])
        ),
        key=lambda c: order[c.document_id],
    )
    out = []
    for c in found[:MAX_SECTIONS]:
        rc = ranked.get(c.chunk_id) or RetrievedChunk(chunk=c, rank=len(ranking) + len(out) + 1, retrieved_at=now)
        out.append(rc)
    return tuple(out)
