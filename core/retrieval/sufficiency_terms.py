"""The question-side signals of the sufficiency decision (``core.retrieval.sufficiency``):
what a question asks for and names, and how much of it the knowledge base lacks.

* ``type_match`` — does a chunk have what the question type asks for (a number for
  多少/多久, steps for 怎么/如何, …);
* ``in_kb`` / ``contains_term`` / ``coordinated`` — whether the knowledge base contains a name the
  question names (``QuestionAnalysis.named``), whether two names are coordinated ("A 和 B");
* ``absent_share`` / ``salient_share`` — IDF-weighted evidence of absence and the share of
  the question's rarest terms a chunk holds;
* ``detail_in`` / ``default_value_missing`` — whether a text states the one specific detail a question
  asks for (a number, limit, version, default, port, range).

What the question asks is read once by ``core.retrieval.question.analyse``; these functions take the
question's text and read that value.

Pure functions over ``str`` (lengths and offsets in code points) and a ``LexicalIndex``;
no I/O, no model.

Why about 600 lines: one job, the question's side of the decision; each pattern carries the question it was
measured on, and those accounts are most of the length.
"""

from __future__ import annotations

import functools
import math
import re
import weakref
from typing import Any, Mapping, Sequence

from core.lexical import LexicalIndex, general_frequency, is_value_term, tokenize
from core.retrieval.english_glosses import english_meanings, says_meaning
from core.retrieval.query import question_cjk_share
from core.retrieval.question import ASKING, CJK, POINTING_TAGS, PRODUCT_SUFFIX, QUESTION_WORDS, VERSION, analyse
from core.retrieval.written import named_tables
from core.segmentation import are_siblings, tagged

# ------------------------------------------------------------ question type

_HAS_NUMBER = re.compile(r"\d|[一二三四五六七八九十两百千万]+\s*[个次天秒分钟小时倍条台%]")
# Steps: a numbered or bulleted line, a code block, a shell prompt, or a command in inline code
# (a lower-case word, a space, its arguments: `tool sub --flag`), whatever the tool is called.
_HAS_STEPS = re.compile(r"^\s*(\d+[.)、]|[-*+] )|```|\$ |`[a-z][\w.-]* [^`\n]+`", re.M)


def type_match(question: str, chunk_text: str) -> int:
    """+1 / -1 / 0: the question asks for a number or steps and the chunk has / lacks one, or asks neither."""
    q = analyse(question)
    asks = []
    if q.asks_number:
        asks.append(bool(_HAS_NUMBER.search(chunk_text)))
    if q.asks_steps:
        asks.append(bool(_HAS_STEPS.search(chunk_text)))
    if not asks:
        return 0
    return 1 if any(asks) else -1


# ------------------------------------------------------------ named things

_COORD = re.compile(r"\s*(和|与|跟|及|以及|还是|或|、|对比|vs\.?|versus|and|or)\s*", re.I)


def contains_term(haystack_lower: str, term: str) -> bool:
    t = term.lower().lstrip(".")
    if VERSION.fullmatch(t):
        return re.search(r"(?<![\d.])" + re.escape(t) + r"(?![\d])", haystack_lower) is not None
    return t in haystack_lower


_PLURAL = re.compile(r"[A-Za-z]{3,}(?:es|s)")


def in_kb(kb_lower: str, term: str) -> bool:
    """Whether the knowledge base contains ``term``; a hyphenated compound (``IPv6-only``)
    counts as contained when each of its parts is, an English plural (``CronJobs``,
    ``StatefulSets``, ``Ingresses``) when its singular is."""
    if contains_term(kb_lower, term):
        return True
    if _PLURAL.fullmatch(term) and any(contains_term(kb_lower, s) for s in (term[:-1], term[:-2]) if len(s) >= 3):
        return True
    parts = [p for p in term.split("-") if p]
    return len(parts) > 1 and all(contains_term(kb_lower, p) for p in parts)


#: A name's first characters count as an everyday qualifier (普通 6768, 五月 1355) above this count in jieba's
#: general dictionary; a rare one (新冠 0, 飞书 3) names another thing.
QUALIFIER_GENERAL_MIN = 1000


