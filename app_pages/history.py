"""History: conversations with a preview (reopen one in the chat), and every stored
answer re-rendered from its record; filter, replay, export."""

from datetime import datetime, time, timezone

import streamlit as st

from components.auth import scoped
from components.chat_view import show_answer_assets, show_export_buttons, show_record
from components.conversation_view import show_conversation_groups
from components.errors import page_guard
from components.resources import get_engine
from core.public import readable

engine = get_engine()  # outside the guard: app.py says 启动应用失败 when it cannot open
with page_guard("加载历史回答"):
    engine = scoped(engine)  # only the signed-in user's answers
    st.title("历史回答")
    col1, col2, col3 = st.columns([3, 1, 1])
    text = col1.text_input("按问题搜索", "")
    STATUS_LABELS = {
        "全部": "全部",
        "answered": "已回答",
        "no_evidence": "无充分证据",
        "unverifiable": "无法核查",
        "blocked": "被拦截",
        "error": "出错",
        "interrupted": "被中断",
    }
    status = col2.selectbox("状态", list(STATUS_LABELS), format_func=STATUS_LABELS.get)
    since = col3.date_input("起始日期", value=None)

    by_conversation, by_answer = st.tabs(["按对话", "单条回答"])
    with by_conversation:
        hidden = st.toggle("包括已隐藏的对话", key="history-hidden")
        conversations = engine.conversations(text=text or None, include_hidden=hidden, limit=30)
        if conversations:
            show_conversation_groups(engine, conversations)
        else:
            st.info("还没有符合条件的对话。")
    by_answer.caption("状态和日期筛选只作用于单条回答。")
    with by_answer:
        records = engine.answers(
            text=text or None,
            status=None if status == "全部" else status,
            since=datetime.combine(since, time.min, tzinfo=timezone.utc) if since else None,
            limit=200,
        )
        if records.skipped:
            st.warning(f"有 {len(records.skipped)} 条记录无法读取，已跳过（编号见下）。")
            st.text("、".join(r.answer_id for r in records.skipped[:5]))  # stored ids: text, never Markdown
        if not records:
            st.info("还没有符合条件的回答。")
        labels = {
            r.answer_id: f"{r.created_at:%Y-%m-%d %H:%M} · [{'核查 · ' if r.generator.name == 'check' else ''}"
            f"{STATUS_LABELS.get(r.status, r.status)}] {r.query[:60]}"
            for r in records
        }
        chosen = st.selectbox("选择一个回答重放", list(labels), format_func=labels.get) if records else None
        if chosen:
            record = next(r for r in records if r.answer_id == chosen)
            st.text(f"问题：{record.query}")
            show_answer_assets()
            show_record(record, readable.current_versions(engine))
            show_export_buttons([record], f"answer-{record.answer_id[:8]}")
