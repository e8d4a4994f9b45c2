"""Export an answer record as Markdown with footnote-style citations.

Markers go where the chat page puts them (``core.grounding.layout``): inline
``[^n]`` after a supported span, or on its own line after a code block or
table the span ends in. Unsupported sentences get ``〔本段无出处〕``. Verified
supports say their verdict in words after their markers, as the page does
(``core.verdicts``): ``〔待复核：理由〕`` and ``〔⚠ 与来源矛盾：理由；来源原文：“…”〕``
(reason and quote are untrusted: Markdown punctuation in them is escaped). One
footnote per cited chunk, numbered by first appearance like the page:
``[^n]: 标题 › 路径 — URL（片段 chunk_id，版本 version）``.
The JSON export is ``AnswerRecord.model_dump_json()``.
"""

from __future__ import annotations

import re

from core.grounding import layout, validate_supports
from core.models import AnswerRecord
from core.verdicts import CONTRADICTED_LABEL, QUOTE_LABEL, REVIEW_LABEL, MarkerVerdict, marker_verdicts

UNSUPPORTED_MARK = "〔本段无出处〕"

STATUS_TEXT = {
    "no_evidence": "在当前检索设置下，知识库中没有足够的证据回答这个问题。",
    "blocked": "回答被模型服务拦截。",
}


_MD_SPECIAL = re.compile(r"([\\`*_\[\]{}<>#|~!$])")
_WS = re.compile(r"\s+")


def _md_text(text: str) -> str:
    """Untrusted text as inert Markdown: one line, punctuation that Markdown acts on escaped."""
    return _MD_SPECIAL.sub(r"\\\1", _WS.sub(" ", text).strip())


def _verdict_words(record: AnswerRecord, verdicts: list[MarkerVerdict]) -> str:
    """What a slot's verdicts say in the export (empty when every marker is plain or supported)."""
    out = []
    for v in verdicts:
        if v.kind == "contradicted":
            words = f"{CONTRADICTED_LABEL}：{_md_text(v.reason or '')}"
            snap = record.chunk(v.chunk_id)
            if v.quote is not None and snap is not None:
                words += f"；{QUOTE_LABEL}：“{_md_text(snap.text[v.quote[0] : v.quote[1]])}”"
            out.append(f"〔{words}〕")
        elif v.kind == "review":
            out.append(f"〔{REVIEW_LABEL}：{_md_text(v.reason or '')}〕")
    return "".join(dict.fromkeys(out))


def to_markdown(record: AnswerRecord) -> str:
    """The record as Markdown: question, answer with footnote markers, footnotes, links."""
    out = [f"## 问题\n\n{record.query}\n", "## 回答\n"]
    if record.status in STATUS_TEXT:
        out.append(STATUS_TEXT[record.status] + "\n")
    elif record.status == "error":
        out.append(f"出错了：{record.error or '未知错误'}\n")
    else:
        supports, _ = validate_supports(record.answer_text, record.supports, [c.chunk_id for c in record.chunks])
        lay = layout(record.answer_text, supports)
        verdicts = marker_verdicts(
            record.supports,
            supports,
            [(s.position, s.chunk_ids) for s in lay.slots],
            {c.chunk_id: c.text for c in record.chunks},
        )
        numbers: dict[str, int] = {}
        inserts: list[tuple[int, str]] = []
        for slot in lay.slots:
            if slot.unsupported and not slot.chunk_ids:
                mark = UNSUPPORTED_MARK
            else:
                mark = "".join(f"[^{numbers.setdefault(c, len(numbers) + 1)}]" for c in slot.chunk_ids)
                mark += _verdict_words(
                    record, [verdicts[(slot.position, c)] for c in slot.chunk_ids if (slot.position, c) in verdicts]
                )
            if slot.anchor_token is not None and record.answer_text[slot.position - 1 : slot.position] == "\n":
                mark = "\n" + mark + "\n"
            inserts.append((slot.position, mark))
        text = record.answer_text
        for pos, mark in sorted(inserts, key=lambda x: x[0], reverse=True):
            text = text[:pos] + mark + text[pos:]
        out.append(text.rstrip() + "\n")
        if numbers:
            out.append("")
            for cid, n in sorted(numbers.items(), key=lambda kv: kv[1]):
                snap = record.chunk(cid)
                if snap is None:
                    continue
                where = f" — {snap.uri}" if snap.uri and snap.uri.startswith(("http://", "https://")) else ""
                out.append(f"[^{n}]: {' › '.join(snap.heading_path)}{where}（片段 {cid}，版本 {snap.version}）")
    if record.recommended_links:
        out.append("\n## 推荐链接\n")
        out += [f"- [{l.label}]({l.url})" for l in record.recommended_links]
    return "\n".join(out).rstrip() + "\n"


def conversation_to_markdown(records: list[AnswerRecord]) -> str:
    """Several answers (a conversation, oldest first) as one Markdown document.

    Footnote labels are prefixed with the turn number (``[^2-1]``) so that they
    stay unique across turns.
    """
    out = []
    for turn, record in enumerate(records, start=1):
        md = to_markdown(record).replace("[^", f"[^{turn}-")
        out.append(f"# 第 {turn} 轮\n\n" + md)
    return "\n".join(out)


def conversation_to_json(records: list[AnswerRecord]) -> str:
    """A JSON array of full answer records (the stored exchange format)."""
    return "[" + ",\n".join(r.model_dump_json() for r in records) + "]\n"
