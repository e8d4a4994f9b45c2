"""Claims evaluation library: measure support verification on labelled answers
(the command ``python -m core eval-claims`` is ``core/cli/evaluate.py``; no ``main`` here).

Input: JSON Lines in the format of ``../shared/eval-dev/claims/README.md``
(``answer_text``, ``sentences[{start, end, label, kind, gold[{file, quote}]}]``,
offsets in code points). Each answer goes through the check path
(``core.check.check_text``: every sentence retrieved against the knowledge base,
then verified), not stored. A gold sentence's predicted label is
``contradicted`` if a contradicted support overlaps it, else ``supported`` if a
supported one does, else ``unsupported``.

Figures: per-label precision/recall, the flags view (unsupported or
contradicted vs supported), accuracy per ``kind``, for supported sentences the
share whose cited chunk holds a gold quote (quotes are compared without
Markdown marks, whitespace and Hugo shortcodes), contradictions labelled
contradicted, and latency per answer (ms, warm: one answer is checked first
and not timed).
"""

from __future__ import annotations

import json
import re
import statistics
import time
from pathlib import Path
from typing import Any, Sequence

from core.models import AnswerRecord

LABELS = ("supported", "contradicted", "unsupported")


def default_set() -> Path:
    """``../shared/eval-dev/claims/answers.jsonl`` beside the repository root."""
    return Path(__file__).resolve().parents[3] / "shared" / "eval-dev" / "claims" / "answers.jsonl"


_SHORTCODE = re.compile(r"\{\{[<%].*?[%>]\}\}")
_SHORTCODE_TEXT = re.compile(r"\{\{<\s*glossary_tooltip\b[^}]*?\btext=\"([^\"]*)\"[^}]*>\}\}")
_NOISE = re.compile(r"[\s`*_\"“”]+")


