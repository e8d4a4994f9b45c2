"""What the chat page (``components.answer_view``) and the Markdown export (``core.records.export``) both show.

One place for the user-facing status texts, the marked answer (valid supports,
marker layout, marker numbers per chunk, verdicts) and a source's title, path,
snippet and page, so the page and the export cannot drift apart. Pure
functions, no HTML and no Markdown escaping here: each caller escapes for its
own format. Offsets are code points into ``record.answer_text``.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from core.grounding.answer_doc import AnswerDoc
from core.grounding.layout import Layout, layout, marker_numbers
from core.grounding.supports import validate_supports
from core.markdown import markdown_parser, safe_link
from core.models import NOT_FOUND_MESSAGE, AnswerRecord, AuditEntry, ChunkSnapshot, Support
from core.verification.verdicts import MarkerVerdict, marker_verdicts, quote_span, snapshot_quote

# -- status texts (Chinese, shown as they are on the page and in the export) -----------

UNSUPPORTED_LABEL = "本段无出处"
EXTRACTIVE_NOTE = "抽取式回答：句子原文摘自知识库"
CHECK_NOTE = "核查结果：每句话都在知识库中检索并与来源核对"
CHECK_PASTED_NOTE = "核查结果：每句话都与粘贴的来源原文核对（未检索知识库）"
NO_EVIDENCE_MESSAGE = "在当前检索设置下，知识库中没有足够的证据回答这个问题。"
UNVERIFIABLE_MESSAGE = "无法核实：这段回答中没有任何内容能与来源核对。"
BLOCKED_MESSAGE = "模型提供方拦截了这次回答，未显示内容。"
EXPORT_BLOCKED_MESSAGE = "回答被模型服务拦截。"
ERROR_PREFIX = "出错了："
UNKNOWN_ERROR = "未知错误"
INTERRUPTED_MESSAGE = "回答被中断：以下是中断前已生成的部分，未经核对。"
CANDIDATES_TITLE = "最接近的片段（不作为证据）"
EMPTY_ANSWER_MESSAGE = "没能从检索到的片段中取出回答这个问题的句子，因此没有回答。"
FOUND_TITLE = "检索到的片段（未引用）"
REPHRASE_HINT = "可以换个说法再问：用文档里的术语，写出具体的对象、名称、字段或版本，或把问题拆成更小的问题。"
KEYWORD_MODE_NOTE = "关键词检索：向量索引尚未建完，本次只按关键词判断证据。"
#: Keyword mode with every vector in place: the embedder has no calibrated decision (``hash``, a
#: ``sentence-transformers:`` model; ``core/retrieval/sufficiency.json`` names the one it was fit with).
KEYWORD_UNCALIBRATED_NOTE = (
    "关键词判断：当前向量模型没有校准过的证据判断，本次只按关键词判断证据（向量排序照常参与检索）。"
)
PATH_SEPARATOR = " › "

_PLAIN_MD = markdown_parser()


def error_message(record: AnswerRecord) -> str:
    """``出错了：<record.error>`` (``未知错误`` when the record has none); unescaped."""
    return ERROR_PREFIX + (record.error or UNKNOWN_ERROR)


def no_evidence_message(record: AnswerRecord) -> str:
    """The no_evidence notice: the sufficiency decision's own message when a rule gave a reason
    (a missing named thing, a value or drawback no evidence states), else :data:`NO_EVIDENCE_MESSAGE`."""
    suff = record.sufficiency
    if suff is not None and suff.message and (suff.missing_terms or suff.message != NOT_FOUND_MESSAGE):
        return suff.message
    return NO_EVIDENCE_MESSAGE


# -- the marked answer -------------------------------------------------------------------


@dataclass(frozen=True)
class MarkedAnswer:
    """A record's answer as both views mark it.

    ``supports``: the supports that survive :func:`core.grounding.supports.validate_supports`
    (code-point offsets, known chunk ids); ``render_audit``: why the others were
    skipped; ``layout``: every marker slot (``core.grounding.layout``); ``numbers``: chunk
    id -> marker number (1-based, by first appearance); ``verdicts``:
    ``(slot position, chunk id)`` -> :class:`core.verification.verdicts.MarkerVerdict`.
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


