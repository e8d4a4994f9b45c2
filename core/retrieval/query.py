"""What retrieval searches for: a question resolved against its conversation,
and the plan of how each ranking reads it.

* ``resolve_query(question, history, lexical)`` turns a follow-up ("那如果我压根不设置它呢？")
  into a self-contained query by carrying the subject of the earlier user turns:
  when the question refers back (它/这个/这两个/那…, it/this/they…) or has no salient
  term of its own, the salient terms of the previous turn (itself resolved the same
  way, so a subject survives several follow-ups) are put in front of it. A salient
  term is a term of the knowledge base (``LexicalIndex`` document frequency > 0)
  that is rare there (at most ``SALIENT_DF`` of the chunks) or an ASCII name
  (``CronJob``, ``.spec.startingDeadlineSeconds``). Measured on the dev set: see
  docs/measurements.md "Retrieval: what users type".
* ``plan_query(text, lexical, glossary)`` says how the two rankings read the query:
  an English question over a Chinese knowledge base (``cross_script``) gets the
  dense ranking weighted ``CROSS_SCRIPT_DENSE_WEIGHT`` in the fusion (the
  multilingual E5 embedder relates English and Chinese; BM25 only matches the
  English names the Chinese text contains), and its BM25 query is expanded with
  the Chinese terms the knowledge base itself glosses ("边车（sidecar）").
* ``mine_glossary(texts)`` finds those glosses: ``中文（English）`` and
  ``English（中文）`` pairs in the chunk texts.

Everything here is pure (no I/O, no model); strings are Python ``str`` and all
lengths are code points.

Why about 740 lines: resolving a follow-up (its questions and, after a which-question, its answer's
name) and planning how the rankings read the result are read together and share the knowledge base's term
statistics (salient, topic and gloss terms).
"""

from __future__ import annotations

import functools
import re
import weakref
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from core import designations
from core.clock import named_days
from core.lexical import LexicalIndex, general_frequency, is_value_term, tokenize
from core.retrieval.aspects import (
    DRAWBACK_QUERY_WORDS,
    drawback_expansion,
    is_drawback_word,
    limits_wording,
    without_drawback_words,
)
from core.retrieval.english_glosses import ENGLISH_FUNCTION_WORDS, chinese_glosses
from core.retrieval.question import ASKING, KIND_WORDS, NAME_GENERAL_MAX, QUESTION_WORDS, analyse
from core.retrieval.written import Written
from core.segmentation import CJK_WORD, are_siblings, tagged

