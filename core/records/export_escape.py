"""The one escaping path of the exports: what any text of a record may become in a Markdown or JSON file.

Every text of a record is untrusted (model output, 核查 text, quoted documents, titles, file names...).
The Markdown export (:mod:`core.records.export`) must be as safe as the page in *any* CommonMark renderer, which,
unlike the product dialect (:func:`core.markdown.markdown_parser`), may allow raw HTML, images, link
reference definitions and links of any scheme:

* :func:`core.controls.clean_controls` - every control character but tab and line endings (C0, DEL, C1), every
  bidi embedding/override/isolate (U+202A-U+202E, U+2066-U+2069) and every lone surrogate becomes
  U+FFFD, one code point for one, so code-point offsets stay valid.
* :func:`escape_text` - one line of untrusted text as inert Markdown (markdownify's escape:
  backslash before ``[ ] < > & ` ~ = + | \\ * _`` and line-leading ``#``, ``-``, list numbers).
* :func:`safe_url` - ``<url>`` for an http(s) URL (:func:`core.markdown.safe_link`), else None.
* :func:`answer_body` - the answer's own Markdown with its markers. It is written as it stands when
  it is :func:`inert` (it renders, in CommonMark with raw HTML on and with footnotes, to no raw HTML,
  no image and exactly the links the page shows); otherwise as the page shows it: the product
  dialect's HTML turned back into Markdown by markdownify (text escaped, http(s) links only, code
  fenced with a fence longer than any backtick run inside); if even that is not inert, every line
  of the answer escaped as text.
* :func:`json_text` - JSON keeps every value exactly (it is the exchange format; field names are
  the record's), but what is not safe to carry raw is written as a ``\\uXXXX`` escape: control
  characters (``json`` does C0 itself), lone surrogates (not UTF-8), U+2028/U+2029 (line breaks for
  JavaScript) and bidi controls. HTML-looking text stays as it is: JSON is data, a reader of it
  escapes what it shows.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markdownify import MarkdownConverter
from mdit_py_plugins.footnote import footnote_plugin

from core.controls import CONTROLS as _CONTROLS
from core.controls import clean_controls
from core.markdown import insert_at, parse_render, placeholder_codes, safe_link

_JSON_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


class _Converter(MarkdownConverter):
    """markdownify for the export: http(s) links in ``<…>``, code fenced safely, no images."""

    def convert_a(self, el, text, parent_tags):  # noqa: ANN001, ANN201 - markdownify's signature
        url = safe_url(el.get("href"))
        return f"[{text}]({url})" if url and text.strip() else text

    def convert_img(self, el, text, parent_tags):  # noqa: ANN001, ANN201
        return self.escape(el.get("alt") or "", parent_tags)

    def convert_pre(self, el, text, parent_tags):  # noqa: ANN001, ANN201
        if not text:
            return ""
        fence = "`" * max(3, 1 + max((len(r) for r in re.findall("`+", text)), default=0))
        return f"\n\n{fence}\n{text.rstrip(chr(10))}\n{fence}\n\n"


_ESCAPER = _Converter(escape_misc=True, escape_asterisks=True, escape_underscores=True)
_TO_MD = _Converter(heading_style="ATX", bullets="-", escape_misc=True, escape_asterisks=True, escape_underscores=True)


def escape_text(text: str) -> str:
    """``text`` as inert Markdown inline text on one line (controls cleaned, whitespace runs,
    newlines included, become one space; Markdown syntax is backslash-escaped)."""
    return _ESCAPER.escape(re.sub(r"\s+", " ", clean_controls(text)).strip(), set())


def _escape_lines(text: str) -> str:
    """Every line of ``text`` escaped as text (line breaks kept as paragraph-internal breaks)."""
    return "\n".join(_ESCAPER.escape(line, set()) for line in text.split("\n"))


def safe_url(url: str | None) -> str | None:
    """``<url>`` for an http(s) URL with a host (:func:`core.markdown.safe_link`; spaces,
    ``<``, ``>``, controls and other unsafe characters percent-encoded), else None."""
    if not url or not safe_link(url):
        return None
    return "<" + quote(url.strip(), safe=":/?#[]@!$&'()*+,;=%~") + ">"


def _permissive(md: MarkdownIt) -> MarkdownIt:
    """``md`` accepting a link of any scheme (markdown-it refuses ``javascript:``; other renderers do not)."""
    md.validateLink = lambda url: True  # type: ignore[method-assign]
    return md


_GENERIC = (_permissive(MarkdownIt("commonmark")), _permissive(MarkdownIt("commonmark").use(footnote_plugin)))


def _links(tokens: Sequence[Token]) -> list[str] | None:
    """The hrefs of ``tokens`` (nested), or None when one is raw HTML or an image."""
    out: list[str] = []
    for t in tokens:
        if t.type in ("html_block", "html_inline", "image"):
            return None
        if t.type == "link_open":
            out.append(str(t.attrGet("href")))
        if t.children:
            inner = _links(t.children)
            if inner is None:
                return None
            out += inner
    return out


def inert(markdown: str) -> bool:
    """True when ``markdown`` renders, in CommonMark (raw HTML on, images, references, any link
    scheme) with and without the footnote plugin, to no raw HTML, no image and exactly the links
    (all http(s)) that the product dialect renders; False otherwise."""
    page = _links(parse_render(markdown)[0])
    if page is None or not all(safe_link(h) for h in page) or _CONTROLS.search(markdown):
        return False
    for md in _GENERIC:
        links = _links(md.parse(markdown))
        if links is None or sorted(links) != sorted(page):
            return False
    return True


def answer_body(text: str, marks: Sequence[tuple[int, str, bool]]) -> str:
    """The answer Markdown ``text`` with its markers, safe to export (see the module docstring).

    ``marks``: ``(position, markdown, own_line)`` - ``markdown`` (already safe, e.g. ``[^1]`` and
    escaped verdict words) goes at code-point ``position`` of ``text``; ``own_line`` puts it on a
    line of its own (after a code block or table). A ``(``, ``[`` or ``:`` right after a marker is
    backslash-escaped, so that a marker never becomes a link or a definition with the text after it.
    Recent results are cached (the chat page builds both copy texts of every answer on each run).
    """
    return _answer_body(text, tuple(marks))


@functools.lru_cache(maxsize=256)
def _answer_body(text: str, marks: tuple[tuple[int, str, bool], ...]) -> str:
    text = clean_controls(text)
    merged: dict[int, list[tuple[str, bool]]] = {}
    for pos, md, own in marks:
        merged.setdefault(pos, []).append((md, own))
    codes = placeholder_codes(text, len(merged))
    filled: dict[str, str] = {}
    inserts = []
    for code, (pos, group) in zip(codes, sorted(merged.items())):
        filled[code] = "".join(md for md, _ in group)
        inserts.append((pos, f"\n{code}\n" if any(own for _, own in group) else code))
    coded = insert_at(text, inserts)

    def fill(md: str) -> str:
        for code, mark in filled.items():
            md = re.sub(re.escape(code) + r"(?=([(\[:]?))", lambda m, mark=mark: mark + "\\" * bool(m.group(1)), md)
        return md

    for candidate in (
        lambda: coded,
        lambda: _TO_MD.convert(parse_render(coded)[1]).strip("\n") + "\n",
        lambda: _escape_lines(coded),
    ):
        out = fill(candidate())
        if inert(out):
            return out
    return fill(_escape_lines(coded))


def json_text(data: Any, *, indent: int | None = 2) -> str:
    """``data`` (JSON-ready: dicts, lists, str, numbers, None) as JSON text that keeps every value
    exactly; control characters, DEL/C1, lone surrogates, U+2028/U+2029 and bidi controls are
    written as ``\\uXXXX`` escapes (a lone surrogate only so can be written as UTF-8)."""
    out = json.dumps(data, ensure_ascii=False, indent=indent)
    # outside strings JSON has only ASCII, so every such character is inside a string
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", out)


__all__ = ["answer_body", "clean_controls", "escape_text", "inert", "json_text", "safe_url"]
