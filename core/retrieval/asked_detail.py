"""Evidence for the price a question asks for, when the decision left it under the evidence cut.

"固定工位每月多少钱？" over a coworking space's pages: the price table ("| 固定工位 | 1,880 元/月 | …") was the
best BM25 match among the top-k, but its embedding is far from the question (a table of five columns), so the
decision ranked the paragraph "会员可以随时从流动工位升级为固定工位…" first and cut the table; the answer then
said the price was not stated (a helper's round, session 21). Here, when a question that asks how much (``money``
in ``QuestionAnalysis.wants``) is answered and no evidence chunk has a line with an amount and the question's most
specific word, the best-scored top-k chunk that has one joins the evidence. Whether to answer stays the whole
question's decision: a refused or narrowed question gains nothing.

``AMOUNT`` (a sum in figures with its currency) is shared with ``core.generators.question_types``, which reads
what an answer's sentences state.
"""

from __future__ import annotations

import dataclasses
import re

from core.lexical import general_frequency
from core.models import RetrievedChunk
from core.retrieval.question import ASKING, CJK, QUESTION_WORDS, analyse
from core.retrieval.sufficiency_terms import value_sentence

#: A sum of money in figures: 128 元, 1,880 元/月, ¥50, 30 yuan (a price written in words or as "free" is read by
#: ``core.generators.question_types``).
AMOUNT = re.compile(
    r"\d(?:[\d,.]*\d)?\s*(?:元|块|角|万元|美元|欧元|英镑|日元|港元|港币)|[¥￥$€£]\s*\d(?:[\d,.]*\d)?", re.IGNORECASE
)


def subject_word(question: str, texts: list[str]) -> str | None:
    """The question's most specific content word that ``texts`` contain (fewest occurrences in jieba's general
    dictionary, longer first; two characters or more, no question word, no word for the kind of answer asked, no word
    for how often, 每月/每人), lower-case; None when they contain none: "独立办公室每月多少钱？" over pages without 办公室
    is not about the printing page's "每月免费 20 页"."""
    q = analyse(question)
    joined = "\n".join(texts).lower()
    words = [
        t.lower()
        for t in q.content_terms
        if len(t) >= 2
        and t not in q.kind_words
        and t not in ASKING
        and t not in QUESTION_WORDS
        and not t.startswith("每")
        and (CJK.search(t) or t.isalnum())
        and t.lower() in joined
    ]
    return min(words, key=lambda t: (general_frequency(t), -len(t))) if words else None


def _states_price_of(text: str, word: str) -> bool:
    """Whether a line or sentence of ``text`` (a table row is one line) has an amount and ``word``."""
    return value_sentence(text, [word], AMOUNT) is not None


def with_detail_evidence(result, question: str):
    """``result`` (a ``RetrievalResult``) with the best-scored chunk among its top-k that has a line stating an amount
    with the question's most specific word (``subject_word``) appended to its evidence, when ``question`` asks how
    much, is answered without a message, and no evidence chunk has such a line; ``result`` itself otherwise. The
    config's ``detail_evidence`` counts the chunk added."""
    decision = result.decision
    if result.no_evidence or decision is None or decision.message is not None:
        return result
    if "money" not in analyse(question).wants:
        return result
    word = subject_word(question, [rc.chunk.text for rc in result.chunks])
    if word is None or any(_states_price_of(rc.chunk.text, word) for rc in result.evidence):
        return result
    ids = {rc.chunk_id for rc in result.evidence}
    found: list[RetrievedChunk] = [
        rc for rc in result.chunks if rc.chunk_id not in ids and _states_price_of(rc.chunk.text, word)
    ]
    if not found:
        return result
    best = max(found, key=lambda rc: decision.scores.get(rc.chunk_id, 0.0))
    config = {**result.config, "detail_evidence": 1}
    return dataclasses.replace(result, evidence=(*result.evidence, best), config=config)
