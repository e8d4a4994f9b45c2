"""The one orchestration function: question → retrieve → (no_evidence? stop) →
generate → ground → verify → record.

``Engine`` holds what is loaded once per process (settings, embedder, index,
record store); ``ask`` is the same code path for the UI, the command line and
the evaluation.

Why over 400 lines: ``_Turn`` is one question's state machine, and the steps that must
run inside it stay with it: redaction before storage (issue 16) between retrieval and the
generator (``hide``, ``hide_chunk``), the per-step timings (issue 18, ``lap``) and the
interrupted-turn record. Moving the redaction hooks into ``core.records.redaction`` would leave
them reaching back into ``_Turn``'s state; that split is the next step if it grows.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from core import textsafe
from core.config import Settings, load_settings, secrets_section
from core.controls import without_invisible
from core.engine_views import EngineViews
from core.errors import AppError, GenerationError, RecordError, UnsavedRecordError
from core.generators import registry
from core.generators.base import Generator
from core.generators.extractive import ExtractiveGenerator
from core.grounding import supports as grounding
from core.ingest.corpus_profile import CorpusProfile, profiles_of
from core.models import (  # MAX_QUESTION_CHARS: here, so the chat shows its input before this module loads
    MAX_QUESTION_CHARS,
    AnswerRecord,
    AuditEntry,
    Candidate,
    ChunkSnapshot,
    Draft,
    GeneratorInfo,
    RetrievedChunk,
    SufficiencyInfo,
    Support,
)
from core.records.access import AccessConfig, User
from core.records.links import links_for_record
from core.records.redaction import Redactor, redaction_audit
from core.records.store import RecordStore
from core.retrieval.hybrid import HybridRetriever, RetrievalOptions, RetrievalResult
from core.retrieval.query import ResolvedQuery
from core.store.embeddings import Embedder, make_embedder, make_second_embedder
from core.store.index import KnowledgeIndex
from core.store.priority import question_in_flight
from core.store.sentence_vectors import SentenceSimilarity
from core.verification.support import verify_record

log = logging.getLogger(__name__)


@dataclass
class Engine(EngineViews):
    settings: Settings
    embedder: Embedder
    index: KnowledgeIndex
    records: RecordStore
    generators: dict[str, Generator] = field(default_factory=dict)
    #: a fixed redactor for every question (tests, tools); None: :attr:`access` decides per question
    redactor: Redactor | None = None
    #: administrators and per-knowledge-base policies (``[yinzheng]`` in the secrets file)
    access: AccessConfig | None = None
    #: who asks (``components.auth.scoped``, ``--user``); None: local mode, every knowledge base
    user: User | None = None

    @classmethod
    def open(cls, settings: Settings | None = None, embedder: Embedder | None = None) -> "Engine":
        """Load settings, the embedding model (and the second one, ``YINZHENG_SECOND_EMBEDDING``,
        loaded on its first use), the index and the record store once; the
        per-knowledge-base policies (access, redaction) come from ``[yinzheng]`` in the
        secrets file (``core.records.access``), so the command line stores what the app would."""
        settings = settings or load_settings()
        access = AccessConfig.from_mapping(secrets_section("yinzheng"))
        embedder = embedder or make_embedder(settings.embedding)
        second = make_second_embedder(settings.second_embedding, settings.embedding)
        index = KnowledgeIndex(settings, embedder, second_embedder=second)
        records = RecordStore(settings.records_location)
        return cls(settings, embedder, index, records, {"extractive": ExtractiveGenerator()}, access=access)

    def retriever(
        self,
        top_k: int | None = None,
        evidence_threshold: float | None = None,
        options: RetrievalOptions | None = None,
        knowledge_bases: Sequence[str] | None = None,
    ) -> HybridRetriever:
        """A retriever with the settings, overridden by a person's ``options`` (``RetrievalOptions``),
        over :meth:`searchable` of ``knowledge_bases``: the selection the :attr:`user` may ask,
        so BM25 and dense rank only those knowledge bases' chunks (a full top-k of them, however
        well another base's chunks would match). ``KnowledgeBaseError`` for an unknown or hidden one."""
        options = options or RetrievalOptions()
        return HybridRetriever(
            self.index,
            top_k=options.top_k or top_k or self.settings.top_k,
            evidence_threshold=self.settings.evidence_threshold if evidence_threshold is None else evidence_threshold,
            sufficiency_threshold=options.evidence_threshold,
            documents=options.documents,
            knowledge_bases=self.searchable(knowledge_bases),
        )

    def searchable(self, knowledge_bases: Sequence[str] | None = None) -> tuple[str, ...]:
        """The knowledge bases a question over ``knowledge_bases`` searches: the selection
        resolved (None or empty: ``default``; ``KnowledgeBaseError`` for an unknown or hidden
        one, ``KnowledgeBaseStore.resolve``) and intersected with the ones :attr:`user` may ask
        under :attr:`access` (``AccessConfig.askable``). May be empty: nothing is searched and
        the answer is no_evidence."""
        return self.may_read(self.index.knowledge_bases.resolve(knowledge_bases))

    def may_read(self, knowledge_bases: Iterable[str]) -> tuple[str, ...]:
        """The ones of ``knowledge_bases`` (names, hidden ones too, order kept) that :attr:`user`
        may ask now under :attr:`access`: the access half of :meth:`searchable`, and what every
        page shows of the live index (``core.readable``). All of them without :attr:`access`."""
        names = tuple(knowledge_bases)
        return names if self.access is None else self.access.askable(self.user, names)

    def profiles(self, knowledge_bases: Sequence[str] | None = None) -> tuple[CorpusProfile, ...]:
        """The corpus profiles (``core.ingest.corpus_profile``) of :meth:`searchable` of ``knowledge_bases``:
        what the pages show of the collections the user may ask (attribution, the 核查 example)."""
        store = self.index.knowledge_bases
        return profiles_of(kb for kb in map(store.get, self.searchable(knowledge_bases)) if kb)

    def redactor_for(self, knowledge_bases: Sequence[str]) -> Redactor | None:
        """The redaction of a question over ``knowledge_bases`` (resolved names): the fixed
        :attr:`redactor`, else the rules of every one of them whose policy redacts
        (``AccessConfig.redactor``), else None."""
        if self.redactor is not None:
            return self.redactor
        return self.access.redactor(knowledge_bases) if self.access is not None else None

    def generator(self, name: str | None = None) -> Generator:
        name = name or self.settings.generator
        if name not in self.generators:
            if name not in registry.NAMES:
                raise GenerationError(f"unknown generator {name!r}; use one of {', '.join(registry.NAMES)}")
            self.generators[name] = registry.build(name, self.settings)  # its entry's factory
        return self.equip(self.generators[name])

    def equip(self, generator: Generator) -> Generator:
        """``generator`` with the engine's sentence similarity (``Generator.sentence_similarity``:
        the second embedder's, ``core.store.sentence_vectors``) unless it has one or the engine has
        none (no second embedder); returns it."""
        if generator.sentence_similarity is None and self.index.second is not None:
            generator.sentence_similarity = SentenceSimilarity(self.index.second.embedder)
        return generator

    def ask(
        self,
        question: str,
        *,
        generator: str | Generator | None = None,
        conversation_id: str | None = None,
        history: Sequence[str | tuple[str, str]] = (),
        on_text: Callable[[str], None] | None = None,
        save: bool = True,
        options: RetrievalOptions | None = None,
        regenerated_from: str | None = None,
        knowledge_bases: Sequence[str] | None = None,
        timings: dict[str, float] | None = None,
    ) -> AnswerRecord:
        """Answer ``question``; always returns a stored record (also for no_evidence and errors).

        ``history``: earlier turns of the conversation, oldest first (see ``ask``).
        ``options``: a person's retrieval settings (recorded in ``record.retrieval``).
        ``regenerated_from``: the ``answer_id`` this answer regenerates (that record is kept).
        ``knowledge_bases``: the names selected (None or empty: ``default``); the question
        searches those :attr:`user` may ask (:meth:`searchable`) and the record names them.
        Raises ``KnowledgeBaseError`` (before anything is stored) for an unknown or hidden
        one. ``timings``: see ``ask``."""
        retriever = self.retriever(options=options, knowledge_bases=knowledge_bases)
        return ask(
            question,
            retriever=retriever,
            generator=self.equip(generator) if isinstance(generator, Generator) else self._safe_generator(generator),
            records=self.records if save else None,
            settings=self.settings,
            conversation_id=conversation_id,
            history=history,
            on_text=on_text,
            regenerated_from=regenerated_from,
            redactor=self.redactor_for(retriever.knowledge_bases or ()),
            timings=timings,
        )

    def _safe_generator(self, name: str | None) -> Generator | AppError:
        try:
            return self.generator(name)
        except AppError as exc:
            return exc


