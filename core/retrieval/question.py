"""The question analysis: what a question asks, read once into one value (issue 26, "one question analysis").

``analyse(question)`` returns a frozen ``QuestionAnalysis`` (cached by the question's text). Every stage that
reads a person's question reads this value instead of parsing the text again: the query plan and the follow-up
resolution (``core.retrieval.query``), the sufficiency decision (``core.retrieval.sufficiency`` and
``sufficiency_terms``), the parts' evidence (``core.retrieval.hybrid``) and the offline answer
(``core.generators.extractive``, ``question_types``, ``compare``). Its fields:

* ``terms`` / ``content_terms``: the question's search terms (``core.lexical.query_terms``: jieba search mode,
  stopwords out), and those without interrogative words (``QUESTION_WORDS``), once each, in order;
* ``named``: names — products, people, fields, acronyms, versions (``named_terms``);
* ``wants`` / ``forms``: what the answer must contain (a number, a date, a time of day, a bound, a person, a place, a
  reason, an effect, a list's items) and the form it asks in (yes/no, a case, the case where something is left out,
  what something is or means) — for the extractive answer's sentence choice;
* ``asks_number`` / ``asks_steps`` / ``asks_detail`` / ``asks_default_value`` / ``asks_range`` /
  ``asks_duration`` / ``asks_count``: the sufficiency decision's readings (its ``type_match`` feature and the
  missing-default rule were fit and measured with exactly these patterns; they are kept apart from ``wants``);
* ``drawback``: it asks for drawbacks (``core.retrieval.aspects`` owns their vocabulary);
* ``parts``: the questions it asks one after another ("…能一起用吗？另外，…会怎样？");
* ``sides``: the two things a comparison names ("X 和 Y 有什么区别");
* ``times``: the times of day it names ("中午十二点多" → 12:00–12:59; ``core.clock``); ``days``: the days of the
  week ("周三" → Wednesday);
* ``items``: for a question for items, the words of what it asks for ("要交哪些材料" → 材料);
* ``unit``: the unit a question for a quantity asks in ("最长可以借多少天" → 天, "几个小时" → 小时, "百分之几" → %), else
  None;
* ``action``: the action a Chinese how-to question asks the way to ("洗护美容怎么预约？" → 预约), else "";
* ``pointing``: its words that point, count or qualify rather than name (这个, 一只, 一直), by jieba's tags;
* ``kind_words``: its words that name the kind of answer it asks for (条件, 流程, 方法; 钱/价格 for a price, 时间
  for a time), which documents state without repeating ("办理条件是什么" over "年满 65 周岁…可免费办理").

What depends on the knowledge base (salient and key terms, a follow-up's carried subject, whether the question
is in another script than the documents) is read with its ``LexicalIndex`` in ``core.retrieval.query``.
General Chinese/English language knowledge only: no word of any one document collection.

Pure functions over ``str``; person and place names by jieba part-of-speech tags (``core.segmentation.tagged``).

Why about 690 lines: one job, reading the question, and the point of the module is that every reading is here
(issue 26 counted seven modules re-parsing it); most of the file is the patterns, each with the question that
called for it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from core.clock import named_days, named_times
from core.lexical import general_frequency, query_terms, tokenize
from core.retrieval.aspects import asks_drawback
from core.segmentation import CJK_WORD, tagged

# ------------------------------------------------------------ what the answer must contain

_NUMBER_QUESTION = re.compile(
    r"多少|多久|多长|多大|多高|多远|多重|几[个次秒分天年月岁种名位层届折成]|何时|什么时候|哪一?年|哪一?天|哪个月|年份|日期|时间是"
    r"|百分之几|百分比|\b(?:how many|how long|how much|when|what year|what percent(?:age)?)\b",
    re.IGNORECASE,
)
# A question for when ("什么时候清运", "哪天开始", "when"): a date, a weekday or a time answers it, an amount does not.
_WHEN_QUESTION = re.compile(r"何时|什么时候|哪一?天|哪一?年|哪个月|几月|几号|什么日子|\bwhen\b", re.IGNORECASE)
# A question for the items of a list ("入职要交哪些材料？", "What documents must I hand in?").
_WHICH_ITEMS = r"哪(?:些|[两二三四五六七八九十几]\s*(?:种|个|类|项|条|样|步|部分))"
# ... and 都有什么, 包括什么, 包含什么 ("物资包里都有什么？": the items, a helper's round, session 25)
_LIST_QUESTION = re.compile(
    rf"{_WHICH_ITEMS}|都有(?:些)?什么|(?:包括|包含)(?:了)?什么"
    r"|\bwhat (?:\w+ )?(?:documents|items|materials|things|papers|files)\b|\bwhich \w+s\b",
    re.IGNORECASE,
)
# "怎么预约", "如何申请", "怎样退款": the asking words before the action a how-to question asks the way to
_HOW_TO = ("怎么", "如何", "怎样", "怎么样")


def asked_action(question: str) -> str:
    """The action a Chinese how-to question asks the way to: the verb jieba tags right after 怎么/如何/怎样 ("洗护美容
    怎么预约？" → 预约), two characters or more (怎么办's 办 says nothing); "" for any other question."""
    words = tagged(question)
    for i, (word, _) in enumerate(words[:-1]):
        nxt, tag = words[i + 1]
        if word in _HOW_TO and tag.startswith("v") and len(nxt) >= 2 and CJK_WORD.fullmatch(nxt):
            return nxt
    return ""


# ... and what it asks for: the words after 哪些/哪几种/哪两类… ("要交哪些材料" → 材料)
_ASKED_ITEMS = re.compile(rf"{_WHICH_ITEMS}的?([^？?，,。！!；;]{{1,12}})")
# A question for a time of day ("几点开门", "what time").
# Not 几点 as "a few points" ("有几点注意事项", "几点建议").
_CLOCK_QUESTION = re.compile(
    r"几点(?!注意|建议|要求|原因|意见|区别|不同|内容|事项|说明|理由|好处|优势|问题)|几时|什么时间|\bwhat time\b"
    # a day of the week ("周日可以去营业厅办吗？", "那周日呢？"): the answer is in the hours that day
    # (Chinese only: over Chinese hours an English question is scored by meaning, where the bonus only added
    # another day's hours to clinic-017's answer)
    r"|(?:周|星期|礼拜)[一二三四五六日天](?!内|以?内|后|前)|周末|节假日",
    re.IGNORECASE,
)
# A question for a bound: a superlative next to a quantity question word (最多可以调到多少条, 最长能等多久),
# 上限/下限, at most / maximum. 最大的优点 (a superlative of a thing) is not one.
_BOUND_QUESTION = re.compile(
    r"(?:最多|最大|最长|最高|最少|最小|最短|最低|至多|至少)[^，,。？?；;]{0,12}?(?:多少|几|多久|多长|多大|多高|多远)"
    r"|上限|下限|\b(?:at most|at least|maximum|minimum|max|min|upper limit|lower limit)\b",
    re.IGNORECASE,
)
# A question for a version or release ("从哪个版本开始支持", "which version").
_VERSION_QUESTION = re.compile(
    r"哪个版本|哪一个版本|哪一版|什么版本|版本号|\b(?:which|what) (?:version|release)\b", re.IGNORECASE
)
#: A question for a discount ("学生票打几折？"): a share of the full price answers it ("按全价票的 75% 计价"), no sum
#: of money is needed (``core.generators.question_types.unstated``).
DISCOUNT_QUESTION = re.compile(r"打几折|几折|多少折|(?:什么|多少|几)(?:折扣|优惠)|折扣是多少")
# A question for a price or a fee ("一针多少钱", "要不要花钱", "租金是多少", "物业费每月多少", "how much does it cost").
_MONEY_QUESTION = re.compile(
    r"多少钱|几块钱|几元|(?:价格|价钱|费用|收费)(?:是|要|大概|一般)?(?:多少|几|怎么算|怎么样|标准)|(?:什么|多少)(?:价格|价钱|费用)"
    r"|(?:怎么|如何|怎样)收费|收不收费|收费吗|花钱|要钱|免费吗|贵不贵|多贵"
    f"|{DISCOUNT_QUESTION.pattern}"  # a discount is a price too ("学生票打几折？")
    r"|多少(?:美元|欧元|英镑|日元|港元|港币|人民币)"
    r"|(?:[^浪消]费|租金|押金|单价|票价|报价|总价)\s*(?:是|要|大概|一般|一共|每月|每年|每天)?\s*(?:多少|几)"
    # a follow-up that asks a fee or a price of the earlier subject ("学费呢？", "那价格呢？")
    r"|(?:[^浪消]费|价格|价钱|租金|押金|单价|票价)(?:呢|怎么算)\s*[？?]*\s*$"
    r"|\bhow much\b.{0,60}\b(?:cost|costs|charge|charged|pay|fee|fees)\b|\bwhat(?:'s| is| are) the (?:price|cost|fee)s?\b"
    r"|\bwhat (?:does|do|will) .{0,40}\bcost\b|\b(?:price|cost|fee)s? (?:of|for)\b|\bis .{0,40}\bfree\b",
    re.IGNORECASE,
)
# A question for a phone number ("挂失电话是多少？", "打哪个号码？", "What is the phone number for…?"): a sentence that gives
# one answers it (``core.generators.question_types.says_phone_number``), not one that only names the service (a
# helper's round, session 24: "What is the phone number for reporting a lost card?" had been answered with the app
# and branch channels, the hotline left out). Not "可以电话预约吗？" (by phone: a yes/no).
_PHONE_QUESTION = re.compile(
    r"(?:电话|号码|热线|手机号)\s*(?:号码)?\s*(?:是|为)?\s*(?:多少|几号|什么)|(?:什么|哪个|哪一个|哪条)(?:电话|号码|热线)"
    r"|打(?:什么|哪个)电话|联系方式|\b(?:phone|telephone|hotline|contact|fax) numbers?\b|\bwhat(?:'s| is) the (?:phone|hotline)\b"
    r"|\bwhich (?:phone )?number\b|\bwhat number\b",
    re.IGNORECASE,
)
_PERSON_QUESTION = re.compile(r"谁|哪位|哪一位|什么人|哪个人|\bwho\b", re.IGNORECASE)
# A question for a colour ("引导员戴什么颜色的袖标？", "What colour is the badge?"): a sentence naming one answers it
# (a helper's round, session 27: 颜色 had been a third of that question's weight "absent" over "…佩戴黄色袖标" and it
# was refused)
_COLOR_QUESTION = re.compile(
    r"(?:什么|哪种|哪个|啥|何种)颜色|什么色|\bwhat colou?rs?\b|\bwhich colou?rs?\b", re.IGNORECASE
)
_PLACE_QUESTION = re.compile(r"哪里|哪儿|在哪|何地|何处|什么地方|哪个(?:国家|城市|省|地区)|\bwhere\b", re.IGNORECASE)
_REASON_QUESTION = re.compile(r"为什么|为何|什么原因|何故|原因是|\bwhy\b", re.IGNORECASE)
_EFFECT_QUESTION = re.compile(
    r"(?:什么|怎样|怎么样|哪些|何种|有何)的?(?:影响|后果|结果)|影响是|后果是|\b(?:effect|impact|consequence)s?\b",
    re.IGNORECASE,
)
# Which of several things wins ("以哪条为准", "哪个优先", "which takes precedence").
_PRECEDENCE_QUESTION = re.compile(
    r"以(?:哪|谁|什么)\S{0,4}为准|(?:哪|谁)\S{0,4}(?:优先|为准|说了算|生效)|优先级(?:更|较)?高"
    r"|\bwhich\b.{0,40}\b(?:wins|takes? precedence|prevails?|applies|is used)\b|\bprecedence\b",
    re.IGNORECASE,
)
_YESNO_QUESTION = re.compile(
    r"吗\s*[？?]|吗\s*$|能否|是否|可否|可不可以|能不能|会不会|是不是|有没有|要不要|需不需要"
    r"|^\s*(?:can|could|does|do|did|is|are|was|were|will|would|should|must|may|has|have)\b",
    re.IGNORECASE,
)
# A question for what something is or means ("E3005 是什么意思？", "什么是 Pod？", "What does E3005 mean?"); a
# whole question "X 是什么？" too (not "默认值是多少", and not "…的作用是什么" with a verb phrase before it).
_DEFINITION_QUESTION = re.compile(
    r"是什么意思|什么意思|啥意思|怎么回事|咋回事|指的是什么|是指什么|指什么|的含义|含义是什么|什么叫|何为|什么是|^\s*[^\s，,。？?]{1,24}\s*是(?:什么|啥)\s*[？?]?\s*$"
    r"|^\s*what (?:is|are) (?:an? |the )?[\w .-]{1,40}\?\s*$|\bwhat does .{1,40} mean\b",
    re.IGNORECASE,
)
_CASE_QUESTION = re.compile(r"如果|要是|假如|假设|万一|倘若|一旦|的话|\bif\b|\bwhat happens\b", re.IGNORECASE)
# A question about the case where something is left out ("那如果我压根不设置它呢？", "这两个都没写呢", "一个字都没写",
# "if I omit it", "without setting it"): answered by the sentence that states that case ("如果未明确指定…，则…").
_UNSET_QUESTION = re.compile(
    r"(?:不|没|没有|未)(?:去|再|用)?(?:设置?|写|填|指定|配置|声明|提供|传)|留空|省略|缺省"
    r"|\b(?:omit|omits|omitted|unset|leave (?:it|them|\w+) (?:out|empty|blank))\b"
    r"|\b(?:don't|do not|doesn't|does not|didn't|did not|never|without) (?:set|setting|specify|specifying|provide|providing)\b"
    r"|\b(?:is|are) (?:not|never) (?:set|specified|given)\b",
    re.IGNORECASE,
)


def question_forms(question: str) -> frozenset[str]:
    """The form of a question, apart from what it asks for: ``yesno`` (…吗？/能否/是否/能不能, can/does/is…),
    ``case`` (如果/要是/假如/万一…的话, if/what happens), ``unset`` (the case where something is left out: 不设置/没写/
    省略, omit/without setting) and ``definition`` (是什么意思/什么是/what is X?); empty for
    others."""
    out = set()
    if _YESNO_QUESTION.search(question):
        out.add("yesno")
    if _CASE_QUESTION.search(question):
        out.add("case")
    if _DEFINITION_QUESTION.search(question) and not _PHONE_QUESTION.search(question):
        out.add("definition")  # "What is the phone number for…?" asks a value, not a meaning
    if _UNSET_QUESTION.search(question):
        out.add("unset")
    return frozenset(out)


# What each kind of question asks for, and the pattern that reads it.
_WANTS = (
    ("reason", _REASON_QUESTION),
    ("effect", _EFFECT_QUESTION),
    ("number", _NUMBER_QUESTION),
    ("when", _WHEN_QUESTION),
    ("list", _LIST_QUESTION),
    ("clock", _CLOCK_QUESTION),
    ("bound", _BOUND_QUESTION),
    ("version", _VERSION_QUESTION),
    ("money", _MONEY_QUESTION),
    ("precedence", _PRECEDENCE_QUESTION),
    ("person", _PERSON_QUESTION),
    ("phone", _PHONE_QUESTION),
    ("place", _PLACE_QUESTION),
    ("color", _COLOR_QUESTION),
)


def question_wants(question: str) -> frozenset[str]:
    """What the question type asks for: ``number`` (多少/几/何时/哪一年, how many, when), ``when`` (何时/什么时候/
    哪天, when: a date, a weekday or a time, not an amount), ``clock`` (几点, what time: a time of day), ``bound``
    (最多…多少/上限, at most: a limit, maximum or minimum), ``version`` (哪个版本, which version), ``money``
    (多少钱/怎么收费/要不要花钱, cost/price/fee; not a topic such as 价格危机 or 收费单据), ``person`` (谁/哪位,
    who), ``phone`` (电话是多少/哪个号码, phone number), ``place`` (哪里/在哪, where), ``color`` (什么颜色, what colour),
    ``reason`` (为什么/为何, why), ``effect`` (什么影响/后果, what effect); empty for other questions."""
    return frozenset(kind for kind, pattern in _WANTS if pattern.search(question))


# ------------------------------------------------------------ the sufficiency decision's readings

_ASKS_NUMBER = re.compile(
    r"多少|多久|多长|多大|多高|几[个次天秒分小种条台倍]|几|上限|下限|默认值|how (many|much|long|often)|what (port|value|range)",
    re.I,
)
# (not 怎么回事, "what is going on": ``_DEFINITION_QUESTION``)
_ASKS_STEPS = re.compile(r"怎么(?!回事)|怎样|如何|步骤|方法|how (do|can|to|should)", re.I)
# A question asks for one specific detail: a default, limit, threshold, range, port, version, count.
_ASKS_DETAIL = re.compile(
    r"默认|缺省|阈值|上限|下限|范围|最多|最少|最大|最小|多少|多久|多长|几[个次天秒分种条台倍]|哪个端口|版本号"
    r"|\bdefault\b|\blimit\b|\bthreshold\b|\brange\b|how (many|much|long)|\bmaximum\b|\bminimum\b",
    re.I,
)
# A question asking for the default/threshold value itself ("默认…多少", "默认阈值是多少", "default … range").
_ASKS_DEFAULT_VALUE = re.compile(
    r"(默认|缺省)[^，。？?]{0,30}?(多少|多久|多长|多大|范围|阈值|几)|(阈值|上限|下限)[^，。？?]{0,6}?(是多少|多大|多少)"
    r"|\bdefault\b[^,.?]{0,40}?\b(value|range|threshold|limit|how many|how long)\b",
    re.I,
)
# The unit a question for a quantity asks in ("最长可以借多少天", "几个小时", "多少公里").
_ASKED_UNIT = re.compile(r"(?:多少|几)\s*个?\s*(工作日|小时|分钟|星期|公里|天|日|秒|周|年|岁|次|人(?!民))")
# ... and in English ("How many days in advance can I buy a ticket?"): the unit as the Chinese one it is stated as too
_ASKED_UNIT_EN = re.compile(
    r"\bhow many (working days|business days|days|hours|minutes|seconds|weeks|years|people|persons|times|kilomet(?:er|re)s)\b",
    re.IGNORECASE,
)
#: English units and the Chinese unit a text states them in (``asked_unit``; ``core.generators.quantities`` reads a
#: question's "12 years" against a range in 年).
ENGLISH_UNITS = {
    **dict.fromkeys(("day", "days"), "天"),
    **dict.fromkeys(("working days", "business days"), "工作日"),
    **dict.fromkeys(("hour", "hours"), "小时"),
    **dict.fromkeys(("minute", "minutes"), "分钟"),
    **dict.fromkeys(("second", "seconds"), "秒"),
    **dict.fromkeys(("week", "weeks"), "周"),
    **dict.fromkeys(("month", "months"), "月"),
    **dict.fromkeys(("year", "years"), "年"),
    **dict.fromkeys(("people", "persons"), "人"),
    "times": "次",
    **dict.fromkeys(("kilometers", "kilometres"), "公里"),
}


def asked_unit(question: str) -> str | None:
    """The unit a question for a quantity asks in, as the key the answer's units are read by
    (``core.generators.quantities``): 多少天 → 天, 几个人 → 人, "how many days" → 天, 百分之几 → %; None for others."""
    if _ASKS_PERCENT.search(question):
        return "%"
    if m := _ASKED_UNIT.search(question):
        return m[1]
    if m := _ASKED_UNIT_EN.search(question):
        return ENGLISH_UNITS[m[1].lower()]
    return None


# A question for which day or date ("期中考试是哪天？"): a date or a weekday answers it, "闭卷，90 分钟" does not.
_DATE_QUESTION = re.compile(
    r"哪一?天|几号|几月几[日号]?|哪个日子|什么日子|哪个日期|日期是|\b(?:what date|which day|on what day)\b", re.I
)
# A question for a share ("期末考试占总评成绩的百分之几？"): a percentage answers it, "低于 40 分" does not.
_ASKS_PERCENT = re.compile(r"百分之几|百分比|占比多少|比例是多少|\bwhat percent(?:age)?\b", re.I)
_ASKS_RANGE = re.compile(r"范围|\brange\b", re.I)
_ASKS_DURATION = re.compile(r"多长时间|多久|多少秒|多少分钟|多少小时|多少天|how long", re.I)
_ASKS_COUNT = re.compile(r"多少个|几个|多少条|多少次|how many", re.I)

#: Words that name the kind of answer a question asks for, each with the wants it names a kind of (``any``: every
#: question): a page states a price, a time or a condition without the word ("纪念卡多少钱？" over "售价 50 元";
#: "敬老卡的办理条件是什么？" over "年满 65 周岁的本市户籍老人可免费办理"), so the knowledge base lacking the word is
#: no evidence that it lacks the answer (``core.retrieval.sufficiency_terms.absent_share``; a helper's round,
#: session 18). 钱 only in a question for a price ("卡里钱不够了" is about the balance).
_ANY = frozenset({"any"})
KIND_WORDS: dict[str, frozenset[str]] = {
    **{w: _ANY for w in "条件 要求 资格 流程 步骤 方法 办法 手续 区别 作用 用途".split()},
    **{w: frozenset({"money"}) for w in "钱 价格 价钱 费用 收费".split()},
    **{w: frozenset({"when", "number", "clock"}) for w in "时间 时候 日期".split()},
    **{w: frozenset({"place"}) for w in "地点 地方 位置".split()},
    **{w: frozenset({"reason"}) for w in "原因 理由".split()},
    **{w: frozenset({"version"}) for w in "版本 版本号".split()},  # "需要什么版本的 Python？" over "Python 3.9 及以上"
    **{w: frozenset({"number"}) for w in "年龄 年纪 岁数".split()},  # "多大年纪可以骑？" over "年满 16 周岁"
    # "售后电话是多少？" over "售后服务热线：400-820-7788" (a helper's round, session 26: 电话 had been 66% of its weight
    # "absent" and the question refused)
    **{w: frozenset({"phone"}) for w in "电话 电话号码 号码 联系电话 热线 手机号".split()},
    **{w: frozenset({"color"}) for w in "颜色 色".split()},
}


def _names_kind(term: str, wants: frozenset[str]) -> bool:
    kinds = KIND_WORDS.get(term)
    return kinds is not None and (kinds is _ANY or bool(kinds & wants))


# A question for how many of a thing: a classifier after 多少/几, then the thing ("最多能同时连多少台设备？").
_COUNTED = re.compile(
    r"(?:多少|(?<!哪)几)\s*(?:个|台|位|名|张|本|册|辆|只|件|条|间|家|种|款|把|部|套|节|门|所|块|份|支|双|层|栋|座|名)\s*([\u4e00-\u9fff]{1,6})"
)


def counted_noun(question: str) -> str:
    """The thing a Chinese question for how many counts: the nouns jieba tags right after 多少/几 and a classifier
    ("路由器最多能同时连多少台设备？" → 设备, "能同时借几本纸质书？" → 纸质书, "每个班配几个老师？" → 老师); "" for any other
    question (多少天 counts days, a unit: ``_ASKED_UNIT``; 哪几个 asks which, dev-044)."""
    m = _COUNTED.search(question)
    if not m:
        return ""
    words = []
    for word, tag in tagged(m.group(1)):
        if not tag.startswith(("n", "vn")):
            break
        words.append(word)
    return "".join(words)


#: jieba's tags of words that point, count or qualify rather than name (pronoun, numeral, classifier, adverb,
#: preposition, conjunction, particle, position word): their absence from the documents says nothing of the topic
#: (``core.retrieval.sufficiency_terms.absence_terms``).
POINTING_TAGS = frozenset("r m q d p c u uj ul uz ud ug uv y e o f".split())
#: Interrogative words: asking "how long" is not a topic the knowledge base lacks.
QUESTION_WORDS = frozenset(
    """多久 多长 多大 多高 多远 多少 哪 哪里 哪儿 哪种 哪几种 几种 怎么办 怎么样 能否 能不能 是不是
    有没有 何时 什么 什么样 时候 回事 怎么回事 咋回事 啥意思 why when where who whom whose""".split()
)
#: Words that ask rather than name (besides ``QUESTION_WORDS``).
ASKING = frozenset("最多 最少 最大 最小 上限 下限 阈值 默认".split())


# ------------------------------------------------------------ named things

CJK = re.compile(r"[\u3400-\u9fff]")
_ASCII_NAME = re.compile(r"(?<![A-Za-z0-9_.\-])\.?([A-Za-z][A-Za-z0-9]*(?:[._\-/][A-Za-z0-9]+)*)")
#: A command-line option (``--force``, ``--dry-run``, ``-f``): a name, whose words are found inside code spans too.
_OPTION = re.compile(r"(?<![\w-])(?:--[A-Za-z][\w-]*|-[A-Za-z](?![\w-]))")
#: A version number (``0.9``, ``v1.2.3``).
VERSION = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)+(?![\w.])")
#: A unit after a number: "身高 1.3 米的儿童买什么票？" states a height (compared with the documents' "1.2 米至 1.5 米"),
#: it names no version that the documents lack (a helper's round, session 23: refused as 「1.3」 not in the base).
_MEASURED = re.compile(
    r"\s*个?(?:米|厘米|公分|毫米|公里|千米|公斤|千克|斤|克|吨|升|毫升|周岁|岁|元|块|万|天|小时|分钟|秒|周|个月|年|倍|折|度|℃|%|％"
    r"|(?:cm|mm|km|kg|g|m|ml|l|gb|mb|tb|kb|h|s|min|hours?|days?|years?|meters?|kilos?)(?![A-Za-z]))",
    re.IGNORECASE,
)
#: Words after a product's name (赤狐平台): the word before them names something.
PRODUCT_SUFFIX = ("平台", "系统", "产品", "公司", "项目", "团队", "框架", "引擎")
_PROPER_FLAGS = frozenset({"nz", "nt"})
#: A Chinese word is a name only when it is rare in the language (jieba's dictionary count,
#: ``core.lexical.general_frequency``): jieba tags everyday words as proper nouns too (上班族 216, 德语 274),
#: and a question word can stand before a product word (哪个 1874 in "由哪个公司发行"); each refused an
#: answerable dev question as "知识库中没有关于「上班族」的内容" (clinic-008, cmrc DEV_426_QUERY_2). Names the dev
#: questions use: 赤狐 6, 税务局 43, 新闻台 4, 嘎龙 0 (session 11).
NAME_GENERAL_MAX = 100
# ASCII words that are ordinary English in a Chinese question, not names.
_PLAIN = frozenset(
    """a an the is are to of in on for and or vs what how why which does do can with not
    yes no ok id url api
    monday tuesday wednesday thursday friday saturday sunday weekend weekends weekday weekdays""".split()
)


