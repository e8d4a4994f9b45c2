"""The line that states what a question asks for: evidence for it when the decision left it under the cut.

Two uses, both about a line (a sentence or a table row) that holds the asked kind of value:

* ``stating_lines`` (read by the decision, ``core.retrieval.sufficiency.decide``): when no top-k chunk reaches the
  cut, a chunk with a line that holds every word the question is about and states the value it asks for (a price, a
  time of day, a version, a number in the asked unit, a bound) is evidence. "补胎多少钱？" over a bike shop's price
  table was refused: every top-k chunk names 补胎, so the row's chunk stood out by nothing the model reads.
* ``with_detail_evidence`` (read by retrieval after the decision), below.

"固定工位每月多少钱？" over a coworking space's pages: the price table ("| 固定工位 | 1,880 元/月 | …") was the
best BM25 match among the top-k, but its embedding is far from the question (a table of five columns), so the
decision ranked the paragraph "会员可以随时从流动工位升级为固定工位…" first and cut the table; the answer then
said the price was not stated (a helper's round, session 21). Here, when a question that asks how much (``money``
in ``QuestionAnalysis.wants``) is answered and no evidence chunk has a line with an amount and the question's most
specific word, the best-scored top-k chunk that has one joins the evidence; so does, for a question that asks where,
a table row naming the word in a column headed by a place ("科目一考试在哪里考？" over "| 科目 | 考试内容 | 考试地点 | …",
session 25). Whether to answer stays the whole question's decision: a refused or narrowed question gains nothing.

``AMOUNT`` (a sum in figures with its currency) is shared with ``core.generators.question_types``, which reads
what an answer's sentences state.
"""

from __future__ import annotations

import dataclasses
import re

from core.clock import stated_times
from core.lexical import general_frequency
from core.models import RetrievedChunk
from core.retrieval.query import refers_back
from core.retrieval.question import ASKING, CJK, QUESTION_WORDS, analyse
from core.retrieval.sufficiency_terms import ASKED_VALUE, NOT_ASKED_VALUE, SENTENCE, absence_terms, value_sentence
from core.store.catalog import lexical_text

#: A sum of money in figures: 128 元, 1,880 元/月, ¥50, 30 yuan (a price written in words or as "free" is read by
#: ``core.generators.question_types``).
AMOUNT = re.compile(
    r"\d(?:[\d,.]*\d)?\s*(?:元|块|角|万元|美元|欧元|英镑|日元|港元|港币)|[¥￥$€£]\s*\d(?:[\d,.]*\d)?", re.IGNORECASE
)


def subject_word(question: str, texts: list[str]) -> str | None:
    """The question's most specific content word that ``texts`` contain (fewest occurrences in jieba's general
    dictionary, longer first; two characters or more, no question word, no word for the kind of answer asked, no word
    for how often, 每月/每人), lower-case; None when they contain none: "独立办公室每月多少钱？" over pages without 办公室
    is not about the printing page's "每月免费 20 页"."""
    q = analyse(question)
    joined = "\n".join(texts).lower()
    words = [
        t.lower()
        for t in q.content_terms
        if len(t) >= 2
        and t not in q.kind_words
        and t not in ASKING
        and t not in QUESTION_WORDS
        and not t.startswith("每")
        and (CJK.search(t) or t.isalnum())
        and t.lower() in joined
    ]
    return min(words, key=lambda t: (general_frequency(t), -len(t))) if words else None


def _states_price_of(text: str, word: str) -> bool:
    """Whether a line or sentence of ``text`` (a table row is one line) has an amount and ``word``; an amount taken off
    a price ("办理年卡，每张减免 300 元", ``REDUCTION``) is no price (a helper's round, session 23: "年卡多少钱？" got the
    discounts and never the price row)."""
    return value_sentence(text, [word], AMOUNT, _NOT_A_PRICE) is not None


#: An amount taken off or given back, not what a thing costs: 减免 300 元, 优惠 50 元, 便宜 20 元, 返还 10 元.
REDUCTION = re.compile(
    r"(?:减免|减|优惠|便宜|立减|返还|返|补贴|抵扣|抵)\s*(?:了)?\s*(?:" + AMOUNT.pattern + ")", re.IGNORECASE
)
# ... and what is no value at all (a list marker, an ordinal: as ``value_sentence``'s default)
_NOT_A_PRICE = re.compile(REDUCTION.pattern + r"|^\s*\d+[.)、]\s|第\s*\d+", re.IGNORECASE)


