"""The shared sidebar: generator choice, index status, attribution."""

from __future__ import annotations

import streamlit as st

from components.chat_view import show_index_status
from components.resources import embedding_worker, get_engine
from core.generators import registry as generator_registry


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
