"""One owner per embedded vector store (issue 10): the lock, the non-owner paths
(command-line ingest and ask while another process owns the store), the
embedding worker picking up another process's ingest, and the retry of a read
that fails mid-swap."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from core.ingest.run import ingest
from core.store import store_lock
from core.store.embedding_worker import EmbeddingWorker
from core.store.embeddings import HashingEmbedder
from core.store.index import KnowledgeIndex

from .conftest import ROOT, SAMPLE, make_settings

# Small docs keep the hash embedding of each test to a second or two.
BASE_FILES = [
    SAMPLE / p
    for p in (
        "reference/glossary/pod.md",
        "reference/glossary/deployment.md",
        "reference/glossary/configmap.md",
        "reference/glossary/service.md",
        "concepts/services-networking/service-traffic-policy.md",
        "concepts/workloads/pods/ephemeral-containers.md",
    )
]
MORE_FILES = [
    SAMPLE / p
    for p in (
        "tasks/run-application/run-stateless-application-deployment.md",
        "concepts/services-networking/_index.md",
        "tasks/inject-data-application/define-environment-variable-container.md",
        "concepts/workloads/controllers/ttlafterfinished.md",
    )
]
QUESTIONS = ["Pod 是什么？", "ConfigMap 用来做什么？", "Service 的流量策略是什么？", "什么是临时容器？"]


def cli_env(data_dir: Path, **extra: str) -> dict[str, str]:
    return dict(
        os.environ,
        YINZHENG_DATA_DIR=str(data_dir),
        YINZHENG_EMBEDDING="hash",
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        **extra,
    )


def run_cli(
    args: list[str], data_dir: Path, stdin: str | None = None, timeout: float = 300
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "core", *args],
        cwd=ROOT,
        env=cli_env(data_dir),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def run_py(code: str, data_dir: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=cli_env(data_dir), capture_output=True, text=True, timeout=timeout
    )


def copy_docs(files, dst: Path) -> Path:
    for f in files:
        target = dst / f.relative_to(SAMPLE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(f.read_bytes())
    return dst


def owned_index(tmp_path: Path, files=BASE_FILES) -> KnowledgeIndex:
    """An index this test process owns, over a few sample docs, fully embedded (hash)."""
    index = KnowledgeIndex(make_settings(tmp_path / "data", embedding="hash"), HashingEmbedder())
    ingest(index, [copy_docs(files, tmp_path / "docs")], embed=True)
    return index


def wait_until(condition, seconds: float = 60, step: float = 0.05) -> bool:
    """Poll ``condition`` until it is true or ``seconds`` passed; returns its last value."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(step)
    return bool(condition())


def started_worker(index: KnowledgeIndex, poll_seconds: float) -> EmbeddingWorker:
    """A started embedding worker that has finished its first pass."""
    worker = EmbeddingWorker(index, poll_seconds=poll_seconds).start()
    assert wait_until(lambda: worker.passes >= 1, 30), worker.error
    return worker


# ------------------------------------------------------------------ the lock
def test_second_process_cannot_take_the_lock_and_names_the_owner(tmp_path):
    chroma = tmp_path / "chroma"
    assert store_lock.acquire(chroma) and store_lock.acquire(chroma)  # idempotent within the process
    try:
        p = run_py(
            "from pathlib import Path; from core.store import store_lock; import json\n"
            f"d = Path({str(chroma)!r}); got = store_lock.acquire(d); o = store_lock.owner(d)\n"
            "print(json.dumps({'got': got, 'pid': o and o.pid, 'command': o and o.command, 'text': o and o.describe()}))",
            tmp_path,
        )
        out = json.loads(p.stdout)
        assert out["got"] is False
        assert out["pid"] == os.getpid()
        assert "pytest" in out["command"] or "py.test" in out["command"] or "python" in out["command"]
        assert str(os.getpid()) in out["text"]
        assert store_lock.owner(chroma) is None  # we are the owner: nobody else
    finally:
        store_lock.release(chroma)
    assert not store_lock.held(chroma)


