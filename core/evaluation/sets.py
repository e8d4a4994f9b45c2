"""Several evaluation sets in one run: ``python -m core eval --set NAME=QUESTIONS:DOCS[,DOCS…]``
(repeatable) or ``--dev`` (every dev set under ``../shared/eval-dev``).

Each set is its own knowledge base: its documents are indexed into their own data folder
(``data_root/NAME`` when a root is given, which keeps the embedding cache between runs; else a
temporary folder) and only its questions are asked against it, through ``run_eval`` (the UI's
``core.engine.ask``). One coefficient set and one threshold serve every set: nothing here is
per corpus.

The result is ``{"sets": {NAME: report}, "goals": {NAME: {goal: {"value", "target", "met"}}},
"fit": the shipped sufficiency fit's leave-one-corpus-out figures or None}``; shares are
fractions 0..1, latency in ms. ``format_sets_table`` prints one row per set and kind plus the
goal check.

Goal figures (issues 26 and 27), per set:

* ``unanswerable_no_evidence`` ≥ 0.90 and ``answerable_no_evidence`` ≤ 0.15, reworded
  (``paraphrase``) questions counted apart (``paraphrase_no_evidence``, reported, no target);
  ``unanswerable_declined`` ≥ 0.90 counts an answer that says the documents do not state the asked
  detail (the ``declined`` column: no_evidence or ``not_stated``) as declining too;
* ``cited_precision`` ≥ 0.90: of the answered answerable questions, the cited evidence holds
  the gold;
* gold in cited evidence per kind: ``lexical`` ≥ 0.95, ``english`` ≥ 0.80, ``followup`` ≥ 0.80,
  ``multi`` (every gold) ≥ 0.70, ``paraphrase`` ≥ 0.8 × its recall@5;
* a set with one document (``documents == 1``): every answerable question answered and every
  unanswerable one refused;
* answers: of answered answerable questions, the answer contains the gold ≥ 0.85 (``multi``:
  every gold ≥ 0.70), the first sentence contains it ≥ 0.70; a set without kinds (CMRC) ≥ 0.93;
* warm latency median ≤ 300 ms.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

__all__ = ["EvalSet", "dev_sets", "format_sets_table", "parse_set", "run_sets", "set_goals"]


@dataclass(frozen=True)
class EvalSet:
    """One evaluation set: a ``name`` (letters, digits, ``-``/``_``), its questions file and the
    folders or files that are its whole knowledge base."""

    name: str
    questions: Path
    docs: tuple[Path, ...]


def parse_set(spec: str) -> EvalSet:
    """``NAME=QUESTIONS:DOCS[,DOCS…]`` → ``EvalSet``. Raises ``ValueError`` naming the spec when
    it has no ``=``/``:``, an empty part or a name with other characters."""
    name, sep, rest = spec.partition("=")
    questions, sep2, docs = rest.partition(":")
    parts = [d for d in docs.split(",") if d]
    if not sep or not sep2 or not name or not questions or not parts:
        raise ValueError(f"--set wants NAME=QUESTIONS:DOCS[,DOCS...], got {spec!r}")
    if not all(c.isalnum() or c in "-_" for c in name):
        raise ValueError(f"--set name may hold letters, digits, '-' and '_' only, got {name!r}")
    return EvalSet(name, Path(questions), tuple(Path(p) for p in parts))


def dev_sets(shared: Path) -> list[EvalSet]:
    """The dev sets under ``shared/eval-dev`` that exist: k8s (over the bundled sample), cmrc
    (contexts + distractors), tidb, clinic, clinic-single. Raises ``ValueError`` when none does."""
    dev = shared / "eval-dev"
    # the bundled copy of the sample (the same 40 files as shared/corpus/k8s-zh-sample), which
    # brings its corpus profile (glossary folder, site) as the app ingests it
    corpus = Path(__file__).resolve().parents[2] / "data" / "k8s-zh-sample" / "docs"
    if not corpus.is_dir():
        corpus = shared / "corpus" / "k8s-zh-sample" / "docs"
    own = dev / "own"
    candidates = [
        EvalSet("k8s", dev / "k8s" / "questions.jsonl", (corpus,)),
        EvalSet("cmrc", dev / "cmrc" / "questions.jsonl", (dev / "cmrc" / "contexts", dev / "cmrc" / "distractors")),
        EvalSet("tidb", own / "tidb" / "questions.jsonl", (own / "tidb" / "docs",)),
        EvalSet("clinic", own / "clinic" / "questions.jsonl", (own / "clinic" / "docs",)),
        EvalSet("clinic-single", own / "clinic" / "single" / "questions.jsonl", (own / "clinic" / "single" / "docs",)),
    ]
    found = [s for s in candidates if s.questions.is_file() and all(d.exists() for d in s.docs)]
    if not found:
        raise ValueError(f"no dev set under {dev}")
    return found


def run_sets(
    sets: Sequence[EvalSet],
    *,
    data_root: Path | None = None,
    run: Callable[..., dict[str, Any]] | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Run every set (``run_eval(set.questions, set.docs, data_dir=…, **options)``) and return
    the combined result (module doc). ``run`` replaces ``run_eval`` (tests). Raises
    ``ValueError`` for two sets of one name."""
    if run is None:
        from core.evaluation.runner import run_eval as run
    names = [s.name for s in sets]
    if len(set(names)) != len(names):
        raise ValueError(f"two --set entries share a name: {names}")
    reports: dict[str, Any] = {}
    for s in sets:
        data_dir = None if data_root is None else Path(data_root) / s.name
        reports[s.name] = run(s.questions, list(s.docs), data_dir=data_dir, **options)
    return {"sets": reports, "goals": {n: set_goals(r) for n, r in reports.items()}, "fit": shipped_fit()}


