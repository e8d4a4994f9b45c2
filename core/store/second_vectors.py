"""The second vector set: passage vectors of a second embedding model (``YINZHENG_SECOND_EMBEDDING``,
USE multilingual by default), whose dense ranking joins the fusion over the chunks that have one
(a chunk without one takes its BM25 rank there: ``core.retrieval.hybrid``).

Where the vectors live: the catalog's embedding cache, keyed by model name and SHA-256 of
``embedding_text`` (the same table as the primary model's, ``core.store.catalog.EMBEDDINGS``),
filled by the background embedding process after the primary vectors
(``core.store.embedding_worker.fill_second``). No second Chroma collection: questions are scored
by exact cosine over a matrix loaded from the cache (``core.store.cached_vectors.VectorMatrix``,
one ``(n, dim) @ (dim,)`` product; 812 chunks × 512 floats = 1.6 MB, 20,000 chunks 41 MB),
so every process and every replica sharing a catalog reads the same vectors without an
owner lock, and the knowledge-base, document and access filters are one row mask
(``allowed``) applied inside the search, as for the primary ranking.

How it follows the chunks: a vector belongs to a chunk's *text*. A changed chunk has a new
text, hence no vector: the set is incomplete (that chunk is ranked by the other two rankings and
scored by the ``hybrid`` model) until the background pass has embedded the new text; a removed or
hidden chunk leaves the active set and with it the matrix. An interrupted build resumes
where it stopped (only texts without a cached vector are embedded).

Shapes: vectors float32 ``(dim,)``, rows L2-normalized (``core.store.embeddings`` contract);
similarities are cosines in -1..1. Raises what the catalog raises (``IndexError_`` /
SQLAlchemy errors mapped by ``core.store.sql``) and ``EmbeddingError`` from the model.
"""

from __future__ import annotations

import threading
import time
from typing import Container, Mapping, Sequence

import numpy as np

from core.models import Chunk, sha256_hex
from core.store.cached_vectors import VectorMatrix
from core.store.catalog import Catalog, embedding_text
from core.store.embeddings import Embedder

#: Seconds between two looks at the cache's vector count while the set is incomplete.
RECHECK_SECONDS = 5.0


class SecondVectors:
    """The second model's vectors of the active chunks, from ``catalog``'s embedding cache.

    ``embedder``: the second model (its ``name`` keys the cache). Thread-safe; the matrix is
    rebuilt when the active set changes (another ``dict`` object: ``KnowledgeIndex.reload``)
    or, while some chunk lacks a vector, when the cache's count of this model grew (looked
    at every ``RECHECK_SECONDS``).
    """

    def __init__(self, catalog: Catalog, embedder: Embedder, *, recheck_seconds: float = RECHECK_SECONDS) -> None:
        self.catalog = catalog
        self.embedder = embedder
        self.recheck_seconds = recheck_seconds
        self._lock = threading.Lock()
        self._matrix: VectorMatrix | None = None
        self._count = -1  # the cache's vector count of this model when the matrix was built
        self._checked = 0.0

    @property
    def name(self) -> str:
        return self.embedder.name

    def matrix(self, active: Mapping[str, Chunk]) -> VectorMatrix:
        """The vectors of the chunks of ``active`` that have one (rows in ``active``'s order)."""
        with self._lock:
            m = self._matrix
            if m is not None and m.source is active:
                if len(m) == len(active) or time.monotonic() - self._checked < self.recheck_seconds:
                    return m
                self._checked = time.monotonic()
                if self.catalog.vector_count(self.name) == self._count:
                    return m
            count = self.catalog.vector_count(self.name)
            keys = {cid: sha256_hex(embedding_text(c)) for cid, c in active.items()}
            vectors = self.catalog.cached_vectors(self.name, sorted(set(keys.values())))
            ids = [cid for cid in active if keys[cid] in vectors]
            rows = (
                np.stack([vectors[keys[cid]] for cid in ids]) if ids else np.zeros((0, self.embedder.dim), np.float32)
            )
            self._matrix, self._count, self._checked = VectorMatrix(ids, rows, source=active), count, time.monotonic()
            return self._matrix

    def coverage(self, active: Mapping[str, Chunk]) -> tuple[int, int]:
        """(chunks of ``active`` with a vector of this model, chunks of ``active``)."""
        return len(self.matrix(active)), len(active)

    def missing_ids(self, active: Mapping[str, Chunk]) -> frozenset[str]:
        """The chunk ids of ``active`` without a vector of this model (empty when complete)."""
        m = self.matrix(active)
        return frozenset() if len(m) == len(active) else frozenset(active) - frozenset(m.ids)

    def complete(self, active: Mapping[str, Chunk]) -> bool:
        """Whether every chunk of ``active`` (at least one) has its vector: only then does the ranking join the fusion."""
        embedded, total = self.coverage(active)
        return total > 0 and embedded == total

    def query_vector(self, text: str) -> np.ndarray:
        """The query embedding of ``text`` (``embedder.dim`` floats, L2-normalized)."""
        return self.embedder.embed([text], "query")[0]

    def search(
        self, active: Mapping[str, Chunk], qv: np.ndarray, k: int, allowed: Container[str] | None = None
    ) -> list[tuple[str, float]]:
        """The ``k`` chunks of ``active`` nearest to ``qv`` as ``(chunk_id, cosine)``, best first; with
        ``allowed`` only those ids (the filter is applied before the cut, never to the results)."""
        return self.matrix(active).search(qv, k, allowed=allowed)

    def similarities(self, active: Mapping[str, Chunk], qv: np.ndarray, chunk_ids: Sequence[str]) -> dict[str, float]:
        """Cosine of ``qv`` to each of ``chunk_ids`` that has a vector."""
        return self.matrix(active).similarities(qv, chunk_ids)
