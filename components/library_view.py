"""Library page views: ingest results, the live overview (counts, vector progress, document table),
and hiding / unhiding documents.

User-facing text is Chinese. Ingest failure reasons are made by ``core`` (mostly Chinese already);
a reason that is still English (an ``IngestError`` from the Markdown parser, say) is translated
here, at the presentation edge, by :func:`reason_zh`, so the record's audit may stay English.
"""

from __future__ import annotations

import re
from datetime import timedelta
from html import escape

import streamlit as st

from components.answer_view import MODE_LABELS
from components.errors import page_guard
from components.plain import plain
from core.public import DEFAULT_KB, FORMATS, DocumentRow, IngestReport, upload_types

RESULT_LABELS = {"added": "新增", "updated": "已更新", "unchanged": "未变化", "removed": "已移除", "failed": "失败"}

#: How often the overview (counts, vector progress, table) refreshes by itself.
REFRESH = timedelta(seconds=3)

#: The file kinds the uploader takes (``st.file_uploader(type=...)``): the file-format registry's.
UPLOAD_TYPES = upload_types()
#: Streamlit's drop zone writes its size limit and types in English ("50MB per file • MD, …", no
#: option of st.file_uploader changes that in 1.67); hidden in the page's uploader (key
#: ``library_uploads_N``) because :func:`upload_hint` says the same in Chinese. Its "Upload" button stays.
UPLOAD_CSS = (
    '<style>[class*="st-key-library_uploads_"] [data-testid="stFileUploaderDropzoneInstructions"]{display:none}</style>'
)


def _format_names(last_joiner: str) -> str:
    """The registered formats' Chinese names (``core.ingest.converters.FORMATS``): "A、B、C 和 D"."""
    names = [f.label for f in FORMATS]
    return "、".join(names[:-1]) + f" {last_joiner} {names[-1]}" if len(names) > 1 else names[0]


def upload_label() -> str:
    """The uploader's label, naming every registered format."""
    return f"上传 {_format_names('或')} 文件"


def upload_hint() -> str:
    """The Chinese line shown beside the uploader: how to add files, the size limit per file
    (``server.maxUploadSize``, MB) and the accepted types."""
    limit = st.get_option("server.maxUploadSize")
    kinds = " ".join(f".{t}" for t in UPLOAD_TYPES)
    return f"拖入文件，或点 Upload 按钮选择（可多选）；每个文件最大 {limit} MB；支持 {_format_names('和')}（{kinds}）。"


_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")

#: English reasons ``core`` can give (regex on the reason, without its ``source_id:`` prefix) -> Chinese.
_REASONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"not valid UTF-8.*?byte (0x[0-9a-f]{2}) at offset (\d+)", re.I),
        r"不是有效的 UTF-8 文本（偏移 \2 处的字节 \1），未导入",
    ),
    (re.compile(r"unpaired surrogate at code point (\d+)", re.I), r"文本在第 \1 个字符处含无法编码的代理字符，未导入"),
    (re.compile(r"Markdown nested too deeply", re.I), "Markdown 嵌套过深，无法解析，未导入"),
    (re.compile(r"could not parse Markdown", re.I), "无法解析 Markdown，未导入"),
    (re.compile(r"expected Markdown text", re.I), "内容不是文本，未导入"),
    (re.compile(r"empty", re.I), "文件为空，未导入"),
    (re.compile(r"permission denied", re.I), "没有读取权限，未导入"),
    (re.compile(r"no such file", re.I), "文件不存在，未导入"),
)


def reason_zh(reason: str) -> str:
    """``reason`` for the page: unchanged when it has Chinese text; a known English reason in
    Chinese (keeping a leading ``name:`` prefix); any other English reason as
    ``无法导入（原因：…）`` so the details are not lost."""
    if _CJK.search(reason):
        return reason
    prefix, sep, rest = reason.partition(": ")
    body = rest if sep and "/" not in rest[:1] else reason
    head = f"{prefix}：" if sep and body is rest else ""
    for pattern, zh in _REASONS:
        m = pattern.search(body)
        if m:
            return head + m.expand(zh)
    return f"{head}无法导入（原因：{body}）"


def report_rows(report: IngestReport) -> list[dict[str, str]]:
    """One row per file: 文件, 结果 (with "（有警告）" when stored with a warning), 原因
    (the failure reason in Chinese, :func:`reason_zh`, or the warnings joined with "；"). Failures first."""
    rows = [
        {"文件": f.source_id, "结果": RESULT_LABELS["failed"], "原因": reason_zh(f.reason)} for f in report.failures
    ]
    for sid, r in sorted(report.results.items()):
        warnings = report.warnings.get(sid) or []
        label = RESULT_LABELS.get(r, r) + ("（有警告）" if warnings else "")
        rows.append({"文件": sid, "结果": label, "原因": "；".join(reason_zh(w) for w in warnings)})
    return rows