#: A CJK term counts as salient when it occurs in at most this share of the chunks, or in one chunk
#: (``SALIENT_MIN_DF``): on a base under 100 chunks a share of 1% is less than one chunk, so nothing was
#: salient on a one-document base and no follow-up carried its subject (issue 26).
SALIENT_DF = 0.01
SALIENT_MIN_DF = 1
#: ... and is not an everyday word: at most this count in jieba's general dictionary
#: (``core.lexical.general_frequency``; 带来 6670, 分别 16537 are dropped, 探针 64, 挂起 3 kept).
GENERAL_FREQ_MAX = 1000
#: At most this many terms are carried from an earlier turn.
MAX_CARRIED = 6
#: A turn with no salient term carries at most this many ``topic_terms``, each in at most this
#: share of the chunks.
TOPIC_TERMS = 3
TOPIC_DF = 0.15
#: A word jieba tags as a verb is no topic when the language uses it more than this often (放在 6549, 装修 437).
TOPIC_VERB_GENERAL_MIN = 1000
#: ... or, for a follow-up whose 它 finds no subject so, in at most this share.
LOOSE_TOPIC_DF = 0.4
#: ... or in at most this many chunks, whatever the base's size (15% of a 7-chunk base is one chunk).
TOPIC_MIN_DF = 2
#: ... and is not among the commonest words of the language (jieba's dictionary count,
#: ``core.lexical.general_frequency``): 工作 66367, 使用 24035, 作用 22078 are dropped; 服务 13036, 网络 8352,
#: 路由 67 are topics. Without it "TiDB 的乐观事务模型是怎么工作的？" carried 工作 first (rare in TiDB's docs).
TOPIC_GENERAL_MAX = 20000
#: RRF weight of the dense ranking for a cross-script query (BM25 keeps weight 1). Measured on the
#: 13 English questions of the dev sets, MRR@10 with weight 1 / 2 / 3 / 5: 0.631 / 0.667 / 0.718 / 0.769 (docs/measurements.md).
CROSS_SCRIPT_DENSE_WEIGHT = 5.0
#: A query is cross-script when at most this share of its letters are CJK while at least
#: ``CJK_CORPUS`` of the knowledge base's terms are (``LexicalIndex.cjk_share``), or the reverse:
#: at least ``1 - CROSS_SCRIPT_SHARE`` CJK letters over a knowledge base at most ``CROSS_SCRIPT_SHARE`` CJK.
CROSS_SCRIPT_SHARE = 0.2
CJK_CORPUS = 0.5

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")
# Words that point back at an earlier turn.
_PRONOUN = re.compile(
    r"它|他们|她们|这个|那个|这两|那两|这几|这些|那些|这种|那种|这类|该字段|该功能|该策略|此字段|上述|前者|后者|两者|二者"
    r"|\b(?:it|its|they|them|their|this|that|these|those|both)\b",
    re.IGNORECASE,
)
_ANAPHORA = re.compile(_PRONOUN.pattern + r"|^(?:那|那么|那要是|要是|如果这样|还有|另外)", re.IGNORECASE)
# An earlier question that asks *which* thing ("订单系统用的是什么消息队列？", "默认用哪个存储引擎？", "Which message
# queue does it use?"): its answer names what a later 它/it points at. Not 什么时候/什么作用/… (a time, a role).
_ASKS_WHICH = re.compile(
    r"(?:是|用|使用|采用|选用|选|叫|装|部署|接入|依赖)(?:的)?(?:是)?(?:什么|哪个|哪种|哪一种|哪一个|哪款|哪家)"
    r"(?!时候|意思|作用|用|区别|关系|原因|影响|变化|效果|好处|问题|情况|条件)"
    r"|\b(?:which|what)\s+(?!is\b|are\b|was\b|does\b|do\b|did\b|happens?\b|if\b|about\b)\w+(?:\s+\w+)?\s+(?:does|do|is|are|did)\b",
    re.IGNORECASE,
)
# ... but "X 是什么？" (a bare 是, then 什么 ending the question) asks what X is, not which thing: its answer's first
# name ("TiKV 的内存悲观锁功能是什么？" → "…当内存悲观锁占用的内存达到 Region…") is not what 它 then means.
_DEFINITION_END = re.compile(r"\s*(?:东西)?\s*(?:呢|啊|呀)?\s*[？?。.!！]*\s*$")
#: At most this many names are taken from such an answer (for a plural follow-up: 它们, both).
ANSWER_NAMES = 2
# A follow-up that asks the earlier question of something else ("那公交呢？", "周日呢？", "What about Sunday?"): a
# short phrase and 呢, no pronoun or case of its own (那如果我不设置它呢 refers back, and is read so).
_ELLIPTICAL = re.compile(
    r"^\s*(?:那么?|还有)?\s*(?!.*(?:如果|要是|假如|它|这|那个))[^，,。？?\s][^，,。？?]{0,11}?\s*呢\s*[？?]*\s*$"
    r"|^\s*(?:and|what about|how about)\s+(?!it\b|that\b|this\b)[^?]{1,40}\?*\s*$",
    re.IGNORECASE,
)
# The "then" a follow-up opens with (那公交呢？, 那么…), not 那个/那些/那种/那里/那边/那样/那时 (that …).
_LEADING_THEN = re.compile(r"^\s*那么?(?![个些种里边样时儿])\s*")
# A follow-up about several things at once.
_PLURAL = re.compile(
    r"它们|他们|这两|那两|这几|这些|那些|两者|二者|各自|分别|\b(?:they|them|their|both|each)\b", re.IGNORECASE
)
# A name as written: identifiers with dots/dashes (``.spec.os.name``, ``kube-proxy``).
_NAME = re.compile(r"\.?[A-Za-z][A-Za-z0-9]*(?:[.\-/_][A-Za-z0-9]+)*")
_GLOSS_ZH_EN = re.compile(r"([\u4e00-\u9fff]{2,6})[（(]([A-Za-z][A-Za-z .\-]{1,40}?)[）)]")
_GLOSS_EN_ZH = re.compile(r"([A-Za-z][A-Za-z\-]{1,40})[（(]([\u4e00-\u9fff]{2,6})[）)]")


#: ``ResolvedQuery.reason`` of a question that points back with 它/那个/这 (``refers_back``).
REFERS_BACK = "follow-up: refers back"


@dataclass(frozen=True)
class ResolvedQuery:
    """The query retrieval uses for one question.

    ``text`` is what the rankings search (the question itself, or the carried
    terms of earlier turns, a space, then the question); ``carried`` the carried
    terms (as written in the earlier turn); ``reason`` a short English
    explanation for the record (``standalone``, ``follow-up: refers back``,
    ``follow-up: no salient term``, ``rewritten by the generator (…)``).
    ``also`` are further query texts whose rankings are fused with those of
    ``text`` (an LLM rewrite keeps the local resolution here); the decision and
    the relevance scores read ``text`` only.
    """

    question: str
    text: str
    carried: tuple[str, ...] = ()
    reason: str = "standalone"
    also: tuple[str, ...] = ()

    @property
    def rewritten(self) -> bool:
        return self.text != self.question


def cjk_share(text: str) -> float:
    """Share (0..1) of the letters of ``text`` that are CJK ideographs (0 for no letters)."""
    cjk = len(_CJK.findall(text))
    latin = len(_LATIN.findall(text))
    return cjk / (cjk + latin) if cjk + latin else 0.0


@functools.lru_cache(maxsize=4096)
def question_cjk_share(question: str) -> float:
    """``cjk_share`` of ``question``'s own words: the ASCII names it writes (``QuestionAnalysis.named``:
    SignatureDoesNotMatch, use_tls) are left out, since a name is written as the documents write it, in whatever
    language they are. "出现 SignatureDoesNotMatch 错误是什么原因？" is a Chinese question (its letters alone made it
    30% CJK, of no script: its Chinese words then counted as absent from an English page; a helper's round, session
    23). The whole question's share when it is nothing but names."""
    text = question
    for name in sorted((n for n in analyse(question).named if n.isascii()), key=len, reverse=True):
        text = text.replace(name, " ")
    own = cjk_share(text)
    return own if _CJK.search(text) or _LATIN.search(text) else cjk_share(question)


