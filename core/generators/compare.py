"""Comparison questions: the two things compared, and which evidence is about each.

The two names ("X 和 Y 有什么区别", "X 跟 Y 相比有什么不同", "比较 X 与 Y", "X vs Y", "difference between X and Y",
"compare X with Y") are read with the rest of the question (``core.retrieval.question``, ``QuestionAnalysis.sides``).

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
contrast) is about both; otherwise the names in the sentence decide. A side whose name is inside the other's
("START TRANSACTION READ ONLY" and "START TRANSACTION READ ONLY AS OF TIMESTAMP") is named only where the longer
name is not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

MISSING_SIDE = "知识库中没有找到关于「{}」的说明。"

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[\s\-_]+")


@dataclass(frozen=True)
class Side:
    """One compared name and its matcher (see the module docstring)."""

    name: str
    pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)
    words: tuple["Side", ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parts = [re.escape(p) for p in _CAMEL.split(self.name.strip()) if p]
        body = r"[\s\-_]?".join(parts)
        start = r"(?<![A-Za-z0-9])" if self.name[:1].isascii() and self.name[:1].isalnum() else ""
        end = r"(?:e?s)?(?![A-Za-z0-9])" if self.name[-1:].isascii() and self.name[-1:].isalnum() else ""
        object.__setattr__(self, "pattern", re.compile(start + body + end, re.IGNORECASE))
        words = self.name.split()
        object.__setattr__(self, "words", tuple(Side(w) for w in words) if len(words) > 1 else ())

    def named_in(self, text: str) -> bool:
        """Whether ``text`` names this side: the name, or each of its space-separated words ("systemctl 重启" in
        "重启服务使用以下命令：systemctl restart"; "Redis 哨兵" is not in a text about the Redis 集群)."""
        return bool(self.pattern.search(text)) or bool(self.words) and all(w.named_in(text) for w in self.words)


def is_about(side: Side, other: Side, sentence: str, headings: Sequence[str]) -> bool:
    """Whether ``sentence``, from a chunk with heading path/title ``headings``, tells something
    about ``side`` (compared with ``other``); the rule is in the module docstring."""
    heading = " / ".join(headings)
    if side.name.lower() in other.name.lower():  # "READ ONLY" inside "READ ONLY AS OF TIMESTAMP" names the other
        heading, sentence = other.pattern.sub(" ", heading), other.pattern.sub(" ", sentence)
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
