"""The candidate units of the evidence that the extractive answer chooses from (``core.generators.extractive``).

``candidates(chunks)`` reads each retrieved chunk into ``Candidate`` units: its sentences
(``core.generators.sentences.split_sentences``), its table rows (``sentences.table_rows``; a row of two or more
values with its header row, every row with its header's words) and, for a list item, the words of the line that
introduces its list. Each unit knows its chunk (index in the retrieved order), its position (code points into the
chunk text) and its order among the chunk's units, so that the answer can quote it verbatim, find the sentence
before or after it, and cite its chunk. Pure over ``RetrievedChunk`` values; no scoring here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from core.generators.quantities import with_header_units
from core.generators.sentences import is_filler, needs_previous, split_sentences, table_rows
from core.lexical import tokenize
from core.models import RetrievedChunk
from core.segmentation import CJK_WORD

#: A sentence longer than this (code points) is not quoted.
MAX_CHARS = 300


@dataclass(frozen=True)
class Candidate:
    """One unit of a chunk the answer may quote: a sentence, a table row or a row's header row."""

    text: str
    chunk_index: int
    position: int
    terms: frozenset[str]
    heading_terms: frozenset[str] = frozenset()
    order: int = 0  # index among the chunk's sentences
    needs_previous: bool = False
    in_table: bool = False  # a table row, or a sentence of one of its cells
    header: "Candidate | None" = None  # the header row a row of several values is quoted under
    labels: frozenset[str] = frozenset()  # a table row's header words (what its cells are)
    lead_in: frozenset[str] = frozenset()  # a list item's lead-in words ("…交齐以下材料：")
    announces: frozenset[str] = frozenset()  # the words of what its lead-in announces (以下材料 → 材料), if it says
    header_row: str = ""  # a table row's header row as written ("卡种 | 价格 | 说明"), whether quoted or not
    lead_in_text: str = ""  # a list item's lead-in line as written

    def in_lead_in(self, term: str) -> bool:
        """Whether a list item's lead-in has ``term``: one of its words, or a Chinese term of two or more characters
        inside it, since jieba cuts a line differently from a question ("本校目前开设以下班型：" is cut 以 / 下班 / 型,
        "驾校有哪些班型？" 驾校 / 班型; a helper's round, session 19)."""
        return term in self.lead_in or written_in(term, self.lead_in_text)

    @property
    def column(self) -> str:
        """A table row's first header cell: what its rows are (卡种 of "卡种 | 价格 | 说明"); "" for a sentence."""
        return self.header_row.split("|")[0].strip()

    @property
    def first_cell(self) -> str:
        """A table row's first cell, lower-case: what the row is about (年卡 of "年卡 | 2,680 元 | 365 天"); for a
        sentence, its text up to any "|"."""
        return self.text.split("|")[0].strip().lower()

    @property
    def reading(self) -> str:
        """The text as read for what it states: a table row with the units its header gives to its bare numbers
        (``core.generators.quantities.with_header_units``: "238" under "价格（元/人）" reads "238元/人")."""
        return with_header_units(self.header_row, self.text) if self.header_row else self.text

    @property
    def is_header(self) -> bool:
        """Whether this is a table's header row (quoted only before a row of several values; order -1)."""
        return self.order < 0


# A section that only lists references elsewhere (the usual headings of Chinese and English documentation).
_SEE_ALSO = re.compile(
    r"(?:另请参阅|另请参见|参见|相关(?:文档|阅读|链接|资料)|延伸阅读|参考(?:资料|文档|链接|文献)?|See also|Related(?: \w+)?"
    r"|References|Further reading)",
    re.IGNORECASE,
)


def written_in(term: str, text: str) -> bool:
    """Whether ``term``, a Chinese term of two or more characters, is written inside ``text`` whatever jieba made of
    it there: jieba cuts the same words differently by context ("亨丁顿舞蹈症病发时" → 舞蹈 / 症病 / 发时, "…手舞足蹈
    一样，病发时…" → 手舞足蹈 / 病发 / 时会; CMRC DEV_75). Single characters are no match (丢 in 丢失 moved clinic
    and tidb the wrong way, docs/measurements.md, session 11)."""
    return len(term) >= 2 and CJK_WORD.fullmatch(term) is not None and term in text


_SENTENCE_END = re.compile(r"[。！？!?.；;][”’」』）)]*$")


_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,2}[.)、])[ \t]+")


def _list_lead_in(text: str, position: int) -> str:
    """The lead-in line of the list whose item holds ``position`` ("新员工须在入职当天交齐以下材料：" over "- 身份证原件
    及复印件"): the nearest line above the item's list that is not an item nor blank, when it ends with a colon; ""
    for a sentence that is not a list item, or a list without one."""
    start = text.rfind("\n", 0, position) + 1
    if not _LIST_ITEM.match(text, start):
        return ""
    for line in reversed(text[:start].split("\n")[:-1]):
        if line.strip() and not _LIST_ITEM.match(line):
            return line.strip() if line.rstrip().endswith(("：", ":")) else ""
    return ""


# What a lead-in announces: the words after 以下/如下/下列 ("…需要准备以下材料：" → 材料, "有如下缺点：" → 缺点).
_ANNOUNCED = re.compile(
    r"(?:以下|如下|下列|下面)(?:的|这些|几种|几个|几项|[一二两三四五六七八九十\d]+[种个项条类点])?([^：:，,。]{1,12})[：:]\s*$"
)


