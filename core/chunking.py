"""Markdown (Hugo flavoured, Chinese) → one ``SourceDocument`` and its ``Chunk`` list.

The one public entry point is :func:`parse_markdown`. It parses with
markdown-it-py (CommonMark + tables + ``mdit_py_plugins.front_matter``), never by
line prefixes, so ``#`` lines inside code and English headings inside HTML
comments can never become headings.

Pipeline
--------
1. Sanitize: a leading UTF-8 BOM is dropped (so ``\\ufeff---`` still opens front
   matter), line ends become ``\\n``, and the five private-use code points used
   internally as sentinels (U+E000..U+E004) are replaced by U+FFFD.
2. Every Hugo shortcode (``{{< … >}}``, ``{{% … %}}``, also escaped
   ``{{</* … */>}}``, also spanning lines) is swapped for an opaque placeholder
   **before** Markdown parsing, so shortcodes inside link destinations and HTML
   attributes cannot break the parse. Inside code (fences, indented code, inline
   code spans) the placeholder is restored to the original text verbatim.
3. The token stream is walked in document order. HTML comments (``html_block``
   and ``html_inline``) are dropped; other raw HTML becomes plain text; entities
   are decoded; soft line breaks are joined without a space between CJK
   characters / CJK punctuation and with one space otherwise; code fences are
   kept as fenced Markdown; tables become pipe-table text; lists keep their
   ``-`` / ``1.`` markers; links keep their text (URLs are dropped). Content
   nested deeper than markdown-it's ``maxNesting`` (20) is flattened into plain
   paragraphs instead of being skipped (:class:`_FlatteningBlockParser`).
4. Shortcodes are rendered as the site shows them (see :data:`HEADING_I18N`,
   :data:`ADMONITION_LABELS`; ``comment`` and ``mermaid`` bodies are dropped;
   variables such as ``param``/``skew`` and includes are dropped).
5. Each heading starts a section; sections are split into chunks of at most
   ``max_chars`` code points and small consecutive blocks of one section are
   merged up to :data:`SOFT_TARGET_CHARS`.

Normalized document text
------------------------
The *normalized document text* of a document is ``"\\n\\n".join(chunk.text for
chunk in chunks)`` (see :func:`normalized_text`). ``Chunk.char_start`` /
``char_end`` are 0-based, end-exclusive **code-point** offsets of each chunk's
text in it. ``SourceDocument.version`` is the first 16 hex digits of the SHA-256
of a canonical JSON serialization of the title and, in order, every chunk's
heading path, anchor and text (see :func:`document_version`).

Errors
------
``parse_markdown`` raises :class:`core.errors.IngestError` (message names the
``source_id``) only for input that cannot be processed at all: a non-``str``
text, a string holding unpaired surrogates, an empty ``source_id``, or an
unexpected internal failure. Invalid YAML front matter is *not* an error: the
body is still parsed and the title falls back to the H1 / file stem.
It raises ``ValueError`` for a ``max_chars`` below :data:`MIN_MAX_CHARS`.
"""

from __future__ import annotations

import html
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from html.parser import HTMLParser
from pathlib import PurePosixPath
from typing import Any

import yaml
from markdown_it import MarkdownIt
from markdown_it.parser_block import ParserBlock
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from core.errors import IngestError
from core.models import Chunk, Scalar, SourceDocument, make_chunk_id, sha256_hex

__all__ = [
    "ADMONITION_LABELS",
    "HEADING_I18N",
    "MAX_CHUNK_CHARS",
    "MIN_MAX_CHARS",
    "NORMALIZED_JOINER",
    "SOFT_TARGET_CHARS",
    "document_version",
    "normalized_text",
    "parse_front_matter",
    "parse_markdown",
]

#: Hard upper bound on ``len(chunk.text)``, in Unicode **code points**.
#: The default embedder, ``intfloat/multilingual-e5-small``, has a maximum
#: sequence length of 512 tokens (XLM-R SentencePiece vocabulary). Every token
#: covers at least one character, so a text of at most 510 code points can never
#: exceed 512 tokens including the two special tokens (``<s>``, ``</s>``).
#: 500 leaves room for SentencePiece's leading "▁" piece and e5's 9-code-point
#: ``"passage: "`` prefix (500 + 9 + 1 + 2 = 512), so nothing is ever truncated.
#: Real Chinese text tokenizes to far fewer tokens than characters.
MAX_CHUNK_CHARS = 500

#: Soft target (code points): tiny consecutive blocks of the *same* section are
#: merged while the result stays at or below this size; oversized blocks are cut
#: into pieces of about this size.
SOFT_TARGET_CHARS = 350

#: Smallest accepted ``max_chars`` (code points); a fenced code piece needs room
#: for its fence lines.
MIN_MAX_CHARS = 40

#: A block shorter than this (code points) is merged with the next block of its
#: section even when the merged text exceeds the soft target (up to ``max_chars``).
_MIN_STANDALONE_CHARS = 100

#: Separator between chunk texts in the normalized document text.
NORMALIZED_JOINER = "\n\n"

#: ``{{% heading "x" %}}`` → the zh-cn site's i18n string.
HEADING_I18N: dict[str, str] = {
    "prerequisites": "准备开始",
    "whatsnext": "接下来",
    "objectives": "教程目标",
    "cleanup": "清理现场",
    "synopsis": "简介",
    "options": "选项",
    "seealso": "另请参见",
    "envvars": "环境变量",
}

#: Admonition shortcodes → the label the zh-cn site renders before their body.
ADMONITION_LABELS: dict[str, str] = {
    "note": "说明：",
    "caution": "注意：",
    "warning": "警告：",
}
_ALERT_TITLES = {"note": "说明：", "caution": "注意：", "warning": "警告："}

# Shortcodes whose whole body (up to the closing tag) is hidden / not text.
_SKIP_BODY = frozenset({"comment", "mermaid"})