def salient_terms(text: str, lexical: LexicalIndex) -> list[str]:
    """The salient terms of ``text`` as written, best first (see module doc).

    ASCII names keep their spelling (a leading dot stripped); CJK terms are
    ``core.lexical.tokenize`` terms. Ordered by IDF, highest first, unique.
    """
    n = max(1, len(lexical))
    scored: dict[str, float] = {}
    for m in _NAME.finditer(text):
        name = m.group(0).lstrip(".")
        parts = tokenize(name)
        seen = [lexical.idf(p) for p in parts if lexical.df(p) > 0]
        if _identifier(name) and seen:
            scored.setdefault(name, max(seen) + 1.0)
    for term in tokenize(_NAME.sub(" ", text)):
        df = lexical.df(term)
        rare = 0 < df <= max(SALIENT_DF * n, SALIENT_MIN_DF) and general_frequency(term) <= GENERAL_FREQ_MAX
        if rare and len(term) >= 2 and _CJK.search(term):
            scored.setdefault(term, lexical.idf(term))
    return [t for t, _ in sorted(scored.items(), key=lambda kv: -kv[1])]


_ASKING_WORDS = QUESTION_WORDS | ASKING


def _asks(term: str) -> bool:
    """Whether ``term`` holds a word that asks (多长, 什么, 最多…: ``QUESTION_WORDS``, ``ASKING``): no subject or topic."""
    return any(w in term for w in _ASKING_WORDS)


def key_terms(question: str, lexical: LexicalIndex, n: int = 2) -> list[str]:
    """The question's ``n`` most specific terms, lower-case: its names and the knowledge-base
    terms that are rare there and not everyday words (``core.retrieval.query.salient_terms``), without
    interrogatives (多长时间, 最多…)."""
    terms = [t for t in salient_terms(question, lexical) if not _asks(t)]
    return [t.lower() for t in terms[:n]]


def _identifier(name: str) -> bool:
    """A name worth carrying: it has a capital letter or an inner dot (``CronJob``,
    ``spec.os.name``, ``gRPC``) or 8+ letters; no path-like ``foo/bar``; ``true``/``foo`` are not."""
    if "/" in name or len(name) < 3:
        return False
    return any(ch.isupper() for ch in name) or "." in name or len(name) >= 8


def refers_back(question: str) -> bool:
    """Whether ``question`` points at an earlier turn (它/这个/这两个/那…, it/this…), or goes on about its subject
    (``continues``: "寒暑假也能用吗？")."""
    return bool(_ANAPHORA.search(question.strip())) or continues(question)


@functools.lru_cache(maxsize=1024)
def continues(question: str) -> bool:
    """Whether ``question`` asks the same of the earlier turn's subject in another case: the adverb 也 ("寒暑假也能
    用吗？" after a question about 学生卡 asks whether 学生卡 can be used in the holidays; a helper's round, session
    18, where it became the subject and "它在哪里办理？" was then searched for 寒暑假). Cached: each turn of a
    conversation is asked it several times (``refers_back``, ``_carry``), and tagging cuts the text again."""
    return any(w == "也" and tag == "d" for w, tag in tagged(question))


def _says_any(text: str, words: Sequence[str]) -> bool:
    """Whether ``text`` writes any of ``words`` (case aside)."""
    low = text.lower()
    return any(w.lower() in low for w in words)


def _content_words(question: str) -> list[str]:
    """The question's content words of two or more characters that do not ask (``_asks``): 物业服务中心 and 电话 of
    "物业服务中心的电话是多少？"."""
    return [t for t in analyse(question).content_terms if len(t) >= 2 and not _asks(t)]


