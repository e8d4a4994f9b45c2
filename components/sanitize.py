"""The HTML sanitizer of the answer view: nh3 with an allowlist of our own tags, attributes and classes.

Every HTML fragment the chat page shows goes through :func:`sanitize` last; text
was already escaped by markdown-it or ``html.escape``, so this is a safety net.
A new class in ``components/static/*.css`` that the answer HTML uses must be
added to :data:`_CLASSES`, or nh3 strips it.
"""

from __future__ import annotations

import re

import nh3

_TAGS = {
    "a", "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "code", "pre",
    "blockquote", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td", "sup", "span",
    "div", "section", "details", "summary", "time", "mark", "button", "img",
}  # fmt: skip
_ATTRIBUTES = {
    "a": {"href", "title", "aria-label", "target"},
    "ol": {"start"},
    "th": {"style"},
    "td": {"style"},
    "span": {"role", "title", "aria-label"},
    "div": {"role", "id", "popover", "aria-label", "data-answer"},
    "button": {"type", "popovertarget", "popovertargetaction", "aria-label"},
    "mark": {"id", "style"},
    "img": {"src", "alt"},
    "time": {"datetime"},
}
_CLASSES = {
    "a": {"yz-card-link", "yz-origin", "yz-link", "yz-snap-page"},
    "button": {"yz-cite-link", "yz-card-open", "yz-num", "yz-snap-back"},
    "mark": {"yz-quote", "yz-pdf-box"},
    "img": {"yz-pdf-img"},
    "sup": {"yz-cite", "yz-cite-review", "yz-cite-contradicted"},
    "span": {
        "yz-card", "yz-card-title", "yz-card-path", "yz-card-snippet", "yz-card-meta",
        "yz-badge", "yz-badge-updated", "yz-badge-deleted", "yz-unsupported", "yz-num",
        "yz-path", "yz-snippet", "yz-meta", "yz-link-kind", "yz-evidence-head", "yz-domain",
        "yz-review", "yz-contradicted", "yz-card-verdict", "yz-card-verdict-review",
        "yz-card-verdict-contradicted", "yz-card-verdict-supported", "yz-card-quote", "yz-quote-label",
        "yz-card-actions", "yz-snap-num", "yz-snap-title", "yz-snap-path", "yz-evidence-title",
    },
    "div": {
        "yz-answer", "yz-answer-body", "yz-notice", "yz-error", "yz-unverifiable", "yz-blocked", "yz-interrupted",
        "yz-no-evidence", "yz-note", "yz-extractive", "yz-check", "yz-query", "yz-mode", "yz-after-block",
        "yz-orphans", "yz-keyword-mode", "yz-uncovered", "yz-hint",
        "yz-snap-pop", "yz-snap-bar", "yz-snap-head", "yz-snap-caption", "yz-snap-md", "yz-snap-meta", "yz-quote-text",
        "yz-pdf", "yz-pdf-page", "yz-pdf-label", "yz-pdf-frame", "yz-pdf-note",
    },
    "section": {"yz-evidence", "yz-links"},
    "details": {"yz-audit", "yz-retrieval", "yz-candidates", "yz-pdf-text"},
    "ul": {"yz-evidence-list", "yz-links-list", "yz-audit-list", "yz-candidate-list", "yz-section-list"},
    "li": {"yz-evidence-item", "yz-section"},
    "h4": {"yz-section-title"},
    "h3": {"yz-snap-heading"},
}  # fmt: skip


_SURROGATE = re.compile("[\ud800-\udfff]")
#: The one data URI kept: a PDF page image (``components.pdf_view``), as an ``<img src>``.
_PAGE_IMAGE = "data:image/png;base64,"
_BOX_STYLE = re.compile(r"(?:(?:left|top|width|height):\d{1,3}(?:\.\d+)?%;?){4}")


def _attribute(element: str, attribute: str, value: str) -> str | None:
    """nh3's attribute filter: ``data:`` only as a page image's ``src``; ``style`` on ``mark``
    only as a PDF box's position (percentages); everything else as the allowlist left it."""
    if element == "img" and attribute == "src":
        return value if value.startswith(_PAGE_IMAGE) else None
    if value.lstrip().lower().startswith("data:"):
        return None
    if element == "mark" and attribute == "style":
        return value if _BOX_STYLE.fullmatch(value.replace(" ", "")) else None
    return value


def sanitize(fragment: str) -> str:
    """``fragment`` (HTML) with only the allowlisted tags, attributes, classes and http(s)
    links kept (nh3; a PNG data URI only as an ``<img src>``, see ``_attribute``); a lone
    surrogate becomes U+FFFD first. Never raises for a ``str``."""
    # a lone surrogate (possible in JSON-decoded text) cannot cross into nh3 (Rust UTF-8)
    fragment = _SURROGATE.sub("\ufffd", fragment)
    return nh3.clean(
        fragment,
        tags=_TAGS,
        attributes=_ATTRIBUTES,
        allowed_classes=_CLASSES,
        attribute_filter=_attribute,
        url_schemes={"http", "https", "data"},
        filter_style_properties={"text-align", "left", "top", "width", "height"},
        strip_comments=True,
    )
