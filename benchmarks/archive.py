"""Full-archive ingest figures (issue 18): first question answerable after the ingest
starts, and a re-ingest of the unchanged corpus against the first ingest.

    .venv/bin/python benchmarks/archive.py [--archive PATH] [--embedding hash]

Extracts ``../shared/corpus/k8s-zh-full.tar.gz`` (beside the repository or its main
checkout) into a temporary folder and, in this process on a fresh data folder:
ingest (stage 1: parse, catalog, BM25; dense vectors are left to the background
as in the app) → one question answered → the same ingest again (nothing changed).
The embedder only names the index here (``hash`` by default: no model is loaded).
Prints each figure next to its goal with the load average. Not a test.
"""

from __future__ import annotations

import argparse
import os
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.browser import load, shared_dir, verdict  # noqa: E402

GOAL_FIRST_QUESTION_S = 40.0
GOAL_REINGEST_SHARE = 0.02
QUESTION = "Deployment 和 StatefulSet 有什么区别？"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--archive", type=Path, default=None)
    ap.add_argument("--embedding", default="hash")
    args = ap.parse_args(argv)
    archive = args.archive or (shared_dir() or ROOT) / "corpus" / "k8s-zh-full.tar.gz"
    if not archive.is_file():
        print(f"{archive} not found", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="yz-archive-"))
    with tarfile.open(archive) as tar:
        tar.extractall(work, filter="data")
    docs = next(work.glob("*/docs"))
    os.environ.update(
        YINZHENG_DATA_DIR=str(work / "data"), YINZHENG_EMBEDDING=args.embedding, YINZHENG_BACKGROUND_EMBEDDING="0"
    )
    from core.engine import Engine  # noqa: PLC0415
    from core.ingest.run import ingest  # noqa: PLC0415

    engine = Engine.open()
    print(
        f"archive {archive.name}: {sum(1 for _ in docs.rglob('*.md'))} Markdown files; embedding {args.embedding} "
        f"(stage 1 only: vectors follow in the background)  ({load()})"
    )
    t0 = time.perf_counter()
    first = ingest(engine.index, [docs], embed=False)
    t1 = time.perf_counter()
    record = engine.ask(QUESTION)
    t2 = time.perf_counter()
    again = ingest(engine.index, [docs], embed=False)
    t3 = time.perf_counter()
    counts = again.counts()
    print(
        f"first ingest (stage 1)            {t1 - t0:7.2f} s   {first.counts()['added']} files, {first.chunks} chunks"
    )
    print(
        f"first question answered after     {t2 - t0:7.2f} s   {verdict(t2 - t0, GOAL_FIRST_QUESTION_S)} "
        f"(status {record.status})  ({load()})"
    )
    share = (t3 - t2) / (t1 - t0)
    print(
        f"re-ingest, unchanged              {t3 - t2:7.2f} s = {share:.1%} of the first   "
        f"{verdict(share, GOAL_REINGEST_SHARE)} ({counts['unchanged']} unchanged, "
        f"{counts['added'] + counts['updated']} parsed)  ({load()})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