# A table column that gives where: its header cell names a place (考试地点, 地址, Location).
_PLACE_HEADER = re.compile(r"地点|地址|位置|场地|场所|地方|\b(?:location|address|venue|place)\b", re.IGNORECASE)


def _states_place_of(text: str, word: str) -> bool:
    """Whether a row of a table in ``text`` names ``word`` (lower-case) and fills a column whose header names a place
    (``_PLACE_HEADER``): "| 科目一 | … | 拱墅区车管所理论考场 | …" under "| 科目 | 考试内容 | 考试地点 | 合格标准 |" (a
    helper's round, session 25: "科目一考试在哪里考？" was answered with the retake rules, the table under the cut)."""
    header: list[str] | None = None
    for line in [*text.splitlines(), ""]:
        if "|" not in line:
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
            continue
        if set("".join(cells)) <= set("-: "):
            continue
        places = [i for i, h in enumerate(header) if _PLACE_HEADER.search(h)]
        if any(word in c.lower() for c in cells) and any(i < len(cells) and cells[i] for i in places):
            return True
    return False


#: The asked kinds whose line ``with_detail_evidence`` looks for, with what states one with the subject word.
_STATES_OF = {"money": _states_price_of, "place": _states_place_of}


def with_detail_evidence(result, question: str):
    """``result`` (a ``RetrievalResult``) with the best-scored chunk among its top-k that has a line stating the asked
    kind of value with the question's most specific word (``subject_word``) appended to its evidence, when ``question``
    asks how much (an amount) or where (a table's place column: ``_states_place_of``), is answered without a message,
    and no evidence chunk has such a line (a question that asks neither: ``_with_stating_line``); ``result`` itself
    otherwise. The config's ``detail_evidence`` counts the chunk added."""
    decision = result.decision
    if result.no_evidence or decision is None or decision.message is not None:
        return result
    wants = analyse(question).wants
    states = next((f for kind, f in _STATES_OF.items() if kind in wants), None)
    if states is None:
        return _with_stating_line(result, question)
    word = subject_word(question, [rc.chunk.text for rc in result.chunks])
    if word is None or any(states(rc.chunk.text, word) for rc in result.evidence):
        return result
    ids = {rc.chunk_id for rc in result.evidence}
    return _with_best(result, [rc for rc in result.chunks if rc.chunk_id not in ids and states(rc.chunk.text, word)])


def _with_best(result, found: list[RetrievedChunk]):
    """``result`` with the best-scored chunk of ``found`` (by the decision's scores) appended to its evidence and
    counted in the config's ``detail_evidence``; ``result`` itself when ``found`` is empty."""
    if not found:
        return result
    best = max(found, key=lambda rc: result.decision.scores.get(rc.chunk_id, 0.0))
    config = {**result.config, "detail_evidence": 1}
    return dataclasses.replace(result, evidence=(*result.evidence, best), config=config)


def _with_stating_line(result, question: str):
    """``result`` with the best-scored top-k chunk that has a line stating the asked value with every topic word of
    ``question`` (``stating_lines``, on the chunk's heading path and text) appended to its evidence, when no evidence
    chunk has one; ``result`` itself otherwise. "家长入校时间是几点到几点？" over a sports-day notice was answered with
    the day's hours and the dismissal time, while "家长入校时间为 7:50 至 8:20" was in a top-k chunk under the cut (a
    helper's round, session 25). Not for a question that points back ("这个过程大概要多久？", ``refers_back``): its own
    words lack the subject, and "升级过程约 3 分钟" would join for 过程."""
    if refers_back(question):
        return result
    found = stating_lines(question, [lexical_text(rc.chunk) for rc in result.chunks])
    ids = {rc.chunk_id for rc in result.evidence}
    if any(result.chunks[i].chunk_id in ids for i in found):
        return result
    return _with_best(result, [result.chunks[i] for i in found])


#: What states each kind of value a question asks for, in a line of a chunk.
_VERSION = re.compile(r"\bv?\d+(?:\.\d+)+\b", re.IGNORECASE)
_FREE = re.compile(r"免费|不收费|不另收")


