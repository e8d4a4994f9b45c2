"""Cues that tell a contradiction from a paraphrase: numbers with units,
negation, quantifiers, antonyms and named objects (identifiers).

Each function compares a sentence with the passage of a chunk that was aligned
to it (``core.verification.support``) and returns a ``Conflict`` (kind + the Chinese
reason shown to people) or None. All texts are plain ``str``; nothing here
computes offsets.

Sources of the cue lists: written for this project from the usage of Chinese
technical documentation (negators 不/没/无/非/未/别/勿, modal negation 不能/无法/
不可/禁止, quantifiers 所有/每个/任何/总是/只/仅/默认 …). They are general
word lists, not fitted to a data set; limits are listed in
``core.verification.support``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.lexical import tokenize
from core.segmentation import words


def jieba_words(text: str) -> list[str]:
    """``text`` cut into jieba's words (precise mode, ``core.segmentation.words``), lowercased,
    whitespace dropped."""
    return [w.lower() for w in words(text) if w.strip()]


@dataclass(frozen=True)
class Conflict:
    """``kind``: number · negation · quantifier · entity · subject (the statement is made of
    another object type: not a contradiction, the sentence is unsupported); ``reason`` in Chinese;
    ``name``: for an entity or subject conflict, the sentence's name the passage lacks."""

    kind: str
    reason: str
    name: str | None = None


# ---------------------------------------------------------------- markup

_SHORTCODE = re.compile(r"\{\{[<%].*?[%>]\}\}", re.S)
# An underscore between two ASCII letters or digits is part of a name (``CRON_TZ``), not emphasis.
_MARKUP = re.compile(r"\*\*|~~|\*(?=\S)|(?<=\S)\*|(?<![A-Za-z0-9])__?(?=\S)|(?<=\S)__?(?![A-Za-z0-9])")


_CODE_SPAN = re.compile(r"(`[^`\n]*`)")


def plain(text: str) -> str:
    """``text`` without Hugo shortcodes and emphasis marks, for comparison only
    (``**a**``, ``*a*``, ``_a_`` lose their marks; ``CRON_TZ`` keeps its underscore; a code span keeps
    its text: `*.tmp`), and a table cell's escaped pipe read as the pipe it is (``\\|`` → ``|``)."""
    pieces = _CODE_SPAN.split(_SHORTCODE.sub(" ", text))
    return "".join(p if i % 2 else _MARKUP.sub("", p) for i, p in enumerate(pieces)).replace("\\|", "|")


# ---------------------------------------------------------------- identifiers

_BACKTICK = re.compile(r"`([^`\n]{1,80})`")
_IDENT = re.compile(
    r"(?<![\w.\-])(?:--?[a-z][\w-]*|\.?[A-Za-z_][\w-]*(?:[./][A-Za-z_][\w-]*)+|[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*)"
)
# Words that are spelled like identifiers but name a format or protocol, not a value (general
# technical English: no product or corpus names here, see tests/ingest/test_corpus_profile.py).
_GENERIC = frozenset({"api", "yaml", "json", "http", "https"})


def _shape(name: str) -> str:
    """The kind of a name: path (``.spec.x``, ``a/b``), flag (``--x``), field (``dnsPolicy``),
    kind (``StatefulSet``) or value (``Allow``, ``linux``)."""
    if name.startswith("-"):
        return "flag"
    if "." in name or "/" in name:
        return "path"
    if name[:1].islower() and any(c.isupper() for c in name):
        return "field"
    if sum(c.isupper() for c in name) >= 2 and not name.isupper():
        return "kind"
    return "value"


def named(text: str) -> dict[str, tuple[str, str]]:
    """Named objects in ``text``: lowercased name → (shape, as written); see ``_shape``.
    Backticked spans, dotted paths (``.spec.os.name``), flags (``--recursive``), CamelCase words."""
    found = [m.group(1).strip() for m in _BACKTICK.finditer(text)]
    found += [m.group(0) for m in _IDENT.finditer(_BACKTICK.sub(" ", text))]
    out: dict[str, tuple[str, str]] = {}
    for name in found:
        low = name.lower()
        if sum(c.isalnum() for c in low) >= 2 and low not in _GENERIC and not low.isdigit():
            out.setdefault(low, (_shape(name), name))
    return out


def identifiers(text: str) -> set[str]:
    """The lowercased names of ``named(text)``."""
    return set(named(text))


def without_names(text: str) -> str:
    """``text`` with its named objects (see ``named``) replaced by a space."""
    return _IDENT.sub(" ", _BACKTICK.sub(" ", text))


def _present(ident: str, low_text: str) -> bool:
    return ident in low_text


