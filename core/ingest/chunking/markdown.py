"""The Markdown walk: markdown-it tokens → sections of blocks with heading paths.

Parsing is markdown-it-py's (CommonMark + tables +
``mdit_py_plugins.front_matter``), never by line prefixes, so ``#`` lines
inside code and English headings inside HTML comments can never become
headings. :class:`Walker` walks the token stream in document order:

* each heading starts a :class:`Section` whose ``path`` is ``(title, H2, H3,
  …)`` and whose ``anchor`` is the ``{#id}`` of the nearest enclosing heading
  that has one (an H1 equal to the title, or empty, resets the path);
* HTML comments are dropped; other raw HTML becomes plain text
  (:mod:`core.ingest.chunking.htmltext`); entities are decoded;
* code fences are kept as fenced Markdown (the fence grows past any backtick
  run inside); tables become pipe-table text; lists keep their ``-`` / ``1.``
  markers and indentation; blockquotes keep ``>``; inline text (links,
  footnote references, emphasis, images) is written by
  :mod:`core.ingest.chunking.inline`;
* an indented code block that reads as prose (:mod:`core.ingest.chunking.indented`)
  is a paragraph, its text parsed as inline Markdown;
* footnote definitions (mdit_py_plugins' footnote plugin puts them at the end
  of the document) are paragraphs of the last section, the first one
  starting with the note's caption: ``[1] 见发行说明。``;
* content nested deeper than markdown-it's ``maxNesting`` (20) is flattened
  into plain paragraphs instead of being skipped (:class:`FlatteningBlockParser`).

Site-specific text (shortcode placeholders, HTML comments, heading anchors)
goes through the :class:`~core.ingest.chunking.hugo.HugoContext` it is given; the
blocks it emits are :class:`~core.ingest.chunking.splitting.Block` s, sized later by
:mod:`core.ingest.chunking.splitting`. Texts are Unicode code points.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.parser_block import ParserBlock
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from core.cjk_emphasis import cjk_emphasis_plugin
from core.ingest.chunking.htmltext import html_block_text
from core.ingest.chunking.hugo import ADMONITION_LABELS, ESCAPED_SC_TEXT, HEADING_ID, HugoContext
from core.ingest.chunking.indented import is_indented_prose
from core.ingest.chunking.inline import footnote_caption, render_inline
from core.ingest.chunking.splitting import Block

_md_instance: MarkdownIt | None = None

# Leading blockquote markers of a line flattened past the nesting limit.
_QUOTE_MARKERS = re.compile(r"^(?:[ \t]*>)+[ \t]?")


class FlatteningBlockParser(ParserBlock):
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


def markdown_parser() -> MarkdownIt:
    """The shared ingest parser: commonmark preset (raw HTML on, link reference
    definitions on) + tables + front matter + footnotes (mdit_py_plugins) + the
    CJK-friendly emphasis of :mod:`core.cjk_emphasis` (the rule the product
    dialect ``core.markdown`` renders chunk text with), with the
    :class:`FlatteningBlockParser`. Built once; its ``parse`` keeps no state."""
    global _md_instance
    if _md_instance is None:
        md = MarkdownIt("commonmark")
        flat = FlatteningBlockParser()
        flat.ruler = md.block.ruler  # keep the preset's enabled rules
        md.block = flat
        _md_instance = md.enable("table").use(front_matter_plugin).use(footnote_plugin).use(cjk_emphasis_plugin)
    return _md_instance


@dataclass
class Section:
    """The blocks under one heading: ``path`` = ``(title, H2, H3, …)``, ``anchor``
    = the nearest enclosing ``{#id}`` (or ``None``)."""

    path: tuple[str, ...]
    anchor: str | None
    blocks: list[Block] = field(default_factory=list)


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


class Walker:
    """One pass over a document's tokens (front matter removed); :meth:`run`
    returns its sections, the first being the untitled lead ``(title,)``."""

    def __init__(self, tokens: list[Token], ctx: HugoContext, title: str, env: dict | None = None) -> None:
        self.tokens = tokens
        self.env = env if env is not None else {}  # the parse's env: reference and footnote definitions
        self.ctx = ctx
        self.title = title
        self.sections: list[Section] = [Section((title,), None)]
        self.stack: list[tuple[int, str, str | None]] = []  # (level, text, anchor)
        self.lists: list[_ListCtx] = []
        self.items: list[_ItemCtx] = []
        self.quote_depth = 0
        self.caption = ""  # "[n] " of the footnote whose first block is next

    # -- helpers ------------------------------------------------------------

    @property
    def section(self) -> Section:
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
        if kind != "text" and self.caption:  # a note that starts with code or a table
            caption, self.caption = self.caption.strip(), ""
            self._add(caption)
        sticky = False
        if kind == "text":
            text, self.caption = self.caption + text, ""
            text = self._decorate(text)
            bare = text.strip()
            sticky = bare in ADMONITION_LABELS.values() or bare.endswith(("：", ":"))
            sticky = sticky and len(bare) <= 60
        elif self.items:
            self.items[-1].first_pending = False
        self.section.blocks.append(Block(text=text, joiner=self._joiner(), kind=kind, sticky=sticky, fence=fence))

    # -- walk ----------------------------------------------------------------

    def run(self) -> list[Section]:
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
                text = self.ctx.finish(render_inline(inline.children, self.ctx))
                if text:
                    self._add(text)
                i += 3
                continue
            if t in ("fence", "code_block"):
                self._code(tok)
            elif t == "html_block":
                raw = html_block_text(self.ctx.decomment(tok.content))
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
            elif t == "footnote_open":
                self.caption = footnote_caption(tok) + " "
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
            text = self.ctx.finish(render_inline(inline.children, self.ctx, markdown=False), single_line=True)
        finally:
            self.ctx.in_heading = False
        if was_hidden and not text:
            return  # a heading inside a hidden {{< comment >}} body or an HTML comment
        anchor = None
        m = HEADING_ID.search(text)
        if m:
            anchor = m.group("id")
            text = text[: m.start()].rstrip()
        text = ESCAPED_SC_TEXT.sub(r"\1", text).replace("`", "").strip()
        while self.stack and self.stack[-1][0] >= level:
            self.stack.pop()
        if level == 1 and (text == self.title or not text):
            self.stack = [(1, "", anchor)]
        else:
            self.stack.append((level, text, anchor))
        path = (self.title,) + tuple(s[1] for s in self.stack if s[1])
        nearest = next((s[2] for s in reversed(self.stack) if s[2]), None)
        self.sections.append(Section(path, nearest))

    def _code(self, tok: Token) -> None:
        if self.ctx.in_comment:
            if "-->" in tok.content:
                self.ctx.in_comment = False
            return
        if self.ctx.skip:
            return
        if tok.type == "code_block" and is_indented_prose(tok.content):
            children = markdown_parser().parseInline(tok.content.strip(), self.env)[0].children
            text = self.ctx.finish(render_inline(children, self.ctx))
            if text:
                self._add(text)
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
                cell = self.ctx.finish(render_inline(toks[j].children, self.ctx), single_line=True)
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
            self._add(text, "table", fence=(lines[0], lines[1]) if header_rows and len(lines) > 1 else ("", ""))
        return j + 1
