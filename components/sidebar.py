"""The shared sidebar: generator choice, index status, attribution; and the chat
page's knowledge-base selector (``kb_selector``)."""

from __future__ import annotations

import streamlit as st

from components.chat_view import show_index_status
from components.kb_view import kb_label
from components.resources import embedding_worker, get_engine
from core.generators import registry as generator_registry
from core.knowledge_bases import KnowledgeBaseStore
from core.models import DEFAULT_KB

#: Session key of the knowledge bases the chat searches (the widget's), and the copy that
#: survives other pages (Streamlit drops a widget's state when a run does not draw it).
SELECTED_KEY = "knowledge_bases"
_KEPT_KEY = "_knowledge_bases_kept"


def show_sidebar() -> None:
    engine = get_engine()
    with st.sidebar:
        st.subheader("设置")
        settings = engine.settings
        options = generator_registry.offered(settings)
        default = options.index(settings.generator) if settings.generator in options else 0
        st.selectbox(
            "生成方式", options, index=default, key="generator",
            format_func=lambda name: generator_registry.label(name, settings),
        )
        for hint in generator_registry.hints(settings):
            st.caption(hint)
        if engine.index.active_chunks():
            show_index_status(engine, embedding_worker())
        st.divider()
        st.caption(
            "示例知识库：Kubernetes 文档 (zh-cn)，© The Kubernetes Authors，"
            "[CC BY 4.0](https://creativecommons.org/licenses/by/4.0/)"
        )


def kb_selector(store: KnowledgeBaseStore) -> list[str]:
    """The chat sidebar's 检索的知识库 multiselect over the knowledge bases that are not
    hidden (default: ``default``); returns the chosen names (``[]`` means ``default``:
    ``KnowledgeBaseStore.resolve``)."""
    kbs = {kb.name: kb for kb in store.list(include_hidden=False)}
    kept = st.session_state.get(SELECTED_KEY, st.session_state.get(_KEPT_KEY, [DEFAULT_KB]))
    st.session_state[SELECTED_KEY] = [n for n in kept if n in kbs]  # drop ones hidden since
    picked = st.multiselect(
        "检索的知识库", list(kbs), key=SELECTED_KEY, format_func=lambda n: kb_label(kbs[n]),
        placeholder="默认知识库",
    )
    st.session_state[_KEPT_KEY] = list(picked)
    if not picked:
        st.caption("未选择时检索默认知识库。")
    return picked