def resolve_query(
    question: str,
    history: Sequence[str | tuple[str, str]] = (),
    lexical: LexicalIndex | None = None,
    written: Written | None = None,
) -> ResolvedQuery:
    """Resolve ``question`` against ``history``: the earlier turns, oldest first, each a user question or a
    ``(question, answer)`` pair (the answer may be ""). The subject is carried from the questions (a turn whose
    answer says none of those words, "…申请销户。", has the answer's own ``topic_terms`` in front); a turn
    that asked *which* thing ("订单系统用的是什么消息队列？", ``_ASKS_WHICH``) also puts the name its answer
    gives (``answer_names``: "RabbitMQ") in front, but only for a follow-up that refers back to it
    ("那它有哪些缺点？" asks about RabbitMQ, not 订单; "订单系统的日志保留多久？" is not about RabbitMQ).

    ``written`` (``core.retrieval.written``): the knowledge base's text and table rows, so that a carried term is
    the name the base writes (婴儿服, not jieba's 婴儿) and a turn naming another row of a table (除螨 after 婴儿服)
    replaces it. Without history or a lexical index the question is returned as is. Does not
    mutate its inputs.
    """
    question = question.strip()
    if not history or lexical is None:
        return ResolvedQuery(question, question)
    last = history[-1] if isinstance(history[-1], str) else history[-1][0]  # the earlier question
    asked = _of_another(question, last, history[:-1], lexical, written)  # "那 C1 呢？" after "普通班 C2 学费多少？"
    if asked is not None:
        return asked
    if _names_what_the_answer_named(question, history, lexical):
        # "那这个迷你跑几点开始？" after an answer that named 迷你跑 ("…迷你跑允许 8 岁以上儿童…参加"): 这个 points at the
        # thing it names, which the question holds; the earlier question's words (儿童, 家长) would search its answer again
        return ResolvedQuery(question, question)
    if not _PRONOUN.search(question) and _names_known_thing(question, lexical):
        # "那 MySQL 有什么缺点？": a leading 那 and a thing of its own (in the base) is a new subject, not the old one
        return ResolvedQuery(question, question)
    subject: list[str] = []
    from_answers: set[str] = set()
    plural = bool(_PLURAL.search(question))
    for turn in history:
        asked, answer = (turn, "") if isinstance(turn, str) else turn
        subject = _carry(asked.strip(), subject, lexical, written) or subject
        if answer and subject and not _says_any(answer, [*subject, *_content_words(asked)]):
            # the answer says none of the words carried from its question, nor another word of it that names a topic:
            # what it is about is in its own words ("想把信用卡销掉，要怎么办？" is answered "…申请销户。销户申请提交后有
            # 45 天的冷静期…"; a helper's round, session 24: "那提交以后还能反悔吗？" had been searched with 信用卡 and
            # refused); not "物业服务中心：0755-…" to "物业服务中心的电话是多少？", whose 电话 it does not write (session 25:
            # the rare words of the company's name under it had been carried instead)
            subject = list(dict.fromkeys(topic_terms(answer, lexical) + subject))[:MAX_CARRIED]
        if answer and _asks_which(asked):
            named = answer_names(asked, answer, lexical, plural=plural)
            if named:  # 它 is the thing the answer named, not the question's subject ("TiDB", not 朱雀 结算)
                from_answers.update(named)
                subject = named
    if not subject and refers_back(question):
        # 它 points at something: in a small base the earlier question's subject may be in too many chunks to be
        # rare ("少儿证最多能借几本书？": 少儿 is in 4 of 25 chunks), so its topic is read with a looser share
        subject = topic_terms(limits_wording(last.strip()), lexical, share=LOOSE_TOPIC_DF) or english_topic(
            last, lexical
        )
    own = salient_terms(limits_wording(question), lexical)  # 不足之处 asks, it names nothing (之处 is rare)
    if refers_back(question):
        reason = REFERS_BACK
    elif not own and not _names_unknown_thing(question, lexical) and len(_own_words(question, lexical)) < OWN_WORDS:
        reason = "follow-up: no salient term"
        subject = [t for t in subject if t not in from_answers]
    else:
        return ResolvedQuery(question, question)
    carried = tuple(t for t in subject if t.lower() not in question.lower())[:MAX_CARRIED]
    if not carried and _ELLIPTICAL.match(question):
        # "那公交呢？" after "学生卡坐地铁打几折？" asks the earlier question of 公交: when no subject is found
        # (a small base, where 学生 and 地铁 are in a third of the chunks), the earlier question's own words are carried
        earlier = resolve_query(last, history[:-1], lexical, written).text
        carried = tuple(
            t for t in analyse(earlier).content_terms if len(t) >= 2 and not _asks(t) and t not in question
        )[:MAX_CARRIED]
        reason = "follow-up: asks the earlier question of something else"
    if not carried:
        return ResolvedQuery(question, question)
    return ResolvedQuery(question, " ".join(carried) + " " + _without_glued_then(question), carried, reason)


def _of_another(
    question: str,
    last: str,
    earlier: Sequence[str | tuple[str, str]],
    lexical: LexicalIndex,
    written: Written | None = None,
) -> ResolvedQuery | None:
    """For an elliptical follow-up ("那 C1 呢？", "那周日呢？", ``_ELLIPTICAL``), the earlier question (``last``, resolved
    against ``earlier``) asked of it: its words are carried but those of the same kind as the question's own (C2 for
    C1, 普通卡 for 学生卡: the thing it replaces). None for any other question, and when no earlier word is left to
    carry (the follow-up is then read as before, by its subject). "那 C1 呢？"
    after "普通班 C2 学费多少？" had been searched as it stands and led with another class's C1 row (a helper's
    round, session 19)."""
    if not _ELLIPTICAL.match(question):
        return None
    # ... and the rows of a table named (除螨 after 婴儿服 in a programme table: jieba cuts neither whole)
    rows = written.rows_named if written is not None else (lambda text: [])
    mine = [*analyse(question).content_terms, *rows(question)]
    asked = resolve_query(last, earlier, lexical, written).text
    terms = [*analyse(asked).content_terms, *rows(asked)]
    # the thing replaced (标准间 for 大间) and the pieces jieba's search mode cut from it (标准)
    replaced = [t for t in terms if any(_same_kind(t, m, written) for m in mine)]
    carried = tuple(
        t
        for t in terms
        if (len(t) >= 2 or t.isascii())
        and not _asks(t)
        and t.lower() not in question.lower()
        and not any(t in r for r in replaced)
    )[:MAX_CARRIED]
    # what the earlier question asked (多少钱, 几点关门), so that it is asked again; not when the question names what it
    # asks now ("学费呢？" after "那 B 班什么时候上课？" asks the fee, not the time: a helper's round, session 19)
    # (asked by the latest earlier question that asks: "大间呢？" after "狗狗标准间一晚多少钱？" and "那周末呢？" asks
    # 多少钱, a helper's round, session 20)
    asking = next(
        (q for q in [last, *(t if isinstance(t, str) else t[0] for t in reversed(earlier))] if _WH.search(q)), last
    )
    m = None if any(_names_value(t) for t in mine) else _WH.search(asking)
    tail = asking[m.start() :].strip(" ？?。.！!") if m else ""
    if not carried and not (replaced and tail and tail not in question):
        return None  # nothing carried: only a thing replaced, with what was asked of it, is a question of its own
    if tail and tail not in question:
        words = [t for t in carried if t not in tail] + [tail]
    else:
        words = [*carried]
    reason = "follow-up: asks the earlier question of something else"
    return ResolvedQuery(question, " ".join(words) + " " + _without_glued_then(question), carried, reason)


