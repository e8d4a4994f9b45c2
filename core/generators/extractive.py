"""The offline extractive generator (the embedded default: no key, no network).

It answers with up to ``max_sentences`` sentences copied verbatim from the
retrieved chunks. Each sentence of each chunk is scored by the IDF-weighted
share of the question's terms it contains (terms found only in the chunk's
heading path count half; plus a small prior for the chunk's rank, and a bonus
``TYPE_BONUS`` when the sentence has what the question type asks for: a number or
date for 多少/几/何时/哪一年/how many/when, a person name for 谁/who, a place name for
哪里/where, a precedence (优先/为准) for 以哪条为准/哪个优先/which takes precedence:
``core.generators.question_types``, and ``FORM_BONUS`` per form of the question it answers in
kind: a yes/no question and a sentence that says no or only, a question about a case and a sentence that
states one; for a question for drawbacks, its subject's words plus
``DRAWBACK_BONUS`` for a sentence that states a drawback or sits in a limits section, ``core.retrieval.aspects``).

What is kept (``select``):
* only sentences that address the question: at least one question term in the
  sentence itself and a score of at least half the best one;
* no filler: navigation sentences ("阅读 Secret。", "参阅……", "具体描述详见 …") are never used, nor a
  references section (另请参阅, See also: its links' titles) or a line that is only links; a note written
  as a blockquote ("> **警告：**" then "> * …") is prose like any other;
* a table's body row is quoted like a sentence (``sentences.table_rows``), its header's words part of its
  heading; a row of two or more values under its header row, which is quoted once per answer; a long row of
  prose cells by its cells' sentences;
* a plain English word of the question found only inside a code span or a path of a sentence
  (`pessimistic-txn.…`, /var/log/order/) does not match; a name the question writes (CronJob) does;
* no sentence that needs its lost context: one that starts with a connective
  (不过/但是/因此/此外/否则…) is used only together with the sentence before it
  in its chunk, and one that starts with a pronoun (这/该/此/它/其…) only when it
  opens its chunk (its heading names the subject) or comes with its predecessor;
* when no sentence shares a term with the question (an English question over Chinese chunks), the
  sentences closest in meaning lead (``Generator.sentence_similarity``, the second embedder's cosine;
  without one, the best chunk's first sentence that stands on its own);
* a one-part Chinese question naming things (TiCDC) that none of the quoted chunks mentions gets a line
  that says so before the nearest sentences (``question_types.unmentioned``), like a bound, number,
  version or price the sentences do not state (``question_types.unstated``);
* near-duplicates are skipped (maximal marginal relevance on term sets,
  Carbonell & Goldstein 1998), at most ``max_per_chunk`` per chunk;
* a comparison ("X 和 Y 有什么区别", "difference between X and Y") gets the best
  sentence about each side (``core.generators.compare``: a chunk headed by one side is
  about it; naming the other side in passing there does not cover that side); when the
  chunks say nothing about one side, the answer ends with a sentence that names it (it
  cites nothing, so it is shown as 本段无出处).

Layout: the best sentence (with its predecessor when it needs one) leads as
its own paragraph; the others follow as a list grouped by source (document in
order of first appearance, then chunk rank, then position). Each quoted
sentence has one support on exactly its span, citing the chunk it came from,
with the sentence as ``quote``. Offsets are code points.

Why over 400 lines: one job, scoring and choosing the quoted sentences. The sentence splitting and table rows are
``core.generators.sentences``, the units read from the chunks ``candidates``, what a sentence states
``question_types``, comparisons ``compare``, and the rules that put the chosen units in order and complete them
(a part, a follow-up's news, a detail in the next sentence) ``arrangement``, the whole list, table or steps asked
for ``lists``; the scoring reads the
question's words, form, wants and parts together, and a third of the file is this account and the measured
constants' reasons.
"""

from __future__ import annotations

import logging
import math
import re
from typing import Any, Sequence

from core.clock import meets, named_days, stated_days, stated_times
from core.designations import is_designation, number_of
from core.errors import AppError
from core.generators.arrangement import (
    Scoring,
    close_clause_gaps,
    complete_clause,
    continue_lead,
    cover_both_sides,
    lead_with,
    lead_with_news,
    lead_with_the_subjects_price,
    open_clause,
    precede_lead,
    unit_of,
)
from core.generators.base import Generator, OnText
from core.generators.candidates import Candidate, candidates, written_in
from core.generators.lists import (
    lead_with_asked_list,
    lead_with_the_action,
    lead_with_the_date,
    lead_with_the_day,
    names_a_kind,
    whole_list,
    whole_steps,
    with_exceptions,
)
from core.generators.quantities import in_stated_range, quantity_in_stated_range, same_quantity, states_asked_unit
from core.generators.question_types import (
    NOT_MENTIONED,
    NOT_STATED,
    PHONE_WORDS,
    UNSTATED_DETAIL,
    forms_answered,
    has_wanted,
    names_wanted,
    says_phone_number,
    unmentioned,
    unstated,
    wanted_share,
)
from core.lexical import STOPWORDS, general_frequency, tokenize
from core.models import AuditEntry, Draft, DraftSupport, RetrievedChunk
from core.retrieval.asked_detail import states_duration, subject_word
from core.retrieval.aspects import DRAWBACK_EVIDENCE, is_limits_section, without_drawback_words
from core.retrieval.english_glosses import ENGLISH_FUNCTION_WORDS, english_meanings, says_meaning
from core.retrieval.question import CJK, analyse
from core.segmentation import CJK_WORD, are_siblings, common_nouns

log = logging.getLogger(__name__)

