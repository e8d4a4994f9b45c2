"""Tuning experiments for retrieval (issue 5): RRF constant, jieba segmentation
mode and chunk size, each measured with ``core.evaluation.run_eval`` on the
k8s-dev set and eval-dev cmrc.

    .venv/bin/python benchmarks/tune.py [--dense-data-dir-k8s DIR --dense-data-dir-cmrc DIR]

Variants are applied by patching one module constant or function per run (the
product code keeps one setting each). Chunk-size variants run BM25-only (a new
chunk size would need a new embedding of everything); the others run hybrid
when dense data folders (with the default chunking already embedded) are given,
else BM25-only. Prints one table.
"""

from __future__ import annotations

import argparse
import functools
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import core.ingest.corpus as corpus  # noqa: E402
import core.lexical as lexical  # noqa: E402
import core.retrieval.hybrid as retrieval  # noqa: E402
import core.segmentation as core_segmentation  # noqa: E402
from core.evaluation import run_eval  # noqa: E402

SHARED = ROOT.parent / "shared"
SETS = {
    "k8s": (ROOT / "data/eval/k8s-dev/questions.jsonl", [ROOT / "data/k8s-zh-sample/docs"]),
    "cmrc": (
        SHARED / "eval-dev/cmrc/questions.jsonl",
        [SHARED / "eval-dev/cmrc/contexts", SHARED / "eval-dev/cmrc/distractors"],
    ),
}


@contextmanager
def rrf(k: int) -> Iterator[None]:
    old = retrieval.RRF_K
    retrieval.RRF_K = k
    try:
        yield
    finally:
        retrieval.RRF_K = old


@contextmanager
def segmentation(mode: str) -> Iterator[None]:
    import core.store.index as index

    old_cut, old_id = core_segmentation.search_words, lexical.TOKENIZER_ID
    if mode == "precise":
        core_segmentation.search_words = core_segmentation.words  # type: ignore[assignment]
        lexical.TOKENIZER_ID = index.TOKENIZER_ID = old_id + "+precise"  # cached terms are keyed by it
    lexical.query_terms.cache_clear()
    try:
        yield
    finally:
        core_segmentation.search_words = old_cut  # type: ignore[assignment]
        lexical.TOKENIZER_ID = index.TOKENIZER_ID = old_id
        lexical.query_terms.cache_clear()


@contextmanager
def chunk_size(max_chars: int) -> Iterator[None]:
    old = corpus.parse_markdown
    corpus.parse_markdown = functools.partial(old, max_chars=max_chars)  # type: ignore[assignment]
    try:
        yield
    finally:
        corpus.parse_markdown = old


def row(name: str, set_name: str, report: dict) -> str:
    r, a, ab = report["retrieval"], report["answer"], report["abstention"]

    def pct(x):
        return "–" if x is None else f"{100 * x:.1f}%"

    return (
        f"| {name} | {set_name} | {pct(r.get('recall@1'))} | {pct(r.get('recall@5'))} | {r.get('mrr') or 0:.3f} | "
        f"{pct(a.get('contains_gold'))} | {pct(ab.get('unanswerable_no_evidence'))} | {pct(ab.get('answerable_no_evidence'))} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dense-data-dir-k8s")
    ap.add_argument("--dense-data-dir-cmrc")
    args = ap.parse_args()
    dense_dirs = {"k8s": args.dense_data_dir_k8s, "cmrc": args.dense_data_dir_cmrc}
    print("| variant | set | R@1 | R@5 | MRR@10 | ans⊇gold | U→NE | A→NE |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    experiments = [
        ("baseline (rrf 60, search-mode jieba, 500 chars)", lambda: rrf(60), True),
        ("rrf k = 10", lambda: rrf(10), True),
        ("rrf k = 120", lambda: rrf(120), True),
        ("jieba precise mode", lambda: segmentation("precise"), True),
        ("BM25 only, chunks ≤ 500 chars (default)", lambda: chunk_size(500), False),
        ("BM25 only, chunks ≤ 300 chars", lambda: chunk_size(300), False),
        ("BM25 only, chunks ≤ 800 chars", lambda: chunk_size(800), False),
    ]
    for name, ctx, dense in experiments:
        for set_name, (questions, docs) in SETS.items():
            data_dir = dense_dirs[set_name] if dense and dense_dirs[set_name] else None
            with ctx(), tempfile.TemporaryDirectory() as tmp:
                report = run_eval(
                    questions,
                    docs,
                    data_dir=Path(data_dir) if data_dir else Path(tmp),
                    use_dense=bool(data_dir),
                    progress=False,
                )
            label = name + ("" if data_dir else " [BM25 only]" if dense else "")
            print(row(label, set_name, report), flush=True)


if __name__ == "__main__":
    main()
