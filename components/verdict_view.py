"""Verification verdicts as HTML: marker classes, 待复核 / ⚠ 与来源矛盾 marks, card lines, the highlighted quote.

Pure functions, no Streamlit. Which verdict a marker shows is decided in
``core.verification.verdicts``; this module only draws it. Every text that comes from a
record (reasons, chunk text) is escaped here; ``components.answer_view``
sanitizes the whole fragment afterwards (its allowlist names the classes below).
Offsets are code points into the chunk text.
"""

from __future__ import annotations

import html

from components.static import style
from core.public import CONTRADICTED_LABEL, REVIEW_LABEL, SUPPORTED_LABEL, MarkerVerdict

#: The verdict styles (``components/static/verdict.css``) as a ``<style>`` element; read once at import.
VERDICT_CSS = style("verdict.css")


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def highlight_html(text: str, span: tuple[int, int] | None, *, mark_id: str = "yz-quote") -> str:
    """The whole ``text`` escaped, with ``text[start:end]`` (code points) in ``<mark id=mark_id>``.

    A missing or bad span gives the escaped text without a highlight (never raises).
    Whitespace is kept (the container uses ``white-space: pre-wrap``).
    """
    ok = (
        span is not None
        and isinstance(span[0], int)
        and isinstance(span[1], int)
        and 0 <= span[0] < span[1] <= len(text)
    )
    if not ok:
        return f'<div class="yz-quote-text">{_e(text)}</div>'
    start, end = span  # type: ignore[misc]
    return (
        f'<div class="yz-quote-text">{_e(text[:start])}<mark id="{_e(mark_id)}">{_e(text[start:end])}</mark>'
        f"{_e(text[end:])}</div>"
    )


def sup_class(verdict: MarkerVerdict | None) -> str:
    """The class attribute of a marker's ``<sup>``."""
    if verdict is None or verdict.kind in ("plain", "supported"):
        return "yz-cite"
    return f"yz-cite yz-cite-{verdict.kind}"


def aria_suffix(verdict: MarkerVerdict | None) -> str:
    """Words appended to a marker's aria-label (empty for a plain citation)."""
    if verdict is None or verdict.kind in ("plain", "supported"):
        return ""
    return "（与来源矛盾）" if verdict.kind == "contradicted" else f"（{REVIEW_LABEL}）"


def card_verdict_html(verdict: MarkerVerdict | None) -> str:
    """The verdict line of a source card (empty for an unverified, plain citation)."""
    if verdict is None or verdict.kind == "plain":
        return ""
    if verdict.kind == "supported":
        score = f"（核对得分 {verdict.score:.2f}）" if verdict.score is not None else ""
        return f'<span class="yz-card-verdict yz-card-verdict-supported">{SUPPORTED_LABEL}{score}</span>'
    label = CONTRADICTED_LABEL if verdict.kind == "contradicted" else REVIEW_LABEL
    return (
        f'<span class="yz-card-verdict yz-card-verdict-{verdict.kind}">{_e(label)}：{_e(verdict.reason or "")}</span>'
    )


def slot_marks_html(kinds: set[str], reasons: list[str]) -> str:
    """The marks after a slot's markers: ⚠ 与来源矛盾 and/or 待复核 (reasons as the title)."""
    title = _e("；".join(dict.fromkeys(r for r in reasons if r)))
    out = []
    if "contradicted" in kinds:
        out.append(f'<span class="yz-contradicted" role="note" title="{title}">{_e(CONTRADICTED_LABEL)}</span>')
    if "review" in kinds:
        out.append(f'<span class="yz-review" role="note" title="{title}">{REVIEW_LABEL}</span>')
    return "".join(out)
