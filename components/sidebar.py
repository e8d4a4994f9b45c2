"""The shared sidebar: generator choice, index status, attribution."""

from __future__ import annotations

import streamlit as st

from components.chat_view import show_index_status
from components.resources import embedding_worker, get_engine


def show_sidebar() -> None:
    engine = get_engine()
    with st.sidebar:
        st.subheader("设置")
        options = ["extractive"]
        if engine.settings.gemini_api_key:
            options += ["gemini", "gemini-search"]
            if engine.settings.gemini_file_search_store:
                options.append("gemini-file-search")
        model = engine.settings.gemini_model
        labels = {
            "extractive": "离线抽取式（无需密钥）",
            "gemini": f"Gemini 基于知识库（{model}）",
            "gemini-search": f"Gemini + Google 搜索（{model}）",
            "gemini-file-search": f"Gemini + File Search（{model}）",
        }
        default = options.index(engine.settings.generator) if engine.settings.generator in options else 0
        st.selectbox("生成方式", options, index=default, format_func=labels.get, key="generator")
        if not engine.settings.gemini_api_key:
            st.caption("设置环境变量 GEMINI_API_KEY（或在 .streamlit/secrets.toml 中）后可启用 Gemini 生成。")
        if engine.index.active_chunks():
            show_index_status(engine, embedding_worker())
        st.divider()
        st.caption(
            "示例知识库：Kubernetes 文档 (zh-cn)，© The Kubernetes Authors，"
            "[CC BY 4.0](https://creativecommons.org/licenses/by/4.0/)"
        )
