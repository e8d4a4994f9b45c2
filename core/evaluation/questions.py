"""Evaluation questions: the two JSON Lines formats of ``core.evaluation`` (its module
doc describes them) read into ``EvalQuestion`` values."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class GoldPassage:
    """One gold evidence location: ``answer_text`` (verbatim, no line break) in ``file``
    (a ``source_id``, POSIX path relative to the corpus root; None: any file)."""

    answer_text: str
    file: str | None = None
    heading_path: tuple[str, ...] = ()


@dataclass(frozen=True)
class EvalQuestion:
    """One evaluation question; ``answers`` empty means unanswerable.

    ``passages`` are the gold locations (one per answer text when the file
    gives none); ``require_all`` means every passage is needed (``multi``);
    ``history`` holds earlier user questions, oldest first.
    """

    id: str
    question: str
    answers: tuple[str, ...]
    context_file: str | None = None
    kind: str = ""
    history: tuple[str, ...] = ()
    passages: tuple[GoldPassage, ...] = ()
    require_all: bool = False

    @property
    def answerable(self) -> bool:
        return bool(self.answers)


def _parse_question(obj: dict[str, Any]) -> EvalQuestion:
    history = tuple(str(h) for h in obj.get("history") or ())
    if "gold" in obj:
        passages = tuple(
            GoldPassage(str(g["answer_text"]), g.get("file"), tuple(g.get("heading_path") or ())) for g in obj["gold"]
        )
        kind = str(obj.get("kind") or ("answerable" if passages else "unanswerable"))
        return EvalQuestion(
            str(obj["id"]),
            str(obj["question"]),
            tuple(p.answer_text for p in passages),
            None,
            kind,
            history,
            passages,
            require_all=kind == "multi",
        )
    answers = tuple(a["text"] if isinstance(a, dict) else str(a) for a in obj.get("answers") or ())
    kind = str(obj.get("kind") or ("answerable" if answers else "unanswerable"))
    return EvalQuestion(
        str(obj["id"]),
        str(obj["question"]),
        answers,
        obj.get("context_file"),
        kind,
        history,
        tuple(GoldPassage(a) for a in answers),
    )


def load_questions(path: Path, limit: int | None = None) -> list[EvalQuestion]:
    """Read a questions JSON Lines file (either format of the module doc).
    Raises ``ValueError`` naming the bad line."""
    out: list[EvalQuestion] = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append(_parse_question(json.loads(line)))
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"{path}:{n}: not a question object ({exc})") from exc
        if limit is not None and len(out) >= limit:
            break
    return out
