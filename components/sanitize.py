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
    "div", "section", "details", "summary", "time", "mark", "button",
}  # fmt: skip
_ATTRIBUTES = {
    "a": {"href", "title", "aria-label", "target"},
    "ol": {"start"},
    "th": {"style"},
    "td": {"style"},
    "span": {"role", "title", "aria-label"},
    "div": {"role", "id", "popover", "aria-label", "data-answer"},
    "button": {"type", "popovertarget", "popovertargetaction", "aria-label"},
    "mark": {"id"},
    "time": {"datetime"},
}
_CLASSES = {
    "a": {"yz-card-link", "yz-origin", "yz-link", "yz-snap-page"},
    "button": {"yz-cite-link", "yz-card-open", "yz-num", "yz-snap-back"},
    "mark": {"yz-quote"},
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
    },
    "section": {"yz-evidence", "yz-links"},
    "details": {"yz-audit", "yz-retrieval", "yz-candidates"},
    "ul": {"yz-evidence-list", "yz-links-list", "yz-audit-list", "yz-candidate-list", "yz-section-list"},
    "li": {"yz-evidence-item", "yz-section"},
    "h4": {"yz-section-title"},
}  # fmt: skip


_SURROGATE = re.compile("[\ud800-\udfff]")


def sanitize(fragment: str) -> str:
    """``fragment`` (HTML) with only the allowlisted tags, attributes, classes and http(s)
    links kept (nh3); a lone surrogate becomes U+FFFD first. Never raises for a ``str``."""
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
