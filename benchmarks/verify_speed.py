"""Speed of the support verifier: median ms per sentence against a 300-character quote.

    nice .venv/bin/python benchmarks/verify_speed.py [--rows N] [--use]

Sentences and quotes come from the CiteCheck dev split (``../shared/eval-dev/citecheck``): each
quote's passages (``core.verification.support.split_marked``) are cut to 300 characters in total. One
warm-up pass (jieba, the word-frequency table, the model file), then every row timed with
``core.verification.support.verify_passages``. Goal: median ≤ 20 ms on the shared 2-core machine.
``--use`` also times what a semantic feature would add: one USE multilingual embedding
(``core.store.embeddings``, ``use``) of the sentence and of its aligned passage (not used by the verifier).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.evaluation import citecheck as citecheck_eval  # noqa: E402
from core.verification.support import split_marked, verify_passages  # noqa: E402

QUOTE_CHARS = 300


def cut(passages: list[str], total: int = QUOTE_CHARS) -> list[str]:
    out, left = [], total
    for p in passages:
        if left <= 0:
            break
        out.append(p[:left])
        left -= len(out[-1])
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=300)
    ap.add_argument("--use", action="store_true", help="also time a USE embedding of sentence + aligned passage")
    args = ap.parse_args()
    rows = citecheck_eval.load_rows(citecheck_eval.default_set())[: args.rows]
    cases = [(r["statement"], cut(split_marked(r["quote"]))) for r in rows]
    for s, ps in cases[:20]:
        verify_passages(s, ps)
    times, outs = [], []
    for s, ps in cases:
        t0 = time.perf_counter()
        outs.append(verify_passages(s, ps))
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    print(
        f"verify: {len(times)} sentences, quote {QUOTE_CHARS} chars: median {statistics.median(times):.2f} ms, "
        f"p90 {times[int(len(times) * 0.9)]:.2f} ms, max {times[-1]:.2f} ms (goal: median ≤ 20 ms)"
    )
    if args.use:
        from core.store.embeddings import make_embedder

        emb = make_embedder("use")
        emb.embed(["热身"])
        use_times = []
        for (s, ps), o in list(zip(cases, outs))[:100]:
            quote = ps[o["passage"]][o["start"] : o["end"]] if o["passage"] is not None else ps[0]
            t0 = time.perf_counter()
            emb.embed([s, quote])
            use_times.append((time.perf_counter() - t0) * 1000)
        print(f"USE sentence + aligned passage: median {statistics.median(use_times):.2f} ms per sentence")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
