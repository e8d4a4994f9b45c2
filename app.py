"""Yinzheng (引证): page config, sign-in (when ``[auth]`` is configured), navigation over
the pages, shared sidebar."""

import streamlit as st

from components.auth import is_admin, require_sign_in, show_user_box
from components.errors import page_guard, show_app_error
from core.errors import AppError

st.set_page_config(page_title="引证 Yinzheng", page_icon="📑", layout="wide")
# The navigation first, before the heavy imports (jieba, chromadb: seconds) and the engine: the
# sidebar shows the page titles at once instead of a blank page. 知识库 (knowledge-base
# management) is for administrators only (everyone in local mode).
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
from components.resources import get_engine  # noqa: E402 - after the navigation on purpose
from components.sidebar import show_sidebar  # noqa: E402

try:
    get_engine()
except AppError as exc:  # e.g. a bad setting or an index built with another embedding model
    show_app_error(exc, "启动应用")
    st.stop()
with page_guard("加载侧边栏"):  # a failing sidebar does not take the page with it
    show_user_box(user)
    show_sidebar(conversations=page.url_path == "")  # the chat (default page) lists conversations
# Material icons render without an emoji font on the machine (issue 15)
page.run()  # every page guards its own body (components.errors.page_guard)
