"""Redaction of personal data before storage, with typed placeholders.

Rules (names are the placeholders' words; the source of each external fact is named):

============  ==============  ==============================================================
rule          placeholder     what matches
============  ==============  ==============================================================
``身份证号``  ``[身份证号]``   18 characters ``\\d{17}[\\dX]`` whose birth date and ISO 7064
                              check character are valid (``stdnum.cn.ric``, GB 11643-1999)
``银行卡号``  ``[银行卡号]``   16–19 digits (optionally in groups of 4 split by a space or
                              ``-``), first digit 3–6 (ISO/IEC 7812 major industry identifier:
                              travel, banking, financial), Luhn-valid (``stdnum.luhn``)
``手机号``    ``[手机号]``     mainland mobile numbers ``1[3-9]`` + 9 digits (numbering plan of
                              the MIIT), optional ``+86``/``0086`` prefix, optional 3-4-4
                              grouping by a space or ``-``
``邮箱``      ``[邮箱]``       ``local@domain.tld`` (a dotted domain with a letter TLD)
extra         ``[名称]``       each configured pattern ``{名称: regex}``
============  ==============  ==============================================================

Look-alikes are left alone: a number glued to ASCII letters, digits or to ``.``/``:``/``-``
followed by a digit is not a candidate (version numbers ``1.13812345678``, port lists
``8080:13812345678``, IPs, timestamps), and the checksums reject most random digit runs.
Presidio was considered and not used: its analyzer needs a spaCy model downloaded at run
time, which fails offline; these rules and python-stdnum's checksums are tested against
golden inputs (``tests/golden/redaction/cases.json``).

All offsets are **code points**. :func:`redact` returns the redacted text; offsets into it
are what the record stores, so citations computed on it stay exact. The raw values are
never returned or logged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from stdnum import luhn
from stdnum.cn import ric

from core.errors import ConfigError
from core.models import AuditEntry

# A candidate may not touch ASCII word characters or a digit separated by . : - /
_BEFORE = r"(?<![0-9A-Za-z_])(?<![0-9][.:/-])"
_AFTER = r"(?![0-9A-Za-z_])(?![.:/-][0-9])"


@dataclass(frozen=True)
class Rule:
    """One redaction rule: ``name`` (also the placeholder word), a pattern, and an optional
    ``check`` on the matched text with separators removed (a checksum)."""

    name: str
    pattern: re.Pattern[str]
    check: Callable[[str], bool] | None = None

    @property
    def placeholder(self) -> str:
        return f"[{self.name}]"


def _digits(text: str) -> str:
    return re.sub(r"[\s+-]", "", text)


def _is_ric(text: str) -> bool:
    return ric.is_valid(text.upper())


def _is_card(text: str) -> bool:
    digits = _digits(text)
    return 16 <= len(digits) <= 19 and digits[0] in "3456" and luhn.is_valid(digits)


BUILTIN_RULES: tuple[Rule, ...] = (
    Rule("身份证号", re.compile(_BEFORE + r"\d{17}[\dXx]" + _AFTER), _is_ric),
    Rule("银行卡号", re.compile(_BEFORE + r"(?:\d{4}(?:[ -]?\d{4}){3}(?:[ -]?\d{1,3})?|\d{16,19})" + _AFTER), _is_card),
    Rule("手机号", re.compile(_BEFORE + r"(?:(?:\+|00)86[ -]?)?1[3-9]\d(?:\d{8}|[ -]\d{4}[ -]\d{4})" + _AFTER)),
    Rule(
        "邮箱",
        re.compile(
            r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![A-Za-z0-9-]|:)"
        ),
    ),
)
BUILTIN_NAMES = tuple(r.name for r in BUILTIN_RULES)


@dataclass(frozen=True)
class RedactedSpan:
    """A placeholder in the redacted text: ``start``/``end`` are code points into it."""

    start: int
    end: int
    rule: str


@dataclass(frozen=True)
class Redaction:
    """The redacted ``text`` and where its placeholders are (never the raw values)."""

    text: str
    spans: tuple[RedactedSpan, ...] = ()

    @property
    def rules(self) -> tuple[str, ...]:
        """The rules that fired, in first-use order."""
        return tuple(dict.fromkeys(s.rule for s in self.spans))


def extra_rules(patterns: Mapping[str, str]) -> tuple[Rule, ...]:
    """Rules for configured ``{name: regex}`` patterns. Raises ``ConfigError`` naming a
    pattern that is empty, does not compile, or matches the empty string."""
    rules = []
    for name, source in patterns.items():
        name = str(name).strip()
        if not name or any(ch in name for ch in "[]\n"):
            raise ConfigError(f"redaction pattern name must be non-empty without brackets, got {name!r}")
        try:
            pattern = re.compile(str(source))
        except re.error as exc:
            raise ConfigError(f"redaction pattern {name!r} is not a valid regular expression: {exc}") from exc
        if pattern.fullmatch(""):
            raise ConfigError(f"redaction pattern {name!r} matches the empty string: {source!r}")
        rules.append(Rule(name, pattern))
    return tuple(rules)


class Redactor:
    """Applies ``rules`` in order (earlier rules win where matches overlap)."""

    def __init__(self, rules: Iterable[Rule] = BUILTIN_RULES) -> None:
        self.rules = tuple(rules)
        if not self.rules:
            raise ValueError("a Redactor needs at least one rule")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.rules)

    def redact(self, text: str) -> Redaction:
        """``text`` with every match replaced by its placeholder (offsets: code points)."""
        taken: list[tuple[int, int, Rule]] = []
        for rule in self.rules:
            for m in rule.pattern.finditer(text):
                if m.end() == m.start() or any(m.start() < e and s < m.end() for s, e, _ in taken):
                    continue
                if rule.check is None or rule.check(m.group()):
                    taken.append((m.start(), m.end(), rule))
        if not taken:
            return Redaction(text)
        out, spans, pos = [], [], 0
        length = 0
        for start, end, rule in sorted(taken, key=lambda t: t[0]):
            out.append(text[pos:start])
            length += start - pos
            out.append(rule.placeholder)
            spans.append(RedactedSpan(length, length + len(rule.placeholder), rule.name))
            length += len(rule.placeholder)
            pos = end
        out.append(text[pos:])
        return Redaction("".join(out), tuple(spans))


REDACTION_REASON = "个人信息已在存储前脱敏（问题与来源快照中的匹配内容替换为类型占位符）。"


def redaction_audit(redactor: Redactor, applied: Iterable[str]) -> AuditEntry:
    """The record's statement that it was redacted: ``detail.kind == "redaction"``,
    ``detail.rules`` the active rule names and ``detail.applied`` those that fired
    (comma-separated; never a raw value)."""
    return AuditEntry(
        action="flagged",
        reason=REDACTION_REASON,
        detail={"kind": "redaction", "rules": ",".join(redactor.names), "applied": ",".join(dict.fromkeys(applied))},
    )


def redact(text: str, extra: Mapping[str, str] | None = None) -> Redaction:
    """``text`` redacted with the built-in rules plus ``extra`` patterns ``{name: regex}``."""
    return Redactor(BUILTIN_RULES + extra_rules(extra or {})).redact(text)
