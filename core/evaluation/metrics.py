"""Evaluation metrics of one question or a list of ranks; the definitions (and the
source of the CMRC 2018 figures) are in the ``core.evaluation`` module doc.
Offsets are code points; shares are fractions 0..1."""

from __future__ import annotations

import math
import re
import string
from typing import Any, Sequence

from core.evaluation.questions import EvalQuestion, GoldPassage
from core.generators.question_types import is_note
from core.grounding import supports as grounding
from core.grounding.layout import sentence_spans
from core.models import AnswerRecord

RECALL_KS = (1, 5, 10)


def contains_gold(text: str, golds: Sequence[str]) -> bool:
    """Whether any gold answer is an exact substring of ``text``."""
    return any(g and g in text for g in golds)


def first_gold_rank(chunk_texts: Sequence[str], golds: Sequence[str]) -> int | None:
    """1-based rank of the first text containing a gold answer, or None."""
    for rank, text in enumerate(chunk_texts, start=1):
        if contains_gold(text, golds):
            return rank
    return None


_SPACE = re.compile(r"\s+")


def _collapse(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def passage_in_chunk(passage: GoldPassage, chunk_text: str, source_id: str | None = None) -> bool:
    """Whether ``chunk_text`` (of ``source_id``) holds ``passage``: its answer text with
    whitespace runs collapsed is a substring of the collapsed chunk text, and the
    source matches when the passage names a file."""
    if passage.file and source_id is not None and source_id != passage.file:
        return False
    needle = _collapse(passage.answer_text)
    return bool(needle) and needle in _collapse(chunk_text)


def gold_in_chunks(q: EvalQuestion, chunks: Sequence[Any], *, require_all: bool | None = None) -> bool:
    """Whether ``chunks`` (objects with ``text`` and ``source_id``) hold the question's gold:
    every passage when ``require_all`` (default: ``q.require_all``), else at least one."""
    if not q.passages:
        return False
    found = [any(passage_in_chunk(p, c.text, c.source_id) for c in chunks) for p in q.passages]
    return all(found) if (q.require_all if require_all is None else require_all) else any(found)


def cited_chunks(record: AnswerRecord) -> list[Any]:
    """The snapshots some support of ``record`` cites, each once, in citation order."""
    seen: dict[str, Any] = {}
    for sup in record.supports:
        for cid in sup.chunk_ids:
            snap = record.chunk(cid)
            if snap is not None and cid not in seen:
                seen[cid] = snap
    return list(seen.values())


def recall_at(ranks: Sequence[int | None], k: int) -> float | None:
    """Share (0..1) of ranks that are not None and <= k; None for no ranks."""
    if not ranks:
        return None
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks)


def mean_reciprocal_rank(ranks: Sequence[int | None]) -> float | None:
    """Mean of 1/rank (0 for None); None for no ranks."""
    if not ranks:
        return None
    return sum(1.0 / r for r in ranks if r is not None) / len(ranks)


# CMRC 2018 evaluation script (ymcui/cmrc2018, cmrc2018_evaluate.py): its punctuation list.
_CMRC_PUNCT = frozenset(
    [
        "-",
        ":",
        "_",
        "*",
        "^",
        "/",
        "\\",
        "~",
        "`",
        "+",
        "=",
        "，",
        "。",
        "：",
        "？",
        "！",
        "“",
        "”",
        "；",
        "’",
        "《",
        "》",
        "……",
        "·",
        "、",
        "「",
        "」",
        "（",
        "）",
        "－",
        "～",
        "『",
        "』",
    ]
)
_CJK = re.compile(r"[\u4e00-\u9fa5]")
_WORD = re.compile(r"\w+|[^\w\s]")


def mixed_segmentation(text: str, remove_punctuation: bool = False) -> list[str]:
    """CMRC 2018 tokens: each Chinese character (U+4E00..U+9FA5) and listed
    punctuation mark alone, other runs split into ``\\w+`` words and single
    symbols; lower-cased. With ``remove_punctuation`` the CMRC punctuation list is dropped."""
    out: list[str] = []
    buf = ""
    for ch in str(text).lower().strip():
        if remove_punctuation and ch in _CMRC_PUNCT:
            continue
        if _CJK.match(ch) or ch in _CMRC_PUNCT:
            if buf:
                out.extend(_WORD.findall(buf))
                buf = ""
            out.append(ch)
        else:
            buf += ch
    if buf:
        out.extend(_WORD.findall(buf))
    return out


