"""The dense half of the knowledge-base index: vectors of the active chunks, their coverage,
``embed_pending`` and repair, and dense search. ``DenseVectors`` is a base of
``core.store.index.KnowledgeIndex`` (which keeps the catalog, BM25 and store ownership).

It reads what ``KnowledgeIndex.__init__`` sets up: ``settings``, ``embedder``, ``catalog``
(``core.store.catalog.Catalog``), ``vectors`` (``core.store.vector_store.VectorStore``),
``second`` (``SecondVectors`` or None), ``_active`` (chunk id → ``Chunk`` served now),
``_cached`` / ``_count_cache`` / ``_missing_cache`` (the caches below), and calls its
``owns_vectors``, ``serving`` and ``refresh_if_changed``. Vectors are L2-normalized
``embedder.dim`` float32 rows; similarities are cosines. Errors: ``IndexError_`` when Chroma or the
catalog fails, or when ``embed_pending`` runs in a process that does not own the store.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Callable, Sequence, TypeVar

import numpy as np

from core.errors import IndexError_
from core.models import Chunk, sha256_hex
from core.store.cached_vectors import VectorMatrix
from core.store.catalog import embedding_text
from core.store.vector_store import CHROMA_BATCH

if TYPE_CHECKING:
    from core.config import Settings
    from core.lexical import LexicalIndex
    from core.store.catalog import Catalog
    from core.store.embeddings import Embedder
    from core.store.second_vectors import SecondVectors
    from core.store.vector_store import VectorStore

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Chunks embedded per model call in ``embed_pending``.
EMBED_BATCH = 16
#: Seconds between two writes of new vectors while embedding.
FLUSH_SECONDS = 2.0
#: Seconds a vector count is reused (writes through this index drop it at once).
COUNT_TTL = 5.0


class DenseVectors:
    """Vectors of the active chunks: coverage, embedding, repair and dense search (see the module doc
    for the attributes the index provides)."""

    settings: Settings
    embedder: Embedder
    catalog: Catalog
    vectors: VectorStore
    second: SecondVectors | None
    _active: dict[str, Chunk]
    _cached: VectorMatrix | None
    _count_cache: tuple[float, int] | None
    _missing_cache: tuple[tuple[int, int], dict[str, Chunk], frozenset[str]] | None

    def owns_vectors(self) -> bool:  # pragma: no cover - KnowledgeIndex's
        raise NotImplementedError

    def serving(self, knowledge_bases: Sequence[str] | None = None) -> tuple[dict[str, Chunk], LexicalIndex]:
        raise NotImplementedError  # pragma: no cover - KnowledgeIndex's

    def refresh_if_changed(self) -> bool:  # pragma: no cover - KnowledgeIndex's
        raise NotImplementedError

    def _chroma_read(self, read: Callable[[], T]) -> T:
        """Run a Chroma read. A read that fails mid-swap (e.g. "Error finding id" when
        an ingest removed vectors under it) is retried once on the catalog's current
        generation (``refresh_if_changed``); a second failure raises ``IndexError_``."""
        try:
            return read()
        except IndexError_:
            log.warning("vector store read failed; retrying once on the current catalog generation", exc_info=True)
            self._count_cache = None
            self.refresh_if_changed()
        return read()

    def _cached_matrix(self) -> VectorMatrix:
        """Non-owner: the vectors of the active chunks from the catalog's embedding cache
        (written by the owner's ``embed_pending``), rebuilt when the active set changes,
        and every ``COUNT_TTL`` seconds while some active chunk has none yet."""
        active = self._active
        m = self._cached
        if (
            m is not None
            and m.source is active
            and (len(m) == len(active) or time.monotonic() - m.built_at < COUNT_TTL)
        ):
            return m
        keys = {cid: sha256_hex(embedding_text(c)) for cid, c in active.items()}
        vectors = self.catalog.cached_vectors(self.embedder.name, sorted(set(keys.values())))
        ids = [cid for cid in active if keys[cid] in vectors]
        matrix = np.stack([vectors[keys[cid]] for cid in ids]) if ids else np.zeros((0, self.embedder.dim), np.float32)
        m = VectorMatrix(ids, matrix, source=active)
        self._cached = m
        return m

    def _drop_vectors(self, chunk_ids: Sequence[str]) -> None:
        """Delete the vectors of chunks that are no longer served (ids not in Chroma are
        ignored). A non-owner leaves them: the owner's ``embed_pending`` reconciles."""
        active = self._active
        stale = [i for i in chunk_ids if i not in active]
        if not stale or not self.owns_vectors():
            return
        self._count_cache = None
        self.vectors.delete(stale)

    def _vector_ids(self) -> set[str]:
        """Ids with a vector: in Chroma (owner), or active chunks with a cached vector (non-owner)."""
        if not self.owns_vectors():
            return set(self._cached_matrix().ids)
        return self._chroma_read(self.vectors.ids)

    def _vector_count(self) -> int:
        """Vectors in the collection; cached for ``COUNT_TTL`` seconds (a count is a
        round trip to Chroma, and every question needs it), dropped on our own writes.
        Non-owner: active chunks with a cached vector."""
        if not self.owns_vectors():
            return len(self._cached_matrix())
        cached = self._count_cache
        now = time.monotonic()
        if cached is not None and now - cached[0] < COUNT_TTL:
            return cached[1]
        n = self._chroma_read(self.vectors.count)
        self._count_cache = (now, n)
        return n

    def missing_vector_ids(self) -> frozenset[str]:
        """The active chunks without a vector (of every knowledge base): the set difference
        between the catalog's active ids and the ids the store holds (owner: Chroma; non-owner:
        the catalog's embedding cache). Recomputed only when the active set or the store's
        vector count changed (one full id read then; the count is cached ``COUNT_TTL`` s), so a
        question pays for it only while vectors change."""
        active = self._active
        if not self.owns_vectors():
            m = self._cached_matrix()
            return frozenset(active) - frozenset(m.ids) if len(m) < len(active) else frozenset()
        count = self._vector_count()
        key = (id(active), count)
        cached = self._missing_cache
        if cached is not None and cached[0] == key and cached[1] is active:
            return cached[2]
        missing = frozenset(active) - self._vector_ids() if active else frozenset()
        self._missing_cache = (key, active, missing)
        return missing

    def dense_coverage(self) -> tuple[int, int]:
        """(active chunks with a vector, active chunks): the set difference of
        ``missing_vector_ids`` (vectors of chunks no longer served do not count)."""
        total = len(self._active)
        return total - len(self.missing_vector_ids()), total

    def second_coverage(self) -> tuple[int, int] | None:
        """(active chunks with a vector of the second model, active chunks), or None without one."""
        return None if self.second is None else self.second.coverage(self._active)

    def pending_chunks(self) -> list[Chunk]:
        """Active chunks without a vector in Chroma, in catalog order."""
        have = self._vector_ids()
        return [c for cid, c in self._active.items() if cid not in have]

    def embed_pending(
        self,
        progress: Callable[[int, int], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
        batch_size: int = EMBED_BATCH,
        embed_missing: bool = True,
    ) -> int:
        """Embed every active chunk that has no vector yet and add it to Chroma.

        The pending chunks are a set difference (active ids minus the ids Chroma holds), so
        any chunk without a vector is found, whoever stored it: a chunk another process
        ingested while this one owned the store is picked up too, by the next pass, or by
        this one: when the catalog moved to a new generation while this pass embedded,
        it reloads and embeds what the new generation lacks before it returns. Vectors come from
        the catalog's cache when the same text was embedded
        before; new ones are cached and written every ``CHROMA_BATCH`` vectors or
        ``FLUSH_SECONDS``. With ``embed_missing=False`` only cached vectors are
        added (another process computes the rest: ``core.store.embedding_worker``). Calls
        ``progress(done, total)`` after each batch. Returns
        the number of chunks added. Safe to call again after an interruption.
        Raises ``IndexError_`` naming the owner when another process owns the
        store, or when Chroma or the catalog fails.
        """
        if not self.owns_vectors():
            raise IndexError_(
                f"向量库 {self.settings.chroma_dir} 由{self.vectors.owner().describe()}持有：本进程不写入它，"
                "向量由持有它的进程（应用的后台向量任务）补齐"
            )
        done = 0
        while True:
            done += self._embed_once(progress, should_stop, batch_size, embed_missing)
            # another process's ingest may have switched the catalog meanwhile, leaving its vectors to us
            if (should_stop and should_stop()) or not self.refresh_if_changed():
                return done

    def _embed_once(
        self,
        progress: Callable[[int, int], None] | None,
        should_stop: Callable[[], bool] | None,
        batch_size: int,
        embed_missing: bool,
    ) -> int:
        """One pass of ``embed_pending`` over the active set as it is now; returns the chunks added."""
        have = self._vector_ids()
        active = self._active
        stale = [i for i in have if i not in active]
        if stale:  # reconcile: vectors of chunks no longer served (e.g. after an interrupted ingest)
            self._drop_vectors(stale)
        pending = [c for cid, c in active.items() if cid not in have]
        total = len(pending)
        texts = [embedding_text(c) for c in pending]
        keys = [sha256_hex(t) for t in texts]
        cached = self.catalog.cached_vectors(self.embedder.name, sorted(set(keys)))
        if not embed_missing:
            ready = [n for n, k in enumerate(keys) if k in cached]
            pending, texts, keys = [pending[n] for n in ready], [texts[n] for n in ready], [keys[n] for n in ready]
            total = len(pending)
        buffer: list[tuple[Chunk, np.ndarray]] = []
        new_vectors: dict[str, np.ndarray] = {}  # embedding cache rows not yet written
        last_flush = time.monotonic()

        def flush() -> None:
            nonlocal buffer, new_vectors, last_flush
            self.catalog.store_vectors(self.embedder.name, new_vectors)
            new_vectors = {}
            live = self._active
            self.vectors.upsert([(c, v) for c, v in buffer if c.chunk_id in live])
            buffer = []
            self._count_cache = None
            last_flush = time.monotonic()

        done = 0
        try:
            for i in range(0, total, batch_size):
                if should_stop and should_stop():
                    break
                batch_keys = keys[i : i + batch_size]
                missing = list(dict.fromkeys(k for k in batch_keys if k not in cached))
                if missing:
                    first = {k: j for j, k in reversed(list(enumerate(batch_keys, start=i)))}
                    vecs = self.embedder.embed([texts[first[k]] for k in missing], "passage")
                    for n, k in enumerate(missing):
                        cached[k] = new_vectors[k] = vecs[n]
                buffer.extend((c, cached[k]) for c, k in zip(pending[i : i + batch_size], batch_keys))
                done += len(batch_keys)
                if len(buffer) >= CHROMA_BATCH or (missing and time.monotonic() - last_flush >= FLUSH_SECONDS):
                    flush()
                if progress:
                    progress(done, total)
        finally:
            if buffer or new_vectors:
                flush()
        return done

    def repair_vectors(self, limit: int = 0) -> tuple[int, int]:
        """Owner only (else ``(0, len(missing))``): give the active chunks without a vector in the
        store (``missing_vector_ids``) theirs: from the catalog's embedding cache (no model call),
        then, when at most ``limit`` are still without one, by embedding them; more than ``limit``
        are all left to a full ``embed_pending`` (the background worker or ``python -m core
        ingest``), so a question never waits for a large batch. Returns (vectors written, chunks still
        without one). Run by a process that opens the store to answer (``python -m core ask``), so
        a vector another process never wrote is repaired, not assumed (issue 24)."""
        if not self.owns_vectors():
            return 0, len(self.missing_vector_ids())
        if not self.missing_vector_ids():
            return 0, 0
        written = self.embed_pending(embed_missing=False)
        left = len(self.missing_vector_ids())
        if 0 < left <= limit:
            written += self.embed_pending()
        return written, len(self.missing_vector_ids())

    def query_vector(self, query: str) -> np.ndarray | None:
        """The query embedding (``embedder.dim`` floats, L2-normalized), or None when no chunk has a vector."""
        if self._vector_count() == 0:
            return None
        return self.embedder.embed([query], "query")[0]

    def dense_search_vector(
        self, qv: np.ndarray | None, k: int, knowledge_bases: Sequence[str] | None = None
    ) -> list[tuple[str, float]]:
        """The ``k`` nearest active chunks of ``knowledge_bases`` (None: every one) to ``qv``
        as ``(chunk_id, cosine similarity)``, best first. The filter is part of the
        search (Chroma ``where``; a row mask without Chroma), never applied to its results."""
        n = self._vector_count()
        if qv is None or n == 0:
            return []
        if not self.owns_vectors():
            allowed = None if knowledge_bases is None else self.serving(knowledge_bases)[0]
            return self._cached_matrix().search(qv, k, allowed=allowed)
        kbs = None if knowledge_bases is None else list(knowledge_bases)
        hits = self._chroma_read(lambda: self.vectors.query(qv, min(n, k * 2), knowledge_bases=kbs))
        active = self._active
        return [(cid, s) for cid, s in hits if cid in active][:k]

    def dense_similarities(self, qv: np.ndarray | None, chunk_ids: Sequence[str]) -> dict[str, float]:
        """Exact cosine similarity of ``qv`` to each given chunk that has a vector
        (one Chroma ``get``); chunks without a vector are left out."""
        if qv is None or not chunk_ids:
            return {}
        if not self.owns_vectors():
            return self._cached_matrix().similarities(qv, chunk_ids)
        ids, mat = self._chroma_read(lambda: self.vectors.vectors(chunk_ids))
        sims = mat @ np.asarray(qv, dtype=np.float32)
        return {cid: float(v) for cid, v in zip(ids, sims)}

    def dense_search(self, query: str, k: int, knowledge_bases: Sequence[str] | None = None) -> list[tuple[str, float]]:
        """The ``k`` nearest active chunks (of ``knowledge_bases``) as ``(chunk_id, cosine similarity)``, best first."""
        return self.dense_search_vector(self.query_vector(query), k, knowledge_bases)

    def adopt_cached_vectors(self) -> int:
        """Owner only (else 0): give each active chunk without a vector the one the catalog
        cached for its text (no embedding) and drop vectors of chunks no longer served.
        Run on open after the catalog migration renamed every chunk id (``default/`` prefix),
        so dense search works at once. Returns the number of vectors written."""
        if not self.owns_vectors():
            return 0
        have = self._vector_ids()
        self._drop_vectors([i for i in have if i not in self._active])
        pending = [c for cid, c in self._active.items() if cid not in have]
        keys = {c.chunk_id: sha256_hex(embedding_text(c)) for c in pending}
        cached = self.catalog.cached_vectors(self.embedder.name, sorted(set(keys.values())))
        rows = [(c, cached[keys[c.chunk_id]]) for c in pending if keys[c.chunk_id] in cached]
        self.vectors.upsert(rows)
        self._count_cache = None
        return len(rows)
