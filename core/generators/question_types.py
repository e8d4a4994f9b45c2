"""Whether a sentence has what a question asks for: a number or date for 多少/几/何时/哪一年 (how many,
when), a bound for 最多…多少, a version for 哪个版本 (which version), a person for 谁 (who), a place for
哪里 (where), a reason for 为什么 (why), an effect for 什么影响 (what effect); whether it answers in the
question's form (no/only for a yes/no question, a case for 如果…). What the question asks is read once by
``core.retrieval.question.analyse`` (its ``wants`` and ``forms``); the extractive generator adds
``TYPE_BONUS`` to a sentence that has it (a question for drawbacks is scored in its 限制 wording instead,
``core.retrieval.aspects``).

Pure functions over ``str``; person and place names by jieba part-of-speech tags (jieba-rs,
``core.segmentation.tagged``).

Why about 435 lines: one job, what a sentence states against what the question asks; ``unstated`` (the detail an
answer does not give) is most of the length, each of its checks with the question that called for it.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Sequence

from core.clock import stated_times
from core.generators.compare import MISSING_SIDE
from core.generators.quantities import outside_stated_ranges, states_asked_unit
from core.retrieval.asked_detail import AMOUNT, STATED_BOUND  # a sum in figures (128 元, ￥30); a bound (最多, 以内)
from core.retrieval.question import CJK, DISCOUNT_QUESTION, analyse
from core.retrieval.sufficiency_terms import qualified_known
from core.segmentation import general_frequency, tagged

# A sentence that gives a reason / an effect (for why / what-effect questions).
_HAS_REASON = re.compile(r"因为|由于|之所以|原因|是为了|以便|\bbecause\b|\bdue to\b", re.IGNORECASE)
_HAS_EFFECT = re.compile(
    r"引起|导致|造成|使得|致使|以致|从而|结果|\b(?:leads? to|causes?|results? in)\b", re.IGNORECASE
)
# A sentence that says which of several things wins (for 以哪条为准 / 哪个优先 / which takes precedence).
_HAS_PRECEDENCE = re.compile(
    r"优先|为准|覆盖|取代|胜出|\b(?:takes? precedence|precedence over|priority over|overrides?|wins)\b", re.IGNORECASE
)
# The two directions of a bound: a question for an upper bound (最大可以设到多少) is not answered by a lower one only
# ("…最小 5MiB"; a helper's round, session 21), nor the other way round. 超过 bounds only a quantity ("超过 90 天不再
# 补打"; "超过 `chunk_size` 的文件会分片上传" is a condition); it and "limit" say no direction.
_UPPER_BOUND = re.compile(
    r"最多|最大|最长|最高|至多|上限|不超过|不能超过|不得超过|不高于|不大于|以内|之内|以下|\b(?:at most|maximum|max|up to)\b",
    re.IGNORECASE,
)
_LOWER_BOUND = re.compile(
    r"最少|最小|最短|最低|至少|下限|不少于|不低于|不小于|以上|\b(?:at least|minimum|min)\b", re.IGNORECASE
)
_EITHER_BOUND = re.compile(
    r"(?<![不能得])超过\s*[\d一二两三四五六七八九十百千半]|\b(?:limit|exceeds?)\b", re.IGNORECASE
)


def _states_bound_toward(sentence: str, question: str) -> bool:
    """Whether ``sentence`` states a bound of the direction ``question`` asks for (``_UPPER_BOUND`` / ``_LOWER_BOUND``,
    or one that says no direction, ``_EITHER_BOUND``); any bound (``has_wanted``) when the question asks for both
    directions or names neither."""
    upper, lower = bool(_UPPER_BOUND.search(question)), bool(_LOWER_BOUND.search(question))
    if upper == lower:
        return has_wanted(sentence, frozenset({"bound"}))
    toward = _UPPER_BOUND if upper else _LOWER_BOUND
    return bool(toward.search(sentence) or _EITHER_BOUND.search(sentence))


# A number or date in a sentence: digits, or Chinese numerals with a unit or a date word.
_HAS_NUMBER = re.compile(
    r"\d|[二三四五六七八九十两百千万亿〇零][一二三四五六七八九十两百千万亿〇零]*\s*(?:个|次|秒|分钟|小时|天|周|年|月|日|岁|种|名|位|层|届|倍|米|公里|公斤|%"
    r"|条|台|项|张|份|元|块|页|行|篇)|[一]\s*(?:秒|分钟|小时|天|周|年|月|日|岁|倍|米|公里|公斤)|百分之[零一二三四五六七八九十百]+"
    r"|(?:周|星期|礼拜)[一二三四五六日天]"  # a weekday answers 什么时候 ("物业每周二、周五统一清运")
)

# A version or release in a sentence: v6.2.0, 8.1, 3.0 版, 版本 5, version 2.
_HAS_VERSION = re.compile(r"\bv\d+(?:\.\d+)*|\d+\.\d+|\d+\s*版|版本\s*v?\d|\b(?:version|release)\s*v?\d", re.IGNORECASE)

# A time of day: 11:30, 9 点, 7am.
_HAS_CLOCK = re.compile(
    r"\d{1,2}\s*[:：]\s*\d{2}|\d{1,2}\s*点|\b\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.)"
    # ... or, as a day's value, that a place is closed ("周一：闭馆（设备保养日）", "周日：休息", "周一 | 闭馆"; a helper's
    # round, session 19: "…周一开门吗？" had been answered with the Monday line and the next day's hours glued to it);
    # not in prose ("休息日加班", "其他区域全天闭馆", whose 自习室 opens: measured on the eval sets)
    r"|(?:^|[：:|]\s*)(?:闭馆|休馆|休息|停业|歇业|不营业|不开放|暂停开放|closed)(?=\s*(?:$|[（(|。；;，,]))",
    re.IGNORECASE,
)

# A release name (v2.5.0, 8.1.2): its digits are not a count or a quantity ("支持多少个并发连接" is not answered by
# "批量导入是从 v2.5.0 开始支持的特性").
_RELEASE = re.compile(r"\bv\d+(?:\.\d+)*|\b\d+\.\d+\.\d+", re.IGNORECASE)

# An amount in words or that it is free (免费版 is an edition's name, not a price).
_FREE = re.compile(
    r"免费(?!版)|全免|不收费|不收钱|不要钱|不花钱|无需付费|不另收费"
    r"|\d\s*(?:yuan|RMB|CNY|USD|EUR|GBP|HKD|JPY|dollars?|euros?|pounds?|yen)\b|\bfree of charge\b|\bfree\b",
    re.I,
)
# A sum given as so many periods of another price ("押金为一个月房租", "赔偿两个月工资"): an amount, as a figure in 元 is.
_PERIODS_OF_PRICE = re.compile(
    r"(?:[一两二三四五六七八九十半]|\d+)\s*个?(?:月|年|季度?|周|星期|天|日)的?"
    r"(?:房租|租金|月租|工资|月薪|薪水|薪资|学费|管理费|服务费|物业费|保费|会费|费用)"
)
# A price stated against another (加收 30%, 八八折, 88 折, 半价) or as periods of another: how a fee is charged.
_RELATIVE_PRICE = re.compile(
    r"(?:加收|加价|上浮|另收|多收|优惠|减免|下浮|收取|按)\s*\d+(?:\.\d+)?\s*[%％]|\d+(?:\.\d+)?\s*折|[一二三四五六七八九]{1,2}折|半价"
    r"|(?:全价|原价|票价|定价)票?的\s*\d+(?:\.\d+)?\s*[%％]"  # "按全价票的 75% 计价"
    f"|{_PERIODS_OF_PRICE.pattern}"
)
# A price or a fee in a sentence: an amount of money, that it is free or paid by the person, or how it is charged
# against another price ("怎么收费" is answered by "再加收 30%"; a helper's round, session 20: it was prefixed "没有直接
# 说明所问的金额或费用").
_HAS_MONEY = re.compile(f"{AMOUNT.pattern}|{_FREE.pattern}|{_RELATIVE_PRICE.pattern}|自费", re.IGNORECASE)


# A sentence that says no, not or only (the answer to most yes/no questions a document settles).
_SAYS_NO_OR_ONLY = re.compile(r"不|没有|无法|未|仅|只|禁止|\bnot\b|\bonly\b|\bnever\b|\bcannot\b|n't\b", re.IGNORECASE)
# A sentence that states a case and what follows in it.
_STATES_CASE = re.compile(
    r"如果|若|假如|倘若|一旦|只要|只有|否则|除非|当.{0,40}?时|\bif\b|\bwhen\b|\bunless\b", re.IGNORECASE
)

# A sentence that states the case where something is left out: 未（明确）指定, 没有为 X 指定, 未被设置, 省略, 缺省,
# 为空, 默认, not set / omitted / unset / by default.
_STATES_UNSET = re.compile(
    r"(?:未|没有|没|不)(?:被|曾)?(?:明确|显式|显式地|明确地)?(?:为[^，,。；;]{1,30}?)?(?:指定|设置|设定|配置|填写|声明|提供|给出)"
    r"|省略|忽略|缺省|为空|留空|默认|\b(?:not|never) (?:set|specified|provided|given)\b"
    r"|\b(?:omit|omits|omitted|unset|by default|defaults? to)\b",
    re.IGNORECASE,
)


def forms_answered(sentence: str, forms: frozenset[str]) -> frozenset[str]:
    """Which of ``forms`` (``QuestionAnalysis.forms``) ``sentence`` answers in kind: ``yesno`` when it says
    no, not or only (不/没有/无法/仅/只, not/only), ``case`` when it states a case (如果/若/当…时/否则, if/when),
    ``unset`` when it states the case where something is left out (未指定/没有为 X 设置/省略/默认, not set/omitted/by default)."""
    out = set()
    if "yesno" in forms and _SAYS_NO_OR_ONLY.search(sentence):
        out.add("yesno")
    if "case" in forms and _STATES_CASE.search(sentence):
        out.add("case")
    if "unset" in forms and _STATES_UNSET.search(sentence):
        out.add("unset")
    return frozenset(out)


# Question words that name the kind of detail asked for: a sentence that states a value of that kind has them
# ("从哪个版本开始支持" is answered by "从 v6.2.0 开始支持", which does not say 版本; tidb-006). Not for money:
# 钱 or 费用 then drew a price of another service ahead of the nearest sentence on the asked one (clinic-031).
_KIND_NOUNS = {"version": frozenset({"版本", "版本号", "version", "release"})}


def names_wanted(term: str, sentence: str, wants: frozenset[str]) -> bool:
    """Whether the question term ``term`` names a kind of detail in ``wants`` (版本 for ``version``) and
    ``sentence`` states a value of that kind (:func:`has_wanted`)."""
    kinds = frozenset(k for k in wants if term.lower() in _KIND_NOUNS.get(k, ()))
    return bool(kinds) and has_wanted(sentence, kinds)


@functools.lru_cache(maxsize=4096)
def wanted_share(sentence: str, wants: frozenset[str], asked: str = "") -> float:
    """How fully ``sentence`` has one of ``wants`` (``has_wanted``): 1.0, or 0.5 when the only thing it has is a weaker
    form of it, 0.0 when it has none. Weaker forms (a helper's round, session 21):

    * a price stated against another ("押金为一个月房租", "加收 30%"): a sum in figures or that it is free answers
      "多少钱" more directly ("How much is the late fee…?" had been led by the deposit's "一个月房租" over "每天加收 50
      元滞纳金");
    * for when (什么时候), a bare number: a time, a date, a day or a span of time answers it ("厨余垃圾什么时候可以扔？"
      had been led by "…投放点在 6 栋楼下东侧。" over "厨余垃圾每天投放时间为早上 7:00–9:00…")."""
    if not has_wanted(sentence, wants, asked):
        return 0.0
    rest = wants - {"money", "when"}
    if rest and has_wanted(sentence, rest, asked):
        return 1.0
    if "money" in wants and (AMOUNT.search(sentence) or _FREE.search(sentence) or "自费" in sentence):
        return 1.0
    if "when" in wants and has_wanted(sentence, frozenset({"when"})) and _SAYS_TIME.search(sentence):
        return 1.0
    return 0.5


# Where in a building: a place's label ("地点：第一教学楼 105 大教室"), a room, floor or building by number (jieba tags no
# such place ns; a helper's round, session 21: "期末考试在哪里考？" left out the 地点 line). Not a desk or a window: "去哪里
# 下载？" is then led by "…到收费窗口补打" over "电子发票可以在公众号…里下载" (clinic-single-005).
_HAS_LOCATION = re.compile(
    r"(?:地点|地址|位置|场地|集合点)\s*[：:为是在]|\d+\s*(?:号楼|栋|幢|楼|层|室|教室|号门)|教学楼|办公楼|大楼|大厦"
    r"|\b(?:room|floor|building)\s*\d",
    re.IGNORECASE,
)


# A phone number: a mobile number, a 400/800 line, or groups of digits joined by hyphens or spaces (027-8765 4000,
# +86-10-6588-3000) with seven or more digits in all; a date (2023-07-01) has too short a last group.
_PHONE = re.compile(
    r"(?<![\d.])(?:\+\d{1,3}[- ]?)?(?:\d{2,4}[- ]){1,3}\d{3,4}(?![\d.])|(?<!\d)(?:1[3-9]\d{9}|[48]00\d{7})(?!\d)"
)
#: Words for a phone number: found in a sentence that gives one ("售后服务电话是多少？" is answered by "全国服务热线：
#: 400-820-6688", not by "…请联系售后服务。"; a helper's round, session 22).
PHONE_WORDS = frozenset("电话 号码 电话号码 热线 联系电话 手机号 手机号码 客服电话 服务热线 联系方式".split())


def says_phone_number(text: str) -> bool:
    """Whether ``text`` gives a phone number (seven or more digits in a mobile, 400/800 or grouped form)."""
    return any(sum(ch.isdigit() for ch in m.group(0)) >= 7 for m in _PHONE.finditer(text))


# What says when: a time of day, a date, a day of the week, a span of time or a word for a part of the day.
_SAYS_TIME = re.compile(
    r"\d\s*[:：点时]|\d\s*(?:年|月|日|号|天|周|小时|分钟|个月|个工作日|工作日)|[零一二两三四五六七八九十半]\s*(?:个月|天|周|年|小时)"
    r"|周[一二三四五六日天末]|星期|礼拜|每天|每日|每周|每月|每年|工作日|节假日|早上|上午|中午|下午|晚上|凌晨|当天|次日"
    r"|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekdays?|daily|am|pm|days?|weeks?|months?|hours?)\b",
    re.IGNORECASE,
)


#: A colour named: 黄色, 深蓝色, 红底, yellow (``has_wanted`` for a question for a colour).
_HAS_COLOR = re.compile(
    r"[红橙黄绿青蓝紫黑白灰粉棕褐金银][色底]|\b(?:red|orange|yellow|green|blue|purple|black|white|grey|gray|pink|brown)\b",
    re.IGNORECASE,
)


def has_wanted(sentence: str, wants: frozenset[str], asked: str = "") -> bool:
    """Whether ``sentence`` has one of ``wants`` (``QuestionAnalysis.wants``): a number or date, a time of day
    (11:30, 9 点), a bound (最多/上限/不超过/以内…, at most/up to), a person name or a place name (jieba part-of-speech
    tags ``nr`` / ``ns``), a phone number (``says_phone_number``), a colour (黄色), a reason (因为/由于…) or an effect
    (引起/导致/从而…). ``asked``: the question, whose own words name no person or place it asks for."""
    if "number" in wants and _HAS_NUMBER.search(_RELEASE.sub(" ", sentence)):
        return True
    if "when" in wants and _HAS_NUMBER.search(AMOUNT.sub(" ", _RELEASE.sub(" ", sentence))):
        return True  # a date, a weekday, a time or a period; not a price ("清运费…每平方米 5 元")
    if "bound" in wants and STATED_BOUND.search(sentence):
        return True
    if "clock" in wants and (_HAS_CLOCK.search(sentence) or stated_times(sentence)):  # 下午两点 (core.clock)
        return True
    if "version" in wants and _HAS_VERSION.search(sentence):
        return True
    if "money" in wants and _HAS_MONEY.search(sentence):
        return True
    if ("reason" in wants and _HAS_REASON.search(sentence)) or ("effect" in wants and _HAS_EFFECT.search(sentence)):
        return True
    if "precedence" in wants and _HAS_PRECEDENCE.search(sentence):
        return True
    if "place" in wants and _HAS_LOCATION.search(sentence):
        return True
    if "phone" in wants and says_phone_number(sentence):
        return True
    if "color" in wants and _HAS_COLOR.search(sentence):
        return True
    if wants & {"person", "place"}:
        flags = {"nr", "nrfg", "nrt"} if "person" in wants else set()
        flags |= {"ns", "nsf"} if "place" in wants else set()
        # a name the question itself writes is what it asks about, not the answer (巴士, which jieba tags as a place, of
        # "接驳巴士在哪里上车？"; a helper's round, session 27: the sentence introducing the bus had led over the rows of
        # the table's 上车地点 column)
        return any(tag in flags and word not in asked for word, tag in tagged(sentence))
    return False


#: What the offline answer says when its sentences lack what the question asks for (issue 27):
#: the asked detail by kind, and the line that goes before the nearest sentences.
UNSTATED_DETAIL = {"bound": "上限或下限", "number": "具体数字或时间", "version": "版本", "money": "金额或费用"}
NOT_STATED = "检索到的内容没有直接说明所问的{}，以下是最接近的内容，不一定回答了这个问题："


#: ... and the line before them when the question names a thing no answer unit mentions (``unmentioned``).
NOT_MENTIONED = "检索到的内容没有提到{}，以下是最接近的内容，不一定回答了这个问题："
# What the generator's own lines look like, whatever detail or name fills them (``is_note``).
_OWN_LINES = re.compile(
    "|".join("^" + re.escape(t).replace(re.escape("{}"), ".{1,200}?") + "$" for t in (NOT_STATED, NOT_MENTIONED)),
    re.S,
)


def unmentioned(question: str, contexts: Sequence[tuple[str, str]], earlier: str = "") -> str | None:
    """The things a one-part Chinese question names ("TiCDC 把上游事务同步到下游 MySQL 时，怎么保证…") when the
    chunks the answer quotes never mention any of them, written 「TiCDC」或「MySQL」; else None. ``contexts``: one
    ``(heading path, chunk text)`` per answer unit (the whole chunk: a sentence about certificate renewal under a
    Let's Encrypt section is about it). A name is found written any way: case, width, spaces and punctuation
    aside (NFKC; "Star-Gate" is "StarGate", "Lets Encrypt" is "Let's Encrypt"). Names that ``earlier`` (the
    conversation's earlier questions and answers) holds are left out: query resolution carried them into a
    follow-up ("它的配置文件在哪？" after "它支持 macOS 吗？" is not about macOS). None too when the question names
    nothing but versions, asks several things (a part may be answered while another's name is missing: the line
    would cover the answered part too) or is not Chinese (an English question's names may be written in Chinese).
    tidb-041 was answered with a TiDB causal-consistency sentence that never mentions TiCDC (docs/measurements.md,
    session 13). Not for a common noun the chunks never name while they name another of its kind (家庭版 beside
    标准版 and 专业版): tried in session 15, it also said 「实习生」 beside 本科生 and 「会员卡」 beside 储值卡, words the
    documents have in another form."""
    q = analyse(question)
    if not contexts or not CJK.search(question) or len(q.parts) > 1:
        return None
    seen = _folded(earlier)
    about = _folded("\n".join(f"{heading}\n{text}" for heading, text in contexts))
    # 普通员工 over chunks that say 其他员工: a known thing with an everyday qualifier is no missing name
    names = [n for n in dict.fromkeys(q.things) if _folded(n) not in seen and not qualified_known(about, n)]
    if not names or any(_folded(n) in about for n in names):
        return None
    return "或".join(f"「{n}」" for n in names)


def _folded(text: str) -> str:
    """``text`` compared as a name: NFKC, lower case, without spaces, punctuation or underscores."""
    return _NOT_NAME.sub("", unicodedata.normalize("NFKC", text).lower())


_NOT_NAME = re.compile(r"[\W_]+")


def unstated(question: str, sentences: Sequence[str], contexts: Sequence[tuple[str, str]] | None = None) -> str | None:
    """The detail the question asks for (``bound``, then ``number``, ``version``, ``money``, see
    ``QuestionAnalysis.wants``) that ``sentences`` do not state, or None when they state it or the question
    asks for none of them. Only these kinds are checked: a number, a bound, a version (v6.2.0, 8.1) and a
    price (128 元, 免费) are found by their form; a person, a place or a reason is too often stated in words
    the patterns miss. The version kind: tidb-049 ("Pipelined DML 是在哪个版本正式 GA 的？") was answered with
    "语法和实现可能会在 GA 前发生变化。".

    A version or a price must also be about what the question asks about. ``contexts`` holds one
    ``(heading path, sentences)`` per answer unit; a unit states a version when its sentences or its heading
    path have one ("## 2.8 版本"), a price when its sentences have one or its heading path an amount ("## 专线
    接入：每条每月 5000 元"; not a word like 自费 in "自费疫苗"). The question's rarest word that the units
    contain (fewest occurrences in jieba's general dictionary, ``core.segmentation.general_frequency``) must be in
    a unit that states it, and a thing the question names (Redis) must be in some unit: clinic-031 ("九价 HPV
    疫苗一针多少钱？") got the flu vaccine's "每剂 128 元" beside the HPV sign-up rule. Chinese questions only: an
    English question's words are not in Chinese text. A question for how much (多少钱: money and a number) needs
    an amount or that it is free; 自费 (paid by oneself) answers whether one pays, not how much (clinic-008).
    docs/measurements.md, sessions 12 and 14."""
    q = analyse(question)
    units = [(f"{heading}\n{text}".lower(), heading, text) for heading, text in contexts or ()]
    for kind in ("bound", "number", "version", "money"):
        if kind not in q.wants or (kind == "number" and q.wants & {"version", "money"}):
            continue  # a price or a version is the number asked for ("专业版的价格是多少？"); checked as such
        # an amount or free, not 自费 (paid by oneself); for a discount, a share of the price (按全价票的 75%)
        how_much = kind == "money" and "number" in q.wants and not DISCOUNT_QUESTION.search(question)
        states = _states_amount if how_much else _STATED_IN_UNIT.get(kind)
        if how_much:
            by_form = any(_states_amount("", s) for s in sentences)
        elif kind == "bound":
            by_form = any(_states_bound_toward(s, question) for s in sentences)
        else:
            by_form = any(has_wanted(s, frozenset({kind})) for s in sentences)
        if not by_form and not (states and any(states(heading, text) for _, heading, text in units)):
            return kind
        if kind == "money" and _another_currency(question, [*sentences, *(text for _, _, text in units)]):
            return kind  # "去美国出差每天补助多少美元？" answered with 每天 120 元 (a second helper's round)
        if kind in ("bound", "number") and outside_stated_ranges(question, sentences):
            return kind  # "一年内第 3 次逾期会暂停借阅多少天？" answered with the rule for 5 次及以上
        if kind in ("bound", "number") and not states_asked_unit(question, [*sentences, *(t for _, _, t in units)]):
            return kind  # "…最长可以借多少天？" answered with "单日最高 10 元" (a helper's round, session 18)
        if (
            kind in ("bound", "number")
            and q.counted
            and not _counts(q.counted, [*sentences, *(t for _, _, t in units)])
        ):
            # "路由器最多能同时连多少台设备？" answered with "最多可与 3 台同型号路由器组成一个 Mesh 网络": a number of another
            # thing (a helper's round, session 23; "托班每个班配几个老师？" over the number of children per class)
            return kind
        if states and units and CJK.search(question):
            names = [n.lower() for n in q.things]
            if names and not any(n in about for n in names for about, _, _ in units):
                return kind  # "订单系统的 Redis 是哪个版本？" answered with the order system's versions only
            # the words of the part that asks for it: "停车免费吗？发票怎么开？" asks a price of 停车, not of 发票 (a
            # helper's round, session 19: its 发票 answer, which gives no price, had made the price "not stated")
            asking = [p for p in q.parts if kind in analyse(p).wants] if len(q.parts) > 1 else []
            terms = [t for p in asking for t in analyse(p).content_terms] if asking else q.content_terms
            # (a count and its measure word, 一节 in "一节多少钱？", is how much of the thing, not the thing: "…自第一节课
            # 开始计算" had made it the key, and the price row "成人钢琴 | … | 160 元" had not said it; session 26)
            words = [
                t
                for t in terms
                if len(t) >= 2 and not _MEASURED.fullmatch(t) and any(t in about for about, _, _ in units)
            ]
            if words:
                key = min(words, key=lambda t: (general_frequency(t), -len(t)))
                if not any(key in about for about, heading, text in units if states(heading, text)):
                    return kind
    return None


_A_NUMBER = re.compile(r"\d|[一二两三四五六七八九十百千]")
# A count and one measure word ("一节", "两次", "3 晚"): how much of a thing, not the thing.
_MEASURED = re.compile(r"(?:\d+|[一二两三四五六七八九十百千几半]+)\s*[\u4e00-\u9fff]")


def _counts(thing: str, sentences: Sequence[str]) -> bool:
    """Whether a sentence states a number beside the thing a question counts (``QuestionAnalysis.counted``), by the
    thing's last character, the head of a Chinese noun phrase: 纸质书 is counted as "10 册图书", 老师 as "2 名教师"; a
    count of a unit (名额, 人数, 次数: the unit and 额 or 数) also by the unit: "二等奖 10 名" states the 名额 (a helper's
    round, session 25: "那它有几个名额？" had been answered as not stated)."""
    heads = {thing[-1]} | ({thing[0]} if len(thing) == 2 and thing[-1] in "额数" else set())
    return any(any(h in s for h in heads) and _A_NUMBER.search(s) for s in sentences)


# A currency other than the yuan, as a question or a sentence writes it.
_CURRENCIES = {
    name: re.compile(pattern, re.IGNORECASE)
    for name, pattern in {
        "usd": r"美元|美金|US\$|\bUSD\b|\bdollars?\b|\$\s*\d",
        "eur": r"欧元|€|\bEUR\b|\beuros?\b",
        "gbp": r"英镑|£|\bGBP\b|\bpounds?\b",
        "jpy": r"日元|円|\bJPY\b|\byen\b",
        "hkd": r"港元|港币|HK\$|\bHKD\b",
    }.items()
}


def _another_currency(question: str, texts: Sequence[str]) -> bool:
    """Whether ``question`` asks an amount in a currency (美元, euros) that none of ``texts`` writes."""
    said = "\n".join(texts)
    return any(p.search(question) and not p.search(said) for p in _CURRENCIES.values())


# Whether an answer unit (its heading path, its sentences) states an amount asked for by 多少钱 / how much: a sum
# (128 元) or that it is free.
def _states_amount(heading: str, text: str) -> bool:
    return bool(AMOUNT.search(text) or _FREE.search(text) or _PERIODS_OF_PRICE.search(text) or AMOUNT.search(heading))


# Whether an answer unit (its heading path, its sentences) states a version / a price.
_STATED_IN_UNIT = {
    "version": lambda heading, text: bool(_HAS_VERSION.search(text) or _HAS_VERSION.search(heading)),
    "money": lambda heading, text: bool(_HAS_MONEY.search(text) or AMOUNT.search(heading)),
}


def is_note(sentence: str) -> bool:
    """Whether ``sentence`` (a sentence or a piece of one) is part of a line the extractive generator
    writes itself (``NOT_STATED``, or ``core.generators.compare.MISSING_SIDE``) rather than one it
    quotes: such a line states what the evidence lacks and cites nothing by design (the evaluation's
    citation recall leaves it out)."""
    text = sentence.strip()
    if not text:
        return False
    head, tail = MISSING_SIDE.split("{}")
    return (
        any(text in NOT_STATED.format(d) for d in UNSTATED_DETAIL.values())
        or _OWN_LINES.match(text) is not None
        or (text.startswith(head) and text.endswith(tail))
    )
