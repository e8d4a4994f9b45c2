"""How the extractive answer's chosen units are put in order and completed (``core.generators.extractive``).

``ExtractiveGenerator`` scores the candidate units of the evidence (``core.generators.candidates``) and selects the
best ones; the rules here then arrange them, each a function that mutates the list of units (a unit is a sentence,
or a sentence with the predecessor it needs, ``unit_of``):

* ``complete_clause`` / ``continue_lead``: a unit that ends with a semicolon takes its next clause; a lead that
  restates the question without what it asks for takes the next sentence that gives it;
* ``close_clause_gaps``: two units quoting clauses of one sentence are one, with the clauses between them;
* the lists and tables a question for items or steps is answered with: ``core.generators.lists``;
* ``lead_with``: the unit that answers the question's first part or first compared side leads;
* ``cover_both_sides``: each side of a comparison gets a unit, or the note says which side nothing is about;
* ``lead_with_news``: a follow-up that asks something new is not led by what the previous answer quoted.

``Scoring`` is what the selection knows about a question: the candidates, their predecessors, the relevance
function and the pool of units that address the question. Offsets are code points; nothing here reads bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from core.generators.candidates import MAX_CHARS, Candidate
from core.generators.compare import Side, is_about, missing_note
from core.generators.question_types import has_wanted
from core.generators.sentences import is_filler
from core.retrieval.asked_detail import REDUCTION
from core.retrieval.question import ASKING, CJK, analyse


@dataclass(frozen=True)
class Scoring:
    """What the selection knows about one question over one evidence: ``cands`` the candidate units,
    ``previous`` every unit by (chunk index, order) for predecessors, ``relevance`` a unit's score (unitless, higher
    is better), ``parts`` its score's parts by name, ``pool`` the units that address the question, ``wants`` what the
    question asks for (``QuestionAnalysis.wants``) and ``keep`` the share of the lead's score a unit needs."""

    cands: list[Candidate]
    previous: dict[tuple[int, int], Candidate]
    relevance: Callable[[Candidate], float]
    parts: Callable[[Candidate], dict[str, float]]
    pool: list[Candidate]
    wants: frozenset[str]
    keep: float = 0.5  # a unit scoring under this share of the lead's score is left out (``_select``)
    #: whether a unit is an item of the list (or a row of the table) that a question for which items asks for
    asked_item: Callable[[Candidate], bool] = lambda c: False


def unit_of(c: Candidate, previous: dict[tuple[int, int], Candidate], depth: int = 2) -> list[Candidate] | None:
    """``[c]``, or its predecessor's unit and ``c`` when ``c`` needs it (a chain of up to ``depth``
    predecessors: "Init 容器支持…。然而，…稍有不同。同时 Init 容器不支持…"); None when it needs one it
    cannot have."""
    if c.header is not None:
        return [c.header, c]
    if not c.needs_previous:
        return [c]
    p = previous.get((c.chunk_index, c.order - 1))
    if depth <= 0 or p is None or is_filler(p.text) or len(p.text) > MAX_CHARS:
        return None
    head = unit_of(p, previous, depth - 1)
    return None if head is None else [*head, c]