def test_lock_is_released_when_the_owner_exits_even_by_sigkill(tmp_path):
    chroma = tmp_path / "chroma"
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from core.store import store_lock\n"
            f"print(store_lock.acquire(Path({str(chroma)!r})), flush=True); time.sleep(60)",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline().strip() == "True"
        assert store_lock.acquire(chroma) is False
        owner = store_lock.owner(chroma)
        assert owner is not None and owner.pid == child.pid and "-c" in owner.command
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    try:
        assert store_lock.acquire(chroma) is True
    finally:
        store_lock.release(chroma)


def test_lock_is_released_on_normal_exit(tmp_path):
    chroma = tmp_path / "chroma"
    p = run_py(
        f"from pathlib import Path; from core.store import store_lock; print(store_lock.acquire(Path({str(chroma)!r})))",
        tmp_path,
    )
    assert p.stdout.strip() == "True"
    try:
        assert store_lock.acquire(chroma) is True
    finally:
        store_lock.release(chroma)


# -------------------------------------------------- non-owners leave Chroma alone
NO_CHROMA = "import sys; sys.modules['chromadb'] = None  # importing chromadb now fails\n"


@pytest.mark.slow
def test_cli_ask_while_another_process_owns_the_store_never_opens_it(tmp_path):
    index = owned_index(tmp_path)
    before = sorted((p.name, p.stat().st_mtime_ns) for p in index.settings.chroma_dir.rglob("*"))
    p = run_py(
        NO_CHROMA + "from core.cli import main\nsys.exit(main(['ask', 'Pod 是什么？', '--json']))",
        index.settings.data_dir,
    )
    assert p.returncode == 0, p.stderr
    record = json.loads(p.stdout)
    assert record["status"] == "answered"
    assert record["chunks"] and all(c["dense_score"] is not None for c in record["chunks"])  # dense from the cache
    assert record["retrieval"]["dense_coverage"] == "{0}/{1}".format(*index.dense_coverage())
    assert str(os.getpid()) in p.stderr and "持有" in p.stderr
    assert sorted((p.name, p.stat().st_mtime_ns) for p in index.settings.chroma_dir.rglob("*")) == before