_WH = re.compile(
    r"多少|多久|多长|多大|多远|多高|几|哪|什么|怎么|怎样|如何|何时|\b(?:how|what|when|where|which|who)\b", re.I
)


_DIGITS = re.compile(r"\d+")


def _names_value(term: str) -> bool:
    """Whether ``term`` names a kind of value asked for (``KIND_WORDS``: 价格, 时间, 地点…) or a fee or price (学费, 房费,
    票价), not a thing."""
    return term in KIND_WORDS or (len(term) >= 2 and term[-1] in "费价")


def _same_kind(a: str, b: str, written: Written | None = None) -> bool:
    """Whether terms ``a`` and ``b`` name two things of one kind: days of the week (周六 and 周日), codes that differ
    only in their digits (C1 and C2, v1 and v2), Chinese nouns that are siblings (``core.segmentation.are_siblings``:
    学生卡 and 普通卡) or, with ``written``, two rows of one table (婴儿服 and 除螨)."""
    if a.lower() == b.lower():
        return False
    if written is not None and written.row_siblings(a, b):
        return True
    if named_days(a) and named_days(b):
        return True  # 周六 and 周日
    if a.isascii() and b.isascii():
        return _DIGITS.search(a) is not None and _DIGITS.sub("#", a.lower()) == _DIGITS.sub("#", b.lower())
    # ... or of one kind by their last character, whatever their lengths (标准间 and 大间), neither inside the other
    return are_siblings(a, b) or (
        min(len(a), len(b)) >= 2
        and a[-1] == b[-1]
        and a[0] != b[0]
        and a not in b
        and b not in a
        and bool(CJK_WORD.fullmatch(a))
        and bool(CJK_WORD.fullmatch(b))
    )


def _without_glued_then(question: str) -> str:
    """``question`` without the "then" it opens with (那, 那么) when jieba glues it to the next word: "那年卡呢？" is
    cut 那年 (that year) / 卡, and searched for no 年卡 (a helper's round, session 18); other questions as written
    (the dense rankings read them whole: dropping every leading 那 moved dev-026's retrieval)."""
    terms = tokenize(question)
    if not _LEADING_THEN.match(question) or not terms or not terms[0].startswith("那") or len(terms[0]) < 2:
        return question
    return _LEADING_THEN.sub("", question, count=1)


#: A question with no salient term but this many words of its own that the knowledge base has stands alone.
OWN_WORDS = 2


def _own_words(question: str, lexical: LexicalIndex) -> list[str]:
    """The words of ``question`` (Chinese terms of two or more characters) that the knowledge base has, words of
    asking, drawbacks and the kind of answer asked aside: on a small base every word may be in a third of the
    chunks, so none is salient, yet "学生卡坐地铁打几折？" (学生, 地铁) is a question of its own, not a follow-up of
    "纪念卡多少钱？" (a helper's round, session 18), while "有什么不足之处？" and "多少钱？" have at most one."""
    q = analyse(without_drawback_words(question) if analyse(question).drawback else question)
    verbs = _everyday_verbs(question)  # what is done (放在), no topic
    return [
        t
        for t in q.content_terms
        if len(t) >= 2
        and t not in verbs
        and _CJK.search(t)
        and not _asks(t)
        and t not in q.kind_words
        and lexical.df(t) > 0
    ]


def answer_names(asked: str, answer: str, lexical: LexicalIndex, *, plural: bool = False) -> list[str]:
    """The name (``QuestionAnalysis.named``, a version number aside) that ``answer`` gives (its first line that
    names one; a line that ends with a colon, the not-stated line or a lead-in, is skipped) for the question
    ``asked``: a name the question does not write, that is a term of the knowledge base (a refusal that quotes a
    missing name gives none), nearest to the word the question asked about (消息队列 in "用的是什么消息队列",
    缓存 in "缓存用的是什么"; else any of its words). "订单系统使用 RabbitMQ 作为消息队列，订单库使用 MySQL
    8.0，缓存使用 Redis。" gives RabbitMQ for the queue and Redis for the cache. With ``plural`` (the follow-up
    says 它们/这两/both) the first ``ANSWER_NAMES`` names in order instead."""
    lead, names = "", []
    for line in (ln.strip(" -*\t") for ln in answer.splitlines()):
        if not line or line.endswith(("：", ":")):
            continue
        lead = line
        names = [
            n
            for n in analyse(line).things  # the names a sentence gives, read as they are read in a question
            if n.lower() not in asked.lower() and _in_base(n, lexical)
        ]
        if names:  # the first line that names something (the lead may be a sentence about the manual)
            break
    low = lead.lower()
    if plural or len(names) < 2:
        return names[:ANSWER_NAMES]
    words = [t for t in analyse(asked).content_terms if len(t) >= 2]
    asked_for = [t for t in _asked_for(asked) if t in low] or [t for t in words if t in low]
    if not asked_for:
        return names[:1]

    def distance(name: str) -> int:  # code points between the name and the nearest asked-for word
        at = [m.span() for m in re.finditer(re.escape(name.lower()), low)]
        to = [m.span() for t in asked_for for m in re.finditer(re.escape(t), low)]
        return min((max(b0 - a1, a0 - b1) for a0, a1 in at for b0, b1 in to), default=len(low))

    return [min(names, key=distance)]