def lead_with_news(
    question: str, units: list[list[Candidate]], turns: Sequence[tuple[str, str]], scoring: Scoring, limit: int
) -> None:
    """For a follow-up that asks something new, when the lead unit is one an earlier answer already quoted:
    the best unit no earlier answer quoted that has one of the new words leads instead; when every chosen unit
    was quoted, the best sentence of ``scoring``'s pool that was not (with the predecessor it needs) leads, if it
    scores at least ``scoring.keep`` of the lead (the last units make room for it: at most ``limit`` sentences).

    New words are the content terms of ``question`` that no earlier question of ``turns`` (``(question,
    answer)`` pairs) has, besides words that ask for an amount (几天, 多少秒, 上限: ``_ASKS_AMOUNT``). The person
    has read the repeated sentences; the new one answers what they asked next (dev-031: "那要是拼出来的全名超过 64
    个字符呢？" after "setHostnameAsFQDN 字段有什么作用？" led with the 64-character limit it had just been given;
    dev-035 repeated the previous answer word for word). A question with no new word asks again ("那它保留几天？"
    after "…保留多久？"): the repeated sentence is its answer and keeps its place; so does a lead whose fresh
    rivals have none of the new words ("那要是没配置呢？" when the sentence about 没有配置 was the one quoted
    before), unless the lead has none of them either: then the best unit not quoted before leads ("这个可以给家里人用
    吗？" after "成人季卡多少钱？"). Mutates ``units``."""
    asked = "\n".join(q for q, _ in turns).lower()
    new = [
        t
        for t in analyse(question).content_terms
        if t.lower() not in asked and not _ASKS_AMOUNT.match(t) and t not in ASKING
    ]
    if not new:
        return
    said = _SPACE.sub("", "\n".join(a for _, a in turns))

    def quoted(unit: Sequence[Candidate]) -> bool:
        return all(_SPACE.sub("", c.text) in said for c in unit)

    if not quoted(units[0]):
        return

    def has_news(c: Candidate) -> bool:  # in its own text: every row of a table has its header's words
        return not c.is_header and any(t in c.text.lower() for t in new)

    # ... and, when the repeated lead gives the kind of value asked (a time for 几点), a unit that gives one ("它几点发
    # 车？" after "接驳巴士在哪里上车？", answered with the rows that give both: not "…满员即发车；", which has 发车)
    wants = scoring.wants
    valued = bool(wants) and any(has_wanted(c.text, wants) for c in units[0])

    def answers(u: Sequence[Candidate]) -> bool:
        return not quoted(u) and (not valued or any(has_wanted(c.text, wants) for c in u))

    if not all(quoted(u) for u in units):
        fresh = next((i for i, u in enumerate(units) if answers(u) and any(map(has_news, u))), None)
        if fresh is None and not any(map(has_news, units[0])):
            # no unit has the new words, the repeated lead neither: the best unit not quoted before answers what was
            # asked next ("这个可以给家里人用吗？" after "成人季卡多少钱？": "季卡仅限本人使用…", not the price again; a
            # helper's round, session 27)
            fresh = next((i for i, u in enumerate(units) if answers(u)), None)
        if fresh is not None:
            units.insert(0, units.pop(fresh))
        return
    if any(map(has_news, units[0])):
        return  # the repeated lead has the new words: it answers what was asked next ("那要是没配置呢？": 没有配置…)
    floor = scoring.keep * scoring.relevance(units[0][-1])

    for c in sorted(scoring.pool, key=lambda c: (-scoring.relevance(c), c.chunk_index, c.position)):
        if scoring.relevance(c) < floor:
            return
        if c.header is not None and not has_news(c):
            continue  # a row whose only new word is its header's: any row of its table would do
        if valued and not has_wanted(c.text, wants):
            continue
        unit = None if quoted([c]) or is_filler(c.text) else unit_of(c, scoring.previous)
        if unit:
            units[:] = [unit, *([o for o in u if not any(o is x for x in unit)] for u in units)]
            units[:] = [u for u in units if u]
            while len(units) > 1 and sum(map(len, units)) > limit:
                units.pop()
            return


_SPACE = re.compile(r"\s+")
# A word that asks for an amount (几天, 几个, 多少秒, 多久, 多长): asking it again is no new question.
_ASKS_AMOUNT = re.compile(r"几|多少|多久|多长|多大|多高|多远|哪")


def join_next(units: list[list[Candidate]], at: int, nxt: Candidate) -> None:
    """``nxt`` (the sentence after unit ``at``'s last) joins unit ``at``, leaving any other unit it was in."""
    for i, u in enumerate(units):
        if i != at and any(c is nxt for c in u):
            u[:] = [c for c in u if c is not nxt]
    units[at] = units[at] + [nxt]
    units[:] = [u for u in units if u]


