"""Evidence for each part of a question that asks several things.

"晚上去夜间门诊能做 B 超吗？平时做 B 超多久能拿到报告？" asks two things that two sections answer. Judged
as one question, the chunk that answers the second part scores against words it does not have and falls
under the evidence cut, so the answer leaves that part out (issue 27, the ``multi`` rows of every dev
set: the second gold passage was among the top five retrieved but not in the evidence). Here each part
(``core.retrieval.question.QuestionAnalysis.parts``) is retrieved and judged as a question of its own, and the
chunks that reach the part's own threshold join the evidence of the whole question.

Only an answered question gains evidence this way: a question that is refused as a whole is not answered through
one part. It is answered when *every* part is (``answered_by_parts``): two unrelated questions in one message pull
its words apart, and each alone would have been answered.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

from core.models import RetrievedChunk

#: The chunks one part may add: its best ones that reach the part's own threshold (measured on every dev
#: set's ``multi`` rows; docs/measurements.md, session 11).
PART_EVIDENCE = 1
#: At most this many parts are retrieved on their own (each is one more retrieval): a question may hold up to
#: ``core.models.MAX_QUESTION_CHARS`` characters, and forty question marks would be forty retrievals. The dev
#: sets' several-part questions have two parts.
MAX_PARTS = 4


def part_evidence(result, part_results: Sequence) -> tuple[RetrievedChunk, ...]:
    """The chunks the parts add to ``result`` (a ``RetrievalResult`` of the whole question), best part
    first: from each of ``part_results`` (one ``RetrievalResult`` per part) whose decision is sufficient and
    carries no message, its first ``PART_EVIDENCE`` chunks at or above the part's threshold that the
    whole question's evidence (and an earlier part) lacks: a part whose best chunk the whole already has
    adds its next one. Empty when ``result`` has no evidence or a message (a refused or
    narrowed question stays so)."""
    decision = result.decision
    if result.no_evidence or decision is None or decision.message is not None:
        return ()
    seen = {rc.chunk_id for rc in result.evidence}
    added: list[RetrievedChunk] = []
    for part in part_results:
        d = part.decision
        if d is None or not d.sufficient or d.message is not None:
            continue
        own = [rc for rc in part.evidence if rc.chunk_id not in seen and d.scores.get(rc.chunk_id, 0.0) >= d.threshold]
        for rc in own[:PART_EVIDENCE]:
            seen.add(rc.chunk_id)
            added.append(rc)
    return tuple(added)


def with_part_evidence(result, part_results: Sequence):
    """``result`` with the chunks ``part_evidence`` adds appended to its evidence (and to its chunks when
    they were not among them, ranked after them); the config's ``part_evidence`` counts them. ``result``
    itself when nothing is added."""
    added = part_evidence(result, part_results)
    if not added:
        return result
    ids = {rc.chunk_id for rc in result.chunks}
    chunks = list(result.chunks)
    for rc in added:
        if rc.chunk_id not in ids:
            chunks.append(rc.model_copy(update={"rank": len(chunks) + 1}))
    by_id = {rc.chunk_id: rc for rc in chunks}
    evidence = (*result.evidence, *(by_id[rc.chunk_id] for rc in added))
    config = {**result.config, "part_evidence": len(added)}
    return dataclasses.replace(result, chunks=tuple(chunks), evidence=evidence, config=config)


def answered_by_parts(result, part_results: Sequence):
    """``result`` (a ``RetrievalResult`` of a whole question refused for want of evidence) answered by its parts when
    each of ``part_results`` (one per part, every part of the question) is sufficient on its own and carries no
    message: "网络灯熄灭是什么意思？售后电话是多少？" was refused as a whole (its two topics pull its words apart) while
    each half alone is answered (a helper's round, session 23). The evidence is each part's evidence in part order,
    each chunk once; the decision is the best part's, with its evidence ids and a reason saying so. ``result`` itself
    when it has evidence, when its refusal names what the knowledge base lacks (``missing_terms``: narrowed, not
    unsure), or when a part is refused."""
    decision = result.decision
    if not result.no_evidence or decision is None or decision.missing_terms or len(part_results) < 2:
        return result
    if any(p.decision is None or not p.decision.sufficient or p.decision.message is not None for p in part_results):
        return result
    seen: set[str] = set()
    evidence: list[RetrievedChunk] = []
    for part in part_results:
        for rc in part.evidence:
            if rc.chunk_id not in seen:
                seen.add(rc.chunk_id)
                evidence.append(rc)
    ranked = [rc.model_copy(update={"rank": n}) for n, rc in enumerate(evidence, start=1)]
    by_id = {rc.chunk_id: rc for rc in ranked}
    rest = [rc for rc in result.chunks if rc.chunk_id not in by_id]
    chunks = (*ranked, *(rc.model_copy(update={"rank": len(ranked) + n}) for n, rc in enumerate(rest, start=1)))
    best = max((p.decision for p in part_results), key=lambda d: d.score - d.threshold)
    reason = f"each of the question's {len(part_results)} parts is answered on its own (the whole was not)"
    answered = dataclasses.replace(best, evidence_ids=tuple(by_id), reasons=(*best.reasons, reason))
    config = {**result.config, "answered_by_parts": len(part_results)}
    return dataclasses.replace(result, chunks=chunks, evidence=tuple(ranked), decision=answered, config=config)