#: Units of measure written in Latin letters (kWh, GB, mAh): a unit is no name, and a base may write it in Chinese
#: (度, 千瓦时: a helper's round, session 27: "How much is electricity per kWh?" was refused as 「kWh」 absent over "电费
#: | 0.68元/度").
_UNITS = frozenset(
    """kwh kw w mah wh v mv a ma hz khz mhz ghz kb mb gb tb pb kbps mbps gbps bps km m cm mm nm kg mg g t ml l
    px dpi ppi fps rpm db""".split()
)


def _identifier_like(word: str) -> bool:
    core = word.lstrip(".")
    return (
        any(ch.isupper() for ch in core[1:])  # camelCase / PascalCase / acronym
        or any(ch in "._/" for ch in core)
        or any(ch.isdigit() for ch in core)
    )


def named_terms(question: str) -> list[str]:
    """Names in ``question``: products, people, fields, acronyms, versions (first-seen order, each once).

    ASCII: in a question with Chinese text every ASCII word of 2+ letters (``Kafka``,
    ``nftables``, ``worker_connections``); in an English question only identifier-like
    words (inner capital ``IngressClass``, acronym ``ICMP``, ``a.b``, ``a_b``, digits). Command-line options
    (``--force``, ``-f``) in any question.
    Versions (``0.9``, ``v1.2.3``); not a unit of measure (``kWh``, ``GB``). Chinese: a word jieba tags as a proper noun
    (``nz``/``nt``) or one followed by a product word (赤狐平台 → 赤狐), 2+ characters, that is rare in the
    language (``NAME_GENERAL_MAX``).
    """
    out: list[str] = []
    cjk = bool(CJK.search(question))
    for m in VERSION.finditer(question):
        if not _MEASURED.match(question, m.end()):  # 1.3 米, 2.5 公斤: a quantity the person states, not a version
            out.append(m.group(0))
    for m in _ASCII_NAME.finditer(question):
        word = m.group(1)
        if len(word) < 2 or word.lower() in _PLAIN or word.lower() in _UNITS or VERSION.fullmatch(word):
            continue
        if cjk and not _identifier_like(word) and len(word) < 3:
            continue
        if cjk or _identifier_like(word):
            out.append(word)
    out.extend(m.group(0) for m in _OPTION.finditer(question))
    if cjk:
        words = tagged(question)
        for i, (word, tag) in enumerate(words):
            if not CJK.search(word) or len(word) < 2:
                continue
            nxt = words[i + 1][0] if i + 1 < len(words) else ""
            if (
                (tag in _PROPER_FLAGS or nxt in PRODUCT_SUFFIX)
                and general_frequency(word) <= NAME_GENERAL_MAX
                and not _cut_across(word, "".join(w for w, _ in words[i + 1 :]))
            ):
                out.append(word)
    return list(dict.fromkeys(out))