def complete_clause(units: list[list[Candidate]], previous: dict[tuple[int, int], Candidate], at: int = 0) -> bool:
    """Unit ``at`` (0: the lead) that ends in a clause closed by a semicolon ("遗失图书，可以买回同一版本的新书赔偿；") is half a
    sentence: the next clause of its chunk ("无法买到同一版本的，按书价的 2 倍赔偿，另收加工费 5 元。") joins it, as
    the writer joined them (a helper's round: the amount asked for was in the clause left out). Returns whether
    a clause joined; mutates ``units``."""
    last = units[at][-1]
    if not last.text.rstrip().endswith(("；", ";")) or last.in_table:
        return False
    nxt = previous.get((last.chunk_index, last.order + 1))
    if nxt is None or nxt.in_table or is_filler(nxt.text) or len(nxt.text) > MAX_CHARS:
        return False
    if at > 0 and any(c is nxt for u in units for c in u):
        return False  # a later unit does not take a clause another unit quotes (the lead keeps its own)
    join_next(units, at, nxt)
    return True


#: At most this many clauses between two quoted clauses of one sentence are filled in (``close_clause_gaps``).
CLAUSE_GAP_MAX = 3


# A clause that refers to what comes before it: "其他时间请投放到…" after "早上 7:00–9:00，晚上 18:00–20:30；"
_REFERS_BACK = re.compile(r"^(?:其他|其它|其余|剩下的|除此之外|以上|上述|前述|同样|否则)")


def _same_line(a: Candidate, b: Candidate) -> bool:
    """Whether clause ``b`` follows clause ``a`` on the same line of their chunk (at most one space between them)."""
    gap = b.position - (a.position + len(a.text))
    return a.chunk_index == b.chunk_index and 0 <= gap <= 1


def open_clause(units: list[list[Candidate]], previous: dict[tuple[int, int], Candidate], at: int = 0) -> bool:
    """Unit ``at`` (0: the lead) that starts with a later clause of a sentence (the sentence before it in its chunk
    is closed by a semicolon) takes the clauses before it, at most ``CLAUSE_GAP_MAX``, none that another unit
    quotes, in the sentence's order: "入住前 3 天以上取消，全额退还定金；入住前 1–3 天取消，退还定金的 50%；入住当天取消
    或不来，定金不退。" quoted from its last clause answered "提前一周取消能退钱吗？" with 定金不退, the opposite of what the
    sentence says for that case (a helper's round, session 20). Clauses on earlier lines (a list whose items end with a
    semicolon) join only a clause that refers to them (``needs_previous``, or 其他/其余/以上…: "其他时间请投放到…" after
    "早上 7:00–9:00，晚上 18:00–20:30；"): joining them before any clause led "会员折扣和学生折扣能叠加吗？" with three
    membership tiers before its answer (a second helper's round). Returns whether a clause joined; mutates ``units``."""
    first = units[at][0]
    if first.in_table:
        return False
    refers_back = first.needs_previous or bool(_REFERS_BACK.match(first.text))
    before: list[Candidate] = []
    x = first
    while len(before) < CLAUSE_GAP_MAX:
        p = previous.get((x.chunk_index, x.order - 1))
        if p is None or p.in_table or not p.text.rstrip().endswith(("；", ";")) or len(p.text) > MAX_CHARS:
            break
        if any(p is c for u in units for c in u):
            return False  # another unit quotes it: close_clause_gaps joins the two, with the clauses between
        if not _same_line(p, x) and not refers_back:
            break  # an earlier item of a list: only for a clause that refers to it ("其他时间请投放到…")
        before.insert(0, p)
        x = p
    units[at][:0] = before
    return bool(before)


def close_clause_gaps(units: list[list[Candidate]], previous: dict[tuple[int, int], Candidate]) -> None:
    """Two units that quote clauses of one sentence (clauses closed by semicolons: "起步价 2 元可乘坐 6 公里；6 至 12
    公里（含）3 元；12 至 22 公里（含）4 元；22 公里以上…单程最高 9 元。") become one unit with the clauses between them
    (at most ``CLAUSE_GAP_MAX``), in the sentence's order, at the place of the better-ranked one: quoting the first
    two clauses and the last left out the 12–22 km fare, and the answer read as if there were none (a helper's
    round, session 18). Mutates ``units``."""
    while True:
        found = next(
            (
                (i, j, gap)
                for i, a in enumerate(units)
                for j, b in enumerate(units)
                if i != j and (gap := _clauses_between(a, b, units, previous)) is not None
            ),
            None,
        )
        if found is None:
            return
        i, j, gap = found
        units[min(i, j)] = units[i] + gap + units[j]
        del units[max(i, j)]