# Private-use sentinels (input occurrences are replaced by U+FFFD first).
_SOFTBREAK = "\ue000"
_CODE_OPEN, _CODE_CLOSE = "\ue001", "\ue002"
_SC_OPEN, _SC_CLOSE = "\ue003", "\ue004"
_SENTINELS = re.compile("[\ue000-\ue004]")
_SC_PLACEHOLDER = re.compile(_SC_OPEN + r"(\d+)" + _SC_CLOSE)
_CODE_PLACEHOLDER = re.compile(_CODE_OPEN + r"(\d+)" + _CODE_CLOSE)

# A shortcode: {{< … >}} or {{% … %}}; the body never holds a blank line or a
# code-fence line and is at most 4000 characters, so a stray "{{<" in code
# cannot swallow the document.
_SHORTCODE = re.compile(
    r"(?:\{\{|\{(?=<\s*/?\s*[A-Za-z]))"  # "{<" is a typo seen in the corpus
    r"(?:<(?P<a>(?:(?!\n[ \t]*\n)(?!\n[ \t]*(?:```|~~~))[^\x00]){0,4000}?)>\}\}"
    r"|%(?P<b>(?:(?!\n[ \t]*\n)(?!\n[ \t]*(?:```|~~~))[^\x00]){0,4000}?)%\}\})",
    re.DOTALL,
)
_SC_HEAD = re.compile(r"\s*(?P<close>/)?\s*(?P<name>[A-Za-z_][\w.-]*)(?P<rest>.*)", re.DOTALL)
_SC_ARG = re.compile(
    r"\s*(?:(?P<key>[A-Za-z_][\w-]*)\s*=\s*)?"
    r"(?P<val>\"(?:[^\"\\]|\\.)*\"|'[^']*'|`[^`]*`|[^\s\"'`=]+)",
    re.DOTALL,
)
_HEADING_ID = re.compile(r"[ \t]*\{[ \t]*#(?P<id>[^\s{}]+)[^{}]*\}[ \t]*$")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
# An escaped shortcode quoted in a heading ("### `{{</* note */>}}`") → its words.
_ESCAPED_SC_TEXT = re.compile(r"\{\{[<%]\s*/\*\s*(.*?)\s*\*/\s*[>%]\}\}", re.DOTALL)
_BROKEN_OPENERS = frozenset({"<!-", "<--", "<!---"})
_SC_BRACES = re.compile(r"^\{\{?[<%]|[>%]\}\}$")
_BR_TAG = re.compile(r"<br\s*/?>", re.IGNORECASE)
_TAG_NAME = re.compile(r"</?\s*([A-Za-z][A-Za-z0-9-]*)")

# One space between two CJK ideographs carries no meaning in Chinese prose.
_IDEOGRAPH = "[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
_CJK_SPACE = re.compile(f"(?<={_IDEOGRAPH}) (?={_IDEOGRAPH})")

_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_md_instance: MarkdownIt | None = None

# Leading blockquote markers of a line flattened past the nesting limit.
_QUOTE_MARKERS = re.compile(r"^(?:[ \t]*>)+[ \t]?")


class _FlatteningBlockParser(ParserBlock):
    """markdown-it's block parser, except that content nested deeper than the
    ``maxNesting`` option (20 in the commonmark preset: 20 blockquotes, or about
    10 nested list levels) is kept as plain paragraphs instead of being skipped.

    markdown-it stops recursing at that depth to bound its (recursive) block
    parse and silently drops everything below it (``parser_block.tokenize``:
    "skip tail to the end"). Here the lines below the limit become one
    paragraph per blank-line-separated group, blockquote markers stripped and
    list markers kept as text, so every word stays searchable. Raising
    ``maxNesting`` instead only moves the limit: each level costs two Python
    frames, so a 1,000-level list would hit the recursion limit.
    """

    def tokenize(self, state: StateBlock, startLine: int, endLine: int) -> None:
        if state.level < state.md.options.maxNesting:
            super().tokenize(state, startLine, endLine)
            return
        line = state.line = state.skipEmptyLines(startLine)
        group: list[int] = []
        while line < endLine:
            empty = state.isEmpty(line)
            if not empty and state.sCount[line] < state.blkIndent:
                break  # the same end as a nested parse (a dedented line)
            if empty:
                self._paragraph(state, group)
                group = []
            else:
                group.append(line)
            line += 1
        self._paragraph(state, group)
        state.line = line

    @staticmethod
    def _paragraph(state: StateBlock, lines: list[int]) -> None:
        if not lines:
            return
        first, last = lines[0], lines[-1] + 1
        raw = state.getLines(first, last, state.blkIndent, False)
        content = "\n".join(_QUOTE_MARKERS.sub("", ln) for ln in raw.split("\n")).strip()
        if not content:
            return
        state.push("paragraph_open", "p", 1).map = [first, last]
        tok = state.push("inline", "", 0)
        tok.content, tok.map, tok.children = content, [first, last], []
        state.push("paragraph_close", "p", -1)


def _md() -> MarkdownIt:
    global _md_instance
    if _md_instance is None:
        md = MarkdownIt("commonmark")
        flat = _FlatteningBlockParser()
        flat.ruler = md.block.ruler  # keep the preset's enabled rules
        md.block = flat
        _md_instance = md.enable("table").use(front_matter_plugin)
    return _md_instance


# --------------------------------------------------------------------------- #
# Characters
# --------------------------------------------------------------------------- #

_CJK_RANGES = (
    (0x2E80, 0x2FDF),
    (0x3000, 0x303F),
    (0x3040, 0x30FF),
    (0x3100, 0x31FF),
    (0x3200, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xA960, 0xA97F),
    (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF),
    (0xFE30, 0xFE4F),
    (0xFF00, 0xFFEF),
    (0x20000, 0x3134F),
)
_CJK_PUNCT_RANGES = (
    (0x3000, 0x303F),
    (0xFE30, 0xFE4F),
    (0xFF00, 0xFF0F),
    (0xFF1A, 0xFF20),
    (0xFF3B, 0xFF40),
    (0xFF5B, 0xFF65),
)
# Used both in Chinese and Latin text; joined without a space next to CJK.
_NEUTRAL = frozenset("“”‘’—…·")


def _in(ch: str, ranges: tuple[tuple[int, int], ...]) -> bool:
    o = ord(ch)
    return any(lo <= o <= hi for lo, hi in ranges)