def _cut_across(word: str, after: str) -> bool:
    """Whether ``word`` is a cut across two words of general Chinese rather than a name: jieba cuts "新生报到当天"
    as 新生报 / 到 (新生报 counts 3 in its dictionary; 新生 1,379, 报到 41), and the question was refused as
    「新生报」 absent (a helper's round, session 22). True when the word splits into a common word
    (``NAME_GENERAL_MAX``) and a rest that, with the one or two characters ``after`` it, is a word, each more
    frequent than the word itself."""
    own = general_frequency(word)
    for cut in range(2, len(word)):
        head, rest = word[:cut], word[cut:]
        if general_frequency(head) < max(NAME_GENERAL_MAX, own + 1):
            continue
        if any(
            len(after) >= n and CJK.match(after[n - 1]) and general_frequency(rest + after[:n]) > own for n in (1, 2)
        ):
            return True
    return False


# ------------------------------------------------------------ parts

# Where a question with several parts divides: after a question mark or semicolon, or before
# 另外/此外/还有/以及/同时 that follows a comma.
_PART_END = re.compile(
    r"(?<=[？?；;])\s*|[，,]\s*(?=(?:另外|此外|还有|以及|同时|并且|and also\b|also\b))"
    r"|,\s*(?=and (?:what|when|where|which|who|why|how)\b)",  # "What is X, and when does Y?"
    re.IGNORECASE,
)
_PART_LEAD = re.compile(r"^(?:另外|此外|还有|以及|同时|并且|and also\b|also\b|and\b)[，,]?\s*", re.IGNORECASE)
#: A part shorter than this (characters, without its lead word) is not a part of its own.
PART_MIN_CHARS = 4