def test_cli_ingest_while_the_app_owns_the_store_leaves_vectors_to_its_worker(tmp_path):
    index = owned_index(tmp_path)
    worker = started_worker(index, 0.2)
    try:
        embedded_before, total_before = index.dense_coverage()
        assert embedded_before == total_before
        more = copy_docs(MORE_FILES, tmp_path / "more")
        p = subprocess.run(
            [
                sys.executable,
                "-c",
                NO_CHROMA + f"from core.cli import main\nsys.exit(main(['ingest', {str(more)!r}, '--json']))",
            ],
            cwd=ROOT,
            env=cli_env(index.settings.data_dir),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert p.returncode == 0, p.stderr
        report = json.loads(p.stdout)
        assert report["counts"]["added"] == 4 and report["embedded"] == 0
        assert f"进程 {os.getpid()}" in p.stderr and "补齐" in p.stderr
        # The worker notices the new catalog generation and embeds the new chunks.
        wait_until(lambda: index.dense_coverage()[1] > total_before and not index.pending_chunks(), step=0.2)
        embedded, total = index.dense_coverage()
        assert total == total_before + report["chunks"] and embedded == total, (embedded, total)
        assert worker.error is None
    finally:
        worker.stop(30)


def test_worker_embeds_a_new_generation_even_when_a_question_reloaded_first(tmp_path):
    index = owned_index(tmp_path)
    # a poll interval well past the other ingest's duration, so the question's reload comes first (at 1 s
    # the worker sometimes polled first on a loaded machine, and the reload found nothing new)
    worker = started_worker(index, 5.0)
    try:
        other = KnowledgeIndex(index.settings, index.embedder)  # e.g. another session's ingest
        ingest(other, [copy_docs(MORE_FILES[:1], tmp_path / "more")], embed=False)
        assert index.refresh_if_changed()  # a question reloads before the worker polls
        # both at once: a pass empties the pending set before it counts itself (``passes`` goes up at its end,
        # after the second model's cache), so reading ``passes`` the moment nothing is pending raced the pass
        assert wait_until(lambda: not index.pending_chunks() and worker.passes >= 2, 30), worker.passes
    finally:
        worker.stop(30)


def test_non_owner_scores_from_cached_vectors_like_the_owner(tmp_path):
    """Same question, same data: a non-owner process gets the dense scores the owner gets from Chroma."""
    index = owned_index(tmp_path)
    qv = index.embedder.embed(["Deployment 滚动更新"], "query")[0]
    owner_hits = index.dense_search_vector(qv, 5)
    p = run_py(
        NO_CHROMA
        + "import json; from core.config import load_settings; from core.store.embeddings import HashingEmbedder\n"
        "from core.store.index import KnowledgeIndex\n"
        "ix = KnowledgeIndex(load_settings(), HashingEmbedder())\n"
        "qv = ix.embedder.embed(['Deployment 滚动更新'], 'query')[0]\n"
        "print(json.dumps({'owns': ix.owns_vectors(), 'hits': ix.dense_search_vector(qv, 5), "
        "'pending': len(ix.pending_chunks()), 'coverage': ix.dense_coverage()}))",
        index.settings.data_dir,
    )
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["owns"] is False and out["pending"] == 0 and tuple(out["coverage"]) == index.dense_coverage()
    assert [c for c, _ in out["hits"]] == [c for c, _ in owner_hits]
    assert [round(s, 4) for _, s in out["hits"]] == [round(s, 4) for _, s in owner_hits]


def test_non_owner_refuses_to_embed_and_to_rebuild(tmp_path):
    index = owned_index(tmp_path)
    p = run_py(
        NO_CHROMA + "from core.config import load_settings; from core.store.embeddings import HashingEmbedder\n"
        "from core.errors import IndexError_; from core.store.index import KnowledgeIndex\n"
        "ix = KnowledgeIndex(load_settings(), HashingEmbedder())\n"
        "try:\n    ix.embed_pending()\nexcept IndexError_ as e:\n    print('refused:', e)\n",
        index.settings.data_dir,
    )
    assert p.stdout.startswith("refused:") and str(os.getpid()) in p.stdout, p.stdout + p.stderr
    r = run_cli(["ingest", "--rebuild"], index.settings.data_dir)
    assert r.returncode == 1 and str(os.getpid()) in r.stderr
    assert index.settings.catalog_path.exists() and index.dense_coverage()[0] > 0


@pytest.mark.slow
def test_non_owner_takes_over_when_the_owner_is_gone(tmp_path):
    """The app started while a command-line ingest owned the store takes over once it ends."""
    data = tmp_path / "data"
    docs = copy_docs(BASE_FILES[:3], tmp_path / "docs")
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from core.config import load_settings; from core.store.embeddings import HashingEmbedder\n"
            "from core.store.index import KnowledgeIndex; from core.ingest.run import ingest; from pathlib import Path\n"
            f"ix = KnowledgeIndex(load_settings(), HashingEmbedder()); ingest(ix, [Path({str(docs)!r})], embed=False)\n"
            "print(ix.owns_vectors(), flush=True); sys.stdin.read()",
        ],
        cwd=ROOT,
        env=cli_env(data),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline().strip() == "True"
        index = KnowledgeIndex(make_settings(data, embedding="hash"), HashingEmbedder())
        assert not index.owns_vectors() and index.store_owner().pid == child.pid
        worker = EmbeddingWorker(index, poll_seconds=0.1).start()
        time.sleep(0.5)
        assert worker.passes == 0 and index.dense_coverage()[0] == 0  # the owner is alive: hands off
    finally:
        child.stdin.close()
        child.wait(30)
    try:
        wait_until(lambda: worker.passes and index.dense_coverage()[0] == len(index.active_chunks()), step=0.1)
        assert index.owns_vectors() and worker.passes >= 1
        assert index.dense_coverage() == (len(index.active_chunks()), len(index.active_chunks()))
    finally:
        worker.stop(30)