def _apply_display_threshold(
    supports: Sequence[Support],
    snapshots: Sequence[ChunkSnapshot],
    threshold: float,
    accepted: frozenset[str] = frozenset(),
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
    regenerated_from: str | None = None,
    redactor: Redactor | None = None,
    timings: dict[str, float] | None = None,
) -> AnswerRecord:
    """Run the whole pipeline for one question and store the record.

    ``redactor`` (``core.records.redaction``): when given, the stored question, the retrieval
    query and every chunk snapshot are redacted, and the generator sees only that
    redacted text, so grounding, verification and citations are computed on the text
    as stored (code points into it) and no raw value reaches a hosted model; an audit
    entry (``detail.kind == "redaction"``) names the rules. Retrieval still searches
    with the raw question (it never leaves the process).

    ``history`` holds the earlier turns of the conversation, oldest first: each an
    earlier user question (``str``) or a ``(question, answer)`` pair (answer ``""``
    when it had none), e.g. ``core.records.store.conversation_history``. Retrieval searches
    for the question resolved against the earlier questions (``core.retrieval.query``); when
    that differs from the question, it is stored as ``record.retrieval_query``. A
    generator with ``uses_history`` gets the question and the turns; one without
    (the extractive one) gets the resolved query.

    Every input ends as a stored record:

    * never raises an ``AppError`` (only ``UnsavedRecordError``, a ``RecordError``
      carrying the finished record, when the store itself fails): failures become
      a record with status ``error`` that keeps the question and the retrieved evidence;
    * a lone surrogate (an undecodable byte, half an emoji) in the question or
      in anything the generator returned is replaced by U+FFFD and audited
      (``core.textsafe``), so the record can always be stored;
    * an interruption while answering (a ``BaseException`` that is not an
      ``Exception``: Streamlit's stop/rerun, ``KeyboardInterrupt``) stores the
      turn with status ``interrupted``, the text streamed so far and an audit
      entry, then re-raises the interruption unchanged.

    ``on_text`` receives each streamed text piece (surrogates already replaced).
    ``regenerated_from``: the ``answer_id`` of the answer this one regenerates, stored in
    the record (the earlier record is kept unchanged).
    ``timings``, when given, is filled with the seconds (``time.perf_counter``) each
    step took: ``retrieve``, ``generate``, ``ground``, ``verify``, ``record`` (steps
    that did not run are absent) and ``total``; the same split is logged at DEBUG.
    While the call runs, the question is marked in flight on ``settings.data_dir``
    (``core.store.priority.question_in_flight``): background embedding steps aside.
    """
    turn = _Turn(records, settings, conversation_id, redactor)
    turn.base["regenerated_from"] = regenerated_from
    start = time.perf_counter()
    try:
        with question_in_flight(settings.data_dir):
            return turn.run(question, retriever, generator, history, on_text)
    except BaseException as exc:
        if isinstance(exc, Exception) or turn.saved:
            raise
        turn.save_interrupted(exc)
        raise
    finally:
        turn.timings["total"] = time.perf_counter() - start
        log.debug("ask timings (s): %s", turn.timings)
        if timings is not None:
            timings.update(turn.timings)


