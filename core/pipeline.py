"""The one orchestration function: question → retrieve → (no_evidence? stop) →
generate → ground → record.

``Engine`` holds what is loaded once per process (settings, embedder, index,
record store); ``ask`` is the same code path for the UI, the command line and
the evaluation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator, Sequence

from core import grounding
from core.config import Settings, load_settings
from core.embeddings import Embedder, make_embedder
from core.errors import AppError, GenerationError
from core.generators.base import Generator
from core.generators.extractive import ExtractiveGenerator
from core.index import KnowledgeIndex
from core.links import recommended_links
from core.models import (
    AnswerRecord, AuditEntry, Candidate, ChunkSnapshot, Draft, GeneratorInfo, SufficiencyInfo, Support,
)
from core.records import RecordStore
from core.retrieval import HybridRetriever, RetrievalResult


MAX_QUESTION_CHARS = 2000  # code points; longer input is refused, not embedded


@dataclass
class Engine:
    settings: Settings
    embedder: Embedder
    index: KnowledgeIndex
    records: RecordStore
    generators: dict[str, Generator] = field(default_factory=dict)

    @classmethod
    def open(cls, settings: Settings | None = None, embedder: Embedder | None = None) -> "Engine":
        """Load settings, the embedding model, the index and the record store once."""
        settings = settings or load_settings()
        embedder = embedder or make_embedder(settings.embedding)
        index = KnowledgeIndex(settings, embedder)
        records = RecordStore(settings.records_path)
        return cls(settings, embedder, index, records, {"extractive": ExtractiveGenerator()})

    def retriever(self, top_k: int | None = None, evidence_threshold: float | None = None) -> HybridRetriever:
        return HybridRetriever(
            self.index,
            top_k=top_k or self.settings.top_k,
            evidence_threshold=self.settings.evidence_threshold if evidence_threshold is None else evidence_threshold,
        )

    def generator(self, name: str | None = None) -> Generator:
        name = name or self.settings.generator
        if name not in self.generators:
            if name.startswith("gemini"):
                from core.generators.gemini import make_gemini_generator  # noqa: PLC0415

                self.generators[name] = make_gemini_generator(name, self.settings)
            else:
                raise GenerationError(f"unknown generator {name!r}")
        return self.generators[name]

    def ask(
        self,
        question: str,
        *,
        generator: str | Generator | None = None,
        conversation_id: str | None = None,
        history: Sequence[str | tuple[str, str]] = (),
        on_text: Callable[[str], None] | None = None,
        save: bool = True,
    ) -> AnswerRecord:
        """Answer ``question``; always returns a stored record (also for no_evidence and errors).
        ``history``: earlier turns, oldest first (see ``ask``)."""
        return ask(
            question,
            retriever=self.retriever(),
            generator=generator if isinstance(generator, Generator) else self._safe_generator(generator),
            records=self.records if save else None,
            settings=self.settings,
            conversation_id=conversation_id,
            history=history,
            on_text=on_text,
        )

    def _safe_generator(self, name: str | None) -> Generator | AppError:
        try:
            return self.generator(name)
        except AppError as exc:
            return exc


def _apply_display_threshold(
    supports: Sequence[Support], snapshots: Sequence[ChunkSnapshot], threshold: float, accepted: frozenset[str] = frozenset()
) -> tuple[tuple[Support, ...], tuple[AuditEntry, ...]]:
    """Drop citations of chunks whose relevance is below ``threshold``, except the chunks in
    ``accepted`` (those the sufficiency decision admitted as evidence: the calibrated decision,
    not the relevance estimate, says whether they answer)."""
    relevance = {s.chunk_id: (1.0 if s.chunk_id in accepted else s.relevance) for s in snapshots}
    kept: list[Support] = []
    audit: list[AuditEntry] = []
    for i, sup in enumerate(supports):
        ok = tuple(c for c in sup.chunk_ids if relevance.get(c, 1.0) >= threshold)
        for c in sup.chunk_ids:
            if c not in ok:
                audit.append(
                    AuditEntry(
                        support_index=i,
                        action="dropped" if not ok else "repaired",
                        reason=f"chunk {c} is below the display threshold {threshold}",
                        detail={"chunk_id": c, "relevance": relevance.get(c)},
                    )
                )
        if ok:
            kept.append(sup.model_copy(update={"chunk_ids": ok}))
    return tuple(kept), tuple(audit)


def ask(
    question: str,
    *,
    retriever: HybridRetriever,
    generator: Generator | AppError,
    records: RecordStore | None,
    settings: Settings,
    conversation_id: str | None = None,
    history: Sequence[str | tuple[str, str]] = (),
    on_text: Callable[[str], None] | None = None,
) -> AnswerRecord:
    """Run the whole pipeline for one question and store the record.

    ``history`` is the conversation so far, oldest first: each turn an earlier
    user question (``str``) or a ``(question, answer)`` pair. The retriever
    gets the questions (``history=``), the generator the pairs (an answer of
    ``""`` when only the question is known).

    Never raises an ``AppError``: failures become a record with status
    ``error`` that keeps the question and the retrieved evidence.
    """
    turns = tuple((h, "") if isinstance(h, str) else (h[0], h[1]) for h in history)
    gen_info = generator.info if isinstance(generator, Generator) else GeneratorInfo(name="unavailable")
    links = recommended_links(question, settings.links_file)
    base = dict(query=question, conversation_id=conversation_id, generator=gen_info, recommended_links=links)
    if len(question) > MAX_QUESTION_CHARS:
        error = f"问题太长（{len(question)} 个字符）：请缩短到 {MAX_QUESTION_CHARS} 个字符以内。"
        return _finish(records, AnswerRecord(status="error", error=error, **base))
    if isinstance(generator, Generator) and generator.own_retrieval:
        evidence: tuple = ()
        snapshots: tuple[ChunkSnapshot, ...] = ()
        base["retrieval"] = {"retrieval": f"by the generator ({generator.name})"}
    else:
        try:
            retrieval: RetrievalResult = retriever.retrieve(question, history=tuple(q for q, _ in turns))
        except AppError as exc:
            return _finish(records, AnswerRecord(status="error", error=str(exc), **base))
        evidence = retrieval.evidence
        snapshots = tuple(ChunkSnapshot.from_retrieved(rc) for rc in evidence)
        base["retrieval"] = dict(retrieval.config, display_threshold=settings.display_threshold)
        if retrieval.decision is not None:
            base["sufficiency"] = SufficiencyInfo(**retrieval.decision.as_record())
        if retrieval.no_evidence:
            return _finish(records, AnswerRecord(status="no_evidence", candidates=_candidates(retrieval), **base))
    if not isinstance(generator, Generator):
        return _finish(records, AnswerRecord(status="error", error=str(generator), chunks=snapshots, **base))
    try:
        draft: Draft | None = None
        for piece in generator.stream(question, evidence, turns):
            if isinstance(piece, Draft):
                draft = piece
            elif on_text is not None:
                on_text(piece)
        if draft is None:
            raise GenerationError("the generator ended without an answer")
    except AppError as exc:
        return _finish(records, AnswerRecord(status="error", error=str(exc), chunks=snapshots, **base))
    except Exception as exc:  # a bug in a generator must not lose the question
        return _finish(
            records,
            AnswerRecord(status="error", error=f"the generator failed unexpectedly: {exc}", chunks=snapshots, **base),
        )
    snapshots = snapshots + tuple(
        ChunkSnapshot.from_retrieved(rc) for rc in draft.extra_chunks if rc.chunk_id not in {s.chunk_id for s in snapshots}
    )
    base["generator"] = draft.generator
    if draft.status == "blocked":
        return _finish(
            records,
            AnswerRecord(status="blocked", error=draft.message, answer_text=draft.text, chunks=snapshots, **base),
        )
    grounded = grounding.ground(draft, [s.chunk_id for s in snapshots])
    accepted = frozenset(rc.chunk_id for rc in evidence)
    supports, dropped = _apply_display_threshold(grounded.supports, snapshots, settings.display_threshold, accepted)
    status = grounding.answer_status(supports)
    return _finish(
        records,
        AnswerRecord(
            status=status,
            answer_text=grounded.answer_text,
            chunks=snapshots,
            supports=supports,
            audit=grounded.audit + dropped,
            **base,
        ),
    )


def _candidates(retrieval: RetrievalResult) -> tuple[Candidate, ...]:
    """The retrieved chunks of a no_evidence result with their sufficiency scores (none cited)."""
    scores = retrieval.decision.scores if retrieval.decision is not None else {}
    return tuple(
        Candidate(chunk=ChunkSnapshot.from_retrieved(rc), score=scores.get(rc.chunk_id, 0.0)) for rc in retrieval.chunks
    )


def _finish(records: RecordStore | None, record: AnswerRecord) -> AnswerRecord:
    if records is not None:
        records.save(record)
    return record


