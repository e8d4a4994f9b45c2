"""The knowledge base's own writing, for reading a conversation's turns in its words.

jieba cuts a question's names into pieces the knowledge base never writes alone: 婴儿服 is cut 婴儿 / 服 and 除螨 is
cut 除 / 螨, although a washing machine's programme table has the rows "婴儿服 | 60 ℃ | …" and "除螨 | 60 ℃ | …".
A follow-up then carried 婴儿 and read "那除螨程序呢？" as about 婴儿 too (a helper's round, session 22). This module
gives the query resolution (``core.retrieval.query``) the text as written:

* ``Written.grown(term, text, is_word)``: ``term`` grown, inside ``text``, to the longest run that names a table's
  row or is a word of the base (婴儿 in "婴儿服程序默认是多少度？" → 婴儿服);
* ``Written.rows_named(text)``: the names of table rows ``text`` holds (除螨 in "那除螨程序呢？", cut 那除 / 螨);
* ``Written.row_siblings(a, b)``: whether ``a`` and ``b`` name two rows of one table (the first cells of its rows),
  i.e. two things of one kind, as 学生卡 and 普通卡 are by their last character.

Pure: no I/O, no model. Strings are ``str``; lengths are code points. Tables are read from the chunk text, where a
row is a line of cells joined by ``|`` (``core.markdown`` writes them so).
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass
from typing import Callable, Iterable

from core.lexical import LexicalIndex

_CJK = re.compile(r"[\u3400-\u9fff]")
#: How far a term grows to either side (characters): a name, not a sentence.
GROW_MAX = 3
#: A first cell that names a row: a short word, not a sentence or a number.
_ROW_NAME = re.compile(r"^[\w\u3400-\u9fff（）()·.+\-/ ]{1,16}$")


@dataclass(frozen=True)
class Written:
    """The lower-cased chunk texts joined (``text``) and, per table, the names of its rows (``rows``: the first
    cells, lower-case, without backticks)."""

    text: str
    rows: tuple[frozenset[str], ...] = ()

    def has(self, s: str) -> bool:
        """Whether the knowledge base writes ``s`` (case aside)."""
        return bool(s) and s.lower() in self.text

    def grown(self, term: str, text: str, is_word: Callable[[str], bool] = lambda s: False) -> str:
        """``term`` grown inside ``text`` by up to ``GROW_MAX`` Chinese characters on either side to the longest run
        that names a row of a table (``names_row``) or that ``is_word`` accepts (e.g. a term of the knowledge base's
        index: 产假 in "男员工的陪产假有几天？" → 陪产假); ``term`` itself when it is not in ``text``, not Chinese, or
        nothing longer qualifies. A run the base only happens to contain (观事务模 of 乐观事务模型) is no name."""
        at = text.find(term)
        if at < 0 or not _CJK.search(term):
            return term
        end0 = at + len(term)
        best = term
        for left in range(0, GROW_MAX + 1):
            start = at - left
            if start < 0 or (left and not _CJK.match(text[start])):
                break
            for right in range(0, GROW_MAX + 1):
                end = end0 + right
                if end > len(text) or (right and not _CJK.match(text[end - 1])):
                    break
                run = text[start:end]
                if len(run) > len(best) and self.has(run) and (self.names_row(run) or is_word(run)):
                    best = run
        return best

    def rows_named(self, text: str) -> list[str]:
        """The names of table rows that ``text`` holds (case aside; as ``text`` writes them), longest first, none
        inside another: 除螨 in
        "那除螨程序呢？" (jieba cuts it 那除 / 螨, so no term of the question is the row's name)."""
        low = text.lower()
        found = sorted({n for names in self.rows for n in names if _named_in(n, low)}, key=len, reverse=True)
        kept = [n for i, n in enumerate(found) if not any(n in m for m in found[:i])]
        return [text[low.find(n) : low.find(n) + len(n)] for n in kept]  # as the text writes it

    def row_siblings(self, a: str, b: str) -> bool:
        """Whether ``a`` and ``b`` (different) are the names of two rows of one table."""
        a, b = a.lower().strip(), b.lower().strip()
        return a != b and any(a in names and b in names for names in self.rows)

    def names_row(self, term: str) -> bool:
        """Whether ``term`` is the name of a row of a table."""
        t = term.lower().strip()
        return any(t in names for names in self.rows)


def _named_in(name: str, text: str) -> bool:
    """Whether ``text`` names ``name``: a Chinese name of two or more characters anywhere in it, any other as a
    whole word (``type`` is not named in "pathType")."""
    if _CJK.search(name):
        return len(name) >= 2 and name in text
    return re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", text) is not None


def table_rows(chunks: Iterable[tuple[str, str]]) -> tuple[frozenset[str], ...]:
    """Per table of ``chunks`` (``(document id, text)`` pairs; a table is a run of lines with ``|``, and the runs of
    one document under the same header cell are one table split across chunks), the names of its rows: their first
    cells, lower-case, without backticks, the header's aside. A table with one row names no kind."""
    return tuple(rows for _, rows in named_tables(chunks))


def named_tables(chunks: Iterable[tuple[str, str]]) -> tuple[tuple[str, frozenset[str]], ...]:
    """``table_rows`` with each table's first header cell (lower-case), which often names the kind its rows are: "套餐"
    over 小型搬家, 标准搬家, 大型搬家."""
    tables: dict[tuple[str, str], set[str]] = {}
    for doc, text in chunks:
        block: list[str] = []
        for line in [*text.splitlines(), ""]:
            if "|" in line:
                block.append(line.strip().strip("|").split("|")[0].replace("`", "").strip().lower())
                continue
            if len(block) > 1:
                names = {c for c in block[1:] if c and _ROW_NAME.match(c) and not set(c) <= set("-: ")}
                tables.setdefault((doc, block[0]), set()).update(names)
            block = []
    return tuple((head, frozenset(n)) for (_, head), n in tables.items() if len(n) > 1)


_WRITTEN: "weakref.WeakKeyDictionary[LexicalIndex, Written]" = weakref.WeakKeyDictionary()


def written_for(lexical: LexicalIndex, chunks: Iterable[tuple[str, str]]) -> Written:
    """The ``Written`` of ``chunks`` (``(document id, text)`` of the chunks ``lexical`` indexes), computed once per
    lexical index (the index and its chunks are swapped together after an ingest)."""
    w = _WRITTEN.get(lexical)
    if w is None:
        chunks = list(chunks)
        w = Written("\n".join(t.lower() for _, t in chunks), table_rows(chunks))
        _WRITTEN[lexical] = w
    return w