# ---------------------------------------------------------------- numbers

_UNITS = (
    "毫秒|秒钟|秒|分钟|小时|天|周|个月|月|年|次|个|倍|字节|字符|%|ms|s|m|h|d|"
    "kib|mib|gib|tib|kb|mb|gb|tb|ki|mi|gi|ti|k|g"
)
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.\-/])(v?\d+(?:\.\d+)*)\s*(" + _UNITS + r")?(?![A-Za-z0-9_])", re.I)
_UNIT_NORM = {"秒钟": "秒", "s": "秒", "ms": "毫秒", "m": "分钟", "h": "小时", "d": "天"}


def numbers(text: str) -> list[tuple[str, str, str]]:
    """``(value, unit, as written)`` for each number in ``text``; ``value`` drops a leading
    ``v`` (``v1.25`` → ``1.25``), ``unit`` is normalized ('' when none: ``s`` → 秒, ``MiB`` → ``mib``).

    Numbers glued to letters (``UTF-8``, ``e5``, ``k8s``) are part of a name and skipped.
    """
    out = []
    for m in _NUMBER.finditer(text):
        unit = (m.group(2) or "").lower()
        out.append((m.group(1).lower().lstrip("v"), _UNIT_NORM.get(unit, unit), m.group(0).strip()))
    return out


def _year(value: str) -> bool:
    return value.isdigit() and len(value) == 4 and 1900 <= int(value) <= 2100


def number_conflict(sentence: str, passage: str, known: frozenset[str] = frozenset()) -> Conflict | None:
    """A number of the sentence that the passage states differently with the same unit (or both
    without one). A bare number against one with a unit is not compared: on CiteCheck that pairing
    (a year against a count) was noise more often than a contradiction; for the same reason a
    year (1900–2100) is compared only with a year. ``known``: values other passages of the
    sources state (a sentence number among them is not a conflict: two passages support it jointly)."""
    s_nums = numbers(sentence)
    p_nums = numbers(passage)
    if not s_nums or not p_nums:
        return None
    p_values = {v for v, _, _ in p_nums}
    s_values = {v for v, _, _ in s_nums}
    for value, unit, shown in s_nums:
        if value in p_values or value in known:
            continue
        rival = next((w for v, u, w in p_nums if u == unit and v not in s_values and _year(v) == _year(value)), None)
        if rival is not None:
            return Conflict("number", f"来源写的是 {rival}，句子写的是 {shown}")
    return None


# ---------------------------------------------------------------- negation

# fmt: off
_NEGATORS = ("不能", "不可以", "不可", "不会", "不要", "不再", "不必", "不需要", "不允许", "不保证",
             "无法", "不得", "禁止", "没有", "没", "未", "无", "非", "不", "勿", "别")
# fmt: on
_NEG_RE = re.compile("|".join(sorted(_NEGATORS, key=len, reverse=True)) + r"|\bnot\b|\bnever\b|\bcannot\b|n't\b", re.I)
# Words that start with (or end in) a negator character but are not negations.
# fmt: off
_NOT_NEG = ("不同", "不断", "非常", "无论", "未来", "没错", "不仅", "无需", "不过", "并非", "非空", "不久", "无限",
            "别的", "别名", "区别", "未知")
# fmt: on
_MODALS = ("可以", "需要", "应该", "会", "能", "可", "被", "要", "得", "再", "必", "应", "用", "在", "是")
_CONDITIONAL = ("否则", "除非", "要不然", "unless", "otherwise")
_CLAUSE = re.compile(r"[，,；;。！？!?\n：:（）()]")


def _is_negator(text: str, start: int, end: int) -> bool:
    return not any(text.startswith(w, start) or text[max(0, start - 1) : end] == w for w in _NOT_NEG)


def _polarity(text: str) -> tuple[dict[str, str], set[str]]:
    """(negated word → the clause text from its negator to the word, words in clauses
    without any negator): Chinese terms of 2+ characters."""
    neg: dict[str, str] = {}
    pos: set[str] = set()
    for clause in _CLAUSE.split(plain(text)):
        hits = [m for m in _NEG_RE.finditer(clause) if _is_negator(clause, m.start(), m.end())]
        if not hits:
            pos |= {t for t in tokenize(clause) if len(t) >= 2 and not t.isascii()}
            continue
        for m in hits:
            after = clause[m.end() :].lstrip()
            for modal in _MODALS:
                if after.startswith(modal) and len(after) > len(modal) + 1:
                    after = after[len(modal) :]
                    break
            first = jieba_words(after[:6])[:1]  # only the word right after the negator
            words = [t for t in first if len(t) >= 2 and not t.isascii()]
            if words:
                end = clause.find(words[0], m.end())
                neg.setdefault(words[0], clause[m.start() : end + len(words[0])] if end >= 0 else m.group(0) + words[0])
    return neg, pos


