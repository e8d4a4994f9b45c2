"""A chunk snapshot as HTML: its Markdown rendered safely with the cited passage in ``<mark>``,
and the in-place snapshot panel of the chat (an HTML ``popover``, no script, no page load).

Pure functions, no Streamlit. The chunk text is untrusted: it is rendered by markdown-it in the
product dialect (``core.markdown.markdown_parser``: raw HTML off, http(s) links only) and every
other text is escaped; the caller sanitizes the whole fragment (``components.sanitize``).

How the highlight survives the Markdown: two placeholder characters (``core.markdown``) are
inserted at the passage's start and end (code points into the chunk text), the text is
rendered, and every text run between the two placeholders is wrapped in ``<mark>`` (so a
passage spanning a list item or a paragraph break gives one ``<mark>`` per run, never broken
tags). When a placeholder does not come out exactly once (it fell inside a link target, say),
the text is shown escaped as it is, with the plain highlight of
``components.verdict_view.highlight_html``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

from components.pdf_view import is_pdf_chunk, snapshot_body_html
from components.verdict_view import highlight_html
from core.public import (
    AnswerRecord,
    ChunkSnapshot,
    MarkerVerdict,
    SourceCard,
    cited_span,
    insert_at,
    markdown_parser,
    placeholder_codes,
    shown_path,
)

_MD = markdown_parser()
_TAG = re.compile(r"(<[^>]*>)")

#: The class of the ``<mark>`` around the cited passage; the first one has ``id`` = the mark id.
QUOTE_CLASS = "yz-quote"


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _mark_runs(fragment: str, mark_id: str) -> str:
    """Every non-blank text run of ``fragment`` (HTML) in ``<mark class="yz-quote">``; the first gets ``mark_id``."""
    out, first = [], True
    for part in _TAG.split(fragment):
        if not part or part.startswith("<") or not part.strip():
            out.append(part)
            continue
        ident = f' id="{_e(mark_id)}"' if first and mark_id else ""
        first = False
        out.append(f'<mark class="{QUOTE_CLASS}"{ident}>{part}</mark>')
    return "".join(out)


def markdown_html(text: str, span: tuple[int, int] | None = None, *, mark_id: str = "yz-quote") -> str:
    """``text`` (Markdown, untrusted) as HTML, with ``text[start:end]`` (code points) highlighted.

    Returns ``<div class="yz-snap-md">…</div>`` (unsanitized: the caller sanitizes). A span that
    is None or not ``0 <= start < end <= len(text)`` gives no highlight. Never raises for a ``str``.
    """
    ok = span is not None and all(isinstance(x, int) for x in span) and 0 <= span[0] < span[1] <= len(text)
    if not ok:
        return f'<div class="yz-snap-md">{_MD.render(text)}</div>'
    start, end = span  # type: ignore[misc]
    try:
        open_, close = placeholder_codes(text, 2)
    except ValueError:
        return highlight_html(text, span, mark_id=mark_id)
    rendered = _MD.render(insert_at(text, [(start, open_), (end, close)]))
    if rendered.count(open_) != 1 or rendered.count(close) != 1 or rendered.index(open_) > rendered.index(close):
        return highlight_html(text, span, mark_id=mark_id)
    head, rest = rendered.split(open_)
    middle, tail = rest.split(close)
    return f'<div class="yz-snap-md">{head}{_mark_runs(middle, mark_id)}{tail}</div>'


def section_html(chunk: ChunkSnapshot, span: tuple[int, int] | None, *, mark_id: str = "yz-quote") -> str:
    """The chunk as the rendered section it came from: its own heading (the last part of its heading
    path, when that is not the title) as ``<h3 class="yz-snap-heading">`` (escaped), then its Markdown
    (lists, tables, code; :func:`markdown_html`) with ``span`` highlighted. Unsanitized HTML."""
    path = tuple(chunk.heading_path)
    heading = path[-1] if len(path) > 1 and path[-1] != chunk.title else ""
    head = f'<h3 class="yz-snap-heading">{_e(heading)}</h3>' if heading.strip() else ""
    return head + markdown_html(chunk.text, span, mark_id=mark_id)


def popover_id(answer_id: str, number: int, support: int | None = None) -> str:
    """The element id of an answer's snapshot panel for marker ``number``: ``yz-snap-<id>-<n>``,
    with every character of ``answer_id`` outside ``[A-Za-z0-9_-]`` dropped (unique per answer);
    ``yz-snap-<id>-<n>-s<i>`` for the panel that highlights support ``i``'s aligned quote (several
    sentences citing one chunk share its number, each marker opens its own quote)."""
    base = f"yz-snap-{re.sub(r'[^A-Za-z0-9_-]', '', answer_id)[:40]}-{number}"
    return base if support is None else f"{base}-s{int(support)}"


def snapshot_panel_html(
    record: AnswerRecord,
    card: SourceCard,
    chunk: ChunkSnapshot,
    span: tuple[int, int] | None,
    support: int | None = None,
) -> str:
    """The in-place snapshot of ``card``'s chunk: ``<div popover id=popover_id(...)>`` with the
    title, heading path, the rendered chunk with the cited passage (``span``, code points into
    ``chunk.text``) highlighted, version and time, a 返回回答 button (closes the panel) and a link
    to the snapshot page (``card.snapshot_url``) for a direct link. Unsanitized HTML.
    ``support``: the panel of that support's marker (its id and link name the support)."""
    pid = popover_id(record.answer_id, card.number, support)
    page_url = card.snapshot_url if support is None else f"{card.snapshot_url}&support={int(support)}"
    path = shown_path(card.title, card.heading_path)
    caption = "高亮部分是回答引用的原文。" if span is not None else "这个片段没有可以高亮的对齐原文。"
    meta = f"文档版本 {_e(chunk.version)} · 检索时间 {_e(chunk.retrieved_at.strftime('%Y-%m-%d %H:%M'))}"
    return (
        f'<div class="yz-snap-pop" id="{pid}" popover="auto" role="dialog" aria-label="{_e(f"来源 {card.number} 的快照")}">'
        '<div class="yz-snap-bar">'
        f'<button type="button" class="yz-snap-back" popovertarget="{pid}" popovertargetaction="hide">← 返回回答</button>'
        f'<span class="yz-snap-num">来源 [{card.number}]</span></div>'
        f'<div class="yz-snap-head"><span class="yz-snap-title">{_e(card.title)}</span>'
        + (f'<span class="yz-snap-path">{_e(path)}</span>' if path else "")
        + f'</div><div class="yz-snap-caption">{_e(caption)}</div>'
        + snapshot_body_html(
            chunk,
            span,
            section_html(chunk, span, mark_id="" if is_pdf_chunk(chunk) else f"{pid}-q"),
            mark_id=f"{pid}-q",
        )
        + f'<div class="yz-snap-meta">{meta} · '
        f'<a class="yz-snap-page" href="{_e(page_url)}" target="_blank">在新标签页打开快照页</a></div>'
        "</div>"
    )