def _clauses_between(
    a: list[Candidate], b: list[Candidate], units: list[list[Candidate]], previous: dict[tuple[int, int], Candidate]
) -> list[Candidate] | None:
    """The clauses (at most ``CLAUSE_GAP_MAX``, none quoted by another unit) between unit ``a``'s last clause and unit
    ``b``'s first when they are clauses of one sentence, each closed by a semicolon ([] for adjacent clauses: a
    sentence's last clause quoted as a bullet of its own below the lead that quotes the others read as another rule; a
    helper's round, session 21); None otherwise."""
    if a[-1].chunk_index != b[0].chunk_index or a[-1].in_table or b[0].in_table:
        return None
    gap: list[Candidate] = []
    x = a[-1]
    while x.text.rstrip().endswith(("；", ";")) and len(gap) <= CLAUSE_GAP_MAX:
        nxt = previous.get((x.chunk_index, x.order + 1))
        if nxt is None or nxt.in_table or any(nxt is c for u in units for c in u if u is not b):
            return None
        if nxt is b[0]:
            return gap if gap or _same_line(a[-1], nxt) else None  # (list items on their own lines stay bullets)
        gap.append(nxt)
        x = nxt
    return None


def continue_lead(
    units: list[list[Candidate]], previous: dict[tuple[int, int], Candidate], wants: frozenset[str], at: int = 0
) -> bool:
    """For a question whose unit ``at`` (0: the lead) restates the question without what it asks for (a reason,
    an effect, a number, a bound…; ``question_types.has_wanted``): the next sentence of its chunk joins that unit
    when it gives it ("“弗赖永”这个名称源于…意为自由。这是因为修道院拥有…特权。"; tidb-024: "…Digest 的列表…。每个
    事务最多记录前 50 条语句。"). Returns whether a sentence joined; mutates ``units``."""
    last = units[at][-1]
    if has_wanted(last.text, wants):
        return False
    nxt = previous.get((last.chunk_index, last.order + 1))
    if nxt is None or is_filler(nxt.text) or len(nxt.text) > MAX_CHARS or not has_wanted(nxt.text, wants):
        return False
    if last.in_table or nxt.in_table:  # a table's row is no continuation of a sentence, nor of another row
        return False
    join_next(units, at, nxt)
    return True


def _same_paragraph(a: Candidate, b: Candidate, text: str) -> bool:
    """Whether sentence ``b`` follows sentence ``a`` in the same paragraph of their chunk (``text``, the chunk's
    text: no line break between them)."""
    end = a.position + len(a.text)
    return a.chunk_index == b.chunk_index and end <= b.position and "\n" not in text[end : b.position]


def precede_lead(
    units: list[list[Candidate]],
    previous: dict[tuple[int, int], Candidate],
    wants: frozenset[str],
    texts: Sequence[str],
    at: int = 0,
) -> bool:
    """For a question whose unit ``at`` (0: the lead) names what the question is about but not what it asks for (a
    number, a price, a time…; ``question_types.has_wanted``): the sentence before it in the same paragraph joins it,
    first, when it gives it ("晚接怎么收费？" matched "一学期内晚接累计 3 次以上的，园方将约谈家长。" by its word 晚接,
    while the price is in the sentence before: "超过 17:15 仍未接走…按每 30 分钟 20 元收取临时看护费…"; a helper's round,
    session 21). ``texts`` are the chunks' texts by chunk index. ``continue_lead``'s counterpart, tried after it.
    Returns whether a sentence joined; mutates ``units``."""
    first = units[at][0]
    if has_wanted(first.text, wants) or first.in_table:
        return False
    p = previous.get((first.chunk_index, first.order - 1))
    if p is None or p.in_table or is_filler(p.text) or len(p.text) > MAX_CHARS or not has_wanted(p.text, wants):
        return False
    if any(p is c for u in units for c in u) or not _same_paragraph(p, first, texts[first.chunk_index]):
        return False
    units[at][:0] = [p]
    return True