def snippet_parts(text: str, limit: int = 160, skip_headings: Iterable[str] = ()) -> list[tuple[str, bool]]:
    """``text`` (Markdown) as readable pieces ``(text, is_code)``, on one line, at most ``limit`` code points.

    Parsed with markdown-it (``core.markdown.markdown_parser``, the product dialect), so
    Markdown syntax never shows: no backticks, list bullets, ``#``, ``**``, code fences or a
    table's outer pipes and delimiter row (its cells read "方案 | 价格 / 免费版 | 0 元", as the answer quotes a
    row); inline code and code blocks are pieces with ``is_code`` True (the caller
    styles them). Whitespace runs become one space; a heading whose text is one of
    ``skip_headings`` (the title and heading path already shown) is left out. A cut text
    ends with "…". Pure, no escaping (each caller escapes for its own format).
    """
    skip = {h.strip() for h in skip_headings}
    pieces: list[tuple[str, bool]] = []

    def add(piece: str, code: bool) -> None:
        if pieces and not code and not pieces[-1][1]:
            pieces[-1] = (pieces[-1][0] + piece, False)
        else:
            pieces.append((piece, code))

    tokens = _PLAIN_MD.parse(text)
    in_heading = False
    cell = row = 0  # a table: cells between " | ", rows apart by " / " (as the answer quotes a row)
    for tok in tokens:
        if tok.type == "table_open":
            row = 0
        elif tok.type == "tr_open":
            cell = 0
            if row:
                add("/ ", False)
            row += 1
        elif tok.type in ("th_open", "td_open"):
            if cell:
                add("| ", False)
            cell += 1
        elif tok.type == "heading_open":
            in_heading = True
        elif tok.type == "heading_close":
            in_heading = False
        elif tok.type == "inline":
            if in_heading and tok.content.strip() in skip:
                continue
            for child in tok.children or ():
                if child.type == "code_inline":
                    add(child.content, True)
                elif child.type in ("softbreak", "hardbreak"):
                    add(" ", False)
                elif child.type in ("text", "html_inline"):
                    add(child.content, False)
            add(" ", False)
        elif tok.type in ("fence", "code_block"):
            add(tok.content, True)
            add(" ", False)
    flat: list[tuple[str, bool]] = []  # whitespace flattened; spaces around code are text pieces
    for piece, code in pieces:
        words = " ".join(piece.split())
        lead, trail = piece[:1].isspace(), piece[-1:].isspace()
        for part, is_code in ((" " if lead else "", False), (words, code), (" " if trail else "", False)):
            if not part:
                continue
            if not is_code and flat and not flat[-1][1]:
                joined = flat[-1][0] + part
                flat[-1] = (joined.replace("  ", " "), False)
            else:
                flat.append((part, is_code))
    if flat and not flat[0][1]:
        flat[0] = (flat[0][0].lstrip(), False)
    if flat and not flat[-1][1]:
        flat[-1] = (flat[-1][0].rstrip(), False)
    if sum(len(part) for part, _ in flat) <= limit:
        return flat
    out: list[tuple[str, bool]] = []
    left = limit - 1  # room for "…"
    for part, code in flat:
        if len(part) >= left:
            cut = part[:left].rstrip()
            if cut:
                out.append((cut, code))
            break
        out.append((part, code))
        left -= len(part)
    return [*out, ("…", False)]


_TICK_RUN = re.compile(r"(?<![`\\])`+(?!`)")  # a backtick string (not after a backslash)


@functools.lru_cache(maxsize=256)  # a card's quote asks twice; its own cache leaves answer_doc's to answers
def code_ranges(text: str) -> tuple[tuple[int, int], ...]:
    """The code of ``text`` (Markdown) as sorted code-point ranges ``[start, end)``: fenced and
    indented code blocks (markdown-it's block map, ``core.grounding.answer_doc``) and, inside each
    paragraph or heading, every inline code span with its backticks (a backtick string opens a
    span that the next backtick string of the same length closes: CommonMark 0.31, 6.1 "Code
    spans"). For choosing cut points only; rendering stays with markdown-it."""
    doc = AnswerDoc(text)
    out = [(b.start, b.end) for b in doc.blocks if doc.tokens[b.anchor].type in ("fence", "code_block")]
    for leaf in doc.leaves:
        runs = list(_TICK_RUN.finditer(text, leaf.start, leaf.end))
        i = 0
        while i < len(runs):
            n = len(runs[i].group())
            close = next((j for j in range(i + 1, len(runs)) if len(runs[j].group()) == n), None)
            if close is None:  # an unmatched backtick string is literal text
                i += 1
                continue
            out.append((runs[i].start(), runs[close].end()))
            i = close + 1
    return tuple(sorted(out))