def _asks_which(asked: str) -> bool:
    """Whether ``asked`` asks which thing (``_ASKS_WHICH``: "订单系统用的是什么消息队列？", "缓存用的是什么？",
    "Which queue does it use?"), not what a thing is ("内存悲观锁功能是什么？": a bare 是 before a final 什么)."""
    m = _ASKS_WHICH.search(asked)
    if m is None:
        return False
    return not (m.group().startswith("是") and "什么" in m.group() and _DEFINITION_END.fullmatch(asked[m.end() :]))


def _asked_for(asked: str) -> list[str]:
    """The word a which-question asks about: the first term after 什么/哪个 ("用的是什么消息队列" → 消息队列), else the
    last one before it ("缓存用的是什么" → 缓存); lower-case."""
    m = _ASKS_WHICH.search(asked)
    if m is None:
        return []
    after = [t for t in tokenize(asked[m.end() :]) if len(t) >= 2 and t not in QUESTION_WORDS]
    before = [t for t in tokenize(asked[: m.start()]) if len(t) >= 2 and t not in QUESTION_WORDS]
    return after[:1] or before[-1:]


def _in_base(name: str, lexical: LexicalIndex) -> bool:
    """Whether every word of ``name`` occurs in the knowledge base."""
    return all(lexical.df(p) > 0 for p in tokenize(name) or [name.lower()])


# 这个/那个 (or 这种, 那种) before the thing it points at.
_DEMONSTRATIVE = re.compile(r"这个|那个|这种|那种")


def _names_what_the_answer_named(
    question: str, history: Sequence[str | tuple[str, str]], lexical: LexicalIndex
) -> bool:
    """Whether ``question`` points with a demonstrative at a thing the last turn's answer names, no earlier
    question does, and the knowledge base has (its words are terms of it): the longest run of two or more
    Chinese characters after 这个/那个 that the answer writes, no two of its first characters in an earlier
    question. "那这个迷你跑几点开始？" after "我儿子今年10岁，能跟我一起跑吗？" answered "…迷你跑允许 8 岁以上
    儿童在家长陪同下参加…" (a helper's round, session 25: it had been searched with 儿童 家长 陪同 carried and
    answered with the same sentence). Not 这个班 after "VIP 班…" (班 is the earlier question's: its subject is
    carried)."""
    turn = history[-1]
    answer = "" if isinstance(turn, str) else (turn[1] or "")
    if not answer:
        return False
    asked = " ".join(t if isinstance(t, str) else t[0] for t in history)
    for m in _DEMONSTRATIVE.finditer(question):
        run = CJK_WORD.match(question, m.end())
        said = [run.group(0)[:k] for k in range(2, len(run.group(0)) + 1) if run.group(0)[:k] in answer] if run else []
        # none of it the earlier questions' (这个功能默认… after "…功能是什么？": 功能 is theirs); a name, not a kind the
        # answer's table heads (这个套餐 after "标准会员…" answered "套餐 | 空间 | …": the 套餐 asked about)
        if said:
            return (
                said[0] not in asked and general_frequency(said[-1]) <= NAME_GENERAL_MAX and _in_base(said[-1], lexical)
            )
    return False


def _names_known_thing(question: str, lexical: LexicalIndex) -> bool:
    """Whether ``question`` names something (``QuestionAnalysis.named``, a version aside) that the knowledge
    base has (``_in_base``)."""
    return any(_in_base(name, lexical) for name in analyse(question).things)


def _names_unknown_thing(question: str, lexical: LexicalIndex) -> bool:
    """Whether ``question`` names something (``QuestionAnalysis.named``: a product,
    name, field, version) none of whose terms occurs in the knowledge base: its own subject, which
    the sufficiency decision will report as missing, so nothing is carried from earlier turns."""
    return any(all(lexical.df(p) == 0 for p in tokenize(name) or [name]) for name in analyse(question).named)


def _everywhere(term: str, lexical: LexicalIndex) -> bool:
    """Whether ``term`` (a salient term, e.g. an ASCII name) is too common in the knowledge base to be a
    turn's topic: each of its words is in more than ``TOPIC_DF`` of the chunks (TiDB in TiDB's own docs,
    the product's name: "TiDB 的乐观事务模型是怎么工作的？" is about 乐观事务, not TiDB)."""
    n = max(1, len(lexical))
    words = tokenize(term) or [term.lower()]
    return min(lexical.df(w) for w in words) > max(TOPIC_DF * n, TOPIC_MIN_DF)


def _everyday_verbs(text: str) -> set[str]:
    """The everyday verbs of ``text`` (jieba tags them ``v`` and its dictionary counts them more than
    ``TOPIC_VERB_GENERAL_MIN`` times: 放在 6549); rarer words jieba tags v too (拓扑 146, 感知 284) are not."""
    return {w for w, tag in tagged(text) if tag == "v" and general_frequency(w) > TOPIC_VERB_GENERAL_MIN}