def generator_uses_history(generator: Generator | AppError) -> bool:
    """Whether the generator reads the conversation itself (an LLM) rather than the resolved query."""
    return isinstance(generator, Generator) and generator.uses_history


def own_retrieval_refusal(generator: Generator, retriever: object) -> str | None:
    """Why ``generator`` (``own_retrieval``) may not answer a question over ``retriever``'s
    knowledge bases (a user-facing Chinese message), or None when it may.

    A generator that searches our documents in its own index (``reads_knowledge_bases``:
    Gemini File Search) cannot be limited to a selection or to what the asker may see, so
    it answers only when the question searches every knowledge base of the catalog, hidden
    ones included (``retriever.knowledge_bases`` None, or a superset of them); otherwise it
    is refused before any call. One whose own retrieval is the public web is never refused."""
    if not generator.reads_knowledge_bases:
        return None
    searched = getattr(retriever, "knowledge_bases", None)
    if searched is None:
        return None
    index = getattr(retriever, "index", None)
    every = {kb.name for kb in index.knowledge_bases.list(include_hidden=True)} if index is not None else None
    if every is not None and every <= set(searched):
        return None
    scope = "、".join(searched) if searched else "（无）"
    return (
        f"生成器 {generator.name} 在自己的检索库（Gemini File Search 存储）中查找资料，无法限定到本次可检索的知识库"
        f"（{scope}），可能引用其他知识库的内容，因此没有调用它。请换用其他生成器（例如 gemini 或 extractive），"
        "或在可以检索全部知识库时再使用它。"
    )