def negation_conflict(sentence: str, passage: str) -> Conflict | None:
    """A word negated on one side and stated in a clause without negation on the other."""
    if any(w in text for w in _CONDITIONAL for text in (sentence, passage)):
        return None  # "必须匹配，否则拒绝" says "不匹配则拒绝": polarity flips legitimately
    s_neg, s_pos = _polarity(sentence)
    p_neg, p_pos = _polarity(passage)
    for w in sorted(p_neg.keys() & s_pos):
        if w not in p_pos and w not in s_neg:
            return Conflict("negation", f"来源写的是“{p_neg[w]}”，句子写的是肯定的“{w}”")
    for w in sorted(s_neg.keys() & p_pos):
        if w not in s_pos and w not in p_neg:
            return Conflict("negation", f"句子写的是“{s_neg[w]}”，来源写的是肯定的“{w}”")
    return None


# Opposites that documentation states without a negator.
# fmt: off
ANTONYMS = (
    ("内部", "外部"), ("启用", "禁用"), ("允许", "禁止"), ("必须", "可选"), ("同步", "异步"),
    ("开启", "关闭"), ("增加", "减少"), ("之前", "之后"), ("最大", "最小"), ("成功", "失败"),
    ("显式", "隐式"), ("同时", "互斥"), ("可变", "不可变"), ("公开", "私有"), ("上游", "下游"),
    ("升级", "降级"), ("一样", "不同"), ("扩容", "缩容"), ("静态", "动态"), ("只读", "可写"),
)
# fmt: on


def antonym_conflict(sentence: str, passage: str) -> Conflict | None:
    """The sentence uses one word of an opposite pair and the passage only the other."""
    s, p = plain(sentence), plain(passage)
    for a, b in ANTONYMS:
        for x, y in ((a, b), (b, a)):
            if x in s and y not in s and y in p and x not in p:
                return Conflict("negation", f"来源写的是“{y}”，句子写的是“{x}”")
    return None


# ---------------------------------------------------------------- quantifiers

# fmt: off
_QUANT = {
    "universal": ("所有", "全部", "每个", "每一个", "总是", "始终", "一律", "always", "every", "all "),
    "any": ("任何", "任意", "any "),
    "restrictive": ("只有", "只能", "只会", "只在", "仅", "只", "only"),
    "default": ("默认", "通常", "一般", "by default"),
    "partial": ("有一个", "某个", "某些", "部分", "有些", "其中一个", "至少一个", "可能"),
}
# Pairs of classes that cannot both describe the same statement.
_CLASH = {("universal", "restrictive"), ("universal", "partial"), ("partial", "universal"),
          ("universal", "default"), ("restrictive", "any"), ("any", "restrictive")}
# fmt: on


def quantifier_classes(text: str) -> set[str]:
    """The scope classes (universal / any / restrictive / default / partial) whose cue words ``text`` uses."""
    low = plain(text).lower()
    return {c for c, cues in _QUANT.items() if any(q in low for q in cues)}


def quantifier_conflict(sentence: str, passage: str) -> Conflict | None:
    """The sentence's scope (all / only / some / by default) clashes with the passage's."""
    s, p = quantifier_classes(sentence), quantifier_classes(passage)
    names = {"universal": "所有/总是", "any": "任何", "restrictive": "只/仅", "default": "默认", "partial": "部分/某个"}
    for a in sorted(s - p):
        for b in sorted(p - s):
            if (a, b) in _CLASH:
                return Conflict("quantifier", f"来源的范围是“{names[b]}”，句子写的是“{names[a]}”")
    return None


# ---------------------------------------------------------------- named objects


def entity_conflict(sentence: str, passage: str) -> Conflict | None:
    """The sentence names an object the passage does not, where the passage names
    another object of the same shape (see ``named``) instead. ``Conflict.name`` is lowercased."""
    low_p = plain(passage).lower()
    low_s = plain(sentence).lower()
    rivals = {n: v for n, v in named(passage).items() if n not in low_s}
    for name, (shape, shown) in sorted(named(sentence).items()):
        if _present(name, low_p):
            continue
        other = next((r_shown for _, (r_shape, r_shown) in sorted(rivals.items()) if r_shape == shape), None)
        if other is not None and shape == "kind":
            # Another object type: the passage says this of that type and nothing of the sentence's.
            return Conflict("subject", f"来源说的是 `{other}`，没有说 `{shown}`", name)
        if other is not None:
            return Conflict("entity", f"来源写的是 `{other}`，句子写的是 `{shown}`", name)
    return None


