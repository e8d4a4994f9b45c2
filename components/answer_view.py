"""Answer record -> HTML: the page assembly (status notice, body with markers, evidence, links, audit).

Pure functions, no Streamlit: the chat page passes the result to ``st.html``
(after injecting :data:`ANSWER_CSS` once); ``python -m components RECORD.json``
prints the same HTML. The jobs around it live apart: status texts, marker
numbers and a source's title/path/snippet in ``core.records.presentation`` (shared with
the Markdown export), source cards and the evidence list in
``components.cards``, the nh3 allowlist in ``components.sanitize``, verdict
marks in ``components.verdict_view``, the stylesheets in ``components/static/``.

How markers are placed without touching the Markdown
----------------------------------------------------
``core.grounding.layout.layout`` decides every marker slot from the support offsets
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

Why over 400 lines: the one page assembly every answer view renders through (the chat, 历史,
核查, the command line's HTML); it crossed 400 only when the formatter (issue 31) rewrapped it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from components.cards import build_cards, cite_html, evidence_html, snapshot_url, snippet_html
from components.cards import e as _e
from components.pdf_view import PDF_CSS
from components.sanitize import _CLASSES, _TAGS  # noqa: F401 - the allowlist, re-exported for tests
from components.sanitize import sanitize as _sanitize
from components.snapshot_html import panels_html
from components.static import style
from components.verdict_view import VERDICT_CSS, slot_marks_html
from core.public import (
    BLOCKED_MESSAGE,
    CANDIDATES_TITLE,
    CHECK_NOTE,
    CHECK_PASTED_NOTE,
    EMPTY_ANSWER_MESSAGE,
    EXTRACTIVE_NOTE,
    FOUND_TITLE,
    INTERRUPTED_MESSAGE,
    KEYWORD_MODE_NOTE,
    KEYWORD_UNCALIBRATED_NOTE,
    PATH_SEPARATOR,
    REPHRASE_HINT,
    UNSUPPORTED_LABEL,
    UNVERIFIABLE_MESSAGE,
    AnswerRecord,
    AuditEntry,
    ChunkSnapshot,
    Layout,
    MarkerSlot,
    SourceCard,
    answer_status,
    cited_span,
    display_title,
    error_message,
    insert_at,
    mark_answer,
    markdown_parser,
    no_evidence_message,
    placeholder_codes,
    safe_link,
)

__all__ = ["ANSWER_CSS", "ANSWER_SCRIPT", "render_answer", "source_cards", "snapshot_url", "display_title"]

#: The stylesheet of the answer HTML (``components/static/answer.css``, then the verdict styles),
#: as ``<style>`` elements; read once at import.
ANSWER_CSS = style("answer.css") + VERDICT_CSS + PDF_CSS

#: A constant script (no record data) for ``st.html(..., unsafe_allow_javascript=True)``: when a
#: snapshot panel opens, its highlighted passage is scrolled into view. Added once per browser page.
ANSWER_SCRIPT = """<script>
(function () {
  if (window.__yzSnapScroll) return;
  window.__yzSnapScroll = true;
  document.addEventListener("toggle", function (ev) {
    const pop = ev.target;
    if (ev.newState !== "open" || !pop.classList || !pop.classList.contains("yz-snap-pop")) return;
    const mark = pop.querySelector("mark.yz-quote");
    if (mark) mark.scrollIntoView({ block: "center" });
  }, true);
})();
</script>"""


class _View:
    """Everything derived from a record once: the marked answer (``core.records.presentation``) and its cards."""

    def __init__(
        self,
        record: AnswerRecord,
        current_versions: Mapping[str, str | None] | None,
        snapshot_base: str,
    ) -> None:
        self.record = record
        marked = mark_answer(record)
        self.supports, self.render_audit = marked.supports, marked.render_audit
        self.layout: Layout = marked.layout
        self.numbers = marked.numbers
        self.cards = build_cards(record, self.numbers, current_versions, snapshot_base)
        self.verdicts = marked.verdicts


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


def _unsupported_html() -> str:
    return f'<span class="yz-unsupported" title="{UNSUPPORTED_LABEL}">{UNSUPPORTED_LABEL}</span>'


def _slot_html(slot: MarkerSlot, cards: Mapping[str, SourceCard], verdicts: _Verdicts | None = None) -> str:
    if verdicts is None:
        out = [cite_html(cards[cid]) for cid in slot.chunk_ids if cid in cards]  # no verdicts: no panels either
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
        self.answer_id = view.record.answer_id
        self.spans = {cid: cited_span(view.record, cid) for cid in view.cards}  # what each chunk's panel highlights


def _verdict_slot_html(slot: MarkerSlot, cards: Mapping[str, SourceCard], verdicts: _Verdicts) -> list[str]:
    """A slot's markers styled by their verdicts, then ⚠ 与来源矛盾 / 待复核 after them."""
    out, kinds, reasons = [], set(), []
    for cid in slot.chunk_ids:
        if cid not in cards:
            continue
        v = verdicts.by_marker.get((slot.position, cid))
        out.append(cite_html(cards[cid], v, verdicts.texts.get(cid, ""), verdicts.answer_id, verdicts.spans.get(cid)))
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
        items.append(f"<li>{_e(_ACTIONS.get(entry.action, entry.action))} · {_e(who)}{_e(entry.reason)}{stage}</li>")
    return (
        f'<details class="yz-audit"><summary>核查记录（{len(entries)}）</summary>'
        f'<ul class="yz-audit-list">{"".join(items)}</ul></details>'
    )


#: 检索详情's name of each sufficiency mode (``core.retrieval.sufficiency``: which rankings were fused).
MODE_LABELS = {
    "hybrid2": "混合检索（关键词 + 两个向量模型）",
    "hybrid": "混合检索（关键词 + 向量）",
    "keyword": "关键词检索",
}