INTERRUPTED_REASON = "回答在生成过程中被中断（页面停止、重新运行或用户中止）；保存的是中断前已显示的部分，未经核对。"


def searched_profiles(retriever: object) -> tuple[CorpusProfile, ...]:
    """The corpus profiles of the knowledge bases ``retriever`` searches (``core.ingest.corpus_profile``);
    () for a retriever without an index (test doubles)."""
    store = getattr(getattr(retriever, "index", None), "knowledge_bases", None)
    if store is None:
        return ()
    return profiles_of(kb for kb in map(store.get, getattr(retriever, "knowledge_bases", None) or ()) if kb)


class _Turn:
    """The state of one ``ask`` call: what has been retrieved and streamed, and
    whether the record was stored (so an interruption stores it exactly once)."""

    def __init__(
        self,
        records: RecordStore | None,
        settings: Settings,
        conversation_id: str | None,
        redactor: Redactor | None = None,
    ) -> None:
        self.records = records
        self.redactor = redactor
        self.redacted: dict[str, None] = {}  # the rules that fired, in order
        self.settings = settings
        self.base: dict = dict(query="", conversation_id=conversation_id, generator=GeneratorInfo(name="unavailable"))
        self.notes: list[AuditEntry] = []
        self.profiles: tuple[CorpusProfile, ...] = ()  # of the knowledge bases searched: their links
        self.snapshots: tuple[ChunkSnapshot, ...] = ()
        self.streamed: list[str] = []
        self.pending: AnswerRecord | None = None
        self.saved = False
        self.timings: dict[str, float] = {}
        self._mark = time.perf_counter()

    def lap(self, step: str) -> None:
        """Record the seconds since the previous lap as ``step``."""
        now = time.perf_counter()
        self.timings[step] = now - self._mark
        self._mark = now

    def hide(self, text: str) -> str:
        """``text`` as stored: redacted when a redactor is set (code points of the result)."""
        if self.redactor is None:
            return text
        red = self.redactor.redact(text)
        self.redacted.update(dict.fromkeys(red.rules))
        return red.text

    def hide_chunk(self, rc: RetrievedChunk) -> RetrievedChunk:
        """``rc`` with its text and heading path as stored (see :meth:`hide`), without PDF page
        positions and stored-file hash (the page image is not redacted)."""
        if self.redactor is None:
            return rc
        # a PDF page image would show what redaction hides: a redacted snapshot keeps no page place
        meta = {k: v for k, v in rc.chunk.metadata.items() if k != "file_sha256"}
        chunk = rc.chunk.model_copy(
            update={
                "text": self.hide(rc.chunk.text),
                "heading_path": tuple(self.hide(h) for h in rc.chunk.heading_path),
                "positions": None,
                "metadata": meta,
            }
        )
        return rc.model_copy(update={"chunk": chunk})

    def finish(self, record: AnswerRecord) -> AnswerRecord:
        # recommended links relate to the finished answer (its status and cited sources): core.records.links
        record = record.model_copy(update={"recommended_links": links_for_record(record, self.profiles)})
        if self.redactor is not None:
            self.notes.append(redaction_audit(self.redactor, self.redacted))
        if self.notes:
            record = record.model_copy(update={"audit": (*self.notes, *record.audit)})
        record = textsafe.scrub_record(record)
        self.pending = record
        self._mark = time.perf_counter()  # "record" is the store's write alone
        if self.records is not None:
            try:
                self.records.save(record)
            except RecordError as exc:
                raise UnsavedRecordError(str(exc), record) from exc
            finally:
                self.lap("record")
        self.saved = True
        return record

    def save_interrupted(self, exc: BaseException) -> None:
        """Store the turn after ``exc`` interrupted it: the finished record again if
        the interruption hit its save (same ``answer_id``, so storing is idempotent),
        else an ``interrupted`` record with the text streamed so far."""
        entry = AuditEntry(
            action="flagged", reason=INTERRUPTED_REASON, detail={"kind": "interrupted", "exception": type(exc).__name__}
        )
        try:
            if self.pending is not None:
                if self.records is not None:
                    self.records.save(self.pending)
                return
            self.finish(
                AnswerRecord(
                    status="interrupted",
                    answer_text="".join(self.streamed),
                    chunks=self.snapshots,
                    audit=(entry,),
                    **self.base,
                )
            )
        except Exception:  # noqa: BLE001 - the interruption itself must propagate, so log, not raise
            log.exception("the interrupted turn could not be stored (%s)", type(exc).__name__)

    def run(
        self,
        question: str,
        retriever: HybridRetriever,
        generator: Generator | AppError,
        history: Sequence[str | tuple[str, str]],
        on_text: Callable[[str], None] | None,
    ) -> AnswerRecord:
        settings, base = self.settings, self.base
        question, bad = textsafe.scrub(without_invisible(question))  # a question's offsets are not kept
        if bad:
            self.notes.append(textsafe.repair_audit("query", bad))
        raw_question, question = question, self.hide(question)
        base["query"] = question
        if getattr(retriever, "knowledge_bases", None):  # the record names what the question searched
            base["knowledge_bases"] = tuple(retriever.knowledge_bases)
            self.profiles = searched_profiles(retriever)
        turns = [(h, "") if isinstance(h, str) else (h[0], h[1]) for h in history]
        gen_question = question
        if isinstance(generator, Generator):
            base["generator"] = generator.info
        if len(raw_question) > MAX_QUESTION_CHARS:
            error = f"问题太长（{len(raw_question)} 个字符）：请缩短到 {MAX_QUESTION_CHARS} 个字符以内。"
            return self.finish(AnswerRecord(status="error", error=error, **base))
        if isinstance(generator, Generator) and generator.own_retrieval:
            refusal = own_retrieval_refusal(generator, retriever)
            if refusal is not None:  # never called: its index could hold another knowledge base's text
                return self.finish(AnswerRecord(status="error", error=refusal, **base))
            evidence: tuple = ()
            base["retrieval"] = {"retrieval": f"by the generator ({generator.name})"}
        else:
            try:
                resolved = retriever.resolve(raw_question, turns)
                if settings.llm_query_help and isinstance(generator, Generator):
                    resolved = _model_resolved(generator, question, turns, resolved)
                if resolved.rewritten:
                    base["retrieval_query"] = self.hide(resolved.text)
                retrieval: RetrievalResult = retriever.retrieve(resolved)
            except AppError as exc:
                return self.finish(AnswerRecord(status="error", error=str(exc), **base))
            finally:
                self.lap("retrieve")
            if not generator_uses_history(generator):
                gen_question = self.hide(resolved.text)
            if self.redactor is not None:
                retrieval = dataclasses.replace(
                    retrieval,
                    chunks=tuple(map(self.hide_chunk, retrieval.chunks)),
                    evidence=tuple(map(self.hide_chunk, retrieval.evidence)),
                )
            evidence = retrieval.evidence
            self.snapshots = tuple(ChunkSnapshot.from_retrieved(rc) for rc in evidence)
            base["retrieval"] = dict(retrieval.config, display_threshold=settings.display_threshold)
            if retrieval.decision is not None:
                base["sufficiency"] = SufficiencyInfo(**retrieval.decision.as_record())
            if retrieval.no_evidence:
                return self.finish(AnswerRecord(status="no_evidence", candidates=_candidates(retrieval), **base))
        snapshots = self.snapshots
        if not isinstance(generator, Generator):
            return self.finish(AnswerRecord(status="error", error=str(generator), chunks=snapshots, **base))
        try:

            def shown(piece: str) -> None:  # kept in self.streamed: an interrupted turn stores it
                piece = textsafe.scrub(piece)[0]
                self.streamed.append(piece)
                if on_text is not None:
                    on_text(piece)

            draft = generator.generate(gen_question, evidence, turns, on_text=shown)
            self.lap("generate")
            if not isinstance(draft, Draft):
                raise GenerationError("the generator ended without an answer")
        except AppError as exc:
            return self.finish(AnswerRecord(status="error", error=str(exc), chunks=snapshots, **base))
        except Exception as exc:  # noqa: BLE001 - a bug in a generator (a plugin) must not lose the question
            log.exception("generator %s failed unexpectedly", generator.name)
            error = f"the generator failed unexpectedly: {exc}"
            return self.finish(AnswerRecord(status="error", error=error, chunks=snapshots, **base))
        # the generator's own sources and text are untrusted: no lone surrogate reaches a hash or the store
        draft, repaired = textsafe.scrub_model(draft, "generator_output")
        self.notes.extend(repaired)
        sent = {s.chunk_id for s in snapshots}
        snapshots = snapshots + tuple(
            ChunkSnapshot.from_retrieved(self.hide_chunk(rc)) for rc in draft.extra_chunks if rc.chunk_id not in sent
        )
        self.snapshots = snapshots
        base["generator"] = draft.generator
        self.notes.extend(draft.audit)
        if draft.status == "blocked":
            return self.finish(
                AnswerRecord(status="blocked", error=draft.message, answer_text=draft.text, chunks=snapshots, **base)
            )
        grounded = grounding.ground(draft, [s.chunk_id for s in snapshots])
        accepted = frozenset(rc.chunk_id for rc in evidence)
        supports, dropped = _apply_display_threshold(grounded.supports, snapshots, settings.display_threshold, accepted)
        self.lap("ground")
        verified = verify_record(  # every generator's supports get a verdict; not "supported" → needs_review, kept
            AnswerRecord(
                status=grounding.answer_status(supports),
                answer_text=grounded.answer_text,
                chunks=snapshots,
                supports=supports,
                audit=grounded.audit + dropped,
                **base,
            )
        )
        self.lap("verify")
        return self.finish(verified)


