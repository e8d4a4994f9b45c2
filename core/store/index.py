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

The dense half (vector counts and coverage, ``embed_pending``, repair, dense search) is
``core.store.dense_index.DenseVectors``, a base of ``KnowledgeIndex``; this module keeps the
catalog reads and writes, the BM25 swap and store ownership.
"""

from __future__ import annotations

import logging
import shutil
import threading
from pathlib import Path
from typing import Any, Collection, Mapping, Sequence, TypeVar

from core.config import Settings
from core.errors import ConfigError, IndexError_
from core.lexical import LexicalIndex
from core.models import DEFAULT_KB, Chunk, SourceDocument, place_in_knowledge_base
from core.store import store_lock
from core.store.cached_vectors import VectorMatrix
from core.store.catalog import Catalog, DocumentRow, embedding_text, lexical_text, read_index_id
from core.store.dense_index import DenseVectors
from core.store.embeddings import Embedder
from core.store.kb_views import KbViews
from core.store.knowledge_bases import KnowledgeBaseStore
from core.store.second_vectors import SecondVectors
from core.store.vector_store import (
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


class KnowledgeIndex(DenseVectors):
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
