"""Source cards as HTML: the card behind each marker and the 引用来源 evidence list.

A marker is a ``<button>`` (not a link): hovering, focusing or tapping it shows its card
(CSS ``:hover`` / ``:focus-within``), so the first tap on a phone opens the card; the card's
查看来源快照 button opens the snapshot in place (a ``popovertarget`` of the panel from
``components.snapshot_html``). The evidence list groups the cited chunks by document.

Pure functions, no Streamlit. Titles, paths, snippets and page numbers come
from :mod:`core.records.presentation` (shared with the Markdown export); every text from
a record is escaped here and the caller (``components.answer_view``) sanitizes
the whole fragment afterwards (``components.sanitize``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from urllib.parse import quote

from components.pdf_view import page_label
from components.snapshot_html import marker_support, popover_id
from components.verdict_view import aria_suffix, card_verdict_html, sup_class
from core.public import (
    QUOTE_LABEL,
    AnswerRecord,
    MarkerVerdict,
    SourceCard,
    card_facts,
    cited_span,
    display_title,
    document_groups,
    heading_path,
    link_domain,
    outside_code,
    page_number,
    safe_link,
    shown_path,
    snapshot_state,
    snippet,
    snippet_parts,
    web_link_spans,
)


def e(text: object) -> str:
    """``text`` as HTML text or attribute value (``html.escape`` with quotes)."""
    return html.escape(str(text), quote=True)


def snapshot_url(answer_id: str, chunk_id: str, base: str = "./sources") -> str:
    """Relative link to the snapshot page: ``{base}?answer_id=..&chunk_id=..`` (both URL-encoded)."""
    return f"{base}?answer_id={quote(answer_id, safe='')}&chunk_id={quote(chunk_id, safe='')}"


def build_cards(
    record: AnswerRecord,
    numbers: Mapping[str, int],
    current_versions: Mapping[str, str | None] | None,
    snapshot_base: str,
) -> dict[str, SourceCard]:
    """Chunk id -> :class:`SourceCard` for each numbered chunk the record holds (others skipped).

    ``numbers`` is chunk id -> marker number (``core.records.presentation.MarkedAnswer.numbers``);
    ``current_versions`` maps ``kb/source_id`` (``ChunkSnapshot.source_key``) to its current version (None = deleted).
    """
    cards: dict[str, SourceCard] = {}
    for cid, num in numbers.items():
        chunk = record.chunk(cid)
        if chunk is None:
            continue
        cards[cid] = SourceCard(
            number=num,
            chunk_id=cid,
            title=display_title(chunk),
            heading_path=heading_path(chunk),
            snippet=snippet(chunk.text, skip_headings=(display_title(chunk), *heading_path(chunk))),
            uri=chunk.uri if chunk.uri and safe_link(chunk.uri) else None,
            updated_at=chunk.updated_at,
            relevance=chunk.relevance,
            snapshot_url=snapshot_url(record.answer_id, cid, snapshot_base),
            page=page_number(chunk),
            facts=card_facts(chunk),
            page_end=_page_end(chunk.metadata.get("page_end")),
            changed=snapshot_state(chunk, current_versions),  # type: ignore[arg-type]
        )
    return cards


def _page_end(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _meta_line(card: SourceCard) -> str:
    bits = []
    if card.updated_at is not None:
        iso = card.updated_at.isoformat()
        bits.append(f'更新于 <time datetime="{e(iso)}">{e(card.updated_at.strftime("%Y-%m-%d"))}</time>')
    if card.page is not None:
        bits.append(e(page_label(card.page, card.page_end)))
    bits.extend(e(fact) for fact in card.facts)
    if card.relevance is not None:
        bits.append(f"相关度 {card.relevance:.2f}")
    return " · ".join(bits)


def _badge(card: SourceCard) -> str:
    if card.changed == "updated":
        return '<span class="yz-badge yz-badge-updated">来源已更新</span>'
    if card.changed == "deleted":
        return '<span class="yz-badge yz-badge-deleted">来源已删除</span>'
    return ""


def _verdict_link(card: SourceCard, verdict: MarkerVerdict | None) -> str:
    """The snapshot link; with ``&support=i`` when the page can highlight that support's quote."""
    if verdict is None or verdict.quote is None or verdict.support_index is None:
        return card.snapshot_url
    return f"{card.snapshot_url}&support={verdict.support_index}"