def marker_support(verdict: MarkerVerdict | None, chunk_span: tuple[int, int] | None = None) -> int | None:
    """The support whose own snapshot panel the marker opens: it has a usable aligned quote other
    than ``chunk_span`` (what the chunk's own panel highlights); else None (the chunk's panel)."""
    if verdict is None or verdict.quote is None or verdict.support_index is None or tuple(verdict.quote) == chunk_span:
        return None
    return verdict.support_index


def panels_html(
    record: AnswerRecord, cards: Sequence[SourceCard], verdicts: Mapping[tuple[int, str], MarkerVerdict] | None = None
) -> str:
    """The in-place snapshot panel of every card (hidden until its 查看来源快照 / [n] button opens it),
    plus one per support whose marker has its own aligned quote (``verdicts``: marker verdicts by
    ``(position, chunk id)``, ``core.records.presentation.MarkedAnswer.verdicts``), highlighting that quote:
    several sentences citing one chunk each open their own quote. Unsanitized HTML."""
    out = []
    per_chunk: dict[str, dict[int, tuple[int, int]]] = {}
    spans = {card.chunk_id: cited_span(record, card.chunk_id) for card in cards}
    for v in (verdicts or {}).values():
        if (i := marker_support(v, spans.get(v.chunk_id))) is not None and v.quote is not None:
            per_chunk.setdefault(v.chunk_id, {})[i] = v.quote
    for card in cards:
        chunk = record.chunk(card.chunk_id)
        if chunk is not None:
            out.append(snapshot_panel_html(record, card, chunk, spans[card.chunk_id]))
            for i, quote in sorted(per_chunk.get(card.chunk_id, {}).items()):
                out.append(snapshot_panel_html(record, card, chunk, quote, support=i))
    return "".join(out)
