"""What the chat page (``components.answer_view``) and the Markdown export (``core.export``) both show.

One place for the user-facing status texts, the marked answer (valid supports,
marker layout, marker numbers per chunk, verdicts) and a source's title, path,
snippet and page, so the page and the export cannot drift apart. Pure
functions, no HTML and no Markdown escaping here: each caller escapes for its
own format. Offsets are code points into ``record.answer_text``.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from core.grounding import validate_supports
from core.layout import Layout, layout, marker_numbers
from core.markdown import safe_link
from core.models import AnswerRecord, AuditEntry, ChunkSnapshot, Support
from core.verdicts import MarkerVerdict, marker_verdicts

# -- status texts (Chinese, shown as they are on the page and in the export) -----------

UNSUPPORTED_LABEL = "本段无出处"
EXTRACTIVE_NOTE = "抽取式回答：句子原文摘自知识库"
CHECK_NOTE = "核查结果：每句话都在知识库中检索并与来源核对"
NO_EVIDENCE_MESSAGE = "在当前检索设置下，知识库中没有足够的证据回答这个问题。"
UNVERIFIABLE_MESSAGE = "无法核实：这段回答中没有任何内容能与来源核对。"
BLOCKED_MESSAGE = "模型提供方拦截了这次回答，未显示内容。"
EXPORT_BLOCKED_MESSAGE = "回答被模型服务拦截。"
ERROR_PREFIX = "出错了："
UNKNOWN_ERROR = "未知错误"
INTERRUPTED_MESSAGE = "回答被中断：以下是中断前已生成的部分，未经核对。"
CANDIDATES_TITLE = "最接近的片段（不作为证据）"
REPHRASE_HINT = (
    "可以换个说法再问：用文档里的术语（例如 Pod、Service、ConfigMap），写出具体的对象、字段或版本，"
    "或把问题拆成更小的问题。"
)
KEYWORD_MODE_NOTE = "关键词检索：向量索引尚未建完，本次只按关键词判断证据。"
PATH_SEPARATOR = " › "


def error_message(record: AnswerRecord) -> str:
    """``出错了：<record.error>`` (``未知错误`` when the record has none); unescaped."""
    return ERROR_PREFIX + (record.error or UNKNOWN_ERROR)


def no_evidence_message(record: AnswerRecord) -> str:
    """The no_evidence notice: the sufficiency decision's own message when it named a
    missing term, else :data:`NO_EVIDENCE_MESSAGE`."""
    suff = record.sufficiency
    if suff is not None and suff.missing_terms and suff.message:
        return suff.message
    return NO_EVIDENCE_MESSAGE


# -- the marked answer -------------------------------------------------------------------


@dataclass(frozen=True)
class MarkedAnswer:
    """A record's answer as both views mark it.

    ``supports``: the supports that survive :func:`core.grounding.validate_supports`
    (code-point offsets, known chunk ids); ``render_audit``: why the others were
    skipped; ``layout``: every marker slot (``core.layout``); ``numbers``: chunk
    id -> marker number (1-based, by first appearance); ``verdicts``:
    ``(slot position, chunk id)`` -> :class:`core.verdicts.MarkerVerdict`.
    """

    supports: tuple[Support, ...]
    render_audit: tuple[AuditEntry, ...]
    layout: Layout
    numbers: dict[str, int]
    verdicts: dict[tuple[int, str], MarkerVerdict]


def mark_answer(record: AnswerRecord) -> MarkedAnswer:
    """Validate the supports of ``record`` and lay out, number and judge its markers. Never raises
    for a valid :class:`AnswerRecord` (broken supports are skipped and audited)."""
    supports, audit = validate_supports(record.answer_text, record.supports, [c.chunk_id for c in record.chunks])
    lay = layout(record.answer_text, supports)
    verdicts = marker_verdicts(
        record.supports,
        supports,
        [(s.position, s.chunk_ids) for s in lay.slots],
        {c.chunk_id: c.text for c in record.chunks},
    )
    return MarkedAnswer(tuple(supports), tuple(audit), lay, marker_numbers(lay.segments), verdicts)


# -- a source as shown -------------------------------------------------------------------


def link_domain(uri: str | None) -> str | None:
    """The host of an http(s) ``uri`` (lower-cased by ``urlsplit``), else None."""
    if not uri or not safe_link(uri):
        return None
    try:
        host = urlsplit(uri.strip()).hostname
    except ValueError:
        return None
    return host or None


def heading_path(chunk: ChunkSnapshot) -> tuple[str, ...]:
    """The chunk's non-empty headings, stripped, outermost first."""
    return tuple(p.strip() for p in chunk.heading_path if p and p.strip())


def display_title(chunk: ChunkSnapshot) -> str:
    """The title shown for a chunk: its title, else its URL's domain, else its heading path, else its id."""
    if chunk.title and chunk.title.strip():
        return chunk.title.strip()
    dom = link_domain(chunk.uri)
    if dom:
        return dom
    path = heading_path(chunk)
    if path:
        return PATH_SEPARATOR.join(path)
    return chunk.chunk_id


def shown_path(title: str, path: tuple[str, ...]) -> str:
    """The heading path shown under ``title``, without repeating it: leading headings equal to
    the title are dropped (title ``ConfigMap``, path ``ConfigMap › 使用`` -> ``使用``), and a path
    that is the title itself shows nothing (``""``)."""
    parts = list(path)
    if PATH_SEPARATOR.join(parts) == title:
        return ""
    while parts and parts[0] == title:
        parts.pop(0)
    return PATH_SEPARATOR.join(parts)


def snippet(text: str, limit: int = 160) -> str:
    """``text`` on one line (whitespace runs become one space), cut to ``limit`` code points with …."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def page_number(chunk: ChunkSnapshot) -> int | None:
    """The chunk's page (``page``, ``page_number`` or ``pageNumber`` metadata, an int), else None."""
    for key in ("page", "page_number", "pageNumber"):
        v = chunk.metadata.get(key)
        if isinstance(v, int) and not isinstance(v, bool):
            return v
    return None
