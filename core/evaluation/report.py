"""The evaluation report: per-question rows (``core.evaluation.runner``) aggregated
into the report dict, and the report as plain-text tables (percentages, ms)."""

from __future__ import annotations

from statistics import median
from typing import Any, Sequence

from core.evaluation.metrics import RECALL_KS, mean_reciprocal_rank, percentile, ratio, recall_at


def summarize(rows: Sequence[dict[str, Any]], config: dict[str, Any]) -> dict[str, Any]:
    """Aggregate per-question rows (as ``run_eval`` makes them) into the report dict."""
    ans = [r for r in rows if r["answerable"]]
    unans = [r for r in rows if not r["answerable"]]
    ranks = [r["gold_rank"] for r in ans]
    answered = [r for r in rows if r["status"] in ("answered", "unverifiable")]
    sup = sum(r["supports"] for r in answered)
    sents = sum(r["sentences"] for r in answered)
    lat = [r["latency_ms"] for r in rows]

    def rnd(x: float | None, nd: int = 4) -> float | None:
        return None if x is None else round(x, nd)

    return {
        "config": config,
        "counts": {
            "questions": len(rows),
            "answerable": len(ans),
            "unanswerable": len(unans),
            "status": {s: sum(1 for r in rows if r["status"] == s) for s in sorted({r["status"] for r in rows})},
        },
        "retrieval": {
            **{f"recall@{k}": rnd(recall_at(ranks, k)) for k in RECALL_KS},
            "mrr": rnd(mean_reciprocal_rank(ranks)),
            "gold_in_evidence": rnd(ratio(sum(1 for r in ans if r["gold_in_evidence"]), len(ans))),
        },
        "answer": {
            "contains_gold": rnd(ratio(sum(1 for r in ans if r["contains_gold"]), len(ans))),
            "f1": rnd(sum(r["f1"] for r in ans) / len(ans) if ans else None),
        },
        "citations": {
            "precision": rnd(ratio(sum(r["valid_supports"] for r in answered), sup)),
            "recall": rnd(ratio(sum(r["covered_sentences"] for r in answered), sents)),
            "supports": sup,
            "sentences": sents,
        },
        "abstention": {
            "unanswerable_no_evidence": rnd(ratio(sum(1 for r in unans if r["status"] == "no_evidence"), len(unans))),
            "answerable_no_evidence": rnd(ratio(sum(1 for r in ans if r["status"] == "no_evidence"), len(ans))),
        },
        "latency_ms": {"median": rnd(median(lat), 1) if lat else None, "p95": rnd(percentile(lat, 95), 1)},
        "by_kind": (kinds := by_kind(rows)),
        "goals": goals(kinds, rnd(median(lat), 1) if lat else None),
        "questions": list(rows),
    }


