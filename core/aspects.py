"""Questions that ask for a thing's drawbacks ("CronJob 有什么缺点？", "What are the downsides of X?").

Technical documentation rarely passes a verdict on what it documents; it states limits in its own
words (a "限制" section, "不支持…", "caveat"). So such a question is read two ways:

* ``limits_wording(question)``: the question as the documentation would put it ("有什么缺点" →
  "有什么限制"), read by the keyword ranking, the sufficiency decision and the extractive answer, so
  a drawback question is found, judged and answered as its 限制 wording is;
* ``drawback_expansion(question)``: the words the keyword ranking also searches for
  (``DRAWBACK_QUERY_WORDS``: 局限, and 限制 for an English question);
* ``drawback_missing(question, evidence_texts)``: no evidence text speaks of a drawback or limit at
  all (``DRAWBACK_EVIDENCE``), so whatever sentences match the thing's name do not answer the
  question, and the answer is refused rather than made of them. Found in use: "Deployment 和
  StatefulSet 有什么区别？" then "那它的缺点是什么？" was answered with a sentence on when to use
  Deployment, and "CronJob 有什么缺点？" with what a CronJob is.

Only drawbacks: an advantage is told in ordinary words ("可以…", "便于…"), with no vocabulary of
its own to check for. The dev question sets ask for neither (no dev figure moves). Pure functions;
strings are ``str``, lengths in code points.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

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
#: Words an evidence text uses when it speaks of a drawback or limit (code-point substrings, any case);
#: not resource limits ("资源请求或限制", "内存限制"), nor a field's history limit ("任务历史限制").
DRAWBACK_EVIDENCE = re.compile(
    r"缺点|弊端|劣势|坏处|不足|缺陷|局限|(?<!请求或)(?<!请求和)(?<!请求与)(?<!内存)(?<!资源)(?<!历史)(?<!CPU )限制"
    r"|约束|代价|开销|风险|不支持|不适用|无法|不能"
    r"|drawback|disadvantage|downside|limitation|caveat|not supported|restriction",
    re.I,
)
#: A section heading that announces limits ("限制", "CronJob 的限制", "局限性", "注意事项", "Limitations").
LIMITS_HEADING = re.compile(
    r"(?:.{0,20}的)?(?:限制|局限性?|缺点|不足之处|已知问题|已知限制|注意事项|警告)|(?:known )?(?:limitations?|caveats?|issues)",
    re.I,
)
#: The refusal when nothing retrieved speaks of a drawback or limit.
NO_DRAWBACK_MESSAGE = "知识库的相关内容没有谈到这个问题所问的缺点或限制。"
#: What the keyword ranking searches for besides the question's own words.
DRAWBACK_QUERY_WORDS = ("限制", "局限")


def asks_drawback(question: str) -> bool:
    """Whether ``question`` asks for a thing's drawbacks, shortcomings or limitations."""
    return bool(_ZH_ASKS.search(question) or _EN_ASKS.search(question))


def limits_wording(question: str) -> str:
    """``question`` with its Chinese drawback words put as 限制 when it ``asks_drawback``
    ("StatefulSet 有什么缺点？" → "StatefulSet 有什么限制？"): the wording the knowledge base uses,
    for the keyword ranking, the sufficiency decision and the extractive answer's scoring. Any
    other question, and English words, are returned unchanged."""
    if not _ZH_ASKS.search(question):
        return question
    return _ZH_WORD.sub("限制", question)


def drawback_expansion(question: str) -> tuple[str, ...]:
    """``DRAWBACK_QUERY_WORDS`` that ``limits_wording(question)`` does not already hold, when the
    question ``asks_drawback``; else ``()``."""
    if not asks_drawback(question):
        return ()
    worded = limits_wording(question)
    return tuple(w for w in DRAWBACK_QUERY_WORDS if w not in worded)


def drawback_missing(question: str, evidence_texts: Sequence[str]) -> bool:
    """True when ``question`` asks for drawbacks and no text of ``evidence_texts`` (the chunks the
    sufficiency decision rests on) speaks of one (``DRAWBACK_EVIDENCE``). False when it asks for
    none, or when there is no evidence to judge (that case is refused already)."""
    if not evidence_texts or not asks_drawback(question):
        return False
    return not any(DRAWBACK_EVIDENCE.search(t) for t in evidence_texts)


class _Candidate(Protocol):  # core.sufficiency.Candidate, read here without importing it
    chunk_id: str
    text: str
    document: str
    heading: tuple[str, ...]


def is_limits_section(heading: Sequence[str]) -> bool:
    """Whether a chunk's section headings (its heading path below the title) announce limits (``LIMITS_HEADING``)."""
    return any(LIMITS_HEADING.fullmatch(h.strip()) for h in heading)


def drawback_evidence(
    question: str, candidates: Sequence[_Candidate], deciding: Sequence[str], evidence: tuple[str, ...]
) -> tuple[tuple[str, ...], str | None, str | None]:
    """``(evidence ids, reason or None, refusal message or None)`` for ``question`` given the sufficiency
    decision's ``deciding`` chunks (at the threshold) and ``evidence`` (ids, best first).

    For a question that ``asks_drawback``, within the documents of the deciding chunks: their limits
    sections among ``candidates`` (``is_limits_section``) are the evidence; else the evidence stands when
    a deciding chunk speaks of a limit (``DRAWBACK_EVIDENCE``); else the candidates that do; else nothing,
    with ``NO_DRAWBACK_MESSAGE``. Any other question, or no evidence, gets ``evidence`` back unchanged."""
    if not evidence or not asks_drawback(question):
        return evidence, None, None
    docs = {c.document for c in candidates if c.chunk_id in deciding and c.document}
    sections = tuple(c.chunk_id for c in candidates if c.document in docs and is_limits_section(c.heading))
    if sections:
        return sections, "asks for drawbacks: evidence is the limits sections of the deciding chunks' documents", None
    if not drawback_missing(question, [c.text for c in candidates if c.chunk_id in deciding]):
        return evidence, None, None
    stated = tuple(c.chunk_id for c in candidates if c.document in docs and DRAWBACK_EVIDENCE.search(c.text))
    if stated:
        return stated, "asks for drawbacks: evidence is the limits stated in the deciding chunks' documents", None
    return (), "asks for drawbacks; no evidence speaks of a drawback or limit", NO_DRAWBACK_MESSAGE
