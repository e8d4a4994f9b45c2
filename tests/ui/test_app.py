"""The Streamlit pages with AppTest: the chat answers with markers and cards,
the no_evidence path, the snapshot page, history replay and reopening a
conversation by URL in a fresh session."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.conftest import page_html

ROOT = Path(__file__).resolve().parents[2]


def snapshot_texts(at: AppTest) -> list[str]:
    """The chunk texts the snapshot page shows: plain ``st.text`` or the highlighted-quote HTML."""
    texts = [t.value for t in at.text]
    for el in at.get("html"):
        m = re.search(r'<div class="yz-quote-text">(.*)</div>', el.proto.body, flags=re.S)
        if m:
            texts.append(html.unescape(re.sub(r"</?mark[^>]*>", "", m.group(1))))
    return texts


def _chat(at: AppTest, question: str) -> AppTest:
    at.chat_input[0].set_value(question).run(timeout=120)
    assert not at.exception, at.exception
    return at


def test_chat_answer_has_markers_and_cards(app_env):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    _chat(at, "Deployment 和 StatefulSet 有什么区别？")
    html = page_html(at)
    markers = re.findall(r'<sup class="yz-cite">', html)
    cards = re.findall(r'class="yz-card"', html)
    assert len(markers) >= 2 and len(cards) == len(markers)
    assert "抽取式回答" in html
    assert "./sources?answer_id=" in html
    # the conversation id is in the URL, so a reload can reopen it
    assert at.query_params.get("c")


def test_no_evidence_is_said_plainly_and_not_as_an_error(app_env):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    _chat(at, "消息队列的消费者重平衡是怎么工作的？")
    html = page_html(at)
    assert '<sup class="yz-cite">' not in html
    assert "知识库中没有足够的证据" in html
    assert 'class="yz-notice yz-no-evidence"' in html and "yz-error" not in html
    assert len(at.error) == 0


def test_conversation_reopens_in_a_fresh_session(app_env):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    _chat(at, "CronJob 的时间表语法是什么？")
    conversation = at.query_params["c"]
    first = page_html(at)
    fresh = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    fresh.query_params["c"] = conversation
    fresh.run()
    assert not fresh.exception
    again = page_html(fresh)
    # the same answer, rendered from the stored record: identical markers and cards
    assert re.findall(r"<sup class=\"yz-cite\">.*?</sup>", again) == re.findall(
        r"<sup class=\"yz-cite\">.*?</sup>", first
    )
    assert any(m.value == "CronJob 的时间表语法是什么？" for m in fresh.text)


def test_sources_page_shows_the_stored_snapshot(app_env):
    record = app_env.ask("Pod 的重启策略有哪些？")
    chunk_id = record.supports[0].chunk_ids[0]
    at = AppTest.from_file(str(ROOT / "app_pages" / "sources.py"), default_timeout=60)
    at.query_params["answer_id"] = record.answer_id
    at.query_params["chunk_id"] = chunk_id
    at.run()
    assert not at.exception, at.exception
    snap = record.chunk(chunk_id)
    assert snap.text in snapshot_texts(at)
    meta = at.dataframe[0].value
    assert dict(zip(meta["字段"], meta["值"]))["内容哈希 (SHA-256)"] == snap.content_sha256
    assert dict(zip(meta["字段"], meta["值"]))["片段 ID"] == chunk_id


def test_sources_page_unknown_id_is_a_clear_message(app_env):
    at = AppTest.from_file(str(ROOT / "app_pages" / "sources.py"), default_timeout=60)
    at.query_params["answer_id"] = "does-not-exist"
    at.query_params["chunk_id"] = "x#0"
    at.run()
    assert not at.exception
    assert "找不到这个回答" in at.error[0].value
    assert any("does-not-exist" in t.value for t in at.text)


def test_history_replays_a_stored_answer(app_env):
    record = app_env.ask("Init 容器有什么用？")
    at = AppTest.from_file(str(ROOT / "app_pages" / "history.py"), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    at.text_input[0].set_value("Init 容器").run()
    at.selectbox[1].set_value(record.answer_id).run()
    html = page_html(at)
    assert html.count('<sup class="yz-cite">') == len(record.supports)


def test_library_page_lists_documents(app_env):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.switch_page("app_pages/library.py").run()
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    assert len(table) == 40
    assert "concepts/workloads/controllers/cron-jobs.md" in set(table["来源"])


def test_snapshot_of_an_updated_source_shows_stored_and_current_text(app_env, tmp_path):
    import shutil

    from core.engine import Engine
    from core.ingest.run import ingest
    from core.records.store import RecordStore
    from core.store.index import KnowledgeIndex
    from tests.conftest import SAMPLE, make_settings

    rel = "concepts/workloads/controllers/cron-jobs.md"
    root = tmp_path / "docs"
    (root / rel).parent.mkdir(parents=True)
    shutil.copy(SAMPLE / rel, root / rel)
    settings = make_settings(tmp_path / "data")
    index = KnowledgeIndex(settings, app_env.embedder)
    ingest(index, [root], embed=False)
    engine = Engine(settings, app_env.embedder, index, RecordStore(settings.records_path), app_env.generators)
    record = engine.ask("CronJob 的时间表语法是什么？")
    cited = record.supports[0].chunk_ids[0]
    snap = record.chunk(cited)
    raw = (root / rel).read_text(encoding="utf-8")
    sup = record.supports[0]
    head = record.answer_text[sup.start : sup.end][:8]  # a cited sentence starts verbatim in the raw file
    assert head in raw
    (root / rel).write_text(raw.replace(head, "【新增】" + head), encoding="utf-8")
    ingest(index, [root], embed=False)

    import os

    os.environ["YINZHENG_DATA_DIR"] = str(settings.data_dir)
    st.cache_resource.clear()
    at = AppTest.from_file(str(ROOT / "app_pages" / "sources.py"), default_timeout=60)
    at.query_params["answer_id"] = record.answer_id
    at.query_params["chunk_id"] = cited
    at.run()
    assert not at.exception, at.exception
    assert any("来源已更新" in w.value for w in at.warning)
    assert snap.text in snapshot_texts(at)
    diff = "\n".join(el.proto.body for el in at.get("html"))
    assert "<ins>【新增】</ins>" in diff


def test_interrupted_answer_is_shown_in_the_conversation_after_the_next_question(app_env):
    """Streamlit stops the script mid-stream (StopException, a BaseException): the
    turn is stored as interrupted with what was shown, and the page lists it."""
    from streamlit.runtime.scriptrunner_utils.exceptions import StopException

    from components.resources import get_engine
    from core.generators.base import Generator

    class StopsMidStream(Generator):
        name = "extractive"

        def generate(self, question, chunks, history=(), on_text=None):
            assert on_text is not None, "the pipeline streams"
            on_text("CronJob 的调度")
            raise StopException()

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    engine = get_engine()  # the page's engine (one cache_resource per process)
    real = engine.generators["extractive"]
    engine.generators["extractive"] = StopsMidStream()
    try:
        at.chat_input[0].set_value("CronJob 的时间表语法是什么？").run(timeout=120)
    finally:
        engine.generators["extractive"] = real
    conversation = at.query_params["c"]
    (stored,) = engine.records.list(conversation_id=conversation)
    assert stored.status == "interrupted" and stored.answer_text == "CronJob 的调度"
    _chat(at, "Deployment 和 StatefulSet 有什么区别？")
    html = page_html(at)
    assert "回答被中断" in html and "CronJob 的调度" in html
    assert [m.value for m in at.text if m.value.endswith("？")][:2] == [
        "CronJob 的时间表语法是什么？",
        "Deployment 和 StatefulSet 有什么区别？",
    ]


def test_snapshot_page_shows_titles_and_paths_as_text_not_markdown(app_env):
    from core.models import AnswerRecord

    record = app_env.ask("Pod 的重启策略有哪些？")
    snap = record.chunks[0]
    hostile = snap.model_copy(
        update={"title": ":ok: ~删除~ **粗** [l](javascript:alert(1))", "heading_path": (":ok: ~删除~", "<b>节</b>")}
    )
    forged = record.model_copy(
        update={"answer_id": "hostile-titles", "chunks": (hostile,), "supports": (), "query": ":ok: ~问~"}
    )
    app_env.records.save(AnswerRecord.model_validate(forged.model_dump()))
    at = AppTest.from_file(str(ROOT / "app_pages" / "sources.py"), default_timeout=60)
    at.query_params["answer_id"] = "hostile-titles"
    at.query_params["chunk_id"] = snap.chunk_id
    at.run()
    assert not at.exception, at.exception
    html = page_html(at)
    assert ":ok: ~删除~ **粗** [l](javascript:alert(1))" in html
    assert ":ok: ~删除~ › &lt;b&gt;节&lt;/b&gt;" in html
    assert "问题：:ok: ~问~" in html
    shown_as_markdown = [m.value for m in (*at.markdown, *at.subheader, *at.caption)]
    assert not any(":ok:" in v or "删除" in v for v in shown_as_markdown)


@pytest.mark.parametrize("page", ["history", "sources"])
def test_first_request_deep_link_runs_app_py_with_its_sidebar(app_env, page):
    """A fresh server (AppTest resets Streamlit's page registry) whose first request
    is a deep link to /history or /sources?…: app.py runs, with navigation and sidebar."""
    record = app_env.ask("Pod 的重启策略有哪些？")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    if page == "sources":
        at.query_params["answer_id"] = record.answer_id
        at.query_params["chunk_id"] = record.chunks[0].chunk_id
    at.switch_page(f"app_pages/{page}.py")
    at.run()
    assert not at.exception, at.exception
    assert [s.label for s in at.sidebar.selectbox] == ["生成方式"]  # app.py's shared sidebar ran
    assert [t.value for t in at.title] == [{"history": "历史回答", "sources": "来源快照"}[page]]