def question_parts(question: str) -> list[str]:
    """The parts of a question that asks several things (``"…能不能一起用？另外，…会怎样？"`` → two
    parts), each without its lead word (另外/此外…); ``[question]`` for a question with one part.
    Each part is stripped of surrounding white space; one shorter than ``PART_MIN_CHARS`` (characters,
    final punctuation aside) joins the one before."""
    parts: list[str] = []
    for raw in _PART_END.split(question):
        raw = raw.strip()
        piece = _PART_LEAD.sub("", raw)
        if not piece:
            continue
        if parts and len(piece.rstrip("？?；;。.")) < PART_MIN_CHARS:
            parts[-1] += (" " if raw[:1].isascii() and parts[-1][-1:].isascii() else "") + raw
        else:
            parts.append(piece)
    return [side for part in parts for side in _one_by_one(part)] or [question]


def _one_by_one(part: str) -> list[str]:
    """A part that asks the same of two names one by one ("ConfigMap 和 Secret …分别用什么字段…") as one part per
    name, the other name and 分别/各自/respectively left out ("ConfigMap …用什么字段…", "Secret …用什么字段…"):
    each name's answer is in its own place. ``[part]`` for any other part."""
    found = _names_one_by_one(part)
    if found is None:
        return [part]
    pair, one_by_one = found
    rest = part[pair.end() : one_by_one.start()] + part[one_by_one.end() :].lstrip()
    return [part[: pair.start()] + pair.group(g) + rest for g in ("x", "y")]


