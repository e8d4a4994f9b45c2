"""Soak test (issue 10): many questions while documents are ingested, changed and hidden.

    .venv/bin/python benchmarks/soak.py [--clients 4] [--minutes 5] [--files 200|all] [--embedding hash] [--json]
    .venv/bin/python benchmarks/soak.py --scenario cli --files all      # the way it broke, on the full archive

Scenario ``app`` (default): this process plays the app. One ``Engine`` (the owner
of the embedded vector store) with its ``EmbeddingWorker``; ``--clients`` threads
ask through ``Engine.ask`` (= ``core.engine.ask``, as Streamlit sessions do),
each with its own conversation id, for the whole run. Meanwhile a mutator
thread changes, hides and re-adds documents in this process (as the 知识库 page
does), and a command-line thread runs ``python -m core ingest`` of a changed
copy of the corpus and ``python -m core ask`` in subprocesses (non-owners: they
must never open the Chroma folder).

Scenario ``cli``: no app. ``--rounds`` times, a ``python -m core ingest`` of a
changed corpus (it owns the store) while rounds of ``--askers`` concurrent
``python -m core ask --json -`` processes run; then a fresh ask. This broke before issue 10 (HNSW file
grown to gigabytes, asks crashing).

Prints questions, errors (must be 0), records stored (= questions), p50/p95
latency, peak memory (RSS), the Chroma folder's size before/after (apparent
bytes: sparse growth counts). Exit status 1 when errors > 0 or records differ.
Corpus: ``--corpus`` (a folder or a .tar.gz), default
``../shared/corpus/k8s-zh-full.tar.gz``, else the bundled sample. ``--files N``
takes the first N Markdown files by path. Run with ``HF_HUB_OFFLINE=1``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.config import Settings  # noqa: E402
from core.records.store import RecordStore  # noqa: E402
from core.store import store_lock  # noqa: E402

ARCHIVE = ROOT.parent / "shared" / "corpus" / "k8s-zh-full.tar.gz"
SAMPLE = ROOT / "data" / "k8s-zh-sample" / "docs"
OFF_TOPIC = ["量子计算机的散热方案是什么？", "如何烤一个戚风蛋糕？"]


# ------------------------------------------------------------------ corpus
def prepare_corpus(source: Path | None, files: int | None, work: Path) -> Path:
    """Copy the first ``files`` Markdown files (by path; all when None) of ``source``
    (a docs folder or the k8s-zh-full archive) to ``work/base``; returns that folder."""
    if source is None:
        source = ARCHIVE if ARCHIVE.exists() else SAMPLE
    if source.name.endswith(".tar.gz"):
        with tarfile.open(source) as tar:
            tar.extractall(work / "unpacked", filter="data")
        source = next((work / "unpacked").glob("*/docs"))
    chosen = sorted(source.rglob("*.md"))[: files or None]
    base = work / "base"
    for f in chosen:
        target = base / f.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, target)
    return base


def changed_copy(base: Path, dest: Path, round_no: int) -> Path:
    """A changed corpus: every 3rd file gets a new section, every 10th is left out."""
    if dest.exists():
        shutil.rmtree(dest)
    for n, f in enumerate(sorted(base.rglob("*.md"))):
        if n % 10 == 9:
            continue
        target = dest / f.relative_to(base)
        target.parent.mkdir(parents=True, exist_ok=True)
        text = f.read_text(encoding="utf-8")
        if n % 3 == round_no % 3:
            text += f"\n\n## 浸泡测试第 {round_no} 轮\n\n这是浸泡测试第 {round_no} 轮加入的段落，编号 {n}。\n"
        target.write_text(text, encoding="utf-8")
    return dest


def questions_from(base: Path, limit: int = 40) -> list[str]:
    """``<title>是什么？`` for the first ``limit`` files with a front-matter title, plus off-topic ones."""
    out: list[str] = []
    for f in sorted(base.rglob("*.md")):
        m = re.search(r"^title:\s*[\"']?(.+?)[\"']?\s*$", f.read_text(encoding="utf-8")[:2000], re.MULTILINE)
        if m:
            out.append(f"{m.group(1)}是什么？")
        if len(out) >= limit:
            break
    return out + OFF_TOPIC


def store_bytes(chroma_dir: Path) -> int:
    """Apparent size of the Chroma folder (sum of file sizes; sparse files count in full)."""
    return sum(p.stat().st_size for p in chroma_dir.rglob("*") if p.is_file()) if chroma_dir.exists() else 0


# ------------------------------------------------------------- subprocesses
def cli_env(data_dir: Path, embedding: str) -> dict[str, str]:
    return dict(
        os.environ,
        YINZHENG_DATA_DIR=str(data_dir),
        YINZHENG_EMBEDDING=embedding,
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
    )


def cli(
    args: list[str], data_dir: Path, embedding: str, stdin: bool = False, log: Path | None = None
) -> subprocess.Popen:
    """``python -m core ARGS`` on ``data_dir``: text pipes for stdout and stderr, or, with
    ``log``, stdout to ``<log>.out`` and stderr to ``log`` (for a process nobody reads while it
    runs: a full pipe would block it); stdin when asked."""
    return subprocess.Popen(
        [sys.executable, "-m", "core", *args],
        cwd=ROOT,
        env=cli_env(data_dir, embedding),
        stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
        stdout=log.with_suffix(".out").open("w", encoding="utf-8") if log else subprocess.PIPE,
        stderr=log.open("w", encoding="utf-8") if log else subprocess.PIPE,
        text=True,
    )


def ask_round(data_dir: Path, embedding: str, questions: list[str], processes: int) -> list[dict]:
    """``processes`` concurrent ``python -m core ask --json -``; one result per process:
    statuses, seconds, whether it left the store to another owner, and errors."""
    started = time.monotonic()
    procs = [cli(["ask", "--json", "-"], data_dir, embedding, stdin=True) for _ in range(processes)]

    def finish(p: subprocess.Popen) -> dict:
        stdout, stderr = p.communicate(input="\n".join(questions) + "\n", timeout=600)
        statuses, errors = [], []
        for line in stdout.splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                errors.append(f"not JSON: {line[:200]}")
                continue
            statuses.append(rec["status"])
            if rec["status"] == "error":
                errors.append(rec.get("error") or "")
        if p.returncode != 0 or "Traceback" in stderr or len(statuses) != len(questions):
            errors.append(f"exit {p.returncode}: {stderr[-500:]}")
        return {
            "statuses": statuses,
            "seconds": time.monotonic() - started,
            "errors": errors,
            "non_owner": "持有" in stderr,
        }

    with ThreadPoolExecutor(len(procs)) as pool:  # read every pipe at once: a full pipe blocks its process
        return list(pool.map(finish, procs))


# ---------------------------------------------------------------- scenarios
def run_cli_scenario(args: argparse.Namespace, work: Path) -> dict:
    data = work / "data"
    base = prepare_corpus(args.corpus, args.files, work)
    questions = questions_from(base)[: args.questions - 1] + OFF_TOPIC[:1]
    t0 = time.monotonic()
    build = cli(["ingest", str(base), "--json"], data, args.embedding)
    build_out, build_err = build.communicate(timeout=3600)
    if build.returncode != 0:
        raise SystemExit(f"initial ingest failed: {build_err[-2000:]}")
    built = json.loads(build_out)
    result: dict = {
        "scenario": "cli",
        "files": built["counts"]["added"],
        "chunks": built["chunks"],
        "build_seconds": round(time.monotonic() - t0, 1),
    }
    chroma = Settings(data_dir=data).chroma_dir
    result["store_bytes_before"] = store_bytes(chroma)
    rounds: list[dict] = []  # one per ask process
    during = 0  # ask rounds started while an ingest ran
    ingests: list[dict] = []
    for round_no in range(1, args.rounds + 1):
        changed = changed_copy(base, work / "changed", round_no)
        t0 = time.monotonic()
        log = work / f"ingest-{round_no}.log"
        ingest_proc = cli(["ingest", str(changed), "--json"], data, args.embedding, log=log)
        while ingest_proc.poll() is None:  # the ingest owns the store before the asks start
            owner = store_lock.owner(chroma)
            if owner is not None and owner.pid == ingest_proc.pid:
                break
            time.sleep(0.05)
        while True:
            during += ingest_proc.poll() is None
            rounds.extend(ask_round(data, args.embedding, questions, args.askers))
            if ingest_proc.poll() is not None:
                break
        ingest_proc.wait(timeout=3600)
        out, err = log.with_suffix(".out").read_text(encoding="utf-8"), log.read_text(encoding="utf-8")
        ingests.append(
            {
                "seconds": round(time.monotonic() - t0, 1),
                "exit": ingest_proc.returncode,
                "counts": json.loads(out)["counts"] if ingest_proc.returncode == 0 else err[-2000:],
                "store_bytes": store_bytes(chroma),
            }
        )
    fresh = ask_round(data, args.embedding, questions[:1], 1)[0]
    statuses = Counter(s for r in rounds + [fresh] for s in r["statuses"])
    errors = [e for r in rounds + [fresh] for e in r["errors"]] + [str(i["counts"]) for i in ingests if i["exit"]]
    result.update(
        ingests=ingests,
        ingest_exit=max(i["exit"] for i in ingests),
        ingest_counts=ingests[0]["counts"],
        store_bytes_after=store_bytes(chroma),
        store_bytes_peak=max(i["store_bytes"] for i in ingests),
        ask_processes=len(rounds),
        ask_rounds_during_ingest=during,
        non_owner_asks=sum(r["non_owner"] for r in rounds),
        questions=sum(statuses.values()),
        records=len(RecordStore(Settings(data_dir=data).records_path).list(limit=10**9)),
        statuses=dict(statuses),
        errors=len(errors),
        error_samples=errors[:5],
        ask_process_seconds_max=round(max(r["seconds"] for r in rounds), 1),
        fresh_status=fresh["statuses"][:1],
        # the largest command-line process (Linux counts a child's memory before exec too;
        # this process stays small in this scenario, so the figure is the child's)
        peak_rss_children_mb=round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
    )
    return result


def run_app_scenario(args: argparse.Namespace, work: Path) -> dict:
    from core.engine import Engine
    from core.ingest.run import ingest
    from core.store.embedding_worker import EmbeddingWorker

    base = prepare_corpus(args.corpus, args.files, work)
    questions = questions_from(base)
    settings = Settings(data_dir=work / "data", embedding=args.embedding)
    engine = Engine.open(settings)
    t0 = time.monotonic()
    built = ingest(engine.index, [base], embed=True)
    result: dict = {
        "scenario": "app",
        "clients": args.clients,
        "files": len(built.results),
        "chunks": built.chunks,
        "build_seconds": round(time.monotonic() - t0, 1),
        "store_bytes_before": store_bytes(settings.chroma_dir),
    }
    worker = EmbeddingWorker(engine.index, poll_seconds=1.0).start()
    live = work / "live"  # documents the mutator changes, hides and re-adds
    live.mkdir()
    for f in sorted(base.rglob("*.md"))[:5]:
        shutil.copyfile(f, live / f"live-{f.parent.name}-{f.name}")
    deadline = time.monotonic() + args.seconds
    run_id = f"soak-{os.getpid()}-{int(time.time())}"
    latencies: list[float] = []
    errors: list[str] = []
    counts = Counter()
    lock = threading.Lock()

    def client(k: int) -> None:
        rng = random.Random(k)
        while time.monotonic() < deadline:
            q = rng.choice(questions)
            t = time.perf_counter()
            try:
                rec = engine.ask(q, conversation_id=f"{run_id}-{k}")
                status, err = rec.status, rec.error
            except Exception as exc:  # noqa: BLE001 - counted: must never happen
                status, err = "exception", repr(exc)
            with lock:
                latencies.append(time.perf_counter() - t)
                counts[status] += 1
                if status in ("error", "exception"):
                    errors.append(err or "")

    def mutator() -> None:
        rng = random.Random(99)
        n = 0
        while time.monotonic() < deadline:
            n += 1
            try:
                f = rng.choice(sorted(live.glob("*.md")))
                if n % 3 == 0:
                    engine.index.hide(f.name)
                    counts["mutation:hide"] += 1
                else:
                    f.write_text(f.read_text(encoding="utf-8") + f"\n\n第 {n} 次修改。\n", encoding="utf-8")
                    ingest(engine.index, [live], embed=False)  # also brings hidden ones back
                    counts["mutation:change"] += 1
                worker.wake()
            except Exception as exc:  # noqa: BLE001
                with lock:
                    errors.append(f"mutator: {exc!r}")
            time.sleep(args.mutate_every)

    def command_line() -> None:
        n = 0
        while time.monotonic() < deadline:
            n += 1
            folder = changed_copy(base, work / f"cli-{n % 2}", n) if n % 2 else base
            p = cli(["ingest", str(folder), "--json"], settings.data_dir, args.embedding)
            _, err = p.communicate(timeout=3600)
            with lock:
                counts["cli:ingest"] += 1
                if p.returncode != 0:
                    errors.append(f"cli ingest: {err[-500:]}")
            for r in ask_round(settings.data_dir, args.embedding, questions[:3], 1):
                with lock:
                    counts["cli:ask"] += len(r["statuses"])
                    errors.extend(f"cli ask: {e}" for e in r["errors"])

    threads = [threading.Thread(target=client, args=(k,)) for k in range(args.clients)]
    threads += [threading.Thread(target=mutator), threading.Thread(target=command_line)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    caught_up = time.monotonic() + 300
    while engine.index.pending_chunks() and time.monotonic() < caught_up:  # the worker fills in the rest
        engine.index.refresh_if_changed()
        worker.wake()
        time.sleep(0.5)
    worker.stop(60)
    fresh = engine.ask(questions[0], save=False)
    records = sum(len(engine.records.list(conversation_id=f"{run_id}-{k}", limit=10**9)) for k in range(args.clients))
    asked = sum(v for k, v in counts.items() if ":" not in k)
    lat = np.array(latencies or [0.0]) * 1000
    result.update(
        questions=asked,
        errors=len(errors),
        error_samples=errors[:5],
        records=records,
        statuses={k: v for k, v in counts.items() if ":" not in k},
        actions={k: v for k, v in counts.items() if ":" in k},
        p50_ms=round(float(np.percentile(lat, 50)), 1),
        p95_ms=round(float(np.percentile(lat, 95)), 1),
        peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        store_bytes_after=store_bytes(settings.chroma_dir),
        vectors="{}/{}".format(*engine.index.dense_coverage()),
        worker_error=worker.error,
        fresh_status=[fresh.status],
    )
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenario", choices=["app", "cli"], default="app")
    ap.add_argument("--clients", type=int, default=4, help="chat threads (scenario app)")
    ap.add_argument("--minutes", type=float, default=None)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--files", default="200", help="first N Markdown files of the corpus, or 'all'")
    ap.add_argument("--corpus", type=Path, default=None, help="a docs folder or the k8s-zh-full .tar.gz")
    ap.add_argument("--embedding", default="hash")
    ap.add_argument("--askers", type=int, default=3, help="concurrent ask processes per round (scenario cli)")
    ap.add_argument("--questions", type=int, default=8, help="questions per ask process (scenario cli)")
    ap.add_argument("--rounds", type=int, default=1, help="changed-corpus ingests one after another (scenario cli)")
    ap.add_argument("--mutate-every", type=float, default=1.0, help="seconds between in-process changes")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = ap.parse_args(argv)
    if args.minutes is not None:
        args.seconds = args.minutes * 60
    args.files = None if args.files == "all" else int(args.files)
    work = Path(tempfile.mkdtemp(prefix="yinzheng-soak-"))
    try:
        result = (run_cli_scenario if args.scenario == "cli" else run_app_scenario)(args, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    before = max(result["store_bytes_before"], 1)
    result["store_growth"] = round(max(result["store_bytes_after"], result.get("store_bytes_peak", 0)) / before, 2)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        for key, value in result.items():
            print(f"{key:<28} {value}")
    ok = result["errors"] == 0 and result["records"] == result["questions"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