def cover_both_sides(question, units, cands, chunks, previous, relevance) -> str:  # noqa: ANN001
    """For a comparison question (``QuestionAnalysis.sides``): a side no unit is about
    (``compare.is_about``) gets the best sentence about it as a unit of its own; the sides
    nothing is about are named in the returned note (empty when both are covered or the
    question compares nothing; and for an English question over Chinese text, whose sides may be written in
    Chinese). Mutates ``units``."""
    names = analyse(question).sides
    if not names:
        return ""
    sides = Side(names[0]), Side(names[1])
    headings = [(rc.chunk.title, *rc.chunk.heading_path) for rc in chunks]
    missing: list[str] = []
    for side, other in (sides, sides[::-1]):

        def about(c: Candidate, side: Side = side, other: Side = other) -> bool:
            return is_about(side, other, c.text, headings[c.chunk_index])

        if any(about(c) for u in units for c in u):
            continue
        found = [c for c in cands if about(c) and unit_of(c, previous)]
        if found:
            units.append(unit_of(max(found, key=relevance), previous))  # type: ignore[arg-type]
        else:
            missing.append(side.name)

    def about_first(c: Candidate) -> bool:
        return is_about(sides[0], sides[1], c.text, headings[c.chunk_index])

    lead_with(units, lambda u: any(about_first(c) for c in u))
    if not CJK.search(question) and any(CJK.search(rc.chunk.text) for rc in chunks):
        return ""  # an English side ("Redis sentinel") may be written in Chinese ("Redis 哨兵"): absence is unknown
    return missing_note(missing)


def lead_with(units: list[list[Candidate]], gives: Callable[[list[Candidate]], bool]) -> None:
    """The answer follows the question: when the lead unit does not give what the question asks first (its
    first part, its first compared side) and a later unit does, that unit leads. Mutates ``units``."""
    if not units or gives(units[0]):
        return
    first = next((u for u in units[1:] if gives(u)), None)
    if first is not None:
        units.remove(first)
        units.insert(0, first)


def lead_with_the_subjects_price(units: list[list[Candidate]], word: str | None) -> None:
    """For a question for a price (多少钱) whose lead states a price without ``word``, the question's most specific word
    (``core.retrieval.asked_detail.subject_word``): the first later unit with a table row whose first cell names
    ``word`` and that states a price leads. "给猫打疫苗多少钱？" had led with the boarding page's "价格：…猫 60 元/天；" (its
    chunk ranked first) over the row "猫三联疫苗 | 150 元 | …" (a helper's round, session 22). A sentence that merely
    names the word is not the word's price row ("朋友开车来家里玩，车停小区里要钱不？" keeps its lead, the free visitor
    parking, over "晚上…停在小区里的，按 20 元一晚收。"). Mutates ``units``."""
    if not units or word is None:
        return

    def prices(u: list[Candidate]) -> bool:
        return any(has_wanted(c.reading, _MONEY) for c in u)

    def row_of_the_subject(u: list[Candidate]) -> bool:
        return any(c.header_row and has_wanted(c.reading, _MONEY) and word in c.first_cell for c in u)

    # ... and so does it when the lead's amounts are only taken off a price ("办理年卡，每张减免 300 元" for "年卡多少钱？")
    def only_reductions(u: list[Candidate]) -> bool:
        return not any(has_wanted(REDUCTION.sub(" ", c.reading), _MONEY) for c in u)

    if prices(units[0]) and (not any(word in c.reading.lower() for c in units[0]) or only_reductions(units[0])):
        lead_with(units, row_of_the_subject)


_MONEY = frozenset({"money"})