def missing_names(sentence: str, context: str) -> list[str]:
    """Named objects (lowercased) and numbers (as written) of the sentence that occur nowhere in ``context``."""
    low = plain(context).lower()
    out = [i for i in sorted(identifiers(sentence)) if not _present(i, low)]
    ctx_values = {v for v, _, _ in numbers(context)}
    out += [w for v, _, w in numbers(sentence) if v not in ctx_values]
    return out


# ---------------------------------------------------------------- swapped modifier

_SPACE = re.compile(r"\s+")
_NUMERAL = frozenset("零一二三四五六七八九十百千万两0123456789")
#: Shortest phrase (characters, no whitespace; 3+ of them Chinese) both texts share after the swapped word.
SHARED_TAIL = 4
#: Characters a shared phrase may not start with (a list joined by 和 is not a modifier slot).
_PARTICLES = frozenset("和的与及或是在了也都而并且、")


def _word_before(text: str, end: int) -> str:
    """The word ending at ``end`` of ``text`` (whitespace removed): an ASCII run, else jieba's last word."""
    m = re.search(r"[A-Za-z0-9.\-]+$", text[:end])
    if m:
        return m.group(0)
    cut = jieba_words(text[max(0, end - 6) : end])
    return cut[-1] if cut else ""


def _glued(text: str, at: int) -> bool:
    return (
        0 < at < len(text)
        and text[at - 1].isascii()
        and text[at - 1].isalnum()
        and text[at].isascii()
        and text[at].isalnum()
    )


def _content(word: str) -> bool:
    if word.isascii():
        return sum(c.isalnum() for c in word) >= 2 or word.isdigit()
    return len(word) >= 2 and all(c.isalnum() for c in word) or word in _NUMERAL


def modifier_conflict(sentence: str, passage: str) -> Conflict | None:
    """Both texts share a phrase of ``SHARED_TAIL``+ characters but put a different word right
    before it (``UTC 时区解释排期表`` / ``本地时区解释排期表``, ``每周五下午交接班`` / ``每周四下午…``):
    the sentence's word occurs nowhere in the passage and the passage's nowhere in the sentence,
    and one of the two is an ASCII name or both hold a numeral other than 一 (一定, 一些 are words). Two Chinese words in that slot are
    not compared: on CiteCheck they were mostly synonyms (要求/需要, 用来/用于)."""
    s, p = _SPACE.sub("", plain(sentence)), _SPACE.sub("", plain(passage))
    low_s, low_p = s.lower(), p.lower()
    i = 1
    while i < len(s):
        n = 0
        while i + n < len(s) and low_s[i : i + n + 1] in low_p:
            n += 1
        tail = low_s[i : i + n]
        cjk = sum(not c.isascii() and c.isalnum() for c in tail)
        if n >= SHARED_TAIL and cjk >= 3 and tail[0] not in _PARTICLES and low_s[i - 1 : i + n] not in low_p:
            mine = _word_before(s, i)
            j = low_p.find(tail)
            while j > 0 and mine:
                theirs = _word_before(p, j)
                hard = any(w.isascii() and any(c.isalpha() for c in w) for w in (mine, theirs)) or all(
                    any(c in _NUMERAL and c != "一" for c in w) for w in (mine, theirs)
                )
                if _glued(s, i) or _glued(p, j):
                    hard = False  # the shared phrase starts inside an ASCII word (LOLEsports / 联盟Esports)
                if (
                    hard
                    and _content(mine)
                    and _content(theirs)
                    and mine.lower() not in low_p
                    and theirs.lower() not in low_s
                ):
                    lead = len(theirs) + (len(_word_before(p, j - len(theirs))) if len(theirs) < 2 else 0)
                    shown = p[max(0, j - lead) : j + n]
                    return Conflict("entity", f"来源写的是“{shown}”，句子写的是“{mine}{s[i : i + n]}”")
                j = low_p.find(tail, j + 1)
        i += max(n, 1)
    return None


def find_conflict(sentence: str, passage: str, known: frozenset[str] = frozenset()) -> Conflict | None:
    """The first conflict between a sentence and its aligned passage, checked
    in the order number, entity, negation, quantifier, antonym, swapped modifier; None when none is found.
    ``known``: number values the other sources state (see ``number_conflict``)."""
    found = number_conflict(sentence, passage, known)
    if found is not None:
        return found
    for check in (entity_conflict, negation_conflict, quantifier_conflict, antonym_conflict, modifier_conflict):
        found = check(sentence, passage)
        if found is not None:
            return found
    return None
