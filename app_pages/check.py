"""核查: check any text against the knowledge base, or against pasted sources; shown and stored
like a chat answer."""

import streamlit as st

from components.auth import scoped
from components.chat_view import show_answer_assets, show_export_buttons, show_record
from components.errors import page_guard, show_app_error
from components.resources import ensure_ready
from core.public import RecordError, readable

try:
    from core.public import check_text
except ImportError:  # the verifier is not installed in this build
    check_text = None
try:
    from core.public import check_against
except ImportError:
    check_against = None

engine = ensure_ready()  # outside the guard: app.py says 启动应用失败 when it cannot open
with page_guard("核查"):
    engine = scoped(engine)
    st.title("核查 · 检查任意文本的出处")
    show_answer_assets()
    st.caption(
        "粘贴一段文字（如其他聊天机器人的回答、报告中的段落），逐句在知识库中检索并核对，"
        "或者对照你粘贴的来源原文核对：有出处的句子带上标，与来源矛盾的句子标 ⚠ 与来源矛盾，"
        "找不到出处的句子标 本段无出处。"
    )

    with st.form("check"):
        example = next((p.check_example for p in engine.profiles() if p.check_example), None)
        text = st.text_area(
            "要核查的文本",
            height=180,
            placeholder=f"例如：{example}" if example else "粘贴要核查的文字，每句都会单独核对。",
        )
        sources = st.text_area(
            "来源原文（可选）",
            height=140,
            placeholder="留空：在知识库中检索。粘贴原文：只对照这些文字核对；多段用空行分隔，或写成 [1] … [2] …",
        )
        submitted = st.form_submit_button("核查", type="primary")
    if submitted:
        pasted = bool(sources.strip())
        if not text.strip():
            st.warning("请先输入要核查的文本。")
        elif (check_against if pasted else check_text) is None:
            st.error("核查功能在此版本中不可用（缺少 core.check）。")
        else:
            with st.spinner("正在逐句对照粘贴的来源核对…" if pasted else "正在逐句检索与核对…"):
                # an AppError here is shown by page_guard
                record = check_against(engine, text, sources) if pasted else check_text(engine, text)
            try:
                engine.save_answer(record)  # idempotent (same answer_id) if check_text stored it already
                st.query_params["answer_id"] = record.answer_id
            except RecordError as exc:  # not stored: still show the result, with the error
                show_app_error(exc, "保存核查结果")
                show_record(record, None)

    if answer_id := st.query_params.get("answer_id"):
        record = engine.answer(answer_id)
        if record is None:
            st.error("找不到这条核查记录：它可能来自另一个数据目录，或链接不完整。")
            st.text(f"记录编号：{answer_id}")  # from the URL: shown as text, never as Markdown
        else:
            show_record(record, readable.current_versions(engine))
            show_export_buttons([record], f"check-{answer_id[:8]}")