# ------------------------------------------------------------ comparisons

_NAME = r"[\w.\-/]"
_COMPARE = re.compile(
    rf"(?P<x>{_NAME}+?(?: {_NAME}+?)*?)\s*(?:和|与|跟|及|同|vs\.?|versus)\s*(?P<y>{_NAME}+?(?: {_NAME}+?)*?)\s*"
    r"(?:相比|相比较|比较|对比|比起来)?\s*(?:之间)?\s*"
    r"(?:各自?|分别)?(?:的|有)?(?:什么|何|哪些)?(?:区别|差别|不同|不一样|差异|异同)"
    rf"|(?:比较|对比)(?:一下)?\s*(?P<x2>{_NAME}+?)\s*(?:和|与|跟)\s*(?P<y2>{_NAME}+)"
    rf"|difference between (?:(?:a|an|the) )?(?P<x3>[\w.\-/ ]+?) and (?:(?:a|an|the) )?(?P<y3>{_NAME}+)"
    rf"|compare (?:(?:a|an|the) )?(?P<x4>[\w.\-/ ]+?) (?:and|with|to) (?:(?:a|an|the) )?(?P<y4>{_NAME}+)"
    rf"|(?P<x5>{_NAME}+)\s+(?:vs\.?|versus)\s+(?P<y5>{_NAME}+)",
    re.IGNORECASE,
)
# Words that open a question before the first side ("请问 X 和 Y…").
_LEAD_WORDS = re.compile(r"^(?:请问|我想(?:知道|问问?)|想知道|问一下|说说|讲讲|介绍一下|解释一下)")
# A Latin name glued to Chinese words around it: at the end of the first side
# ("K8s里的Deployment"), at the start of the second ("StatefulSet各有什么不同").
_LATIN_TAIL = re.compile(r"[A-Za-z0-9][A-Za-z0-9.\-/_]*$")
_LATIN_HEAD = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.\-/_]*")
# A one-character word that opens a side of several words ("用 kubectl 重启", "在 Linux 上").
_ONE_CHAR_OPENER = re.compile(r"^[\u3400-\u9fff] (?=\S)")
# A pronoun (after 那) that ends the words before the first side: what it points at is before it.
_POINTING_TAIL = re.compile(r"\s*(?:那么|那)?\s*(?:它们|它|他们|她们|这个|那个)$")
# What the comparison is about, written after the second side ("…悲观事务在管理方式上有什么不同").
_ASPECT = re.compile(r"\s*在[^在\s]{1,10}?(?:上|方面|中|里)$")