def _kind_figures(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    ans = [r for r in rows if r["answerable"]]
    answered = [r for r in ans if r.get("answered", r["status"] in ("answered", "unverifiable"))]

    def share(items: Sequence[dict[str, Any]], key: str) -> float | None:
        x = ratio(sum(1 for r in items if r.get(key)), len(items))
        return None if x is None else round(x, 4)

    ranks = [r.get("gold_rank") for r in ans]
    return {
        "n": len(rows),
        "answerable": len(ans),
        "no_evidence": round(ratio(sum(1 for r in rows if r["status"] == "no_evidence"), len(rows)) or 0.0, 4)
        if rows
        else None,
        # refused (no_evidence) or answered with "the documents do not state …" (``not_stated``)
        "declined": round(
            ratio(sum(1 for r in rows if r["status"] == "no_evidence" or r.get("not_stated")), len(rows)) or 0.0, 4
        )
        if rows
        else None,
        "gold_in_cited": share(ans, "gold_in_cited"),
        "gold_in_cited_any": share(ans, "gold_in_cited_any"),
        "cited_precision": share(answered, "gold_in_cited"),
        "recall@5": None if not ans else round(recall_at(ranks, 5) or 0.0, 4),
        "contains_gold": share(ans, "contains_gold"),
        "answered_contains_gold": share(answered, "contains_gold"),
        "answered_contains_all_gold": share(answered, "contains_all_gold"),
        "answered_first_contains_gold": share(answered, "first_contains_gold"),
    }


def by_kind(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Figures per question ``kind`` plus ``overall`` (see module doc); shares 0..1 or None."""
    kinds = sorted({r.get("kind") or ("answerable" if r["answerable"] else "unanswerable") for r in rows})
    out = {
        k: _kind_figures(
            [r for r in rows if (r.get("kind") or ("answerable" if r["answerable"] else "unanswerable")) == k]
        )
        for k in kinds
    }
    out["overall"] = _kind_figures(rows)
    return out


def goals(kinds: dict[str, dict[str, Any]], latency_median: float | None) -> dict[str, Any]:
    """The issue-12 goal figures from ``by_kind`` output: unanswerable → no_evidence,
    cited-evidence precision, gold in cited evidence (overall and per kind),
    answers containing gold, warm latency median (ms)."""
    overall = kinds.get("overall", {})
    return {
        "unanswerable_no_evidence": kinds.get("unanswerable", {}).get("no_evidence"),
        "cited_precision": overall.get("cited_precision"),
        "gold_in_cited": overall.get("gold_in_cited"),
        **{
            f"gold_in_cited_{k}": kinds[k]["gold_in_cited"]
            for k in ("english", "followup", "paraphrase", "multi")
            if k in kinds
        },
        "contains_gold": overall.get("contains_gold"),
        "latency_median_ms": latency_median,
    }


# -------------------------------------------------------------------- table


def format_table(report: dict[str, Any]) -> str:
    """The report's figures as a plain-text table (percentages, ms)."""

    def pct(x: float | None) -> str:
        return "–" if x is None else f"{100 * x:.1f}%"

    c, r, a, ci, ab, lat = (
        report[k] for k in ("config", "retrieval", "answer", "citations", "abstention", "latency_ms")
    )
    n = report["counts"]
    lines = [
        f"questions {n['questions']} (answerable {n['answerable']}, unanswerable {n['unanswerable']}); "
        f"status {n['status']}",
        f"config: embedding={c['embedding_model']} dense={c['dense_coverage']} fusion={c['fusion']} "
        f"top_k={c['top_k']} evidence_threshold={c['evidence_threshold']} display_threshold={c['display_threshold']} "
        f"generator={c['generator']} chunks={c['chunks']}",
        "",
        f"{'metric':<34} value",
        f"{'-' * 34} ------",
    ]
    rows = [
        ("retrieval recall@1", pct(r["recall@1"])),
        ("retrieval recall@5", pct(r["recall@5"])),
        ("retrieval recall@10", pct(r["recall@10"])),
        ("retrieval MRR@10", "–" if r["mrr"] is None else f"{r['mrr']:.3f}"),
        ("gold chunk reached generator", pct(r["gold_in_evidence"])),
        ("answer contains gold", pct(a["contains_gold"])),
        ("answer F1 (CMRC, char)", pct(a["f1"])),
        ("citation precision", pct(ci["precision"])),
        ("citation recall", pct(ci["recall"])),
        ("unanswerable → no_evidence", pct(ab["unanswerable_no_evidence"])),
        ("answerable → no_evidence (wrong)", pct(ab["answerable_no_evidence"])),
        ("latency median", "–" if lat["median"] is None else f"{lat['median']:.0f} ms"),
        ("latency p95", "–" if lat["p95"] is None else f"{lat['p95']:.0f} ms"),
    ]
    lines += [f"{k:<34} {v}" for k, v in rows]
    return "\n".join(lines + ["", format_kind_table(report.get("by_kind") or {})])


def format_kind_table(kinds: dict[str, dict[str, Any]]) -> str:
    """``by_kind`` figures as a plain-text table, one row per kind (percentages)."""

    def pct(x: float | None) -> str:
        return "–" if x is None else f"{100 * x:.1f}%"

    cols = ("n", "no_evidence", "gold_in_cited", "gold_in_cited_any", "cited_precision", "recall@5", "contains_gold")
    head = f"{'kind':<13}" + "".join(f"{c:>18}" for c in cols)
    out = [head, "-" * len(head)]
    for kind, fig in kinds.items():
        cells = [str(fig["n"])] + [pct(fig[c]) for c in cols[1:]]
        out.append(f"{kind:<13}" + "".join(f"{c:>18}" for c in cells))
    return "\n".join(out)
