"""Dense scoring without the vector store: exact cosine over vectors held in memory.

A process that does not own the embedded Chroma folder (see ``core.store.store_lock``)
never opens it; it scores questions against the vectors the owner already
wrote to the catalog's embedding cache (``KnowledgeIndex`` loads them). Rows are
L2-normalized (``core.store.embeddings`` contract), so cosine similarity is a dot
product. Exact, brute force: one ``(n, dim) @ (dim,)`` product per question
(about 10 ms for 20,000 chunks of 384 floats).
"""

from __future__ import annotations

import time
from typing import Container, Sequence

import numpy as np


class VectorMatrix:
    """Vectors of some chunks, one row per chunk id.

    ``ids``: chunk ids, row order; ``matrix``: float32 ``(len(ids), dim)``, rows
    L2-normalized. ``source`` (any object) and ``built_at`` (``time.monotonic``
    seconds) let the owner of the matrix decide when to rebuild it.
    Raises ``ValueError`` when the row count differs from the id count.
    """

    def __init__(self, ids: Sequence[str], matrix: np.ndarray, *, source: object = None) -> None:
        if len(ids) != len(matrix):
            raise ValueError(f"{len(ids)} ids for {len(matrix)} vectors")
        self.ids = list(ids)
        self.matrix = np.asarray(matrix, dtype=np.float32)
        self.row = {cid: i for i, cid in enumerate(self.ids)}
        self.source = source
        self.built_at = time.monotonic()

    def __len__(self) -> int:
        return len(self.ids)

    def search(self, qv: np.ndarray, k: int, allowed: Container[str] | None = None) -> list[tuple[str, float]]:
        """The ``k`` rows nearest to ``qv`` as ``(chunk_id, cosine)``, best first (ties by id);
        with ``allowed``, only rows whose id is in it (filtered before the top ``k``)."""
        if not self.ids or k <= 0:
            return []
        sims = self.matrix @ np.asarray(qv, dtype=np.float32)
        if allowed is not None:
            sims = np.where([cid in allowed for cid in self.ids], sims, -np.inf)
        top = [i for i in np.argsort(-sims, kind="stable")[:k] if np.isfinite(sims[i])]
        return [(self.ids[i], float(sims[i])) for i in top]

    def similarities(self, qv: np.ndarray, chunk_ids: Sequence[str]) -> dict[str, float]:
        """Cosine of ``qv`` to each given chunk that has a row; others are left out."""
        rows = [(cid, self.row[cid]) for cid in chunk_ids if cid in self.row]
        if not rows:
            return {}
        sims = self.matrix[[i for _, i in rows]] @ np.asarray(qv, dtype=np.float32)
        return {cid: float(v) for (cid, _), v in zip(rows, sims)}
