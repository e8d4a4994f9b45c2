"""CiteCheck evaluation library: the support verifier on labelled statement/quote pairs
(the command ``python -m core eval-citecheck FILE`` is ``core/cli/evaluate.py``; the fit of
``core/verification/support_model.json`` is ``benchmarks/fit_verifier.py``).

Input: JSON Lines of CiteCheck (Xu et al. 2025, arXiv 2502.10881; repository xzy-xzy/CiteCheck;
format in ``../shared/eval-dev/citecheck/README.md``): ``{"idx", "query", "statement", "quote",
"label", ...}``, ``label`` 1 = the quote supports the statement. A quote holds one or more
passages marked ``[1] … [2] …``; they are split (``core.verification.support.split_marked``) and verified together.
``supported`` counts as 1, ``contradicted``/``unsupported`` as 0.
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path
from typing import Any, Sequence

from core.verification.support import split_marked


def default_set() -> Path:
    """``../shared/eval-dev/citecheck/dev.jsonl`` beside the repository root."""
    return Path(__file__).resolve().parents[3] / "shared" / "eval-dev" / "citecheck" / "dev.jsonl"


def load_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a CiteCheck JSON Lines file; ``ValueError`` naming the line when one is malformed."""
    out = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            if not isinstance(row["statement"], str) or not isinstance(row["quote"], str):
                raise TypeError("statement and quote must be strings")
            row["label"] = int(row["label"])
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path}:{n}: not a CiteCheck row ({exc})") from exc
        out.append(row)
    return out


def evaluate(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Accuracy, precision/recall for catching label 0, verdict counts and the median ms per row."""
    from core.verification.support import verify_passages

    preds, times = [], []
    for row in rows:
        t0 = time.perf_counter()
        out = verify_passages(row["statement"], split_marked(row["quote"]))
        times.append((time.perf_counter() - t0) * 1000)
        preds.append(out["verdict"])
    flagged = [p != "supported" for p in preds]
    gold = [r["label"] == 0 for r in rows]
    tp = sum(f and g for f, g in zip(flagged, gold))
    n = len(rows)
    return {
        "rows": n,
        "accuracy": round(sum(f == g for f, g in zip(flagged, gold)) / n, 4) if n else None,
        "unfaithful_caught": round(tp / sum(gold), 4) if sum(gold) else None,
        "flag_precision": round(tp / sum(flagged), 4) if sum(flagged) else None,
        "verdicts": {v: preds.count(v) for v in ("supported", "contradicted", "unsupported")},
        "median_ms": round(statistics.median(times), 2) if times else None,
    }
