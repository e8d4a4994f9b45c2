"""What the knowledge-base filter costs: the first question on a selection that is not
every knowledge base builds that selection's BM25 index (``core.store.kb_views``); later
questions reuse it until the next ingest.

    .venv/bin/python benchmarks/kb_filter.py [--corpus data/k8s-zh-sample/docs] [--copies 3] [--queries 20]

The corpus is ingested ``--copies`` times, into ``default`` and ``copy-1`` … (identical
texts, BM25 only, hash embedder: no model runs), in a temporary data folder. Printed
(milliseconds, wall clock on this machine): the view build for ``default`` alone, and
the median question latency (retrieval only) on every knowledge base vs. ``default`` alone.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

QUESTIONS = [
    "Deployment 和 StatefulSet 有什么区别？",
    "CronJob 的时区默认是什么？",
    "Pod 的重启策略有哪些？",
    "如何给容器设置资源限制？",
    "Service 的类型有哪些？",
    "什么是 Init 容器？",
    "ConfigMap 怎么挂载？",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=ROOT / "data" / "k8s-zh-sample" / "docs")
    parser.add_argument("--copies", type=int, default=3)
    parser.add_argument("--queries", type=int, default=20)
    args = parser.parse_args()

    from core.config import Settings
    from core.ingest.run import ingest
    from core.retrieval.hybrid import HybridRetriever
    from core.store.embeddings import HashingEmbedder
    from core.store.index import KnowledgeIndex

    with tempfile.TemporaryDirectory() as tmp:
        index = KnowledgeIndex(Settings(data_dir=Path(tmp), embedding="hash"), HashingEmbedder())
        names = ["default"] + [f"copy-{n}" for n in range(1, args.copies)]
        for name in names[1:]:
            index.knowledge_bases.create(name)
        for name in names:
            ingest(index, [args.corpus], embed=False, knowledge_base=name)
        t0 = time.perf_counter()
        active, _ = index.serving(["default"])
        build_ms = (time.perf_counter() - t0) * 1000
        per_kb = len(active)

        def median_ms(kbs: list[str] | None) -> float:
            retriever = HybridRetriever(index, use_dense=False, knowledge_bases=kbs)
            times = []
            for n in range(args.queries):
                t = time.perf_counter()
                retriever.retrieve(QUESTIONS[n % len(QUESTIONS)])
                times.append((time.perf_counter() - t) * 1000)
            return statistics.median(times)

        median_ms(None)  # warm-up (jieba dictionary, caches)
        every, alone = median_ms(names), median_ms(["default"])
    print(f"chunks: {per_kb} per knowledge base × {len(names)} knowledge bases")
    print(f"view build for 'default' alone (first question after an ingest): {build_ms:.0f} ms")
    print(f"median retrieval, every knowledge base: {every:.0f} ms; 'default' alone: {alone:.0f} ms")


if __name__ == "__main__":
    main()