def snippet_html(text: str, title: str, path: tuple[str, ...], limit: int = 160) -> str:
    """A chunk's text (Markdown) as one escaped line of readable text, inline code in ``<code>``
    (``core.records.presentation.snippet_parts``; headings equal to ``title`` or a part of ``path`` left out)."""
    return _parts_html(snippet_parts(text, limit, (title, *path)))


def _parts_html(parts: Sequence[tuple[str, bool]]) -> str:
    return "".join(f"<code>{e(piece)}</code>" if code else e(piece) for piece, code in parts)


def _tail(parts: list[tuple[str, bool]], limit: int, *, end: bool) -> tuple[list[tuple[str, bool]], bool]:
    """The last (``end``) or first ``limit`` code points of ``parts``; and whether something was cut.
    A code piece that does not fit whole is left out (no half a code fragment at the cut)."""
    out: list[tuple[str, bool]] = []
    left = limit
    for piece, code in reversed(parts) if end else parts:
        if left <= 0:
            return out, True
        cut = piece[-left:] if end else piece[:left]
        if len(cut) < len(piece) and code:
            return out, True
        if end:
            out.insert(0, (cut, code))
        else:
            out.append((cut, code))
        left -= len(cut)
        if len(cut) < len(piece):
            return out, True
    return out, False