def topic_terms(text: str, lexical: LexicalIndex, share: float | None = None) -> list[str]:
    """For a turn with no salient term ("拓扑感知路由有哪些限制？": 拓扑 感知 路由 are in 2–4% of the
    sample's chunks, 路由 and 网络 are everyday words): its ``TOPIC_TERMS`` rarest Chinese terms of 2+
    characters that occur in at most ``TOPIC_DF`` (or ``share``) of the chunks, interrogatives, everyday verbs
    (``TOPIC_VERB_GENERAL_MIN``: "装修垃圾放在哪里？" is about 垃圾, not 放在) and the words of drawbacks/limits aside, best (highest
    IDF) first."""
    n = max(1, len(lexical))
    scored: dict[str, float] = {}
    # an everyday verb (放在 6549 in jieba's dictionary) is what is done, no topic; jieba tags rarer words v too
    # (拓扑 146, 感知 284 in "拓扑感知路由"), and those stay
    verbs = _everyday_verbs(text)
    for term in tokenize(_NAME.sub(" ", text)):
        if len(term) < 2 or not _CJK.search(term) or _asks(term) or is_value_term(term):  # 3楼 is a value (``_carry``)
            continue
        if term in verbs:
            continue
        if term in DRAWBACK_QUERY_WORDS or is_drawback_word(term):
            continue
        if general_frequency(term) > TOPIC_GENERAL_MAX:
            continue
        if 0 < lexical.df(term) <= max((TOPIC_DF if share is None else share) * n, TOPIC_MIN_DF):
            scored.setdefault(term, lexical.idf(term))
    return [t for t, _ in sorted(scored.items(), key=lambda kv: -kv[1])][:TOPIC_TERMS]


def english_topic(text: str, lexical: LexicalIndex) -> list[str]:
    """An English turn's words that the base has, function words aside, rarest (highest IDF) first, at most
    ``TOPIC_TERMS``: what 它 of a Chinese follow-up points at when the earlier question was English ("它默认保留几个
    每周快照？" after "What does burrow prune do?" is about burrow prune; a helper's round, session 23, over an English
    tool's pages: it had been searched as it stands and refused). ``topic_terms`` reads Chinese terms only."""
    words = [w for w in dict.fromkeys(analyse(text).content_terms) if w.isascii() and w.isalpha()]
    kept = [w for w in words if w not in ENGLISH_FUNCTION_WORDS and lexical.df(w) > 0]
    return sorted(kept, key=lambda w: -lexical.idf(w))[:TOPIC_TERMS]


def _carry(turn: str, subject: list[str], lexical: LexicalIndex, written: Written | None = None) -> list[str]:
    """``_carry_topic``, then the floors and buildings ``turn`` names that the knowledge base has (``5楼``, ``15号楼``:
    ``core.designations``): a value of the subject, which the next turn keeps ("那我们走哪个楼梯下去？" after
    "3楼的集合点在哪里？"), but no topic: in a small base 3楼 is in one chunk, so it had been the turn's only salient
    term and the follow-up was searched as "3楼 那我们走…" (a helper's round, session 27)."""
    values = [t for t in dict.fromkeys(designations.terms(turn)) if lexical.df(t)]
    topic = _carry_topic(turn, subject, lexical, written)
    return list(dict.fromkeys([*topic, *values]))[:MAX_CARRIED] if values else topic


def _carry_topic(turn: str, subject: list[str], lexical: LexicalIndex, written: Written | None = None) -> list[str]:
    """The subject after ``turn``: its own salient terms, plus the earlier subject when it refers back;
    a turn with no salient term adds its ``topic_terms`` in front of the earlier subject. With ``written``, each
    term as the knowledge base writes it (``Written.grown``), and a turn that names another row of a table than the
    subject's (除螨 after 婴儿服) has that row as its subject."""
    if written is not None:
        rows = written.rows_named(turn)
        if rows and any(written.row_siblings(s, r) for s in subject for r in rows):
            return list(dict.fromkeys([*rows, *(s for s in subject if not written.names_row(s))]))[:MAX_CARRIED]
        grow = functools.partial(written.grown, text=turn, is_word=lambda run: lexical.df(run.lower()) > 0)
    else:
        rows, grow = [], lambda t: t
    # a question word is no subject (多长时间: jieba's dictionary counts it 3 times, so it looks rare)
    own = [grow(t) for t in salient_terms(limits_wording(turn), lexical) if not _asks(t) and not is_value_term(t)]
    own = list(dict.fromkeys([*rows, *own]))
    if all(_everywhere(t, lexical) for t in own):  # no salient term, or only names the whole base shares
        topics = list(dict.fromkeys(grow(t) for t in topic_terms(turn, lexical)))
        if 0 < len(topics) < TOPIC_TERMS:
            # ... and when that finds fewer than TOPIC_TERMS, the words in up to LOOSE_TOPIC_DF of the chunks after
            # them: on a small base the thing asked about may be in a third of the chunks ("怎么设置每日记账提醒？":
            # 提醒 in 7 of 24; a helper's round, session 27: "它最多能设几个？" had been searched as "每日 它…")
            loose = (grow(t) for t in topic_terms(turn, lexical, share=LOOSE_TOPIC_DF))
            topics = list(dict.fromkeys([*topics, *loose]))
        words = [] if topics or refers_back(turn) else _own_words(turn, lexical)
        if len(words) >= OWN_WORDS:  # a question of its own on a small base: its words, not the earlier subject
            return list(dict.fromkeys(own + words))[:MAX_CARRIED]
        return list(dict.fromkeys(topics + own + subject))[:MAX_CARRIED]
    if continues(turn) and subject:  # the earlier subject stays: the turn only names another case of it
        return subject
    if refers_back(turn):
        return list(dict.fromkeys(own + subject))[:MAX_CARRIED]
    return own[:MAX_CARRIED]


