"""The shared sidebar: generator choice, retrieval settings, index status, attribution;
and the chat page's knowledge-base selector (``kb_selector``).

Each part is its own function. Widget state lives under fixed ``st.session_state``
keys; the sidebar runs on every page (``app.py``), so a setting survives navigation.
"""

from __future__ import annotations

import streamlit as st

from components.auth import scoped
from components.chat_view import show_index_status
from components.conversation_view import current_conversation, show_conversation_list
from components.kb_view import kb_label
from components.plain import plain
from components.resources import embedding_worker, get_engine
from core.public import (
    DEFAULT_KB,
    RetrievalOptions,
    generator_entry,
    generator_hints,
    generator_label,
    offered_generators,
    readable,
)

#: ``st.session_state`` keys of the retrieval settings panel.
TOP_K_KEY, OWN_THRESHOLD_KEY, THRESHOLD_KEY, DOCUMENTS_KEY = "top_k", "own_threshold", "evidence_threshold", "documents"

#: Session key of the knowledge bases the chat searches (the widget's), and the copy that
#: survives other pages (Streamlit drops a widget's state when a run does not draw it).
SELECTED_KEY = "knowledge_bases"
_KEPT_KEY = "_knowledge_bases_kept"


def show_sidebar(*, conversations: bool = False, index_status: bool = True, where=None) -> None:  # noqa: ANN001
    """The sidebar of every page; ``conversations``: the chat page's conversation list first.
    ``index_status``: the index's size and vector progress (drawn once per run); the 知识库 page leaves it
    out, its overview shows the same live (a sidebar line that said 0/2 pending beside an overview that
    said ready confused the person watching an upload's vectors being built).
    ``where``: a container in the sidebar to draw into (default: the end of the sidebar)."""
    engine = scoped(get_engine())  # the signed-in user's conversations only
    with where if where is not None else st.sidebar:
        if conversations:
            show_conversation_list(engine, current_conversation())
        st.subheader("设置")
        show_generator_choice(engine)
        show_retrieval_settings(engine)
        if index_status and engine.has_chunks():
            show_index_status(engine, embedding_worker())
        attributions = [p.attribution for p in engine.profiles() if p.attribution]
        if attributions:  # what the collections' corpus profiles ask to be credited (plain text)
            st.divider()
            for line in dict.fromkeys(attributions):
                st.text(line)


def may_search_every_knowledge_base(engine) -> bool:  # noqa: ANN001 - Engine (scoped)
    """Whether a question of ``engine``'s user can search every knowledge base of the catalog,
    hidden ones included: the one case in which ``core.engine.own_retrieval_refusal`` lets a
    generator that ``reads_knowledge_bases`` (Gemini File Search) answer. A hidden base cannot be
    selected, so while one exists no question can."""
    kbs = engine.knowledge_base_store
    every = {kb.name for kb in kbs.list(include_hidden=True)}
    visible = [kb.name for kb in kbs.list(include_hidden=False)]
    return every <= set(engine.searchable(visible))


def show_generator_choice(engine) -> None:  # noqa: ANN001 - Engine (scoped)
    """生成方式: the generators the settings make usable, less one that would be refused for this
    user (:func:`may_search_every_knowledge_base`), with a line that says why it is missing;
    with File Search chosen, a line that says when it answers."""
    settings = engine.settings
    every = may_search_every_knowledge_base(engine)
    options = offered_generators(settings, every_knowledge_base=every)
    if st.session_state.get("generator") not in options:
        st.session_state.pop("generator", None)  # chosen before it was withheld: back to the default
    default = options.index(settings.generator) if settings.generator in options else 0
    chosen = st.selectbox(
        "生成方式",
        options,
        index=default,
        key="generator",
        format_func=lambda name: generator_label(name, settings),
    )
    withheld = [n for n in offered_generators(settings) if n not in options]
    for name in withheld:
        st.caption(
            f"{plain(generator_label(name, settings))} 不可用：它在自己的存储中查找全部知识库的文档，"
            "无法限定到你可以检索的知识库。"
        )
    if generator_entry(chosen).reads_knowledge_bases:
        st.caption("它只在“检索的知识库”选中全部知识库时回答；只选部分时不会调用它。")
    for hint in generator_hints(settings):
        st.caption(hint)


