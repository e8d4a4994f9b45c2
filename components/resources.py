"""Every ``st.cache_resource`` of the app lives here: the engine (settings,
embedding model, index, record store) is loaded once per process, and the
background embedding worker is started once.
"""

from __future__ import annotations

import streamlit as st

from core.embedding_worker import EmbeddingWorker
from core.ingest import ingest
from core.pipeline import Engine


@st.cache_resource(show_spinner="正在加载模型与索引…")
def get_engine() -> Engine:
    return Engine.open()


@st.cache_resource(show_spinner=False)
def embedding_worker() -> EmbeddingWorker:
    """The process's background embedding worker (``core.embedding_worker``): started
    once, it also picks up ingests made by other processes (catalog generation). The
    model runs in a separate low-priority process that waits while a question is answered."""
    worker = EmbeddingWorker(get_engine().index, process=True)
    if get_engine().settings.background_embedding:
        worker.start()
    return worker


def ensure_ready() -> Engine:
    """The engine, with the configured corpus ingested on first start (with progress).

    Parsing and BM25 take seconds; dense embedding continues in the background.
    """
    engine = get_engine()
    if not engine.index.active_chunks():
        bar = st.progress(0.0, text="首次启动：正在导入示例知识库…")

        def progress(done: int, total: int, name: str) -> None:
            bar.progress(done / max(total, 1), text=f"首次启动：正在导入 {done}/{total} {name}")

        report = ingest(
            engine.index,
            [engine.settings.corpus_dir],
            base_url=engine.settings.corpus_base_url,
            progress=progress,
            embed=False,
        )
        bar.empty()
        if report.failures:
            st.warning(f"有 {len(report.failures)} 个文件未能导入（文件名与原因见下）。")
            st.text("\n".join(f"{f.source_id}：{f.reason}" for f in report.failures))  # file names: text, never Markdown
    embedding_worker()
    return engine
