"""The product's Markdown: the markdown-it dialect, the http(s) link check, placeholders.

* :func:`markdown_parser` configures markdown-it (CommonMark, GFM tables, the
  CJK emphasis plugin of :mod:`core.cjk_emphasis`); marker layout, the chat
  page and the export all read Markdown through it, so markers are placed on
  exactly the structure the page shows. :func:`parse_render` parses and renders
  with one shared instance.
* :func:`link_text_only` drops the targets of http(s) links (what search and
  embedding read of a chunk).
* :func:`safe_link` is THE http(s) URL check of the code base: Markdown links,
  source links, recommended links, the corpus base URL and the export use it.
* Placeholders (:func:`placeholder_codes`, :func:`free_placeholder_chars`,
  :func:`insert_at`) stand in for markers while the Markdown is rendered.

Units: every position is a code-point index into the Markdown source (Python
``str`` indices); markdown-it token ``map`` values are line numbers (0-based).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from markdown_it.token import Token

from core.cjk_emphasis import cjk_emphasis_plugin


def safe_link(url: str) -> bool:
    """True for an ``http://`` or ``https://`` URL with a host; False for anything else.

    The one http(s) check of the product (Markdown link allowlist, source and
    recommended links, export). Surrounding whitespace is ignored and the
    scheme is case-insensitive; ``javascript:``, ``data:``, relative URLs,
    ``http:`` without ``//``, a URL without a host (``http://``) and one that
    :func:`urllib.parse.urlsplit` rejects (e.g. ``http://[::1``) are False.
    Never raises for a ``str``.
    """
    u = url.strip()
    if not u.lower().startswith(("http://", "https://")):
        return False
    try:
        return bool(urlsplit(u).netloc)
    except ValueError:
        return False


# A Markdown link to an http(s) target, as the ingest writes them (core.ingest.chunking.inline):
# "[text](url)" or "[text](<url>)", the text holding escapes or one level of brackets ("[[1]]").
_WEB_LINK = re.compile(
    r"\[((?:\\.|[^\[\]\\]|\[[^\[\]]*\])*)\]"
    r"\((?:<https?://[^>\n]*>|https?://[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)\)",
    re.IGNORECASE,
)


def link_text_only(text: str) -> str:
    """``text`` (Markdown) with every ``[text](http(s) URL)`` link replaced by its text
    (``2.3[[1]](https://e.com/r)`` → ``2.3[1]``): what is searched and embedded of a chunk,
    so a URL's words (``ingress-nginx``, ``default``) never match a question. Code points;
    text without ``](`` is returned unchanged."""
    if "](" not in text:
        return text
    return _WEB_LINK.sub(r"\1", text)


#: A bare http(s) URL in text (no linkify: it stays text, and a cut inside it would break it in two).
_BARE_URL = re.compile(r"https?://[^\s<>\[\]()（）“”‘’，。；！？]+", re.IGNORECASE)


def unbreakable_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` code-point spans no chunk cut may fall inside: the ``[text](url)`` web links
    (:func:`web_link_spans`) and bare ``http(s)://`` URLs of ``text``."""
    spans = web_link_spans(text)
    if "://" in text:
        spans += [m.span() for m in _BARE_URL.finditer(text)]
    return spans


def web_link_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` code-point spans of the ``[text](http(s) URL)`` links of ``text``
    (no cut of a chunk may fall inside one)."""
    if "](" not in text:
        return []
    return [m.span() for m in _WEB_LINK.finditer(text)]


def markdown_parser() -> MarkdownIt:
    """A new markdown-it instance with the product's Markdown dialect.

    CommonMark plus GFM tables; raw HTML off (it stays literal text); no
    strikethrough, math, emoji shortcodes, linkify or typographer; the
    ``reference`` rule (link reference definitions) and images disabled; links
    only to ``http(s)`` URLs; emphasis next to CJK punctuation works
    (``这是**“重要”**内容。``, :mod:`core.cjk_emphasis`). Marker layout and
    rendering both use it, so markers are placed on exactly the structure the page shows.
    """
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.use(cjk_emphasis_plugin)
    md.enable("table")
    md.disable(["reference", "image"])
    md.validateLink = safe_link  # type: ignore[method-assign]
    return md


_MD = markdown_parser()


def parse_render(text: str) -> tuple[list[Token], str]:
    """Tokens and HTML of ``text`` in the product dialect (one shared parser instance)."""
    tokens = _MD.parse(text)
    return tokens, _MD.renderer.render(tokens, _MD.options, {})


# Placeholder characters: Unicode category So (markdown-it treats them as
# punctuation for emphasis flanking, so `**A。**` + placeholder still closes).
_POOL: tuple[str, ...] = tuple(ch for ch in map(chr, range(0x1F000, 0x1F100)) if unicodedata.category(ch) == "So")


def placeholder_codes(text: str, count: int) -> list[str]:
    """``count`` distinct, equal-length placeholder strings whose characters never occur in ``text``.

    Returns ``[]`` when ``count`` is 0; raises ``ValueError`` when ``text``
    contains every pool character (then no placeholder can be used).
    """
    if count <= 0:
        return []
    present = set(text)
    pool = [c for c in _POOL if c not in present]
    if not pool:
        raise ValueError("no placeholder character is free in this text")
    width = 1
    while len(pool) ** width < count:
        width += 1
    codes = []
    for k in range(count):
        digits = []
        for _ in range(width):
            k, r = divmod(k, len(pool))
            digits.append(pool[r])
        codes.append("".join(digits))
    return codes


def free_placeholder_chars(text: str) -> str:
    """All placeholder characters that do not occur in ``text`` (for stripping/matching)."""
    present = set(text)
    return "".join(c for c in _POOL if c not in present)


def insert_at(text: str, inserts: Sequence[tuple[int, str]]) -> str:
    """Insert strings at code-point positions of ``text`` (positions distinct, any order)."""
    out: list[str] = []
    prev = 0
    for pos, s in sorted(inserts):
        out.append(text[prev:pos])
        out.append(s)
        prev = pos
    out.append(text[prev:])
    return "".join(out)


__all__ = [
    "free_placeholder_chars",
    "insert_at",
    "link_text_only",
    "unbreakable_spans",
    "web_link_spans",
    "markdown_parser",
    "parse_render",
    "placeholder_codes",
    "safe_link",
]
