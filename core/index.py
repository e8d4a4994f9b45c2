"""The knowledge-base index: a SQLite catalog of documents and chunks, a Chroma
collection of chunk vectors, and an in-memory BM25 index.

This is the only module that knows Chroma's shapes (nested result lists,
scalar metadata). Everything it returns is our own values.

* Catalog (``<data_dir>/catalog.sqlite3``, WAL): every document version and
  chunk ever ingested (old versions are kept, never overwritten, so old answers
  replay), which version of each source is active, and the embedding cache
  (vectors keyed by model name + SHA-256 of the embedded text, so unchanged
  chunks are never embedded twice).
  Also the BM25 terms of every chunk text (keyed by tokenizer id + SHA-256 of
  the text), so opening the index and re-ingesting never run jieba again over
  text it has seen, and a random ``index_id`` naming this catalog.
* Chroma (``PersistentClient`` under ``<data_dir>/chroma``, or ``HttpClient``
  when ``CHROMA_HOST`` is set): cosine space, our own embedding function
  always, metadata ``embedding_model`` naming the model that built it. The
  collection is ``chunks`` in the embedded store; on a server, which several
  data folders may share, it is ``yinzheng-<index_id>`` (one per catalog).
  Writes go in batches (``CHROMA_BATCH``); the only full read of the ids is
  the reconciliation at the start of ``embed_pending``.
* One owner per embedded Chroma folder (``core.store_lock``): only the process
  holding the folder's lock opens it; it takes the lock when it opens the index,
  or later (tried at most every ``CLAIM_SECONDS``) once the owner is gone.
  Another process keeps the catalog and BM25 as usual but never touches Chroma:
  its dense scores come from the catalog's embedding cache
  (``core.cached_vectors``), its writes leave the vectors to the owner (whose
  ``embed_pending`` reconciles), and ``embed_pending`` refuses. No lock with a
  Chroma server or an explicit client: the server owns its files.
* Lexical: ``core.lexical.LexicalIndex`` over the active chunks, rebuilt after
  each ingest (incrementally: only new chunk texts are tokenized) and swapped in
  atomically.

Dense vectors are filled in by ``embed_pending`` (slow on a CPU), which the app
runs in the background; until it is done, retrieval uses BM25 for the chunks
that have no vector yet.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from core import store_lock
from core.cached_vectors import VectorMatrix
from core.config import Settings
from core.embeddings import Embedder
from core.errors import EmbeddingMismatchError, IndexError_
from core.lexical import TOKENIZER_ID, LexicalIndex, tokenize
from core.models import Chunk, SourceDocument, sha256_hex, utc_now

# Chroma tries to rebuild a stored embedding function by name; ours is always passed in.
warnings.filterwarnings("ignore", message="Could not reconstruct embedding function", category=UserWarning)

COLLECTION = "chunks"  # the collection name in embedded mode (one Chroma folder per data folder)
SERVER_COLLECTION_PREFIX = "yinzheng-"


def collection_name_for(settings: Settings, index_id: str) -> str:
    """The Chroma collection of a data folder: ``chunks`` in its own embedded store;
    on a Chroma server (shared by several data folders, tests, machines)
    ``yinzheng-<index id>``, where the index id is a random id stored in the
    folder's catalog, so each catalog has its own collection and two never collide."""
    return SERVER_COLLECTION_PREFIX + index_id if settings.chroma_host else COLLECTION
EMBED_BATCH = 16
#: Vectors per Chroma write (upsert/delete); writes are also flushed every FLUSH_SECONDS.
CHROMA_BATCH = 1000
FLUSH_SECONDS = 2.0
#: Seconds a vector count is reused (writes through this index drop it at once).
COUNT_TTL = 5.0
#: Seconds between two attempts of a non-owner to take over the embedded store.
CLAIM_SECONDS = 2.0


def lexical_text(chunk: Chunk) -> str:
    """The text BM25 indexes for a chunk: its heading path (joined with spaces) and its text."""
    return " ".join(chunk.heading_path) + "\n" + chunk.text


def embedding_text(chunk: Chunk) -> str:
    """The text embedded for a chunk: its heading path (joined with › ) and its text."""
    return " › ".join(chunk.heading_path) + "\n" + chunk.text


