"""Evidence sufficiency: does the retrieved evidence answer the question?

A measured decision, replacing the hand-made mean of coverage and rescaled
cosine as the ``no_evidence`` rule (relevance stays what it is: a per-chunk
relevance estimate for display, never a confidence).

Per candidate chunk (the retriever's top-k) a feature vector (``FEATURES``):

* ``coverage`` — IDF-weighted share of the question's terms in the chunk
  (``LexicalIndex.coverage``; IDF from the knowledge base);
* ``salient`` — share of the question's three highest-IDF terms in the chunk;
* ``absent`` — IDF-weighted share of the question's terms that occur nowhere in
  the knowledge base (strong evidence of absence; same for every chunk);
* ``dense`` — the chunk's cosine rescaled per model (``core.retrieval.hybrid.dense_relevance``),
  0 in keyword mode;
* ``bm25_rr`` / ``dense_rr`` / ``fused_rr`` — 1/rank of the chunk in the BM25,
  dense and fused rankings (0 when absent): agreement between the rankers;
* ``coverage_gap`` / ``dense_gap`` — the chunk's coverage / dense relevance minus
  the mean over the top-k (an answering chunk stands out; off-topic results are flat);
* ``type_match`` — +1 when the question asks for a number (多少/多久/几…, how
  many/long) or steps (怎么/如何…, how do/to) and the chunk has one, -1 when it
  asks and the chunk has none, 0 when it asks for neither.
* ``cross_script`` — 1 for a question in another script than the knowledge base (an
  English question over Chinese docs): its coverage is low by nature, so the model
  learns a separate baseline for it (and ``absent`` ignores its ordinary words); 1 too for a
  chunk written in the other script than the question (``core.retrieval.scripts.in_other_script``:
  an English page of a Chinese knowledge base, asked in Chinese), which is then scored by the
  ``hybrid`` model (the one whose cross-script baseline was fit) with the second, cross-lingual
  model's cosine and rank standing in for the first's, its gaps taken among the chunks of its own
  script and ``absent`` ignoring the question's ordinary words (session 20); and 0 for a cross-script
  question's chunk written clearly in the question's own script (``in_own_script``: an English page
  of a Chinese base, asked in English), whose words can match the question's: scored as a
  same-script question's chunk, while the base's other chunks read the second model's meaning;
* ``dense2`` / ``dense2_rr`` — the second embedder's rescaled cosine and 1/rank in its
  ranking (``core.store.second_vectors``), 0 outside mode ``hybrid2``;
* ``detail`` — +1 / -1 when the question asks for one specific detail (a default,
  limit, threshold, range, count) and the chunk has / lacks a sentence giving a value
  next to the question's rarest terms (``sufficiency_terms.detail_in``), 0 otherwise.

A logistic regression per retrieval mode turns the features into the
probability (0..1) that the chunk holds the answer. ``hybrid2`` is used when every
chunk also has a vector of the second embedder the coefficients were fit with (its
ranking then joins the fusion), ``hybrid`` when the dense ranking of the model the
coefficients were fit with ran (some searched chunk has a vector), ``keyword`` otherwise
(BM25 features only).

Per chunk, not per question: a chunk without a vector (never written, or an upload still being
embedded) has no dense features, so in a ``hybrid``/``hybrid2`` question it is scored by the
``keyword`` model with its BM25 rank as its fused rank (as in the keyword state, where the two
are the same), against the keyword threshold; a chunk without the second model's vector in a
``hybrid2`` question by the ``hybrid`` model. So each chunk's probability keeps the meaning it
was calibrated with, and one missing vector changes the other chunks' scores not at all
(``dense_gap`` is taken over the chunks that have a dense score). Chosen over "keyword for the
whole question until every vector exists" (issue 12's rule), which turned off the dense signal
of 812 chunks for the sake of one (issue 24) and of a whole knowledge base while one upload was
embedded (issue 30). A chunk is evidence when its probability reaches its model's threshold
(the person's override replaces every model's); the chunks at or above ``EVIDENCE_SHARE`` × their
threshold are then the evidence too (whether to answer is decided by the chunks that reach their
threshold; the lower cut only widens what may be cited). ``score``/``threshold`` of the decision
are those of the chunk with the largest margin over its threshold (the best chunk's, when every
chunk has the question's mode).
Coefficients and thresholds are fit offline by
``benchmarks/fit_sufficiency.py`` (scikit-learn, cross-validated on the dev
sets) and shipped in ``core/retrieval/sufficiency.json``; nothing is fit at run time.

Named things are checked first (``core.retrieval.question.named_terms``): a product, name, field
(``spec.burstPolicy``), acronym or version that the question names and the
knowledge base does not contain anywhere makes the decision ``no_evidence``
with the missing term named (「赤狐」), unless it is one side of a coordination
("A 和 B") whose other side is in the evidence: then the answer covers the rest
and the decision carries a note saying which part is not covered.

When no chunk reaches its threshold, a top-k chunk with a line that holds every word the question is about and
states the kind of value it asks for (a price, a time of day, a number in the asked unit, a bound) is evidence
(``core.retrieval.asked_detail.stating_lines``: "补胎多少钱？" over "补胎（内胎） | 25 元 | 20 分钟").

A question that asks for a default/threshold value itself ("默认…多少", "默认…端口范围") is
no_evidence when no evidence sentence gives a value next to its rarest terms
(``sufficiency_terms.default_value_missing``): a chunk that names the flag without its
default does not answer it.

All offsets here are code points; nothing here touches bytes.

The question-side signals (question type, named things, absence, specific details)
live in ``core.retrieval.sufficiency_terms``; this module holds the features, the model and the decision.

Why over 400 lines (about 500): one job, the decision (features per chunk, the model per chunk's mode, the checks
that refuse or narrow it); a third of the file is this account of it, which the code follows step by step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from core.clock import meets, stated_times
from core.lexical import LexicalIndex
from core.models import NOT_FOUND_MESSAGE
from core.retrieval.asked_detail import stating_lines
from core.retrieval.aspects import drawback_evidence, limits_wording
from core.retrieval.query import key_terms
from core.retrieval.question import analyse
from core.retrieval.scripts import in_other_script, in_own_script
from core.retrieval.sufficiency_model import (  # noqa: F401  (re-exported: the model is part of the decision's API)
    DEFAULT_MODEL,
    MODEL_FILE,
    ModeModel,
    SufficiencyModel,
    load_model,
)
from core.retrieval.sufficiency_terms import (  # noqa: F401  (re-exported: the decision's public names)
    SUBJECT_ABSENT_SHARE,
    SUBJECT_VALUES,
    about_another,
    absent_share,
    absent_subject,
    contains_term,
    coordinated,
    default_value_missing,
    detail_in,
    general_absent,
    general_coverage,
    general_salient,
    in_kb,
    kb_text,
    qualified_known,
    salient_share,
    type_match,
    unlisted_kind,
)

#: Once the best chunk reaches the threshold, chunks at or above this share of it are evidence too.
#: Measured on the k8s dev sets (decision evidence, top-k 5; docs/measurements.md "Closing the gaps"): k8s gold in
#: evidence 21 → 23 of 45 (English 7 → 8), no_evidence decisions unchanged; 0.9: 22; 0.8–0.4: 23.
EVIDENCE_SHARE = 0.8
#: A cross-script question that shares no word with any of the top-k chunks (an English question over
#: Chinese documents that have no English terms: the clinic's, a user's handbook) is scored by the chunks'
#: ranks alone, which do not tell the top-k apart; once it is answered, every top-k chunk is evidence and
#: the answer's sentences are chosen by their meaning (``core.generators.extractive``'s cosine fallback).
#: Measured on every dev set (docs/measurements.md, session 11): clinic English gold cited 40% → 100%,
#: clinic-single 0 → 1 of 1; k8s and tidb, whose English questions share identifiers with their chunks,
#: unchanged.
BLIND_EVIDENCE_SHARE = 0.0

# fmt: off
HYBRID_FEATURES = (
    "coverage", "salient", "absent", "dense", "bm25_rr", "dense_rr", "fused_rr", "type_match", "coverage_gap",
    "dense_gap", "cross_script", "detail",
)
# fmt: on
HYBRID2_FEATURES = HYBRID_FEATURES + ("dense2", "dense2_rr")
#: Size-invariant features (issue 26): term weights from general language, not the knowledge base.
GENERAL_FEATURES = ("g_coverage", "g_salient", "g_absent")
#: Every feature ``features_of`` computes (a mode's model reads its own subset by name).
FEATURES = HYBRID2_FEATURES + GENERAL_FEATURES
# fmt: off
KEYWORD_FEATURES = (
    "coverage", "salient", "absent", "bm25_rr", "fused_rr", "type_match", "coverage_gap", "cross_script", "detail",
)
# fmt: on

# ------------------------------------------------------------ candidates and decision


@dataclass(frozen=True)
class Candidate:
    """What the decision needs of one retrieved chunk.

    ``text`` is what the chunk says (heading path and text); ``coverage`` 0..1;
    ``dense`` the rescaled dense relevance 0..1 or None without a vector;
    ranks are 1-based (None: not in that ranking); ``dense2`` / ``dense2_rank`` the second
    embedder's rescaled relevance and rank (None outside mode ``hybrid2``).
    """

    chunk_id: str
    text: str
    coverage: float
    dense: float | None
    bm25_rank: int | None
    dense_rank: int | None
    fused_rank: int
    dense2: float | None = None
    dense2_rank: int | None = None
    document: str = ""  # the chunk's document (``Chunk.document_id``); "" when unknown
    heading: tuple[str, ...] = ()  # its section headings, below the document title
    #: the coverage of the question's own words when ``coverage`` was read on a gloss-expanded text (an English
    #: question's dictionary glosses: ``core.retrieval.english_glosses``); None when the same
    own_coverage: float | None = None


@dataclass(frozen=True)
class Decision:
    """The sufficiency decision for one question.

    ``sufficient`` False means no_evidence. ``score`` is the best chunk's
    probability (0..1), ``threshold`` the mode's, ``scores`` per chunk id,
    ``evidence_ids`` the chunks at or above ``EVIDENCE_SHARE`` × the threshold when the best
    chunk reaches it (best first).
    ``missing_terms`` are named things the knowledge base lacks; ``message`` is
    the user-facing (Chinese) no-evidence message; ``note`` the sentence about an
    uncovered part of an answered question; ``reasons`` short English phrases.
    """

    sufficient: bool
    score: float
    threshold: float
    mode: str
    scores: dict[str, float]
    evidence_ids: tuple[str, ...]
    reasons: tuple[str, ...] = ()
    missing_terms: tuple[str, ...] = ()
    message: str | None = None
    note: str | None = None
    features: dict[str, dict[str, float]] = field(default_factory=dict)
    #: chunk id -> the mode whose model scored it (``mode``, or a lower one for a chunk without a vector)
    chunk_modes: dict[str, str] = field(default_factory=dict)
    #: a cross-script question that shares no word with any top-k chunk (``BLIND_EVIDENCE_SHARE``)
    blind: bool = False

    def as_record(self) -> dict[str, Any]:
        """The JSON-able form stored in ``AnswerRecord.sufficiency``."""
        return {
            "decision": "sufficient" if self.sufficient else "no_evidence",
            "score": round(self.score, 4),
            "threshold": self.threshold,
            "mode": self.mode,
            "reasons": list(self.reasons),
            "missing_terms": list(self.missing_terms),
            "message": self.message,
            "note": self.note,
        }


def _question_kb_terms(question: str, lexical: LexicalIndex) -> list[str]:
    """The question's terms of 2+ code points that occur in the knowledge base, lower-case."""
    return [t.lower() for t in dict.fromkeys(analyse(question).terms) if len(t) >= 2 and lexical.df(t) > 0]


