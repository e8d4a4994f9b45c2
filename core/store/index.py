"""The knowledge-base index: a facade over the catalog (``core.store.catalog``), the
Chroma adapter (``core.store.vector_store``) and an in-memory BM25 index
(``core.lexical.LexicalIndex``), for one data folder and one embedding model.

* The catalog (SQLite) holds every document version and chunk, the active set,
  the generation counter, and the term and embedding caches.
* Chroma holds the vectors of the active chunks. Writes go in batches
  (``CHROMA_BATCH``); the only full read of the ids is the reconciliation at the
  start of ``embed_pending``.
* One owner per embedded Chroma folder (``core.store.store_lock``): only the process
  holding the folder's lock opens it (when it opens the index, or later once the
  owner is gone). Another process keeps the catalog and BM25 as usual but never
  touches Chroma: its dense scores come from the catalog's embedding cache
  (``core.store.cached_vectors``), its writes leave the vectors to the owner (whose
  ``embed_pending`` reconciles), and ``embed_pending`` refuses.
* BM25 is rebuilt after each ingest (incrementally: only new chunk texts are
  tokenized) and swapped in atomically.

Dense vectors are filled in by ``embed_pending`` (slow on a CPU), which the app
runs in the background; until it is done, retrieval uses BM25 for the chunks
that have no vector yet.

Knowledge bases: every read that serves a question takes a selection
(``serving(kbs)``, ``dense_search_vector(..., kbs)``) and filters inside the
search (``core.store.kb_views`` for BM25, Chroma ``where`` for vectors).

Why over 400 lines: this facade is the one place that keeps the three stores in
step (catalog, Chroma, BM25) under one swap lock; its parts already live in
their own modules (``catalog``, ``vector_store``, ``cached_vectors``, ``kb_views``),
and what remains is the coordination between them.
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
from pathlib import Path
from typing import Any, Callable, Collection, Mapping, Sequence, TypeVar

import numpy as np

from core.config import Settings
from core.errors import ConfigError, IndexError_
from core.lexical import LexicalIndex
from core.models import DEFAULT_KB, Chunk, SourceDocument, place_in_knowledge_base, sha256_hex
from core.store import store_lock
from core.store.cached_vectors import VectorMatrix
from core.store.catalog import Catalog, DocumentRow, embedding_text, lexical_text, read_index_id
from core.store.embeddings import Embedder
from core.store.kb_views import KbViews
from core.store.knowledge_bases import KnowledgeBaseStore
from core.store.second_vectors import SecondVectors
from core.store.vector_store import (
    CHROMA_BATCH,
    COLLECTION,
    VectorStore,
    collection_name_for,
    delete_server_collection,
    mismatch_error,
)

#: Names callers import from here (the catalog and the Chroma adapter are used through this facade).
__all__ = [
    "KnowledgeIndex",
    "DocumentRow",
    "reset_index",
    "lexical_text",
    "embedding_text",
    "collection_name_for",
    "COLLECTION",
]

log = logging.getLogger(__name__)
T = TypeVar("T")

EMBED_BATCH = 16
#: Seconds between two writes of new vectors while embedding.
FLUSH_SECONDS = 2.0
#: Seconds a vector count is reused (writes through this index drop it at once).
COUNT_TTL = 5.0


class KnowledgeIndex:
    """Catalog + Chroma + BM25 for one data folder and one embedding model.

    Raises ``EmbeddingMismatchError`` when the collection was built with another
    embedding model, ``IndexError_`` when the store cannot be opened.
    Thread-safe: reads may run while ``embed_pending`` or an ingest writes.
    Opens the embedded Chroma folder only when this process owns it (see the
    module doc); ``store_owner()`` names the other process when it does not.
    """

    def __init__(
        self,
        settings: Settings,
        embedder: Embedder,
        *,
        chroma_client: Any = None,
        collection_name: str | None = None,
        second_embedder: Embedder | None = None,
    ) -> None:
        self.settings = settings
        self.embedder = embedder
        self._lock = threading.RLock()
        self._reload_lock = threading.Lock()  # one reload at a time in refresh_if_changed
        self._count_cache: tuple[float, int] | None = None
        #: ``missing_vector_ids``' last answer: ((id of the active dict, vector count), that dict, the ids)
        self._missing_cache: tuple[tuple[int, int], dict[str, Chunk], frozenset[str]] | None = None
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        self.catalog = Catalog(settings.catalog_location)
        #: the second model's vectors (``core.store.second_vectors``; None: no second embedder)
        self.second = SecondVectors(self.catalog, second_embedder) if second_embedder is not None else None
        self.index_id = self.catalog.index_id
        self.collection_name = collection_name or collection_name_for(settings, self.index_id)
        self.vectors = self._vector_store(chroma_client)
        self._cached: VectorMatrix | None = None  # dense vectors from the catalog cache (non-owner only)
        self._lexical = LexicalIndex([], [])
        self._active: dict[str, Chunk] = {}
        self._views = KbViews(self._active, self._lexical)
        self._generation = ""
        self.reload()
        if self.catalog.migrated:  # chunk ids gained "default/": move their vectors now (no embedding)
            try:
                log.info("catalog migrated to knowledge bases; %d vectors moved", self.adopt_cached_vectors())
            except IndexError_:
                log.warning("could not move vectors after the migration; embed_pending reconciles", exc_info=True)

    def _vector_store(self, client: Any) -> VectorStore:
        """The vector store, opened lazily when its embedding model is known without opening it.

        The model that built an embedded store is recorded in the catalog
        (``embedding_model@<chroma folder>``) when the store is first opened. A store whose
        record names another model raises ``EmbeddingMismatchError`` here, as opening it
        would; a store with a matching record, or with no folder yet, opens on first use;
        any other (a server, a folder made before the record) opens here and checks its model."""
        settings, model = self.settings, self.embedder.name
        key = f"embedding_model@{settings.chroma_dir.resolve()}"
        embedded = client is None and not settings.chroma_host
        stored = embedded and settings.chroma_dir.exists()
        recorded = self.catalog.meta(key) if embedded else None
        if stored and recorded is not None and recorded != model:
            raise mismatch_error(settings, self.collection_name, recorded, model)
        lazy = embedded and (not stored or recorded == model)

        def record() -> None:
            if embedded and self.catalog.meta(key) != model:
                self.catalog.set_meta(key, model)

        return VectorStore(settings, self.embedder, self.collection_name, client=client, lazy=lazy, on_open=record)

    @property
    def _collection(self) -> Any:
        """The raw Chroma collection (None for a non-owner); tests and the bench wrap it."""
        return self.vectors.collection

    @_collection.setter
    def _collection(self, value: Any) -> None:
        self.vectors.collection = value

    def close(self) -> None:
        """Close this thread's catalog connection (reopened on the next use)."""
        self.catalog.close()

    # ---------------------------------------------------------------- catalog
    def reload(self) -> None:
        """Re-read the active chunks from the catalog and rebuild the BM25 index.

        Incremental: chunks already served are not parsed again, their terms are
        reused, and terms of new chunks come from the catalog's term cache. When
        the active set is unchanged, the BM25 index is kept.
        """
        generation = self.catalog.generation()
        old_active, old_lexical = self._active, self._lexical
        active = self.catalog.active_chunks(old_active)
        if list(active) == old_lexical.ids and all(active[cid] is old_active.get(cid) for cid in active):
            self._generation = generation
            return  # same chunks in the same order: nothing to rebuild
        tokens: dict[str, list[str]] = {}
        missing: dict[str, Chunk] = {}  # chunks whose terms are not in memory
        for cid, ch in active.items():
            toks = old_lexical.tokens(cid)
            if toks is not None:
                tokens[cid] = toks
            else:
                missing[cid] = ch
        if missing:
            tokens.update(self.catalog.terms_for(missing))
        lexical = LexicalIndex.from_tokens(list(active), [tokens[cid] for cid in active])
        with self._lock:  # swap both at once: readers see old or new, never a mixture
            self._active, self._lexical = active, lexical
            self._views = KbViews(active, lexical)
            self._generation = generation

    @property
    def lexical(self) -> LexicalIndex:
        return self._lexical

    def serving(self, knowledge_bases: Sequence[str] | None = None) -> tuple[dict[str, Chunk], LexicalIndex]:
        """The active chunks of ``knowledge_bases`` (None: of every one) and the BM25
        index over exactly them (``core.store.kb_views``), read together under the swap
        lock (two separate reads could straddle a reload)."""
        with self._lock:
            views = self._views
        return views.view(knowledge_bases)

    @property
    def knowledge_bases(self) -> KnowledgeBaseStore:
        """The catalog's knowledge bases (create, rename, hide, list, resolve a selection)."""
        return self.catalog.knowledge_bases

    def active_chunks(self) -> dict[str, Chunk]:
        """The chunks currently served, by chunk id (a snapshot; safe to keep)."""
        return self._active

    def get_chunk(self, chunk_id: str) -> Chunk | None:
        """Any chunk ever ingested (any version), or None."""
        return self.catalog.get_chunk(chunk_id)

    def current_versions(self) -> dict[str, str | None]:
        """``kb/source_id`` (``ChunkSnapshot.source_key``) → active version, or None for a
        source whose documents are all hidden/removed."""
        return self.catalog.current_versions()

    def parse_keys(self, knowledge_base: str = DEFAULT_KB) -> dict[str, tuple[str, list[str]]]:
        """source_id → (parse key, warnings) of the active version in ``knowledge_base``
        (``Catalog.parse_keys``)."""
        return self.catalog.parse_keys(knowledge_base)

    def documents(self, knowledge_base: str | None = None) -> list[DocumentRow]:
        """Active documents of ``knowledge_base`` (None: every one), sorted by knowledge base and source id."""
        return self.catalog.documents(knowledge_base)

    def apply(
        self,
        parsed: Sequence[tuple[SourceDocument, Sequence[Chunk]]],
        *,
        remove_missing: bool = False,
        knowledge_base: str = DEFAULT_KB,
        parse_keys: Mapping[str, tuple[str, Sequence[str]]] | None = None,
        kept: Collection[str] = (),
    ) -> dict[str, str]:
        """Store new document versions of ``knowledge_base`` and switch them active in one
        transaction. Parsed documents (``knowledge_base`` None) are placed in it first
        (``core.models.place_in_knowledge_base``: ids ``kb/source@version#n``); one placed
        in another knowledge base raises ``ValueError``, an unknown ``knowledge_base``
        ``KnowledgeBaseError``.

        Returns ``{source_id: "added" | "updated" | "unchanged"}``. Old versions
        stay in the catalog. With ``remove_missing``, sources of that knowledge base not in
        ``parsed`` (nor in ``kept``, the sources skipped as unchanged) are deactivated
        ("removed"); ``parse_keys`` see ``Catalog.apply``. Then BM25 is rebuilt and swapped in.
        """
        placed = [
            place_in_knowledge_base(doc, chunks, knowledge_base) if doc.knowledge_base is None else (doc, chunks)
            for doc, chunks in parsed
        ]
        results, stale = self.catalog.apply(
            placed, remove_missing=remove_missing, knowledge_base=knowledge_base, parse_keys=parse_keys, kept=kept
        )
        self.reload()
        self._drop_vectors(stale)
        return results

    def hide(self, source_id: str, knowledge_base: str = DEFAULT_KB) -> bool:
        """Stop serving a source of ``knowledge_base`` (its versions stay for replay).
        Returns whether it was active."""
        was_active, stale = self.catalog.hide(source_id, knowledge_base)
        self.reload()
        self._drop_vectors(stale)
        return was_active

    def hidden_documents(self, knowledge_base: str | None = None) -> list[DocumentRow]:
        """Sources of ``knowledge_base`` (None: every one) not served (hidden or removed):
        the latest version of each, by knowledge base and source id."""
        return self.catalog.hidden_documents(knowledge_base)

    def unhide(self, source_id: str, knowledge_base: str = DEFAULT_KB) -> bool:
        """Serve a hidden source of ``knowledge_base`` again (latest version;
        ``embed_pending`` restores its vectors)."""
        changed = self.catalog.unhide(source_id, knowledge_base)
        if changed:
            self.reload()
        return changed

    def catalog_generation(self) -> str:
        """The catalog's generation counter now (bumped by every ingest or hide, in any
        process); one small catalog read."""
        return self.catalog.generation()

    def refresh_if_changed(self) -> bool:
        """Reload when another process (e.g. ``python -m core ingest`` while the app
        runs) switched the catalog to a new state. One small catalog read; returns
        whether a reload happened. Threads that notice the same change together wait
        for one reload instead of each rebuilding BM25."""
        if self.catalog.generation() == self._generation:
            return False
        with self._reload_lock:
            if self.catalog.generation() == self._generation:
                return False  # another thread reloaded while this one waited
            self.reload()
        return True

    # ------------------------------------------------------- store ownership
    def owns_vectors(self) -> bool:
        """Whether this process reads and writes the vector store itself (it owns the
        embedded folder, or uses a server). False: another process owns it."""
        if self.vectors.owned:
            return True
        if self.vectors.claim():  # just took over: drop what the non-owner path cached
            self._cached = None
            self._count_cache = None
            return True
        return False

    def store_owner(self) -> store_lock.StoreOwner | None:
        """The other process that owns the embedded vector store, or None when this
        process may use it (owner, or server mode)."""
        return None if self.owns_vectors() else self.vectors.owner()

    # ------------------------------------------------------------------ dense
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


def reset_index(settings: Settings) -> None:
    """Delete the vector store and catalog of ``settings.data_dir`` (keeps answer records).

    With a Chroma server, the data folder's collection on the server is deleted too
    (``IndexError_`` when the server cannot be reached). With ``YINZHENG_DATABASE_URL`` the
    catalog is shared by every replica: not reset here (``ConfigError``, nothing deleted).
    """
    if settings.database_url:
        raise ConfigError(
            "YINZHENG_DATABASE_URL: 共享数据库中的知识库不能用 --rebuild 重建（会影响所有副本）；"
            "请由管理员在数据库中清空后再导入"
        )
    if settings.chroma_host:
        index_id = read_index_id(settings.catalog_path)
        if index_id:
            delete_server_collection(settings, collection_name_for(settings, index_id))
    shutil.rmtree(settings.chroma_dir, ignore_errors=True)
    for suffix in ("", "-wal", "-shm"):
        Path(str(settings.catalog_path) + suffix).unlink(missing_ok=True)
