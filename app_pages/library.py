"""Knowledge base: upload or point at documents, see what is indexed, hide a document."""

from pathlib import Path

import streamlit as st

from components.auth import current_user, is_admin
from components.chat_view import show_index_status
from components.errors import page_guard
from components.library_view import progress_callback, show_report
from components.resources import embedding_worker, ensure_ready
from core.library import ingest_folder, ingest_uploads

with page_guard("知识库操作"):
    if not is_admin(current_user()):  # app.py hides the page too; a direct call still stops here
        st.error("只有管理员可以管理知识库。")
        st.stop()
    engine = ensure_ready()
    st.title("知识库")
    show_index_status(engine, embedding_worker())

    with st.expander("添加或更新文档", expanded=False):
        uploads = st.file_uploader(
            "上传 Markdown、纯文本、HTML 或 PDF 文件",
            type=["md", "markdown", "txt", "html", "htm", "pdf"],
            accept_multiple_files=True,
        )
        if st.button("导入上传的文件", disabled=not uploads):
            bar, update = progress_callback("正在导入")
            report = ingest_uploads(
                engine.index, [(f.name, f.getvalue()) for f in uploads], engine.settings.data_dir / "uploads", progress=update
            )
            bar.empty()
            show_report(report)
            embedding_worker().wake()
        folder = st.text_input("或者：服务器上的文件夹路径", placeholder="/path/to/docs")
        if st.button("导入文件夹", disabled=not folder):
            bar, update = progress_callback("正在导入")
            report = ingest_folder(engine.index, Path(folder), base_url=engine.settings.base_url_for(Path(folder)), progress=update)
            bar.empty()
            show_report(report)
            embedding_worker().wake()

    rows = engine.index.documents()
    st.subheader(f"文档（{len(rows)}）")
    st.dataframe(
        [
            {
                "标题": r.document.title,
                "来源": r.document.source_id,
                "当前版本": r.document.version,
                "片段数": r.chunk_count,
                "更新时间": r.document.updated_at.isoformat(timespec="minutes") if r.document.updated_at else r.ingested_at[:16],
                "可见性": r.document.visibility,
            }
            for r in rows
        ],
        hide_index=True,
        width="stretch",
    )
    with st.expander("隐藏（删除）文档"):
        st.caption("隐藏后不再被检索；引用过它的旧回答仍可完整重放。")
        target = st.selectbox("选择文档", [r.document.source_id for r in rows], index=None, placeholder="来源路径")
        if st.button("隐藏此文档", disabled=target is None, type="primary"):
            engine.index.hide(target)
            st.success("已隐藏所选文档。")
            st.rerun()