#: Added to a sentence's relevance when it has what the question type asks for (a number or date
#: for 多少/几/何时, a person for 谁, a place for 哪里); measured on CMRC dev (docs/measurements.md).
TYPE_BONUS = 0.15
#: Added, for a question for drawbacks, to a sentence that states one or sits in a limits section
#: (``core.retrieval.aspects``); no dev question asks for drawbacks (set on the probe questions in docs/measurements.md).
DRAWBACK_BONUS = 0.3
#: Added for each form of the question a sentence answers in kind (``core.generators.question_types``):
#: a yes/no question and a sentence that says no or only (不/无法/仅…), a question about a case
#: (如果/要是…) and a sentence that states one. Measured on every dev set (docs/measurements.md, issue 27).
FORM_BONUS = 0.1
#: Added for a sentence whose stated range holds a quantity the person states of their case (三天 in "48 小时以上、不足
#: 8 天"): it is the clause written for them (a helper's round, session 23).
CASE_BONUS = 0.2
#: Subtracted from a sentence's relevance when it names a sibling of the question's noun and not the noun.
SIBLING_PENALTY = 0.2
#: A part of a several-part question counts as answered when a chosen sentence scores at least this
#: share of the part's best sentence; the whole question's relevance joins a part's at this weight
#: (``ExtractiveGenerator._cover_parts``; measured on every dev set, docs/measurements.md, issue 27).
PART_COVERED = 0.8
PART_CONTEXT = 0.3
#: When no sentence shares a term with the question (an English question over Chinese chunks), a
#: sentence's relevance is its cosine with the question (``Generator.sentence_similarity``) plus these
#: small shares of the chunk-rank prior and of the question-type match, so the cosine decides. Set, not
#: tuned (one dev question changed: clinic-018; docs/measurements.md, "Session 9", issue 27).
CROSS_RANK = 0.05
CROSS_TYPE_BONUS = 0.05
#: ... except a phone number for a question that asks for one ("What is the phone number for reporting a lost card?"):
#: a number's form is no sense of a word, and the sentence that gives it may share little meaning with the question,
#: so any sentence that gives one comes before those that do not
#: ("- 24 小时客服热线 400-820-6688…" scored 0.16 against the 0.47 of the channels' line; a helper's round, session 24).
CROSS_PHONE_BONUS = 0.5
#: ... and a sentence joins the lead only when it scores at least this share of the lead's cosine (words
#: matched: half of the lead's score). Cosines sit close together, so at 0.5 every top-k chunk's sentence
#: came along once such a question gets every top-k chunk as evidence (clinic English answers: 4.8 sentences;
#: 0.8: 2.6, every figure the same; 0.9: 1.4; docs/measurements.md, session 11).
SEMANTIC_KEEP = 0.8
#: ... a Chinese question's words an English sentence says in their dictionary meanings add this weight times their
#: share of the question's term weight (a Chinese question over a base's English pages; session 23).
MEANING_WEIGHT = 0.5
# What a question for a time of day wants of a sentence (``has_wanted``).
_CLOCK = frozenset({"clock"})
# A question for a default value (``QuestionAnalysis.asks_default_value``) is led by a sentence that says the default
# with a number: "…默认地址为 `http://localhost:1414/`" before "用 `papyr server -p 1515` 换一个端口即可。" for "papyr
# server 默认端口是多少" (the other sentence has the question's words 端口 and papyr server; a helper's round, session 26).
_SAYS_DEFAULT = re.compile(r"默认|缺省|\bdefaults?\b", re.IGNORECASE)
_NUMBER = frozenset({"number"})


