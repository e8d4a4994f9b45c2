"""Answer record -> HTML: superscript markers, source cards, 本段无出处, evidence, links.

Pure functions, no Streamlit: the chat page passes the result to ``st.html``
(after injecting :data:`ANSWER_CSS` once); ``python -m components RECORD.json``
prints the same HTML.

How markers are placed without touching the Markdown
----------------------------------------------------
``core.layout.layout`` decides every marker slot from the support offsets
(code points) and checks it against the Markdown structure. Here each slot gets
a unique placeholder (characters of Unicode category So that do not occur in
the answer): inline slots are inserted into the Markdown source, block slots
(after a code block or table, or at the end of a paragraph) are emitted by
render rules. The source is rendered with markdown-it (``markdown_parser``:
raw HTML off, http(s) links only, no strikethrough/math/emoji/reference
rules), then each placeholder is replaced by the marker HTML in one pass, and
the whole fragment goes through nh3 with an allowlist of our own tags,
attributes and classes. Text is escaped by markdown-it or ``html.escape``
first; the sanitizer is a safety net.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from urllib.parse import quote, urlsplit

import nh3

from components.verdict_view import (
    VERDICT_CSS,
    aria_suffix,
    card_quote_html,
    card_verdict_html,
    slot_marks_html,
    sup_class,
)
from core.grounding import answer_status, validate_supports
from core.layout import Layout, MarkerSlot, layout, marker_numbers
from core.markdown import insert_at, markdown_parser, placeholder_codes, safe_link
from core.models import AnswerRecord, AuditEntry, ChunkSnapshot, SourceCard
from core.replay import snapshot_state
from core.verdicts import MarkerVerdict, marker_verdicts

__all__ = ["ANSWER_CSS", "render_answer", "source_cards", "snapshot_url", "display_title"]

UNSUPPORTED_LABEL = "本段无出处"
EXTRACTIVE_NOTE = "抽取式回答：句子原文摘自知识库"
CHECK_NOTE = "核查结果：每句话都在知识库中检索并与来源核对"
NO_EVIDENCE_MESSAGE = "在当前检索设置下，知识库中没有足够的证据回答这个问题。"
UNVERIFIABLE_MESSAGE = "无法核实：这段回答中没有任何内容能与来源核对。"
BLOCKED_MESSAGE = "模型提供方拦截了这次回答，未显示内容。"
ERROR_PREFIX = "出错了："
INTERRUPTED_MESSAGE = "回答被中断：以下是中断前已生成的部分，未经核对。"
CANDIDATES_TITLE = "最接近的片段（不作为证据）"
REPHRASE_HINT = "可以换个说法再问：用文档里的术语（例如 Pod、Service、ConfigMap），写出具体的对象、字段或版本，或把问题拆成更小的问题。"
KEYWORD_MODE_NOTE = "关键词检索：向量索引尚未建完，本次只按关键词判断证据。"

ANSWER_CSS = """<style>
.yz-answer { line-height: 1.7; color: inherit; }
.yz-answer pre { background: rgba(127,127,127,0.10); padding: 0.6em 0.8em; border-radius: 6px; overflow-x: auto; }
.yz-answer table { border-collapse: collapse; margin: 0.5em 0; }
.yz-answer th, .yz-answer td { border: 1px solid rgba(127,127,127,0.35); padding: 0.2em 0.6em; }
.yz-notice { padding: 0.6em 0.9em; border-radius: 6px; margin: 0.4em 0 0.8em;
  background: rgba(127,127,127,0.10); border-left: 4px solid rgba(127,127,127,0.5); }
