"""All values that flow through the product: frozen pydantic v2 models.

Offsets
-------
Every offset in this module is a **0-based, end-exclusive index of Unicode code
points** (Python ``text[start:end]``), unless a field name says otherwise.
Provider units (UTF-8 bytes, UTF-16 code units) are converted at the adapter by
``core.grounding.offsets`` and never stored.

The JSON form of ``AnswerRecord`` is the exchange format of the command line,
exports and checks; its field names are stable (``schema_version`` guards them).

Why over 400 lines: this is the one data model (docs/design.md's ground floor). Every
value an arrow of the pipeline carries is declared here with its units, next to
the others it composes (chunk → retrieved chunk → snapshot → record), plus the
record's read-side schema migration; splitting it would scatter one schema.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from datetime import datetime, timezone
from typing import Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field, computed_field, model_validator

SCHEMA_VERSION = 3
"""Version of the ``AnswerRecord`` JSON form. 1: no verification fields; 2: ``Support``
gains ``verdict``, ``verification_score``, ``aligned_quote`` and ``verdict_reason``
(all optional); 3: the record gains ``feedback`` (a person's 👍/👎 and comment),
``regenerated_from`` (the answer a regenerated one replaces) and ``knowledge_bases``, and
chunk snapshots ``knowledge_base`` (all optional: None/empty on older records, which all
came from the one knowledge base that is now :data:`DEFAULT_KB`).
:func:`migrate_record_data` reads every older version."""

#: The knowledge base every data folder has: the bundled sample, and where the
#: documents of a data folder made before knowledge bases existed are migrated to.
DEFAULT_KB = "default"
#: The longest question the pipeline answers (code points); longer input is refused, not embedded.
MAX_QUESTION_CHARS = 2000

#: Knowledge-base names: a lowercase ASCII letter or digit, then up to 39 of
#: ``a-z 0-9 _ -``. No ``/`` or ``@``, so ``kb/source@version#n`` splits one way.
KB_NAME_PATTERN = r"[a-z0-9][a-z0-9_-]{0,39}"

Scalar = str | int | float | bool


def utc_now() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(timezone.utc)


def sha256_hex(text: str) -> str:
    """SHA-256 of ``text`` encoded as UTF-8, as 64 lowercase hex digits."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Frozen(BaseModel):
    """Base of every value: immutable, unknown fields rejected."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def check_kb_name(name: str) -> str:
    """``name`` when it is a valid knowledge-base name (:data:`KB_NAME_PATTERN`), else
    ``ValueError`` naming it (message in Chinese: it reaches the page)."""
    if not isinstance(name, str) or not re.fullmatch(KB_NAME_PATTERN, name):
        raise ValueError(
            f"知识库名称 {name!r} 无效：只能用小写英文字母、数字、- 和 _（以字母或数字开头，最多 40 个字符）"
        )
    return name


def qualified_id(knowledge_base: str | None, local_id: str) -> str:
    """``kb/local_id`` (a document or chunk id inside knowledge base ``kb``); ``local_id``
    alone when ``knowledge_base`` is None (parsed but not yet placed in one, or stored
    before knowledge bases existed)."""
    return local_id if knowledge_base is None else f"{knowledge_base}/{local_id}"


def source_key(knowledge_base: str | None, source_id: str) -> str:
    """The key of a source across knowledge bases, ``kb/source_id`` (None counts as
    :data:`DEFAULT_KB`: older records came from it). Keys ``current_versions``."""
    return f"{knowledge_base or DEFAULT_KB}/{source_id}"


class SourceDocument(Frozen):
    """One version of one source file in a knowledge base.

    ``source_id`` is stable per source (the POSIX path relative to the corpus
    root); ``version`` is the first 16 hex digits of the SHA-256 of the
    normalized document text, so the same content gives the same version on
    every machine and changed content gives a new one. ``knowledge_base`` names
    the knowledge base (None until ingest places the document in one);
    ``document_id`` is ``kb/source_id@version`` (``source_id@version`` when None).
    """

    source_id: str
    version: str
    knowledge_base: str | None = Field(default=None, exclude_if=lambda v: v is None)
    title: str
    uri: str | None = None
    updated_at: datetime | None = None
    visibility: Literal["public", "internal", "hidden"] = "public"
    metadata: dict[str, Scalar] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _accept_own_document_id(cls, data: object) -> object:
        # The JSON form carries the computed document_id; it must match when read back.
        if isinstance(data, dict) and "document_id" in data:
            data = dict(data)
            given = data.pop("document_id")
            expected = qualified_id(data.get("knowledge_base"), f"{data.get('source_id')}@{data.get('version')}")
            if given != expected:
                raise ValueError(f"document_id {given!r} does not match [kb/]source_id@version ({expected!r})")
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def document_id(self) -> str:
        return qualified_id(self.knowledge_base, f"{self.source_id}@{self.version}")


def make_chunk_id(document_id: str, ordinal: int) -> str:
    """The stable id of the ``ordinal``-th chunk (0-based) of a document version.

    Derived only from ``document_id`` (knowledge base + source id + content
    version) and the ordinal, never from a position in a result list.
    """
    if ordinal < 0:
        raise ValueError(f"ordinal must be >= 0, got {ordinal}")
    return f"{document_id}#{ordinal}"


class TextRun(Frozen):
    """Where one run of a chunk's characters sits on a PDF page (issue 29).

    ``start``/``end``: code points into the chunk text (end-exclusive), all on one line of
    page ``page`` (1-based). ``top``/``bottom``: the line's box, PDF points from the page's
    top edge. ``xs``: ``end - start + 1`` character edges in points from the left edge;
    character ``start + k`` spans ``xs[k]..xs[k + 1]``. Code points of the chunk text that
    no run covers (Markdown syntax, joined line breaks) have no place on the page.
    """

    page: int
    start: int
    end: int
    top: float
    bottom: float
    xs: tuple[float, ...]

    @model_validator(mode="after")
    def _check(self) -> "TextRun":
        if self.page < 1 or self.start < 0 or self.end <= self.start or len(self.xs) != self.end - self.start + 1:
            raise ValueError(f"bad text run: page {self.page}, {self.start}..{self.end}, {len(self.xs)} edges")
        return self


class ChunkContent(Frozen):
    """The fields of a chunk that its stored snapshot keeps (identity, place, text).

    A field added here reaches ``Chunk`` and ``ChunkSnapshot`` (and so every stored
    record) without a second edit. ``content_sha256`` is the hex SHA-256 of ``text``
    ("" on a ``Chunk`` until computed; a snapshot always carries it).
    """

    chunk_id: str
    document_id: str
    source_id: str
    version: str
    title: str
    heading_path: tuple[str, ...]
    text: str
    source_anchor: str | None = None
    uri: str | None = None
    updated_at: datetime | None = None
    content_sha256: str = ""
    # Left out of the JSON form while None, so a snapshot stored before knowledge bases re-dumps byte-identically.
    knowledge_base: str | None = Field(default=None, exclude_if=lambda v: v is None)
    #: PDF chunks: where their characters sit on the pages (``TextRun``, in text order); None for
    #: other formats and for chunks stored before issue 29 (left out of the JSON form while None).
    positions: tuple[TextRun, ...] | None = Field(default=None, exclude_if=lambda v: v is None)

    @property
    def source_key(self) -> str:
        """``kb/source_id`` (see :func:`source_key`): the key of ``current_versions``."""
        return source_key(self.knowledge_base, self.source_id)


class KnowledgeBase(Frozen):
    """A knowledge base of the catalog (``core.store.knowledge_bases``).

    ``name`` is its permanent id (:data:`KB_NAME_PATTERN`; it is part of every
    document and chunk id, so renaming changes ``title`` only); ``title`` is the
    label people see (untrusted text: escape before HTML); ``hidden`` ones are not
    offered for questions; ``settings`` holds per-knowledge-base options (scalar or
    JSON values, e.g. redaction rules and access lists) that the page and a
    generator's prompt never see.
    """

    name: str
    title: str
    hidden: bool = False
    settings: dict[str, object] = Field(default_factory=dict)
    created_at: datetime | None = None

    @model_validator(mode="after")
    def _check(self) -> "KnowledgeBase":
        check_kb_name(self.name)
        if not self.title.strip():
            raise ValueError("知识库标题不能为空")
        return self


class ChunkMetadata(Frozen):
    """Scalar metadata of a chunk (kept in its snapshot, last in the JSON form)."""

    metadata: dict[str, Scalar] = Field(default_factory=dict)


#: ``Chunk`` fields a snapshot does not keep: the chunk's place in its document.
CHUNK_ONLY_FIELDS = frozenset({"ordinal", "char_start", "char_end"})


class Chunk(ChunkMetadata, ChunkContent):
    """A retrievable piece of a document.

    ``char_start``/``char_end`` are code-point offsets into the normalized
    document text (the texts of a document's chunks joined in order).
    ``heading_path`` is ``[document title, H2, H3, ...]``.
    ``source_anchor`` is the heading id (``{#anchor}``) of the nearest heading, if any.
    Fields shared with ``ChunkSnapshot`` come from ``ChunkContent`` and ``ChunkMetadata``;
    the rest are ``CHUNK_ONLY_FIELDS``.
    """

    ordinal: int
    char_start: int = 0
    char_end: int = 0

    @model_validator(mode="after")
    def _check(self) -> "Chunk":
        if self.char_start < 0 or self.char_end < self.char_start:
            raise ValueError(f"chunk {self.chunk_id!r}: bad char span {self.char_start}..{self.char_end}")
        if self.content_sha256 and self.content_sha256 != sha256_hex(self.text):
            raise ValueError(f"chunk {self.chunk_id!r}: content_sha256 does not match text")
        return self


def place_in_knowledge_base(
    document: SourceDocument, chunks: Sequence[Chunk], knowledge_base: str
) -> tuple[SourceDocument, list[Chunk]]:
    """Copies of a parsed ``document`` and its ``chunks`` inside ``knowledge_base``:
    ``knowledge_base`` set, ``document_id`` = ``kb/source_id@version`` and chunk ids
    ``kb/source_id@version#ordinal`` (``make_chunk_id``). The inputs are not mutated.
    Raises ``ValueError`` for an invalid name."""
    check_kb_name(knowledge_base)
    doc = document.model_copy(update={"knowledge_base": knowledge_base})
    placed = [
        c.model_copy(
            update={
                "knowledge_base": knowledge_base,
                "document_id": doc.document_id,
                "chunk_id": make_chunk_id(doc.document_id, c.ordinal),
            }
        )
        for c in chunks
    ]
    return doc, placed


class RetrievalScores(Frozen):
    """Where and how well retrieval ranked a chunk (shared by ``RetrievedChunk`` and
    ``ChunkSnapshot``).

    ``rank`` is 1-based in the fused list. Scores: ``dense_score`` is cosine
    similarity (-1..1) or None when dense retrieval did not score it;
    ``lexical_score`` is the raw BM25 score or None; ``fused_score`` is the
    reciprocal-rank-fusion score. ``relevance`` (0..1) is the display relevance
    used for thresholds; it is a relevance estimate, never a confidence.
    """

    rank: int
    dense_score: float | None = None
    lexical_score: float | None = None
    fused_score: float = 0.0
    relevance: float = 0.0
    retrieved_at: datetime = Field(default_factory=utc_now)


class RetrievedChunk(RetrievalScores):
    """A chunk as retrieval returned it, with its ``RetrievalScores``."""

    chunk: Chunk

    @property
    def chunk_id(self) -> str:
        return self.chunk.chunk_id


SupportStatus = Literal["verified", "needs_review"]
Verdict = Literal["supported", "contradicted", "unsupported"]


class AlignedQuote(Frozen):
    """The span of one chunk's text that best matches a sentence.

    ``start``/``end``: 0-based, end-exclusive **code points** into the text of
    chunk ``chunk_id`` (``ChunkSnapshot.text[start:end]``), not into the answer.
    Readers must not trust them: a span outside the chunk text is shown without
    a highlight (see ``components.verdict_view.highlight_html``).
    """

    chunk_id: str
    start: int
    end: int


class Support(Frozen):
    """Ties the answer span ``[start, end)`` (code points) to chunk ids.

    Verification (schema version 2; all None on records that were not verified):
    ``verdict`` is ``supported``, ``contradicted`` (the aligned passage disagrees)
    or ``unsupported``; ``verification_score`` is the verifier's support score in
    0..1; ``aligned_quote`` locates the passage in the cited chunk's text;
    ``verdict_reason`` says why in Chinese (untrusted text: escape before HTML).
    A support whose verdict is not ``supported`` or whose ``status`` is
    ``needs_review`` is shown as 待复核, never as a plain citation.
    """

    start: int
    end: int
    chunk_ids: tuple[str, ...]
    quote: str | None = None
    score: float | None = None
    status: SupportStatus = "verified"
    verdict: Verdict | None = None
    verification_score: float | None = None
    aligned_quote: AlignedQuote | None = None
    verdict_reason: str | None = None


class Segment(Frozen):
    """A slice ``answer_text[start:end]`` (code points) with its support markers.

    Segments of one answer tile the text exactly: no gap, no overlap.
    ``chunk_ids`` are the chunks whose markers follow this segment (stable order,
    each once); empty means no support covers it.
    """

    start: int
    end: int
    text: str
    chunk_ids: tuple[str, ...] = ()

    @property
    def supported(self) -> bool:
        return bool(self.chunk_ids)


class AuditEntry(Frozen):
    """One support that was dropped or repaired, and why.

    ``support_index`` is the index of the support in the generator's draft
    (None when the problem is not about one support). ``action`` is what was
    done; ``reason`` says why in words a person can read.
    """

    support_index: int | None = None
    action: Literal["dropped", "repaired", "flagged"]
    reason: str
    detail: dict[str, Scalar | None] = Field(default_factory=dict)


class RecommendedLink(Frozen):
    """A navigation or contact link; never evidence."""

    label: str
    url: str
    kind: Literal["navigation", "contact"] = "navigation"


class GeneratorInfo(Frozen):
    name: str
    model: str | None = None


class ChunkSnapshot(ChunkMetadata, RetrievalScores, ChunkContent):
    """A chunk exactly as the generator saw it, stored inside the record: the
    ``ChunkContent`` and ``ChunkMetadata`` of the chunk plus its ``RetrievalScores``.

    JSON field order (stable, the stored form): the content fields, the scores, ``metadata``.
    """

    content_sha256: str  # always present in a snapshot (computed from the text when the chunk had none)
    retrieved_at: datetime  # as retrieval stamped it; never defaulted when a record is read

    @classmethod
    def from_retrieved(cls, rc: RetrievedChunk) -> "ChunkSnapshot":
        """Snapshot of ``rc``: every shared field copied by name (no per-field list)."""
        shared = {name: getattr(rc.chunk, name) for name in SNAPSHOT_CHUNK_FIELDS}
        scores = {name: getattr(rc, name) for name in RetrievalScores.model_fields}
        shared["content_sha256"] = rc.chunk.content_sha256 or sha256_hex(rc.chunk.text)
        return cls(**shared, **scores)


#: The chunk fields a snapshot copies: all of ``Chunk`` but ``CHUNK_ONLY_FIELDS``.
SNAPSHOT_CHUNK_FIELDS = frozenset(ChunkContent.model_fields) | frozenset(ChunkMetadata.model_fields)


class Candidate(Frozen):
    """A retrieved chunk that did *not* become evidence, kept so a ``no_evidence``
    decision can be audited: its snapshot (with rank and relevance), its
    sufficiency ``score`` (0..1, the probability that it holds the answer), and
    the marks ``below_threshold`` and ``cited`` (always False: never cited)."""

    chunk: ChunkSnapshot
    score: float
    below_threshold: bool = True
    cited: bool = False


#: ``SufficiencyInfo.message`` when no rule named a reason (the chat shows its own generic notice then).
NOT_FOUND_MESSAGE = "知识库中没有找到足以回答这个问题的内容。"


class SufficiencyInfo(Frozen):
    """The evidence-sufficiency decision stored in a record (``core.retrieval.sufficiency``).

    ``decision`` is ``sufficient`` or ``no_evidence``; ``score`` the best chunk's
    probability (0..1) and ``threshold`` the one it was compared with;
    ``mode`` ``hybrid2`` (BM25 + dense + the second embedder's ranking, once every chunk
    has its second vector), ``hybrid`` (dense + BM25, as soon as some searched chunk has a vector;
    a chunk without one is scored by the keyword model) or ``keyword`` (BM25 only: no searched
    chunk has a vector yet); ``missing_terms`` named things the knowledge base
    lacks; ``message`` the Chinese no-evidence message; ``note`` a Chinese
    sentence about the part of the question the evidence does not cover;
    ``reasons`` short English phrases for the audit.
    """

    decision: Literal["sufficient", "no_evidence"]
    score: float
    threshold: float
    mode: Literal["hybrid2", "hybrid", "keyword"]
    reasons: tuple[str, ...] = ()
    missing_terms: tuple[str, ...] = ()
    message: str | None = None
    note: str | None = None


def _v1_to_v2(data: dict) -> dict:
    # Version 2 only adds optional verification fields to Support: None = "not verified".
    return {**data, "schema_version": 2}


def _v2_to_v3(data: dict) -> dict:
    # Version 3 only adds optional fields (feedback, regenerated_from, knowledge bases):
    # None/empty = "none given" / "asked anew" / "before knowledge bases".
    return {**data, "schema_version": 3}


_MIGRATIONS = {1: _v1_to_v2, 2: _v2_to_v3}


def migrate_record_data(data: dict) -> dict:
    """Upgrade the JSON form (a dict) of an ``AnswerRecord`` to :data:`SCHEMA_VERSION`.

    Keyed by ``schema_version`` (every stored record has one; a dict without it
    is a record being built in code, taken as current): each step ``n -> n+1`` is applied
    in turn; the input dict is not mutated. Raises ``ValueError`` (so pydantic
    reports a ``ValidationError``) for a version newer than this program or not
    a positive integer. Runs on every read (``AnswerRecord.model_validate*``).
    """
    version = data.get("schema_version", SCHEMA_VERSION)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ValueError(f"schema_version must be a positive integer, got {version!r}")
    if version > SCHEMA_VERSION:
        raise ValueError(f"record schema_version {version} is newer than this program reads ({SCHEMA_VERSION})")
    while version < SCHEMA_VERSION:
        data = _MIGRATIONS[version](data)
        version = data["schema_version"]
    return data


#: Longest feedback comment kept, in code points (``Feedback.comment``).
FEEDBACK_COMMENT_MAX = 2000


class Feedback(Frozen):
    """A person's judgement of one answer: ``rating`` ``up`` (👍) or ``down`` (👎),
    an optional ``comment`` (untrusted text: escape before HTML/Markdown; at most
    :data:`FEEDBACK_COMMENT_MAX` code points) and when it was given (UTC)."""

    rating: Literal["up", "down"]
    comment: str | None = Field(default=None, max_length=FEEDBACK_COMMENT_MAX)
    given_at: datetime = Field(default_factory=utc_now)


# ``interrupted``: the answer was cut off while streaming (page stop/rerun, Ctrl-C);
# ``answer_text`` holds what was shown so far, without supports.
AnswerStatus = Literal["answered", "no_evidence", "unverifiable", "blocked", "error", "interrupted"]


def new_conversation_id() -> str:
    """A fresh conversation id: 16 lower-case hex digits (random; the chat page's ``?c=`` and ``ask --conversation``)."""
    return uuid.uuid4().hex[:16]


class AnswerRecord(Frozen):
    """Everything needed to replay one answer exactly.

    ``supports`` carry code-point offsets into ``answer_text``.
    ``chunks`` are the snapshots the generator saw (the only chunk ids a
    support may cite). ``audit`` lists every support that was dropped or
    repaired. ``error`` holds a user-facing message when ``status == "error"``.
    ``sufficiency`` is the evidence decision (None for records made before it,
    or when the generator retrieves itself); ``candidates`` are the retrieved
    chunks of a ``no_evidence`` record, below the threshold and not cited.
    ``feedback`` is the person's 👍/👎 (set after the answer, ``RecordStore.set_feedback``);
    ``regenerated_from`` the ``answer_id`` of the answer this one regenerated (the old
    record is kept).
    ``knowledge_bases`` are the names of the knowledge bases the question searched
    (empty on records stored before knowledge bases: they searched the one that is
    now :data:`DEFAULT_KB`). Older JSON forms are upgraded on read (:func:`migrate_record_data`).
    """

    answer_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    schema_version: int = SCHEMA_VERSION
    created_at: datetime = Field(default_factory=utc_now)
    conversation_id: str | None = None
    knowledge_bases: tuple[str, ...] = ()
    query: str
    #: What retrieval searched for when it differs from ``query`` (a follow-up resolved
    #: against the earlier turns of its conversation, ``core.retrieval.query``); None otherwise.
    retrieval_query: str | None = None
    answer_text: str = ""
    status: AnswerStatus
    generator: GeneratorInfo
    chunks: tuple[ChunkSnapshot, ...] = ()
    supports: tuple[Support, ...] = ()
    recommended_links: tuple[RecommendedLink, ...] = ()
    audit: tuple[AuditEntry, ...] = ()
    retrieval: dict[str, Scalar | None] = Field(default_factory=dict)
    error: str | None = None
    sufficiency: SufficiencyInfo | None = None
    candidates: tuple[Candidate, ...] = ()
    feedback: Feedback | None = None
    regenerated_from: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _migrate(cls, data: object) -> object:
        return migrate_record_data(data) if isinstance(data, dict) else data

    def chunk(self, chunk_id: str) -> ChunkSnapshot | None:
        for c in self.chunks:
            if c.chunk_id == chunk_id:
                return c
        return None


class DraftSupport(Frozen):
    """A support as a generator proposed it, before grounding.

    ``unit`` names the unit of ``start``/``end``: ``"codepoint"`` (Python str
    index), ``"utf8"`` (bytes) or ``"utf16"`` (code units). ``part_index`` says
    which of ``Draft.parts`` the offsets are relative to.
    """

    start: int | None
    end: int | None
    chunk_ids: tuple[str, ...]
    unit: Literal["codepoint", "utf8", "utf16"] = "codepoint"
    part_index: int = 0
    quote: str | None = None
    score: float | None = None


class Draft(Frozen):
    """A generator's raw output in our shape, before grounding.

    The answer text is ``"".join(parts)``; offsets in ``supports`` are relative
    to their part. ``status`` lets a generator report a business outcome
    (``blocked`` for a safety stop) instead of raising.
    ``extra_chunks`` are chunks the generator brought itself (for example
    Gemini's own search results), which may be cited besides those sent.
    ``audit`` holds what the generator noticed about its own output (for
    example that the provider returned no grounding metadata at all); the
    pipeline copies it into the record's audit.
    """

    parts: tuple[str, ...]
    supports: tuple[DraftSupport, ...] = ()
    generator: GeneratorInfo
    status: Literal["ok", "blocked"] = "ok"
    message: str | None = None
    extra_chunks: tuple[RetrievedChunk, ...] = ()
    audit: tuple[AuditEntry, ...] = ()

    @property
    def text(self) -> str:
        return "".join(self.parts)


class SourceCard(Frozen):
    """The public projection of a chunk for display (no internal fields)."""

    number: int
    chunk_id: str
    title: str
    heading_path: tuple[str, ...]
    snippet: str
    uri: str | None = None
    updated_at: datetime | None = None
    relevance: float | None = None
    snapshot_url: str
    page: int | None = None
    facts: tuple[str, ...] = ()  # front-matter metadata shown on the card (core.records.presentation.card_facts)
    changed: Literal["unchanged", "updated", "deleted", "unknown"] = "unknown"
    page_end: int | None = None  # the last page of a chunk that runs over a page break (PDF)
