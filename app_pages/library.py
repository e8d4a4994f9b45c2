"""Knowledge bases: choose the one you manage (create, rename, hide), upload or point at
its documents, see what is indexed (refreshing by itself), hide or restore a document."""

from pathlib import Path

import streamlit as st

from components.auth import current_user, is_admin
from components.errors import page_guard
from components.kb_view import choose_managed_kb, show_kb_admin
from components.library_view import (
    UPLOAD_CSS,
    UPLOAD_TYPES,
    hide_controls,
    overview,
    progress_callback,
    show_report,
    upload_hint,
    upload_label,
)
from components.resources import embedding_worker, ensure_ready, wait_until_ingested

UPLOADS_RESET_KEY = "library_uploads_reset"  # counts imports of uploads: the uploader's key changes after each

engine = ensure_ready()  # outside the guard: app.py says 启动应用失败 when it cannot open
with page_guard("知识库操作"):
    if not is_admin(current_user()):  # app.py hides the page too; a direct call still stops here
        st.error("只有管理员可以管理知识库。")
        st.stop()
    st.title("知识库")
    kb = choose_managed_kb(engine.knowledge_base_store)

    with st.expander("添加或更新文档", expanded=True):
        st.html(UPLOAD_CSS)
        uploads = st.file_uploader(
            upload_label(),
            type=list(UPLOAD_TYPES),
            accept_multiple_files=True,
            key=f"library_uploads_{st.session_state.get(UPLOADS_RESET_KEY, 0)}",  # a new key empties the box
        )
        st.caption(upload_hint())  # the drop zone's own strings are Streamlit's (English)
        report = None
        if st.button("导入上传的文件", disabled=not uploads):
            wait_until_ingested()  # the first start's ingest first: one writer, and counts that agree
            bar, update = progress_callback("正在导入")
            report = engine.ingest_uploads(
                [(f.name, f.getvalue()) for f in uploads], progress=update, knowledge_base=kb.name
            )
            bar.empty()
            st.session_state[UPLOADS_RESET_KEY] = st.session_state.get(UPLOADS_RESET_KEY, 0) + 1  # not sent again
        folder = st.text_input("或者：服务器上的文件夹路径", placeholder="/path/to/docs")
        if st.button("导入文件夹", disabled=not folder):
            wait_until_ingested()
            bar, update = progress_callback("正在导入")
            report = engine.ingest_folder(Path(folder), progress=update, knowledge_base=kb.name)
            bar.empty()
        if report is not None:
            embedding_worker().wake()
            st.session_state["library_report"] = report
            st.session_state.pop("library_message", None)
            st.rerun()  # the sidebar and the overview count the new documents too
        if (last := st.session_state.get("library_report")) is not None:
            show_report(last)  # stays until the next import

    rows = engine.documents(kb.name)  # an index failure here is the page's one message
    overview(engine, embedding_worker(), kb.name)
    hide_controls(engine, embedding_worker(), rows, kb.name)

    show_kb_admin(engine.knowledge_base_store, kb)
