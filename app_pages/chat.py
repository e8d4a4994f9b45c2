"""Chat: ask the knowledge base; every answer shows where each sentence came from."""

import uuid

import streamlit as st

from components.chat_view import ask_and_show, show_export_buttons, show_record
from components.errors import page_guard
from components.resources import ensure_ready, wait_until_ingested
from core.records import conversation_history

with page_guard("显示问答页"):
    engine = ensure_ready()

    conversation_id = st.query_params.get("c")
    if not conversation_id:
        conversation_id = uuid.uuid4().hex[:16]
        st.query_params["c"] = conversation_id

    st.title("引证 · 有出处的问答")
    st.caption("每个句子后的上标指向它的来源片段；悬停或聚焦查看来源卡片，点击打开快照。")

    records = engine.records.list(conversation_id=conversation_id, limit=200)
    versions = engine.index.current_versions()
    for record in records:
        with st.chat_message("user"):
            st.text(record.query)
        with st.chat_message("assistant"):
            show_record(record, versions)

    if records:
        with st.sidebar:
            st.caption("导出本次对话")
            show_export_buttons(records, f"conversation-{conversation_id}")

    if question := st.chat_input("向知识库提问，例如：Deployment 和 StatefulSet 有什么区别？"):
        with st.chat_message("user"):
            st.text(question)
        with st.chat_message("assistant"):
            wait_until_ingested()
            ask_and_show(
                engine,
                question,
                generator=st.session_state.get("generator"),
                conversation_id=conversation_id,
                history=conversation_history(records),
            )
