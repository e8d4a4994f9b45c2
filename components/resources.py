"""Every ``st.cache_resource`` of the app lives here (but ``components.auth.session_ledger``,
needed before these modules load): the engine (settings,
embedding model, index, record store) is loaded once per process, the first
start's ingest runs once in a background thread (the chat is shown meanwhile),
and the background embedding worker is started once.
"""

from __future__ import annotations

import time

import streamlit as st

from components.errors import show_app_error
from components.pdf_view import use_data_dir
from core.public import AppError, BackgroundJob, EmbeddingWorker, Engine


@st.cache_resource(show_spinner="正在加载模型与索引…")
def get_engine() -> Engine:
    engine = Engine.open()
    use_data_dir(engine.settings.data_dir)  # PDF citations show their stored file's pages (issue 29)
    return engine


@st.cache_resource(show_spinner=False)
def embedding_worker() -> EmbeddingWorker:
    """The process's background embedding worker (``core.store.embedding_worker``): started
    once, it also picks up ingests made by other processes (catalog generation). The
    model runs in a separate low-priority process that waits while a question is answered."""
    worker = EmbeddingWorker(get_engine().index, process=True)
    if get_engine().settings.background_embedding:
        worker.start()
    return worker


@st.cache_resource(show_spinner=False)
def first_ingest() -> BackgroundJob | None:
    """The first start's ingest of the configured corpus, in a background thread (once
    per process), or None when the knowledge base already has chunks. Its result is the
    ``IngestReport``; parsing and BM25 take seconds, dense vectors follow in the background."""
    engine = get_engine()
    if engine.has_chunks():
        return None
    return BackgroundJob(lambda progress: engine.ingest_corpus(progress=progress), name="first-ingest").start()


def ensure_ready(show_progress: bool = True) -> Engine:
    """The engine at once; on a first start the corpus is ingested in the background
    while the page shows its progress (a fragment redrawn alone). Call
    ``wait_until_ingested`` before answering a question. ``show_progress`` False: this run
    answers a question, which shows the ingest's progress in its own bubble while it waits
    (the page's fragment could not update meanwhile: its reruns wait for this run), so the page
    draws none (a fragment left out of a run is skipped by its timer, ``script_runner``)."""
    engine = get_engine()
    job = first_ingest()
    if job is not None and (show_progress or job.finished):
        # The same fragment on every run (only its timer stops when the job is done): a
        # fragment that vanishes while its timer still fires can cost a question's rerun.
        st.fragment(_ingest_status, run_every=None if job.finished else 0.5)(job)
        if job.finished:
            _ingest_failures(job)
    embedding_worker()
    return engine


def wait_until_ingested() -> None:
    """Block until the first start's ingest is done, showing its progress (n/total files) where it
    is called (the chat calls it inside the answer's bubble, under the question just asked: the
    page's own progress fragment cannot update while this run waits); re-raises its error."""
    job = first_ingest()
    if job is None:
        return
    if not job.finished:
        bar = st.progress(job.fraction(), text=_waiting_text(job))
        while not job.finished:
            time.sleep(WAIT_POLL_SECONDS)
            bar.progress(job.fraction(), text=_waiting_text(job))
        bar.empty()
    job.wait()


#: How often a question waiting for the first ingest redraws its progress.
WAIT_POLL_SECONDS = 0.3


def _waiting_text(job: BackgroundJob) -> str:
    done = f" {job.done}/{job.total}" if job.total else ""
    return f"正在导入知识库{done}，导入完成后立即回答…"


def _ingest_status(job: BackgroundJob) -> None:
    """The first ingest's progress (a fragment, see ``ensure_ready``). No ``st.rerun()``
    when done: a rerun requested here could interrupt a question's run (its answer
    stored but not shown); the next run of the page shows the new state."""
    if job.finished:
        return
    text = (
        f"首次启动：正在导入示例知识库 {job.done}/{job.total} {job.name}"
        if job.total
        else "首次启动：正在导入示例知识库…"
    )
    st.progress(job.fraction(), text=text + "（可以先输入问题，导入完成后回答）")


def _ingest_failures(job: BackgroundJob) -> None:
    """Once per session, the files the first ingest could not import; when the ingest itself failed with an
    ``AppError`` (the catalog cannot be read), that error as the one Chinese message (``components.errors``) instead
    of a crashed page: ``ensure_ready`` runs before a page's own guard. Other exceptions propagate."""
    try:
        report = job.wait()
    except AppError as exc:
        if not st.session_state.get("_ingest_error_shown"):
            st.session_state["_ingest_error_shown"] = True
            show_app_error(exc, "首次导入知识库")
        return
    failures = getattr(report, "failures", [])
    if failures and not st.session_state.get("_ingest_failures_shown"):
        st.session_state["_ingest_failures_shown"] = True
        st.warning(f"有 {len(failures)} 个文件未能导入（文件名与原因见下）。")
        st.text("\n".join(f"{f.source_id}：{f.reason}" for f in failures))  # file names: text, never Markdown