def _model_resolved(
    generator: Generator, question: str, turns: Sequence[tuple[str, str]], resolved: ResolvedQuery
) -> ResolvedQuery:
    """The generator's rewrite of ``question`` for retrieval (``Generator.rewrite_query``:
    follow-ups resolved, other languages translated), searched together with the rule-based
    ``resolved`` (kept in ``also``: retrieval fuses the rankings of both); ``resolved`` alone
    when the generator does not help, fails (logged) or returns nothing usable."""
    try:
        text = generator.rewrite_query(question, turns)
    except AppError as exc:
        log.warning("query rewrite by %s failed, using the rule-based query: %s", generator.name, exc)
        return resolved
    text = (text or "").strip()
    if not text or len(text) > MAX_QUESTION_CHARS:
        return resolved
    if text == resolved.text:
        return resolved
    return ResolvedQuery(
        question=question, text=text, reason=f"rewritten by the generator ({generator.name})", also=(resolved.text,)
    )


def _candidates(retrieval: RetrievalResult) -> tuple[Candidate, ...]:
    """The retrieved chunks of a no_evidence result with their sufficiency scores (none cited)."""
    scores = retrieval.decision.scores if retrieval.decision is not None else {}
    return tuple(
        Candidate(chunk=ChunkSnapshot.from_retrieved(rc), score=scores.get(rc.chunk_id, 0.0)) for rc in retrieval.chunks
    )