# ------------------------------------------------------------------ plans


@dataclass(frozen=True)
class QueryPlan:
    """How the rankings read one query: ``lexical_text`` for BM25, ``dense_text``
    for the embedder, and the RRF weight of each ranking."""

    lexical_text: str
    dense_text: str
    lexical_weight: float = 1.0
    dense_weight: float = 1.0
    cross_script: bool = False
    expansion: tuple[str, ...] = ()
    #: ``lexical_text`` without the dictionary's glosses of an English question's words
    #: (``core.retrieval.english_glosses``): what the question's own words and the base's glosses match
    own_text: str | None = None


def mine_glossary(texts: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """English ↔ Chinese glosses the texts themselves write, lowercased English keys.

    ``干扰预算（Disruption Budget）`` gives ``{"disruption budget": ("干扰预算",), "干扰预算":
    ("Disruption Budget",)}``; ``Ready（就绪）`` likewise. Both directions are keys.
    """
    pairs: dict[str, dict[str, None]] = {}
    for text in texts:
        for m in _GLOSS_ZH_EN.finditer(text):
            zh, en = _head_term(m.group(1)), m.group(2).strip()
            if zh:
                pairs.setdefault(en.lower(), {})[zh] = None
                pairs.setdefault(zh, {})[en] = None
        for m in _GLOSS_EN_ZH.finditer(text):
            en, zh = m.group(1), m.group(2)
            pairs.setdefault(en.lower(), {})[zh] = None
            pairs.setdefault(zh, {})[en] = None
    return {k: tuple(v) for k, v in pairs.items()}


def _head_term(run: str) -> str:
    """The term a CJK run ends with, before a gloss: its last jieba word, or the last two when that word is one character."""
    words = [w for w in tokenize(run) if _CJK.search(w)]
    if not words:
        return ""
    last = words[-1]
    return run[-4:] if len(last) < 2 else last


_GLOSSARIES: "weakref.WeakKeyDictionary[LexicalIndex, dict[str, tuple[str, ...]]]" = weakref.WeakKeyDictionary()


def glossary_for(lexical: LexicalIndex, texts: Iterable[str]) -> Mapping[str, tuple[str, ...]]:
    """``mine_glossary(texts)``, computed once per lexical index (the index and
    its texts are swapped together, so the glossary follows every ingest)."""
    g = _GLOSSARIES.get(lexical)
    if g is None:
        g = mine_glossary(texts)
        _GLOSSARIES[lexical] = g
    return g


def plan_query(text: str, lexical: LexicalIndex, glossary: Mapping[str, tuple[str, ...]] | None = None) -> QueryPlan:
    """The plan for ``text`` (see module doc): cross-script weighting and glossary expansion, and
    over a Chinese knowledge base a question for drawbacks is searched in its 限制 wording plus
    ``core.retrieval.aspects.DRAWBACK_QUERY_WORDS`` (``core.retrieval.aspects.limits_wording``, ``drawback_expansion``)."""
    corpus_cjk = lexical.cjk_share()
    q_cjk = question_cjk_share(text)
    cross = (q_cjk <= CROSS_SCRIPT_SHARE and corpus_cjk >= CJK_CORPUS) or (
        q_cjk >= 1 - CROSS_SCRIPT_SHARE and corpus_cjk <= CROSS_SCRIPT_SHARE
    )
    # a question for drawbacks searches the words a Chinese knowledge base states limits with
    aspect = list(drawback_expansion(text)) if corpus_cjk >= CJK_CORPUS else []
    if not cross:
        if not aspect:
            return QueryPlan(text, text)
        return QueryPlan(limits_wording(text) + " " + " ".join(aspect), limits_wording(text), expansion=tuple(aspect))
    low, glossary = text.lower(), glossary or {}
    if q_cjk <= CROSS_SCRIPT_SHARE:  # English question: the Chinese terms glossed with its words
        extra = [zh for en, zhs in glossary.items() if _LATIN.match(en) and _contains_phrase(low, en) for zh in zhs]
        # ... and its words' dictionary glosses that the base has ("smoke" → 吸烟, ``core.retrieval.english_glosses``)
        glosses = chinese_glosses(text, lexical.df)
    else:  # Chinese question over English text: the English terms glossed with its words
        extra = [en for zh, ens in glossary.items() if _CJK.match(zh) and zh in text for en in ens]
        glosses = []
    extra = list(dict.fromkeys(extra + aspect))
    own_text = text + (" " + " ".join(extra) if extra else "")
    glosses = [g for g in glosses if g not in extra]
    lex_text = own_text + (" " + " ".join(glosses) if glosses else "")
    return QueryPlan(
        lex_text, text, 1.0, CROSS_SCRIPT_DENSE_WEIGHT, True, tuple(extra + glosses), own_text if glosses else None
    )


def _contains_phrase(haystack: str, phrase: str) -> bool:
    return re.search(r"(?<![a-z])" + re.escape(phrase) + r"(?![a-z])", haystack) is not None