def selected_knowledge_bases(engine) -> tuple[str, ...]:  # noqa: ANN001 - Engine (scoped)
    """What a question of the chat searches now: the 检索的知识库 selection of the session
    (the widget's, else the copy kept across pages) less every name the selector does not offer
    this user (:func:`core.readable.askable_bases`: a forged widget value, a base hidden or
    revoked since), then ``Engine.searchable`` (none: ``default``, if the user may ask it)."""
    offered = readable.askable_bases(engine)
    kept = st.session_state.get(SELECTED_KEY) or st.session_state.get(_KEPT_KEY) or []
    return engine.searchable([n for n in kept if isinstance(n, str) and n in offered])


def offered_documents(engine) -> dict[str, str]:  # noqa: ANN001 - Engine (scoped)
    """source_id → title of the documents 只检索这些文档 offers: those of
    :func:`selected_knowledge_bases`, read through ``core.readable.documents``."""
    rows = readable.documents(engine, selected_knowledge_bases(engine))
    return {row.document.source_id: row.document.title for row in rows}


def show_retrieval_settings(engine) -> None:  # noqa: ANN001 - Engine
    """The 检索设置 panel: top-k, the evidence threshold (calibrated unless the person sets
    one) and the documents to search (by title; none chosen = all) among
    :func:`offered_documents`. Read back with :func:`retrieval_options`."""
    thresholds = engine.calibrated_thresholds()
    docs = offered_documents(engine)
    with st.expander("检索设置", icon=":material/tune:"):
        st.slider(
            "检索片段数（top-k）", 1, 20, engine.settings.top_k, key=TOP_K_KEY, help="参与排序和充分性判断的片段数。"
        )
        st.toggle(
            "自定义证据阈值",
            key=OWN_THRESHOLD_KEY,
            help=f"默认用校准值：关键词模式 {thresholds['keyword']:.2f}，混合模式 {thresholds['hybrid']:.2f}"
            + (f"，双向量混合模式 {thresholds['hybrid2']:.2f}。" if "hybrid2" in thresholds else "。"),
        )
        if st.session_state.get(OWN_THRESHOLD_KEY):
            calibrated = thresholds[engine.retrieval_mode()]  # the mode questions use now
            st.slider(
                "证据阈值（片段作为证据所需的充分性概率）", 0.0, 1.0, round(calibrated, 2), 0.01, key=THRESHOLD_KEY
            )
        st.multiselect(
            "只检索这些文档",
            list(docs),
            key=DOCUMENTS_KEY,
            placeholder="全部文档",
            format_func=lambda sid: f"{docs.get(sid) or sid} · {sid}",
        )


def retrieval_options(engine) -> RetrievalOptions:  # noqa: ANN001 - Engine (scoped)
    """The person's retrieval settings from the sidebar panel (defaults when it has not run);
    a chosen document that :func:`offered_documents` does not offer ``engine``'s user now is
    dropped (none left: every document)."""
    state = st.session_state
    offered = offered_documents(engine) if state.get(DOCUMENTS_KEY) else {}
    documents = tuple(d for d in state.get(DOCUMENTS_KEY) or () if isinstance(d, str) and d in offered) or None
    threshold = state.get(THRESHOLD_KEY) if state.get(OWN_THRESHOLD_KEY) else None
    return RetrievalOptions(top_k=state.get(TOP_K_KEY), evidence_threshold=threshold, documents=documents)


def kb_selector(engine) -> list[str]:  # noqa: ANN001 - Engine (scoped)
    """The chat sidebar's 检索的知识库 multiselect over the knowledge bases that are not
    hidden and that ``engine``'s user may ask now (``core.readable.askable_bases``); returns
    the chosen names (``[]`` means ``default``: ``KnowledgeBaseStore.resolve``)."""
    kbs = readable.askable_bases(engine)
    kept = st.session_state.get(SELECTED_KEY, st.session_state.get(_KEPT_KEY, [DEFAULT_KB]))
    st.session_state[SELECTED_KEY] = [n for n in kept if isinstance(n, str) and n in kbs]  # forged, hidden, revoked
    picked = st.multiselect(
        "检索的知识库",
        list(kbs),
        key=SELECTED_KEY,
        format_func=lambda n: kb_label(kbs[n]),
        placeholder="默认知识库",
    )
    st.session_state[_KEPT_KEY] = list(picked)
    if not picked:
        st.caption("未选择时检索默认知识库。")
    return picked