def _announced(lead_in: str) -> frozenset[str]:
    m = _ANNOUNCED.search(lead_in) if lead_in else None
    return frozenset(tokenize(m[1])) if m else frozenset()


# A sentence that asks (an FAQ's "问：可以带宠物进店吗？", "Q: Can I bring my dog?"), and the marks that open a
# question or an answer line (问：, 答：, Q:, A:).
_ASKS = re.compile(r"[？?][”’」』）)*]*$")
_QA_MARK = re.compile(r"^\s*(?:问|答|Q|A)\s*[：:]\s*", re.IGNORECASE)


def _asked_before(
    text: str, units: Sequence[tuple[int, str]], rows: dict[int, object]
) -> dict[int, frozenset[str] | None]:
    """The question each answering sentence follows in ``text``: position → the words of the question sentence
    before it (the sentences after "问：可以带宠物进店吗？" up to the next question, or up to the end of the paragraph
    after the first of them, are its answer: "答：为了安全，店内不允许携带宠物。"), and the question sentences
    themselves → None. An FAQ's answer often names nothing the question names, and its question line, quoted
    alone, answers nothing (a helper's round, session 19: "Can I bring my dog?" was answered "问：可以带宠物进店
    吗？"). Table rows are neither."""
    out: dict[int, frozenset[str] | None] = {}
    words: frozenset[str] = frozenset()
    answered = False
    end = 0
    for pos, sent in units:
        if pos in rows:
            words, answered, end = frozenset(), False, pos + len(sent)
            continue
        if words and answered and "\n\n" in text[end:pos]:
            words = frozenset()  # the answer's paragraph ended
        if _ASKS.search(sent.rstrip()):
            out[pos] = None
            words, answered = frozenset(tokenize(_QA_MARK.sub("", sent))), False
        elif words:
            out[pos] = words
            answered = True
        end = pos + len(sent)
    return out


def candidates(
    chunks: Sequence[RetrievedChunk],
    lead_ins: bool = False,
) -> tuple[list[Candidate], dict[tuple[int, int], Candidate]]:
    """Usable sentences of the chunks, and every sentence by (chunk index, order) for predecessors
    (``lead_ins``: as :func:`split_sentences`)."""
    cands: list[Candidate] = []
    every: dict[tuple[int, int], Candidate] = {}
    for ci, rc in enumerate(chunks):
        # a references section lists its links' titles ("Isolation Levels", the link stripped at ingest): a line
        # there that does not end a sentence is a title; a sentence there still states something
        references = bool(rc.chunk.heading_path) and bool(_SEE_ALSO.fullmatch(rc.chunk.heading_path[-1].strip()))
        heading = frozenset(tokenize(" ".join(rc.chunk.heading_path)))
        # a table's body rows are quoted like sentences, with the table's header as part of their heading; a
        # row with prose cells gives their sentences, with its first cell (what the row is about) as heading; a
        # row of two or more values is quoted under its header row (which value is which: 普通员工 | 经理及以上)
        rows: dict[int, tuple[frozenset[str], Candidate | None, frozenset[str], str]] = {}
        units_of_rows: list[tuple[int, str]] = []
        for row in table_rows(rc.chunk.text):
            named = heading | frozenset(tokenize(row.header))
            said = row.sentences()
            if said:
                named |= frozenset(tokenize(row.cells[0][1]))
            header = None
            if not said and row.header_row is not None and row.compares():
                at, line = row.header_row
                header = Candidate(line, ci, at, frozenset(tokenize(line)), heading, -1, False, True)
            quoted = said or [(row.at, row.text)]
            labels = frozenset(tokenize(row.header))
            written = row.header_row[1] if row.header_row else ""
            rows.update({pos: (named, header, labels, written) for pos, _ in quoted})
            units_of_rows.extend(quoted)
        units = sorted([*split_sentences(rc.chunk.text, lead_ins), *units_of_rows])
        asked = _asked_before(rc.chunk.text, units, rows)
        for k, (pos, sent) in enumerate(units):
            if pos in asked and asked[pos] is None:  # a question of the text (an FAQ's 问：…？) answers nothing
                every[(ci, k)] = Candidate(sent, ci, pos, frozenset(tokenize(sent)), heading, k)
                continue
            if pos in rows:
                named, header, labels, written = rows[pos]
                c = Candidate(
                    sent, ci, pos, frozenset(tokenize(sent)), named, k, False, True, header, labels, header_row=written
                )
            else:
                lead_in = _list_lead_in(rc.chunk.text, pos)
                c = Candidate(
                    sent,
                    ci,
                    pos,
                    frozenset(tokenize(sent)),
                    heading,
                    k,
                    needs_previous(sent, k == 0),
                    labels=asked.get(pos) or frozenset(),
                    lead_in=frozenset(tokenize(lead_in)) if lead_in else frozenset(),
                    announces=_announced(lead_in),
                    lead_in_text=lead_in,
                )
            every[(ci, k)] = c
            if references and not _SENTENCE_END.search(sent):
                continue
            if len(sent) <= MAX_CHARS and not is_filler(sent):
                cands.append(c)
    return cands, every
