"""The Hugo dialect of the Kubernetes zh-cn site: shortcodes, i18n headings,
``{#anchor}`` heading ids and HTML comments that hold the English originals
(see ``../shared/corpus/NOISE.md`` for the kinds and counts of this noise).

* :func:`extract_shortcodes` swaps every shortcode (``{{< … >}}``,
  ``{{% … %}}``, escaped ``{{</* … */>}}``, also spanning lines, also the
  ``{<`` typo) for an opaque placeholder **before** Markdown parsing, so
  shortcodes inside link destinations and HTML attributes cannot break the
  parse.
* :class:`HugoContext` is the per-document state the Markdown walk calls:
  it renders placeholders as the site shows them (:data:`HEADING_I18N`,
  :data:`ADMONITION_LABELS`, glossary tooltips, feature states, captions …;
  ``comment`` and ``mermaid`` bodies are dropped; variables such as
  ``param``/``skew`` and includes are dropped), restores them verbatim inside
  code, drops HTML comment text (also comments split across blocks and the
  broken openers ``<!-`` / ``<--`` seen in the corpus) and finishes inline
  text with :func:`core.ingest.chunking.normalize.tidy`.
* :data:`HEADING_ID` finds a trailing ``{#id}`` heading anchor;
  :data:`ESCAPED_SC_TEXT` turns an escaped shortcode quoted in a heading into
  its words.

Texts and positions are Unicode code points. Nothing here raises for odd input.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from core.ingest.chunking.normalize import (
    CODE_CLOSE,
    CODE_OPEN,
    CODE_PLACEHOLDER,
    SC_CLOSE,
    SC_OPEN,
    SC_PLACEHOLDER,
    SOFTBREAK,
    tidy,
)

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
HEADING_ID = re.compile(r"[ \t]*\{[ \t]*#(?P<id>[^\s{}]+)[^{}]*\}[ \t]*$")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
# An escaped shortcode quoted in a heading ("### `{{</* note */>}}`") → its words.
ESCAPED_SC_TEXT = re.compile(r"\{\{[<%]\s*/\*\s*(.*?)\s*\*/\s*[>%]\}\}", re.DOTALL)
_BROKEN_OPENERS = frozenset({"<!-", "<--", "<!---"})
_SC_BRACES = re.compile(r"^\{\{?[<%]|[>%]\}\}$")


@dataclass(frozen=True)
class Shortcode:
    """One parsed shortcode: its raw text, lower-cased name, closing/escaped flags and arguments."""

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


def _parse_shortcode(raw: str, body: str) -> Shortcode:
    body = body.replace(SOFTBREAK, " ")
    escaped = body.startswith("/*") and body.endswith("*/")
    if escaped:
        body = body[2:-2]
    m = _SC_HEAD.match(body)
    if not m:
        return Shortcode(raw, "", False, escaped, (), ())
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
    return Shortcode(raw, m.group("name").lower(), bool(m.group("close")), escaped, tuple(args), tuple(kwargs))


def extract_shortcodes(src: str) -> tuple[str, list[Shortcode]]:
    """``src`` with every shortcode replaced by ``SC_OPEN n SC_CLOSE``, and the
    parsed shortcodes in order (``src`` must be :func:`~core.ingest.chunking.normalize.sanitize`-d)."""
    found: list[Shortcode] = []

    def repl(m: re.Match[str]) -> str:
        body = m.group("a") if m.group("a") is not None else m.group("b")
        found.append(_parse_shortcode(m.group(0), body))
        return f"{SC_OPEN}{len(found) - 1}{SC_CLOSE}"

    return _SHORTCODE.sub(repl, src), found


@dataclass
class HugoContext:
    """Per-document rendering state of the Hugo dialect (mutable; one per walk).

    ``shortcodes`` are those :func:`extract_shortcodes` found (placeholder
    ``n`` is ``shortcodes[n]``); ``glossary`` maps ``term_id → title``.
    """

    shortcodes: list[Shortcode]
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
        if SC_OPEN not in s:
            return s
        return SC_PLACEHOLDER.sub(lambda m: self.shortcodes[int(m.group(1))].raw, s)

    def protect_code(self, s: str) -> str:
        self.code.append(s)
        return f"{CODE_OPEN}{len(self.code) - 1}{CODE_CLOSE}"

    # -- shortcode rendering -------------------------------------------------

    def render_shortcode(self, sc: Shortcode) -> str:
        if sc.escaped:
            if self.in_heading:  # a heading names the shortcode: keep its words
                return _SC_BRACES.sub("", sc.raw).replace("/*", "").replace("*/", "").strip()
            # A literal example shown on the site: keep it, as inline code.
            literal = (
                sc.raw.replace("{{</*", "{{<").replace("*/>}}", ">}}").replace("{{%/*", "{{%").replace("*/%}}", "%}}")
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
        if SC_OPEN not in s:
            return "" if self.skip else s
        out: list[str] = []
        pos = 0
        for m in SC_PLACEHOLDER.finditer(s):
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
        s = tidy(s, single_line=single_line)
        if CODE_OPEN in s:
            s = CODE_PLACEHOLDER.sub(lambda m: self.code[int(m.group(1))], s)
        return s
