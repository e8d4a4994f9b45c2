"""The knowledge-base index: a SQLite catalog of documents and chunks, a Chroma
collection of chunk vectors, and an in-memory BM25 index.

This is the only module that knows Chroma's shapes (nested result lists,
scalar metadata). Everything it returns is our own values.

* Catalog (``<data_dir>/catalog.sqlite3``, WAL): every document version and
  chunk ever ingested (old versions are kept, never overwritten, so old answers
  replay), which version of each source is active, and the embedding cache
  (vectors keyed by model name + SHA-256 of the embedded text, so unchanged
  chunks are never embedded twice).
* Chroma (``PersistentClient`` under ``<data_dir>/chroma``, or ``HttpClient``
  when ``CHROMA_HOST`` is set): cosine space, our own embedding function
  always, metadata ``embedding_model`` naming the model that built it.
* Lexical: ``core.lexical.LexicalIndex`` over the active chunks, rebuilt after
  each ingest and swapped in atomically.

Dense vectors are filled in by ``embed_pending`` (slow on a CPU), which the app
runs in the background; until it is done, retrieval uses BM25 for the chunks
that have no vector yet.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from core.config import Settings
from core.embeddings import Embedder
from core.errors import EmbeddingMismatchError, IndexError_
from core.lexical import LexicalIndex
from core.models import Chunk, SourceDocument, sha256_hex, utc_now

# Chroma tries to rebuild a stored embedding function by name; ours is always passed in.
warnings.filterwarnings("ignore", message="Could not reconstruct embedding function", category=UserWarning)

COLLECTION = "chunks"
EMBED_BATCH = 16


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
    """

    def __init__(self, settings: Settings, embedder: Embedder, *, chroma_client: Any = None) -> None:
        self.settings = settings
        self.embedder = embedder
        self._lock = threading.RLock()
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        self._db_path = settings.catalog_path
        self._init_catalog()
        self._collection = self._open_collection(chroma_client)
        self._lexical = LexicalIndex([], [])
        self._active: dict[str, Chunk] = {}
        self.reload()

    # ---------------------------------------------------------------- catalog
    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        try:
            conn = sqlite3.connect(self._db_path, timeout=30)
        except sqlite3.Error as exc:
            raise IndexError_(f"cannot open the catalog {self._db_path}: {exc}") from exc
        try:
            with conn:
                yield conn
        except sqlite3.Error as exc:
            raise IndexError_(f"catalog error in {self._db_path}: {exc}") from exc
        finally:
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
                """
            )

    def reload(self) -> None:
        """Re-read the active chunks from the catalog and rebuild the BM25 index."""
        with self._db() as db:
            rows = db.execute(
                "SELECT c.chunk_json FROM chunks c JOIN documents d "
                "ON c.source_id = d.source_id AND c.version = d.version "
                "WHERE d.active = 1 ORDER BY c.source_id, c.ordinal"
            ).fetchall()
        active = {}
        for (js,) in rows:
            ch = Chunk.model_validate_json(js)
            active[ch.chunk_id] = ch
        lexical = LexicalIndex(
            list(active), [" ".join(c.heading_path) + "\n" + c.text for c in active.values()]
        )
        with self._lock:  # swap both at once: readers see old or new, never a mixture
            self._active, self._lexical = active, lexical

    @property
    def lexical(self) -> LexicalIndex:
        return self._lexical

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
        with self._db() as db:
            current = dict(db.execute("SELECT source_id, version FROM documents WHERE active = 1").fetchall())
            for doc, chunks in parsed:
                old = current.get(doc.source_id)
                if old == doc.version:
                    results[doc.source_id] = "unchanged"
                    continue
                results[doc.source_id] = "updated" if old else "added"
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
        self.reload()
        self._drop_inactive_vectors()
        return results

    def hide(self, source_id: str) -> bool:
        """Stop serving a source (its versions stay for replay). Returns whether it was active."""
        with self._db() as db:
            n = db.execute("UPDATE documents SET active = 0 WHERE source_id = ? AND active = 1", (source_id,)).rowcount
        self.reload()
        self._drop_inactive_vectors()
        return n > 0

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
            existing = {c.name if hasattr(c, "name") else c for c in client.list_collections()}
            if COLLECTION in existing:
                meta = client.get_collection(COLLECTION, embedding_function=None).metadata or {}
                built_with = meta.get("embedding_model")
                if built_with != self.embedder.name:
                    raise EmbeddingMismatchError(
                        f"the index in {self.settings.data_dir} was built with the embedding model "
                        f"{built_with!r}, but {self.embedder.name!r} is configured. Vectors of two models "
                        "are never mixed: set YINZHENG_EMBEDDING back, or use another YINZHENG_DATA_DIR, "
                        "or rebuild with `python -m core ingest --rebuild`."
                    )
            return client.get_or_create_collection(
                COLLECTION,
                configuration={"hnsw": {"space": "cosine"}},
                metadata={"embedding_model": self.embedder.name, "dim": self.embedder.dim},
                embedding_function=_chroma_ef(self.embedder),
            )
        except EmbeddingMismatchError:
            raise
        except Exception as exc:
            raise IndexError_(f"cannot open the vector store: {exc}") from exc

    def _drop_inactive_vectors(self) -> None:
        active = self._active
        try:
            ids = self._collection.get(include=[])["ids"]
        except Exception as exc:
            raise IndexError_(f"cannot read the vector store: {exc}") from exc
        stale = [i for i in ids if i not in active]
        if stale:
            self._collection.delete(ids=stale)

    def dense_coverage(self) -> tuple[int, int]:
        """(active chunks with a vector in Chroma, active chunks)."""
        return self._collection.count(), len(self._active)

    def pending_chunks(self) -> list[Chunk]:
        """Active chunks without a vector in Chroma, in catalog order."""
        have = set(self._collection.get(include=[])["ids"])
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
        chunks added. Safe to call again after an interruption.
        """
        pending = self.pending_chunks()
        total = len(pending)
        done = 0
        for i in range(0, total, batch_size):
            if should_stop and should_stop():
                break
            batch = pending[i : i + batch_size]
            texts = [embedding_text(c) for c in batch]
            keys = [sha256_hex(t) for t in texts]
            cached = self._cached_vectors(keys)
            missing = [j for j, k in enumerate(keys) if k not in cached]
            if missing:
                vecs = self.embedder.embed([texts[j] for j in missing], "passage")
                with self._db() as db:
                    db.executemany(
                        "INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?)",
                        [(self.embedder.name, keys[j], vecs[n].astype(np.float32).tobytes()) for n, j in enumerate(missing)],
                    )
                for n, j in enumerate(missing):
                    cached[keys[j]] = vecs[n]
            live = self._active
            rows = [(c, cached[k]) for c, k in zip(batch, keys) if c.chunk_id in live]
            if rows:
                self._collection.upsert(
                    ids=[c.chunk_id for c, _ in rows],
                    embeddings=[v.tolist() for _, v in rows],
                    metadatas=[{"source_id": c.source_id, "document_id": c.document_id} for c, _ in rows],
                )
            done += len(batch)
            if progress:
                progress(done, total)
        return done

    def dense_search(self, query: str, k: int) -> list[tuple[str, float]]:
        """The ``k`` nearest active chunks as ``(chunk_id, cosine similarity)``, best first."""
        n = self._collection.count()
        if n == 0:
            return []
        qv = self.embedder.embed([query], "query")[0]
        try:
            res = self._collection.query(query_embeddings=[qv.tolist()], n_results=min(n, k * 2), include=["distances"])
        except Exception as exc:
            raise IndexError_(f"vector query failed: {exc}") from exc
        active = self._active
        ids, dists = res["ids"][0], res["distances"][0]
        return [(cid, 1.0 - float(d)) for cid, d in zip(ids, dists) if cid in active][:k]


def open_index(settings: Settings, embedder: Embedder) -> KnowledgeIndex:
    """Open (or create) the index for ``settings.data_dir`` with ``embedder``."""
    return KnowledgeIndex(settings, embedder)


def reset_index(settings: Settings) -> None:
    """Delete the vector store and catalog of ``settings.data_dir`` (keeps answer records)."""
    import shutil

    shutil.rmtree(settings.chroma_dir, ignore_errors=True)
    for suffix in ("", "-wal", "-shm"):
        Path(str(settings.catalog_path) + suffix).unlink(missing_ok=True)


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)
