"""How long after an upload its pages are answered with full retrieval (issue 30, item 5).

    .venv/bin/python benchmarks/upload_retrieval.py --data-dir COPY_OF_AN_EMBEDDED_DATA_DIR \\
        --pages DIR [--files 10] [--question "…"]

The data folder must already hold a fully embedded knowledge base (e.g. a copy of one that
``python -m core eval --dev --data-root`` filled): the rest of the base keeps its dense ranking
while the upload is embedded (``core.retrieval.hybrid``), which this script checks too. It ingests the
first ``--files`` Markdown files of ``--pages`` into a new knowledge base ``upload`` without
vectors (as the 知识库 page does: its background process embeds them), then embeds them as that
process does (``KnowledgeIndex.embed_pending`` with the app's embedder) and prints:

* seconds from the ingest's start to the pages being searchable (keywords);
* seconds until every uploaded chunk has its vector (the question's mode is then the full
  ``hybrid``/``hybrid2`` over the upload too);
* the mode and dense coverage a question over the *other* knowledge bases had meanwhile.

A figure printer, not a test: it measures this machine as it is (load average printed).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="benchmarks/upload_retrieval.py")
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--pages", type=Path, required=True, help="a folder of Markdown pages to upload")
    ap.add_argument("--files", type=int, default=10)
    ap.add_argument("--question", default=None, help="asked of the other knowledge bases meanwhile")
    args = ap.parse_args(argv)

    import shutil
    import tempfile

    from core.config import Settings
    from core.ingest.run import ingest
    from core.retrieval.hybrid import HybridRetriever
    from core.store.embeddings import make_embedder
    from core.store.index import KnowledgeIndex

    settings = Settings(data_dir=args.data_dir)
    index = KnowledgeIndex(settings, make_embedder(settings.embedding))
    before = index.dense_coverage()
    if before[0] < before[1]:
        raise SystemExit(f"{args.data_dir}: only {before[0]}/{before[1]} chunks embedded; use an embedded folder")
    others = tuple(kb.name for kb in index.knowledge_bases.list())
    pages = sorted(args.pages.rglob("*.md"))[: args.files]
    with tempfile.TemporaryDirectory() as tmp:
        for p in pages:
            shutil.copy(p, Path(tmp) / p.name)
        if index.knowledge_bases.get("upload") is None:
            index.knowledge_bases.create("upload")
        t0 = time.perf_counter()
        report = ingest(index, [Path(tmp)], embed=False, knowledge_base="upload")
        searchable = time.perf_counter() - t0
        question = args.question or pages[0].read_text(encoding="utf-8").splitlines()[0].lstrip("# ") + "是什么？"
        during = HybridRetriever(index, top_k=settings.top_k, knowledge_bases=others).retrieve(question)
        index.embed_pending()
        embedded = time.perf_counter() - t0
    after = index.dense_coverage()
    print(f"load average {os.getloadavg()[0]:.1f}; embedder {index.embedder.name}")
    print(f"uploaded {len(pages)} files, {report.chunks} chunks")
    print(f"searchable by keywords after {searchable:.1f} s")
    print(
        f"full retrieval (every uploaded chunk has its vector) after {embedded:.1f} s; coverage {after[0]}/{after[1]}"
    )
    print(
        f"meanwhile a question over {', '.join(others)}: mode {during.decision.mode}, "
        f"dense coverage {during.config.get('dense_covered', during.config.get('dense_coverage'))}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