def _outside_links(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` widened so that neither falls inside a ``[text](url)`` link of ``text``
    (a slice that cut one would show its Markdown)."""
    for lo, hi in web_link_spans(text):
        start = lo if lo < start < hi else start
        end = hi if lo < end < hi else end
    return start, end


# The pipe that opens a table row right before a quote, and the one that closes it right after.
_ROW_OPENING = re.compile(r"(?m)^[ \t]*(?:>[ \t]?)*\|[ \t]*\Z")
_ROW_CLOSING = re.compile(r"[ \t]*\|[ \t]*(?=\n|\Z)")


_ROW_LINE = re.compile(r"(?m)^[ \t]*(?:>[ \t]?)*\|.*$")
_CELL_PIPE = re.compile(r"(?<!\\)\|")
_DELIMITER_ROW = re.compile(r"[\s|:\-]*")


def _rows_as_text(text: str) -> str:
    """The table rows of ``text`` as the answer writes a quoted row: cells between " | ", the outer pipes and the
    delimiter row left out, one row from the next by " / " ("| 月卡 | 299 元 |\\n| 季卡 | 799 元 |" → "月卡 | 299 元 /
    季卡 | 799 元"), so the context around a marked row reads like the row itself (a helper's round: the header
    read "代码 含义 处理方法" beside "<mark>F0 | 滤网或盖板未装好</mark>"). Other lines are kept."""
    out: list[str] = []
    row_before = False
    for line in text.split("\n"):
        if not _ROW_LINE.fullmatch(line):
            out.append(line)
            row_before = False
            continue
        body = line.strip().lstrip(">").strip()
        if _DELIMITER_ROW.fullmatch(body):
            continue
        cells = [c.strip() for c in _CELL_PIPE.split(body.strip("|"))]
        if row_before:
            out[-1] += " /"
        out.append(" | ".join(c for c in cells if c).replace("\\|", "|"))
        row_before = True
    return "\n".join(out)


def quote_card_html(chunk_text: str, verdict: MarkerVerdict | None, context: int = 40) -> str | None:
    """The card's snippet around the aligned quote (``verdict.quote``, code points into
    ``chunk_text``) with the quote in ``<mark>``, as readable text: Markdown syntax removed,
    inline code in ``<code>`` (``core.records.presentation.snippet_parts``), up to ``context`` code points
    either side (cut ends shown as …). None without a usable quote (show the plain snippet).
    A contradicted marker labels it 来源原文 (the conflicting passage)."""
    if verdict is None or verdict.quote is None:
        return None
    inner = quote_context_html(chunk_text, verdict.quote, context)
    if inner is None:
        return None
    label = f'<span class="yz-quote-label">{QUOTE_LABEL}：</span>' if verdict.kind == "contradicted" else ""
    return f'<span class="yz-card-snippet yz-card-quote">{label}{inner}</span>'


def quote_context_html(chunk_text: str, span: tuple[int, int], context: int = 40) -> str | None:
    """The passage ``span`` (``(start, end)`` code points into ``chunk_text``) in ``<mark>`` with up to ``context``
    code points of readable text either side (cut ends shown as …), as escaped HTML; None for a span that is not
    one (a bad offset shows the plain snippet, never an error)."""
    start, end = span
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(chunk_text)):
        return None  # a bad offset shows the plain snippet, never an error
    while start < end and chunk_text[start] in "| \t":  # an aligned table row may hold its outer pipes
        start += 1
    while end > start and chunk_text[end - 1] in "| \t":
        end -= 1
    if start >= end:
        return None
    big = 10 * context + 400
    # every slice starts and ends outside code (a quote inside a code span keeps the whole span)
    start, end = _outside_links(chunk_text, *outside_code(chunk_text, start, end))
    lo, hi = _outside_links(chunk_text, *outside_code(chunk_text, max(0, start - big), min(len(chunk_text), end + big)))
    # a quoted table row (core.generators.sentences.table_rows) leaves its outer pipes out of the context
    opening, closing = _ROW_OPENING.search(chunk_text, lo, start), _ROW_CLOSING.match(chunk_text, end, hi)
    before_end = opening.start() if opening else start
    after_start = closing.end() if closing else end
    # rows around a marked row read as it does: cells between " | ", one row from the next by " / "
    ahead, behind = chunk_text[lo:before_end], chunk_text[after_start:hi]
    above = ahead.rstrip("\n").rsplit("\n", 1)[-1]
    ahead = _rows_as_text(ahead).rstrip() + (" /" if opening and _ROW_LINE.fullmatch(above) else "")
    below = behind.lstrip("\n").split("\n", 1)[0] if behind.startswith("\n") else ""
    rest = _rows_as_text(behind)
    if closing and _ROW_LINE.fullmatch(below):
        rest = " / " + rest.lstrip("\n")
    before, cut_before = _tail(snippet_parts(ahead, len(chunk_text)), context, end=True)
    after, cut_after = _tail(snippet_parts(rest, len(chunk_text)), context, end=False)
    quote = snippet_parts(chunk_text[start:end], 200)
    lead = "…" if cut_before or lo > 0 else ""
    tail = "…" if cut_after or hi < len(chunk_text) else ""
    # a space only where the text has one (Chinese runs straight into and out of a quote)
    gap_before = " " if before and not before[-1][0].endswith(" ") and chunk_text[start - 1].isspace() else ""
    gap_after = " " if after and not after[0][0].startswith(" ") and chunk_text[end].isspace() else ""
    return (
        f"{lead}{_parts_html(before)}{gap_before}<mark>{_parts_html(quote)}</mark>{gap_after}{_parts_html(after)}{tail}"
    )


def _open_button(card: SourceCard, answer_id: str, label: str, cls: str, support: int | None = None) -> str:
    pid = popover_id(answer_id, card.number, support)
    return f'<button type="button" class="{cls}" popovertarget="{pid}">{e(label)}</button>'


def cite_html(
    card: SourceCard,
    verdict: MarkerVerdict | None = None,
    chunk_text: str = "",
    answer_id: str = "",
    chunk_span: tuple[int, int] | None = None,
) -> str:
    """One marker: ``<sup>`` with the ``[n]`` button and its hover/focus card (escaped, unsanitized).

    ``chunk_text`` is the cited chunk's text (Markdown) for the snippet; ``answer_id`` names the
    snapshot panel the card's 查看来源快照 button opens (``components.snapshot_html.popover_id``):
    the panel of the marker's own support when its quote is not ``chunk_span`` (the passage the
    chunk's panel highlights; see :func:`marker_support`).
    """
    path = shown_path(card.title, card.heading_path)
    href = _verdict_link(card, verdict)
    label = f"来源 {card.number}：{card.title}{aria_suffix(verdict)}"
    parts = [
        f'<sup class="{sup_class(verdict)}">',
        f'<button type="button" class="yz-cite-link" aria-label="{e(label)}">[{card.number}]</button>',
        '<span class="yz-card" role="tooltip">',
        f'<span class="yz-card-title">{e(card.title)}</span>',
    ]
    if path:
        parts.append(f'<span class="yz-card-path">{e(path)}</span>')
    parts.append(card_verdict_html(verdict))
    quote_html = quote_card_html(chunk_text, verdict)
    if quote_html is None:
        text = snippet_html(chunk_text, card.title, card.heading_path) if chunk_text else e(card.snippet)
        quote_html = f'<span class="yz-card-snippet">{text}</span>'
    parts.append(quote_html)
    meta = _meta_line(card)
    if meta:
        parts.append(f'<span class="yz-card-meta">{meta}</span>')
    badge = _badge(card)
    if badge:
        parts.append(f"<span>{badge}</span>")
    parts.append(
        f'<span class="yz-card-actions">'
        f"{_open_button(card, answer_id, '查看来源快照', 'yz-card-open', marker_support(verdict, chunk_span))}"
        f'<a class="yz-card-link" href="{e(href)}" target="_blank">新标签页</a></span>'
    )
    parts.append("</span></sup>")
    return "".join(parts)


#: Readable code points shown either side of the cited passage in the 引用来源 list.
EVIDENCE_CONTEXT = 60


def evidence_html(record: AnswerRecord, cards: Sequence[SourceCard]) -> str:
    """The 引用来源 section: one entry per document (title, site, badge), its cited sections under
    it, each with its own marker number, heading path and snippet (the cited passage in ``<mark>`` with its context,
    ``core.records.presentation.cited_span``; the section's opening lines when none is known); a section's number
    opens its snapshot in place. Documents in order of their first marker ("" for no cards)."""
    if not cards:
        return ""
    by_id = {c.chunk_id: c for c in cards}
    items = []
    for group in document_groups(record, [c.chunk_id for c in cards]):
        first = by_id[group[0]]
        head = [
            f'<li class="yz-evidence-item"><span class="yz-evidence-head">'
            f'<span class="yz-evidence-title">{e(first.title)}</span>'
        ]
        dom = link_domain(first.uri)
        if first.uri and dom:
            head.append(f' · <a class="yz-origin" href="{e(first.uri)}">{e(dom)}</a>')
        head.append(_badge(first))
        head.append("</span>")
        sections = []
        for cid in group:
            card = by_id[cid]
            chunk = record.chunk(cid)
            path = shown_path(card.title, card.heading_path)
            # the passage the answer cites, in its context, where there is one (a chunk's opening lines may be
            # about something else: "列出 Pod 容器的环境变量：…" above the sentence an English question was answered with)
            span = cited_span(record, cid) if chunk else None
            quoted = quote_context_html(chunk.text, span, EVIDENCE_CONTEXT) if chunk and span else None
            text = quoted or (snippet_html(chunk.text, card.title, card.heading_path) if chunk else e(card.snippet))
            bits = [
                '<li class="yz-section">',
                _open_button(card, record.answer_id, f"[{card.number}]", "yz-num"),
                f'<span class="yz-path">{e(path or "正文")}</span>',
                f'<span class="yz-snippet">{text}</span>',
            ]
            meta = _meta_line(card)
            if meta:
                bits.append(f'<span class="yz-meta">{meta}</span>')
            bits.append("</li>")
            sections.append("".join(bits))
        items.append("".join(head) + f'<ul class="yz-section-list">{"".join(sections)}</ul></li>')
    return (
        f'<section class="yz-evidence"><h4 class="yz-section-title">引用来源（{len(items)} 篇文档）</h4>'
        f'<ul class="yz-evidence-list">{"".join(items)}</ul></section>'
    )