def show_report(report: IngestReport) -> None:
    """Counts and a per-file table: failed and warned files (with the reason) first."""
    c = report.counts()
    summary = (
        f"新增 {c['added']} · 更新 {c['updated']} · 未变化 {c['unchanged']} · 失败 {c['failed']} · 警告 {c['warned']}"
        f"（{report.chunks} 个片段；向量在后台补齐）"
    )
    (st.warning if c["failed"] or c["warned"] else st.success)(summary)
    rows = report_rows(report)
    if rows:
        st.html(report_html(rows))


#: The import report's table: fixed column shares (文件 28 %, 结果 16 %, 原因 the rest) and every cell
#: wraps (long paths break anywhere), so a long reason is shown whole at 1400 px and at 390 px alike.
#: ``st.dataframe`` draws on a canvas whose cells cannot wrap: its 原因 ran off a phone screen.
REPORT_CSS = """<style>
.yz-report{width:100%;border-collapse:collapse;table-layout:fixed;font-size:0.875rem;line-height:1.45}
.yz-report th,.yz-report td{padding:0.35rem 0.5rem;border-bottom:1px solid rgba(49,51,63,0.15);text-align:left;
  vertical-align:top;white-space:normal;overflow-wrap:anywhere;word-break:normal}
.yz-report th{font-weight:600}
.yz-report col.yz-report-file{width:28%}.yz-report col.yz-report-result{width:16%}
</style>"""


