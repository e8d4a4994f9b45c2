"""Conversations in the UI: which one is open, the sidebar list (新对话, search,
rename, hide) and the grouped list of 历史.

The open conversation is ``st.session_state[CONVERSATION_KEY]`` and ``?c=`` in the
URL: the URL wins (a link or reload), the session restores it after navigating to
another page and back (Streamlit drops query parameters on a page switch).
Titles, questions and previews are untrusted text: shown with ``st.text``, or as widget
labels through :func:`components.plain.plain`, never as Markdown.

Light to import (Streamlit and the standard library): the chat page draws its input with
:data:`QUESTION_KEY` and :func:`current_conversation` before the engine's modules load;
what the list needs from ``core.records.store`` and ``components.answer_actions`` is imported
where it is used.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from typing import TYPE_CHECKING

import streamlit as st

from components.plain import plain

if TYPE_CHECKING:
    from core.public import Conversation, Engine

CONVERSATION_KEY = "conversation"
CHAT_PAGE = "app_pages/chat.py"
#: The chat input's key: the sidebar (drawn before the page) sees the question this run answers.
QUESTION_KEY = "question"


def new_conversation_id() -> str:
    """A fresh conversation id, in the form of ``core.models.new_conversation_id`` (not imported: this module stays
    light, see its doc)."""
    return uuid.uuid4().hex[:16]


def current_conversation() -> str:
    """The open conversation's id: ``?c=``, else the one this session had open, else a new one.
    Both places are set to it, so the URL can always be reloaded or shared."""
    cid = st.query_params.get("c") or st.session_state.get(CONVERSATION_KEY) or new_conversation_id()
    st.session_state[CONVERSATION_KEY] = cid
    if st.query_params.get("c") != cid:
        st.query_params["c"] = cid
    return cid


def _open(cid: str) -> None:
    st.session_state[CONVERSATION_KEY] = cid
    st.query_params["c"] = cid


def open_in_chat(cid: str) -> None:
    """Switch to the chat page with conversation ``cid`` open (from any page)."""
    st.session_state[CONVERSATION_KEY] = cid  # not this page's ?c=: Back would land on it
    st.switch_page(CHAT_PAGE, query_params={"c": cid})


#: The list's buttons read like a list: text left-aligned on one line.
LIST_CSS = """<style>
.st-key-conversation-list button, .st-key-conversation-list button > div{justify-content:flex-start;text-align:left}
.st-key-conversation-list button > div{width:100%}
.st-key-conversation-list button p{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
</style>"""


def _label(c: Conversation) -> str:
    return c.title if len(c.title) <= 28 else c.title[:27] + "…"


def asking() -> str | None:
    """The question this run answers (typed into the chat input, or an edit/regenerate request),
    read before the page takes it."""
    from components.answer_actions import PENDING_KEY  # noqa: PLC0415 - see the module doc

    pending = st.session_state.get(PENDING_KEY)
    return st.session_state.get(QUESTION_KEY) or (pending.question if pending is not None else None)


def show_conversation_list(engine: Engine, current: str) -> None:
    """The sidebar's conversations: 新对话, a search box, the newest first (the open one
    marked), and 管理当前对话 (rename, hide) for the open one. A conversation whose first
    question is being answered in this run is listed already (titled by that question),
    so the page need not run again to show it."""
    from core.public import Conversation  # noqa: PLC0415 - see the module doc

    st.button(
        "新对话",
        icon=":material/add_comment:",
        type="primary",
        width="stretch",
        on_click=_open,
        args=(new_conversation_id(),),
        key="new-conversation",
    )
    text = st.text_input(
        "搜索对话", key="conversation-search", placeholder="按标题或问题搜索", label_visibility="collapsed"
    )
    conversations = engine.conversations(text=text.strip() or None, limit=30)
    summary = engine.conversation(current)
    question = asking()
    if summary is None and question:
        now = datetime.now(timezone.utc).isoformat()
        summary = Conversation(current, question.strip()[:80], question, 0, now, now, "")
        if not text.strip():
            conversations.insert(0, summary)
    st.html(LIST_CSS)
    if not conversations:
        st.caption("没有符合条件的对话。" if text.strip() else "还没有对话。")
    with st.container(key="conversation-list", height=320 if len(conversations) > 8 else "content"):
        for c in conversations:
            st.button(
                plain(_label(c)),
                key=f"conv-{c.conversation_id}",
                width="stretch",
                type="secondary" if c.conversation_id == current else "tertiary",
                icon=":material/chat:" if c.conversation_id == current else None,
                help=f"{c.turns} 轮 · 更新于 {c.updated_at[:16].replace('T', ' ')} UTC",
                on_click=_open,
                args=(c.conversation_id,),
            )
    if summary is not None:
        show_manage_conversation(engine, summary)


def show_manage_conversation(engine: Engine, c: Conversation) -> None:
    """A popover that renames or hides conversation ``c`` (hiding keeps its records)."""
    with st.popover("管理当前对话", icon=":material/edit:", width="stretch"):
        title = st.text_input("对话标题", value=c.title, key=f"title-{c.conversation_id}", max_chars=80)
        if st.button("保存标题", key=f"rename-{c.conversation_id}"):
            engine.rename_conversation(c.conversation_id, title)
            st.rerun()
        st.caption("隐藏后对话不再出现在列表中，记录仍然保留，可在“历史”中恢复。")
        if st.button("隐藏这个对话", key=f"hide-{c.conversation_id}", icon=":material/visibility_off:"):
            engine.hide_conversation(c.conversation_id)
            _open(new_conversation_id())
            st.rerun()


def show_conversation_groups(engine: Engine, conversations: list[Conversation]) -> None:
    """历史: one bordered box per conversation (title, turns, last update, preview) with
    在问答中打开, and 恢复显示 for a hidden one."""
    for c in conversations:
        with st.container(border=True, key=f"history-{c.conversation_id}"):
            st.text(c.title)
            st.caption(
                f"{c.turns} 轮 · 更新于 {c.updated_at[:16].replace('T', ' ')} UTC" + (" · 已隐藏" if c.hidden else "")
            )
            st.text(c.preview)
            with st.container(horizontal=True):
                if st.button("在问答中打开", key=f"open-{c.conversation_id}", icon=":material/forum:"):
                    open_in_chat(c.conversation_id)
                if c.hidden and st.button("恢复显示", key=f"unhide-{c.conversation_id}"):
                    engine.hide_conversation(c.conversation_id, hidden=False)
                    st.rerun()
