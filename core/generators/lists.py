"""The whole list, table or numbered steps a question for items or steps is answered with, and the sentence such a
question leads with (``core.generators.extractive``; the other arrangement rules are in ``core.generators.arrangement``).

* ``lead_with_asked_list``: a question for which items leads with an item of the list announced as those items;
* ``whole_list``: a question for which items gets the whole list (or table) its lead item belongs to;
* ``whole_steps``: a question for how to do something whose lead is a numbered step gets every step, in order;
* ``lead_with_the_day``: a question for one day's hours leads with the line of the hours list that gives that day;
* ``lead_with_the_action``: a how-to question leads with a sentence that says the action it asks the way to;
* ``lead_with_the_date``: a question for which day leads with a sentence that states a date or a weekday;
* ``with_exceptions``: a lead that states a rule is followed by the exceptions the next line lists;
* ``names_a_kind``: whether a sentence names a kind of what a question for which items asks for (狂犬疫苗, 疫苗).

Each function but ``names_a_kind`` mutates the list of units (a unit is a sentence, or a sentence with the predecessor it needs). Offsets
are code points into the chunk text; nothing here reads bytes.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Sequence

from core.clock import stated_days
from core.generators.arrangement import Scoring, unit_of
from core.generators.candidates import Candidate
from core.generators.question_types import has_wanted
from core.lexical import general_frequency
from core.segmentation import CJK_WORD, tagged

# jieba's tags of a word that, before the asked word, makes a kind of it (狂犬 疫苗, 犬八联 疫苗; not 打过 疫苗)
_MODIFIER_TAGS = ("n", "j", "nz", "ng", "nr", "ns", "nt", "eng")


def names_a_kind(text: str, item: str) -> bool:
    """Whether ``text`` names a kind of ``item`` (a Chinese noun a question asks which of, 哪些疫苗 → 疫苗): ``item``
    right after a noun, as in 狂犬疫苗 and 猫三联疫苗, or inside a longer word ending with it (流感疫苗 as one word).
    "打过疫苗后 7 天内不能洗澡" names none: 疫苗 follows the particle 过. A helper's round, session 20: "寄养前要打哪些
    疫苗？" led with that grooming rule while the list "狗狗：狂犬疫苗和犬八联（或犬六联）疫苗均在有效期内…" went
    unquoted, since its lead-in ("入住时请出示宠物的免疫证本：") does not say 疫苗."""
    if not item or item not in text or not CJK_WORD.fullmatch(item):
        return False
    words = tagged(text)
    for i, (word, _) in enumerate(words):
        if word.endswith(item) and len(word) > len(item) and CJK_WORD.fullmatch(word):
            return True
        if (
            word == item
            and i > 0
            and words[i - 1][1].startswith(_MODIFIER_TAGS)
            and CJK_WORD.fullmatch(words[i - 1][0])
        ):
            return True
    return False


def lead_with_asked_list(units: list[list[Candidate]], scoring: Scoring) -> None:
    """For a question for which items (wants ``list``) whose lead unit is not an item of the list it asks for
    (``Scoring.asked_item``: the list announced as those items, "我们提供以下几种会员卡："), the best such item leads
    (then ``whole_list`` brings the rest). "陶艺工作室有哪些会员卡？" had led with the page's opening sentence, which
    names the studio and its 会员卡 in passing (a helper's round, session 19). Mutates ``units``."""
    if scoring.asked_item(units[0][-1]):
        return
    _lead_with_best(units, scoring, [c for c in scoring.cands if scoring.asked_item(c)])


def _lead_with_best(units: list[list[Candidate]], scoring: Scoring, among: Sequence[Candidate]) -> None:
    """The best of ``among`` (by ``scoring.relevance``; the earlier chunk and position on a tie) leads, with the
    predecessor it needs (``unit_of``), taken out of the other units; nothing changes when ``among`` is empty."""
    if not among:
        return
    best = max(among, key=lambda c: (scoring.relevance(c), -c.chunk_index, -c.position))
    unit = unit_of(best, scoring.previous)
    if unit is None:
        return
    for u in units:
        u[:] = [c for c in u if c not in unit]
    units[:] = [unit, *(u for u in units if u)]


def whole_list(
    units: list[list[Candidate]],
    cands: Sequence[Candidate],
    limit: int,
    terms: Sequence[str],
    items: Sequence[str] = (),
) -> None:
    """For a question for which items (wants ``list``: 哪些, 哪两种, what documents) whose lead unit is an item of a
    list with a lead-in line that has more of the question's words (``terms``) than the item ("新员工须在入职当天交齐
    以下材料：" over "- 身份证原件及复印件": the list is what was asked for; an item that states the answer in its own
    words, "与 TiCDC、TiFlash 或 BR 尚不兼容…" for "与哪些组件尚不兼容", stands alone): the list's other items follow it, up to
    ``LIST_ITEMS_MAX`` items in all, in the document's order, before the other units (which make room: at most
    ``limit`` sentences besides the list's items). Only that list's items: another list of the chunk (its
    advantages beside its drawbacks) is not the one asked for. Two items per chunk (``max_per_chunk``) showed the
    first two of five documents to hand in (a helper's round, session 16). A lead that is a table row: see
    ``_whole_table`` (``items``: the words of what the question asks for, ``QuestionAnalysis.items``). Mutates
    ``units``."""
    lead = units[0][-1]
    if lead.in_table:
        _whole_table(units, cands, limit, items)
        return
    if not lead.lead_in:
        return
    in_lead_in, in_item = sum(lead.in_lead_in(t) for t in terms), sum(t in lead.terms for t in terms)
    # an item naming a kind of what is asked (狂犬疫苗 for 哪些疫苗) brings the list's other items that name one
    kinds = [t for t in items if names_a_kind(lead.text, t)]
    by_kind = in_lead_in <= in_item and bool(kinds)
    if in_lead_in <= in_item and (in_lead_in or in_item) and not by_kind:
        return  # (neither: an English question over a Chinese list, whose item leads by its meaning)
    said = {(c.chunk_index, c.position) for c in units[0]}
    items = [
        c
        for c in cands
        if c.chunk_index == lead.chunk_index
        and c.lead_in == lead.lead_in
        and not c.in_table
        and (c.chunk_index, c.position) not in said
        and same_list(c, lead, cands)
        and (not by_kind or all(names_a_kind(c.text, t) for t in kinds))
    ][: LIST_ITEMS_MAX - 1]
    if not items:
        return
    rest = [[c for c in u if c not in items] for u in units[1:]]  # an item quoted as a unit of its own joins the list
    units[:] = [units[0], *([c] for c in items), *_room([u for u in rest if u], limit - 1 - len(items))]


def _whole_table(units: list[list[Candidate]], cands: Sequence[Candidate], limit: int, items: Sequence[str]) -> None:
    """For a question for which items whose lead unit is a table row whose first column is what is asked for
    (``items``: 卡 in "游泳馆有哪些卡？", the column 卡种 of "卡种 | 价格 | 说明"): the table's other rows follow it, in the
    document's order, up to ``LIST_ITEMS_MAX`` rows, under the table's header row when a row is quoted under one,
    before the other units as in ``whole_list``. "游泳馆有哪些卡？" had been answered with the 月卡 row alone (a
    helper's round, session 18). A table whose first column is something else (a schedule's days) is not the list
    asked for; a row quoted as its cells' sentences is not a row."""
    lead = units[0][-1]
    column = lead.column.lower()
    if not column or not items or not all(t.lower() in column for t in items):
        return
    rows = [
        c
        for c in cands
        if c.chunk_index == lead.chunk_index
        and c.in_table
        and not c.is_header
        and c.column == lead.column
        and c.labels == lead.labels
        and "|" in c.text
    ]
    if lead not in rows:
        return
    said = {(c.chunk_index, c.position) for u in units[1:] for c in u}
    others = [c for c in rows if c is not lead and (c.chunk_index, c.position) not in said][: LIST_ITEMS_MAX - 1]
    if not others:
        return
    rest = _room([kept for u in units[1:] if (kept := [c for c in u if c not in others])], limit - 1 - len(others))
    ordered = sorted([lead, *others], key=lambda c: c.position)
    header = next((c.header for c in ordered if c.header is not None), None)
    first = [header, ordered[0]] if header is not None else [ordered[0]]
    units[:] = [first, *([c] for c in ordered[1:]), *rest]


# What a lead-in says after a rule to announce its exceptions ("…不允许幼儿自带零食和饮料入园。以下情况例外：").
_EXCEPTIONS = re.compile(
    r"例外|除外|除了以下|但以下|以下情况(?:可以|除外|允许)|\bexcept\b|\bexceptions?\b", re.IGNORECASE
)


def with_exceptions(units: list[list[Candidate]], cands: Sequence[Candidate], limit: int, texts: Sequence[str]) -> None:
    """A lead that states a rule whose exceptions the next line lists ("为了食品安全，幼儿园原则上不允许幼儿自带零食和饮料
    入园。以下情况例外：" over two items) takes the words that announce them (quoted where the chunk has them: ``texts``
    are the chunks' texts by chunk index) and is followed by the items, in order, before the other units (which make
    room, as for ``whole_list``): "孩子可以带零食去幼儿园吗？" had been answered "…原则上不允许…" alone, a no where the
    handbook says "yes, for formula milk and a birthday cake" (a helper's round, session 21). Mutates ``units``."""
    lead = units[0][-1]
    if lead.lead_in or lead.in_table:
        return
    said = {(c.chunk_index, c.position) for c in units[0]}
    items, announce = [], ""
    for c in cands:
        if c.chunk_index != lead.chunk_index or c.in_table or (c.chunk_index, c.position) in said:
            continue
        at = c.lead_in_text.find(lead.text)
        if at >= 0 and _EXCEPTIONS.search(c.lead_in_text[at + len(lead.text) :]):
            items.append(c)
            announce = c.lead_in_text[at + len(lead.text) :].strip()
    items = items[:LIST_ITEMS_MAX]
    if not items:
        return
    end = lead.position + len(lead.text)
    at = texts[lead.chunk_index].find(announce, end) if announce else -1
    if at == end:  # the words that announce the exceptions, right after the rule, are quoted with it
        units[0] = [*units[0][:-1], replace(lead, text=lead.text + announce)]
    rest = [[c for c in u if c not in items] for u in units[1:]]
    units[:] = [units[0], *([c] for c in items), *_room([u for u in rest if u], limit - 1 - len(items))]


def _room(rest: list[list[Candidate]], sentences: int) -> list[list[Candidate]]:
    """``rest``'s first units, as many as fit in ``sentences`` sentences (none when it is 0 or less): the other
    units make room for a whole list, table or set of steps."""
    rest = list(rest)
    while rest and sum(map(len, rest)) > max(0, sentences):
        rest.pop()
    return rest


def same_list(a: Candidate, b: Candidate, cands: Sequence[Candidate]) -> bool:
    """Whether items ``a`` and ``b`` (same chunk, same lead-in words) are in one list: no unit of the chunk between
    them is outside a list (a sentence without a lead-in ends the list)."""
    lo, hi = sorted((a.position, b.position))
    return all(c.lead_in for c in cands if c.chunk_index == a.chunk_index and lo < c.position < hi and not c.is_header)


#: At most this many items of one list answer a question for which items.
LIST_ITEMS_MAX = 8


# A numbered step's mark at the start of its line ("1. ", "2）", "3、").
_STEP_MARK = re.compile(r"[ \t]*\d{1,2}[.)）、][ \t]*$")


def _is_step(c: Candidate, text: str) -> bool:
    """Whether ``c`` opens a numbered item of ``text`` (its chunk's text): its line starts with "1." before it."""
    return not c.in_table and bool(_STEP_MARK.fullmatch(text, text.rfind("\n", 0, c.position) + 1, c.position))


# A numbered item's label before its colon ("3. 烟花爆竹：必须在家长陪同下燃放…"): the topic the item is about.
_ITEM_LABEL = re.compile(r"\s*([^：:，,。；;\n]{1,12})[：:]")


def _label(c: Candidate) -> str:
    """The label ``c`` opens with, before its colon ("烟花爆竹" of "烟花爆竹：必须…"), stripped; "" when it has none."""
    m = _ITEM_LABEL.match(c.text)
    return m.group(1).strip() if m else ""


def _label_names(c: Candidate, terms: Sequence[str]) -> bool:
    """Whether ``c`` opens with a label ("烟花爆竹：") that holds one of ``terms`` (two characters or more) that its
    headings do not: the section's own topic (导览 under "## 语音导览", in "2. 导览机租用：…") singles out no item."""
    label = _label(c)
    return bool(label) and any(len(t) >= 2 and t in label and t not in c.heading_terms for t in terms)


def whole_steps(
    units: list[list[Candidate]],
    cands: Sequence[Candidate],
    texts: Sequence[str],
    limit: int,
    terms: Sequence[str] = (),
) -> None:
    """For a question for how to do something (``QuestionAnalysis.asks_steps``) whose lead unit is a numbered step
    of a list ("3. 在前台签订学员协议并缴纳学费。"), every step of that list (up to ``LIST_ITEMS_MAX``), in the
    document's order, leads; the other units make room (at most ``limit`` sentences besides the steps). The steps
    of one list: numbered lines of the lead's chunk with no blank line between them. "怎么报名？" had been answered
    with steps 3 and 4 of four, without the free trial class and the placement test that come first (a helper's
    round, session 19). ``texts``: each chunk's text, by chunk index. A numbered list of topics, each item labelled
    ("1. 交通安全：…", "3. 烟花爆竹：…"), whose lead item's label names one of the question's ``terms`` (its content
    terms) that no other item's label names, is no sequence of steps: that item answers on its own ("烟花爆竹怎么放" had
    been answered with the whole safety list, 交通安全 first; a helper's round, session 26). Mutates ``units``."""
    lead = units[0][-1]
    text = texts[lead.chunk_index]
    if not _is_step(lead, text):
        return
    steps = sorted(
        (c for c in cands if c.chunk_index == lead.chunk_index and _is_step(c, text)), key=lambda c: c.position
    )
    if _label_names(lead, terms) and not any(_label_names(c, terms) for c in steps if c is not lead):
        return
    at = next(i for i, c in enumerate(steps) if c is lead)
    lo = at
    while lo > 0 and "\n\n" not in text[steps[lo - 1].position : steps[lo].position]:
        lo -= 1
    hi = at
    while hi + 1 < len(steps) and "\n\n" not in text[steps[hi].position : steps[hi + 1].position]:
        hi += 1
    chosen = steps[lo : hi + 1][:LIST_ITEMS_MAX]
    if len(chosen) < 2:
        return
    rest = [kept for u in units if (kept := [c for c in u if c not in chosen])]
    units[:] = [*([c] for c in chosen), *_room(rest, limit - len(chosen))]


def lead_with_the_day(units: list[list[Candidate]], scoring: Scoring, days: frozenset[int]) -> None:
    """For a question for the hours of the days it names (wants ``clock``; ``days`` 1 = Monday .. 7), when the lead
    unit states no day at all: the best unit of ``scoring``'s pool that states one of them with a time or a closure
    ("周一：闭馆（设备保养日）") leads. "泥与火陶艺工作室周一开门吗？" had led with the page's opening sentence, which
    names the studio in full and no day (a helper's round, session 19). A lead that states other days keeps its
    place: "免费班车…只在周一至周五运行。" answers "驾校周六有班车吗？" (no), which the 周六 练车 hours do not. Mutates
    ``units``."""
    if any(stated_days(c.text) for c in units[0]):
        return
    clock = frozenset({"clock"})
    _lead_with_best(
        units, scoring, [c for c in scoring.pool if days & stated_days(c.text) and has_wanted(c.text, clock)]
    )


# A date or a day of the week: 11 月 8 日, 2024-11-08, 8 号, 周五, 星期五.
_STATES_DATE = re.compile(
    r"\d{1,2}\s*月\s*\d{1,2}\s*[日号]|\d{4}\s*[-/.年]\s*\d{1,2}\s*[-/.月]\s*\d{1,2}|\d{1,2}\s*号|(?:周|星期|礼拜)[一二三四五六日天]"
    r"|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|\b\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)",
    re.IGNORECASE,
)


def lead_with_the_date(units: list[list[Candidate]], scoring: Scoring, terms: Sequence[str]) -> None:
    """For a question for which day (``QuestionAnalysis.asks_date``: "期中考试是哪天？") whose lead unit states no date or
    weekday: the best unit that does and is about the question (it or its headings have one of ``terms``, the
    question's content terms of two characters or more) leads. "期中考试是哪天？" had led with the grading table's row
    "期中考试 | 20% | 闭卷，90 分钟" (its words, and 90 分钟 is a span of time) over "时间：2024 年 11 月 8 日（星期五）…"
    under the heading 期中考试 (a helper's round, session 21). Mutates ``units``."""
    if any(_STATES_DATE.search(c.text) for c in units[0]):
        return
    about = [t for t in terms if len(t) >= 2]
    dated = [
        c
        for c in scoring.cands
        if not c.is_header
        and _STATES_DATE.search(c.text)
        and any(t in c.terms or t in c.heading_terms or t in c.text for t in about)
    ]
    _lead_with_best(units, scoring, dated)


# A sentence that opens with the case it is about ("如果你没有 root 权限，…", "对于外地参保人，…"): the case.
_CONDITION = re.compile(
    r"^(?:如果|假如|若是?|要是|如|对于|当|if\b|when\b|for\b)([^，,。；;]{2,40})[，,]", re.IGNORECASE
)


def lead_with_the_action(
    units: list[list[Candidate]], scoring: Scoring, action: str, terms: Sequence[str] = ()
) -> None:
    """For a how-to question (``QuestionAnalysis.action``: 预约 in "洗护美容怎么预约？") whose lead unit does not say the action: the
    best unit of ``scoring``'s pool that does leads. "洗护美容怎么预约？" had led with the page's opening sentence
    ("洗护美容区在二楼，由两位持证美容师负责…"), which names the service in full and not how to book it, over
    "微信小程序“泡泡爪”预约，或拨打前台电话…" under the heading 预约方式 (a helper's round, session 20). A section
    headed by the action opens with the way to do it: its first sentence that says the action leads (not "最早预约时段
    9:30…" below it). A lead whose opening condition says the case the person states (``terms``, the question's
    content terms: root and 权限 in "我没有 root 权限，怎么安装到自己的目录？") where the sentences that say the action
    do not, in their words or headings, answers that case and stays ("如果你没有 root 权限，可以设置环境变量…改到其他
    目录" over "脚本默认把二进制文件安装到 `/usr/local/bin`。"; a helper's round, session 21). Mutates ``units``."""
    if not action:
        return
    # ... about what the lead is about: the question's most specific word, when the lead names it, is in the sentence
    # or its headings ("怎么打开童锁？" is not led by "中途添衣：…可打开机门。" over "童锁：同时按住…键 3 秒开启或解除。"; a
    # helper's round, session 22: the document says 开启, not 打开)
    words = [t for t in terms if t != action and len(t) >= 2]
    specific = min(words, key=lambda t: (general_frequency(t), -len(t)), default=None)
    if any(action in c.text for c in units[0]):
        # a lead that says the action of another thing, when a sentence names the thing asked about: that sentence
        # leads ("怎么打开童锁？" over one chunk, where 打开 is in one sentence and 童锁 in two, so "中途添衣：…可打开机门。" had
        # scored first; a helper's set of session 22, h26b-11)
        if specific is not None and not any(specific in c.text or specific in c.heading_terms for c in units[0]):
            naming = [c for c in scoring.pool if specific in c.text and not c.is_header]
            # (the line labelled by the thing, "童锁：同时按住…", before another that names it, "童锁开启时…失效。")
            labelled_by = [c for c in naming if _label(c) == specific]
            _lead_with_best(units, scoring, labelled_by or naming)
        return
    named = specific if specific is not None and any(specific in c.text for c in units[0]) else None
    lead = units[0][0]

    def labelled(c: Candidate) -> bool:
        # a line of the lead's section labelled by the action ("报名：服务台现场报名…") is the way for whatever the section
        # lists, though it does not repeat the row's name ("游泳馆的成人初级班怎么报名？", a helper's round, session 24);
        # "中途添衣：…可打开机门。" is labelled by another thing
        return (
            c.chunk_index == lead.chunk_index
            and re.match(rf"\s*{re.escape(action)}\w{{0,4}}\s*[：:]", c.text) is not None
        )

    saying = [
        c
        for c in scoring.pool
        if action in c.text
        and not c.is_header
        and (named is None or named in c.text or named in c.heading_terms or labelled(c))
    ]
    # a section headed by the action (预约方式) opens with the way to do it: its first such sentence leads
    headed = [c for c in saying if action in c.heading_terms]
    if headed:
        saying = [min(headed, key=lambda c: (c.chunk_index, c.position))]
    # (a case: the lead's condition, "如果你没有 root 权限，…", says words of the question the action's sentences lack)
    condition = _CONDITION.match(units[0][0].text)
    said = condition.group(1) if condition else ""
    case = {t for t in terms if t != action and t in said}
    if saying and any(t not in c.terms and t not in c.heading_terms for c in saying for t in case):
        return
    _lead_with_best(units, scoring, saying)