def _chroma_ef(embedder: Embedder) -> Any:
    from chromadb.api.types import EmbeddingFunction

    class _OurEmbeddingFunction(EmbeddingFunction):  # type: ignore[type-arg]
        def __init__(self) -> None:
            self._embedder = embedder

        def __call__(self, input: Sequence[str]) -> Any:  # noqa: A002 - Chroma's name
            return [v for v in self._embedder.embed(list(input), "passage")]

        def embed_query(self, input: Sequence[str]) -> Any:  # noqa: A002
            return [v for v in self._embedder.embed(list(input), "query")]

        @staticmethod
        def name() -> str:
            return "yinzheng"

        def get_config(self) -> dict[str, Any]:
            return {"model": embedder.name}

        @staticmethod
        def build_from_config(config: dict[str, Any]) -> Any:  # pragma: no cover
            raise NotImplementedError("yinzheng opens collections with its own embedder")

        def is_legacy(self) -> bool:
            return False

        def default_space(self) -> str:
            return "cosine"

    return _OurEmbeddingFunction()


@dataclass(frozen=True)
class DocumentRow:
    document: SourceDocument
    chunk_count: int
    active: bool
    ingested_at: str


class KnowledgeIndex:
    """Catalog + Chroma + BM25 for one data folder and one embedding model.

    Raises ``EmbeddingMismatchError`` when the collection was built with another
    embedding model, ``IndexError_`` when the store cannot be opened.
    Thread-safe: reads may run while ``embed_pending`` or an ingest writes.
    Opens the embedded Chroma folder only when this process owns it (see the
    module doc); ``store_owner()`` names the other process when it does not.
    """

    def __init__(
        self, settings: Settings, embedder: Embedder, *, chroma_client: Any = None, collection_name: str | None = None
    ) -> None:
        self.settings = settings
        self.embedder = embedder
        self._lock = threading.RLock()
        self._reload_lock = threading.Lock()  # one reload at a time in refresh_if_changed
        self._local = threading.local()
        self._count_cache: tuple[float, int] | None = None
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        self._db_path = settings.catalog_path
        self._init_catalog()
        self.collection_name = collection_name or collection_name_for(settings, self.index_id)
        self._collection: Any = None
        self._next_claim = 0.0
        self._cached: VectorMatrix | None = None  # dense vectors from the catalog cache (non-owner only)
        if chroma_client is not None or settings.chroma_host or self._take_store():
            self._collection = self._open_collection(chroma_client)
        self._lexical = LexicalIndex([], [])
        self._active: dict[str, Chunk] = {}
        self._generation = ""
        self.reload()

    # ---------------------------------------------------------------- catalog
    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        """A transaction on this thread's catalog connection (kept open: opening and
        closing the only connection of a WAL database checkpoints it every time)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = sqlite3.connect(self._db_path, timeout=30)
                conn.execute("PRAGMA synchronous=NORMAL")  # WAL: durable on crash, may lose the last commit on power loss
            except sqlite3.Error as exc:
                raise IndexError_(f"cannot open the catalog {self._db_path}: {exc}") from exc
            self._local.conn = conn
        try:
            with conn:
                yield conn
        except sqlite3.Error as exc:
            raise IndexError_(f"catalog error in {self._db_path}: {exc}") from exc

    def close(self) -> None:
        """Close this thread's catalog connection (reopened on the next use)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            self._local.conn = None
            conn.close()

    def _init_catalog(self) -> None:
        with self._db() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(
                """
                CREATE TABLE IF NOT EXISTS documents (
                    source_id TEXT NOT NULL, version TEXT NOT NULL, document_json TEXT NOT NULL,
                    active INTEGER NOT NULL DEFAULT 0, chunk_count INTEGER NOT NULL,
                    ingested_at TEXT NOT NULL, PRIMARY KEY (source_id, version));
                CREATE INDEX IF NOT EXISTS documents_active ON documents(active);
                CREATE TABLE IF NOT EXISTS chunks (
                    chunk_id TEXT PRIMARY KEY, source_id TEXT NOT NULL, version TEXT NOT NULL,
                    ordinal INTEGER NOT NULL, chunk_json TEXT NOT NULL);
                CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(source_id, version);
                CREATE TABLE IF NOT EXISTS embeddings (
                    model TEXT NOT NULL, text_sha256 TEXT NOT NULL, vector BLOB NOT NULL,
                    PRIMARY KEY (model, text_sha256));
                CREATE TABLE IF NOT EXISTS lexical_terms (
                    tokenizer TEXT NOT NULL, text_sha256 TEXT NOT NULL, terms TEXT NOT NULL,
                    PRIMARY KEY (tokenizer, text_sha256));
                CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                """
            )
            db.execute("INSERT OR IGNORE INTO meta VALUES ('index_id', ?)", (uuid.uuid4().hex[:16],))
            self.index_id: str = db.execute("SELECT value FROM meta WHERE key = 'index_id'").fetchone()[0]

    def reload(self) -> None:
        """Re-read the active chunks from the catalog and rebuild the BM25 index.

        Incremental: chunks already served are not parsed again, their terms are
        reused, and terms of new chunks come from the catalog's term cache
        (``lexical_terms``, keyed by tokenizer and text hash) or are computed once
        and stored. When the active set is unchanged, the BM25 index is kept.
        """
        generation = self._read_generation()
        with self._db() as db:
            rows = db.execute(
                "SELECT c.chunk_id, c.chunk_json FROM chunks c JOIN documents d "
                "ON c.source_id = d.source_id AND c.version = d.version "
                "WHERE d.active = 1 ORDER BY c.source_id, c.ordinal"
            ).fetchall()
        old_active, old_lexical = self._active, self._lexical
        if [cid for cid, _ in rows] == old_lexical.ids and all(cid in old_active for cid, _ in rows):
            self._generation = generation
            return  # same chunks in the same order: nothing to rebuild
        active: dict[str, Chunk] = {}
        for cid, js in rows:
            ch = old_active.get(cid)
            active[cid] = ch if ch is not None else Chunk.model_validate_json(js)
        tokens: dict[str, list[str]] = {}
        missing: dict[str, str] = {}  # chunk_id -> text sha of chunks whose terms are not in memory
        for cid, ch in active.items():
            toks = old_lexical.tokens(cid)
            if toks is not None:
                tokens[cid] = toks
            else:
                missing[cid] = sha256_hex(lexical_text(ch))
        if missing:
            tokens.update(self._terms_for({cid: (active[cid], key) for cid, key in missing.items()}))
        lexical = LexicalIndex.from_tokens(list(active), [tokens[cid] for cid in active])
        with self._lock:  # swap both at once: readers see old or new, never a mixture
            self._active, self._lexical = active, lexical
            self._generation = generation

    def _terms_for(self, wanted: dict[str, tuple[Chunk, str]]) -> dict[str, list[str]]:
        """Terms per chunk id: from the catalog's term cache, else tokenized now and stored."""
        keys = sorted({key for _, key in wanted.values()})
        cached: dict[str, list[str]] = {}
        with self._db() as db:
            for i in range(0, len(keys), 500):
                part = keys[i : i + 500]
                q = "SELECT text_sha256, terms FROM lexical_terms WHERE tokenizer = ? AND text_sha256 IN (%s)" % ",".join(
                    "?" * len(part)
                )
                for key, terms in db.execute(q, (TOKENIZER_ID, *part)):
                    cached[key] = json.loads(terms)
        new: dict[str, list[str]] = {}
        out: dict[str, list[str]] = {}
        for cid, (ch, key) in wanted.items():
            if key not in cached and key not in new:
                new[key] = tokenize(lexical_text(ch))
            out[cid] = cached.get(key) or new.get(key) or []
        if new:
            with self._db() as db:
                db.executemany(
                    "INSERT OR REPLACE INTO lexical_terms VALUES (?, ?, ?)",
                    [(TOKENIZER_ID, key, json.dumps(terms, ensure_ascii=False)) for key, terms in new.items()],
                )
        return out

    @property
    def lexical(self) -> LexicalIndex:
        return self._lexical

    def serving(self) -> tuple[dict[str, Chunk], LexicalIndex]:
        """The active chunks and the BM25 index over them, read together under the
        swap lock (two separate reads could straddle a reload)."""
        with self._lock:
            return self._active, self._lexical

    def active_chunks(self) -> dict[str, Chunk]:
        """The chunks currently served, by chunk id (a snapshot; safe to keep)."""
        return self._active

    def get_chunk(self, chunk_id: str) -> Chunk | None:
        """Any chunk ever ingested (any version), or None."""
        with self._db() as db:
            row = db.execute("SELECT chunk_json FROM chunks WHERE chunk_id = ?", (chunk_id,)).fetchone()
        return Chunk.model_validate_json(row[0]) if row else None

    def current_versions(self) -> dict[str, str | None]:
        """source_id → active version, or None for a source whose documents are all hidden/removed."""
        out: dict[str, str | None] = {}
        with self._db() as db:
            for sid, version, active in db.execute("SELECT source_id, version, active FROM documents"):
                if active:
                    out[sid] = version
                else:
                    out.setdefault(sid, None)
        return out

    def documents(self) -> list[DocumentRow]:
        """Active documents, sorted by source id."""
        with self._db() as db:
            rows = db.execute(
                "SELECT document_json, chunk_count, active, ingested_at FROM documents "
                "WHERE active = 1 ORDER BY source_id"
            ).fetchall()
        return [
            DocumentRow(SourceDocument.model_validate_json(js), n, bool(a), at) for js, n, a, at in rows
        ]

    def apply(self, parsed: Sequence[tuple[SourceDocument, Sequence[Chunk]]], *, remove_missing: bool = False) -> dict[str, str]:
        """Store new document versions and switch them active in one transaction.

        Returns ``{source_id: "added" | "updated" | "unchanged"}``. Old versions
        stay in the catalog. With ``remove_missing``, sources not in ``parsed``
        are deactivated ("removed"). Then BM25 is rebuilt and swapped in.
        """
        results: dict[str, str] = {}
        now = utc_now().isoformat()
        retired: list[tuple[str, str]] = []  # (source_id, version) switched off here
        with self._db() as db:
            current = dict(db.execute("SELECT source_id, version FROM documents WHERE active = 1").fetchall())
            for doc, chunks in parsed:
                old = current.get(doc.source_id)
                if old == doc.version:
                    results[doc.source_id] = "unchanged"
                    continue
                results[doc.source_id] = "updated" if old else "added"
                if old:
                    retired.append((doc.source_id, old))
                db.execute(
                    "INSERT OR IGNORE INTO documents VALUES (?, ?, ?, 0, ?, ?)",
                    (doc.source_id, doc.version, doc.model_dump_json(), len(chunks), now),
                )
                db.executemany(
                    "INSERT OR IGNORE INTO chunks VALUES (?, ?, ?, ?, ?)",
                    [(c.chunk_id, c.source_id, c.version, c.ordinal, c.model_dump_json()) for c in chunks],
                )
                db.execute("UPDATE documents SET active = 0 WHERE source_id = ?", (doc.source_id,))
                db.execute(
                    "UPDATE documents SET active = 1 WHERE source_id = ? AND version = ?",
                    (doc.source_id, doc.version),
                )
            if remove_missing:
                seen = {d.source_id for d, _ in parsed}
                for sid in current:
                    if sid not in seen:
                        db.execute("UPDATE documents SET active = 0 WHERE source_id = ?", (sid,))
                        results[sid] = "removed"
                        retired.append((sid, current[sid]))
            stale = self._chunk_ids_of(db, retired)
            self._bump_generation(db)
        self.reload()
        self._drop_vectors(stale)
        return results

    def hide(self, source_id: str) -> bool:
        """Stop serving a source (its versions stay for replay). Returns whether it was active."""
        with self._db() as db:
            versions = [(source_id, v) for (v,) in db.execute(
                "SELECT version FROM documents WHERE source_id = ? AND active = 1", (source_id,)
            )]
            n = db.execute("UPDATE documents SET active = 0 WHERE source_id = ? AND active = 1", (source_id,)).rowcount
            stale = self._chunk_ids_of(db, versions)
            self._bump_generation(db)
        self.reload()
        self._drop_vectors(stale)
        return n > 0

    @staticmethod
    def _bump_generation(db: sqlite3.Connection) -> None:
        db.execute(
            "INSERT INTO meta VALUES ('generation', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)"
        )

    def _read_generation(self) -> str:
        with self._db() as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return row[0] if row else "0"

    def catalog_generation(self) -> str:
        """The catalog's generation counter now (bumped by every ingest or hide, in any
        process); one small catalog read."""
        return self._read_generation()

    def refresh_if_changed(self) -> bool:
        """Reload when another process (e.g. ``python -m core ingest`` while the app
        runs) switched the catalog to a new state. One small catalog read; returns
        whether a reload happened. Threads that notice the same change together wait
        for one reload instead of each rebuilding BM25."""
        if self._read_generation() == self._generation:
            return False
        with self._reload_lock:
            if self._read_generation() == self._generation:
                return False  # another thread reloaded while this one waited
            self.reload()
        return True

    @staticmethod
    def _chunk_ids_of(db: sqlite3.Connection, versions: Sequence[tuple[str, str]]) -> list[str]:
        out: list[str] = []
        for sid, version in versions:
            out.extend(cid for (cid,) in db.execute(
                "SELECT chunk_id FROM chunks WHERE source_id = ? AND version = ?", (sid, version)
            ))
        return out

    # ------------------------------------------------------------------ dense
    def _open_collection(self, client: Any) -> Any:
        with warnings.catch_warnings():
            # Chroma tries to rebuild a stored embedding function by name; ours is always passed in.
            warnings.filterwarnings("ignore", message="Could not reconstruct embedding function")
            return self._open_collection_inner(client)

    def _open_collection_inner(self, client: Any) -> Any:
        try:
            import chromadb
            from chromadb.config import Settings as ChromaSettings

            if client is None:
                chroma_settings = ChromaSettings(anonymized_telemetry=False)
                if self.settings.chroma_host:
                    client = chromadb.HttpClient(
                        host=self.settings.chroma_host, port=self.settings.chroma_port, settings=chroma_settings
                    )
                else:
                    client = chromadb.PersistentClient(path=str(self.settings.chroma_dir), settings=chroma_settings)
            self._client = client
            name = self.collection_name
            existing = {c.name if hasattr(c, "name") else c for c in client.list_collections()}
            if name in existing:
                meta = client.get_collection(name, embedding_function=None).metadata or {}
                built_with = meta.get("embedding_model")
                if built_with != self.embedder.name:
                    raise EmbeddingMismatchError(
                        f"the index in {self.settings.data_dir} (collection {name!r}) was built with the embedding model "
                        f"{built_with!r}, but {self.embedder.name!r} is configured. Vectors of two models "
                        "are never mixed: set YINZHENG_EMBEDDING back, or use another YINZHENG_DATA_DIR, "
                        "or rebuild with `python -m core ingest --rebuild`."
                    )
            return client.get_or_create_collection(
                name,
                configuration={"hnsw": {"space": "cosine"}},
                metadata={"embedding_model": self.embedder.name, "dim": self.embedder.dim},
                embedding_function=_chroma_ef(self.embedder),
            )
        except EmbeddingMismatchError:
            raise
        except Exception as exc:
            raise IndexError_(f"cannot open the vector store: {exc}") from exc

    # ------------------------------------------------------- store ownership
    def _store(self) -> Any | None:
        """The Chroma collection when this process may open it (owner of the embedded
        folder, or a server), else None. A non-owner tries to take over at most every
        ``CLAIM_SECONDS`` (e.g. the app after a command-line ingest ended) and opens
        Chroma when it gets the lock."""
        store = self._collection
        if store is not None:
            return store
        now = time.monotonic()
        if now < self._next_claim:
            return None
        self._next_claim = now + CLAIM_SECONDS
        with self._lock:
            if self._collection is None and self._take_store():
                self._collection = self._open_collection(None)
                self._cached = None
                self._count_cache = None
        return self._collection

    def _take_store(self) -> bool:
        """Try to become the owner of the embedded Chroma folder (``store_lock.acquire``)."""
        try:
            return store_lock.acquire(self.settings.chroma_dir)
        except OSError as exc:
            raise IndexError_(f"cannot lock the vector store {self.settings.chroma_dir}: {exc}") from exc

    def owns_vectors(self) -> bool:
        """Whether this process reads and writes the vector store itself (it owns the
        embedded folder, or uses a server). False: another process owns it."""
        return self._store() is not None

    def store_owner(self) -> store_lock.StoreOwner | None:
        """The other process that owns the embedded vector store, or None when this
        process may use it (owner, or server mode)."""
        if self.owns_vectors():
            return None
        return store_lock.owner(self.settings.chroma_dir) or store_lock.StoreOwner(None, "", "")

    def _chroma_read(self, what: str, read: Callable[[Any], Any]) -> Any:
        """Run a Chroma read. A read that fails mid-swap (e.g. "Error finding id" when
        an ingest removed vectors under it) is retried once on the catalog's current
        generation (``refresh_if_changed``); a second failure raises ``IndexError_``."""
        store = self._store()
        try:
            return read(store)
        except Exception:  # noqa: BLE001 - retried once below, then mapped
            self._count_cache = None
            self.refresh_if_changed()
        try:
            return read(store)
        except Exception as exc:
            raise IndexError_(f"{what}: {exc}") from exc

    def _cached_matrix(self) -> VectorMatrix:
        """Non-owner: the vectors of the active chunks from the catalog's embedding cache
        (written by the owner's ``embed_pending``), rebuilt when the active set changes,
        and every ``COUNT_TTL`` seconds while some active chunk has none yet."""
        active = self._active
        m = self._cached
        if m is not None and m.source is active and (len(m) == len(active) or time.monotonic() - m.built_at < COUNT_TTL):
            return m
        keys = {cid: sha256_hex(embedding_text(c)) for cid, c in active.items()}
        vectors = self._cached_vectors(sorted(set(keys.values())))
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
        store = self._store()
        if not stale or store is None:
            return
        self._count_cache = None
        try:
            for i in range(0, len(stale), CHROMA_BATCH):
                store.delete(ids=stale[i : i + CHROMA_BATCH])
        except Exception as exc:
            raise IndexError_(f"cannot write the vector store: {exc}") from exc

    def _vector_ids(self) -> set[str]:
        """Ids with a vector: in Chroma (owner), or active chunks with a cached vector (non-owner)."""
        if self._store() is None:
            return set(self._cached_matrix().ids)
        return set(self._chroma_read("cannot read the vector store", lambda c: c.get(include=[])["ids"]))

    def _drop_inactive_vectors(self) -> None:
        """Full sweep: delete every vector whose chunk is not active (one read of all ids)."""
        active = self._active
        self._drop_vectors([i for i in self._vector_ids() if i not in active])

    def _vector_count(self) -> int:
        """Vectors in the collection; cached for ``COUNT_TTL`` seconds (a count is a
        round trip to Chroma, and every question needs it), dropped on our own writes.
        Non-owner: active chunks with a cached vector."""
        if self._store() is None:
            return len(self._cached_matrix())
        cached = self._count_cache
        now = time.monotonic()
        if cached is not None and now - cached[0] < COUNT_TTL:
            return cached[1]
        n = self._chroma_read("cannot read the vector store", lambda c: c.count())
        self._count_cache = (now, n)
        return n

    def dense_coverage(self) -> tuple[int, int]:
        """(active chunks with a vector in Chroma, active chunks)."""
        return self._vector_count(), len(self._active)

    def pending_chunks(self) -> list[Chunk]:
        """Active chunks without a vector in Chroma, in catalog order."""
        have = self._vector_ids()
        return [c for cid, c in self._active.items() if cid not in have]

    def _cached_vectors(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        with self._db() as db:
            for i in range(0, len(keys), 500):
                part = keys[i : i + 500]
                q = "SELECT text_sha256, vector FROM embeddings WHERE model = ? AND text_sha256 IN (%s)" % ",".join(
                    "?" * len(part)
                )
                for key, blob in db.execute(q, (self.embedder.name, *part)):
                    out[key] = np.frombuffer(blob, dtype=np.float32)
        return out

    def embed_pending(
        self,
        progress: Callable[[int, int], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
        batch_size: int = EMBED_BATCH,
    ) -> int:
        """Embed every active chunk that has no vector yet and add it to Chroma.

        Vectors come from the cache when the same text was embedded before.
        Calls ``progress(done, total)`` after each batch. Returns the number of
        chunks added. Safe to call again after an interruption. Raises
        ``IndexError_`` naming the owner when another process owns the store.
        """
        store = self._store()
        if store is None:
            raise IndexError_(
                f"向量库 {self.settings.chroma_dir} 由{self.store_owner().describe()}持有：本进程不写入它，"
                "向量由持有它的进程（应用的后台向量任务）补齐"
            )
        have = self._vector_ids()
        active = self._active
        stale = [i for i in have if i not in active]
        if stale:  # reconcile: vectors of chunks no longer served (e.g. after an interrupted ingest)
            self._drop_vectors(stale)
        pending = [c for cid, c in active.items() if cid not in have]
        total = len(pending)
        texts = [embedding_text(c) for c in pending]
        keys = [sha256_hex(t) for t in texts]
        cached = self._cached_vectors(sorted(set(keys)))
        buffer: list[tuple[Chunk, np.ndarray]] = []
        new_vectors: list[tuple[str, str, bytes]] = []  # embedding cache rows not yet written
        last_flush = time.monotonic()

        def flush() -> None:
            nonlocal buffer, new_vectors, last_flush
            if new_vectors:
                with self._db() as db:
                    db.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?)", new_vectors)
                new_vectors = []
            live = self._active
            rows = [(c, v) for c, v in buffer if c.chunk_id in live]
            for i in range(0, len(rows), CHROMA_BATCH):
                part = rows[i : i + CHROMA_BATCH]
                store.upsert(
                    ids=[c.chunk_id for c, _ in part],
                    embeddings=np.stack([v for _, v in part]).astype(np.float32),
                    metadatas=[{"source_id": c.source_id, "document_id": c.document_id} for c, _ in part],
                )
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
                    new_vectors.extend(
                        (self.embedder.name, k, vecs[n].astype(np.float32).tobytes()) for n, k in enumerate(missing)
                    )
                    for n, k in enumerate(missing):
                        cached[k] = vecs[n]
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

    def query_vector(self, query: str) -> np.ndarray | None:
        """The query embedding (``embedder.dim`` floats, L2-normalized), or None when no chunk has a vector."""
        if self._vector_count() == 0:
            return None
        return self.embedder.embed([query], "query")[0]

    def dense_search_vector(self, qv: np.ndarray | None, k: int) -> list[tuple[str, float]]:
        """The ``k`` nearest active chunks to ``qv`` as ``(chunk_id, cosine similarity)``, best first."""
        n = self._vector_count()
        if qv is None or n == 0:
            return []
        if self._store() is None:
            return self._cached_matrix().search(qv, k)
        res = self._chroma_read(
            "vector query failed",
            lambda c: c.query(query_embeddings=[qv.tolist()], n_results=min(n, k * 2), include=["distances"]),
        )
        active = self._active
        ids, dists = res["ids"][0], res["distances"][0]
        return [(cid, 1.0 - float(d)) for cid, d in zip(ids, dists) if cid in active][:k]

    def dense_similarities(self, qv: np.ndarray | None, chunk_ids: Sequence[str]) -> dict[str, float]:
        """Exact cosine similarity of ``qv`` to each given chunk that has a vector
        (one Chroma ``get``); chunks without a vector are left out."""
        if qv is None or not chunk_ids:
            return {}
        if self._store() is None:
            return self._cached_matrix().similarities(qv, chunk_ids)
        res = self._chroma_read("vector read failed", lambda c: c.get(ids=list(chunk_ids), include=["embeddings"]))
        embs = res.get("embeddings")
        if embs is None or len(embs) == 0:
            return {}
        mat = np.asarray(embs, dtype=np.float32)
        sims = mat @ np.asarray(qv, dtype=np.float32)
        return {cid: float(v) for cid, v in zip(res["ids"], sims)}

    def dense_search(self, query: str, k: int) -> list[tuple[str, float]]:
        """The ``k`` nearest active chunks as ``(chunk_id, cosine similarity)``, best first."""
        return self.dense_search_vector(self.query_vector(query), k)


def open_index(settings: Settings, embedder: Embedder) -> KnowledgeIndex:
    """Open (or create) the index for ``settings.data_dir`` with ``embedder``."""
    return KnowledgeIndex(settings, embedder)


def reset_index(settings: Settings) -> None:
    """Delete the vector store and catalog of ``settings.data_dir`` (keeps answer records).

    With a Chroma server, the data folder's collection on the server is deleted too.
    """
    import shutil

    if settings.chroma_host and settings.catalog_path.exists():
        try:
            db = sqlite3.connect(settings.catalog_path, timeout=30)
            try:
                row = db.execute("SELECT value FROM meta WHERE key = 'index_id'").fetchone()
            finally:
                db.close()
        except sqlite3.Error:
            row = None
        if row:
            try:
                import chromadb
                from chromadb.config import Settings as ChromaSettings

                client = chromadb.HttpClient(
                    host=settings.chroma_host, port=settings.chroma_port,
                    settings=ChromaSettings(anonymized_telemetry=False),
                )
                client.delete_collection(collection_name_for(settings, row[0]))
            except Exception as exc:  # noqa: BLE001 - a missing collection is fine; an unreachable server is not
                if "does not exist" not in str(exc).lower() and "not found" not in str(exc).lower():
                    raise IndexError_(f"cannot delete the collection on the Chroma server: {exc}") from exc
    shutil.rmtree(settings.chroma_dir, ignore_errors=True)
    for suffix in ("", "-wal", "-shm"):
        Path(str(settings.catalog_path) + suffix).unlink(missing_ok=True)


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)