def _is_cjk(ch: str) -> bool:
    return _in(ch, _CJK_RANGES)


def _is_cjk_punct(ch: str) -> bool:
    return _in(ch, _CJK_PUNCT_RANGES)


def _join_without_space(left: str, right: str) -> bool:
    if not left or not right:
        return True
    if _is_cjk_punct(left) or _is_cjk_punct(right):
        return True
    lc = _is_cjk(left) or left in _NEUTRAL
    rc = _is_cjk(right) or right in _NEUTRAL
    return lc and rc and (_is_cjk(left) or _is_cjk(right))


# --------------------------------------------------------------------------- #
# Front matter
# --------------------------------------------------------------------------- #


def _sanitize(text: str) -> str:
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _SENTINELS.sub("\ufffd", text)


def parse_front_matter(text: str) -> tuple[dict[str, Any], str | None]:
    """The YAML front matter of a Markdown text, found by markdown-it.

    Returns ``(mapping, error)``: the parsed mapping (empty when there is no
    front matter or it is not a mapping) and ``None``, or ``({}, message)`` when
    the YAML is invalid. A leading BOM is ignored. Never raises.
    """
    src = _sanitize(text)
    if not src.startswith("-"):
        return {}, None
    md = MarkdownIt("zero").use(front_matter_plugin)
    tokens = md.parse(src)
    if not tokens or tokens[0].type != "front_matter":
        return {}, None
    return _load_yaml(tokens[0].content)


def _load_yaml(content: str) -> tuple[dict[str, Any], str | None]:
    try:
        data = yaml.load(content, Loader=_YAML_LOADER) if content.strip() else {}
    except Exception as exc:  # noqa: BLE001 - any YAML failure is lenient
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return {}, f"invalid YAML front matter: {first}"
    if not isinstance(data, dict):
        return {}, None
    return {str(k): v for k, v in data.items()}, None