def outside_code(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` (code points into ``text``, Markdown) widened so that neither falls inside
    code (:func:`code_ranges`): a slice of ``text`` between such points never begins or ends in
    the middle of a code span, so its snippet shows no stray backtick or half a code fragment."""
    for a, b in code_ranges(text):
        if a < start < b:
            start = a
        if a < end < b:
            end = b
    return start, end


def snippet(text: str, limit: int = 160, skip_headings: Iterable[str] = ()) -> str:
    """:func:`snippet_parts` joined: ``text`` (Markdown) as one line of plain text, at most
    ``limit`` code points (cut with …), without Markdown syntax."""
    return "".join(piece for piece, _ in snippet_parts(text, limit, skip_headings))


def document_groups(record: AnswerRecord, chunk_ids: Sequence[str]) -> list[list[str]]:
    """``chunk_ids`` grouped by the document (``document_id``) their snapshot in ``record``
    belongs to: groups in first-appearance order, ids inside a group in the given order.
    An id without a snapshot in ``record`` forms its own group."""
    groups: dict[str, list[str]] = {}
    for cid in chunk_ids:
        chunk = record.chunk(cid)
        key = chunk.document_id if chunk is not None else "\0" + cid
        groups.setdefault(key, []).append(cid)
    return list(groups.values())


def cited_span(record: AnswerRecord, chunk_id: str, support_index: object = None) -> tuple[int, int] | None:
    """The passage of chunk ``chunk_id`` to highlight, ``(start, end)`` code points into its text.

    In order: the aligned quote verification stored (``core.verification.verdicts.snapshot_quote``,
    ``support_index`` preferred, untrusted), else the verbatim ``Support.quote`` of a
    support citing the chunk, else the cited answer sentence when the chunk contains it
    word for word (an extractive answer), else None. Never raises for a valid record.
    """
    chunk = record.chunk(chunk_id)
    if chunk is None:
        return None
    found = snapshot_quote(record.supports, chunk_id, chunk.text, support_index)
    if found is not None:
        return quote_span(found[1], chunk_id, chunk.text)
    citing = [sp for sp in record.supports if chunk_id in sp.chunk_ids]
    for sp in citing:
        for needle in (sp.quote, record.answer_text[sp.start : sp.end]):
            needle = (needle or "").strip()
            if len(needle) >= 4 and (pos := chunk.text.find(needle)) >= 0:
                return pos, pos + len(needle)
    return None


#: Front-matter keys a card shows (Hugo / Jekyll conventions) and their Chinese label
#: (``None``: the value alone, e.g. a section name).
CARD_FACT_KEYS: tuple[tuple[str, str | None], ...] = (
    ("section", None),
    ("categories", "分类"),
    ("tags", "标签"),
    ("keywords", "关键词"),
)


def _listed(value: object) -> list[str]:
    """A metadata value as its items: JSON list text (``'["网络", "服务"]'``, as
    ``core.ingest.chunking.frontmatter.scalar_metadata`` stores lists) → items, scalar → [text]."""
    if isinstance(value, str) and value.startswith("["):
        try:
            items = json.loads(value)
        except ValueError:
            items = None
        if isinstance(items, list):
            return [str(v).strip() for v in items if str(v).strip()]
    text = str(value).strip() if value is not None and not isinstance(value, bool) else ""
    return [text] if text else []


def card_facts(chunk: ChunkSnapshot) -> tuple[str, ...]:
    """What a source card shows of the chunk's front-matter metadata, in :data:`CARD_FACT_KEYS`
    order: ``("概念", "标签：网络、服务")``; plus ``第 3、4 页`` for a ``pages`` list when the
    chunk has no single :func:`page_number`. Unescaped text; empty values are left out."""
    facts: list[str] = []
    for key, label in CARD_FACT_KEYS:
        items = _listed(chunk.metadata.get(key))
        if items:
            facts.append(f"{label}：{'、'.join(items)}" if label else "、".join(items))
    pages = _listed(chunk.metadata.get("pages"))
    if pages and page_number(chunk) is None:
        facts.append(f"第 {'、'.join(pages)} 页")
    return tuple(facts)


def page_number(chunk: ChunkSnapshot) -> int | None:
    """The chunk's page (``page``, ``page_number`` or ``pageNumber`` metadata, an int), else None."""
    for key in ("page", "page_number", "pageNumber"):
        v = chunk.metadata.get(key)
        if isinstance(v, int) and not isinstance(v, bool):
            return v
    return None