def qualified_known(kb_lower: str, term: str) -> bool:
    """Whether ``term`` (a Chinese word read as a name) is a known thing of the knowledge base with an everyday
    qualifier before it: 普通员工 (员工 is in the base; 普通 is an everyday word), 五月份 (月份). Such a word is not a
    missing name: the base may say 其他员工 or 每月 instead (a helper's round refused "普通员工去上海出差，住宿每晚限额
    多少？" as 「普通员工」 absent). 新冠疫苗 (新冠 is rare in the language) stays a name."""
    if len(term) < 3 or not all(CJK.match(ch) for ch in term):
        return False
    head, qualifier = term[-2:], term[:-2]
    return contains_term(kb_lower, head) and general_frequency(qualifier) > QUALIFIER_GENERAL_MIN


def coordinated(question: str, a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are joined by a coordinating word (A 和 B, A vs B) in ``question``, or each is in one
    of the two things it compares (``QuestionAnalysis.sides``: "DaemonSet 和静态 Pod 有什么区别？" joins DaemonSet
    and Pod; a helper's round, session 14, was refused whole for the absent Pod)."""
    sides = analyse(question).sides
    if sides:
        x, y = (side.lower() for side in sides)
        if (a.lower() in x and b.lower() in y) or (a.lower() in y and b.lower() in x):
            return True
    for x, y in ((a, b), (b, a)):
        i, j = question.find(x), question.find(y)
        if i < 0 or j < 0 or j <= i:
            continue
        between = question[i + len(x) : j]
        for suffix in PRODUCT_SUFFIX:
            between = between.removeprefix(suffix)
        if len(between) <= 6 and _COORD.fullmatch(between):
            return True
    return False


_ASKING_BOUND = tuple(ASKING)


_KB_TEXT: "weakref.WeakKeyDictionary[LexicalIndex, str]" = weakref.WeakKeyDictionary()


def kb_text(lexical: LexicalIndex, chunks: Mapping[str, Any]) -> str:
    """The lower-cased heading paths and texts of ``chunks`` (the chunks ``lexical``
    indexes), joined; cached per lexical index (a new index after an ingest gets a new text)."""
    try:
        return _KB_TEXT[lexical]
    except KeyError:
        pass
    text = "\n".join((" ".join(c.heading_path) + "\n" + c.text).lower() for c in chunks.values())
    _KB_TEXT[lexical] = text
    return text


# A word that asks for an amount or a time (几点, 几天, 多久), holds a question word (干什么, 为什么, 怎么办) or places
# in time (之后, 以前): how the question asks, not what about ("建档之后能干什么？" had 79% of its weight "absent"; a
# helper's round, session 19).
_ASKING_OR_WHEN = re.compile(
    r"^(?:几|多少|多久|多长|多大|多远|多高)|什么|怎么|怎样|如何|哪|^(?:之后|以后|之前|以前|期间|以内|以上|以下|然后)$"
)


# A position word after a thing (里 of 包里, 内 of 箱内, 中 of 文件中).
_POSITION = frozenset("里内中")


# A word for the beginning or the end of something right after a word asking when (几点开始, 什么时候截止, 哪天结束).
_WHEN_PHASE = re.compile(r"(?:几点|几时|什么时候|何时|哪天|几号|哪一天)(?:能|会|可以|才|就|要)?(开始|结束|截止)")


# A quantity the person states ("保育费一个月多少？": 一个月; 两天, 3 次): compared with the documents' values (they write
# "2800 元/月"), not a topic they lack (a helper's round, session 21: it made 84% of that question's weight "absent").
_QUANTITY = re.compile(
    r"^(?:\d+(?:\.\d+)?|[零一二两三四五六七八九十百千万半几]+)\s*个?"
    r"(?:月|年|周|天|日|晚|小时|钟头|分钟|秒|星期|礼拜|学期|季度|岁|次|回|人|位|元|块)?$"
)


def absence_terms(question: str, cross_script: bool, *, english_base: bool = False) -> list[str]:
    """The question's terms whose absence from the knowledge base counts (``absent_share``, ``general_absent``):
    its content terms without the words naming the kind of answer asked (条件, 多少钱's 钱: what is asked, not a
    topic); across scripts (``cross_script``) only the things it names and its words in the other script (an English
    question's Chinese words; a Chinese question's English ones, over an English page), and over a base of English
    pages (``english_base``) a Chinese question's words the dictionary has English meanings for (``_nowhere``)."""
    q = analyse(question)
    # a number the person states of themselves ("我65岁了还能学车吗？" over "报名年龄为 18 至 70 周岁") is a value to
    # compare with the documents' ranges, not a topic they lack (a helper's round, session 19)
    # ... nor the words that ask for an amount or a time (几点, 几天, 多久) or name the time or day the person means
    # (早上, 周六: compared with the stated hours, "周一至周五 8:00–21:00"; a helper's round, session 19: "周六早上
    # 前台几点开门？" had 74% of its weight "absent")
    said = " ".join(words for words, _ in (*q.times, *q.days))
    # ... nor the beginning or end asked for when ("年会几点开始签到？": 开始; the documents write "14:30–15:00 | 签到";
    # a helper's round, session 25: 开始 had been 68% of its weight "absent" over a one-page notice)
    phases = {m.group(1) for m in _WHEN_PHASE.finditer(question)}
    # ... nor a word that points or counts rather than names: 这个 of "怎么安装这个库？", 一只 of "寄养一只大狗…", 一直, 刚
    # (``QuestionAnalysis.pointing``; a helper's round, session 22: "use_tls 这个参数是干什么的？" had 45% of its weight
    # "absent", all of it 这个, and was refused over the row that defines use_tls)
    terms = [
        t
        for t in q.content_terms
        if t not in q.kind_words
        and not is_value_term(t)
        and not _QUANTITY.match(t)
        and not _ASKING_OR_WHEN.search(t)
        and not t.startswith(_ASKING_BOUND)  # 最多, 最多能, 上限: asks for a bound, which the documents write as 最高
        and t not in said
        and t not in q.pointing
        and t not in phases
    ]
    if cross_script:  # the ordinary words of the question's own script (a Chinese question's over an English page)
        names = {w.lower().lstrip(".") for w in q.named}
        own_cjk = question_cjk_share(question) > 1 / 3  # more than one CJK character for every two Latin letters
        # ... but over a base of English pages (``english_base``) a Chinese word the dictionary gives English meanings
        # of is judged by them (``_nowhere``)
        glossed = own_cjk and english_base
        terms = [
            t
            for t in terms
            if bool(CJK.search(t)) != own_cjk or t.lower() in names or (glossed and english_meanings(t))
        ]
    # ... and a word jieba's search mode also cuts into words of the list (屏幕显示 = 屏幕 + 显示) is judged by those
    # words: the documents write 显示 without 屏幕显示, and the compound counted its absence a second time (two
    # helpers' rounds: "屏幕显示 F0 是怎么回事？" had 68% of its weight "absent" over a manual whose table has F0)
    # ... and a thing jieba glued to the position word after it (包里 of "物资包里都有什么？": the documents write 物资包内)
    # is judged by the thing (a helper's round, session 25: 包里 had been 68% of that question's weight "absent")
    terms = [t[:-1] if len(t) >= 2 and t[-1] in _POSITION and CJK.fullmatch(t[-2]) else t for t in terms]
    return list(dict.fromkeys(t for t in terms if not _made_of(t, frozenset(terms) - {t})))


def _made_of(term: str, words: frozenset[str]) -> bool:
    """Whether ``term`` is two or more of ``words`` written one after another (characters, no gap)."""
    ends = {0}
    for end in range(1, len(term) + 1):
        if any(start in ends and term[start:end] in words for start in range(end)):
            ends.add(end)
    return len(term) in ends and term not in words


def absent_share(question: str, lexical: LexicalIndex, *, cross_script: bool = False) -> float:
    """IDF-weighted share (0..1) of the question's terms (interrogatives and the words naming the kind of answer
    asked, ``QuestionAnalysis.kind_words``, aside) that occur in no chunk of the knowledge base.

    ``cross_script`` (an English question over Chinese text, ``core.retrieval.query.plan_query``): ordinary
    Latin-script words are left out, since a Chinese knowledge base lacking the English word
    "expose" is no evidence that it lacks the topic; named things (``named_terms``) still count.
    """
    terms = absence_terms(question, cross_script, english_base=_english_base(lexical))
    if not terms or not len(lexical):
        return 0.0
    weights = [lexical.idf(t) for t in terms]
    total = sum(weights) or 1.0
    return sum(w for t, w in zip(terms, weights) if _nowhere(t, lexical)) / total


#: The share of a question's term weight (``absent_share``) above which its subject, when the base lacks it, refuses.
SUBJECT_ABSENT_SHARE = 0.8
#: ... for a question that asks for one of these values (``QuestionAnalysis.wants``): a time, a price, a number, a date,
#: a phone number, a version is a value of its subject, which another thing's value does not give.
SUBJECT_VALUES = frozenset({"clock", "money", "number", "when", "phone", "version"})


def absent_subject(question: str, lexical: LexicalIndex) -> str | None:
    """The noun a Chinese question opens with (its first word, two or more characters, jieba-tagged as a noun, not a
    person's name, a word of jieba's dictionary) when the knowledge base has it in no form: "游泳池几点开门？" over a
    gym's pages without a pool (a test base that answered with the gym's hours at 0.5729 against the 0.57 threshold,
    session 26). The decision reads it only when most of the question's weight is absent (``SUBJECT_ABSENT_SHARE``) and
    no top-k chunk is in the other script (``core.retrieval.sufficiency.decide``); None otherwise."""
    words = [(w, tag) for w, tag in tagged(question) if w.strip()]
    if not words:
        return None
    first, tag = words[0]
    if len(first) < 2 or not CJK.fullmatch(first[0]) or not tag.startswith("n") or tag.startswith("nr"):
        return None
    if not general_frequency(first):  # a cut jieba's dictionary lacks ("考科二" of 考科二之前…) is no word to lack
        return None
    return first if first in absence_terms(question, False) and _nowhere(first, lexical) else None


def _english_base(lexical: LexicalIndex) -> bool:
    """Whether the knowledge base is of English pages: fewer than a third of its term occurrences are Chinese."""
    return lexical.cjk_share() < 1 / 3


def _nowhere(term: str, lexical: LexicalIndex) -> bool:
    """Whether ``term`` occurs in no chunk: not a term of any, nor, for a Chinese word, part of one (赔 of 赔付: the
    question cuts 赔 / 多少 where the documents write 最高赔付; a helper's round, session 22: "手机丢了最多能赔多少？"
    had 87% of its weight "absent" and was refused over "手机…每件最高赔付 500 元"). A Chinese word over a base that
    has it in no form but whose pages are English is judged by its dictionary meanings (``english_meanings``): absent
    when no meaning has all its words in the base ("burrow 有图形界面吗？": "graphical user interface"; a helper's
    round, session 23, over an English tool's pages)."""
    if lexical.df(term) or (CJK.search(term) and lexical.within_a_term(term)):
        return False
    if CJK.search(term) and _english_base(lexical):
        return not any(_says(m, lexical) for m in english_meanings(term))  # a word the dictionary lacks: absent
    return True


def _says(meaning: str, lexical: LexicalIndex) -> bool:
    """Whether the knowledge base says an English ``meaning``: each of its content words a term of some chunk (a
    plural read as its singular)."""
    return says_meaning(
        meaning, lambda w: bool(lexical.df(w) or lexical.df(w + "s") or (w.endswith("s") and lexical.df(w[:-1])))
    )


#: ``general_weight`` of a word jieba's dictionary lacks (a name, a domain term, most English words).
_DICT_TOTAL = 60_000_000


@functools.lru_cache(maxsize=4096)
def general_weight(term: str) -> float:
    """How informative ``term`` is in general language, 0..1, independent of any knowledge base:
    ``ln((T + 1) / (f + 1)) / ln(T + 1)`` with ``f`` its count in jieba's bundled dictionary
    (``core.lexical.general_frequency``) and ``T`` ≈ 60 million, that dictionary's total. A word the
    dictionary lacks (a name, a domain term, an English word) weighs 1. Used where the knowledge
    base's own IDF misbehaves on a base of one or three documents (every term has the same IDF)."""
    f = general_frequency(term)
    return math.log((_DICT_TOTAL + 1) / (f + 1)) / math.log(_DICT_TOTAL + 1)


def general_coverage(question: str, chunk_terms: frozenset[str] | None) -> float:
    """Share (0..1) of the question's content terms (interrogatives aside) that the chunk holds,
    each weighted by ``general_weight``: the same on a one-document base as on the full archive."""
    terms = analyse(question).content_terms
    if not terms or chunk_terms is None:
        return 0.0
    weights = [general_weight(t) for t in terms]
    total = sum(weights) or 1.0
    return sum(w for t, w in zip(terms, weights) if t in chunk_terms) / total


def general_salient(question: str, chunk_terms: frozenset[str] | None) -> float:
    """Share (0..1) of the question's (up to) three most informative content terms (``general_weight``)
    that the chunk holds."""
    terms = sorted(analyse(question).content_terms, key=lambda t: -general_weight(t))[:3]
    if not terms or chunk_terms is None:
        return 0.0
    return sum(1 for t in terms if t in chunk_terms) / len(terms)


def general_absent(question: str, lexical: LexicalIndex, *, cross_script: bool = False) -> float:
    """``absent_share`` with ``general_weight`` instead of the knowledge base's IDF: the share
    (0..1) of the question's content-term weight that occurs in no chunk of the knowledge base."""
    terms = absence_terms(question, cross_script, english_base=_english_base(lexical))
    if not terms or not len(lexical):
        return 0.0
    weights = [general_weight(t) for t in terms]
    total = sum(weights) or 1.0
    return sum(w for t, w in zip(terms, weights) if _nowhere(t, lexical)) / total


def salient_share(question: str, lexical: LexicalIndex, chunk_terms: frozenset[str] | None) -> float:
    """Share (0..1) of the question's three highest-IDF terms that the chunk contains."""
    terms = sorted(dict.fromkeys(analyse(question).terms), key=lambda t: -lexical.idf(t))[:3]
    if not terms or chunk_terms is None:
        return 0.0
    return sum(1 for t in terms if t in chunk_terms) / len(terms)


# ------------------------------------------------------------ specific details

#: A sentence or a line (a table row is one line): what a value must be stated in, with the words it is about.
SENTENCE = re.compile(r"[^。！？!?；;\n]+")
# Digits that are not a value: a list marker ("5. "), an ordinal ("第 10 个").
_NOT_VALUE = re.compile(r"^\s*\d+[.)、]\s|第\s*\d+")
_RANGE = re.compile(r"\d[\d,.]*\s*(?:-|–|~|～|到|至)\s*\d")
_DETAIL_VALUE = re.compile(
    r"\d|[一二三四五六七八九十两百千万]+\s*(?:个|次|天|秒|分钟|小时|倍|条|台|周|年|月|%)|无限|不限|没有限制|unlimited",
    re.I,
)
# ... the value a question for a default asks for: as above, but 一 alone before 个/条/台 is an article
# ("每一个区域可接受的阈值" states no threshold: dev-059). Not the ``detail`` feature's pattern, which the
# shipped sufficiency model was fit with.
ASKED_VALUE = re.compile(
    r"\d|(?:[二三四五六七八九十两百千万]|[一二三四五六七八九十两百千万]{2,})\s*(?:个|次|天|秒|分钟|小时|倍|条|台|周|年|月|%)"
    r"|(?<![每某任这那另同单])一\s*(?:次|天|秒|分钟|小时|倍|周|年|月)|百分之[零一二三四五六七八九十百]+|无限|不限|没有限制"
    r"|unlimited",
    re.I,
)
# ... and what is no such value: a list ordinal, or a version ("在 2.0 版本中引入", "v3.2").
NOT_ASKED_VALUE = re.compile(_NOT_VALUE.pattern + r"|\bv\d+(?:\.\d+)*|\d+(?:\.\d+)*\s*版本?", re.I)


def detail_in(question: str, chunk_text: str, key_terms: Sequence[str]) -> int:
    """+1 / -1 / 0: the question asks for a detail (``asks_detail``) and the chunk has / lacks a
    sentence that states a value (a digit, a counted Chinese numeral, 无限…) next to one of
    ``key_terms`` (the question's rarest terms, lower-case); 0 when it asks for no detail.

    Sentence-level on purpose: most Kubernetes chunks hold some number, so "the chunk has a
    number" does not separate a chunk that names the flag from one that gives its value.
    """
    if not analyse(question).asks_detail:
        return 0
    return 1 if value_sentence(chunk_text, key_terms, _DETAIL_VALUE) else -1


def value_sentence(
    text: str, key_terms: Sequence[str], value: re.Pattern[str], not_value: re.Pattern[str] = _NOT_VALUE
) -> str | None:
    """The first sentence of ``text`` that holds ``value`` (what ``not_value`` matches aside: list markers and
    ordinals) and, when ``key_terms`` are given, one of them (lower-case substring match); a table row is a line, so
    a sentence. None when there is none. Also read by ``core.retrieval.asked_detail`` (a price with the asked thing)."""
    keys = [k for k in key_terms if k]
    for m in SENTENCE.finditer(text):
        s = m.group(0)
        if value.search(not_value.sub(" ", s)) and (not keys or any(k in s.lower() for k in keys)):
            return s
    return None


def default_value_missing(
    question: str, evidence_texts: Sequence[str], key_terms: Sequence[str], question_terms: Sequence[str] = ()
) -> bool:
    """True when ``question`` asks for a default/threshold value (``asks_default_value``) and no
    evidence text has a sentence that gives one: a value (a range when it asks for a 范围/range)
    next to one of ``key_terms`` (its rarest terms), or a stated default ("默认为 30 秒") next to
    any of ``question_terms`` (lower-case). False when it asks for no such value or has no key terms."""
    q = analyse(question)
    if not q.asks_default_value or not key_terms or not evidence_texts:
        return False
    # a phrase the question quotes names exactly what it asks about (dev-059: the threshold of “期望的过载”):
    # when the evidence has it, the value must be stated next to it
    quoted = [p.lower() for p in _QUOTED.findall(question) if any(p.lower() in t.lower() for t in evidence_texts)]
    if quoted:
        key_terms = quoted
    if q.asks_range:
        return not any(value_sentence(t, key_terms, _RANGE) for t in evidence_texts)
    others = [t for t in question_terms if t not in ASKING and t not in QUESTION_WORDS]
    return not any(
        value_sentence(t, key_terms, ASKED_VALUE, NOT_ASKED_VALUE)
        or _value_in_labelled_item(t, key_terms)
        or (others and _stated_default_of_kind(question, t, others))
        for t in evidence_texts
    )


def _value_in_labelled_item(text: str, key_terms: Sequence[str]) -> bool:
    """Whether a list item of ``text`` opens with a label holding one of ``key_terms`` and states the asked
    value after it ("- 个人简介字段：一段自我介绍。不超过 500 字。": the label is the sentence's subject; a helper's
    round, session 14, "个人简介的字数上限是多少？" was refused). Not part of the fitted ``detail`` feature."""
    keys = [k for k in key_terms if k]
    for m in _LABELLED_ITEM.finditer(text):
        label, rest = m.group(1).lower(), m.group(2)
        if any(k in label for k in keys) and ASKED_VALUE.search(NOT_ASKED_VALUE.sub(" ", rest)):
            return True
    return False


# A list item that opens with a label: "- 标签字段：用户自定义的标签。每个用户最多 20 个。"
_LABELLED_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+([^，,。：:\n]{1,24})[：:]([^\n]+)", re.MULTILINE)


# A phrase in quotation marks (“…”, 「…」, "…").
_QUOTED = re.compile(r"[“「『\"]([^”」』\"\n]{2,30})[”」』\"]")
# A default stated with its value: "默认为 30 秒", "默认值是 10", "defaults to 5".
_DEFAULT_IS = re.compile(r"(默认|缺省|defaults? (?:to|is))[^。；;\n]{0,8}?\d", re.I)
# ... and the unit after that value (past a closing quote or backtick: "默认为 `50` 秒"): a duration or not.
_DEFAULT_VALUE = re.compile(
    r"(?:默认|缺省|defaults? (?:to|is))[^。；;\n\d]{0,8}?\d+(?:\.\d+)?[`'\"”’」]*\s*([^\s\d，。；,;]{0,3})", re.I
)
_DURATION_UNIT = re.compile(r"^(?:秒|分钟|分|小时|天|周|毫秒|ms|s|m|h|d)(?![a-z])", re.I)
# ... or a unit stated apart from the value ("默认值为 `50`，单位为秒").
_UNIT_IS_DURATION = re.compile(
    r"单位(?:为|是)\s*(?:秒|分钟|毫秒|小时|天)|\bin (?:seconds|milliseconds|minutes|hours)\b", re.I
)


def _stated_default_of_kind(question: str, text: str, terms: Sequence[str]) -> bool:
    """Whether ``text`` has a sentence stating a default with its value ("默认为 30 秒") next to one of
    ``terms``, of the kind the question asks: a duration for 多久/多长时间, not a duration for
    多少个/几个 (dev-058: "默认要积累多少个已终止的 Pod" is not answered by "期限，默认为 30 秒")."""
    sentence = value_sentence(text, terms, _DEFAULT_IS)
    if sentence is None:
        return False
    m = _DEFAULT_VALUE.search(sentence)
    duration = bool(m and _DURATION_UNIT.match(m.group(1))) or bool(_UNIT_IS_DURATION.search(sentence))
    q = analyse(question)
    if q.asks_duration:
        return duration
    if q.asks_count:
        return not duration
    return True


def about_another(question: str, evidence_text: str, kb_text: str) -> tuple[str, tuple[str, ...]] | None:
    """A noun the question asks about (a word of three or more Chinese characters that jieba tags as a noun: 纪念卡)
    that the knowledge base has (``kb_text``) but ``evidence_text`` (the deciding chunks) never names, while it names
    others of its kind (普通卡, 学生卡: ``core.segmentation.are_siblings``, not in the question):
    ``(noun, the others)``, else None. "纪念卡多少钱？能退吗？" was answered with "普通卡和学生卡退卡时退还押金 20 元"
    (a helper's round, session 18). Both the knowledge base having the noun and the evidence naming its siblings
    are required: in session 15 a noun the documents write in another form (实习生 beside 本科生) was taken for a
    missing one. The siblings are read from the text, not from jieba's cut (学生卡 is cut 学生 / 卡): the
    characters before the last must be a word (``SIBLING_PREFIX_MIN``)."""
    have = evidence_text.lower()
    nouns = [w for w, tag in tagged(question) if tag.startswith("n") and len(w) >= 3 and _CJK_RUN.fullmatch(w)]
    for noun in dict.fromkeys(nouns):
        if noun in have or noun not in kb_text:
            continue
        kind = re.compile(rf"[\u4e00-\u9fff]{{{len(noun) - 1}}}{re.escape(noun[-1])}")
        others = tuple(
            sorted(
                {
                    w
                    for w in kind.findall(evidence_text)
                    if are_siblings(noun, w) and w not in question and general_frequency(w[:-1]) >= SIBLING_PREFIX_MIN
                }
            )
        )
        if others:
            return noun, others
    return _listed_with_another(question, have, kb_text)


def _listed_with_another(question: str, have: str, kb_text: str) -> tuple[str, tuple[str, ...]] | None:
    """An item of a list the knowledge base writes ("电子书、期刊论文、有声读物和在线课程等") that the question names and the
    evidence (``have``, lower-case) does not, while the evidence names another item of that list the question does not:
    ``(item, the others)``, else None. "有声读物每次可以借多久？" was answered with "电子书每次可借 14 天…" (an eval set's
    A29): jieba cuts 有声 / 读物, and the two share no last character, so ``about_another`` did not see them as kin."""
    for m in _ENUMERATION.finditer(kb_text):
        items = _items(m.group(0))
        asked = [x for x in items if x in question and x not in have]
        if not asked:
            continue
        named = {y for y in items if y in have and y not in question and not any(y in x or x in y for x in asked)}
        others = tuple(sorted(y for y in named if not any(y != z and y in z for z in named)))  # 电子书, not 子书 too
        if others:
            return asked[0], others
    return None


def _items(enumeration: str) -> list[str]:
    """The items of an enumeration as written ("提供电子书、期刊论文、有声读物和在线课程" → its four items, the first
    item's every ending of two or more characters among them, since the words before it are not cut off)."""
    parts = re.split(r"、|以及|和|及|与|或", enumeration)
    first, rest = parts[0], parts[1:]
    return [first[i:] for i in range(max(0, len(first) - 6), len(first) - 1)] + [p for p in rest if len(p) >= 2]


def unlisted_kind(question: str, kb_text: str) -> tuple[str, tuple[str, ...]] | None:
    """A thing the question names as a modifier the knowledge base never writes before a head that two or more of its
    tables' rows are named with ("星途钻石卡的年费是多少？" over a fee table whose rows are 星途金卡, 星途白金卡, 星途无限卡):
    another thing of the kind those rows list, which the documents do not have: ``(thing, the rows)``, else None. It
    had been answered with the 无限卡's fee (a helper's round, session 24). The modifier is a word of two or more
    Chinese characters (jieba's cut) written nowhere in ``kb_text`` (lower-cased); the head is the one or two characters
    after it; a row is named by its first cell. Measured on the dev, eval and helper sets: it names only that one
    question (docs/measurements.md, "Session 24"). A name in quotes the base does not write that ends with such a head
    is one too ("恒通驾校的“极速拿证班”多少钱？" over rows 普通班, 周末班 and VIP 班; "青橙通信的“畅游 99 元套餐”包含多少流量？"
    over the plans' rows; a helper's round, session 25: both had been answered with another class's or plan's
    lines), and so is one that ends with the word a table's first header cell names its rows' kind by ("禾丰搬家的“无忧全包
    套餐”多少钱？" over a table headed 套餐 whose rows are 小型搬家, 标准搬家, 大型搬家)."""
    cells = _first_cells(kb_text)
    if not cells:
        return None
    # a name in quotes: "恒通驾校的“极速拿证班”多少钱？" over 普通班, 周末班, VIP 班
    for m in _QUOTED.finditer(question):
        name = m.group(1).strip()
        if " ".join(name.lower().split()) in " ".join(kb_text.split()):
            continue
        for size in (1, 2, 3):
            rows = _rows_headed(cells, name[-size:])
            if len(name) > size and _CJK_RUN.fullmatch(name[-size:]) and len(rows) >= 2:
                return name, rows
        # ... or with the word a table's header names its rows' kind by ("“无忧全包套餐”" over a table headed 套餐 whose
        # rows are 小型搬家, 标准搬家, 大型搬家)
        for head, named in _named_tables(kb_text):
            if _CJK_RUN.fullmatch(head) and name.endswith(head) and len(name) > len(head):
                return name, tuple(sorted(named))
    naming = {w for w, tag in tagged(question) if tag not in _NOT_NAMING_TAGS}
    for word in dict.fromkeys(tokenize(question)):
        if len(word) < 2 or not _CJK_RUN.fullmatch(word) or word in kb_text or word not in naming:
            continue
        at = question.find(word)
        for size in (1, 2, 3):
            head = question[at + len(word) : at + len(word) + size]
            if len(head) < size or not _CJK_RUN.fullmatch(head):
                break
            rows = _rows_headed(cells, head, but=word + head)
            if len(rows) >= 2:
                return word + head, rows
    return None


def _rows_headed(cells: frozenset[str], head: str, but: str = "") -> tuple[str, ...]:
    """The row names of ``cells`` that end with ``head`` and are longer than it, ``but`` aside, sorted."""
    return tuple(sorted(c for c in cells if c.endswith(head) and len(c) > len(head) and c != but))


#: The parts of speech (jieba's tags) of a word that points, counts or joins rather than names a kind
#: (``core.retrieval.question.POINTING_TAGS``) but for adverbs: 这个 of "这个班一共多少钱？" and 的话 of "不能的话包天多少
#: 钱？" had been refused as another class and another pack (a helper's round, session 25); 钻石 (a noun) and 极速
#: (tagged an adverb) of "云匣极速版会员…" name one.
_NOT_NAMING_TAGS = POINTING_TAGS - {"d"}


@functools.lru_cache(maxsize=4)
def _named_tables(kb_text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """The tables ``kb_text`` writes, each as its first header cell and its rows' names
    (``core.retrieval.written.named_tables``)."""
    return named_tables([("", kb_text)])


@functools.lru_cache(maxsize=4)
def _first_cells(kb_text: str) -> frozenset[str]:
    """The names of the rows of the tables ``kb_text`` writes (their first cells: ``_named_tables``)."""
    return frozenset(name for _, rows in _named_tables(kb_text) for name in rows)


# A list the documents write: two or more items of two to eight characters joined by 、 (the last perhaps by 和/及/与/或),
# ending before 等 or any other character.
_ITEM = r"[\u4e00-\u9fffA-Za-z0-9.]{2,8}?"
_ENUMERATION = re.compile(rf"{_ITEM}(?:、{_ITEM})+(?:(?:以及|和|及|与|或){_ITEM})?(?=等|[^\u4e00-\u9fffA-Za-z0-9.]|$)")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
#: A sibling's first characters must be a word of general Chinese (jieba's dictionary counts it this often: 普通
#: 6,768, 学生 30,776), not two characters across a word boundary (机刷 in 自助机刷卡, 的退 in 的退卡: 0).
SIBLING_PREFIX_MIN = 100