def _retrieval_html(record: AnswerRecord) -> str:
    """检索详情: the query retrieval actually searched when it differs from the question (a resolved
    follow-up), and the retrieval state the decision used; shown for a resolved query, or when the
    second embedder's ranking was fused (``hybrid2``)."""
    resolved = bool(record.retrieval_query) and record.retrieval_query != record.query
    mode = record.sufficiency.mode if record.sufficiency is not None else None
    if not resolved and mode != "hybrid2":
        return ""
    query = f'<div class="yz-query">结合上文检索：{_e(record.retrieval_query)}</div>' if resolved else ""
    state = f'<div class="yz-mode">检索方式：{_e(MODE_LABELS[mode])}</div>' if mode in MODE_LABELS else ""
    return f'<details class="yz-retrieval"><summary>检索详情</summary>{query}{state}</details>'


def _candidates_html(record: AnswerRecord) -> str:
    """The retrieved candidates of a no_evidence record, collapsed, marked as not evidence."""
    items = [
        (cand.chunk, f"相关度 {cand.chunk.relevance:.2f} · 充分性 {cand.score:.2f}（低于阈值，未引用）")
        for cand in record.candidates
    ]
    return _chunk_list_html(CANDIDATES_TITLE, items)


def _found_html(record: AnswerRecord) -> str:
    """The chunks an answer with no text was generated from (nothing could be extracted from
    them), so the person sees what was found; collapsed, marked as not cited."""
    return _chunk_list_html(FOUND_TITLE, [(c, f"相关度 {c.relevance:.2f}（未引用）") for c in record.chunks])


def _chunk_list_html(title: str, items: list[tuple[ChunkSnapshot, str]]) -> str:
    """``items`` (a snapshot and its meta line) under ``title``, collapsed, with the rephrasing hint;
    each snippet read like an evidence card's (``components.cards.snippet_html``: no Markdown
    syntax, inline code in ``<code>``, at most 140 code points). Empty without items."""
    if not items:
        return ""
    rows = [
        f'<li><span class="yz-path">{_e(PATH_SEPARATOR.join(c.heading_path) or c.title)}</span>'
        f'<span class="yz-snippet">{snippet_html(c.text, c.title, c.heading_path, 140)}</span>'
        f'<span class="yz-meta">{_e(meta)}</span></li>'
        for c, meta in items
    ]
    return (
        f'<details class="yz-candidates"><summary>{_e(title)}</summary>'
        f'<div class="yz-note yz-hint">{_e(REPHRASE_HINT)}</div>'
        f'<ul class="yz-candidate-list">{"".join(rows)}</ul></details>'
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
        note = KEYWORD_UNCALIBRATED_NOTE if _vectors_complete(record) else KEYWORD_MODE_NOTE
        out += f'<div class="yz-note yz-keyword-mode">{_e(note)}</div>'
    return out


def _vectors_complete(record: AnswerRecord) -> bool:
    """Whether the record's retrieval had every chunk's vector (``dense_coverage`` "n/n", n > 0):
    then keyword mode means an uncalibrated embedder, not vectors still being built."""
    done, _, total = str((record.retrieval or {}).get("dense_coverage", "")).partition("/")
    return done.isdigit() and done == total and int(done) > 0


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
    record always gives the same HTML, its outer ``div`` naming ``record.answer_id`` in
    ``data-answer``. Does not include :data:`ANSWER_CSS`.
    """
    out = [f'<div class="yz-answer" data-answer="{_e(record.answer_id)}">']
    status = record.status
    if status == "no_evidence":
        out.append(_notice("no-evidence", no_evidence_message(record)))
        out.append(_sufficiency_notes(record))
        out.append(_candidates_html(record))
        out.append(_retrieval_html(record))
        out.append(_links_html(record))
    elif status == "error":
        out.append(_notice("error", error_message(record)))
        out.append(f'<div class="yz-query">问题：{_e(record.query)}</div>')
    elif status == "blocked":
        msg = BLOCKED_MESSAGE + (f"（{record.error}）" if record.error else "")
        out.append(_notice("blocked", msg))
    else:
        view = _View(record, current_versions, snapshot_base)
        cards = sorted(view.cards.values(), key=lambda c: c.number)
        empty = not record.answer_text.strip()
        if status == "interrupted":
            out.append(_notice("interrupted", INTERRUPTED_MESSAGE))
        elif empty:  # nothing was generated: say so, and show what was found (below)
            out.append(_notice("unverifiable", EMPTY_ANSWER_MESSAGE))
        elif status == "unverifiable" or answer_status(view.supports) == "unverifiable":
            out.append(_notice("unverifiable", UNVERIFIABLE_MESSAGE))
        if record.generator.name == "extractive":
            out.append(f'<div class="yz-note yz-extractive">{_e(EXTRACTIVE_NOTE)}</div>')
        elif record.generator.name == "check":
            pasted = record.retrieval.get("retrieval") == "pasted sources"
            out.append(f'<div class="yz-note yz-check">{_e(CHECK_PASTED_NOTE if pasted else CHECK_NOTE)}</div>')
        out.append(_sufficiency_notes(record))
        body = _body_html(record.answer_text, view.layout, view.cards, _Verdicts(view))
        out.append(f'<div class="yz-answer-body">{body}</div>')
        out.append(evidence_html(record, cards))
        if empty and status != "interrupted":
            out.append(_found_html(record))
        out.append(panels_html(record, cards, view.verdicts))
        out.append(_links_html(record))
        out.append(_retrieval_html(record))
        out.append(_audit_html([*record.audit, *view.render_audit]))
    out.append("</div>")
    return _sanitize("".join(out))
