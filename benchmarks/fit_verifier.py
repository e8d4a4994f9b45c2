"""Fit the support model (``core/verification/support_model.json``) on the CiteCheck dev split.

    nice .venv/bin/python benchmarks/fit_verifier.py [DEV.jsonl] [--write]

Features are ``core.verification.support_model.FEATURES`` computed by ``core.verification.support.assess`` (the
same code the app runs), cached in ``/tmp/verifier-features-<hash>.json``. Model: scikit-learn
``LogisticRegression`` (L2) on standardized features; C chosen from a small grid by 10-fold
cross-validation grouped by ``query`` (``GroupKFold``). Prints CV and train accuracy, the
cross-validated reliability table (predicted probability bins vs share supported) and, with
``--write``, writes the coefficients and those figures to ``core/verification/support_model.json``.
Nothing is fit at run time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from datetime import date
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.evaluation import citecheck as citecheck_eval  # noqa: E402
from core.verification import support_model  # noqa: E402
from core.verification.support import assess, split_marked  # noqa: E402


class _Passage:
    def __init__(self, i: int, text: str) -> None:
        self.chunk_id, self.text = str(i), text


def feature_rows(rows: list[dict]) -> list[dict[str, float]]:
    key = hashlib.sha256(
        json.dumps(rows, sort_keys=True).encode()
        + Path(support_model.__file__).read_bytes()
        + (ROOT / "core" / "verification" / "cues.py").read_bytes()
        + (ROOT / "core" / "verification" / "support.py").read_bytes()
    ).hexdigest()[:16]
    cache = Path(f"/tmp/verifier-features-{key}.json")
    if cache.exists():
        return json.loads(cache.read_text())
    out = []
    for r in rows:
        a = assess(r["statement"], [_Passage(i, t) for i, t in enumerate(split_marked(r["quote"]))])
        out.append(a.features if a else {f: 0.0 for f in support_model.FEATURES})
    cache.write_text(json.dumps(out))
    return out


def reliability(p: np.ndarray, y: np.ndarray) -> list[dict]:
    bins = [0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0001]
    out = []
    for lo, hi in zip(bins, bins[1:]):
        m = (p >= lo) & (p < hi)
        if m.any():
            out.append(
                {
                    "bin": f"{lo:.1f}–{min(hi, 1):.1f}",
                    "n": int(m.sum()),
                    "mean_p": round(float(p[m].mean()), 3),
                    "share_supported": round(float(y[m].mean()), 3),
                }
            )
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dev", nargs="?", type=Path, default=citecheck_eval.default_set())
    ap.add_argument("--write", action="store_true", help="write core/verification/support_model.json")
    args = ap.parse_args()
    rows = citecheck_eval.load_rows(args.dev)
    feats = feature_rows(rows)
    names = support_model.FEATURES
    X = np.array([[f[n] for n in names] for f in feats])
    y = np.array([r["label"] for r in rows])
    groups = np.array([r.get("query", r.get("idx")) for r in rows])
    cv = GroupKFold(n_splits=10)
    best = None
    for C in (0.03, 0.1, 0.3, 1.0, 3.0):
        model = make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=5000))
        p = cross_val_predict(model, X, y, cv=cv, groups=groups, method="predict_proba")[:, 1]
        acc = float(((p >= 0.5) == y).mean())
        print(f"C={C}: CV accuracy {acc:.3f}")
        if best is None or acc > best[0] + 1e-9:
            best = (acc, C, p)
    acc, C, p = best
    model = make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=5000)).fit(X, y)
    train = float(model.score(X, y))
    table = reliability(p, y)
    # The verifier's verdict: a conflict cue or a named object the passages lack overrides the model.
    cols = {n: X[:, i] for i, n in enumerate(names)}
    override = (cols["conflict"] + cols["missing_name"]) > 0
    verifier_cv = float((((p >= 0.5) & ~override) == y).mean())
    print(
        f"chosen C={C}: CV accuracy {acc:.3f}, train accuracy {train:.3f}; "
        f"verifier (model + overrides) CV accuracy {verifier_cv:.3f}"
    )
    for row in table:
        print(row)
    scaler, lr = model[0], model[1]
    for n, w in zip(names, lr.coef_[0]):
        print(f"  {n:16s} {w:+.3f}")
    if args.write:
        data = {
            "features": list(names),
            "mean": scaler.mean_.round(6).tolist(),
            "scale": scaler.scale_.round(6).tolist(),
            "coef": lr.coef_[0].round(6).tolist(),
            "intercept": round(float(lr.intercept_[0]), 6),
            "threshold": 0.5,
            "fit": {
                "date": date.today().isoformat(),
                "data": "CiteCheck dev split (1,000 rows)",
                "C": C,
                "cv": "GroupKFold(10) by query",
                "cv_accuracy": round(acc, 4),
                "train_accuracy": round(train, 4),
                "verifier_cv_accuracy": round(verifier_cv, 4),
                "reliability_cv": table,
            },
        }
        support_model.MODEL_FILE.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {support_model.MODEL_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