class ExtractiveGenerator(Generator):
    """Verbatim sentences from the chunks, each with its support."""

    name = "extractive"
    model = None
    uses_history = False

    def __init__(self, max_sentences: int = 5, max_per_chunk: int = 2) -> None:
        if max_sentences <= 0:
            raise ValueError(f"max_sentences must be > 0, got {max_sentences}")
        self.max_sentences = max_sentences
        self.max_per_chunk = max_per_chunk

    def generate(
        self,
        question: str,
        chunks: Sequence[RetrievedChunk],
        history: Sequence[tuple[str, str]] = (),
        on_text: OnText | None = None,
    ) -> Draft:
        """The extracted sentences as one ``Draft``; ``on_text`` gets the whole text once. ``history``: the
        conversation's earlier turns, oldest first (``(question, answer)`` pairs or bare questions): a name
        they hold was carried into ``question`` by query resolution, so its absence from the answer is not
        reported (``unmentioned``)."""
        turns = [(t, "") if isinstance(t, str) else (t[0] or "", t[1] or "") for t in history]
        draft = self._extract(question, chunks, turns)
        if on_text is not None and draft.text:
            on_text(draft.text)
        return draft

    def _extract(self, question: str, chunks: Sequence[RetrievedChunk], turns: Sequence[tuple[str, str]] = ()) -> Draft:
        scoring = self._scoring(question, chunks)
        if scoring is None:
            return Draft(parts=("",), supports=(), generator=self.info)
        cands, previous, relevance = scoring.cands, scoring.previous, scoring.relevance
        units = self._select(
            sorted(scoring.pool, key=lambda c: (-relevance(c), c.chunk_index, c.position)),
            previous,
            relevance,
            scoring.keep,
        )
        at = 0
        while at < len(units):  # the lead may take a clause that was a unit of its own
            complete_clause(units, previous, at)
            open_clause(units, previous, at)
            at += 1
        q = analyse(question)
        if units and "list" in scoring.wants:
            lead_with_asked_list(units, scoring)
            whole_list(units, cands, self.max_sentences, q.content_terms, q.items)
        if units and "money" in scoring.wants and len(q.parts) == 1:
            lead_with_the_subjects_price(units, subject_word(question, [rc.chunk.text for rc in chunks]))
        if units and "clock" in scoring.wants and q.days:
            lead_with_the_day(units, scoring, q.day_set)
        elif units and "clock" in scoring.wants and len(q.parts) == 1:
            # "晚餐几点开始供应？": the row "晚餐 | 17:00–18:30 | …" before "…当天不供应晚餐…", which names no time (a
            # helper's round, session 25); a unit that gives a time of the question's topic
            about = [t for t in q.content_terms if len(t) >= 2 and t not in q.kind_words]
            lead_with(
                units, lambda u: any(has_wanted(c.reading, _CLOCK) and any(t in c.reading for t in about) for c in u)
            )
        if units and q.unit:  # "那一个班有多少人？": "成人班每班不超过 6 人" before the class's row of ages and prices
            lead_with(units, lambda u: states_asked_unit(question, [c.reading for c in u]))
        elif units and q.asks_duration:  # "How long is the warranty on the inverter motor…?": the row with 10 年 first
            lead_with(units, lambda u: any(states_duration(c.reading) for c in u))
        if units and q.asks_default_value:  # "papyr server 默认端口是多少": the line that says the default first
            lead_with(units, lambda u: any(_SAYS_DEFAULT.search(c.text) and has_wanted(c.text, _NUMBER) for c in u))
        texts = [rc.chunk.text for rc in chunks]
        if units and "list" not in scoring.wants and not q.asks_steps:
            with_exceptions(units, cands, self.max_sentences, texts)
        if units and q.asks_date:
            lead_with_the_date(units, scoring, q.content_terms)
        if units and q.asks_steps:
            lead_with_the_action(units, scoring, q.action, q.content_terms)
            whole_steps(units, cands, texts, self.max_sentences, q.content_terms)
        if units and scoring.wants & {"reason", "effect"}:
            continue_lead(units, previous, scoring.wants)
        detail = scoring.wants & _DETAILS
        if units and detail and not any(has_wanted(c.reading, detail) for u in units for c in u):
            for at in range(len(units)):
                if continue_lead(units, previous, detail, at):
                    break
        # a detail that would otherwise be "not stated" (``unstated``; a time of day is not checked, and "周末在家能用电钻
        # 打孔吗？" is no question for the weekday hours before its answer) from the sentence before a unit: each such
        # detail on its own ("晚接怎么收费？一学期晚接几次会被约谈？" has its count, not its price)
        for kind in sorted(detail - {"clock"}):
            wanted = frozenset({kind})
            if units and not any(has_wanted(c.reading, wanted) for u in units for c in u):
                for at in range(len(units)):
                    if precede_lead(units, previous, wanted, texts, at):
                        break
        if units:
            self._cover_parts(question, chunks, units, scoring)
        if units and turns:
            lead_with_news(question, units, turns, scoring, self.max_sentences)
        note = cover_both_sides(question, units, cands, chunks, previous, relevance) if units else ""
        close_clause_gaps(units, previous)
        draft = self._draft(units, chunks, relevance, note)
        if not units:
            return draft
        sources = [chunks[u[0].chunk_index].chunk for u in units]
        headings = [" ".join(chunk.heading_path) for chunk in sources]
        earlier = "\n".join(f"{asked}\n{said}" for asked, said in turns)
        names = unmentioned(question, [(h, chunk.text) for h, chunk in zip(headings, sources)], earlier)
        if names:
            return _not_stated(draft, "subject", NOT_MENTIONED.format(names))
        contexts = [(h, " ".join(c.reading for c in u)) for h, u in zip(headings, units)]
        missing = unstated(question, [c.reading for u in units for c in u], contexts)
        return _not_stated(draft, missing, NOT_STATED.format(UNSTATED_DETAIL[missing])) if missing else draft

    def _cover_parts(
        self, question: str, chunks: Sequence[RetrievedChunk], units: list[list[Candidate]], scoring: "Scoring"
    ) -> None:
        """For a question with several parts (``QuestionAnalysis.parts``: "…能一起用吗？另外，…会怎样？"): a part
        that no chosen sentence answers as well as ``PART_COVERED`` of its best sentence gets that best
        sentence as a unit of its own. The best sentence is the one scoring highest as an answer to the part
        on its own (its words, type and form) plus ``PART_CONTEXT`` of the whole question's relevance (its
        subject may be in another part: "…打流感疫苗…那个时段能打吗？要不要花钱？"); whether a chosen sentence
        covers the part is judged on the part alone, so a sentence chosen for another part does not count for
        this one by the whole question's share ("城乡居民医保…能报多少？用它打自费的 HPV 疫苗能报销吗？": a
        reimbursement sentence chosen for the first part had covered the second). Mutates ``units``."""
        parts = analyse(question).parts
        if len(parts) < 2:
            return
        for i, part in enumerate(parts):
            own = self._scoring(part, chunks)
            if own is None or not own.pool:
                continue

            def answers(c: Candidate, own: Scoring = own) -> float:
                return own.relevance(c) + PART_CONTEXT * scoring.relevance(c)

            pool = [c for c in scoring.cands if c in own.pool]
            best = max(pool, key=answers, default=None)
            if best is None:
                continue
            # ... and of the sentences that match as many of the part's words, one that has what it asks for (a price,
            # a time): "押金多少？什么时候退？" is answered by "押金为一个月房租…", not by "…押金不退；" from the better-ranked
            # chunk (a helper's round, session 21)
            if not own.parts(best)["typ"]:
                cov = own.parts(best)["cov"]
                typed = [c for c in pool if own.parts(c)["typ"] and own.parts(c)["cov"] >= cov]
                best = max(typed, key=answers, default=best)

            # ... and has what the part asks for (a time, a number) when its best sentence has it: "地铁站客服中心
            # 几点营业？" is not answered by "…不能在地铁站客服中心办理。" (a helper's round, session 18)
            enough, typ = PART_COVERED * own.relevance(best), own.parts(best)["typ"]

            def covers(u: list[Candidate], own: Scoring = own, enough: float = enough, typ: float = typ) -> bool:
                return any(c in own.pool and own.relevance(c) >= enough and own.parts(c)["typ"] >= typ for c in u)

            if not any(covers(u) for u in units):
                unit = unit_of(best, scoring.previous)
                fresh = [c for c in unit or () if not any(c == o for u in units for o in u)]
                if fresh:
                    units.append(fresh)
            if i == 0:
                lead_with(units, covers)

    def features(self, question: str, chunks: Sequence[RetrievedChunk]) -> list[tuple[str, int, dict[str, float]]]:
        """Each candidate sentence as ``(sentence, chunk index, parts)``: the parts of its relevance
        (``cov`` IDF-weighted share of the question's terms in it, ``head`` the share only in its heading
        path, ``rank`` 1/(1 + chunk rank), ``typ`` and ``form`` 1 when it has what the question's type
        or form asks for) and ``score``, the relevance itself. For ``benchmarks/sentence_selection.py``;
        empty when no chunk has a sentence."""
        scoring = self._scoring(question, chunks)
        if scoring is None:
            return []
        return [(c.text, c.chunk_index, {**scoring.parts(c), "score": scoring.relevance(c)}) for c in scoring.cands]

    def _scoring(self, question: str, chunks: Sequence[RetrievedChunk]) -> "Scoring | None":
        """The candidates, their predecessors, the relevance function and the pool to select from;
        None when no chunk has a sentence."""
        cands, previous = candidates(chunks)
        q = analyse(question)
        if not cands and q.asks_steps:  # e.g. steps that each announce a command: the steps, without their colons
            cands, previous = candidates(chunks, lead_ins=True)
        if not cands:
            return None
        wants, forms = q.wants, q.forms
        # a price, a version, a date, a time of day or a phone number is the number asked for (多少钱, 哪个版本, 什么时候, 几点,
        # 电话是多少): any
        # other number is not it (the 六 of "开放时间按周六执行" for "周六的开放时间是几点到几点？", session 19)
        typed = wants - {"number"} if wants & {"money", "version", "when", "clock", "phone"} else wants
        # a question for drawbacks is scored by its subject's words, plus DRAWBACK_BONUS for a sentence
        # that states a drawback or sits in a limits section (core.retrieval.aspects); 限制 alone is not one
        drawback = q.drawback
        limits = [drawback and is_limits_section(rc.chunk.heading_path[1:]) for rc in chunks]
        worded = without_drawback_words(question) if drawback else question
        q_terms = [t for t in dict.fromkeys(tokenize(worded) if drawback else q.terms) if t not in STOPWORDS]
        q_terms = _joined_terms(q_terms, worded, cands)
        # the number of a floor or building the question names is that floor or building (``core.designations``), not
        # a number of its own: the 5 of "When will building 5 be inspected?" is no match for "…至 11 月 5 日" of the
        # 1—3 栋 row (a helper's set of session 26, h38c c11)
        of_places = {number_of(t) for t in q_terms if is_designation(t)}
        q_terms = [t for t in q_terms if t not in of_places]

        named = {w.lower() for name in q.named for w in [name, *tokenize(name)]}
        # two adjacent words of the question written as one name ("log level" in `--log-level`, TIDESYNC_LOG_LEVEL): the
        # question names that option, and its words are found there although only inside code (a helper's round,
        # session 21: "What is the default log level?" had been led by "日志默认输出到标准错误；")
        latin = re.findall(r"[a-z][a-z0-9]*", question.lower())
        joined = {f"{a}{sep}{b}": (a, b) for a, b in zip(latin, latin[1:]) for sep in "-_"}
        prose: dict[tuple[int, int], frozenset[str]] = {}

        def in_prose(t: str, c: Candidate) -> bool:
            # a plain English word of the question ("pessimistic") found only inside a code span of the sentence
            # (`pessimistic-txn.deadlock-history-collect-retryable`), a path ("/var/log/order/") or a hyphenated
            # name ("DL-Library") names nothing the question asks about; unless the question writes that name too
            # ("…with a 32-bit OS?" over "32-bit ARM is not supported.": a helper's round, session 23)
            key = (c.chunk_index, c.position)
            if key not in prose:
                asked = question.lower()
                prose[key] = frozenset(
                    tokenize(
                        _CODE_SPAN.sub(lambda m: m.group(0) if m.group(0).strip("`").lower() in asked else " ", c.text)
                    )
                )
            return t in prose[key]

        # the words of a time of day the question names (中午 十二 十二点) are found in a sentence whose
        # times include it ("午间 11:30–13:30 …"): an hours page says the time in figures and ranges
        time_words = frozenset(t for t in q_terms if any(t in words for words, _ in q.times))
        # ... and a day of the week it names (周三) in a sentence whose days include it ("周一至周五：09:00–19:00";
        # a helper's round, session 18: "单车铺周三营业到几点？" had been answered with the 周六 hours)
        day_words = (
            {t: days for t in q_terms for words, days in q.days if t in words.lower() and named_days(t)}
            if CJK.search(question)
            else {}  # an English question's day is weighed with its meaning (``by_meaning``): 口腔科 for "dental"
        )
        asked_days = q.day_set

        # a table's rows by their first cell, what each row is about ("普通班 | C1 手动挡 | 4800")
        # (a table split across chunks repeats its header row: its rows are one table's, whichever chunk they are in)
        keys: dict[str, list[str]] = {}
        for c in cands:
            if c.header_row and "|" in c.text:
                keys.setdefault(c.header_row, []).append(c.first_cell)

        def names_another_row(t: str, c: Candidate) -> bool:
            # a word that names another row of the table (its first cell) names that row, not this one, where it
            # is only a later cell's word ("周末班 | C1 手动挡 | 5600 | 同普通班" is not the 普通班 row; a helper's
            # round, session 19: "那 C1 呢？" after "普通班 C2 学费多少？" led with it)
            if not c.header_row or "|" not in c.text or t in c.first_cell:
                return False
            return any(t in key for key in keys.get(c.header_row, ()))

        row_words = [t for t in q_terms if len(t) >= 2]  # the question's words that may name a row

        def of_another_row(c: Candidate) -> bool:
            # a row of a table whose other row the question names by its first cell (a word of that cell, not of this
            # row's), while naming nothing of this row's first cell that the other lacks: "chunk_size 最大可以设到多少？"
            # is about the `chunk_size` row, not the `max_retries` row whose description says 最大重试次数, and
            # "固定工位每月多少钱？" not about the 流动工位 rows (a helper's round, session 21)
            if not c.header_row or "|" not in c.text:
                return False
            own = c.first_cell
            return any(
                any(t in key and t not in own for t in row_words)
                and not any(t in own and t not in key for t in row_words)
                for key in keys.get(c.header_row, ())
                if key != own
            )

        def of_the_case(t: str, c: Candidate) -> bool:
            # a quantity the question states in a range the sentence states: "工作满 12 年" in "已满 10 年不满 20 年的，年
            # 休假 10 天" (a helper's round, session 17), 两天 in "迟交 24 至 72 小时" (session 21)
            return (t[:1].isdigit() and in_stated_range(t, question, c.text)) or quantity_in_stated_range(t, c.text)

        def found(t: str, c: Candidate) -> bool:
            if names_another_row(t, c):
                return False
            if t in time_words and meets(q.time_spans, stated_times(c.text)):
                return True
            if t in day_words and day_words[t] & stated_days(c.text):
                return True
            if t in PHONE_WORDS and says_phone_number(c.text):  # 电话 in "全国服务热线：400-820-6688"
                return True
            # a floor or building (5楼, 15号楼: ``core.designations``, a range's numbers included) is found as a term
            if is_designation(t):
                return t in c.terms
            if of_the_case(t, c):
                return True
            if t[:1].isdigit() and not same_quantity(t, question, c.text):
                return False  # "孩子 10 岁" is not answered by "…借阅 10 册图书" (a helper's round)
            # a term of the sentence, or a Chinese term of two or more characters inside its text: jieba cuts
            # the same words differently in the question and the sentence ("亨丁顿舞蹈症病发时" → 舞蹈 / 症病 /
            # 发时, "…手舞足蹈一样，病发时…" → 手舞足蹈 / 病发 / 时会; CMRC DEV_75). Measured on every dev set:
            # cmrc first ⊇ gold 70.6 → 74.5%, no other cell moves; single characters (丢 in 丢失) moved
            # clinic and tidb the wrong way (docs/measurements.md, session 11)
            if t in c.terms:
                if t in ENGLISH_FUNCTION_WORDS and t not in named:  # (all of ALL_SQL_DIGESTS is a name's)
                    # an English word that asks or does little, written in the sentence, is no match: "per" and "much"
                    # of "How much is electricity per kWh?" had matched "…a fee of 0.5% of the due rent per day." on a
                    # base's English page (a helper's round, session 27); it keeps its weight, and what its meaning
                    # finds in a Chinese sentence (most: 最多) is found as before
                    return False
                return (
                    not t.isascii()
                    or t in named
                    or in_prose(t, c)
                    or any(t in pair and name in c.text.lower() for name, pair in joined.items())
                )
            if written_in(t, c.text):
                return True
            return names_wanted(t, c.text, wants)  # 版本 in "从哪个版本开始支持" found in "从 v6.2.0 开始支持"

        def states_drawback(c: Candidate) -> float:
            # DRAWBACK_BONUS for a question for drawbacks and a sentence that states one or sits in a limits
            # section, unless it is listed under the section's advantages
            if not drawback or not (limits[c.chunk_index] or DRAWBACK_EVIDENCE.search(c.text)):
                return 0.0
            return 0.0 if _under_advantages(chunks[c.chunk_index].chunk.text, c.position) else DRAWBACK_BONUS

        # each sentence's matched question terms and drawback bonus, once: relevance is asked many times
        # a row quoted under its header row has the header's words in the answer too
        # a question for which items finds a list's items by their lead-in's words, when the lead-in announces what
        # the question asks for or announces nothing it names ("有哪几种会员卡？" is not answered by the items under
        # "办理会员卡需要准备以下材料：", a helper's round, session 17)
        asked_items = frozenset(q.items)

        def by_lead_in(t: str, c: Candidate) -> bool:
            return (
                "list" in wants
                and c.in_lead_in(t)
                and (not c.announces or not asked_items or bool(c.announces & asked_items))
            )

        def an_asked_item(c: Candidate) -> bool:
            # an item of the list the question asks for: its lead-in announces or names what is asked (本校目前开设
            # 以下班型： for "驾校有哪些班型？"), or the row's table lists it in its first column (卡种 for 卡); the
            # best such item leads (``lead_with_asked_list``). As a score bonus instead, it cost tidb-003 the
            # PHYSICAL item of a list split across two chunks (measured, session 19)
            if "list" not in wants or not asked_items:
                return False
            if c.lead_in:
                if c.announces:  # 以下材料 announces 材料, not the 会员卡 it names
                    return bool(c.announces & asked_items)
                # ... or, when the lead-in names no kind, the item names one of what is asked (狂犬疫苗 for 哪些疫苗)
                return all(c.in_lead_in(t) for t in asked_items) or all(names_a_kind(c.text, t) for t in asked_items)
            return bool(c.column) and all(t in c.column for t in asked_items)

        hits = {
            (c.chunk_index, c.position): frozenset(
                t for t in q_terms if found(t, c) or t in c.labels or by_lead_in(t, c)
            )
            if not of_another_row(c)
            else frozenset()
            for c in cands
        }
        bonus = {(c.chunk_index, c.position): states_drawback(c) for c in cands}
        # the sentences whose stated range holds a quantity the person states of their case ("提前三天退" in "开车前 48
        # 小时以上、不足 8 天 | 5%"; "工作满 12 年" in "已满 10 年不满 20 年的")
        # (a calendar year is no quantity of the person's: "2008年" is not a case of "2007年至2008年期间", CMRC DEV_377)
        # ... nor an ordinal: 第二天 is the next day, not two days (h29a-24)
        stated = [t for t in q_terms if not (t.isdigit() and len(t) == 4) and f"第{t}" not in question]
        cases = {(c.chunk_index, c.position): any(of_the_case(t, c) for t in stated) for c in cands}
        df: dict[str, int] = {}
        for matched in hits.values():
            for t in matched:
                df[t] = df.get(t, 0) + 1
        n = len(cands)
        weight = {t: math.log(1 + n / (1 + df.get(t, 0))) for t in q_terms}
        total = sum(weight.values()) or 1.0

        # a question for what something is or means ("错误码 E3005 是什么意思？") is answered by the opening sentence
        # of the section the thing heads ("## E3005 缓存已满" → "Agent 与服务器的连接中断时间过长…已经写满。"), which
        # need not repeat the heading's words (a helper's round)
        titles = [
            frozenset(tokenize(rc.chunk.heading_path[-1])) if rc.chunk.heading_path else frozenset() for rc in chunks
        ]

        def opens_section(c: Candidate) -> bool:
            return (
                "definition" in forms
                and c.order == 0
                and not c.in_table
                and not c.needs_previous
                and any(t in titles[c.chunk_index] for t in q_terms if len(t) >= 2)
            )

        # a number in another unit than the one asked (百分之几 over "低于 40 分") is not what is asked
        in_unit = {(c.chunk_index, c.position): states_asked_unit(question, [c.reading]) for c in cands if q.unit}

        def typ(c: Candidate) -> float:
            if opens_section(c):
                return 1.0
            share = wanted_share(c.reading, typed, question) if typed else 0.0
            return 0.0 if "number" in typed and not in_unit.get((c.chunk_index, c.position), True) else share

        def parts(c: Candidate) -> dict[str, float]:
            matched = hits[(c.chunk_index, c.position)]
            return {
                "cov": sum(w for t, w in weight.items() if t in matched) / total,
                "head": sum(w for t, w in weight.items() if t in c.heading_terms and t not in matched) / total,
                "rank": 1.0 / (1 + c.chunk_index),
                "typ": typ(c),
                "form": float(len(forms_answered(c.text, forms))) if forms else 0.0,
            }

        # only nouns the evidence itself names elsewhere: then a sibling there is another thing, not a synonym
        asked_nouns = frozenset(t for t in common_nouns(question) if any(t in c.text for c in cands))

        def sibling(c: Candidate) -> bool:
            # the sentence names another thing of the kind the question names (免费版 for 专业版: common nouns of
            # the same length and last character), not the question's own, and not one the question also names
            # ("标准版 专业版呢？" carried from a follow-up); measured on every dev set, two characters were too
            # loose (家人 for 老人 cost clinic-027 a part), three moved no dev answer
            if not asked_nouns:
                return False
            present = common_nouns(c.text)  # cached
            return any(
                t not in c.text and any(are_siblings(t, w) and w not in question for w in present) for t in asked_nouns
            )

        def relevance(c: Candidate) -> float:
            # question terms in the sentence, plus half weight for those only in its heading path
            # (measured: CMRC answers containing gold 78.8% → 82.7%, k8s-dev unchanged; docs/measurements.md)
            p = parts(c)
            score = p["cov"] + 0.5 * p["head"] + 0.15 * p["rank"] + TYPE_BONUS * p["typ"] + FORM_BONUS * p["form"]
            score += CASE_BONUS * bool(cases[(c.chunk_index, c.position)])
            return score + bonus[(c.chunk_index, c.position)] - (SIBLING_PENALTY if sibling(c) else 0.0)

        pool = [c for c in cands if hits[(c.chunk_index, c.position)] or opens_section(c)]
        if not pool and CJK.search(question):
            # the question's words only in a section's headings ("期末考试是什么时候，在哪里考？" over "## 期末考试" and
            # its lines "时间：…", "地点：…", "范围：…"): its sentences, by what the question asks for (a helper's round,
            # session 21: the meaning of the lines had put 范围 before 地点, and 地点 was left out)
            pool = [c for c in cands if parts(c)["head"] > 0 and not c.is_header]
        semantic = None if pool else self._semantic(question, cands)
        if semantic is not None:
            # nothing in the sentences matches the question's words (e.g. an English question over
            # Chinese text): the sentences closest in meaning (``sentence_similarity``), with a small
            # share of the chunk-rank prior and of the question-type match

            # ... and a Chinese question's words found in an English sentence by their dictionary meanings (每周 →
            # weekly, 快照 → snapshot: ``english_meanings``), the share of the question's term weight so found
            meant = (
                {(c.chunk_index, c.position): _meant_share(q_terms, weight, c) for c in cands}
                if CJK.search(question)
                else {}
            )

            def by_meaning(c: Candidate) -> float:
                p = parts(c)
                return (
                    semantic.get((c.chunk_index, c.position), -1.0)
                    + CROSS_RANK * p["rank"]
                    + CROSS_TYPE_BONUS * p["typ"]
                    + CROSS_TYPE_BONUS * bool(asked_days & stated_days(c.text))  # "on Tuesday": 周二至周四
                    + CROSS_PHONE_BONUS * ("phone" in wants and says_phone_number(c.text))
                    + MEANING_WEIGHT * meant.get((c.chunk_index, c.position), 0.0)
                    + bonus[(c.chunk_index, c.position)]
                )

            return Scoring(cands, previous, by_meaning, parts, list(cands), wants, SEMANTIC_KEEP, an_asked_item)
        if not pool:
            # ... and without a sentence similarity: the opening sentence of the best-ranked chunk that
            # has one standing on its own (a chunk of commands and announcements may have none), which
            # retrieval chose; for a question for drawbacks, the first that states one
            first = min(
                (c for c in cands if not c.needs_previous),
                key=lambda c: (-bonus[(c.chunk_index, c.position)], c.chunk_index, c.position),
                default=None,
            )
            pool = [first] if first is not None else []
        return Scoring(cands, previous, relevance, parts, pool, wants, asked_item=an_asked_item)

    def _semantic(self, question: str, cands: list[Candidate]) -> dict[tuple[int, int], float] | None:
        """(chunk index, position) of each candidate → cosine of ``question`` and the sentence (``sentence_similarity``); None
        without a similarity or when it fails (logged; the lexical fallback then stands)."""
        if self.sentence_similarity is None or not cands:
            return None
        try:
            cosines = self.sentence_similarity(question, [c.text for c in cands])
        except AppError:
            log.warning(
                "sentence similarity failed; the extractive answer falls back to the first sentence", exc_info=True
            )
            return None
        return {(c.chunk_index, c.position): v for c, v in zip(cands, cosines)}

    def _select(self, scored, previous, relevance, keep: float = 0.5) -> list[list[Candidate]]:  # noqa: ANN001
        """Units (a sentence, or a sentence with the predecessor it needs), best first."""
        units: list[list[Candidate]] = []
        used = 0
        per_chunk: dict[int, int] = {}
        for c in scored:
            if used >= self.max_sentences or (units and relevance(c) < keep * relevance(units[0][-1])):
                break
            if per_chunk.get(c.chunk_index, 0) >= self.max_per_chunk:
                continue
            if any(c.text == o.text or _jaccard(c.terms, o.terms) > 0.6 for u in units for o in u):
                continue
            unit = unit_of(c, previous)
            if unit is None:
                continue
            unit = [x for x in unit if not any(x is o for u in units for o in u)]
            if used + len(unit) > self.max_sentences:
                continue
            units.append(unit)
            used += len(unit)
            per_chunk[c.chunk_index] = per_chunk.get(c.chunk_index, 0) + 1
        return units

    def _draft(self, units, chunks, relevance, note: str) -> Draft:  # noqa: ANN001
        """Lead unit as a paragraph, the rest as a list grouped by source (the other items of a list whose item
        leads first, in order), then the note."""
        if not units:
            return Draft(parts=(note,) if note else ("",), supports=(), generator=self.info)
        doc_order: dict[str, int] = {}
        for rc in chunks:
            doc_order.setdefault(rc.chunk.source_id, len(doc_order))
        lead, rest = units[0], units[1:]
        first = lead[-1]

        def in_leads_list(u: list[Candidate]) -> bool:
            return bool(first.lead_in) and u[0].chunk_index == first.chunk_index and u[0].lead_in == first.lead_in

        rest.sort(
            key=lambda u: (
                not in_leads_list(u),
                doc_order[chunks[u[0].chunk_index].chunk.source_id],
                u[0].chunk_index,
                u[0].position,
            )
        )
        text = ""
        supports: list[DraftSupport] = []

        headers: set[tuple[int, int]] = set()

        def put(unit: list[Candidate]) -> None:
            nonlocal text
            said = False
            for c in unit:
                if c.is_header:  # once per answer, on a line of its own
                    if (c.chunk_index, c.position) in headers:
                        continue
                    headers.add((c.chunk_index, c.position))
                elif said and (c.header is not None or unit[0].is_header):
                    text += "  \n"  # the row under its header: a line break (CommonMark hard break)
                elif said and not _CJK_END.search(text):
                    text += " "
                said = True
                supports.append(
                    DraftSupport(
                        start=len(text),
                        end=len(text) + len(c.text),
                        chunk_ids=(chunks[c.chunk_index].chunk_id,),
                        unit="codepoint",
                        quote=c.text,
                        score=round(relevance(unit[-1] if c.is_header else c), 4),  # a header: its row's
                    )
                )
                text += c.text

        put(lead)
        for i, u in enumerate(rest):
            text += "\n- " if i else "\n\n- "
            put(u)
        if note:
            text += "\n\n" + note
        return Draft(parts=(text,), supports=tuple(supports), generator=self.info)