def shipped_fit() -> dict[str, Any] | None:
    """The cross-validation figures recorded by the sufficiency fit (``core/retrieval/sufficiency.json``
    ``fit.cv``: per mode, per held-out corpus), or None when the file records none."""
    path = Path(__file__).resolve().parent.parent / "retrieval" / "sufficiency.json"
    try:
        fit = json.loads(path.read_text(encoding="utf-8")).get("fit") or {}
    except (OSError, ValueError):
        return None
    cv = fit.get("loco") or fit.get("cv")
    return (
        {"sets": fit.get("sets"), "scheme": "leave-one-corpus-out" if "loco" in fit else "cv", "cv": cv} if cv else None
    )


def _goal(value: float | None, target: float, *, at_most: bool = False) -> dict[str, Any]:
    met = None if value is None else (value <= target if at_most else value >= target)
    return {"value": value, "target": target, "at_most": at_most, "met": met}


def set_goals(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The goal checks of the module doc for one ``run_eval`` report (only those its kinds allow)."""
    kinds = report.get("by_kind") or {}
    rows = report.get("questions") or []
    out: dict[str, dict[str, Any]] = {}
    if "unanswerable" in kinds:
        out["unanswerable_no_evidence"] = _goal(kinds["unanswerable"]["no_evidence"], 0.90)
        if kinds["unanswerable"].get("declined") is not None:
            out["unanswerable_declined"] = _goal(kinds["unanswerable"]["declined"], 0.90)
    direct = [r for r in rows if r["answerable"] and r.get("kind") != "paraphrase"]
    if direct:
        out["answerable_no_evidence"] = _goal(
            round(sum(1 for r in direct if r["status"] == "no_evidence") / len(direct), 4), 0.15, at_most=True
        )
    overall = kinds.get("overall") or {}
    if overall.get("cited_precision") is not None:
        out["cited_precision"] = _goal(overall["cited_precision"], 0.90)
    for kind, target in (("lexical", 0.95), ("english", 0.80), ("followup", 0.80), ("multi", 0.70)):
        if kind in kinds:
            out[f"gold_in_cited_{kind}"] = _goal(kinds[kind]["gold_in_cited"], target)
    if "paraphrase" in kinds and kinds["paraphrase"].get("recall@5") is not None:
        out["gold_in_cited_paraphrase"] = _goal(
            kinds["paraphrase"]["gold_in_cited"], round(0.8 * kinds["paraphrase"]["recall@5"], 4)
        )
    if (report.get("config") or {}).get("documents") == 1:
        ans = [r for r in rows if r["answerable"]]
        un = [r for r in rows if not r["answerable"]]
        out["single_all_answered"] = _goal(
            round(sum(1 for r in ans if r["status"] != "no_evidence") / len(ans), 4) if ans else None, 1.0
        )
        out["single_all_refused"] = _goal(
            round(sum(1 for r in un if r["status"] == "no_evidence") / len(un), 4) if un else None, 1.0
        )
    has_kinds = any(k not in ("answerable", "unanswerable", "overall") for k in kinds)
    if has_kinds:
        out["answered_contains_gold"] = _goal(overall.get("answered_contains_gold"), 0.85)
        out["answered_first_contains_gold"] = _goal(overall.get("answered_first_contains_gold"), 0.70)
        if "multi" in kinds:
            out["answered_contains_all_gold_multi"] = _goal(kinds["multi"].get("answered_contains_all_gold"), 0.70)
    elif overall.get("contains_gold") is not None:
        out["contains_gold"] = _goal(overall["contains_gold"], 0.93)
    median = (report.get("latency_ms") or {}).get("median")
    if median is not None:
        out["latency_median_ms"] = _goal(median, 300.0, at_most=True)
    return out


_COLS = (
    "n",
    "no_evidence",
    "declined",
    "gold_in_cited",
    "cited_precision",
    "recall@5",
    "contains_gold",
    "answered_contains_gold",
    "answered_first_contains_gold",
)
_HEAD = ("n", "no_ev", "declined", "gold∈cited", "cited_prec", "R@5", "ans⊇gold", "answered⊇gold", "first⊇gold")


def format_sets_table(result: dict[str, Any]) -> str:
    """One row per set and kind (percentages), then each set's goals (✓ met, ✗ missed, – n/a),
    then the shipped fit's cross-validation figures when it records them."""

    def pct(x: Any) -> str:
        return "–" if x is None else f"{100 * x:.1f}%"

    head = f"{'set':<14}{'kind':<13}" + "".join(f"{h:>15}" for h in _HEAD)
    lines = [head, "-" * len(head)]
    for name, report in result["sets"].items():
        c = report.get("config") or {}
        for kind, fig in (report.get("by_kind") or {}).items():
            cells = [str(fig["n"])] + [pct(fig.get(col)) for col in _COLS[1:]]
            lines.append(f"{name:<14}{kind:<13}" + "".join(f"{x:>15}" for x in cells))
        lat = report.get("latency_ms") or {}
        lines.append(
            f"{'':<14}({c.get('documents')} documents, {c.get('chunks')} chunks, dense {c.get('dense_coverage')}, "
            f"latency median {lat.get('median')} ms)"
        )
    lines += ["", "goals"]
    for name, goals in result["goals"].items():
        marks = []
        for goal, g in goals.items():
            mark = "–" if g["met"] is None else ("✓" if g["met"] else "✗")
            value = g["value"] if goal.endswith("_ms") else pct(g["value"])
            bound = g["target"] if goal.endswith("_ms") else pct(g["target"])
            marks.append(f"{mark} {goal} {value} ({'≤' if g['at_most'] else '≥'} {bound})")
        lines.append(f"  {name}: " + "; ".join(marks))
    fit = result.get("fit")
    if fit and isinstance(fit.get("cv"), dict):
        lines += ["", f"shipped sufficiency fit ({fit['scheme']}, sets {fit.get('sets')}):"]
        for mode, per_set in fit["cv"].items():
            if isinstance(per_set, dict):
                for held, figs in per_set.items():
                    if isinstance(figs, dict):
                        lines.append(f"  {mode:<8} {held:<14} " + " ".join(f"{k}={pct(v)}" for k, v in figs.items()))
    return "\n".join(lines)
