"""Knowledge bases in the app (AppTest): the chat sidebar's selector decides what a
question searches, and the 知识库 page creates, renames and hides knowledge bases."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.ingest.run import ingest
from core.records.store import RecordStore
from tests.fakes import build_engine
from tests.store.test_kb_migration import LEGACY

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "CronJob 的时区默认是什么？"


@pytest.fixture()
def two_kbs(page_env):
    """``page_env`` whose data folder has ``default`` (the one-file corpus) and ``beta``
    (the CronJob and Pod files), before the app first runs."""
    engine = build_engine(page_env / "data", [page_env / "corpus"])
    engine.index.knowledge_bases.create("beta", "乙组文档")
    ingest(engine.index, [LEGACY / "docs"], embed=False, knowledge_base="beta")
    engine.index.close()
    return page_env


def _last_record(env: Path):
    (record,) = RecordStore(env / "data" / "records.sqlite3").list(limit=1)
    return record


@pytest.mark.slow
def test_chat_sidebar_selector_decides_what_is_searched(two_kbs):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert not at.exception, at.exception
    selector = at.multiselect(key="knowledge_bases")
    assert selector.label == "检索的知识库"
    assert selector.options == ["默认知识库（default）", "乙组文档（beta）"]
    assert selector.value == ["default"]
    at.chat_input[0].set_value(QUESTION).run()
    assert not at.exception, at.exception
    first = _last_record(two_kbs)
    assert first.knowledge_bases == ("default",) and first.status == "no_evidence"  # only beta knows CronJob

    at.multiselect(key="knowledge_bases").set_value(["beta"]).run()
    at.chat_input[0].set_value(QUESTION).run()
    assert not at.exception, at.exception
    record = _last_record(two_kbs)
    assert record.knowledge_bases == ("beta",) and record.status == "answered"
    assert record.chunks and all(c.chunk_id.startswith("beta/") for c in record.chunks)

    engine = build_engine(two_kbs / "data")
    engine.index.knowledge_bases.set_hidden("beta", True)
    at.run()
    assert at.multiselect(key="knowledge_bases").options == ["默认知识库（default）"]
    assert at.multiselect(key="knowledge_bases").value == []  # a hidden one is dropped from the selection


@pytest.mark.slow
def test_library_page_creates_renames_and_hides_a_knowledge_base(two_kbs):
    at = AppTest.from_file(str(ROOT / "app_pages" / "library.py"), default_timeout=120).run()
    assert not at.exception, at.exception
    managed = at.selectbox(key="managed_kb")
    assert managed.value == "default" and managed.options == ["默认知识库（default）", "乙组文档（beta）"]
    assert len(at.dataframe[0].value) == 1  # the documents of default only

    managed.set_value("beta").run()
    assert set(at.dataframe[0].value["来源"]) == {"cron.md", "pod.md"}

    at.text_input(key="kb_new_name").set_value("Bad Name")
    next(b for b in at.button if b.label == "新建").click().run()
    assert any("新建知识库失败" in e.value and "\\'Bad Name\\' 无效" in e.value for e in at.error)

    at.text_input(key="kb_new_name").set_value("team-c")
    at.text_input(key="kb_new_title").set_value("丙组 [链接](https://evil.example)")
    next(b for b in at.button if b.label == "新建").click().run()
    assert not at.exception, at.exception
    assert at.selectbox(key="managed_kb").value == "team-c"
    assert any("已新建知识库 `team-c`" in s.value for s in at.success)
    assert at.dataframe[0].value.empty

    at.text_input(key="kb_title_team-c").set_value("丙组").run()  # the browser reruns when the field loses focus
    next(b for b in at.button if b.label == "重命名").click().run()
    assert "丙组（team-c）" in at.selectbox(key="managed_kb").options
    next(b for b in at.button if b.label == "隐藏此知识库").click().run()
    assert "丙组（team-c） · 已隐藏" in at.selectbox(key="managed_kb").options
    store = build_engine(two_kbs / "data").index.knowledge_bases
    assert store.get("team-c").hidden and store.get("team-c").title == "丙组"


@pytest.mark.slow
def test_library_counts_the_selected_knowledge_base_and_labels_vectors_as_all(two_kbs):
    """The tester's input: with one knowledge base selected the header counted every base's
    documents and chunks, and the vector progress did not say it spans all of them."""
    index = build_engine(two_kbs / "data").index
    beta = index.documents("beta")
    every = index.documents()
    index.close()
    assert len(beta) == 2 and len(every) > len(beta)
    at = AppTest.from_file(str(ROOT / "app_pages" / "library.py"), default_timeout=120).run()
    at.selectbox(key="managed_kb").set_value("beta").run()
    assert not at.exception, at.exception
    captions = " ".join(c.value for c in at.caption)
    assert f"本知识库：2 篇文档，{sum(r.chunk_count for r in beta)} 个片段" in captions
    vectors = [e.proto.text for e in at.get("progress")] + [c.value for c in at.caption if "向量索引" in c.value]
    assert vectors and all("全部知识库" in v for v in vectors)
    total = sum(r.chunk_count for r in every)
    assert any(f"/{total}" in v for v in vectors) or any("已就绪" in v for v in vectors)
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()  # the sidebar is the app's
    assert not app.exception, app.exception
    sidebar = " ".join(c.value for c in app.sidebar.caption)
    assert f"全部知识库：{len(every)} 篇文档，{total} 个片段" in sidebar


def _library() -> AppTest:
    return AppTest.from_file(str(ROOT / "app_pages" / "library.py"), default_timeout=120)


def _create(at: AppTest, name: str, title: str) -> AppTest:
    at.text_input(key="kb_new_name").set_value(name)
    at.text_input(key="kb_new_title").set_value(title)
    next(b for b in at.button if b.label == "新建").click().run()
    assert not at.exception, at.exception
    return at


@pytest.mark.slow
def test_an_ascii_title_with_no_name_makes_a_valid_name(two_kbs):
    """Issue 30 item 3 input: title 'Canteen Menu', name left empty: '新建知识库失败。' with no reason."""
    at = _create(_library().run(), "", "Canteen Menu")
    assert not [e.value for e in at.error]
    assert at.selectbox(key="managed_kb").value == "canteen-menu"
    assert build_engine(two_kbs / "data").index.knowledge_bases.get("canteen-menu").title == "Canteen Menu"


@pytest.mark.slow
def test_a_failed_create_says_why_and_what_to_type(two_kbs):
    at = _create(_library().run(), "", "食堂菜单")  # nothing in the title a name can be made of
    (error,) = [e.value for e in at.error]
    assert error.startswith("新建知识库失败：") and "请填写名称" in error and "canteen" not in error
    at = _create(at, "Canteen Menu", "")  # a typed name is not changed silently: the message proposes one
    (error,) = [e.value for e in at.error]
    assert "无效" in error and "canteen\\-menu" in error  # escaped for Markdown (components.plain)


@pytest.mark.slow
def test_the_managed_knowledge_base_survives_a_reload(two_kbs):
    """Issue 30 item 4: after a reload the page managed ``default`` again and the next upload went there."""
    at = _library().run()
    at.selectbox(key="managed_kb").set_value("beta").run()
    assert at.query_params["kb"] == ["beta"] or at.query_params["kb"] == "beta"
    reloaded = _library()
    reloaded.query_params["kb"] = "beta"
    reloaded.run()
    assert not reloaded.exception, reloaded.exception
    assert reloaded.selectbox(key="managed_kb").value == "beta"
    assert set(reloaded.dataframe[0].value["来源"]) == {"cron.md", "pod.md"}


@pytest.mark.slow
def test_an_unknown_kb_in_the_url_is_not_trusted(two_kbs):
    at = _library()
    at.query_params["kb"] = "../nope"
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="managed_kb").value == "default"
    assert at.query_params["kb"] in ("default", ["default"])


@pytest.mark.slow
def test_a_created_knowledge_base_is_kept_in_the_url(two_kbs):
    at = _create(_library().run(), "team-d", "丁组")
    assert at.selectbox(key="managed_kb").value == "team-d"
    assert at.query_params["kb"] in ("team-d", ["team-d"])