def _rr(rank: int | None) -> float:
    return 0.0 if rank is None else 1.0 / rank


def features_of(
    question: str,
    cand: Candidate,
    lexical: LexicalIndex,
    absent: float,
    *,
    hybrid: bool,
    mean_coverage: float = 0.0,
    mean_dense: float = 0.0,
    cross_script: bool = False,
    keys: Sequence[str] = (),
    hybrid2: bool = False,
    g_absent: float | None = None,
) -> dict[str, float]:
    """The ``FEATURES`` of one candidate (dense ones 0 unless ``hybrid``, the second embedder's
    0 unless ``hybrid2``, the ``GENERAL_FEATURES`` 0 unless ``g_absent`` is given: they cost a
    dictionary lookup per new term and only a model that reads them needs them); the means are over the top-k;
    ``keys`` the question's rarest knowledge-base terms (``key_terms``) for the ``detail`` feature."""
    tokens = lexical.tokens(cand.chunk_id)
    terms = None if tokens is None else frozenset(tokens)
    return {
        "coverage_gap": cand.coverage - mean_coverage,
        "dense_gap": ((cand.dense or 0.0) - mean_dense) if hybrid else 0.0,
        "coverage": cand.coverage,
        "salient": salient_share(question, lexical, terms),
        "absent": absent,
        "dense": (cand.dense or 0.0) if hybrid else 0.0,
        "bm25_rr": _rr(cand.bm25_rank),
        "dense_rr": _rr(cand.dense_rank) if hybrid else 0.0,
        "fused_rr": _rr(cand.fused_rank),
        "type_match": float(type_match(question, cand.text)),
        "cross_script": 1.0 if cross_script else 0.0,
        "detail": float(detail_in(question, cand.text, keys)),
        "dense2": (cand.dense2 or 0.0) if hybrid2 else 0.0,
        "dense2_rr": _rr(cand.dense2_rank) if hybrid2 else 0.0,
        "g_coverage": 0.0 if g_absent is None else general_coverage(question, terms),
        "g_salient": 0.0 if g_absent is None else general_salient(question, terms),
        "g_absent": g_absent or 0.0,
    }


