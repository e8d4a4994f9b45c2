"""The evaluation run: index the documents, ask every question through
``core.engine.ask``, and hand the per-question rows to ``core.evaluation.report``."""

from __future__ import annotations

import logging
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from core.errors import AppError
from core.evaluation import metrics
from core.evaluation.questions import EvalQuestion, load_questions
from core.evaluation.report import summarize
from core.ingest.progress import progress_printer
from core.models import AnswerRecord
from core.retrieval.hybrid import HybridRetriever, RetrievalResult
from core.retrieval.query import ResolvedQuery

log = logging.getLogger(__name__)


class RecordingRetriever(HybridRetriever):
    """A ``HybridRetriever`` that also ranks down to ``depth`` >= ``top_k`` (for the
    retrieval metrics) and keeps its last result in ``last``; what it hands the
    pipeline is exactly what a plain ``HybridRetriever(top_k)`` returns (the
    fused order, relevance and the sufficiency decision over the first
    ``top_k`` do not depend on the depth)."""

    def __init__(
        self,
        index: Any,
        *,
        top_k: int,
        evidence_threshold: float,
        use_dense: bool,
        depth: int,
        knowledge_bases: Sequence[str] | None = None,
    ) -> None:
        super().__init__(
            index,
            top_k=top_k,
            evidence_threshold=evidence_threshold,
            use_dense=use_dense,
            depth=depth,
            knowledge_bases=knowledge_bases,
        )
        self.visible_top_k = top_k
        self.last: RetrievalResult | None = None

    def retrieve(self, question: str | ResolvedQuery) -> RetrievalResult:
        self.last = None
        self.last = super().retrieve(question)
        return self.last


def _progress(label: str, stream=None) -> Callable[..., None]:
    return progress_printer(label, stream, every_s=1.0)