def _first_side(words: str, shared: bool = False) -> str:
    """The first side of a Chinese comparison from the words before 和/与: after the last 的 ("TiDB 的乐观事务"
    → 乐观事务), or before it when the second side has its own 的 too (``shared``: "免费版的存储空间和专业版的存储
    空间" compares 免费版 and 专业版), a Latin name glued to Chinese words before it ("K8s里的Deployment"), else
    at most the last two space-separated words without a one-character word that opens them ("用 kubectl
    apply" → kubectl apply, "在 Kubernetes 里 DaemonSet" → DaemonSet, "Redis 集群" stays)."""
    if "的" in words:
        before, after = (part.strip() for part in words.rsplit("的", 1))
        words = (before if shared else after) or words
    tail = _LATIN_TAIL.search(words)
    if tail and CJK.search(words[tail.start() - 1 : tail.start()] if tail.start() else ""):
        return tail.group(0)
    return _ONE_CHAR_OPENER.sub("", " ".join(words.split()[-2:]))


# Two names asked about one by one ("`A` 和 `B` …分别是什么", "ConfigMap 和 Secret …分别用什么字段"): Latin names or
# code spans only (a Chinese side has no end a pattern can find: "城乡医保和职工医保分别…").
_RESPECTIVE_NAME = r"`[^`\n]{1,80}`|[A-Za-z][\w.\-/]*(?: [A-Za-z][\w.\-/]*)*"
_RESPECTIVE = re.compile(rf"(?P<x>{_RESPECTIVE_NAME})\s*(?:和|与|跟|以及)\s*(?:用|在|对)?\s*(?P<y>{_RESPECTIVE_NAME})")
_ONE_BY_ONE = re.compile(r"分别|各自|\brespectively\b", re.IGNORECASE)


