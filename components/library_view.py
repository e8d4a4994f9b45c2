"""Library page views: ingest results and the document table."""

from __future__ import annotations

import streamlit as st

from core.ingest import IngestReport

RESULT_LABELS = {"added": "新增", "updated": "已更新", "unchanged": "未变化", "removed": "已移除", "failed": "失败"}


def report_rows(report: IngestReport) -> list[dict[str, str]]:
    """One row per file: 文件, 结果 (with "（有警告）" when stored with a warning), 原因
    (the failure reason or the warnings joined with "；"). Failures first."""
    rows = [{"文件": f.source_id, "结果": RESULT_LABELS["failed"], "原因": f.reason} for f in report.failures]
    for sid, r in sorted(report.results.items()):
        warnings = report.warnings.get(sid) or []
        label = RESULT_LABELS.get(r, r) + ("（有警告）" if warnings else "")
        rows.append({"文件": sid, "结果": label, "原因": "；".join(warnings)})
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
        st.dataframe(rows, hide_index=True, width="stretch")


def progress_callback(text: str):
    bar = st.progress(0.0, text=text)

    def update(done: int, total: int, name: str) -> None:
        bar.progress(done / max(total, 1), text=f"{text} {done}/{total}：{name}")

    return bar, update
