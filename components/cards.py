"""Source cards as HTML: the card behind each marker and the 引用来源 evidence list.

Pure functions, no Streamlit. Titles, paths, snippets and page numbers come
from :mod:`core.presentation` (shared with the Markdown export); every text from
a record is escaped here and the caller (``components.answer_view``) sanitizes
the whole fragment afterwards (``components.sanitize``).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from urllib.parse import quote

from components.verdict_view import aria_suffix, card_quote_html, card_verdict_html, sup_class
from core.markdown import safe_link
from core.models import AnswerRecord, SourceCard
from core.presentation import display_title, heading_path, link_domain, page_number, shown_path, snippet
from core.replay import snapshot_state
from core.verdicts import MarkerVerdict


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

    ``numbers`` is chunk id -> marker number (``core.presentation.MarkedAnswer.numbers``);
    ``current_versions`` maps ``source_id`` to its current version (None = deleted).
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
            snippet=snippet(chunk.text),
            uri=chunk.uri if chunk.uri and safe_link(chunk.uri) else None,
            updated_at=chunk.updated_at,
            relevance=chunk.relevance,
            snapshot_url=snapshot_url(record.answer_id, cid, snapshot_base),
            page=page_number(chunk),
            changed=snapshot_state(chunk, current_versions),  # type: ignore[arg-type]
        )
    return cards


def _meta_line(card: SourceCard) -> str:
    bits = []
    if card.updated_at is not None:
        iso = card.updated_at.isoformat()
        bits.append(f'更新于 <time datetime="{e(iso)}">{e(card.updated_at.strftime("%Y-%m-%d"))}</time>')
    if card.page is not None:
        bits.append(f"第 {card.page} 页")
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


def cite_html(card: SourceCard, verdict: MarkerVerdict | None = None, chunk_text: str = "") -> str:
    """One marker: ``<sup>`` with the ``[n]`` link and its hover/focus card (escaped, unsanitized)."""
    path = shown_path(card.title, card.heading_path)
    href = _verdict_link(card, verdict)
    label = f"来源 {card.number}：{card.title}{aria_suffix(verdict)}"
    parts = [
        f'<sup class="{sup_class(verdict)}">',
        f'<a class="yz-cite-link" href="{e(href)}" target="_blank" '
        f'aria-label="{e(label)}">[{card.number}]</a>',
        '<span class="yz-card" role="tooltip">',
        f'<span class="yz-card-title">{e(card.title)}</span>',
    ]
    if path:
        parts.append(f'<span class="yz-card-path">{e(path)}</span>')
    parts.append(card_verdict_html(verdict))
    quote_html = card_quote_html(chunk_text, verdict)
    parts.append(quote_html if quote_html is not None else f'<span class="yz-card-snippet">{e(card.snippet)}</span>')
    meta = _meta_line(card)
    if meta:
        parts.append(f'<span class="yz-card-meta">{meta}</span>')
    badge = _badge(card)
    if badge:
        parts.append(f"<span>{badge}</span>")
    parts.append(f'<span><a class="yz-card-link" href="{e(href)}" target="_blank">查看来源快照</a></span>')
    parts.append("</span></sup>")
    return "".join(parts)


def evidence_html(cards: Sequence[SourceCard]) -> str:
    """The 引用来源 section: one item per card in the given order ("" for no cards)."""
    if not cards:
        return ""
    items = []
    for card in cards:
        bits = [
            '<li class="yz-evidence-item"><span class="yz-evidence-head">',
            f'<span class="yz-num">[{card.number}]</span>',
            f'<a class="yz-evidence-title" href="{e(card.snapshot_url)}" target="_blank">{e(card.title)}</a>',
        ]
        dom = link_domain(card.uri)
        if card.uri and dom:
            bits.append(f' · <a class="yz-origin" href="{e(card.uri)}">{e(dom)}</a>')
        bits.append(_badge(card))
        bits.append("</span>")
        path = shown_path(card.title, card.heading_path)
        if path:
            bits.append(f'<span class="yz-path">{e(path)}</span>')
        bits.append(f'<span class="yz-snippet">{e(card.snippet)}</span>')
        meta = _meta_line(card)
        if meta:
            bits.append(f'<span class="yz-meta">{meta}</span>')
        bits.append("</li>")
        items.append("".join(bits))
    return (
        '<section class="yz-evidence"><h4 class="yz-section-title">引用来源</h4>'
        f'<ul class="yz-evidence-list">{"".join(items)}</ul></section>'
    )
