"""The Chroma adapter: the only module that imports ``chromadb`` or knows its
shapes (nested result lists, scalar metadata). Everything it returns is our own
values; every Chroma call that fails raises ``IndexError_`` (``from`` the
library's error).

* ``PersistentClient`` under ``<data_dir>/chroma``, or ``HttpClient`` when
  ``CHROMA_HOST`` is set; cosine space; our own embedding function always;
  metadata ``embedding_model`` names the model that built the collection
  (another model: ``EmbeddingMismatchError``). The collection is ``chunks`` in
  the embedded store; on a server, which several data folders may share, it is
  ``yinzheng-<index_id>`` (one per catalog).
* One owner per embedded Chroma folder (``core.store.store_lock``): this process opens
  the folder only while it holds the folder's lock; a non-owner tries to take
  it over at most every ``CLAIM_SECONDS``. No lock with a server or an explicit
  client: the server owns its files.
* Which exceptions: chromadb raises its ``ChromaError`` tree, but also a bare
  ``Exception`` for server replies it cannot map
  (``chromadb/api/base_http_client.py`` ``_raise_chroma_error``, chromadb 1.5)
  and from its Rust bindings (e.g. "Error finding id" when a read races a
  delete). So the adapter maps ``Exception`` except the programming errors
  (``TypeError``, ``AttributeError``, ``NameError``, ``AssertionError``), which propagate.
"""

from __future__ import annotations

import logging
import threading
import time
import warnings
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from core.config import Settings
from core.errors import EmbeddingMismatchError, IndexError_
from core.models import DEFAULT_KB, Chunk
from core.store import store_lock
from core.store.embeddings import Embedder

log = logging.getLogger(__name__)

# Chroma tries to rebuild a stored embedding function by name; ours is always passed in.
warnings.filterwarnings("ignore", message="Could not reconstruct embedding function", category=UserWarning)

COLLECTION = "chunks"  # the collection name in embedded mode (one Chroma folder per data folder)
SERVER_COLLECTION_PREFIX = "yinzheng-"
#: Vectors per Chroma write (upsert/delete).
CHROMA_BATCH = 1000
#: Seconds between two attempts of a non-owner to take over the embedded store.
CLAIM_SECONDS = 2.0
_PROGRAMMING_ERRORS = (TypeError, AttributeError, NameError, AssertionError)


def collection_name_for(settings: Settings, index_id: str) -> str:
    """The Chroma collection of a data folder: ``chunks`` in its own embedded store;
    on a Chroma server (shared by several data folders, tests, machines)
    ``yinzheng-<index id>``, where the index id is a random id stored in the
    folder's catalog, so each catalog has its own collection and two never collide."""
    return SERVER_COLLECTION_PREFIX + index_id if settings.chroma_host else COLLECTION


@contextmanager
def chroma_errors(what: str) -> Iterator[None]:
    """Map a failing Chroma call to ``IndexError_("<what>: <error>")`` (see the module doc)."""
    try:
        yield
    except (*_PROGRAMMING_ERRORS, EmbeddingMismatchError):
        raise
    except Exception as exc:  # noqa: BLE001 - chromadb raises bare Exception (module doc)
        log.debug("%s", what, exc_info=True)
        raise IndexError_(f"{what}: {exc}") from exc


def _client(settings: Settings) -> Any:
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    if settings.chroma_host:
        return chromadb.HttpClient(host=settings.chroma_host, port=settings.chroma_port, settings=chroma_settings)
    return chromadb.PersistentClient(path=str(settings.chroma_dir), settings=chroma_settings)


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


def mismatch_error(settings: Settings, name: str, built_with: str | None, configured: str) -> EmbeddingMismatchError:
    """The error for a collection built with the model ``built_with`` opened with ``configured``."""
    return EmbeddingMismatchError(
        f"the index in {settings.data_dir} (collection {name!r}) was built with the "
        f"embedding model {built_with!r}, but {configured!r} is configured. Vectors of two "
        "models are never mixed: set YINZHENG_EMBEDDING back, or use another YINZHENG_DATA_DIR, "
        "or rebuild with `python -m core ingest --rebuild`."
    )


