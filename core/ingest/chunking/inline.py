"""Inline tokens → chunk text: what a reader sees of a paragraph, heading or cell.

The chunk text is Markdown read by the product dialect (``core.markdown``: the
snapshot renders it, the card snippet strips it), so every visible character of
the source stays and nothing the source did not show appears (issue 24):

* text, with the characters the product dialect would read as markup escaped
  (:func:`escape_literal`), inline code (re-fenced, protected), images (their
  alt text), soft and hard breaks; emphasis markup is dropped and its text kept (the CJK-friendly
  flanking rules of :mod:`core.cjk_emphasis` decide what is emphasis, so
  ``这是**“重要”**内容。`` loses both ``**`` pairs, not one);
* a link to an ``http(s)`` target (inline, reference full / collapsed /
  shortcut) is written as an inline Markdown link ``[text](url)``, so the
  target survives; a link to anything else (a relative path) keeps its text
  only; an autolink keeps its URL as text;
* a link whose text is a bare number (``2.3[1]`` with ``[1]: https://…``) is a
  reference marker: it is written ``[[1]](url)`` (``[1]`` without a web
  target), so a reader sees ``2.3[1]`` and the number never runs into the
  ``1`` (``2.31``);
* a footnote reference ``[^x]`` becomes ``[n]``, n being the footnote's
  number as mdit_py_plugins' footnote plugin counts them (1-based, in order of
  first reference); the note itself is written ``[n] text`` where the
  footnote section is (``core.ingest.chunking.markdown``).

Texts are Unicode code points; the result still holds shortcode placeholders
and soft-break sentinels (resolved by ``HugoContext.finish``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import unquote

from markdown_it.token import Token

from core.ingest.chunking.hugo import HugoContext
from core.ingest.chunking.normalize import SOFTBREAK
from core.markdown import safe_link

_BR_TAG = re.compile(r"<br\s*/?>", re.IGNORECASE)
_TAG_NAME = re.compile(r"</?\s*([A-Za-z][A-Za-z0-9-]*)")
_BARE_NUMBER = re.compile(r"[0-9０-９]+")
_SENTINEL = re.compile("[\ue000-\ue004]")
# Literal text that the product dialect would read as markup: a run of ``*`` / ``_`` that
# could flank emphasis, a backslash before ASCII punctuation.
_LITERAL_MARKUP = re.compile(r"\\(?=[!-/:-@\[-`{-~])|\*+|_+")


def _escape(m: re.Match[str]) -> str:
    run, s = m.group(0), m.string
    before = s[m.start() - 1] if m.start() else " "
    after = s[m.end()] if m.end() < len(s) else " "
    if run[0] != "\\":
        if before.isspace() and after.isspace():
            return run  # "0 0 1 * *": cannot open or close emphasis
        if run[0] == "_" and before.isalnum() and after.isalnum():
            return run  # snake_case: "_" inside a word never flanks
    return "".join("\\" + ch for ch in run)


def escape_literal(text: str) -> str:
    """``text`` (a text token's content) with the characters the product dialect would take
    for markup backslash-escaped: a ``*`` / ``_`` run unless whitespace is on both sides
    (``0 0 1 * *``) or, for ``_``, letters or digits are (``snake_case``); ``\\`` before
    ASCII punctuation. So a delimiter the source showed as text (``Pod**“版本”**``: ``**``
    after a Latin letter cannot open) stays text and never pairs with another one once the
    emphasis around it is gone. The ends of ``text`` count as whitespace."""
    return _LITERAL_MARKUP.sub(_escape, text)


def footnote_caption(token: Token) -> str:
    """``[n]`` for a ``footnote_ref`` / ``footnote_open`` token (n = ``meta["id"] + 1``)."""
    return f"[{int(token.meta.get('id', 0)) + 1}]"


def _link_target(tok: Token) -> str | None:
    """The ``href`` of a ``link_open`` as a Markdown destination, or None when it
    is not an ``http(s)`` URL (or holds a shortcode placeholder)."""
    href = str(tok.attrs.get("href") or "")
    if not safe_link(href) or _SENTINEL.search(unquote(href)):
        return None
    return f"<{href}>" if re.search(r"[\s()<>]", href) else href


def _link(text: str, target: str | None) -> str:
    if _BARE_NUMBER.fullmatch(text.strip()):
        text = f"[{text.strip()}]"
    elif target is not None:
        text = re.sub(r"([\[\]])", r"\\\1", text)
    return f"[{text}]({target})" if target is not None and text.strip() else text


def render_inline(children: Sequence[Token] | None, ctx: HugoContext, *, markdown: bool = True) -> str:
    """Inline tokens → a string still holding shortcode placeholders and
    soft-break sentinels (resolved by ``HugoContext.finish``).

    ``markdown``: the result is chunk text, read as Markdown (literal markup
    characters escaped, links written as links); False for plain text (a heading
    or title: link text only, nothing escaped)."""
    out: list[str] = []
    links: list[tuple[int, str | None]] = []  # (start in out, target) of the open links
    for tok in children or ():
        t = tok.type
        if t == "text":
            text = ctx.decomment(tok.content)
            out.append(escape_literal(text) if markdown else text)
            continue
        if ctx.in_comment:
            continue
        if t == "code_inline":
            content = ctx.restore_raw(tok.content)
            ticks = "``" if "`" in content else "`"
            pad = " " if content.startswith("`") or content.endswith("`") else ""
            out.append(ctx.protect_code(f"{ticks}{pad}{content}{pad}{ticks}"))
        elif t == "softbreak":
            out.append(SOFTBREAK)
        elif t == "hardbreak":
            out.append("\n")
        elif t == "image":
            out.append(tok.content or "")
        elif t == "html_inline":
            out.append(_inline_html(tok.content))
        elif t == "footnote_ref":
            out.append(footnote_caption(tok))
        elif t == "link_open" and markdown:
            links.append((len(out), None if tok.markup == "autolink" else _link_target(tok)))
        elif t == "link_close" and links:
            start, target = links.pop()
            out[start:] = [_link("".join(out[start:]), target)]
        # em/strong open/close: markup dropped, text kept
    return "".join(out)


def _inline_html(content: str) -> str:
    if content.startswith("<!--"):
        return ""
    if _BR_TAG.fullmatch(content.strip()):
        return "\n"
    m = _TAG_NAME.match(content)
    if m and m.group(1).lower() == "sup" and not content.startswith("</"):
        return "^"
    return ""
