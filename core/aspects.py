"""Questions that ask for a thing's drawbacks ("CronJob 有什么缺点？", "What are the downsides of X?").

Technical documentation rarely passes a verdict on what it documents; it states limits in its own
words (a "限制" section, "不支持…", "caveat"). So such a question is read two ways:

* ``drawback_expansion(question)``: the words retrieval's keyword ranking also searches for
  (``DRAWBACK_QUERY_WORDS``), so that the thing's 限制 section is found;
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

# The question asks for drawbacks. Bare 不足 is not here: "资源不足时…" asks what happens when
# something is insufficient, not for a shortcoming; nor 局限于 ("confined to").
_ASKS_DRAWBACK = re.compile(
    r"缺点|弊端|弊病|劣势|坏处|短板|缺陷|局限(?!于)|优缺点|利弊|不足之处|(?:有|存在)(?:什么|哪些)不足"
    r"|\bdrawbacks?\b|\bdisadvantages?\b|\bdownsides?\b|\bcons\b|\bweakness(?:es)?\b|\bshortcomings?\b|\blimitations?\b",
    re.I,
)
#: Words an evidence text uses when it speaks of a drawback or limit (code-point substrings, any case).
DRAWBACK_EVIDENCE = re.compile(
    r"缺点|弊端|劣势|坏处|不足|缺陷|局限|限制|约束|代价|开销|风险|不支持|不适用"
    r"|drawback|disadvantage|downside|limitation|caveat|not supported|restriction",
    re.I,
)
#: What the keyword ranking searches for besides the question's own words.
DRAWBACK_QUERY_WORDS = ("限制", "局限")


def asks_drawback(question: str) -> bool:
    """Whether ``question`` asks for a thing's drawbacks, shortcomings or limitations."""
    return bool(_ASKS_DRAWBACK.search(question))


def drawback_expansion(question: str) -> tuple[str, ...]:
    """``DRAWBACK_QUERY_WORDS`` the question does not already hold when it ``asks_drawback``; else ``()``."""
    if not asks_drawback(question):
        return ()
    return tuple(w for w in DRAWBACK_QUERY_WORDS if w not in question)


def drawback_missing(question: str, evidence_texts: Sequence[str]) -> bool:
    """True when ``question`` asks for drawbacks and no text of ``evidence_texts`` (the chunks the
    sufficiency decision rests on) speaks of one (``DRAWBACK_EVIDENCE``). False when it asks for
    none, or when there is no evidence to judge (that case is refused already)."""
    if not evidence_texts or not asks_drawback(question):
        return False
    return not any(DRAWBACK_EVIDENCE.search(t) for t in evidence_texts)
