"""History: every stored answer, re-rendered from its record."""

import streamlit as st

from components.chat_view import show_record
from components.resources import get_engine

engine = get_engine()
st.title("历史回答")
col1, col2 = st.columns([3, 1])
text = col1.text_input("按问题搜索", "")
status = col2.selectbox("状态", ["全部", "answered", "no_evidence", "unverifiable", "blocked", "error"])
records = engine.records.list(text=text or None, status=None if status == "全部" else status, limit=200)
if not records:
    st.info("还没有符合条件的回答。")
labels = {r.answer_id: f"{r.created_at:%Y-%m-%d %H:%M} · [{r.status}] {r.query[:60]}" for r in records}
chosen = st.selectbox("选择一个回答重放", list(labels), format_func=labels.get) if records else None
if chosen:
    record = next(r for r in records if r.answer_id == chosen)
    st.markdown(f"**问题：** {record.query}".replace("$", "\\$"))
    show_record(record, engine.index.current_versions())
