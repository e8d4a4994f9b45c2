"""The snapshot page body: the stored chunk exactly as the answer used it."""

from __future__ import annotations

from urllib.parse import urlparse

import streamlit as st

from core.models import AnswerRecord


def _safe_url(url: str | None) -> str | None:
    if url and urlparse(url).scheme in ("http", "https"):
        return url
    return None


def show_snapshot(
    record: AnswerRecord | None, answer_id: str, chunk_id: str, current_versions: dict[str, str | None]
) -> None:
    """Show the snapshot of ``chunk_id`` stored in ``record``, or a clear message."""
    if not answer_id or not chunk_id:
        st.info("从回答的来源卡片打开此页，可查看该片段在作答时的快照。")
        return
    if record is None:
        st.error(f"找不到回答 {answer_id!r}：它可能来自另一个数据目录，或链接不完整。")
        return
    snap = record.chunk(chunk_id)
    if snap is None:
        st.error(f"回答 {answer_id!r} 中没有片段 {chunk_id!r}。")
        return
    st.subheader(snap.title)
    st.caption(" › ".join(snap.heading_path))
    current = current_versions.get(snap.source_id, "missing")
    if current is None or current == "missing":
        st.warning("来源已删除：以下为作答时保存的快照。")
    elif current != snap.version:
        st.warning(f"来源已更新（当前版本 {current}）：以下为作答时保存的快照（版本 {snap.version}）。")
    st.text(snap.text)
    url = _safe_url(snap.uri)
    rows = {
        "文档版本": snap.version,
        "片段 ID": snap.chunk_id,
        "内容哈希 (SHA-256)": snap.content_sha256,
        "检索时间": snap.retrieved_at.isoformat(timespec="seconds"),
        "检索排名": str(snap.rank),
        "相关度": f"{snap.relevance:.2f}",
        "公开链接": url or "（无）",
    }
    st.table({"字段": list(rows), "值": list(rows.values())})
    if url:
        st.link_button("打开公开页面", url)
    st.caption(f"问题：{record.query}")
