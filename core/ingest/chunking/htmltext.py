"""Raw HTML blocks → plain text lines (the standard library's ``html.parser``).

Block tags (``p``, ``div``, ``li``, ``h1``…, see :data:`_BLOCK_TAGS`) end a
line; ``li`` starts one with ``- ``; table rows become ``| a | b |`` lines (a table's first row then its
delimiter row ``| --- | --- |``, a pipe in a cell escaped);
``<br>`` breaks a line (a space inside a cell); ``<sup>`` becomes ``^``; image
alt text is kept; ``script`` / ``style`` bodies are dropped; whitespace
collapses outside ``pre``. Entities are decoded by the parser. Never raises
for malformed HTML.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

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
        self.rows_in_table = 0

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
        elif tag == "table":
            self._flush()
            self.rows_in_table = 0
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
                self.row.append(re.sub(r"\s+", " ", "".join(self.cell)).strip().replace("|", "\\|"))
            self.cell = None
        elif tag == "tr":
            self._end_row()
            self.row = None
        elif tag == "table":
            self._flush()
            self.lines.append("")  # a blank line ends the table: the text after it is no row
        elif tag in _BLOCK_TAGS:
            self._flush()
            if tag == "pre":
                self.pre = max(0, self.pre - 1)

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self._sink().append(data)

    def _end_row(self) -> None:
        """The row as a pipe-table line; the first row of a table is its header, with the delimiter row after it
        (a GFM table, which the chunker and the answer's table rows read)."""
        if not self.row:
            return
        self.lines.append("| " + " | ".join(self.row) + " |")
        if self.rows_in_table == 0:
            self.lines.append("|" + " --- |" * len(self.row))
        self.rows_in_table += 1

    def text(self) -> str:
        self._flush()
        self._end_row()
        return "\n".join(self.lines).strip("\n")


def html_block_text(content: str) -> str:
    """The text of the raw HTML ``content``: lines joined with ``"\\n"`` ("" for none)."""
    if not content.strip():
        return ""
    parser = _HTMLText()
    parser.feed(content)
    parser.close()
    return parser.text()
