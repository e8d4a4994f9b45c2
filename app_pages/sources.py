"""Sources: the stored snapshot of one chunk, exactly as an answer used it."""

import streamlit as st

from components.auth import scoped
from components.errors import page_guard
from components.resources import get_engine
from components.source_view import show_snapshot
from core.public import readable

engine = get_engine()  # outside the guard: app.py says 启动应用失败 when it cannot open
with page_guard("显示来源快照"):
    engine = scoped(engine)  # another user's answer id is "not found"
    st.title("来源快照")
    answer_id = st.query_params.get("answer_id", "")
    chunk_id = st.query_params.get("chunk_id", "")
    record = engine.answer(answer_id) if answer_id else None
    snap = record.chunk(chunk_id) if record else None
    current = readable.current_counterpart(engine, snap) if snap else None  # None: no access to its base now
    show_snapshot(
        record,
        answer_id,
        chunk_id,
        readable.current_versions(engine),
        current,
        st.query_params.get("support"),
        current_readable=bool(snap) and readable.may_read_source(engine, snap),
    )