def decide(
    question: str,
    candidates: Sequence[Candidate],
    lexical: LexicalIndex,
    *,
    kb_text: str,  # noqa: F811 - the argument shadows the helper this module re-exports for retrieval
    hybrid: bool,
    model: SufficiencyModel | None = None,
    cross_script: bool = False,
    threshold: float | None = None,
    hybrid2: bool = False,
    names_text: str | None = None,
    sections: Sequence[Candidate] = (),
    held: frozenset[str] = frozenset(),
) -> Decision:
    """Decide whether ``candidates`` (the top-k, best first) answer ``question``.

    ``kb_text`` is the whole knowledge base's text, lower-cased (for the named-thing
    check); ``hybrid`` whether every chunk has a vector of ``model.embedding_model``;
    ``cross_script`` whether the question is in another script than the knowledge base
    (``core.retrieval.query.QueryPlan.cross_script``: its ordinary words are not evidence of absence).
    ``threshold`` (0..1) replaces the mode's fitted threshold when given (a person's
    retrieval setting, or ``YINZHENG_EVIDENCE_THRESHOLD``); the decision's ``threshold``
    is the one applied. ``hybrid2`` (with ``hybrid``): the second embedder's ranking joined the
    fusion and its model is the one ``model.hybrid2`` was fit with (else the hybrid mode is used).
    A question for drawbacks is judged in its 限制 wording (``core.retrieval.aspects.limits_wording``); its
    evidence is then the limits retrieved from the deciding chunks' documents, or it is refused
    (``core.retrieval.aspects.drawback_evidence``).
    ``names_text`` (default ``question``): the text whose named things must be in the knowledge base,
    the person's own words when ``question`` is a follow-up with carried terms in front.
    ``sections``: limits sections of the knowledge base outside ``candidates`` (not scored) that a question
    for drawbacks may take as evidence (``core.retrieval.aspects.drawback_evidence``).
    ``held``: candidates judged after the top-k for the knowledge base's script
    (``core.retrieval.scripts.base_script_chunks``): the question's-script chunks' means leave them out, so that a
    chunk of an English page asked in English is scored among the top-k as without them.
    Never raises for an empty candidate list (that is no_evidence).
    """
    model = model or load_model()
    asked, question = question, limits_wording(question)  # "有什么缺点" is judged as "有什么限制"
    hybrid2 = hybrid and hybrid2 and model.hybrid2 is not None
    mode = "hybrid2" if hybrid2 else "hybrid" if hybrid else "keyword"
    models = {"hybrid2": model.hybrid2, "hybrid": model.hybrid, "keyword": model.keyword}
    absent = absent_share(question, lexical, cross_script=cross_script)
    reads_general = any(f in GENERAL_FEATURES for mm in models.values() if mm is not None for f in mm.features)
    g_absent = general_absent(question, lexical, cross_script=cross_script) if reads_general else None
    keys = key_terms(question, lexical)
    # a chunk written in the other script than the question (an English page in a Chinese knowledge base, asked
    # in Chinese) is scored as a cross-script question's chunks are: its words cannot match the question's, so
    # its gaps are taken among the chunks of its script
    # ... and a cross-script question's chunk written in its own script (an English page of a Chinese knowledge base,
    # asked in English) as a same-script question's: its words can match the question's
    if cross_script:
        other = {c.chunk_id for c in candidates if not in_own_script(asked, c.text)}
    else:
        other = {c.chunk_id for c in candidates if in_other_script(asked, c.text)}
    absent_other = absent_share(question, lexical, cross_script=True) if other else absent
    # a cross-script question over a base that has pages in its script too: the second model's meaning is read
    mixed = cross_script and len(other) < len(candidates)
    if mixed:
        absent = absent_share(question, lexical)
    # (the chunks in the question's script: the gaps over every chunk, as without any in the other script)
    means = {
        False: _means([c for c in candidates if c.chunk_id not in held]),
        True: _means([c for c in candidates if c.chunk_id in other]),
    }
    modes = {c.chunk_id: chunk_mode(mode, c, cross_script=c.chunk_id in other) for c in candidates}
    feats = {}
    for c in candidates:
        m = modes[c.chunk_id]
        f = features_of(
            question,
            c,
            lexical,
            absent_other if c.chunk_id in other else absent,
            hybrid=m != "keyword",
            mean_coverage=means[c.chunk_id in other][0],
            mean_dense=means[c.chunk_id in other][1],
            cross_script=c.chunk_id in other,
            keys=keys,
            hybrid2=m == "hybrid2",
            g_absent=g_absent,
        )
        if m == "keyword" and mode != "keyword":  # the keyword model was fit where fused rank = BM25 rank
            f["fused_rr"] = f["bm25_rr"]
        if c.chunk_id in other and m == "hybrid" and c.dense2 is not None and (not cross_script or mixed):
            # across scripts the cross-lingual second model's meaning stands in for the first's, as its rank
            # stood in for BM25's in the fusion (core.retrieval.hybrid.script_stand_in)
            f["dense"] = max(f["dense"], c.dense2)
            f["dense_rr"] = max(f["dense_rr"], _rr(c.dense2_rank))
        feats[c.chunk_id] = f
    scores = {cid: round(models[modes[cid]].probability(f), 4) for cid, f in feats.items()}  # type: ignore[union-attr]
    cuts = {cid: models[m].threshold if threshold is None else threshold for cid, m in modes.items()}  # type: ignore[union-attr]
    top = max(scores, key=lambda cid: scores[cid] - cuts[cid], default=None)
    best = 0.0 if top is None else scores[top]
    cut = cuts[top] if top is not None else models[mode].threshold if threshold is None else threshold  # type: ignore[union-attr]
    # the checks below read the chunks that reach their threshold; the evidence adds those near it
    # (every top-k chunk when nothing but their ranks tells them apart: BLIND_EVIDENCE_SHARE)
    blind = cross_script and all(c.coverage == 0 for c in candidates)
    # ... and so is it when only the dictionary's glosses of an English question's words are in them: they rank the
    # chunks, but a gloss of another sense ("bill" → 发票) must not narrow the evidence to its chunk
    own = [c.own_coverage for c in candidates if c.own_coverage is not None]
    wide = blind or (cross_script and bool(own) and all(v == 0 for v in own))
    share = BLIND_EVIDENCE_SHARE if wide else EVIDENCE_SHARE
    deciding = tuple(c.chunk_id for c in candidates if scores[c.chunk_id] >= cuts[c.chunk_id])
    evidence = (
        tuple(c.chunk_id for c in candidates if scores[c.chunk_id] >= share * cuts[c.chunk_id]) if deciding else ()
    )
    # no chunk reaches the cut, but a line of one states the asked value with every word the question is about ("补胎
    # 多少钱？" over "补胎（内胎） | 25 元 | 20 分钟": in a small shop's pages every top-k chunk names 补胎, so the row's
    # chunk stood out by nothing the model reads; ``core.retrieval.asked_detail.stating_lines``)
    stating: tuple[str, ...] = ()
    if not deciding and not cross_script:
        found = stating_lines(asked, [c.text for c in candidates])
        stating = deciding = evidence = tuple(candidates[i].chunk_id for i in found)
    reasons = [
        f"{mode} model: best chunk {best:.2f} vs threshold {cut:.2f}" + ("" if threshold is None else " (overridden)")
    ]
    if other and not cross_script:
        reasons.append(
            f"{len(other)} of {len(candidates)} chunks are in the other script than the question: scored as across"
            " scripts, by the second model's meaning" + (" (the best one among them)" if top in other else "")
        )
    if mixed:
        reasons.append(
            f"{len(candidates) - len(other)} of {len(candidates)} chunks are in the question's script: scored as a"
            " same-script question's" + ("" if top in other else " (the best one among them)")
        )
    lower = [c.chunk_id for c in candidates if chunk_mode(mode, c) != mode]  # for want of a vector
    if lower:
        reasons.append(
            f"{len(lower)} of {len(candidates)} chunks lack a vector: scored by the "
            + ", ".join(sorted({modes[cid] for cid in lower}))
            + " model"
            + (" (the best one among them)" if top in lower else "")
        )
    if stating:
        reasons.append("a line states the asked value with every topic word of the question: " + ", ".join(stating))
    if cross_script:
        reasons.append("cross-script question: its ordinary words are not evidence of absence")
    if absent > 0:
        reasons.append(f"{absent:.0%} of the question's term weight occurs nowhere in the knowledge base")

    if not analyse(asked).content_terms:  # "？？？", "a": nothing to look for (a follow-up carries its topic here)
        reasons.append("the question has no word to look for")
        message = "这个问题里没有可以检索的词语：请写出想问的对象或内容。"
        return Decision(False, best, cut, mode, scores, (), tuple(reasons), (), message, None, feats)
    names = analyse(limits_wording(names_text) if names_text else question).named
    missing = [t for t in names if not in_kb(kb_text, t) and not qualified_known(kb_text, t)]
    # ... and the noun a question opens with, when most of its weight is nowhere in the base ("游泳池几点开门？")
    # (not when a chunk is in the other script: an English page says 储物柜 as "locker"; and only for a question for a
    # value, whose value belongs to its subject: "灰度怎么做？" is answered by its meaning, 金丝雀部署)
    valued = analyse(asked).wants & SUBJECT_VALUES
    if not missing and valued and not cross_script and not other and absent >= SUBJECT_ABSENT_SHARE:
        missing = [subject] if (subject := absent_subject(asked, lexical)) else []
    evidence_text = "\n".join(c.text for c in candidates if c.chunk_id in deciding).lower()
    present = [t for t in names if t not in missing and contains_term(evidence_text, t)]
    note = message = None
    if missing:
        reasons.append("named but absent from the knowledge base: " + ", ".join(missing))
        partial = evidence and present and all(any(coordinated(question, m, p) for p in present) for m in missing)
        quoted = "、".join(f"「{t}」" for t in missing)
        if partial:
            note = f"知识库中没有关于{quoted}的内容，以下只回答问题的其余部分。"
        else:
            message = f"知识库中没有关于{quoted}的内容。"
            evidence = ()
    other = (
        about_another(asked, "\n".join(c.text for c in candidates if c.chunk_id in deciding), kb_text)
        if evidence and message is None and not cross_script
        else None
    )
    if other is not None:
        noun, others = other
        reasons.append(f"asks about {noun}, which the knowledge base has; the evidence names only " + ", ".join(others))
        message = f"检索到的内容只涉及{'、'.join(f'「{w}」' for w in others)}，没有关于「{noun}」的内容。"
        evidence = ()
    unlisted = unlisted_kind(asked, kb_text) if evidence and message is None and not cross_script else None
    if unlisted is not None:
        thing, rows = unlisted
        reasons.append(f"asks about {thing}, another of the kind the tables list: " + ", ".join(rows))
        message = f"知识库中没有关于「{thing}」的内容（文档列出的是{'、'.join(f'「{w}」' for w in rows)}）。"
        evidence = ()
    if (
        evidence
        and message is None
        and default_value_missing(
            question,
            [c.text for c in candidates if c.chunk_id in deciding],
            keys,
            _question_kb_terms(question, lexical),
        )
    ):
        reasons.append("asks for a default/threshold value that no evidence sentence gives")
        message = "知识库的相关内容没有给出这个问题所问的具体数值（默认值、阈值或范围）。"
        evidence = ()
    if message is None:
        # the subject is matched against headings: not across scripts (English words, Chinese headings)
        evidence, why, message = drawback_evidence(
            asked, [*candidates, *sections], deciding, evidence, () if cross_script else keys
        )
        reasons.extend([why] if why else [])
    times = analyse(asked).time_spans
    if evidence and times:
        # a question naming a time of day ("中午十二点多还能交钱吗？") is answered by the top-k chunk that states
        # hours including it ("午间 11:30–13:30 …"), which shares no word with it and so scores low
        at_time = [c.chunk_id for c in candidates if c.chunk_id not in evidence and meets(times, stated_times(c.text))]
        if at_time:
            evidence = (*evidence, *at_time)
            reasons.append("states hours that include the time the question names: " + ", ".join(at_time))
    sufficient = bool(evidence)
    if not sufficient and message is None:
        message = NOT_FOUND_MESSAGE
    return Decision(
        sufficient=sufficient,
        score=best,
        threshold=cut,
        mode=mode,
        scores=scores,
        evidence_ids=evidence,
        reasons=tuple(reasons),
        missing_terms=tuple(missing),
        message=message,
        note=note,
        features=feats,
        chunk_modes=modes,
        blind=blind and sufficient,
    )


def _means(members: Sequence[Candidate]) -> tuple[float, float]:
    """The mean coverage of ``members`` and the mean dense relevance of those with one (0.0 when none has)."""
    with_dense = [c.dense for c in members if c.dense is not None]
    return (
        sum(c.coverage for c in members) / max(1, len(members)),
        sum(with_dense) / len(with_dense) if with_dense else 0.0,
    )


def chunk_mode(mode: str, cand: Candidate, *, cross_script: bool = False) -> str:
    """The mode whose model scores ``cand`` in a question of ``mode``: the question's, lowered
    to what the chunk has (no dense score: ``keyword``; no second model's score: ``hybrid``) and to
    ``hybrid`` for a chunk in the other script than the question (``cross_script``: the model whose
    cross-script feature was fit, as a cross-script question stays in ``hybrid``)."""
    if mode == "keyword" or cand.dense is None:
        return "keyword"
    if mode == "hybrid2" and (cand.dense2 is None or cross_script):
        return "hybrid"
    return mode