def load_answers(path: Path) -> list[dict[str, Any]]:
    """The answers of a claims JSON Lines file; ``ValueError`` naming the line when one is malformed."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            _ = [(s["start"], s["end"], s["label"], s["kind"]) for s in obj["sentences"]]
            obj["answer_text"].strip()
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"{path}:{n}: not a claims answer ({exc})") from exc
        out.append(obj)
    return out


def quote_in(quote: str, text: str) -> bool:
    """Whether ``quote`` (raw Markdown, maybe with shortcodes) occurs in chunk ``text``."""
    hay = _NOISE.sub("", text)
    quote = _SHORTCODE_TEXT.sub(lambda m: m.group(1), quote)  # a glossary link renders as its text
    pieces = [_NOISE.sub("", p) for p in _SHORTCODE.split(quote)]
    pieces = [p for p in pieces if len(p) >= 2]
    return bool(pieces) and all(p in hay for p in pieces)


def predicted(record: AnswerRecord, start: int, end: int) -> tuple[str, tuple[str, ...]]:
    """Predicted label of the gold span ``[start, end)`` and the chunk ids cited over it."""
    over = [s for s in record.supports if s.start < end and start < s.end]
    ids = tuple(c for s in over for c in s.chunk_ids)
    if any(s.verdict == "contradicted" for s in over):
        return "contradicted", ids
    if any(s.verdict == "supported" for s in over):
        return "supported", ids
    return "unsupported", ids


def _ratio(n: int, d: int) -> float | None:
    return round(n / d, 4) if d else None


def score_rows(rows: Sequence[dict[str, Any]], latencies: Sequence[float]) -> dict[str, Any]:
    """Summary figures from per-sentence rows (``label``, ``pred``, ``kind``, ``gold_cited``)."""
    per_label = {}
    for lab in LABELS:
        tp = sum(r["label"] == lab and r["pred"] == lab for r in rows)
        per_label[lab] = {
            "precision": _ratio(tp, sum(r["pred"] == lab for r in rows)),
            "recall": _ratio(tp, sum(r["label"] == lab for r in rows)),
            "n": sum(r["label"] == lab for r in rows),
        }
    flag = [(r["label"] != "supported", r["pred"] != "supported") for r in rows]
    tp = sum(g and p for g, p in flag)
    kinds = sorted({r["kind"] for r in rows})
    sup = [r for r in rows if r["label"] == "supported"]
    con = [r for r in rows if r["label"] == "contradicted"]
    return {
        "sentences": len(rows),
        "accuracy": _ratio(sum(r["label"] == r["pred"] for r in rows), len(rows)),
        "per_label": per_label,
        "flags": {"precision": _ratio(tp, sum(p for _, p in flag)), "recall": _ratio(tp, sum(g for g, _ in flag))},
        "per_kind": {
            k: _ratio(sum(r["label"] == r["pred"] for r in rows if r["kind"] == k), sum(r["kind"] == k for r in rows))
            for k in kinds
        },
        "supported_cited_to_gold": _ratio(sum(bool(r["gold_cited"]) for r in sup), len(sup)),
        "contradictions_recognised": _ratio(sum(r["pred"] == "contradicted" for r in con), len(con)),
        "latency_ms_per_answer": {
            "mean": round(statistics.mean(latencies), 1) if latencies else None,
            "max": round(max(latencies), 1) if latencies else None,
            "per_5_sentences_mean": round(statistics.mean(latencies) * 5 / (len(rows) / len(latencies)), 1)
            if latencies
            else None,
        },
    }


def run(
    engine: Any, answers: Sequence[dict[str, Any]], *, dense: bool = False
) -> tuple[list[dict[str, Any]], list[float]]:
    """Check every answer with ``engine``; per-sentence rows and per-answer latencies (ms)."""
    from core.check import check_text

    if answers:
        check_text(engine, answers[0]["answer_text"], save=False, dense=dense)  # warm-up: models, jieba, caches
    rows, latencies = [], []
    for ans in answers:
        t0 = time.perf_counter()
        record = check_text(engine, ans["answer_text"], save=False, dense=dense)
        latencies.append((time.perf_counter() - t0) * 1000)
        for s in ans["sentences"]:
            pred, ids = predicted(record, s["start"], s["end"])
            texts = [c.text for c in record.chunks if c.chunk_id in ids]
            gold_cited = any(quote_in(g["quote"], t) for g in s["gold"] for t in texts)
            sup = next((x for x in record.supports if x.start < s["end"] and s["start"] < x.end), None)
            rows.append(
                {
                    "id": ans["id"],
                    "start": s["start"],
                    "label": s["label"],
                    "kind": s["kind"],
                    "pred": pred,
                    "gold_cited": gold_cited,
                    "reason": sup.verdict_reason if sup else None,
                    "score": sup.verification_score if sup else None,
                    "text": ans["answer_text"][s["start"] : s["end"]].strip(),
                }
            )
    return rows, latencies


def format_table(report: dict[str, Any]) -> str:
    """A Markdown table of the headline figures."""

    def pct(x: float | None) -> str:
        return "–" if x is None else f"{x * 100:.1f}%"

    lines = ["| measure | value |", "| --- | --- |"]
    lines.append(
        f"| flags (unsupported or contradicted): recall / precision | "
        f"{pct(report['flags']['recall'])} / {pct(report['flags']['precision'])} |"
    )
    lines.append(f"| supported sentences cited to a gold passage | {pct(report['supported_cited_to_gold'])} |")
    lines.append(f"| contradictions recognised as contradicted | {pct(report['contradictions_recognised'])} |")
    for lab, v in report["per_label"].items():
        lines.append(f"| {lab}: precision / recall (n={v['n']}) | {pct(v['precision'])} / {pct(v['recall'])} |")
    lines.append(f"| 3-way accuracy ({report['sentences']} sentences) | {pct(report['accuracy'])} |")
    for k, v in report["per_kind"].items():
        lines.append(f"| accuracy, kind {k} | {pct(v)} |")
    lat = report["latency_ms_per_answer"]
    lines.append(f"| latency per answer, warm: mean / max (ms) | {lat['mean']} / {lat['max']} |")
    lines.append(f"| latency per five sentences, mean (ms) | {lat['per_5_sentences_mean']} |")
    return "\n".join(lines)
