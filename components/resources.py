"""Every ``st.cache_resource`` of the app lives here: the engine (settings,
embedding model, index, record store) is loaded once per process, and the
background embedding worker is started once.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import streamlit as st

from core.errors import AppError
from core.ingest import ingest
from core.pipeline import Engine


@st.cache_resource(show_spinner="正在加载模型与索引…")
def get_engine() -> Engine:
    return Engine.open()


@dataclass
class EmbeddingWorker:
    """Fills in dense vectors in one background thread; the chat works meanwhile (BM25).

    ``wake()`` after an ingest makes it look for new chunks again.
    """

    error: str | None = None
    thread: threading.Thread | None = field(default=None, repr=False)
    _wake: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def wake(self) -> None:
        self._wake.set()


@st.cache_resource(show_spinner=False)
def embedding_worker() -> EmbeddingWorker:
    engine = get_engine()
    worker = EmbeddingWorker()
    if not engine.settings.background_embedding:
        return worker

    def run() -> None:
        while True:
            try:
                worker.error = None
                engine.index.embed_pending()
            except AppError as exc:
                worker.error = str(exc)
            except Exception as exc:  # keep the app alive; show the reason in the sidebar
                worker.error = f"embedding stopped: {exc}"
            worker._wake.wait()
            worker._wake.clear()

    worker.thread = threading.Thread(target=run, name="yinzheng-embed", daemon=True)
    worker.thread.start()
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
            st.warning("以下文件未能导入：" + "；".join(f"{f.source_id}（{f.reason}）" for f in report.failures))
    embedding_worker()
    return engine