# The things a question for which items asks for: the words after 哪些/哪几种/哪两类… ("要交哪些材料" → 材料).
# Where a plain English word of a question is no match: code spans, paths or URLs ("/var/log/order/") and names
# joined by hyphens or underscores (the Wi-Fi name "DL-Library" is no library; a helper's round, session 16).
_CODE_SPAN = re.compile(r"`[^`\n]*`|[^\s`]*/[^\s`]*|(?=[\w-]*[A-Za-z])[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)+")
_CJK_END = re.compile(r"[\u3400-\u9fff。！？；：，、）」』”]$")


# A lead-in line that announces advantages ("TiDB 事务有如下优点："), among the lines that end with a colon.
_ADVANTAGES = re.compile(r"优点|好处|优势|\b(?:advantages?|benefits?|pros)\b", re.IGNORECASE)
_LEAD_IN_LINE = re.compile(r"[^\n]*[：:][ \t]*$", re.MULTILINE)


def _under_advantages(text: str, position: int) -> bool:
    """Whether the sentence at ``position`` (code points into the chunk ``text``) is an item under a lead-in
    that announces advantages: the last line before it that ends with a colon names 优点/好处/advantages.
    A limits section such as "优缺点分析" lists both; only its drawbacks answer a question for them."""
    leads = list(_LEAD_IN_LINE.finditer(text, 0, position))
    return bool(leads) and bool(_ADVANTAGES.search(leads[-1].group(0)))