# ------------------------------------------------------------ retry mid-swap
class _FlakyCollection:
    """Chroma's collection whose next ``n`` reads fail like a read racing a swap."""

    def __init__(self, inner, fail: int) -> None:
        self.inner, self.fail = inner, fail

    def __getattr__(self, name):
        attr = getattr(self.inner, name)
        if name not in {"query", "get", "count"}:
            return attr

        def call(*a, **kw):
            if self.fail > 0:
                self.fail -= 1
                raise RuntimeError("Error finding id")
            return attr(*a, **kw)

        return call


def test_a_read_failing_mid_swap_is_retried_on_the_new_generation(tmp_path):
    index = owned_index(tmp_path)
    other = KnowledgeIndex(index.settings, index.embedder)  # the same process: like a second session
    more = copy_docs(MORE_FILES[:1], tmp_path / "more")
    ingest(other, [more], embed=True)
    index._collection = _FlakyCollection(index._collection, fail=1)  # noqa: SLF001 - inject the failure
    qv = index.embedder.embed(["Deployment"], "query")[0]
    hits = index.dense_search_vector(qv, 5)
    assert hits and all(c in index.active_chunks() for c, _ in hits)
    assert len(index.active_chunks()) == len(other.active_chunks())  # reloaded onto the new generation
    index._collection.fail = 2  # noqa: SLF001 - two failures in a row: a clear error, not a hang
    from core.errors import IndexError_

    index._count_cache = None  # noqa: SLF001
    with pytest.raises(IndexError_, match="Error finding id"):
        index.dense_search_vector(qv, 5)


def test_threads_noticing_one_new_generation_reload_once(tmp_path, monkeypatch):
    index = owned_index(tmp_path, BASE_FILES[:2])
    other = KnowledgeIndex(index.settings, index.embedder)
    ingest(other, [copy_docs(MORE_FILES[:1], tmp_path / "more")], embed=False)
    calls = []
    real_reload = index.reload
    monkeypatch.setattr(index, "reload", lambda: (calls.append(1), time.sleep(0.3), real_reload()))
    threads = [threading.Thread(target=index.refresh_if_changed) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(calls) == 1 and len(index.active_chunks()) == len(other.active_chunks())


def test_the_app_answers_while_a_cli_ingest_changes_the_catalog(tmp_path):
    """Threads asking through one Engine (like Streamlit sessions) while another
    process ingests: no error, and the new documents are served afterwards."""
    from core.engine import Engine
    from core.generators.extractive import ExtractiveGenerator
    from core.records.store import RecordStore

    index = owned_index(tmp_path)
    engine = Engine(
        index.settings,
        index.embedder,
        index,
        RecordStore(index.settings.records_path),
        {"extractive": ExtractiveGenerator()},
    )
    worker = EmbeddingWorker(index, poll_seconds=0.2).start()
    more = copy_docs(MORE_FILES, tmp_path / "more")
    before = len(index.active_chunks())
    statuses: list[str] = []
    errors: list[str] = []
    stop = threading.Event()

    def client(n: int) -> None:
        questions = QUESTIONS
        i = 0
        while not stop.is_set():
            r = engine.ask(questions[(n + i) % len(questions)], conversation_id=f"c{n}")
            statuses.append(r.status)
            if r.status == "error":
                errors.append(r.error or "")
            i += 1

    threads = [threading.Thread(target=client, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    try:
        p = run_cli(["ingest", str(more)], index.settings.data_dir)
        # The clients reload onto the new generation first; the worker must still embed it.
        wait_until(lambda: not index.pending_chunks() and len(index.active_chunks()) > before, step=0.2)
    finally:
        stop.set()
        for t in threads:
            t.join(60)
        worker.stop(30)
    assert p.returncode == 0, p.stderr
    assert not index.pending_chunks() and worker.error is None
    assert statuses and not errors, errors[:3]
    assert set(statuses) <= {"answered", "no_evidence", "unverifiable"}
    index.refresh_if_changed()
    assert len({c.source_id for c in index.active_chunks().values()}) == 10  # 6 + 4 documents served
