"""Comparison questions: the two things compared, and which evidence is about each.

``compared_sides`` finds the two names in "X 和 Y 有什么区别", "X 跟 Y 相比有什么不同", "X 和 Y 各有什么不同",
"比较 X 与 Y", "X vs Y", "difference between X and Y", "compare X with Y".

``Side`` matches a name in text: case-insensitive; a name that begins or ends with a
Latin letter or digit only matches as a whole word ("Job" is not in "CronJob", "Pod" not
in "PodDisruptionBudget"), with an English plural ("Deployments") and an optional space or
hyphen between camel-case parts ("StatefulSet" ~ "Stateful Set"); a Chinese name matches
as a substring.

``is_about`` decides whether a sentence of a chunk tells something about one side: a
chunk whose heading path (or title) names that side and not the other is about it, every
sentence of it; in a chunk headed by the other side only, a sentence that names this side
without the other is a passing mention ("…比如 Deployment 或者 ReplicaSet 可能更适用" in the
StatefulSet page is about StatefulSet, not Deployment); a sentence naming both sides (a
contrast) is about both; otherwise the names in the sentence decide.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

MISSING_SIDE = "知识库中没有找到关于「{}」的说明。"

_NAME = r"[\w.\-/]"
_COMPARE = re.compile(
    rf"(?P<x>{_NAME}+?)\s*(?:和|与|跟|及|同|vs\.?|versus)\s*(?P<y>{_NAME}+?)\s*(?:相比|相比较|比较|对比|比起来)?\s*(?:之间)?\s*"
    r"(?:各自?|分别)?(?:的|有)?(?:什么|何|哪些)?(?:区别|差别|不同|不一样|差异|异同)"
    rf"|(?:比较|对比)(?:一下)?\s*(?P<x2>{_NAME}+?)\s*(?:和|与|跟)\s*(?P<y2>{_NAME}+)"
    rf"|difference between (?:(?:a|an|the) )?(?P<x3>[\w.\-/ ]+?) and (?:(?:a|an|the) )?(?P<y3>{_NAME}+)"
    rf"|compare (?:(?:a|an|the) )?(?P<x4>[\w.\-/ ]+?) (?:and|with|to) (?:(?:a|an|the) )?(?P<y4>{_NAME}+)"
    rf"|(?P<x5>{_NAME}+)\s+(?:vs\.?|versus)\s+(?P<y5>{_NAME}+)",
    re.IGNORECASE,
)
# Words that open a question before the first side ("请问 X 和 Y…").
_LEAD_WORDS = re.compile(r"^(?:请问|我想(?:知道|问问?)|想知道|问一下|说说|讲讲|介绍一下|解释一下)")
_CJK = re.compile(r"[\u3400-\u9fff]")
# A Latin name glued to Chinese words around it: at the end of the first side
# ("K8s里的Deployment"), at the start of the second ("StatefulSet各有什么不同").
_LATIN_TAIL = re.compile(r"[A-Za-z0-9][A-Za-z0-9.\-/_]*$")
_LATIN_HEAD = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.\-/_]*")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[\s\-_]+")


def compared_sides(question: str) -> tuple[str, str] | None:
    """The two things a comparison question names (``"X 和 Y 有什么区别"`` → ``(X, Y)``),
    as written in the question, or None for a question that compares nothing."""
    m = _COMPARE.search(question)
    if not m:
        return None
    pairs = [(m.group(f"x{i}"), m.group(f"y{i}")) for i in ("", "2", "3", "4", "5")]
    x, y = next(((a.strip(), b.strip()) for a, b in pairs if a and b), ("", ""))
    x = _LEAD_WORDS.sub("", x) or x
    tail = _LATIN_TAIL.search(x)
    if tail and _CJK.search(x[: tail.start()]):
        x = tail.group(0)
    head = _LATIN_HEAD.search(y)
    if head and _CJK.search(y[head.end() :]):
        y = head.group(0)
    if not x or not y or x.lower() == y.lower():
        return None
    return x, y


@dataclass(frozen=True)
class Side:
    """One compared name and its matcher (see the module docstring)."""

    name: str
    pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parts = [re.escape(p) for p in _CAMEL.split(self.name.strip()) if p]
        body = r"[\s\-_]?".join(parts)
        start = r"(?<![A-Za-z0-9])" if self.name[:1].isascii() and self.name[:1].isalnum() else ""
        end = r"(?:e?s)?(?![A-Za-z0-9])" if self.name[-1:].isascii() and self.name[-1:].isalnum() else ""
        object.__setattr__(self, "pattern", re.compile(start + body + end, re.IGNORECASE))

    def named_in(self, text: str) -> bool:
        """Whether ``text`` names this side."""
        return bool(self.pattern.search(text))


def is_about(side: Side, other: Side, sentence: str, headings: Sequence[str]) -> bool:
    """Whether ``sentence``, from a chunk with heading path/title ``headings``, tells something
    about ``side`` (compared with ``other``); the rule is in the module docstring."""
    heading = " / ".join(headings)
    side_heads, other_heads = side.named_in(heading), other.named_in(heading)
    if side_heads and not other_heads:
        return True
    names_side, names_other = side.named_in(sentence), other.named_in(sentence)
    if other_heads and not side_heads:
        return names_side and names_other
    return names_side


def missing_note(missing: Sequence[str]) -> str:
    """The sentence that says which compared things the evidence says nothing about
    (``MISSING_SIDE``; both names when both are missing); empty for none."""
    return MISSING_SIDE.format("」和「".join(missing)) if missing else ""
