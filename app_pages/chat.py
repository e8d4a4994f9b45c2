"""Chat: ask the knowledge base; every answer shows where each sentence came from.

The input is drawn first, before the engine's modules are imported (seconds on a first
start): it is pinned to the bottom wherever it is called, and a question typed while the
rest loads is answered when it has."""

import streamlit as st

from components.conversation_view import QUESTION_KEY, current_conversation
from components.errors import page_guard

conversation_id = current_conversation()  # the sidebar lists conversations (components.sidebar)
# short enough for one line of the collapsed box on a 390 px phone (~260 px of 14 px text).
# No max_chars: the browser drops a paste past it (an empty box) and the server cuts the rest;
# the pipeline refuses a question past MAX_QUESTION_CHARS with a message, keeping its text.
typed = st.chat_input("向知识库提问，回答逐句标出处", key=QUESTION_KEY)
st.title("引证 · 有出处的问答")
st.caption("每个句子后的上标指向它的来源片段；悬停、点击或轻触上标查看来源卡片，卡片里可打开快照。")

# the engine's modules after the input (see the module doc)
from components.answer_actions import Request, pending_request  # noqa: E402
from components.auth import scoped  # noqa: E402
from components.chat_view import answer_request, show_answer_assets, show_conversation, show_export_buttons  # noqa: E402
from components.resources import ensure_ready, wait_until_ingested  # noqa: E402
from components.sidebar import kb_selector, retrieval_options  # noqa: E402

# outside the guard: app.py says 启动应用失败 when it cannot open; a typed question shows the first
# ingest's progress in its own bubble, so the page does not show it twice
engine = ensure_ready(show_progress=not typed)
with page_guard("显示问答页"):
    request = Request(typed, from_input=True) if typed else pending_request()
    engine = scoped(engine)  # the signed-in user's records and knowledge bases

    with st.sidebar:
        knowledge_bases = kb_selector(engine)

    records = engine.answers(conversation_id=conversation_id, limit=200)
    with st.sidebar:
        export_slot = st.empty()  # filled after the answer below: the export holds the turn just asked
    show_answer_assets()
    regenerated = show_conversation(  # the place of a regenerated version: under its turn
        engine, records, asking=request is not None, regenerating=request.regenerated_from if request else None
    )

    if request:
        answer_request(
            engine,
            request,
            records,
            conversation_id=conversation_id,
            generator=st.session_state.get("generator"),
            options=retrieval_options(engine),
            knowledge_bases=knowledge_bases,
            before_answer=wait_until_ingested,  # asked during the first start's ingest: shown, then answered
            where=regenerated,
        )
        records = engine.answers(conversation_id=conversation_id, limit=200)
    if records:
        with export_slot.container():
            st.caption("导出本次对话")
            show_export_buttons(records, f"conversation-{conversation_id}")
