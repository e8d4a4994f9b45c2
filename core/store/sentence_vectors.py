"""Sentence similarity from an embedder the app already loads: cosine of a question and each of a
list of sentences, for the extractive answer's choice of sentences when the question's words cannot
match the evidence (an English question over Chinese chunks: issue 27).

``SentenceSimilarity(embedder)`` is a callable ``(question, sentences) -> list[float]``: one cosine in
-1..1 per sentence, in order. The question is embedded as a ``query`` and the sentences as
``passage``s (``core.store.embeddings``: rows L2-normalized, so a cosine is a dot product). Sentence
vectors are kept in a bounded LRU (``CACHE_SENTENCES`` entries, keyed by the sentence text), so a
chunk asked about again costs one model call for the question only. Raises ``EmbeddingError`` when the
model fails. Thread-safe (the cache under a lock; the embedder has its own).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Sequence

import numpy as np

from core.store.embeddings import Embedder

#: Sentence vectors kept (512 floats each for USE: 4,096 sentences ≈ 8 MB).
CACHE_SENTENCES = 4096


class SentenceSimilarity:
    """``(question, sentences) -> cosines`` with ``embedder`` (see the module doc)."""

    def __init__(self, embedder: Embedder, cache_size: int = CACHE_SENTENCES) -> None:
        self.embedder = embedder
        self.cache_size = cache_size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, question: str, sentences: Sequence[str]) -> list[float]:
        if not sentences:
            return []
        with self._lock:
            missing = list(dict.fromkeys(s for s in sentences if s not in self._cache))
        found = dict(zip(missing, self.embedder.embed(missing, "passage"))) if missing else {}
        with self._lock:
            for text, vector in found.items():
                self._cache[text] = vector
            for s in sentences:
                if s in self._cache:
                    self._cache.move_to_end(s)
                    found.setdefault(s, self._cache[s])
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        q = self.embedder.embed([question], "query")[0]
        return [float(np.dot(found[s], q)) for s in sentences]