def normalize_answer(text: str) -> str:
    """CMRC ``remove_punctuation``: lower case, without whitespace, CMRC and ASCII punctuation."""
    drop = _CMRC_PUNCT | set(string.punctuation)
    return "".join(ch for ch in str(text).lower().strip() if ch not in drop and not ch.isspace())


def _longest_common_run(a: Sequence[str], b: Sequence[str]) -> int:
    best = 0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0] * (len(b) + 1)
        for j, y in enumerate(b, start=1):
            if x == y:
                cur[j] = prev[j - 1] + 1
                best = max(best, cur[j])
        prev = cur
    return best


def f1_score(prediction: str, golds: Sequence[str]) -> float:
    """CMRC 2018 F1 (0..1) of ``prediction`` against the best of ``golds``; 0 without golds."""
    pred = mixed_segmentation(prediction, remove_punctuation=True)
    best = 0.0
    for gold in golds:
        ref = mixed_segmentation(gold, remove_punctuation=True)
        common = _longest_common_run(ref, pred)
        if common == 0:
            continue
        p, r = common / len(pred), common / len(ref)
        best = max(best, 2 * p * r / (p + r))
    return best


def answer_contains_gold(answer: str, golds: Sequence[str]) -> bool:
    """Whether the normalized answer contains a normalized gold answer (the "exact-match recall" test)."""
    norm = normalize_answer(answer)
    return any(normalize_answer(g) and normalize_answer(g) in norm for g in golds)


def answer_contains_all_gold(answer: str, golds: Sequence[str]) -> bool:
    """Whether the normalized answer contains *every* normalized gold answer (``multi``: every passage)."""
    norm = normalize_answer(answer)
    wanted = [normalize_answer(g) for g in golds if normalize_answer(g)]
    return bool(wanted) and all(g in norm for g in wanted)


def first_sentence(answer: str) -> str:
    """The answer's first sentence with visible text (``core.grounding.layout.sentence_spans`` units), or "".
    A table's header row quoted above the row it labels ("区域 | 周一至周五 | 周末", a hard line break, then
    "总馆 | 9:00–21:00 | 9:00–17:00"; ``core.generators.extractive``) is one unit with that row: the header names
    the columns, the row is what is said."""
    from core.grounding.layout import sentence_spans

    spans = [(a, b) for a, b in sentence_spans(answer) if answer[a:b].strip()]
    if not spans:
        return ""
    start, end = spans[0]
    if len(spans) > 1 and " | " in answer[start:end] and answer[end : spans[1][0]].startswith("  \n"):
        return answer[start : spans[1][1]]
    return answer[start:end]


def support_valid(record: AnswerRecord, support_index: int, golds: Sequence[str] = ()) -> bool:
    """Whether a cited chunk contains the cited text verbatim, or a gold answer the cited text states."""
    sup = record.supports[support_index]
    cited = record.answer_text[sup.start : sup.end].strip()
    stated = [g for g in golds if g and g in cited]
    for cid in sup.chunk_ids:
        chunk = record.chunk(cid)
        if chunk is None:
            continue
        if cited and cited in chunk.text:
            return True
        if any(g in chunk.text for g in stated):
            return True
    return False


def citation_counts(record: AnswerRecord, golds: Sequence[str] = ()) -> dict[str, int]:
    """``supports``/``valid_supports`` and ``sentences``/``covered_sentences`` of one record.

    Sentences are the ``sentence_spans`` units with visible text, less the generator's own notes
    (``core.generators.question_types.is_note``: "检索到的内容没有直接说明…", "知识库中没有找到关于…",
    which cite nothing by design); a sentence is covered when a valid support's span overlaps it (code points).
    """
    valid = [i for i in range(len(record.supports)) if support_valid(record, i, golds)]
    text = record.answer_text
    spans = (
        [(s, e) for s, e in sentence_spans(text) if grounding.has_visible_text(text[s:e]) and not is_note(text[s:e])]
        if text
        else []
    )
    covered = sum(
        1 for s, e in spans if any(record.supports[i].start < e and s < record.supports[i].end for i in valid)
    )
    return {
        "supports": len(record.supports),
        "valid_supports": len(valid),
        "sentences": len(spans),
        "covered_sentences": covered,
    }


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100) of ``values``; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def ratio(n: int, d: int) -> float | None:
    """``n / d``, or None when ``d`` is 0 (nothing to count)."""
    return n / d if d else None