def conversation_turns(
    history: Sequence[str], retriever: Any, generator: Any, settings: Any
) -> tuple[tuple[str, str], ...]:
    """The earlier turns of a follow-up as the chat holds them: each earlier question asked in order (with the turns
    before it) and its answer, as ``(question, answer)`` pairs (``core.engine.ask``'s ``history``). The chat passes
    the stored answers (``core.records.store.conversation_history``), so a follow-up is measured as it is asked:
    query resolution reads a which-question's answer, the extractive answer does not lead with what was just said.
    Untimed (the latency figure is the follow-up's own)."""
    from core.engine import ask

    turns: list[tuple[str, str]] = []
    for asked in history:
        record = ask(
            asked, retriever=retriever, generator=generator, records=None, settings=settings, history=tuple(turns)
        )
        turns.append((asked, record.answer_text or ""))
    return tuple(turns)


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
    knowledge_base: str = "default",
) -> dict[str, Any]:
    """Index ``docs``, ask every question, and return the report (a JSON-able dict).

    Unset options come from ``core.config.load_settings()`` (the UI's
    configuration). ``embedder`` overrides ``embedding`` with a ready instance
    (tests). A follow-up is asked after its earlier questions, with their answers (``conversation_turns``);
    ``use_history=False`` asks follow-ups without their conversation.
    ``knowledge_base``: ``docs`` go into it (created when missing) and only it is searched.
    Report keys: ``config``, ``counts``, ``retrieval``, ``answer``,
    ``citations``, ``abstention``, ``latency_ms``, ``by_kind``, ``goals``,
    ``questions`` (per question).
    Shares are fractions 0..1 (None when nothing to count); latency in ms.
    """
    from core.config import load_settings
    from core.engine import Engine, ask
    from core.ingest.run import ingest
    from core.records.store import RecordStore
    from core.store.embedding_worker import fill_cache
    from core.store.embeddings import make_embedder, make_second_embedder
    from core.store.index import KnowledgeIndex

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
        second = make_second_embedder(settings.second_embedding, settings.embedding) if use_dense else None
        index = KnowledgeIndex(settings, embedder, second_embedder=second)
        if index.knowledge_bases.get(knowledge_base) is None:
            index.knowledge_bases.create(knowledge_base)
        report = ingest(
            index,
            [Path(d) for d in docs],
            progress=_progress("parse") if progress else None,
            embed=use_dense,
            embed_progress=_progress("embed") if progress else None,
            remove_missing=True,
            knowledge_base=knowledge_base,
        )
        if report.failures:
            for f in report.failures:
                print(f"warning: {f.reason}", file=sys.stderr)
        if second is not None:  # what the app's background process does after the primary vectors
            fill_cache(index.catalog, second)
        engine = Engine(settings, embedder, index, RecordStore(settings.data_dir / "eval-records.sqlite3"))
        from core.generators.extractive import ExtractiveGenerator

        engine.generators.setdefault("extractive", ExtractiveGenerator())
        gen: Any
        try:
            gen = engine.generator(settings.generator)
        except AppError as exc:  # becomes an error record per question, as in the UI
            log.warning(
                "generator %r unavailable; every question gets an error record", settings.generator, exc_info=True
            )
            gen = exc
        depth = max(metrics.RECALL_KS)
        retriever = RecordingRetriever(
            index,
            top_k=settings.top_k,
            evidence_threshold=settings.evidence_threshold,
            use_dense=use_dense,
            depth=depth,
            knowledge_bases=(knowledge_base,),
        )
        show = _progress("eval") if progress else None
        rows: list[dict[str, Any]] = []
        records: list[AnswerRecord] = []
        if questions:  # warm-up (untimed): loads the query encoder and jieba's dictionary
            ask(questions[0].question, retriever=retriever, generator=gen, records=None, settings=settings)
        for n, q in enumerate(questions, start=1):
            turns = conversation_turns(q.history if use_history else (), retriever, gen, settings)
            t0 = time.perf_counter()
            record = ask(q.question, retriever=retriever, generator=gen, records=None, settings=settings, history=turns)
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
            "knowledge_base": knowledge_base,
            "documents": len(index.documents(knowledge_base)),
            "chunks": len(index.serving((knowledge_base,))[0]),
            "embedding_model": embedder.name if use_dense else None,
            "dense": use_dense,
            "dense_coverage": f"{embedded}/{total}" if use_dense else "off",
            "second_embedding_model": None if second is None else second.name,
            "second_coverage": None if index.second_coverage() is None else "/".join(map(str, index.second_coverage())),
            "tokenization": "jieba search mode (jieba-rs) + stopwords",
            "fusion": "rrf(k=60)" if use_dense else "bm25 only",
            "top_k": settings.top_k,
            "evidence_threshold": "fitted per mode"
            if settings.evidence_threshold is None
            else settings.evidence_threshold,
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
    cites = metrics.citation_counts(record, golds)
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
    # the answer says the documents do not state the asked detail (core.generators.question_types.unstated)
    row["not_stated"] = any(e.detail.get("kind") == "not_stated" for e in record.audit)
    if record.sufficiency is not None:
        row["sufficiency"] = record.sufficiency.score
        row["mode"] = record.sufficiency.mode
        row["missing_terms"] = list(record.sufficiency.missing_terms)
    if q.answerable:
        ranked = [rc.chunk for rc in deep[: max(metrics.RECALL_KS)]]
        row["gold_rank"] = next(
            (n for n, c in enumerate(ranked, start=1) if metrics.gold_in_chunks(q, [c], require_all=False)), None
        )
        row["gold_in_evidence"] = any(metrics.contains_gold(c.text, golds) for c in record.chunks)
        cited = metrics.cited_chunks(record)
        row["gold_in_cited"] = metrics.gold_in_chunks(q, cited)
        row["gold_in_cited_any"] = metrics.gold_in_chunks(q, cited, require_all=False)
        row["contains_gold"] = metrics.answer_contains_gold(record.answer_text, golds)
        row["contains_all_gold"] = metrics.answer_contains_all_gold(record.answer_text, golds)
        row["first_contains_gold"] = metrics.answer_contains_gold(metrics.first_sentence(record.answer_text), golds)
        row["f1"] = round(metrics.f1_score(record.answer_text, golds), 4) if record.answer_text else 0.0
    return row
