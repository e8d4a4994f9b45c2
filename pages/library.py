"""Knowledge base: what is indexed, and the state of the dense index."""

import streamlit as st

from components.chat_view import show_index_status
from components.resources import embedding_worker, ensure_ready

engine = ensure_ready()
st.title("知识库")
show_index_status(engine, embedding_worker())
rows = [
    {
        "标题": r.document.title,
        "来源": r.document.source_id,
        "版本": r.document.version,
        "片段数": r.chunk_count,
        "导入时间": r.ingested_at[:19],
        "可见性": r.document.visibility,
    }
    for r in engine.index.documents()
]
st.dataframe(rows, hide_index=True, use_container_width=True)