.yz-notice.yz-error { border-left-color: #c0392b; }
.yz-notice.yz-unverifiable, .yz-notice.yz-blocked, .yz-notice.yz-interrupted { border-left-color: #b9770e; }
.yz-note { font-size: 0.85em; opacity: 0.8; margin: 0.2em 0 0.6em; }
.yz-query { font-size: 0.9em; opacity: 0.85; }
.yz-cite { position: relative; display: inline-block; vertical-align: super; line-height: 1;
  font-size: 0.75em; margin: 0 0.05em; }
.yz-cite-link { text-decoration: none; font-weight: 600; padding: 0 0.1em; border-radius: 3px; }
.yz-cite-link:focus { outline: 2px solid #2e86c1; outline-offset: 1px; }
.yz-card { display: none; position: absolute; z-index: 1000; left: -0.5em; top: 100%;
  width: 22em; max-width: 80vw; padding: 0.6em 0.8em; margin-top: 0.3em;
  background: #ffffff; color: #222222; border: 1px solid #d0d4d9; border-radius: 6px;
  box-shadow: 0 4px 14px rgba(0,0,0,0.15); font-size: 0.8rem; line-height: 1.5;
  font-weight: normal; text-align: left; white-space: normal; vertical-align: baseline; }
.yz-card::before { content: ""; position: absolute; left: 0; right: 0; top: -0.6em; height: 0.6em; }
.yz-cite:hover .yz-card, .yz-cite:focus-within .yz-card { display: block; }
@supports (anchor-name: --a) {
  /* Keep the card inside the viewport: anchor it to its marker and flip when it would overflow. */
  .yz-cite { anchor-scope: --yz-cite; }
  .yz-cite-link { anchor-name: --yz-cite; }
  .yz-card { position: fixed; position-anchor: --yz-cite; top: anchor(bottom); left: anchor(left);
    right: auto; margin-top: 0.3em;
    position-try-fallbacks: flip-inline, flip-block, flip-block flip-inline, --yz-fit-below, --yz-fit-above; }
  /* On a narrow screen neither side of the marker may fit: centre the card in the viewport. */
  @position-try --yz-fit-below { top: anchor(bottom); bottom: auto; left: 0.5em; right: 0.5em; margin: 0.3em auto 0; }
  @position-try --yz-fit-above { top: auto; bottom: anchor(top); left: 0.5em; right: 0.5em; margin: 0 auto 0.3em; }
}
.yz-card > span { display: block; }
.yz-card-title { font-weight: 600; margin-bottom: 0.2em; }
.yz-card-path, .yz-path { color: #5d6d7e; font-size: 0.95em; }
.yz-card-snippet { margin: 0.3em 0; color: #333333; }
.yz-card-meta, .yz-meta { color: #7f8c8d; font-size: 0.9em; }
.yz-card-link { display: inline-block; margin-top: 0.3em; }
.yz-badge { display: inline-block; font-size: 0.85em; padding: 0 0.4em; border-radius: 3px;
  background: #fdebd0; color: #7e5109; margin: 0.2em 0.3em 0 0; }
.yz-badge-deleted { background: #fadbd8; color: #78281f; }
.yz-unsupported { display: inline-block; font-size: 0.72em; vertical-align: super; line-height: 1;
  color: #7f8c8d; border: 1px dashed #aab7b8; border-radius: 3px; padding: 0.05em 0.3em;
  margin: 0 0.15em; }
.yz-after-block { margin: -0.3em 0 0.6em; }
.yz-evidence, .yz-links, .yz-audit { margin-top: 1em; font-size: 0.9em; }
.yz-section-title { font-size: 0.95em; margin: 0.4em 0; }
.yz-evidence-list, .yz-links-list { list-style: none; padding-left: 0; margin: 0; }
.yz-evidence-item { margin: 0.35em 0; }
.yz-evidence-item > span { display: block; }
.yz-evidence-head { display: inline; }
.yz-num { font-weight: 600; margin-right: 0.3em; }
.yz-links-list li { margin: 0.2em 0; }
.yz-link-kind { font-size: 0.85em; opacity: 0.7; margin-left: 0.4em; }
.yz-audit summary, .yz-retrieval summary { cursor: pointer; opacity: 0.8; }
.yz-candidates { margin-top: 0.6em; font-size: 0.9em; }
.yz-candidates summary { cursor: pointer; opacity: 0.8; }
.yz-candidate-list { list-style: none; padding-left: 0; margin: 0.3em 0; opacity: 0.85; }
.yz-candidate-list li { margin: 0.35em 0; }
.yz-candidate-list li > span { display: block; }
</style>""" + VERDICT_CSS

# -- sanitizer allowlist (our own tags, attributes and classes only) ---------------

_TAGS = {
    "a", "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "code", "pre",
    "blockquote", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td", "sup", "span",
    "div", "section", "details", "summary", "time", "mark",
}  # fmt: skip
_ATTRIBUTES = {
    "a": {"href", "title", "aria-label", "target"},
    "ol": {"start"},
    "th": {"style"},
    "td": {"style"},
    "span": {"role", "title", "aria-label"},
    "div": {"role"},
    "time": {"datetime"},
}
_CLASSES = {
    "a": {"yz-cite-link", "yz-card-link", "yz-evidence-title", "yz-origin", "yz-link"},
    "sup": {"yz-cite", "yz-cite-review", "yz-cite-contradicted"},
    "span": {
        "yz-card", "yz-card-title", "yz-card-path", "yz-card-snippet", "yz-card-meta",
        "yz-badge", "yz-badge-updated", "yz-badge-deleted", "yz-unsupported", "yz-num",
        "yz-path", "yz-snippet", "yz-meta", "yz-link-kind", "yz-evidence-head", "yz-domain",
        "yz-review", "yz-contradicted", "yz-card-verdict", "yz-card-verdict-review",
        "yz-card-verdict-contradicted", "yz-card-verdict-supported", "yz-card-quote", "yz-quote-label",
    },
    "div": {
        "yz-answer", "yz-answer-body", "yz-notice", "yz-error", "yz-unverifiable", "yz-blocked", "yz-interrupted",
        "yz-no-evidence", "yz-note", "yz-extractive", "yz-check", "yz-query", "yz-after-block",
        "yz-orphans", "yz-keyword-mode", "yz-uncovered", "yz-hint",
    },
    "section": {"yz-evidence", "yz-links"},
    "details": {"yz-audit", "yz-retrieval", "yz-candidates"},
    "ul": {"yz-evidence-list", "yz-links-list", "yz-audit-list", "yz-candidate-list"},
    "li": {"yz-evidence-item"},
    "h4": {"yz-section-title"},
}  # fmt: skip


_SURROGATE = re.compile("[\ud800-\udfff]")


def _sanitize(fragment: str) -> str:
    # a lone surrogate (possible in JSON-decoded text) cannot cross into nh3 (Rust UTF-8)
    fragment = _SURROGATE.sub("\ufffd", fragment)
    return nh3.clean(
        fragment,
        tags=_TAGS,
        attributes=_ATTRIBUTES,
        allowed_classes=_CLASSES,
        url_schemes={"http", "https"},
        filter_style_properties={"text-align"},
        strip_comments=True,
    )


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


# -- source cards --------------------------------------------------------------------


def snapshot_url(answer_id: str, chunk_id: str, base: str = "./sources") -> str:
    """Relative link to the snapshot page: ``{base}?answer_id=..&chunk_id=..`` (both URL-encoded)."""
    return f"{base}?answer_id={quote(answer_id, safe='')}&chunk_id={quote(chunk_id, safe='')}"


def _domain(uri: str | None) -> str | None:
    if not uri or not safe_link(uri):
        return None
    try:
        host = urlsplit(uri.strip()).hostname
    except ValueError:
        return None
    return host or None


def _path(chunk: ChunkSnapshot) -> tuple[str, ...]:
    return tuple(p.strip() for p in chunk.heading_path if p and p.strip())


def display_title(chunk: ChunkSnapshot) -> str:
    """The title shown for a chunk: its title, else its URL's domain, else its heading path."""
    if chunk.title and chunk.title.strip():
        return chunk.title.strip()
    dom = _domain(chunk.uri)
    if dom:
        return dom
    path = _path(chunk)
    if path:
        return " › ".join(path)
    return chunk.chunk_id


def _snippet(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _page(chunk: ChunkSnapshot) -> int | None:
    for key in ("page", "page_number", "pageNumber"):
        v = chunk.metadata.get(key)
        if isinstance(v, int) and not isinstance(v, bool):
            return v
    return None


class _View:
    """Everything derived from a record once: valid supports, layout, numbers, cards."""

    def __init__(
        self,
        record: AnswerRecord,
        current_versions: Mapping[str, str | None] | None,
        snapshot_base: str,
    ) -> None:
        self.record = record
        known = [c.chunk_id for c in record.chunks]
        self.supports, self.render_audit = validate_supports(
            record.answer_text, record.supports, known
        )
        self.layout: Layout = layout(record.answer_text, self.supports)
        self.numbers = marker_numbers(self.layout.segments)
        cards: dict[str, SourceCard] = {}
        for cid, num in self.numbers.items():
            chunk = record.chunk(cid)
            if chunk is None:  # validate_supports keeps only known ids
                continue
            cards[cid] = SourceCard(
                number=num,
                chunk_id=cid,
                title=display_title(chunk),
                heading_path=_path(chunk),
                snippet=_snippet(chunk.text),
                uri=chunk.uri if chunk.uri and safe_link(chunk.uri) else None,
                updated_at=chunk.updated_at,
                relevance=chunk.relevance,
                snapshot_url=snapshot_url(record.answer_id, cid, snapshot_base),
                page=_page(chunk),
                changed=snapshot_state(chunk, current_versions),  # type: ignore[arg-type]
            )
        self.cards = cards
        self.verdicts = marker_verdicts(
            record.supports,
            self.supports,
            [(s.position, s.chunk_ids) for s in self.layout.slots],
            {c.chunk_id: c.text for c in record.chunks},
        )


def source_cards(
    record: AnswerRecord,
    current_versions: Mapping[str, str | None] | None = None,
    *,
    snapshot_base: str = "./sources",
) -> list[SourceCard]:
    """The cards of the chunks the answer cites, numbered like its markers (first appearance).

    Only cited chunks (those with a rendered marker) appear. ``current_versions``
    maps ``source_id`` to the source's current version (None = deleted); a card's
    ``changed`` is ``updated``/``deleted``/``unchanged``, or ``unknown`` when no
    mapping (or no entry) is given.
    """
    view = _View(record, current_versions, snapshot_base)
    return sorted(view.cards.values(), key=lambda c: c.number)


# -- HTML pieces -----------------------------------------------------------------------


def _meta_line(card: SourceCard) -> str:
    bits = []
    if card.updated_at is not None:
        iso = card.updated_at.isoformat()
        bits.append(f'更新于 <time datetime="{_e(iso)}">{_e(card.updated_at.strftime("%Y-%m-%d"))}</time>')
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


def _cite_html(card: SourceCard, verdict: MarkerVerdict | None = None, chunk_text: str = "") -> str:
    path = " › ".join(card.heading_path)
    href = _verdict_link(card, verdict)
    label = f"来源 {card.number}：{card.title}{aria_suffix(verdict)}"
    parts = [
        f'<sup class="{sup_class(verdict)}">',
        f'<a class="yz-cite-link" href="{_e(href)}" target="_blank" '
        f'aria-label="{_e(label)}">[{card.number}]</a>',
        '<span class="yz-card" role="tooltip">',
        f'<span class="yz-card-title">{_e(card.title)}</span>',
    ]
    if path:
        parts.append(f'<span class="yz-card-path">{_e(path)}</span>')
    parts.append(card_verdict_html(verdict))
    quote = card_quote_html(chunk_text, verdict)
    parts.append(quote if quote is not None else f'<span class="yz-card-snippet">{_e(card.snippet)}</span>')
    meta = _meta_line(card)
    if meta:
        parts.append(f'<span class="yz-card-meta">{meta}</span>')
    badge = _badge(card)
    if badge:
        parts.append(f"<span>{badge}</span>")
    parts.append(f'<span><a class="yz-card-link" href="{_e(href)}" target="_blank">查看来源快照</a></span>')
    parts.append("</span></sup>")
    return "".join(parts)


def _unsupported_html() -> str:
    return f'<span class="yz-unsupported" title="{UNSUPPORTED_LABEL}">{UNSUPPORTED_LABEL}</span>'


def _slot_html(slot: MarkerSlot, cards: Mapping[str, SourceCard], verdicts: _Verdicts | None = None) -> str:
    if verdicts is None:
        out = [_cite_html(cards[cid]) for cid in slot.chunk_ids if cid in cards]
    else:
        out = _verdict_slot_html(slot, cards, verdicts)
    if slot.unsupported:
        out.append(_unsupported_html())
    return "".join(out)


class _Verdicts:
    """What the verdict rendering needs besides the cards: marker verdicts and chunk texts."""

    def __init__(self, view: _View) -> None:
        self.by_marker = view.verdicts
        self.texts = {c.chunk_id: c.text for c in view.record.chunks}


def _verdict_slot_html(slot: MarkerSlot, cards: Mapping[str, SourceCard], verdicts: _Verdicts) -> list[str]:
    """A slot's markers styled by their verdicts, then ⚠ 与来源矛盾 / 待复核 after them."""
    out, kinds, reasons = [], set(), []
    for cid in slot.chunk_ids:
        if cid not in cards:
            continue
        v = verdicts.by_marker.get((slot.position, cid))
        out.append(_cite_html(cards[cid], v, verdicts.texts.get(cid, "")))
        if v is not None and v.kind in ("review", "contradicted"):
            kinds.add(v.kind)
            reasons.append(v.reason or "")
    marks = slot_marks_html(kinds, reasons)
    if marks:
        out.append(marks)
    return out


_BLOCK_ANCHORS = ("fence", "code_block", "table_close", "paragraph_close", "heading_close")


def _anchor_rule(name: str, default):  # noqa: ANN001 - markdown-it rule
    def rule(self, tokens, idx, options, env):  # noqa: ANN001
        if default is not None:
            out = default(tokens, idx, options, env)
        else:
            out = self.renderToken(tokens, idx, options, env)
        code = env.get("yz_anchors", {}).get(idx)
        if code is None:
            return out
        if name in ("paragraph_close", "heading_close"):
            return code + out
        return f'{out}<div class="yz-after-block">{code}</div>'

    return rule


def _renderer():
    md = markdown_parser()
    for name in _BLOCK_ANCHORS:
        md.add_render_rule(name, _anchor_rule(name, md.renderer.rules.get(name)))
    return md


_RENDERER = _renderer()
_PLAIN = markdown_parser()


def _body_html(text: str, lay: Layout, cards: Mapping[str, SourceCard], verdicts: _Verdicts | None = None) -> str:
    """The answer's Markdown rendered with its markers (unsanitized; the caller sanitizes)."""
    slots = [s for s in lay.slots if s.unsupported or any(c in cards for c in s.chunk_ids)]
    try:
        codes = placeholder_codes(text, len(slots))
    except ValueError:  # every placeholder character occurs in the text: markers go last
        codes = []
    if not codes:
        body = _RENDERER.render(text)
        tail = "".join(_slot_html(s, cards, verdicts) for s in slots)
        return body + (f'<div class="yz-orphans">{tail}</div>' if tail else "")
    inline = [(s.position, c) for s, c in zip(slots, codes) if s.anchor_token is None]
    anchors = {s.anchor_token: c for s, c in zip(slots, codes) if s.anchor_token is not None}
    tokens = _RENDERER.parse(insert_at(text, inline))
    base = _PLAIN.parse(text)
    if [(t.type, t.map) for t in tokens] != [(t.type, t.map) for t in base]:
        anchors = {}  # structure differs (should not happen): anchored markers go last
    body = _RENDERER.renderer.render(tokens, _RENDERER.options, {"yz_anchors": anchors})
    replacement = {c: _slot_html(s, cards, verdicts) for s, c in zip(slots, codes)}
    found: set[str] = set()

    def sub(m: re.Match[str]) -> str:
        found.add(m.group())
        return replacement[m.group()]

    pattern = re.compile("|".join(re.escape(c) for c in sorted(codes, key=len, reverse=True)))
    body = pattern.sub(sub, body)
    missing = "".join(replacement[c] for c in codes if c not in found)
    if missing:
        body += f'<div class="yz-orphans">{missing}</div>'
    return body


def _evidence_html(cards: Sequence[SourceCard]) -> str:
    if not cards:
        return ""
    items = []
    for card in cards:
        bits = [
            '<li class="yz-evidence-item"><span class="yz-evidence-head">',
            f'<span class="yz-num">[{card.number}]</span>',
            f'<a class="yz-evidence-title" href="{_e(card.snapshot_url)}" target="_blank">{_e(card.title)}</a>',
        ]
        dom = _domain(card.uri)
        if card.uri and dom:
            bits.append(f' · <a class="yz-origin" href="{_e(card.uri)}">{_e(dom)}</a>')
        bits.append(_badge(card))
        bits.append("</span>")
        if card.heading_path:
            bits.append(f'<span class="yz-path">{_e(" › ".join(card.heading_path))}</span>')
        bits.append(f'<span class="yz-snippet">{_e(card.snippet)}</span>')
        meta = _meta_line(card)
        if meta:
            bits.append(f'<span class="yz-meta">{meta}</span>')
        bits.append("</li>")
        items.append("".join(bits))
    return (
        '<section class="yz-evidence"><h4 class="yz-section-title">引用来源</h4>'
        f'<ul class="yz-evidence-list">{"".join(items)}</ul></section>'
    )


def _links_html(record: AnswerRecord) -> str:
    if not record.recommended_links:
        return ""
    items = []
    for link in record.recommended_links:
        kind = "联系方式" if link.kind == "contact" else "导航"
        if safe_link(link.url):
            label = f'<a class="yz-link" href="{_e(link.url.strip())}">{_e(link.label)}</a>'
        else:
            label = _e(link.label)
        items.append(f'<li>{label}<span class="yz-link-kind">{kind}</span></li>')
    return (
        '<section class="yz-links"><h4 class="yz-section-title">推荐链接</h4>'
        f'<ul class="yz-links-list">{"".join(items)}</ul></section>'
    )


_ACTIONS = {"dropped": "已丢弃", "repaired": "已修复", "flagged": "已标记"}


def _audit_html(entries: Sequence[AuditEntry]) -> str:
    if not entries:
        return ""
    items = []
    for entry in entries:
        who = "" if entry.support_index is None else f"出处 #{entry.support_index}："
        stage = "（显示时发现）" if entry.detail.get("stage") == "render" else ""
        items.append(
            f"<li>{_e(_ACTIONS.get(entry.action, entry.action))} · {_e(who)}"
            f"{_e(entry.reason)}{stage}</li>"
        )
    return (
        f'<details class="yz-audit"><summary>核查记录（{len(entries)}）</summary>'
        f'<ul class="yz-audit-list">{"".join(items)}</ul></details>'
    )


def _retrieval_html(record: AnswerRecord) -> str:
    """The query retrieval actually searched, when it differs from the question (a resolved follow-up)."""
    if not record.retrieval_query or record.retrieval_query == record.query:
        return ""
    return (
        '<details class="yz-retrieval"><summary>检索详情</summary>'
        f'<div class="yz-query">结合上文检索：{_e(record.retrieval_query)}</div></details>'
    )



def _candidates_html(record: AnswerRecord) -> str:
    """The retrieved candidates of a no_evidence record, collapsed, marked as not evidence."""
    if not record.candidates:
        return ""
    items = []
    for cand in record.candidates:
        c = cand.chunk
        snippet = c.text if len(c.text) <= 140 else c.text[:140] + "…"
        items.append(
            f'<li><span class="yz-path">{_e(" › ".join(c.heading_path) or c.title)}</span>'
            f'<span class="yz-snippet">{_e(snippet)}</span>'
            f'<span class="yz-meta">相关度 {c.relevance:.2f} · 充分性 {cand.score:.2f}（低于阈值，未引用）</span></li>'
        )
    return (
        f'<details class="yz-candidates"><summary>{_e(CANDIDATES_TITLE)}</summary>'
        f'<div class="yz-note yz-hint">{_e(REPHRASE_HINT)}</div>'
        f'<ul class="yz-candidate-list">{"".join(items)}</ul></details>'
    )


def _sufficiency_notes(record: AnswerRecord) -> str:
    """关键词检索 while vectors are incomplete; the sentence about an uncovered part of the question."""
    suff = record.sufficiency
    if suff is None:
        return ""
    out = ""
    if suff.note and record.status != "no_evidence":
        out += f'<div class="yz-note yz-uncovered">{_e(suff.note)}</div>'
    if suff.mode == "keyword":
        out += f'<div class="yz-note yz-keyword-mode">{_e(KEYWORD_MODE_NOTE)}</div>'
    return out


def _notice(kind: str, message: str) -> str:
    return f'<div class="yz-notice yz-{kind}" role="status">{_e(message)}</div>'


def render_answer(
    record: AnswerRecord,
    *,
    current_versions: Mapping[str, str | None] | None = None,
    snapshot_base: str = "./sources",
) -> str:
    """The HTML fragment the chat page shows for ``record`` (sanitized, deterministic).

    Supports are read as code-point offsets into ``record.answer_text``; broken
    ones (out of range, reversed, unknown chunk ids) are skipped and listed in the
    page's audit next to ``record.audit``. Status views: ``no_evidence`` (notice —
    naming the missing term when the sufficiency decision found one — and the
    retrieved candidates collapsed under 最接近的片段（不作为证据） with a hint
    on rephrasing), ``unverifiable`` (nothing could be checked against the sources; also
    shown for an ``answered`` record without a usable support), ``error``
    (``record.error`` and the question), ``blocked``, ``interrupted`` (a notice,
    then the partial text as stored, every sentence marked 本段无出处). ``current_versions``
    (source_id -> current version, None = deleted) adds 来源已更新/来源已删除 to
    cards. ``snapshot_base`` is the relative path of the snapshot page. The same
    record always gives the same HTML. Does not include :data:`ANSWER_CSS`.
    """
    out = ['<div class="yz-answer">']
    status = record.status
    if status == "no_evidence":
        named = record.sufficiency is not None and record.sufficiency.missing_terms and record.sufficiency.message
        out.append(_notice("no-evidence", record.sufficiency.message if named else NO_EVIDENCE_MESSAGE))
        out.append(_sufficiency_notes(record))
        out.append(_candidates_html(record))
        out.append(_retrieval_html(record))
        out.append(_links_html(record))
    elif status == "error":
        out.append(_notice("error", ERROR_PREFIX + (record.error or "未知错误")))
        out.append(f'<div class="yz-query">问题：{_e(record.query)}</div>')
    elif status == "blocked":
        msg = BLOCKED_MESSAGE + (f"（{record.error}）" if record.error else "")
        out.append(_notice("blocked", msg))
    else:
        view = _View(record, current_versions, snapshot_base)
        cards = sorted(view.cards.values(), key=lambda c: c.number)
        if status == "interrupted":
            out.append(_notice("interrupted", INTERRUPTED_MESSAGE))
        elif status == "unverifiable" or answer_status(view.supports) == "unverifiable":
            out.append(_notice("unverifiable", UNVERIFIABLE_MESSAGE))
        if record.generator.name == "extractive":
            out.append(f'<div class="yz-note yz-extractive">{_e(EXTRACTIVE_NOTE)}</div>')
        elif record.generator.name == "check":
            out.append(f'<div class="yz-note yz-check">{_e(CHECK_NOTE)}</div>')
        out.append(_sufficiency_notes(record))
        body = _body_html(record.answer_text, view.layout, view.cards, _Verdicts(view))
        out.append(f'<div class="yz-answer-body">{body}</div>')
        out.append(_evidence_html(cards))
        out.append(_links_html(record))
        out.append(_retrieval_html(record))
        out.append(_audit_html([*record.audit, *view.render_audit]))
    out.append("</div>")
    return _sanitize("".join(out))