def _names_one_by_one(text: str) -> tuple[re.Match[str], re.Match[str]] | None:
    """The two names ``text`` asks about one by one (``_RESPECTIVE``, before 分别/各自/respectively) and that word,
    or None: no such pair, or the same name twice."""
    one_by_one = _ONE_BY_ONE.search(text)
    pair = _RESPECTIVE.search(text, 0, one_by_one.start()) if one_by_one else None
    if pair is None or one_by_one is None:
        return None
    return (pair, one_by_one) if _bare(pair.group("x")).lower() != _bare(pair.group("y")).lower() else None


def _bare(name: str) -> str:
    """A name as written, without its backticks."""
    return name.strip("`").strip()


def compared_sides(question: str) -> tuple[str, str] | None:
    """The two things a comparison question names (``"X 和 Y 有什么区别"`` → ``(X, Y)``; ``"`A` 和 `B` …分别是
    什么"`` → ``(A, B)`` for Latin names and code spans), as written in the question (without backticks), or None
    for a question that compares nothing."""
    m = _COMPARE.search(question)
    if not m:
        found = _names_one_by_one(question)
        if found is None:
            return None
        x, y = (_bare(found[0].group(g)) for g in ("x", "y"))
        return (x, y) if x and y else None
    pairs = [(m.group(f"x{i}"), m.group(f"y{i}")) for i in ("", "2", "3", "4", "5")]
    x, y = next(((a.strip(), b.strip()) for a, b in pairs if a and b), ("", ""))
    x = (_LEAD_WORDS.sub("", x) or x).strip()
    y = _ASPECT.sub("", y) or y
    y = _ONE_CHAR_OPENER.sub("", y)  # "用 kubectl 重启"
    shared = "的" in y and bool(y.split("的", 1)[0].strip())  # "A 和 B 的预订规则": 的… is what is compared
    if shared:
        y = y.split("的", 1)[0].strip()
    if m.group("x") or m.group("x2"):  # a Chinese question: the words before the first side are not part of it
        x = _first_side(x, shared)
    # a follow-up's pronoun after the subject query resolution carried in front ("优享保障服务 那它跟尊享保障有什么
    # 区别？": the side is 优享保障服务; a helper's round, session 25, had "没有找到关于「优享保障服务 那它」")
    x = _POINTING_TAIL.sub("", x).strip() or x
    head = _LATIN_HEAD.search(y)
    if head and CJK.search(y[head.end() :]) and not y[head.end() :].startswith(" "):
        y = head.group(0)
    if not x or not y or x.lower() == y.lower():
        return None
    return x, y