# What a question can ask for that a sentence states by its form (``question_types.has_wanted``).
_DETAILS = frozenset({"bound", "number", "version", "money", "clock"})


def _not_stated(draft: Draft, kind: str, line: str) -> Draft:
    """``draft`` led by ``line``, which says the documents do not state the asked detail (``NOT_STATED``) or
    do not mention what the question names (``NOT_MENTIONED``, ``kind`` "subject"), its sentences kept as the
    nearest facts (offsets shifted), and a ``flagged`` audit entry ``{"kind": "not_stated", "asks": kind}``
    that the record and the evaluation read."""
    lead = line + "\n\n"
    shift = len(lead)
    supports = tuple(s.model_copy(update={"start": s.start + shift, "end": s.end + shift}) for s in draft.supports)
    entry = AuditEntry(action="flagged", reason=line, detail={"kind": "not_stated", "asks": kind})
    return draft.model_copy(
        update={"parts": (lead + draft.text,), "supports": supports, "audit": (*draft.audit, entry)}
    )


def _joined_terms(terms: list[str], question: str, cands: Sequence[Candidate]) -> list[str]:
    """``terms`` with each pair of adjacent one-character Chinese terms written together in ``question`` that the
    evidence has as one word: jieba cuts "游泳馆的年卡多少钱" into 年 / 卡 and the row "年卡 | 3800元" into 年卡, so
    the 月卡 row (月 / 卡) matched 卡 and led (a helper's round, session 18). A word of the evidence, not a substring
    of it (matching adjacent terms inside any text cost CMRC DEV_115_QUERY_1 its gold, session 17)."""
    words = frozenset(t for c in cands for t in c.terms if len(t) == 2)
    joined = [
        (a, b)
        for a, b in zip(terms, terms[1:])
        if len(a) == len(b) == 1 and CJK_WORD.fullmatch(a + b) and a + b in question and a + b in words
    ]
    parts = {t for pair in joined for t in pair}  # the one-character halves are that word, not words of their own
    out = list(dict.fromkeys([*(t for t in terms if t not in parts), *(a + b for a, b in joined)]))
    # ... and a word jieba glued a character onto (发小红书 of "发小红书应该导出多大的尺寸？": 小红书 is in no dictionary, so
    # its HMM joined 发 to it) that the evidence has without that character: the evidence's word (a helper's round,
    # session 27: the row "小红书 | 1440 px" had matched nothing)
    every = frozenset(t for c in cands for t in c.terms if len(t) >= 2 and CJK_WORD.fullmatch(t))
    return list(dict.fromkeys(_unglued(t, every, cands) for t in out))