def _as_datetime(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, date):
        dt = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    else:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def _jsonable(value: Any) -> Any:
    """``value`` with mapping keys as text and dates as ISO 8601 text (for ``json.dumps``)."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(_jsonable(k)): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value if value is None or isinstance(value, str | int | float | bool) else str(value)


def _scalar_metadata(fm: Mapping[str, Any]) -> dict[str, Scalar]:
    """Front matter as scalar metadata (Chroma and ``SourceDocument`` hold scalars only).

    bool/int/float are kept, strings stripped, dates become ISO 8601 text.
    Lists and mappings (``pages: [3, 4]``, ``tags: [网络, 服务]``) become JSON
    text (``"[3, 4]"``, ``'["网络", "服务"]'``; non-ASCII kept, dates as ISO
    text) so a source card can show them. ``null`` values are dropped on
    purpose: YAML ``null`` / an empty value means "not set", and an absent key
    says the same. Anything else becomes ``str(value)``.
    """
    out: dict[str, Scalar] = {}
    for k, v in fm.items():
        if v is None:
            continue
        if isinstance(v, bool | int | float):
            out[k] = v
        elif isinstance(v, str):
            out[k] = v.strip()
        elif isinstance(v, datetime | date):
            out[k] = v.isoformat()
        elif isinstance(v, list | tuple | dict):
            out[k] = json.dumps(_jsonable(v), ensure_ascii=False)
        else:
            out[k] = str(v)
    return out


# --------------------------------------------------------------------------- #
# Shortcodes
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class _Shortcode:
    raw: str
    name: str
    closing: bool
    escaped: bool
    args: tuple[str, ...]
    kwargs: tuple[tuple[str, str], ...]

    def kw(self, key: str) -> str | None:
        for k, v in self.kwargs:
            if k == key:
                return v
        return None


def _unquote(val: str) -> str:
    if len(val) >= 2 and val[0] == val[-1] and val[0] in "\"'`":
        inner = val[1:-1]
        if val[0] == '"':
            inner = re.sub(r"\\(.)", r"\1", inner)
        return inner
    return val


def _parse_shortcode(raw: str, body: str) -> _Shortcode:
    body = body.replace(_SOFTBREAK, " ")
    escaped = body.startswith("/*") and body.endswith("*/")
    if escaped:
        body = body[2:-2]
    m = _SC_HEAD.match(body)
    if not m:
        return _Shortcode(raw, "", False, escaped, (), ())
    rest = m.group("rest").strip()
    if rest.endswith("/"):
        rest = rest[:-1]
    args: list[str] = []
    kwargs: list[tuple[str, str]] = []
    for am in _SC_ARG.finditer(rest):
        val = _unquote(am.group("val"))
        if am.group("key"):
            kwargs.append((am.group("key"), val))
        else:
            args.append(val)
    return _Shortcode(
        raw, m.group("name").lower(), bool(m.group("close")), escaped, tuple(args), tuple(kwargs)
    )


def _extract_shortcodes(src: str) -> tuple[str, list[_Shortcode]]:
    found: list[_Shortcode] = []

    def repl(m: re.Match[str]) -> str:
        body = m.group("a") if m.group("a") is not None else m.group("b")
        found.append(_parse_shortcode(m.group(0), body))
        return f"{_SC_OPEN}{len(found) - 1}{_SC_CLOSE}"

    return _SHORTCODE.sub(repl, src), found


# --------------------------------------------------------------------------- #
# Rendering state
# --------------------------------------------------------------------------- #


@dataclass
class _Block:
    text: str
    joiner: str = "\n\n"
    kind: str = "text"  # text | code | table
    sticky: bool = False  # belongs with the next block (a label, caption, tab name)
    fence: tuple[str, str] = ("", "")  # (opening line, closing line) for code


@dataclass
class _Section:
    path: tuple[str, ...]
    anchor: str | None
    blocks: list[_Block] = field(default_factory=list)


@dataclass
class _Ctx:
    shortcodes: list[_Shortcode]
    glossary: Mapping[str, str]
    skip: list[str] = field(default_factory=list)  # open comment/mermaid bodies
    code: list[str] = field(default_factory=list)  # protected inline code
    in_comment: bool = False  # inside an HTML comment that spans blocks
    in_heading: bool = False

    def decomment(self, s: str) -> str:
        """Drop HTML comment text from ``s``, carrying an unclosed ``<!--``
        over to the following text (comments that markdown-it split across
        blocks because they hold a blank line inside an HTML block)."""
        if not self.in_comment:
            bare = s.strip()
            if bare in _BROKEN_OPENERS:  # "<!-" / "<--" typos alone on a line
                self.in_comment = True
                return ""
            if bare == "-->":  # a stray closer left by a broken comment
                return ""
        out: list[str] = []
        pos = 0
        while True:
            if self.in_comment:
                j = s.find("-->", pos)
                if j < 0:
                    return "".join(out)
                pos = j + 3
                self.in_comment = False
            else:
                j = s.find("<!--", pos)
                if j < 0:
                    out.append(s[pos:])
                    return "".join(out)
                out.append(s[pos:j])
                pos = j + 4
                self.in_comment = True

    def restore_raw(self, s: str) -> str:
        """Placeholders → original shortcode text (used inside code)."""
        if _SC_OPEN not in s:
            return s
        return _SC_PLACEHOLDER.sub(lambda m: self.shortcodes[int(m.group(1))].raw, s)

    def protect_code(self, s: str) -> str:
        self.code.append(s)
        return f"{_CODE_OPEN}{len(self.code) - 1}{_CODE_CLOSE}"

    # -- shortcode rendering -------------------------------------------------

    def render_shortcode(self, sc: _Shortcode) -> str:
        if sc.escaped:
            if self.in_heading:  # a heading names the shortcode: keep its words
                return _SC_BRACES.sub("", sc.raw).replace("/*", "").replace("*/", "").strip()
            # A literal example shown on the site: keep it, as inline code.
            literal = (
                sc.raw.replace("{{</*", "{{<").replace("*/>}}", ">}}")
                .replace("{{%/*", "{{%").replace("*/%}}", "%}}")
            )
            return self.protect_code(f"`{literal}`")
        name = sc.name
        if sc.closing:
            return ""
        if name == "glossary_tooltip":
            text = sc.kw("text")
            if text:
                return text
            term = sc.kw("term_id") or (sc.args[0] if sc.args else "")
            return self.glossary.get(term, term)
        if name in ADMONITION_LABELS:
            return ADMONITION_LABELS[name]
        if name == "alert":
            title = (sc.kw("title") or "").strip()
            return _ALERT_TITLES.get(title.lower(), f"{title}：" if title else "说明：")
        if name == "heading":
            key = sc.args[0] if sc.args else ""
            return HEADING_I18N.get(key, key)
        if name == "feature-state":
            parts = [p for p in (sc.kw("for_k8s_version"), sc.kw("state")) if p]
            return ("特性状态: " + " ".join(parts)) if parts else ""
        if name == "table":
            caption = (sc.kw("caption") or "").strip()
            return f"{caption}：" if caption else ""
        if name == "tab":
            tab = (sc.kw("name") or "").strip()
            return f"{tab}：" if tab else ""
        if name == "figure":
            alt, cap = sc.kw("alt") or "", sc.kw("caption") or ""
            if alt and cap and alt != cap:
                return f"{alt}（{cap}）"
            return cap or alt
        if name == "link":
            return sc.kw("text") or ""
        # param, skew, latest-version, include, codenew, example, version-check,
        # glossary_definition, thirdparty-content, ref, api-reference, tabs, toc…
        return ""

    def apply(self, s: str) -> str:
        """Render the shortcode placeholders of ``s``; drop skipped bodies."""
        if _SC_OPEN not in s:
            return "" if self.skip else s
        out: list[str] = []
        pos = 0
        for m in _SC_PLACEHOLDER.finditer(s):
            if not self.skip:
                out.append(s[pos : m.start()])
            pos = m.end()
            sc = self.shortcodes[int(m.group(1))]
            if sc.name in _SKIP_BODY and not sc.escaped:
                if sc.closing:
                    if self.skip and self.skip[-1] == sc.name:
                        self.skip.pop()
                    elif sc.name in self.skip:
                        while self.skip and self.skip.pop() != sc.name:
                            pass
                else:
                    self.skip.append(sc.name)
                continue
            if not self.skip:
                out.append(_HTML_COMMENT.sub("", self.render_shortcode(sc)))
        if not self.skip:
            out.append(s[pos:])
        return "".join(out)

    def finish(self, s: str, *, single_line: bool = False) -> str:
        """Shortcodes → text, soft breaks joined, whitespace tidied, code restored."""
        s = self.apply(s)
        if not s:
            return ""
        s = s.replace("\u00a0", " ")
        s = _resolve_softbreaks(s)
        s = re.sub(r"[ \t]{2,}", " ", s)
        s = re.sub(r"[ \t]+(?=[，。；：！？、）」』】])", "", s)
        s = _CJK_SPACE.sub("", s)
        s = re.sub(r"[ \t]*\n[ \t]*", "\n", s)
        s = re.sub(r"\n{3,}", "\n\n", s)
        if single_line:
            s = re.sub(r"\s*\n\s*", " ", s)
        s = s.strip()
        if _CODE_OPEN in s:
            s = _CODE_PLACEHOLDER.sub(lambda m: self.code[int(m.group(1))], s)
        return s


def _resolve_softbreaks(s: str) -> str:
    if _SOFTBREAK not in s:
        return s

    def visible(ch: str) -> str:
        # protected code counts as Latin text
        return "a" if ch in (_CODE_OPEN, _CODE_CLOSE) else ch

    pieces = s.split(_SOFTBREAK)
    acc = pieces[0]
    for piece in pieces[1:]:
        acc = acc.rstrip(" \t")
        right = piece.lstrip(" \t")
        lc = visible(acc[-1]) if acc else ""
        rc = visible(right[0]) if right else ""
        if lc == "\n" or rc == "\n" or _join_without_space(lc, rc):
            acc += right
        else:
            acc += " " + right
    return acc


# --------------------------------------------------------------------------- #
# Inline rendering
# --------------------------------------------------------------------------- #


def _render_inline(children: Sequence[Token] | None, ctx: _Ctx) -> str:
    """Inline tokens → a string still holding shortcode placeholders and
    soft-break sentinels (resolved by ``_Ctx.finish``)."""
    out: list[str] = []
    for tok in children or ():
        t = tok.type
        if t == "text":
            out.append(ctx.decomment(tok.content))
            continue
        if ctx.in_comment:
            continue
        if t == "code_inline":
            content = ctx.restore_raw(tok.content)
            ticks = "``" if "`" in content else "`"
            pad = " " if content.startswith("`") or content.endswith("`") else ""
            out.append(ctx.protect_code(f"{ticks}{pad}{content}{pad}{ticks}"))
        elif t == "softbreak":
            out.append(_SOFTBREAK)
        elif t == "hardbreak":
            out.append("\n")
        elif t == "image":
            out.append(tok.content or "")
        elif t == "html_inline":
            out.append(_inline_html(tok.content))
        # link_open/close, em/strong open/close: markup dropped, text kept
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


# --------------------------------------------------------------------------- #
# Raw HTML blocks
# --------------------------------------------------------------------------- #

_BLOCK_TAGS = frozenset(
    "p div br tr li ul ol table thead tbody tfoot h1 h2 h3 h4 h5 h6 details summary "
    "pre blockquote dl dt dd hr section article header footer figure figcaption caption".split()
)


class _HTMLText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.cur: list[str] = []
        self.row: list[str] | None = None
        self.cell: list[str] | None = None
        self.skip = 0
        self.pre = 0

    def _flush(self) -> None:
        line = "".join(self.cur)
        if not self.pre:
            line = re.sub(r"\s+", " ", line).strip()
        if line.strip():
            self.lines.append(line)
        self.cur = []

    def _sink(self) -> list[str]:
        return self.cell if self.cell is not None else self.cur

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        tag = tag.lower()
        if tag in ("script", "style"):
            self.skip += 1
        elif tag in ("td", "th"):
            self.cell = []
        elif tag == "tr":
            self._flush()
            self.row = []
        elif tag == "sup":
            self._sink().append("^")
        elif tag == "br":
            if self.cell is not None:
                self.cell.append(" ")
            else:
                self._flush()
        elif tag == "img":
            alt = dict(attrs).get("alt")
            if alt:
                self._sink().append(alt)
        elif tag in _BLOCK_TAGS:
            self._flush()
            if tag == "pre":
                self.pre += 1
            if tag == "li":
                self.cur.append("- ")

    def handle_endtag(self, tag: str) -> None:
        tag = tag.lower()
        if tag in ("script", "style"):
            self.skip = max(0, self.skip - 1)
        elif tag in ("td", "th"):
            if self.cell is not None and self.row is not None:
                self.row.append(re.sub(r"\s+", " ", "".join(self.cell)).strip())
            self.cell = None
        elif tag == "tr":
            if self.row:
                self.lines.append("| " + " | ".join(self.row) + " |")
            self.row = None
        elif tag in _BLOCK_TAGS:
            self._flush()
            if tag == "pre":
                self.pre = max(0, self.pre - 1)

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self._sink().append(data)

    def text(self) -> str:
        self._flush()
        if self.row:
            self.lines.append("| " + " | ".join(self.row) + " |")
        return "\n".join(self.lines)


def _html_block_text(content: str, ctx: _Ctx) -> str:
    content = ctx.decomment(content)
    if not content.strip():
        return ""
    parser = _HTMLText()
    parser.feed(content)
    parser.close()
    return parser.text()


# --------------------------------------------------------------------------- #
# Block walk
# --------------------------------------------------------------------------- #


@dataclass
class _ListCtx:
    ordered: bool
    tight: bool
    number: int | None = None  # next number of an ordered list


@dataclass
class _ItemCtx:
    marker: str
    indent: str
    first_pending: bool = True


class _Walker:
    def __init__(self, tokens: list[Token], ctx: _Ctx, title: str) -> None:
        self.tokens = tokens
        self.ctx = ctx
        self.title = title
        self.sections: list[_Section] = [_Section((title,), None)]
        self.stack: list[tuple[int, str, str | None]] = []  # (level, text, anchor)
        self.lists: list[_ListCtx] = []
        self.items: list[_ItemCtx] = []
        self.quote_depth = 0

    # -- helpers ------------------------------------------------------------

    @property
    def section(self) -> _Section:
        return self.sections[-1]

    def _joiner(self) -> str:
        if self.lists and self.lists[-1].tight:
            return "\n"
        return "\n\n"

    def _decorate(self, text: str) -> str:
        """Apply list markers / indentation and blockquote prefixes."""
        if self.items:
            item = self.items[-1]
            outer = item.indent
            if item.first_pending:
                item.first_pending = False
                first = outer + item.marker
            else:
                first = outer + " " * len(item.marker)
            cont = outer + " " * len(item.marker)
            lines = text.split("\n")
            text = "\n".join([first + lines[0]] + [cont + ln if ln else ln for ln in lines[1:]])
        if self.quote_depth:
            prefix = "> " * self.quote_depth
            text = "\n".join(prefix + ln for ln in text.split("\n"))
        return text

    def _add(self, text: str, kind: str = "text", *, fence: tuple[str, str] = ("", "")) -> None:
        if not text.strip():
            return
        sticky = False
        if kind == "text":
            text = self._decorate(text)
            bare = text.strip()
            sticky = bare in ADMONITION_LABELS.values() or bare.endswith(("：", ":"))
            sticky = sticky and len(bare) <= 60
        elif self.items:
            self.items[-1].first_pending = False
        self.section.blocks.append(
            _Block(text=text, joiner=self._joiner(), kind=kind, sticky=sticky, fence=fence)
        )

    # -- walk ----------------------------------------------------------------

    def run(self) -> list[_Section]:
        toks = self.tokens
        i = 0
        n = len(toks)
        while i < n:
            tok = toks[i]
            t = tok.type
            if t == "heading_open":
                self._heading(int(tok.tag[1:]), toks[i + 1])
                i += 3
                continue
            if t == "paragraph_open":
                inline = toks[i + 1]
                text = self.ctx.finish(_render_inline(inline.children, self.ctx))
                if text:
                    self._add(text)
                i += 3
                continue
            if t in ("fence", "code_block"):
                self._code(tok)
            elif t == "html_block":
                raw = _html_block_text(tok.content, self.ctx)
                text = self.ctx.finish(raw) if raw else ""
                if text:
                    self._add(text)
            elif t == "table_open":
                i = self._table(i)
                continue
            elif t in ("bullet_list_open", "ordered_list_open"):
                tight = False
                # markdown-it marks the paragraphs of a tight list as hidden
                j = i + 1
                while j < n and toks[j].level > tok.level:
                    if toks[j].type == "paragraph_open" and toks[j].level == tok.level + 2:
                        tight = toks[j].hidden
                        break
                    j += 1
                self.lists.append(_ListCtx(t == "ordered_list_open", tight))
            elif t in ("bullet_list_close", "ordered_list_close"):
                if self.lists:
                    self.lists.pop()
            elif t == "list_item_open":
                indent = ""
                if self.items:
                    indent = self.items[-1].indent + " " * len(self.items[-1].marker)
                if self.lists and self.lists[-1].ordered:
                    lst = self.lists[-1]
                    if lst.number is None:
                        lst.number = int(tok.info) if tok.info.isdigit() else 1
                    marker = f"{lst.number}{tok.markup or '.'} "
                    lst.number += 1
                else:
                    marker = "- "
                self.items.append(_ItemCtx(marker, indent))
            elif t == "list_item_close":
                if self.items:
                    self.items.pop()
            elif t == "blockquote_open":
                self.quote_depth += 1
            elif t == "blockquote_close":
                self.quote_depth = max(0, self.quote_depth - 1)
            i += 1
        return self.sections

    def _heading(self, level: int, inline: Token) -> None:
        was_hidden = bool(self.ctx.skip) or self.ctx.in_comment
        self.ctx.in_heading = True
        try:
            text = self.ctx.finish(_render_inline(inline.children, self.ctx), single_line=True)
        finally:
            self.ctx.in_heading = False
        if was_hidden and not text:
            return  # a heading inside a hidden {{< comment >}} body or an HTML comment
        anchor = None
        m = _HEADING_ID.search(text)
        if m:
            anchor = m.group("id")
            text = text[: m.start()].rstrip()
        text = _ESCAPED_SC_TEXT.sub(r"\1", text).replace("`", "").strip()
        while self.stack and self.stack[-1][0] >= level:
            self.stack.pop()
        if level == 1 and (text == self.title or not text):
            self.stack = [(1, "", anchor)]
        else:
            self.stack.append((level, text, anchor))
        path = (self.title,) + tuple(s[1] for s in self.stack if s[1])
        nearest = next((s[2] for s in reversed(self.stack) if s[2]), None)
        self.sections.append(_Section(path, nearest))

    def _code(self, tok: Token) -> None:
        if self.ctx.in_comment:
            if "-->" in tok.content:
                self.ctx.in_comment = False
            return
        if self.ctx.skip:
            return
        content = self.ctx.restore_raw(tok.content)
        if not content.strip():
            return
        if not content.endswith("\n"):
            content += "\n"
        if tok.type == "fence":
            markup = tok.markup or "```"
            info = self.ctx.restore_raw(tok.info).strip()
        else:
            markup, info = "```", ""
        while markup[0] * 3 in content and markup[0] == "`" and markup in content:
            markup += "`"
        opening, closing = markup + info, markup
        self._add(f"{opening}\n{content}{closing}", "code", fence=(opening, closing))

    def _table(self, i: int) -> int:
        toks = self.tokens
        rows: list[list[str]] = []
        header_rows = 0
        row: list[str] | None = None
        in_head = False
        j = i + 1
        while j < len(toks) and toks[j].type != "table_close":
            t = toks[j].type
            if t == "thead_open":
                in_head = True
            elif t == "thead_close":
                in_head = False
            elif t == "tr_open":
                row = []
            elif t == "tr_close":
                if row is not None:
                    rows.append(row)
                    if in_head:
                        header_rows += 1
                row = None
            elif t == "inline" and row is not None:
                cell = self.ctx.finish(_render_inline(toks[j].children, self.ctx), single_line=True)
                row.append(cell.replace("|", "\\|"))
            j += 1
        lines: list[str] = []
        for k, r in enumerate(rows):
            if not any(r) and k >= header_rows:
                continue
            lines.append("| " + " | ".join(r) + " |")
            if k == header_rows - 1:
                lines.append("|" + "|".join(" --- " for _ in r) + "|")
        text = "\n".join(lines)
        if text.strip() and not self.ctx.skip:
            self._add(text, "table", fence=(lines[0], lines[1]) if header_rows and len(lines) > 1
                      else ("", ""))
        return j + 1


# --------------------------------------------------------------------------- #
# Splitting and merging
# --------------------------------------------------------------------------- #

_LIST_OR_QUOTE = re.compile(r"\s*(?:[-*+]|\d+[.)]|>)(?:\s|$)")
_SENTENCE_END = re.compile(r"(?<=[。！？；!?;])[”’」』）)\]]*|(?<=\.)[ \t]+|\n")
_CLAUSE_END = re.compile(r"(?<=[，、：,:）)])|(?<=[ \t])")


def _safe_cut(s: str, limit: int) -> int:
    """A cut position <= limit that does not split a combining sequence."""
    cut = limit
    while cut > 1 and cut < len(s):
        ch = s[cut]
        prev = s[cut - 1]
        if (
            unicodedata.combining(ch)
            or ch in "\u200d\ufe0f\ufe0e"
            or prev == "\u200d"
            or 0x1F3FB <= ord(ch) <= 0x1F3FF
            or unicodedata.category(ch) == "Mn"
        ):
            cut -= 1
            continue
        break
    return cut if cut > 0 else limit


def _pieces(text: str, pattern: re.Pattern[str]) -> list[str]:
    out: list[str] = []
    pos = 0
    for m in pattern.finditer(text):
        end = m.end()
        if end > pos:
            out.append(text[pos:end])
            pos = end
    if pos < len(text):
        out.append(text[pos:])
    return out


def _hard_split(text: str, limit: int) -> list[str]:
    out = []
    while len(text) > limit:
        cut = _safe_cut(text, limit)
        out.append(text[:cut])
        text = text[cut:]
    if text:
        out.append(text)
    return out


def _pack(
    units: Iterable[str], target: int, limit: int, finer: Callable[[str], list[str]]
) -> list[str]:
    """Greedy packing of ``units`` into strings of at most ``target`` code points
    (a single unit up to ``limit``); a unit over ``limit`` goes through ``finer``."""
    out: list[str] = []
    cur = ""
    for unit in units:
        if len(unit) > limit:
            if cur:
                out.append(cur)
                cur = ""
            out.extend(finer(unit))
            continue
        if len(cur) + len(unit) <= target or (not cur):
            cur += unit
        else:
            out.append(cur)
            cur = unit
    if cur:
        out.append(cur)
    return out


def _split_text(text: str, target: int, limit: int) -> list[str]:
    def by_clause(s: str) -> list[str]:
        return _pack(_pieces(s, _CLAUSE_END), target, limit, lambda u: _hard_split(u, limit))

    parts = _pack(_pieces(text, _SENTENCE_END), target, limit, by_clause)
    return [p.strip() for p in parts if p.strip()]


def _split_code(block: _Block, target: int, limit: int) -> list[str]:
    opening, closing = block.fence
    body = block.text[len(opening) + 1 : len(block.text) - len(closing)]
    overhead = len(opening) + len(closing) + 2
    if overhead > limit // 2:
        opening = closing  # drop the info string to make room
        overhead = len(opening) + len(closing) + 2
    budget_t, budget_l = max(1, target - overhead), max(1, limit - overhead)
    lines = body.splitlines(keepends=True)
    pieces = _pack(lines, budget_t, budget_l, lambda u: _hard_split(u, budget_l))
    out = []
    for p in pieces:
        if not p.endswith("\n"):
            p += "\n"
        out.append(f"{opening}\n{p}{closing}")
    return out


def _split_table(block: _Block, target: int, limit: int) -> list[str]:
    lines = block.text.split("\n")
    head: list[str] = []
    if block.fence != ("", "") and len(block.fence[0]) + len(block.fence[1]) + 2 <= limit // 2:
        head = lines[:2]
        lines = lines[2:]
    head_len = sum(len(h) + 1 for h in head)
    units = [ln + "\n" for ln in lines]
    bodies = _pack(units, max(1, target - head_len), max(1, limit - head_len),
                   lambda u: _hard_split(u, max(1, limit - head_len)))
    return ["\n".join(head + [b.rstrip("\n")]) if head else b.rstrip("\n") for b in bodies]


def _split_block(block: _Block, target: int, limit: int) -> list[_Block]:
    if len(block.text) <= limit:
        return [block]
    if block.kind == "code":
        texts = _split_code(block, target, limit)
    elif block.kind == "table":
        texts = _split_table(block, target, limit)
    else:
        texts = _split_text(block.text, target, limit)
    return [
        _Block(t, block.joiner if k == 0 else "\n", block.kind, False, block.fence)
        for k, t in enumerate(texts)
        if t.strip()
    ]


def _section_texts(blocks: list[_Block], max_chars: int) -> list[str]:
    target = min(SOFT_TARGET_CHARS, max_chars)
    min_standalone = min(_MIN_STANDALONE_CHARS, max_chars // 4)
    labels = set(ADMONITION_LABELS.values())
    pieces: list[_Block] = []
    for b in blocks:
        pieces.extend(_split_block(b, target, max_chars))
    out: list[str] = []
    cur: str | None = None
    prev: _Block | None = None  # the last block added to ``cur``
    for b in pieces:
        if cur is None or prev is None:
            cur, prev = b.text, b
            continue
        joiner = b.joiner
        if prev.sticky:
            # a bare label ("说明：") runs into the text it introduces
            runs_on = b.kind == "text" and not _LIST_OR_QUOTE.match(b.text)
            joiner = "" if prev.text.strip() in labels and runs_on else "\n"
        combined = len(cur) + len(joiner) + len(b.text)
        if combined <= target or (
            (prev.sticky or len(cur.strip()) < min_standalone) and combined <= max_chars
        ):
            cur = cur + joiner + b.text
        else:
            out.append(cur)
            cur = b.text
        prev = b
    if cur is not None:
        out.append(cur)
    result: list[str] = []
    for t in out:
        t = t.strip()
        if not t or t in labels:
            continue
        # safety net: an oversized fence marker or header can defeat the budgets
        if len(t) > max_chars:
            result.extend(p for p in _hard_split(t, max_chars) if p.strip())
        else:
            result.append(t)
    return result


# --------------------------------------------------------------------------- #
# Public API
# --------------------------------------------------------------------------- #


def normalized_text(chunks: Sequence[Chunk]) -> str:
    """The normalized document text: chunk texts joined with ``"\\n\\n"``.

    ``Chunk.char_start``/``char_end`` are code-point offsets into this string.
    """
    return NORMALIZED_JOINER.join(c.text for c in chunks)


def document_version(title: str, parts: Sequence[tuple[Sequence[str], str | None, str]]) -> str:
    """First 16 hex digits of SHA-256 over ``title`` and the ordered
    ``(heading_path, source_anchor, text)`` of every chunk (canonical JSON)."""
    payload = json.dumps(
        [title, [[list(p), a, t] for p, a, t in parts]],
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return sha256_hex(payload)[:16]


def _fallback_title(source_id: str) -> str:
    p = PurePosixPath(source_id.replace("\\", "/"))
    stem = p.stem
    if stem in ("_index", "index") and p.parent.name:
        return p.parent.name
    return stem or source_id


def parse_markdown(
    text: str,
    source_id: str,
    *,
    glossary: Mapping[str, str] | None = None,
    uri: str | None = None,
    updated_at: datetime | None = None,
    max_chars: int = MAX_CHUNK_CHARS,
) -> tuple[SourceDocument, list[Chunk]]:
    """Parse one Markdown text into its document and chunks.

    Args:
        text: the Markdown source (``str``; a leading BOM is ignored).
        source_id: stable id of the source (POSIX path relative to the corpus root).
        glossary: ``term_id → title`` for ``{{< glossary_tooltip >}}`` without
            ``text=`` (falls back to the term id). Not mutated.
        uri: public URL of the document; a chunk's ``uri`` is this plus
            ``#source_anchor`` when the chunk has an anchor.
        updated_at: stored on the document and every chunk. When ``None``, the
            front matter ``lastmod`` or ``date`` is used if present (timezone-aware,
            naive values are taken as UTC), else ``None``.
        max_chars: upper bound on ``len(chunk.text)`` in Unicode **code points**
            (default :data:`MAX_CHUNK_CHARS` = 500). The default embedder
            multilingual-e5-small reads at most 512 tokens (XLM-R SentencePiece);
            each token covers >= 1 character, so <= 510 code points can never
            exceed 512 tokens including ``<s>``/``</s>``; 500 also leaves room for
            the ``"passage: "`` prefix. Sections are split at paragraph, list
            item, table row, code line, then sentence (``。！？；`` and newlines),
            then clause boundaries; small consecutive blocks of one section are
            merged up to :data:`SOFT_TARGET_CHARS`; sections are never merged.

    Returns:
        ``(document, chunks)``: chunks in document order with ``ordinal`` 0..n-1,
        ``chunk_id = make_chunk_id(document.document_id, ordinal)``,
        ``heading_path = (title, H2, H3, …)`` (title = front matter ``title``,
        else the first H1, else the file stem), ``source_anchor`` = the ``{#id}``
        of the nearest enclosing heading that has one, ``char_start``/``char_end``
        as code-point offsets into :func:`normalized_text`. A document with no
        body text (e.g. front matter only) has zero chunks.

    Raises:
        IngestError: (message names ``source_id``) for input that cannot be
            processed: non-``str`` text, unpaired surrogates, empty source_id.
        ValueError: ``max_chars`` below :data:`MIN_MAX_CHARS`.

    Deterministic; never mutates its arguments.
    """
    if not isinstance(max_chars, int) or max_chars < MIN_MAX_CHARS:
        raise ValueError(f"max_chars must be an int >= {MIN_MAX_CHARS}, got {max_chars!r}")
    if not isinstance(source_id, str) or not source_id:
        raise IngestError(f"source_id must be a non-empty string, got {source_id!r}")
    if not isinstance(text, str):
        raise IngestError(f"{source_id}: expected Markdown text (str), got {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise IngestError(
            f"{source_id}: text holds an unpaired surrogate at code point {exc.start}"
        ) from exc
    try:
        return _parse(text, source_id, dict(glossary or {}), uri, updated_at, max_chars)
    except IngestError:
        raise
    except RecursionError as exc:
        raise IngestError(f"{source_id}: Markdown nested too deeply to parse") from exc
    except Exception as exc:  # noqa: BLE001 - map any parser failure
        raise IngestError(
            f"{source_id}: could not parse Markdown: {type(exc).__name__}: {exc}"
        ) from exc


def _parse(
    text: str,
    source_id: str,
    glossary: dict[str, str],
    uri: str | None,
    updated_at: datetime | None,
    max_chars: int,
) -> tuple[SourceDocument, list[Chunk]]:
    src, shortcodes = _extract_shortcodes(_sanitize(text))
    tokens = _md().parse(src)

    fm: dict[str, Any] = {}
    fm_error: str | None = None
    if tokens and tokens[0].type == "front_matter":
        fm, fm_error = _load_yaml(tokens[0].content)
        tokens = tokens[1:]

    # Title: front matter → first H1 → file stem.
    title = ""
    raw_title = fm.get("title")
    if raw_title is not None and not isinstance(raw_title, dict | list):
        title = _Ctx(shortcodes, glossary).finish(str(raw_title), single_line=True)
        title = title.replace(_SC_OPEN, "")
    if not title:
        for k, tok in enumerate(tokens):
            if tok.type == "heading_open" and tok.tag == "h1":
                probe = _Ctx(shortcodes, glossary)
                h = probe.finish(_render_inline(tokens[k + 1].children, probe), single_line=True)
                h = _HEADING_ID.sub("", h).replace("`", "").strip()
                if h:
                    title = h
                    break
    if not title:
        title = _fallback_title(source_id)

    ctx = _Ctx(shortcodes, glossary)
    sections = _Walker(tokens, ctx, title).run()

    parts: list[tuple[tuple[str, ...], str | None, str]] = []
    for sec in sections:
        for t in _section_texts(sec.blocks, max_chars):
            parts.append((sec.path, sec.anchor, t))

    version = document_version(title, parts)
    if updated_at is None:
        updated_at = _as_datetime(fm.get("lastmod")) or _as_datetime(fm.get("date"))
    metadata = {
        k: (_Ctx(shortcodes, glossary).finish(v, single_line=True) if isinstance(v, str) else v)
        for k, v in _scalar_metadata(fm).items()
    }
    if fm_error:
        metadata["front_matter_error"] = fm_error
    doc = SourceDocument(
        source_id=source_id,
        version=version,
        title=title,
        uri=uri,
        updated_at=updated_at,
        metadata=metadata,
    )
    chunks: list[Chunk] = []
    pos = 0
    for ordinal, (path, anchor, t) in enumerate(parts):
        if ordinal:
            pos += len(NORMALIZED_JOINER)
        chunks.append(
            Chunk(
                chunk_id=make_chunk_id(doc.document_id, ordinal),
                document_id=doc.document_id,
                source_id=source_id,
                version=version,
                ordinal=ordinal,
                title=title,
                heading_path=path,
                text=t,
                source_anchor=anchor,
                uri=(f"{uri}#{anchor}" if uri and anchor else uri),
                updated_at=updated_at,
                char_start=pos,
                char_end=pos + len(t),
                content_sha256=sha256_hex(t),
            )
        )
        pos += len(t)
    return doc, chunks
