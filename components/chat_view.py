"""Streamlit rendering of answer records: one function per thing shown."""

from __future__ import annotations

import streamlit as st

from components.answer_view import ANSWER_CSS
from components.errors import show_app_error
from components.render_cache import answer_html
from core.errors import UnsavedRecordError
from core.export import conversation_to_json, conversation_to_markdown, to_markdown
from core.models import AnswerRecord


def show_record(record: AnswerRecord, current_versions: dict[str, str | None] | None = None) -> None:
    """Render a stored record (the same code for a live and a replayed answer); its
    HTML is rendered once per version state (``components.render_cache``)."""
    st.html(ANSWER_CSS + answer_html(record, current_versions))


def ask_and_show(engine, question: str, *, generator: str | None, conversation_id: str,
                 history: list[tuple[str, str]]) -> AnswerRecord:  # noqa: ANN001 - Engine
    """Ask, stream the answer text while it is generated, then re-render it with
    its markers and cards from the stored record (the same view as a replay).

    When the store fails (``UnsavedRecordError``) the answer is still shown, under
    the error message; other ``AppError`` s propagate to the page's ``page_guard``."""
    live = st.empty()
    streamed: list[str] = []

    def on_text(piece: str) -> None:
        streamed.append(piece)
        live.text("".join(streamed) + " ▌")

    try:
        with st.spinner("正在检索与作答…"):
            record = engine.ask(
                question, generator=generator, conversation_id=conversation_id, history=history, on_text=on_text
            )
    except UnsavedRecordError as exc:  # the answer exists but is not stored: show both
        live.empty()
        show_app_error(exc, "保存回答")
        show_record(exc.record, engine.index.current_versions())
        return exc.record
    live.empty()
    show_record(record, engine.index.current_versions())
    return record


def show_index_status(engine, worker) -> None:  # noqa: ANN001 - Engine / EmbeddingWorker
    """The knowledge base's size and the vector build's progress, drawn on each run.
    Not an auto-rerunning fragment: with one in the sidebar the browser benchmark lost
    about one answer in 20 while vectors were being built (stored, never shown)."""
    _index_status(engine, worker)


def _index_status(engine, worker) -> None:  # noqa: ANN001
    embedded, total = engine.index.dense_coverage()
    docs = len(engine.index.documents())
    st.caption(f"知识库：{docs} 篇文档，{total} 个片段")
    if total and embedded < total:
        st.progress(embedded / total, text=f"向量索引构建中 {embedded}/{total}（此期间使用关键词检索）")
    elif total:
        st.caption(f"向量索引已就绪（{engine.embedder.name}）")
    owner = engine.index.store_owner()
    if owner is not None:
        st.caption("向量库由另一个进程持有：本进程用目录中缓存的向量检索，新向量由它补齐。")
        st.text(owner.describe())  # its command line: text, never Markdown
    if worker is not None and worker.error:
        st.warning(worker.error)


def show_export_buttons(records: list[AnswerRecord], stem: str) -> None:
    """Download buttons: the full record(s) as JSON, and Markdown with footnote citations."""
    if not records:
        return
    one = len(records) == 1
    c1, c2 = st.columns(2)
    c1.download_button(
        "导出 JSON",
        records[0].model_dump_json(indent=2) if one else conversation_to_json(records),
        file_name=f"{stem}.json",
        mime="application/json",
        key=f"json-{stem}",
    )
    c2.download_button(
        "导出 Markdown",
        to_markdown(records[0]) if one else conversation_to_markdown(records),
        file_name=f"{stem}.md",
        mime="text/markdown",
        key=f"md-{stem}",
    )
