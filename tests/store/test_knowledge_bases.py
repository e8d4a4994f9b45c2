"""Knowledge bases as first-class (issue 16, item 1): the store (create, rename, hide,
resolve a selection), ids that carry the knowledge base, and the retrieval filter,
applied inside the search for BM25 and dense alike, over two knowledge bases whose
texts are identical (so only the filter can tell their chunks apart)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.ingest.run import ingest
from core.models import DEFAULT_KB, KnowledgeBase
from core.store.cached_vectors import VectorMatrix
from core.store.knowledge_bases import KnowledgeBaseError
from tests.fakes import build_engine
from tests.store.test_kb_migration import LEGACY

DOCS = LEGACY / "docs"
SELECTIONS = [("alpha",), ("beta",), ("alpha", "beta"), ("beta", "alpha")]
QUESTIONS = [
    "CronJob 的时区默认是什么？",
    "Pod 的 restartPolicy 默认值是什么？",
    "schedule 字段使用什么语法？",
    "timeZone 字段有什么用？",
    "消息队列的消费者重平衡是怎么工作的？",  # in neither: no_evidence, nothing cited
]


@pytest.fixture(scope="module")
def twin(tmp_path_factory):
    """An engine whose knowledge bases ``alpha`` and ``beta`` hold the same two files,
    with dense vectors (hash embedder) in Chroma; ``default`` is empty."""
    engine = build_engine(tmp_path_factory.mktemp("twin"))
    for name in ("alpha", "beta"):
        engine.index.knowledge_bases.create(name, f"知识库 {name}")
        report = ingest(engine.index, [DOCS], embed=True, knowledge_base=name)
        assert report.counts()["added"] == 2 and not report.failures
    return engine


def _kb(chunk_id: str) -> str:
    return chunk_id.split("/", 1)[0]


# ------------------------------------------------------------------ the store
def test_store_creates_renames_hides_and_resolves(tmp_path):
    store = build_engine(tmp_path).index.knowledge_bases
    assert [kb.name for kb in store.list()] == [DEFAULT_KB]
    made = store.create("team-a", "甲组文档")
    assert made == store.get("team-a") and made.title == "甲组文档" and not made.hidden
    assert store.rename("team-a", "  甲组（新） ").title == "甲组（新）"
    assert store.get("team-a").name == "team-a"  # renaming never changes the name (it is in the ids)
    assert store.set_hidden("team-a", True).hidden
    assert [kb.name for kb in store.list(include_hidden=False)] == [DEFAULT_KB]
    with pytest.raises(KnowledgeBaseError, match="已隐藏"):
        store.resolve(["team-a"])
    store.set_hidden("team-a", False)
    assert store.resolve(["team-a", DEFAULT_KB, "team-a"]) == ("team-a", DEFAULT_KB)
    assert store.resolve(None) == store.resolve([]) == (DEFAULT_KB,)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s: s.create("Team A"), "名称 'Team A' 无效"),
        (lambda s: s.create("a/b"), "无效"),
        (lambda s: s.create("x" * 41), "无效"),
        (lambda s: s.create(DEFAULT_KB), "已存在"),
        (lambda s: s.create("ok", "   "), "标题不能为空"),
        (lambda s: s.rename("nope", "标题"), "没有名为 'nope' 的知识库（现有：default）"),
        (lambda s: s.rename(DEFAULT_KB, " "), "标题不能为空"),
        (lambda s: s.set_hidden(DEFAULT_KB, True), "默认知识库不能隐藏"),
        (lambda s: s.resolve(["nope"]), "没有名为 'nope'"),
        (lambda s: s.resolve(["../x"]), "无效"),
    ],
)
def test_bad_requests_are_clear_errors_and_change_nothing(tmp_path, call, message):
    store = build_engine(tmp_path).index.knowledge_bases
    before = store.list()
    with pytest.raises(KnowledgeBaseError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call(store)
    assert store.list() == before


def test_settings_are_kept_and_never_in_the_public_listing(tmp_path):
    store = build_engine(tmp_path).index.knowledge_bases
    store.create("b", settings={"access": ["example.org"]})
    assert store.get("b").settings == {"access": ["example.org"]}
    assert store.update_settings("b", {"redact": True}).settings == {"redact": True}
    with pytest.raises(ValueError):
        KnowledgeBase(name="B", title="t")


def test_ingest_into_an_unknown_knowledge_base_is_refused(tmp_path):
    engine = build_engine(tmp_path)
    with pytest.raises(KnowledgeBaseError, match="没有名为 'ghost'"):
        ingest(engine.index, [DOCS], embed=False, knowledge_base="ghost")
    assert engine.index.active_chunks() == {}


# ------------------------------------------------------------------ ids
def test_ids_carry_the_knowledge_base_and_twins_never_collide(twin):
    active = twin.index.active_chunks()
    alpha = sorted(cid for cid in active if _kb(cid) == "alpha")
    beta = sorted(cid for cid in active if _kb(cid) == "beta")
    assert alpha and [c.removeprefix("alpha/") for c in alpha] == [c.removeprefix("beta/") for c in beta]
    for cid in alpha + beta:
        chunk = active[cid]
        assert cid == f"{chunk.knowledge_base}/{chunk.source_id}@{chunk.version}#{chunk.ordinal}"
        assert chunk.document_id == f"{chunk.knowledge_base}/{chunk.source_id}@{chunk.version}"
    assert {r.document.knowledge_base for r in twin.index.documents("beta")} == {"beta"}
    versions = twin.index.current_versions()
    assert versions["alpha/cron.md"] == versions["beta/cron.md"] is not None


def test_hiding_a_document_hides_it_in_one_knowledge_base_only(tmp_path):
    engine = build_engine(tmp_path)
    for name in ("alpha", "beta"):
        engine.index.knowledge_bases.create(name)
        ingest(engine.index, [DOCS], embed=False, knowledge_base=name)
    assert engine.index.hide("cron.md", "alpha")
    versions = engine.index.current_versions()
    assert versions["alpha/cron.md"] is None and versions["beta/cron.md"] is not None
    # re-ingesting alpha with remove_missing leaves beta alone
    report = ingest(engine.index, [DOCS / "pod.md"], embed=False, knowledge_base="alpha", remove_missing=True)
    assert report.results == {"pod.md": "unchanged"}
    assert {c.source_id for c in engine.index.serving(["beta"])[0].values()} == {"cron.md", "pod.md"}


# ------------------------------------------------------------------ the filter
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    question=st.sampled_from(QUESTIONS) | st.text(alphabet="CronJob时区默认Pod重启策略语法字段的是什么？ ", min_size=1),
    selection=st.sampled_from(SELECTIONS),
)
def test_every_retrieved_and_cited_chunk_belongs_to_the_selection(twin, question, selection):
    if not question.strip():
        return
    record = twin.ask(question, knowledge_bases=list(selection), save=False)
    assert record.knowledge_bases == tuple(dict.fromkeys(selection))
    cited = {cid for s in record.supports for cid in s.chunk_ids}
    shown = {c.chunk_id for c in record.chunks} | {c.chunk.chunk_id for c in record.candidates}
    assert {_kb(cid) for cid in cited | shown} <= set(selection), (question, selection, cited | shown)
    assert all(c.knowledge_base in selection for c in record.chunks)


@pytest.mark.parametrize("name", ["alpha", "beta"])
def test_each_twin_answers_alone_from_itself(twin, name):
    record = twin.ask(QUESTIONS[0], knowledge_bases=[name], save=False)
    assert record.status == "answered", record.status
    assert {_kb(cid) for s in record.supports for cid in s.chunk_ids} == {name}
    assert record.retrieval["knowledge_bases"] == name


def test_the_filter_is_inside_both_searches_not_after_them(twin):
    index = twin.index
    for name in ("alpha", "beta"):
        active, lexical = index.serving([name])
        assert set(active) == {cid for cid in index.active_chunks() if _kb(cid) == name}
        assert set(lexical.ids) == set(active)  # BM25 over the selection only: its statistics too
        hits = lexical.search("CronJob 时区", 50)
        assert hits and {_kb(cid) for cid, _ in hits} == {name}
        qv = index.query_vector("CronJob 时区")
        dense = index.dense_search_vector(qv, 3, [name])  # Chroma `where`: k hits of the selection
        assert len(dense) == 3 and {_kb(cid) for cid, _ in dense} == {name}
    both_active, both_lexical = index.serving(["alpha", "beta"])
    assert both_lexical is index.lexical and both_active is index.active_chunks()


def test_the_in_memory_dense_path_filters_before_the_top_k():
    ids = ["a/x#0", "b/x#0", "a/y#0", "b/y#0"]
    m = VectorMatrix(ids, np.eye(4, dtype=np.float32))
    qv = np.array([0.1, 0.9, 0.2, 0.8], dtype=np.float32)
    assert [cid for cid, _ in m.search(qv, 2)] == ["b/x#0", "b/y#0"]
    assert [cid for cid, _ in m.search(qv, 2, allowed={"a/x#0", "a/y#0"})] == ["a/y#0", "a/x#0"]
    assert m.search(qv, 2, allowed=set()) == []


def test_an_unknown_selection_is_refused_before_anything_is_stored(twin):
    before = len(twin.records.list(limit=1000))
    with pytest.raises(KnowledgeBaseError):
        twin.ask(QUESTIONS[0], knowledge_bases=["gamma"])
    assert len(twin.records.list(limit=1000)) == before


def test_apply_places_parsed_documents_and_refuses_ones_of_another_kb(tmp_path):
    from core.ingest.corpus import load_sources
    from core.models import place_in_knowledge_base

    engine = build_engine(tmp_path)
    parsed, _ = load_sources([DOCS])
    engine.index.apply([(p.document, p.chunks) for p in parsed])
    assert engine.index.active_chunks() and all(cid.startswith("default/") for cid in engine.index.active_chunks())
    assert parsed[0].document.knowledge_base is None and "/" not in parsed[0].chunks[0].chunk_id  # not mutated
    engine.index.knowledge_bases.create("b")
    doc, chunks = place_in_knowledge_base(parsed[0].document, parsed[0].chunks, "b")
    with pytest.raises(ValueError, match="not placed in knowledge base 'default'"):
        engine.index.apply([(doc, chunks)])
    assert engine.index.documents("b") == []


@pytest.mark.parametrize(
    ("title", "name"),
    [
        ("Canteen Menu", "canteen-menu"),
        ("  K8s  Docs! v2 ", "k8s-docs-v2"),
        ("食堂 Menu 2024", "menu-2024"),
        ("my_notes", "my_notes"),
        ("x" * 60, "x" * 40),
        ("食堂菜单", None),
        ("---", None),
        ("", None),
    ],
)
def test_name_from_title_is_a_valid_name_or_none(title, name):
    from core.models import check_kb_name
    from core.store.knowledge_bases import name_from_title

    assert name_from_title(title) == name
    if name:
        check_kb_name(name)