# ------------------------------------------------------------ the value


@dataclass(frozen=True)
class QuestionAnalysis:
    """One question, read (see the module doc for each field). ``text`` is the question as analysed."""

    text: str
    terms: tuple[str, ...]
    content_terms: tuple[str, ...]
    named: tuple[str, ...]
    wants: frozenset[str]
    forms: frozenset[str]
    asks_number: bool
    asks_steps: bool
    asks_detail: bool
    asks_default_value: bool
    asks_range: bool
    asks_duration: bool
    asks_count: bool
    drawback: bool
    parts: tuple[str, ...]
    sides: tuple[str, str] | None
    #: the times of day it names: (its words, minutes since midnight, first and last) (``core.clock.named_times``)
    times: tuple[tuple[str, tuple[int, int]], ...] = ()
    #: the days of the week it names one by one: (its words, days 1 = Monday .. 7) (``core.clock.named_days``)
    days: tuple[tuple[str, frozenset[int]], ...] = ()
    #: for a question for items, the words of what it asks for (哪些材料 → 材料; ``_ASKED_ITEMS``), else ()
    items: tuple[str, ...] = ()
    #: its content terms that name the kind of answer it asks for (``KIND_WORDS``), else ()
    kind_words: tuple[str, ...] = ()
    #: the unit a question for a quantity asks in (多少天 → 天; ``_ASKED_UNIT``), else None
    unit: str | None = None
    #: the action a how-to question asks the way to (怎么预约 → 预约; ``asked_action``), else ""
    action: str = ""
    #: it asks which day or date (哪天, 几号, 几月几日, what date; ``_DATE_QUESTION``): a date or a weekday answers it
    asks_date: bool = False
    #: its words that point, count or qualify rather than name (这个, 一只, 一直; ``POINTING_TAGS``), else ()
    pointing: tuple[str, ...] = ()
    #: for a question for how many of a thing, the thing counted (多少台设备 → 设备, 几本纸质书 → 纸质书; ``counted_noun``)
    counted: str = ""

    @property
    def time_spans(self) -> tuple[tuple[int, int], ...]:
        """``times`` without their words: each named time as minutes since midnight, first and last."""
        return tuple(iv for _, iv in self.times)

    @property
    def day_set(self) -> frozenset[int]:
        """``days`` without their words: every day of the week it names, 1 = Monday .. 7."""
        return frozenset().union(*(days for _, days in self.days))

    @property
    def things(self) -> tuple[str, ...]:
        """``named`` without version numbers (v6.2.0, 8.1): the products, names and fields the question names."""
        return tuple(n for n in self.named if not VERSION.fullmatch(n))


@functools.lru_cache(maxsize=4096)
def analyse(question: str) -> QuestionAnalysis:
    """``question`` read once (cached by its text; the value is immutable). Never raises; an empty
    question has no terms and one part."""
    terms = tuple(query_terms(question))
    wants = question_wants(question)
    return QuestionAnalysis(
        text=question,
        terms=terms,
        content_terms=tuple(t for t in dict.fromkeys(terms) if t not in QUESTION_WORDS),
        named=tuple(named_terms(question)),
        wants=wants,
        forms=question_forms(question),
        asks_number=bool(_ASKS_NUMBER.search(question)),
        asks_steps=bool(_ASKS_STEPS.search(question)),
        asks_detail=bool(_ASKS_DETAIL.search(question)),
        asks_default_value=bool(_ASKS_DEFAULT_VALUE.search(question)),
        asks_range=bool(_ASKS_RANGE.search(question)),
        asks_duration=bool(_ASKS_DURATION.search(question)),
        asks_count=bool(_ASKS_COUNT.search(question)),
        drawback=asks_drawback(question),
        parts=tuple(question_parts(question)),
        sides=compared_sides(question),
        times=named_times(question),
        days=named_days(question),
        items=tuple(tokenize(m[1])) if (m := _ASKED_ITEMS.search(question)) else (),
        kind_words=tuple(t for t in dict.fromkeys(terms) if _names_kind(t, wants)),
        unit=asked_unit(question),
        asks_date=bool(_DATE_QUESTION.search(question)),
        action=asked_action(question),
        pointing=tuple(dict.fromkeys(w for w, tag in tagged(question) if tag in POINTING_TAGS)),
        counted=counted_noun(question),
    )
