"""Yinzheng (引证): page config, sign-in (when ``[auth]`` is configured), navigation over
the pages, shared sidebar.

On a session's first run the page runs before the shared sidebar is drawn (into a slot
reserved above the page's own sidebar parts): the chat shows its input before the engine's
modules (jieba, chromadb, SQLAlchemy: seconds on a first start) are imported. Later runs draw
the sidebar first, so a new answer is the last thing a run draws (nothing moves under a
marker the person is already pointing at)."""

import streamlit as st

from components.auth import is_admin, require_sign_in, show_user_box
from components.errors import page_guard, show_app_error
from core.public import AppError

st.set_page_config(page_title="引证 Yinzheng", page_icon="📑", layout="wide")
# 知识库 (knowledge-base management) is for administrators only (everyone in local mode).
try:
    user = require_sign_in()  # with [auth]: a visitor sees only the sign-in screen
    admin = is_admin(user)
except AppError as exc:  # e.g. a bad [yinzheng] section in the secrets file
    show_app_error(exc, "启动应用")
    st.stop()
pages = [
    st.Page("app_pages/chat.py", title="问答", icon=":material/forum:", default=True),
    st.Page("app_pages/check.py", title="核查", icon=":material/fact_check:", url_path="check"),
    st.Page("app_pages/sources.py", title="来源快照", icon=":material/description:", url_path="sources"),
    st.Page("app_pages/history.py", title="历史", icon=":material/history:", url_path="history"),
]
if admin:
    pages.append(st.Page("app_pages/library.py", title="知识库", icon=":material/library_books:", url_path="library"))
page = st.navigation(pages)
sidebar = st.sidebar.container()  # the shared sidebar's place: above what the page adds to the sidebar
SIDEBAR_FIRST = "_sidebar_first"  # session key: the engine was loaded, the sidebar may come first


def draw_sidebar() -> None:
    from components.sidebar import show_sidebar  # noqa: PLC0415 - the engine's modules (module doc)

    with page_guard("加载侧边栏"):  # a failing sidebar does not take the page with it
        show_user_box(user, where=sidebar)
        # the chat (default page) lists conversations; the 知识库 page shows the index status live itself
        show_sidebar(conversations=page.url_path == "", index_status=page.url_path != "library", where=sidebar)


first_run = not st.session_state.get(SIDEBAR_FIRST)
if not first_run:
    draw_sidebar()
try:
    page.run()  # every page guards its own body (components.errors.page_guard), but not the engine's opening
except AppError as exc:  # the engine cannot open: e.g. a bad setting or an index built with another embedding model
    show_app_error(exc, "启动应用")
    st.stop()
if first_run:
    draw_sidebar()
    st.session_state[SIDEBAR_FIRST] = True
# Material icons render without an emoji font on the machine (issue 15)
