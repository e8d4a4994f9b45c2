"""The snapshot page body: the stored chunk exactly as the answer used it.

Titles, heading paths, the question and ids from the URL are untrusted text:
they are shown as escaped HTML or with ``st.text``, never as Streamlit Markdown
(which would turn ``:ok:`` into an emoji, ``~删除~`` into strike-through and
``[x](…)`` into a link).

The chunk's Markdown is rendered safely (``components.snapshot_html.markdown_html``:
markdown-it without raw HTML, then the nh3 allowlist). The cited passage
(``core.records.presentation.cited_span``: the aligned quote of verification, else the
support's verbatim quote or the cited sentence found in the chunk; code points
into the chunk text) is highlighted in ``<mark id="yz-quote">`` and the page
scrolls to it (a constant script in ``st.html(..., unsafe_allow_javascript=True)``;
the chunk text goes through a separate, script-free ``st.html``). A bad offset
shows the text without a highlight. A 返回回答 link leads back to the answer's
conversation in the same browser session (``st.page_link``).
"""

from __future__ import annotations

from html import escape
from urllib.parse import quote

import streamlit as st

from components.pdf_view import PDF_CSS, is_pdf_chunk, snapshot_body_html
from components.plain import plain
from components.sanitize import sanitize
from components.snapshot_html import section_html
from components.static import style
from components.verdict_view import VERDICT_CSS
from core.public import (
    CONTRADICTED_LABEL,
    REVIEW_LABEL,
    AnswerRecord,
    Chunk,
    ChunkSnapshot,
    char_diff,
    cited_span,
    safe_link,
    shown_path,
    snapshot_quote,
    snapshot_state,
    support_kind,
    support_reason,
)

SCROLL_TO_QUOTE = """<script>
(function () {
  let tries = 0;
  const timer = setInterval(function () {
    const mark = document.getElementById("yz-quote");
    if (mark || ++tries > 50) {
      clearInterval(timer);
      if (mark) mark.scrollIntoView({ block: "center" });
    }
  }, 100);
})();
</script>"""

DIFF_CSS = style("diff.css")

TEXT_CSS = style("snapshot.css")


def text_html(text: str, cls: str) -> str:
    """``text`` as one escaped ``<div class=cls>`` (no Markdown, no HTML from the text)."""
    return f'<div class="{cls}">{escape(text)}</div>'


def header_html(title: str, heading_path: tuple[str, ...] | list[str]) -> str:
    """The snapshot's title and heading path (``A › B › C``, without repeating the title:
    ``core.records.presentation.shown_path``) as escaped HTML."""
    path = shown_path(title, tuple(heading_path))
    return TEXT_CSS + text_html(title, "yz-snap-title") + text_html(path, "yz-snap-path")


def diff_html(old: str, new: str) -> str:
    """Escaped HTML marking deletions (<del>) and insertions (<ins>) from ``old`` to ``new``."""
    parts = []
    for tag, text in char_diff(old, new):
        t = escape(text)
        parts.append(t if tag == "equal" else f"<del>{t}</del>" if tag == "delete" else f"<ins>{t}</ins>")
    return f'<div class="yz-diff">{"".join(parts)}</div>'


def _quote_caption(record: AnswerRecord, index: int) -> str:
    sp = record.supports[index]
    sentence = " ".join(record.answer_text[sp.start : sp.end].split())
    if len(sentence) > 80:
        sentence = sentence[:79] + "…"
    kind = support_kind(sp)
    verdict = {"contradicted": CONTRADICTED_LABEL, "review": REVIEW_LABEL}.get(kind, "")
    why = f"（{verdict}：{support_reason(sp)}）" if verdict else ""
    return f"高亮部分是与回答句子「{sentence}」对齐的原文{why}"


