"""The 知识库 page's knowledge-base section: choose the one you manage; create,
rename, hide (the chat sidebar's selector is ``components.sidebar.kb_selector``).

Titles and typed names are untrusted: they are shown only as widget options and
``st.text`` (never Markdown); messages put a validated name in a code span.
Reads and writes go through ``core.store.knowledge_bases.KnowledgeBaseStore``.
"""

from __future__ import annotations

import streamlit as st

from components.plain import plain
from core.public import DEFAULT_KB, KnowledgeBase, KnowledgeBaseError, KnowledgeBaseStore, name_from_title

#: Session key of the managed knowledge base.
MANAGED_KEY = "managed_kb"
#: Query parameter naming the managed knowledge base, so a reload keeps it (checked against the list).
URL_KEY = "kb"
_NEXT = "_managed_kb_next"  # set by an action, applied before the selectbox of the next run
_FLASH = "_kb_flash"  # a success message shown once after st.rerun


def kb_label(kb: KnowledgeBase) -> str:
    """``标题（name）``, with ``· 已隐藏`` for a hidden one (plain text for widget options)."""
    label = kb.title if kb.title == kb.name else f"{kb.title}（{kb.name}）"
    return label + (" · 已隐藏" if kb.hidden else "")


def choose_managed_kb(store: KnowledgeBaseStore) -> KnowledgeBase:
    """The 管理的知识库 selectbox (every knowledge base, hidden ones marked); returns the
    chosen one: the one just created, else this session's choice, else the URL's
    ``?kb=`` (a reload: used only when it names one of the list), else ``default``.
    The choice is written back to ``?kb=``."""
    kbs = {kb.name: kb for kb in store.list()}
    pending = st.session_state.pop(_NEXT, None)
    if pending in kbs:
        st.session_state[MANAGED_KEY] = pending
    if st.session_state.get(MANAGED_KEY) not in kbs:
        from_url = st.query_params.get(URL_KEY)
        st.session_state[MANAGED_KEY] = from_url if from_url in kbs else DEFAULT_KB
    name = st.selectbox("管理的知识库", list(kbs), key=MANAGED_KEY, format_func=lambda n: kb_label(kbs[n]))
    if st.query_params.get(URL_KEY) != name:
        st.query_params[URL_KEY] = name
    flash = st.session_state.pop(_FLASH, None)
    if flash:
        st.success(flash)
    kb = kbs[name]
    if kb.hidden:
        st.caption("此知识库已隐藏：问答页不再提供它；文档保留，引用过它的旧回答仍可重放。")
    return kb


def _done(message: str, manage: str | None = None) -> None:
    st.session_state[_FLASH] = message
    if manage:
        st.session_state[_NEXT] = manage
    st.rerun()


def _failed(action: str, exc: KnowledgeBaseError) -> None:
    st.error(f"{action}失败：" + plain(str(exc)))  # the reason may quote what was typed: plain text


def _create(store: KnowledgeBaseStore, typed_name: str, title: str) -> KnowledgeBase:
    """Create the knowledge base of the form: ``typed_name``, or when it is empty a name made
    of ``title`` (``core.store.knowledge_bases.name_from_title``). ``KnowledgeBaseError`` says what
    to type: a name when none can be made, a valid spelling of an invalid typed name."""
    name = typed_name or name_from_title(title)
    if not name:
        why = "标题里没有可用作名称的英文字母或数字" if title else "名称和标题都是空的"
        raise KnowledgeBaseError(f"请填写名称（{why}）：只能用小写英文字母、数字、- 和 _，例如 team-notes")
    try:
        return store.create(name, title or None)
    except KnowledgeBaseError as exc:
        hint = name_from_title(typed_name) if typed_name else None
        if hint and hint != typed_name:
            raise KnowledgeBaseError(f"{exc}；可改为 {hint}") from exc
        raise


def show_kb_admin(store: KnowledgeBaseStore, kb: KnowledgeBase) -> None:
    """The 新建、重命名或隐藏知识库 expander: a form for a new knowledge base (it becomes the
    managed one), and rename / hide / show for ``kb``."""
    with st.expander("新建、重命名或隐藏知识库"):
        with st.form("kb_create", clear_on_submit=True):
            st.markdown("**新建知识库**")
            name = st.text_input(
                "名称（小写英文字母、数字、- 和 _；写入每个片段的 ID，之后不能修改；留空则由英文标题生成）",
                key="kb_new_name",
            )
            title = st.text_input("标题（显示用，可用中文；留空则与名称相同）", key="kb_new_title")
            if st.form_submit_button("新建"):
                try:
                    created = _create(store, name.strip(), title.strip())
                except KnowledgeBaseError as exc:
                    _failed("新建知识库", exc)
                else:
                    _done(f"已新建知识库 `{created.name}`，现在管理它。", manage=created.name)
        st.markdown(f"**当前：`{kb.name}`**")
        new_title = st.text_input("新标题", value=kb.title, key=f"kb_title_{kb.name}")
        if st.button("重命名", disabled=new_title.strip() in ("", kb.title)):
            try:
                store.rename(kb.name, new_title)
            except KnowledgeBaseError as exc:
                _failed("重命名", exc)
            else:
                _done(f"已重命名知识库 `{kb.name}`（名称不变，片段 ID 不变）。")
        if kb.hidden:
            if st.button("重新显示"):
                store.set_hidden(kb.name, False)
                _done(f"知识库 `{kb.name}` 已重新显示，可在问答页选择。")
        elif st.button(
            "隐藏此知识库",
            disabled=kb.name == DEFAULT_KB,
            help="默认知识库不能隐藏" if kb.name == DEFAULT_KB else "问答页不再提供它；文档与旧回答保留",
        ):
            store.set_hidden(kb.name, True)
            _done(f"知识库 `{kb.name}` 已隐藏。")