def delete_server_collection(settings: Settings, name: str) -> None:
    """Delete collection ``name`` on the Chroma server of ``settings``; a missing
    collection is fine, an unreachable server raises ``IndexError_``."""
    try:
        with chroma_errors("cannot delete the collection on the Chroma server"):
            _client(settings).delete_collection(name)
    except IndexError_ as exc:
        text = str(exc).lower()
        if "does not exist" not in text and "not found" not in text:
            raise
        log.info("collection %s was not on the server", name, exc_info=True)


class VectorStore:
    """The Chroma collection of one data folder, opened while this process may.

    ``collection``: the Chroma collection, or None while another process owns
    the embedded folder. Raises ``EmbeddingMismatchError`` when the collection
    was built with another model, ``IndexError_`` when Chroma fails.

    ``lazy``: an embedded store is opened (chromadb imported, its folder read: 1–3 s on a
    first start) on the first call that needs it, not here; until then a store whose
    folder does not exist yet counts as empty without being opened (the first answer on a
    fresh data folder is keyword-only and never needs Chroma). The caller has checked the
    embedding model already (``KnowledgeIndex``: the model recorded in the catalog).
    ``on_open`` runs once after the collection is opened (and its model checked).
    """

    def __init__(
        self,
        settings: Settings,
        embedder: Embedder,
        name: str,
        *,
        client: Any = None,
        lazy: bool = False,
        on_open: Callable[[], None] | None = None,
    ) -> None:
        self.settings = settings
        self.embedder = embedder
        self.name = name
        self._lock = threading.Lock()
        self._next_claim = 0.0
        self._client = client
        self._on_open = on_open
        self._collection: Any = None
        #: this process may open the store (it holds the embedded folder's lock, or a server/client is used)
        self.owned = bool(client is not None or settings.chroma_host or self._take())
        if self.owned and not (lazy and client is None and not settings.chroma_host):
            self._open_now()

    @property
    def collection(self) -> Any:
        """The open Chroma collection (opened here on first use when lazy), or None for a non-owner."""
        if self._collection is None and self.owned:
            self._open_now()
        return self._collection

    @collection.setter
    def collection(self, value: Any) -> None:  # tests and the bench wrap the raw collection
        self._collection = value

    def _open_now(self) -> None:
        with self._lock:
            if self._collection is None:
                self._collection = self._open(self._client)
                if self._on_open is not None:
                    self._on_open()

    def _unopened_and_absent(self) -> bool:
        """Not opened yet, and the embedded folder does not exist: nothing is stored (no need to open)."""
        return (
            self._collection is None
            and self._client is None
            and not self.settings.chroma_host
            and not self.settings.chroma_dir.exists()
        )

    def _open(self, client: Any) -> Any:
        with warnings.catch_warnings(), chroma_errors("cannot open the vector store"):
            warnings.filterwarnings("ignore", message="Could not reconstruct embedding function")
            client = client if client is not None else _client(self.settings)
            existing = {c.name if hasattr(c, "name") else c for c in client.list_collections()}
            if self.name in existing:
                built_with = (client.get_collection(self.name, embedding_function=None).metadata or {}).get(
                    "embedding_model"
                )
                if built_with != self.embedder.name:
                    raise mismatch_error(self.settings, self.name, built_with, self.embedder.name)
            return client.get_or_create_collection(
                self.name,
                configuration={"hnsw": {"space": "cosine"}},
                metadata={"embedding_model": self.embedder.name, "dim": self.embedder.dim},
                embedding_function=_chroma_ef(self.embedder),
            )

    # ------------------------------------------------------- ownership
    def _take(self) -> bool:
        try:
            return store_lock.acquire(self.settings.chroma_dir)
        except OSError as exc:
            raise IndexError_(f"cannot lock the vector store {self.settings.chroma_dir}: {exc}") from exc

    def claim(self) -> bool:
        """Whether this process may use the collection (opened lazily). A non-owner tries to take the folder's
        lock at most every ``CLAIM_SECONDS`` (e.g. the app after a command-line ingest
        ended) and opens Chroma when it gets it."""
        if self.owned:
            return True
        now = time.monotonic()
        if now < self._next_claim:
            return False
        self._next_claim = now + CLAIM_SECONDS
        if self._take():
            self.owned = True
            self._open_now()
        return self.owned

    def owner(self) -> store_lock.StoreOwner:
        """The other process holding the embedded folder (unknown fields empty when it cannot be read)."""
        return store_lock.owner(self.settings.chroma_dir) or store_lock.StoreOwner(None, "", "")

    # ----------------------------------------------------------- calls
    def ids(self) -> set[str]:
        """Every id with a vector (one full read)."""
        if self._unopened_and_absent():
            return set()
        with chroma_errors("cannot read the vector store"):
            return set(self.collection.get(include=[])["ids"])

    def count(self) -> int:
        """Vectors in the collection (one round trip)."""
        if self._unopened_and_absent():
            return 0
        with chroma_errors("cannot read the vector store"):
            return int(self.collection.count())

    def query(self, qv: np.ndarray, n: int, knowledge_bases: Sequence[str] | None = None) -> list[tuple[str, float]]:
        """The ``n`` nearest ids to ``qv`` as ``(id, cosine similarity)``, best first; with
        ``knowledge_bases``, only vectors whose ``knowledge_base`` metadata is one of them
        (a Chroma ``where`` filter, applied inside the search); an empty selection matches
        nothing (Chroma refuses an empty ``$in``)."""
        if (knowledge_bases is not None and not knowledge_bases) or self._unopened_and_absent():
            return []
        where = None if knowledge_bases is None else {"knowledge_base": {"$in": list(knowledge_bases)}}
        with chroma_errors("vector query failed"):
            res = self.collection.query(query_embeddings=[qv.tolist()], n_results=n, include=["distances"], where=where)
        return [(cid, 1.0 - float(d)) for cid, d in zip(res["ids"][0], res["distances"][0])]

    def vectors(self, ids: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """The stored vectors of ``ids`` that have one: (ids, float32 ``(n, dim)``)."""
        if self._unopened_and_absent():
            return [], np.zeros((0, self.embedder.dim), np.float32)
        with chroma_errors("vector read failed"):
            res = self.collection.get(ids=list(ids), include=["embeddings"])
        embs = res.get("embeddings")
        if embs is None or len(embs) == 0:
            return [], np.zeros((0, self.embedder.dim), np.float32)
        return list(res["ids"]), np.asarray(embs, dtype=np.float32)

    def upsert(self, rows: Sequence[tuple[Chunk, np.ndarray]]) -> None:
        """Write the vectors of ``rows`` (metadata: knowledge base, source and document id), ``CHROMA_BATCH`` at a time."""
        with chroma_errors("cannot write the vector store"):
            for i in range(0, len(rows), CHROMA_BATCH):
                part = rows[i : i + CHROMA_BATCH]
                self.collection.upsert(
                    ids=[c.chunk_id for c, _ in part],
                    embeddings=np.stack([v for _, v in part]).astype(np.float32),
                    metadatas=[
                        {
                            "knowledge_base": c.knowledge_base or DEFAULT_KB,
                            "source_id": c.source_id,
                            "document_id": c.document_id,
                        }
                        for c, _ in part
                    ],
                )

    def delete(self, ids: Sequence[str]) -> None:
        """Delete the vectors of ``ids`` (ids without one are ignored), ``CHROMA_BATCH`` at a time."""
        if self._unopened_and_absent():
            return
        with chroma_errors("cannot write the vector store"):
            for i in range(0, len(ids), CHROMA_BATCH):
                self.collection.delete(ids=list(ids[i : i + CHROMA_BATCH]))
