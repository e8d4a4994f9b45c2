"""Test doubles shared by the tests: real classes passed where the product takes
an interface (docs/design.md, "Habits worth copying"), so a pipeline test needs no
embedding model and no index unless it tests them.

* ``retrieved(...)`` — one ``RetrievedChunk`` from a few fields.
* ``FakeRetriever`` — answers every question with the same chunks (the
  ``core.retrieval.hybrid.Retriever`` protocol) and records the questions.
* ``ScriptedGenerator`` — a ``Generator`` that returns a given ``Draft`` (or
  raises a given exception) and records its calls.
* ``build_engine(data_dir, docs)`` — an ``Engine`` over a temporary data folder
  with the ``hash`` embedder (instant, not semantic), the given Markdown
  folders or files ingested (BM25 ready; dense vectors only with ``embed=True``).
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Sequence

from core.config import Settings
from core.engine import Engine
from core.generators.base import Generator
from core.generators.extractive import ExtractiveGenerator
from core.ingest.run import ingest
from core.models import Chunk, Draft, DraftSupport, RetrievedChunk, sha256_hex
from core.records.store import RecordStore
from core.retrieval.hybrid import RetrievalResult
from core.retrieval.query import ResolvedQuery
from core.store.embeddings import Embedder, HashingEmbedder
from core.store.index import KnowledgeIndex

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def retrieved(
    chunk_id: str,
    text: str,
    *,
    heading_path: tuple[str, ...] = ("文档",),
    rank: int = 1,
    relevance: float = 0.9,
    uri: str | None = None,
) -> RetrievedChunk:
    """A retrieved chunk; ``chunk_id`` is ``"<source>@<version>#<ordinal>"`` (e.g. ``"a.md@v1#0"``)."""
    document_id, _, ordinal = chunk_id.rpartition("#")
    source_id, _, version = document_id.rpartition("@")
    chunk = Chunk(
        chunk_id=chunk_id, document_id=document_id, source_id=source_id, version=version, ordinal=int(ordinal),
        title=heading_path[0], heading_path=heading_path, text=text, uri=uri, char_end=len(text),
        content_sha256=sha256_hex(text),
    )  # fmt: skip
    return RetrievedChunk(chunk=chunk, rank=rank, relevance=relevance, fused_score=1 / (60 + rank), retrieved_at=T0)


class FakeRetriever:
    """Returns ``chunks`` (ranked as given) for every question; ``evidence`` are
    those with ``relevance >= evidence_threshold``. Raises ``fail`` when set."""

    def __init__(
        self, chunks: Sequence[RetrievedChunk] = (), evidence_threshold: float = 0.35, fail: Exception | None = None
    ) -> None:
        self.chunks = tuple(chunks)
        self.evidence_threshold = evidence_threshold
        self.fail = fail
        self.questions: list[str] = []

    def resolve(self, question: str, history: Sequence[str | tuple[str, str]] = ()) -> ResolvedQuery:
        """No conversation handling: the question is searched as it is."""
        return ResolvedQuery(question, question)

    def retrieve(self, question: str | ResolvedQuery) -> RetrievalResult:
        self.questions.append(question.text if isinstance(question, ResolvedQuery) else question)
        if self.fail is not None:
            raise self.fail
        evidence = tuple(rc for rc in self.chunks if rc.relevance >= self.evidence_threshold)
        config = {"retriever": "fake", "top_k": len(self.chunks), "evidence_threshold": self.evidence_threshold}
        return RetrievalResult(chunks=self.chunks, evidence=evidence, config=config)


DraftScript = Callable[[str, Sequence[RetrievedChunk]], Draft]


class ScriptedGenerator(Generator):
    """Returns ``draft`` (a ``Draft``, or a function of question and chunks giving
    one); raises ``fail`` instead when set. ``calls`` holds ``(question, chunk
    ids)`` per call. The default draft is two sentences, the first (code points
    0..7) citing the first chunk sent."""

    name = "scripted"

    def __init__(self, draft: Draft | DraftScript | None = None, fail: BaseException | None = None) -> None:
        self.draft = draft
        self.fail = fail
        self.calls: list[tuple[str, tuple[str, ...]]] = []

    def generate(self, question, chunks: Sequence[RetrievedChunk], history=(), on_text=None) -> Draft:  # noqa: ANN001
        self.calls.append((question, tuple(rc.chunk_id for rc in chunks)))
        if self.fail is not None:
            raise self.fail
        if isinstance(self.draft, Draft):
            return self.draft
        if self.draft is not None:
            return self.draft(question, chunks)
        return cite_first_sentence(chunks[0].chunk_id, generator=self)


def cite_first_sentence(chunk_id: str, generator: Generator | None = None) -> Draft:
    """``"第一句有出处。第二句没有。"`` with one support, code points 0..7, citing ``chunk_id``."""
    return Draft(
        parts=("第一句有出处。第二句没有。",),
        supports=(DraftSupport(start=0, end=7, chunk_ids=(chunk_id,)),),
        generator=(generator or ScriptedGenerator()).info,
    )


def build_engine(
    data_dir: Path,
    docs: Sequence[Path] = (),
    *,
    embedder: Embedder | None = None,
    embed: bool = False,
    **settings: object,
) -> Engine:
    """An ``Engine`` on ``data_dir`` with the ``hash`` embedder (unless given) and
    the extractive generator; ``docs`` (folders or files) ingested. Extra keyword
    arguments are ``Settings`` fields. Raises ``AssertionError`` naming the
    sources that failed to ingest."""
    embedder = embedder or HashingEmbedder()
    if isinstance(embedder, HashingEmbedder):
        settings.setdefault("embedding", "hash")  # so an app opened on this folder picks the same model
    config = Settings(data_dir=data_dir, **settings)  # type: ignore[arg-type]
    index = KnowledgeIndex(config, embedder)
    if docs:
        report = ingest(index, list(docs), embed=embed, base_url=config.corpus_base_url)
        assert not report.failures, report.failures
    return Engine(config, embedder, index, RecordStore(config.records_path), {"extractive": ExtractiveGenerator()})