def report_html(rows: list[dict[str, str]]) -> str:
    """The rows of :func:`report_rows` as an escaped HTML table (``REPORT_CSS``) whose cells wrap:
    file names and reasons are untrusted text (``html.escape``), never Markdown or markup."""
    head = "".join(f"<th>{escape(name)}</th>" for name in REPORT_HEADERS)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(row.get(name, ''))}</td>" for name in REPORT_HEADERS) + "</tr>" for row in rows
    )
    return (
        f'{REPORT_CSS}<table class="yz-report"><colgroup><col class="yz-report-file"><col class="yz-report-result">'
        f"<col></colgroup><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


REPORT_HEADERS = ("文件", "结果", "原因")


def progress_callback(text: str):
    bar = st.progress(0.0, text=text)

    def update(done: int, total: int, name: str) -> None:
        bar.progress(done / max(total, 1), text=f"{text} {done}/{total}：{name}")

    return bar, update


def document_label(row: DocumentRow) -> str:
    """How a document is chosen in a list: its title, then its path as the detail."""
    title = (row.document.title or "").strip() or row.document.source_id
    return f"{title}（{row.document.source_id}）"


def document_table(rows: list[DocumentRow]) -> None:
    """The 文档（n）heading and table; columns sized so all six fit at 1400 px (a longer source path
    is cut with … and shown whole on hover)."""
    st.subheader(f"文档（{len(rows)}）")
    st.dataframe(
        [
            {
                "标题": r.document.title,
                "来源": r.document.source_id,
                "片段数": r.chunk_count,
                "更新时间": (
                    r.document.updated_at.isoformat(timespec="minutes")[:16].replace("T", " ")
                    if r.document.updated_at
                    else r.ingested_at[:16].replace("T", " ")
                ),
                "可见性": "公开" if r.document.visibility == "public" else r.document.visibility,
                "当前版本": r.document.version[:12],
            }
            for r in rows
        ],
        hide_index=True,
        width="stretch",
        column_config={  # pixels: together ~890, inside the ~940 px main column at 1400 px (with the sidebar)
            "标题": st.column_config.TextColumn(width=220),
            "来源": st.column_config.TextColumn(width=300),
            "片段数": st.column_config.NumberColumn(width=60),
            "更新时间": st.column_config.TextColumn(width=140),
            "可见性": st.column_config.TextColumn(width=60),
            "当前版本": st.column_config.TextColumn(width=110),
        },
    )


def pending_vectors_text(embedded: int, total: int, counts: bool = True) -> str | None:
    """The vector progress line of 全部知识库 for ``embedded`` of ``total`` active chunks with a
    vector, or None when none is pending. Chunks without a vector are found by keywords meanwhile,
    the others keep their dense ranking (``core.retrieval.hybrid``), and the line says both. Without
    ``counts`` (a user who may not ask every knowledge base) a percentage, no chunk count."""
    if not total or embedded >= total:
        return None
    if not counts:
        return f"部分片段的向量待补齐（已有 {embedded * 100 // total}%）：" + (
            "补齐前使用关键词检索" if embedded == 0 else "这些片段暂只按关键词检索，其余片段照常使用向量检索"
        )
    if embedded == 0:
        return f"全部知识库：{total} 个片段的向量待补齐（0/{total}）：补齐前使用关键词检索"
    return (
        f"全部知识库：{total - embedded} 个片段的向量待补齐（已有 {embedded}/{total}）："
        "这些片段暂只按关键词检索，其余片段照常使用向量检索"
    )


def vector_status(engine, counts: bool = True) -> None:  # noqa: ANN001 - Engine
    """The vector build's progress over 全部知识库 (every knowledge base's active chunks: one
    vector store serves them all, ``core.store.index.Index.dense_coverage``; the text is
    :func:`pending_vectors_text`, as a percentage without ``counts``, for a user who may not ask
    every knowledge base), or that it is ready and
    with which models: both, and the state's name as the record's 检索详情 gives it
    (``components.answer_view.MODE_LABELS["hybrid2"]``), once the second model's set is complete
    too (``SecondVectors.complete``); until then the second set's progress."""
    embedded, total = engine.vector_coverage()
    pending = pending_vectors_text(embedded, total, counts)
    if pending:
        st.progress(embedded / total, text=pending)
        return
    if not total:
        return
    second = engine.second_vectors()
    if second is not None and second.complete:
        st.caption(
            f"全部知识库的向量索引已就绪（{plain(engine.embedder.name)} + {plain(second.name)}）：{MODE_LABELS['hybrid2']}"
        )
        return
    st.caption(f"全部知识库的向量索引已就绪（{plain(engine.embedder.name)}）")
    if second is not None:
        done, of = second.done, second.total
        shown = f"{done}/{of}" if counts else f"{done * 100 // max(of, 1)}%"
        st.caption(f"第二个向量模型（{plain(second.name)}）补齐中 {shown}：已有它的向量的片段已参与它的排序。")


def overview(engine, worker, knowledge_base: str = DEFAULT_KB) -> None:  # noqa: ANN001 - Engine / EmbeddingWorker
    """Counts, vector progress and the document table of ``knowledge_base``, from ONE read of the documents (so the
    header count and the table agree); a fragment that reruns every :data:`REFRESH` by itself."""

    @st.fragment(run_every=REFRESH)
    def _live() -> None:
        with page_guard("刷新知识库概况"):  # a fragment's error does not reach the page's guard
            _overview_body(engine, worker, knowledge_base)

    _live()


def _overview_body(engine, worker, knowledge_base: str) -> None:  # noqa: ANN001
    engine.refresh()
    rows = engine.documents(knowledge_base)
    st.caption(f"本知识库：{len(rows)} 篇文档，{sum(r.chunk_count for r in rows)} 个片段")
    vector_status(engine)
    if worker is not None and worker.error:
        st.warning(plain(worker.error))
    document_table(rows)


def hide_controls(engine, worker, rows: list[DocumentRow], knowledge_base: str = DEFAULT_KB) -> None:  # noqa: ANN001
    """隐藏 (with a confirmation) of one of ``rows`` (the active documents of ``knowledge_base``)
    and 恢复 of its hidden documents; the last message stays until the next action."""
    state = st.session_state
    if msg := state.get("library_message"):  # (fixed text, document label): the label is untrusted
        st.success(msg[0])
        st.text(msg[1])
    with st.expander("隐藏文档", expanded=bool(state.get("library_confirm"))):
        st.caption("隐藏后不再被检索；引用过它的旧回答仍可完整重放；可以在下方恢复。")
        by_id = {r.document.source_id: r for r in rows}
        target = st.selectbox(
            "选择文档（按标题）",
            list(by_id),
            index=None,
            placeholder="输入标题搜索",
            format_func=lambda sid: document_label(by_id[sid]),
            key="library_hide_target",
        )
        if st.button("隐藏此文档…", disabled=target is None):
            state["library_confirm"] = target
        pending = state.get("library_confirm")
        if pending and pending in by_id:
            st.warning("确定隐藏这篇文档吗？之后提问将检索不到它（可以再恢复）。")
            st.text(document_label(by_id[pending]))
            c1, c2 = st.columns(2)
            if c1.button("确认隐藏", type="primary"):
                engine.hide_document(pending, knowledge_base)
                state["library_message"] = (
                    "已隐藏这篇文档；可在“已隐藏的文档”中恢复：",
                    document_label(by_id[pending]),
                )
                state.pop("library_confirm", None)
                st.rerun()
            if c2.button("取消"):
                state.pop("library_confirm", None)
                st.rerun()
    hidden = engine.hidden_documents(knowledge_base)
    with st.expander(f"已隐藏的文档（{len(hidden)}）"):
        if not hidden:
            st.caption("没有隐藏的文档。")
        for r in hidden:
            c1, c2 = st.columns([5, 1])
            c1.text(document_label(r))  # titles and paths are untrusted: text, never Markdown
            if c2.button("恢复", key=f"unhide-{r.document.source_id}"):
                engine.unhide_document(r.document.source_id, knowledge_base)
                if worker is not None:
                    worker.wake()
                state["library_message"] = ("已恢复这篇文档：它会重新被检索（向量在后台补齐）：", document_label(r))
                st.rerun()