def _chunk_text(container, snap: ChunkSnapshot, record: AnswerRecord, support: object) -> None:  # noqa: ANN001
    """The snapshot's Markdown rendered, with the cited passage highlighted and scrolled to when
    there is one; the stored text verbatim under 原始文本."""
    span = cited_span(record, snap.chunk_id, support)
    pdf = is_pdf_chunk(snap)
    body = PDF_CSS + sanitize(
        snapshot_body_html(snap, span, section_html(snap, span, mark_id="" if pdf else "yz-quote"), mark_id="yz-quote")
    )
    if span is None:
        container.html(TEXT_CSS + body)
    else:
        found = snapshot_quote(record.supports, snap.chunk_id, snap.text, support)
        text = _quote_caption(record, found[0]) if found else "高亮部分是回答引用的原文。"
        caption = f'<div class="yz-quote-caption">{escape(text)}</div>'  # untrusted text
        container.html(VERDICT_CSS + TEXT_CSS + caption + body)
        st.html(SCROLL_TO_QUOTE, unsafe_allow_javascript=True)
    container.expander("原始文本（逐字保存）").text(snap.text)  # verbatim, never Markdown


def back_link(record: AnswerRecord) -> None:
    """返回回答: the answer's conversation on the chat page (same browser session), else 历史."""
    try:
        if record.conversation_id:
            st.page_link(
                "app_pages/chat.py",
                label="返回回答",
                icon=":material/arrow_back:",
                query_params={"c": record.conversation_id},
            )
        else:
            st.page_link("app_pages/history.py", label="返回历史回答", icon=":material/arrow_back:")
    except st.errors.StreamlitAPIException:  # the page runs without app.py's navigation: a plain link
        href = f"./?c={quote(record.conversation_id, safe='')}" if record.conversation_id else "./history"
        st.html(f'<a href="{escape(href)}" target="_self">← 返回回答</a>')


def _safe_url(url: str | None) -> str | None:
    if url and safe_link(url):
        return url
    return None


def show_snapshot(
    record: AnswerRecord | None,
    answer_id: str,
    chunk_id: str,
    current_versions: dict[str, str | None],
    current: Chunk | None = None,
    support: object = None,
    current_readable: bool = True,
) -> None:
    """Show the snapshot of ``chunk_id`` stored in ``record``, or a clear message.

    ``current_versions`` and ``current`` are the live side as the user may read it
    (``core.readable``); ``current_readable`` False: the user may not ask the snapshot's
    knowledge base now, so only the stored snapshot is shown (it is their answer), with a
    line that says why, and no state or version of the live document.
    ``support`` is the URL's ``support`` parameter (untrusted): the index of the
    support whose aligned quote is highlighted (see ``core.verification.verdicts.snapshot_quote``).
    """
    if not answer_id or not chunk_id:
        st.info("从回答的来源卡片打开此页，可查看该片段在作答时的快照。")
        return
    if record is None:
        st.error("找不到这个回答：它可能来自另一个数据目录，或链接不完整。")
        st.text(f"回答 ID：{answer_id}")
        return
    snap = record.chunk(chunk_id)
    if snap is None:
        st.error("这个回答中没有所请求的片段。")
        st.text(f"回答 ID：{answer_id}\n片段 ID：{chunk_id}")
        return
    back_link(record)
    st.html(header_html(snap.title, snap.heading_path))
    state = snapshot_state(snap, current_versions) if current_readable else None
    if state is None:
        st.info("你目前无权检索这个知识库：以下为作答时保存的快照，不显示来源的当前版本。")
        _chunk_text(st, snap, record, support)
    elif state in ("deleted", "unknown"):
        st.warning("来源已删除：以下为作答时保存的快照。")
        _chunk_text(st, snap, record, support)
    elif state == "updated":
        st.warning(
            f"来源已更新（当前版本 {plain(current_versions[snap.source_key])}）："
            f"左侧为作答时保存的快照（版本 {plain(snap.version)}），右侧为当前内容。"
        )
        left, right = st.columns(2)
        left.markdown("**作答时（快照）**")
        _chunk_text(left, snap, record, support)
        right.markdown("**当前**")
        if current is not None:
            right.html(DIFF_CSS + diff_html(snap.text, current.text))
        else:
            right.caption("当前版本中找不到对应的片段。")
    else:
        _chunk_text(st, snap, record, support)
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
    st.dataframe({"字段": list(rows), "值": list(rows.values())}, hide_index=True, width="stretch")
    if url:
        st.link_button("打开公开页面", url)
    st.html(TEXT_CSS + text_html(f"问题：{record.query}", "yz-snap-query"))