def _unglued(term: str, words: frozenset[str], cands: Sequence[Candidate]) -> str:
    """``term`` (a Chinese word of three or more characters that jieba's dictionary lacks and no candidate has, as a
    term or in its text) without its first or last character when the rest is a word of ``words``; else ``term``. A
    word of the dictionary is the language's (半小时 is not 小时: "晚还了半小时" is inside "1 小时以内")."""
    if len(term) < 3 or not CJK_WORD.fullmatch(term) or term in words or general_frequency(term):
        return term
    if any(term in c.text for c in cands):
        return term
    return next((w for w in (term[1:], term[:-1]) if w in words), term)


def _meant_share(terms: Sequence[str], weight: dict[str, float], c: Candidate) -> float:
    """The share of ``terms``' ``weight`` whose Chinese words an English sentence ``c`` says in one of their dictionary
    meanings (``english_meanings``); 0 for a sentence with Chinese in it."""
    if CJK.search(c.text):
        return 0.0
    total = sum(weight.get(t, 0.0) for t in terms) or 1.0
    said = sum(
        weight.get(t, 0.0) for t in terms if CJK.search(t) and any(_says(m, c.terms) for m in english_meanings(t))
    )
    return said / total


def _says(meaning: str, terms: frozenset[str]) -> bool:
    """Whether ``terms`` (a sentence's) say an English ``meaning``: each of its content words among them or, of four
    letters or more, beginning one of them (week of weekly, snapshot of snapshots)."""
    return says_meaning(meaning, lambda w: w in terms or (len(w) >= 4 and any(t.startswith(w) for t in terms)))


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def make_generator(name: str, settings: Any) -> ExtractiveGenerator:
    """The registry's factory (``core.generators.registry``): the offline extractive generator
    (it needs nothing from the settings)."""
    return ExtractiveGenerator()
