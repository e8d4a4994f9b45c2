"""The Markdown structure of one answer text, in code points.

:class:`AnswerDoc` parses an answer with the product dialect
(:func:`core.markdown.parse_render`) and maps markdown-it's line-based token
``map`` onto **code-point** ranges of the answer:

* ``blocks``  - fenced/indented code blocks, raw HTML blocks and tables (a
  marker after text inside one goes after the whole block);
* ``leaves``  - paragraphs and headings outside tables (their close token is
  the block anchor at the end of the text);
* ``regions`` - per line of a leaf, the range of its inline text (a marker
  may sit inside one, subject to the render check of :mod:`core.grounding.placement`).

Every position is a 0-based code-point index into the answer (Python ``str``
indices); ``anchor`` values are token indices in the parsed token list.
:func:`answer_doc` caches the structure of recent texts.
"""

from __future__ import annotations

import bisect
import functools
import re
from typing import NamedTuple

from markdown_it.token import Token

from core.markdown import parse_render

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class Block(NamedTuple):
    """A code block, HTML block or table, or a leaf (paragraph/heading): code points."""

    start: int  # code points: start of the block's first line
    end: int  # code points: end of its last non-blank content
    anchor: int  # token index after which a marker is rendered


class Region(NamedTuple):
    """The inline text of one line of a leaf: code points ``[start, end)``."""

    start: int  # code points: first char of a line's inline content
    end: int  # code points: after its last non-whitespace char
    leaf: int  # index into AnswerDoc.leaves


class AnswerDoc:
    """The Markdown structure of one answer text, in code points."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[Token]
        self.base_html: str
        self.tokens, self.base_html = parse_render(text)
        breaks = list(_LINE_BREAK.finditer(text))
        self.line_starts = [0, *(m.end() for m in breaks)]
        self.line_ends = [*(m.start() for m in breaks), len(text)]
        self.blocks: list[Block] = []
        self.leaves: list[Block] = []
        self.regions: list[Region] = []
        self._scan()
        self.regions.sort()
        self.region_starts = [r.start for r in self.regions]
        stops = {r.end for r in self.regions} | {b.end for b in self.blocks}
        self.stops = sorted(stops)

    def _line_span(self, l0: int, l1: int) -> tuple[int, int]:
        last = len(self.line_starts) - 1
        l0 = min(l0, last)
        l1 = max(l0, min(l1 - 1, last))
        start = self.line_starts[l0]
        end = self.line_ends[l1]
        while end > start and self.text[end - 1].isspace():
            end -= 1
        return start, end

    def _scan(self) -> None:
        toks = self.tokens
        stack: list[int] = []
        table_depth = 0
        for i, t in enumerate(toks):
            if t.type == "table_open":
                table_depth += 1
                stack.append(i)
            elif t.type == "table_close":
                table_depth -= 1
                o = stack.pop()
                if toks[o].map:
                    s, e = self._line_span(*toks[o].map)
                    self.blocks.append(Block(s, e, i))
            elif t.type in ("fence", "code_block", "html_block") and t.map:
                s, e = self._line_span(*t.map)
                self.blocks.append(Block(s, e, i))
            elif t.nesting == 1:
                stack.append(i)
            elif t.nesting == -1:
                o = stack.pop() if stack else i
                if t.type in ("paragraph_close", "heading_close") and not table_depth:
                    self._leaf(o, i)

    def _leaf(self, open_idx: int, close_idx: int) -> None:
        inline = self.tokens[open_idx + 1] if open_idx + 1 < close_idx else None
        if inline is None or inline.type != "inline" or not inline.map:
            return
        leaf_index = len(self.leaves)
        regions: list[Region] = []
        l0 = inline.map[0]
        for k, cl in enumerate(inline.content.split("\n")):
            line = l0 + k
            if line >= len(self.line_starts):
                break
            want = cl.strip()
            if not want:
                continue
            ls, le = self.line_starts[line], self.line_ends[line]
            src = self.text[ls:le]
            idx = src.rfind(want)
            if idx < 0:
                lead = len(src) - len(src.lstrip())
                a, b = ls + lead, ls + len(src.rstrip())
            else:
                a, b = ls + idx, ls + idx + len(want)
            if b > a:
                regions.append(Region(a, b, leaf_index))
        if not regions:
            return
        self.leaves.append(Block(regions[0].start, regions[-1].end, close_idx))
        self.regions.extend(regions)

    def block_at(self, p: int) -> Block | None:
        """The block with ``start < p <= end`` (code points), if any."""
        for b in self.blocks:
            if b.start < p <= b.end:
                return b
        return None

    def region_at(self, p: int) -> Region | None:
        """The region with ``start < p <= end`` (code points), if any."""
        i = bisect.bisect_left(self.region_starts, p) - 1
        while i >= 0:
            r = self.regions[i]
            if r.start < p <= r.end:
                return r
            if r.end < p:
                break
            i -= 1
        return None

    def region_ending_at(self, p: int) -> Region | None:
        """The first region whose text ends at code point ``p``, if any."""
        for r in self.regions:
            if r.end == p:
                return r
        return None


@functools.lru_cache(maxsize=64)
def answer_doc(text: str) -> AnswerDoc:
    """The (cached, shared: do not mutate) :class:`AnswerDoc` of ``text``."""
    return AnswerDoc(text)


__all__ = ["AnswerDoc", "Block", "Region", "answer_doc"]