#: A bound in a line or sentence: what a question for the most or the least (最多…多少, 最大) asks for (also read
#: by ``core.generators.question_types``, which reads what an answer's sentences state).
STATED_BOUND = re.compile(
    r"最多|最大|最长|最高|最少|最小|最短|最低|至多|至少|上限|下限|不超过|不能超过|超过|不少于|不低于|不高于|不大于|不小于"
    r"|以内|之内|以上|以下|\b(?:at most|at least|maximum|minimum|max|min|up to|limit|exceeds?)\b",
    re.IGNORECASE,
)


#: A span of time a line states (3 天, 两个月, 48 小时, 10 years): what a question for how long (多久, how long) asks.
_DURATION = re.compile(
    r"[\d零一二两三四五六七八九十半]\s*(?:个)?(?:秒|分钟|分|小时|钟头|天|日|周|星期|个月|月|年|工作日)"
    r"|\d\s*(?:s|min|h|hours?|days?|weeks?|months?|years?)\b",
    re.IGNORECASE,
)


# A date (2026 年 1 月, 1 月 17 日, 3 月 5 号): its 月 and 日 are no span of time.
_DATE = re.compile(r"\d{1,4}\s*年\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*[日号])?|\d{1,2}\s*月\s*\d{1,2}\s*[日号]")


def states_duration(line: str) -> bool:
    """Whether ``line`` states a span of time (``_DURATION``) outside its dates: "车程约 45 分钟" does, "1 月 17 日 13:30
    准时发车" does not (a helper's round, session 25: its 1 月 and 17 日 had read as spans, and the departure time led
    "…坐公司的车过去要多久？")."""
    return bool(_DURATION.search(_DATE.sub(" ", line)))


def _states(line: str, wants: frozenset[str], unit: str | None = None, duration: bool = False) -> bool:
    """Whether ``line`` states the most specific kind of value of ``wants``: a price for 多少钱 (not any number), a time
    of day for 几点, a version for 哪个版本, else a number, in the ``unit`` asked when one is (多少岁: 岁), a span of time
    for a question for how long (``duration``), and a bound for a question for the most or the least ("pool_size
    最大可以设到多少？" is not answered by its default)."""
    if (unit and unit not in line) or (duration and not states_duration(line)):
        return False
    if "bound" in wants and not STATED_BOUND.search(line):
        return False
    if "money" in wants:
        return bool(AMOUNT.search(line) or _FREE.search(line))
    if "clock" in wants:
        return bool(stated_times(line))
    if "version" in wants:
        return bool(_VERSION.search(line))
    return ASKED_VALUE.search(NOT_ASKED_VALUE.sub(" ", line)) is not None


def topic_words(question: str) -> list[str]:
    """The words of ``question`` that say what it is about, lower-case: its terms whose absence would count
    (``core.retrieval.sufficiency_terms.absence_terms``: not how it asks, not the kind of answer, not a quantity it
    states, not a pointing or counting word), of two or more characters (or a name), none inside another."""
    words = [t.lower() for t in absence_terms(question, False) if len(t) >= 2 and (CJK.search(t) or t.isalnum())]
    return [t for t in dict.fromkeys(words) if not any(t != o and t in o for o in words)]


def stating_lines(question: str, texts: list[str]) -> list[int]:
    """The indices of ``texts`` (chunk texts) with a line (a sentence or a table row) that holds every topic word of
    ``question`` (``topic_words``) and states the kind of value it asks for (a price, a time of day, a version, a
    number: ``QuestionAnalysis.wants``). "补胎多少钱？" over a price table whose row "补胎（内胎） | 25 元 | 20 分钟" says
    it word for word had been refused: every top-k chunk of a small shop's pages names 补胎, so the best one stood
    out by nothing the decision reads (a helper's round, session 22). A topic word in the chunk's heading path (the
    first line of a ``lexical_text``) is held by each of its lines: "年会几点开始签到？" over a notice titled "…年度年会的
    通知" whose row is "14:30–15:00 | 签到，…" (session 25). Empty when the question asks for no such value or names no
    topic word."""
    q = analyse(question)
    wants = q.wants & {"money", "clock", "version", "number", "bound", "when"}
    words = topic_words(question)
    if not wants or not words:
        return []
    out = []
    for i, text in enumerate(texts):
        headings = text.split("\n", 1)[0].lower()  # ``core.store.catalog.lexical_text``: the heading path first
        for line in SENTENCE.findall(text):
            low = line.lower()
            if all(w in low or w in headings for w in words) and _states(line, wants, q.unit, q.asks_duration):
                out.append(i)
                break
    return out
