"""Past one machine with real OS processes (issue 17): app replicas (``benchmarks/replica.py``,
one ``Engine`` each, its own data folder) and ``python -m core embed-worker`` processes
sharing one PostgreSQL schema and one Chroma server, with the ``hash`` embedder.

* an ingest through one replica is answered by the other, whose dense search finds the
  vectors the first wrote to the Chroma server;
* a record written by one is listed and replayed by the other with identical HTML;
* two embed-worker processes embed every text exactly once, and their vectors land in the
  Chroma server's collection (where the replicas read them);
* a worker killed (SIGKILL) holding a batch loses no text: its lease ends, another takes it;
* re-ingesting a changed document through one replica while the other answers questions
  never gives an answer whose chunks of that document come from two versions.

Runs when ``YINZHENG_TEST_DATABASE_URL`` and ``CHROMA_HOST`` (``CHROMA_PORT``) are set (``.ci/run``
starts both); skipped otherwise.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, TEST_DATABASE_URL, make_settings, postgres_schema

CHROMA_HOST = os.environ.get("CHROMA_HOST")
CHROMA_PORT = int(os.environ.get("CHROMA_PORT") or 8000)

pytestmark = [
    pytest.mark.skipif(
        not (TEST_DATABASE_URL and CHROMA_HOST),
        reason="needs YINZHENG_TEST_DATABASE_URL and CHROMA_HOST (.ci/run starts both)",
    ),
    pytest.mark.slow,
]

TIMEOUT = 60.0  # seconds one reply may take (a process start includes the imports)
TOPICS = [
    ("cronjob", "定时任务", "CronJob 的 schedule 字段使用 Cron 语法，由分钟、小时、日、月、星期五个字段组成。"),
    ("probe", "探针", "存活探针 livenessProbe 失败时，kubelet 会重启容器；就绪探针决定 Pod 是否接收流量。"),
    ("quota", "资源配额", "ResourceQuota 限制一个命名空间内 CPU、内存与对象数量的总和。"),
    ("volume", "持久卷", "PersistentVolumeClaim 申请存储，绑定到满足容量与访问模式的 PersistentVolume。"),
]


def _env(data_dir: Path, url: str) -> dict[str, str]:
    return {
        **os.environ,
        "YINZHENG_DATA_DIR": str(data_dir),
        "YINZHENG_DATABASE_URL": url,
        "YINZHENG_EMBEDDING": "hash",
        "CHROMA_HOST": CHROMA_HOST or "",
        "CHROMA_PORT": str(CHROMA_PORT),
        "YINZHENG_BACKGROUND_EMBEDDING": "0",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "OMP_NUM_THREADS": "1",
    }


class Replica:
    """``benchmarks/replica.py`` in its own process; ``send``/``receive`` one JSON line each."""

    def __init__(self, data_dir: Path, url: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "benchmarks" / "replica.py")],
            cwd=ROOT,
            env=_env(data_dir, url),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    @classmethod
    def pair(cls, tmp: Path, url: str, names: tuple[str, str]) -> tuple["Replica", "Replica"]:
        """Two replicas started together (their imports overlap), once both are ready."""
        one, two = (cls(tmp / name, url) for name in names)
        for replica in (one, two):
            assert replica.receive() == {"ready": True}
        return one, two

    def send(self, **request) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(request, ensure_ascii=False) + "\n")
        self.proc.stdin.flush()

    def ready(self) -> bool:
        return bool(select.select([self.proc.stdout], [], [], 0)[0])

    def receive(self) -> dict:
        assert self.proc.stdout is not None
        if not select.select([self.proc.stdout], [], [], TIMEOUT)[0]:
            raise AssertionError(f"no reply within {TIMEOUT} s")
        line = self.proc.stdout.readline()
        assert line, f"the replica exited ({self.proc.poll()})"
        reply = json.loads(line)
        assert "error" not in reply, reply["error"]
        return reply

    def __call__(self, **request) -> dict:
        self.send(**request)
        return self.receive()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.send(op="quit")
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _write_docs(folder: Path, copies: int = 1) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, title, text in TOPICS:
        body = "\n\n".join(f"## {title} 第 {n} 节\n\n{text}（补充 {n}）" for n in range(copies))
        (folder / f"{name}.md").write_text(f"# {title}\n\n{body}\n", encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def two_replicas(tmp_path_factory):
    """Two replicas on one fresh schema and the Chroma server; the first has ingested the docs (with vectors)."""
    tmp = tmp_path_factory.mktemp("replicas")
    with postgres_schema() as url:
        one, two = Replica.pair(tmp, url, ("one", "two"))
        try:
            counts = one(op="ingest", paths=[str(_write_docs(tmp / "docs"))], embed=True)
            assert counts["added"] == len(TOPICS) and counts["failed"] == 0
            yield one, two
        finally:
            one.stop()
            two.stop()


def test_an_ingest_through_one_process_is_answered_by_another(two_replicas) -> None:
    one, two = two_replicas
    assert two(op="coverage") == one(op="coverage") == {"embedded": len(TOPICS), "total": len(TOPICS)}  # the server's
    reply = two(op="ask", question="CronJob 的 schedule 字段使用什么语法？")
    assert reply["status"] == "answered"
    assert reply["chunks"][0]["source_id"] == "cronjob.md" and "Cron 语法" in reply["chunks"][0]["text"]


def test_a_record_written_by_one_process_is_replayed_by_the_other_with_identical_html(two_replicas) -> None:
    one, two = two_replicas
    live = one(op="ask", question="存活探针失败时会发生什么？", conversation_id="c-probe")
    assert live["status"] == "answered" and "探针" in live["html"]
    assert live["answer_id"] in two(op="list")["answer_ids"]
    assert two(op="render", answer_id=live["answer_id"])["html"] == live["html"]


def _ingest_without_vectors(tmp_path: Path, url: str, copies: int) -> tuple[int, int]:
    """The docs ingested in this process without vectors; (distinct embedding texts, active chunks)."""
    from core.ingest.run import ingest
    from core.store.catalog import embedding_text
    from core.store.embeddings import HashingEmbedder
    from core.store.index import KnowledgeIndex

    settings = make_settings(
        tmp_path / "ingest", embedding="hash", database_url=url, chroma_host=CHROMA_HOST, chroma_port=CHROMA_PORT
    )
    index = KnowledgeIndex(settings, HashingEmbedder())
    try:
        ingest(index, [_write_docs(tmp_path / "docs", copies)], embed=False)
        active = index.active_chunks()
        return len({embedding_text(c) for c in active.values()}), len(active)
    finally:
        index.close()


def _state(tmp_path: Path, url: str) -> dict[str, int]:
    """What a fresh replica sees: vectors in the cache, queued texts, dense coverage on the server."""
    from core.store.embedding_claims import queued
    from core.store.embeddings import HashingEmbedder
    from core.store.index import KnowledgeIndex

    settings = make_settings(
        tmp_path / "check", embedding="hash", database_url=url, chroma_host=CHROMA_HOST, chroma_port=CHROMA_PORT
    )
    index = KnowledgeIndex(settings, HashingEmbedder())
    try:
        model = HashingEmbedder().name
        embedded, total = index.dense_coverage()
        return {
            "cached": index.catalog.vector_count(model),
            "queued": queued(index.catalog, model),
            "embedded": embedded,
            "total": total,
        }
    finally:
        index.close()


def _worker(tmp_path: Path, url: str, name: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "core", "embed-worker", *args],
        cwd=ROOT,
        env=_env(tmp_path / name, url),
        stdout=subprocess.PIPE,
        text=True,
    )


def _stored(proc: subprocess.Popen) -> int:
    out, _ = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 0, out
    return int(re.match(r"(\d+) vectors", out.strip()).group(1))


def test_two_embed_worker_processes_embed_every_text_once_into_the_chroma_server(tmp_path) -> None:
    with postgres_schema() as url:
        texts, chunks = _ingest_without_vectors(tmp_path, url, copies=8)
        assert texts == chunks >= 30
        workers = [_worker(tmp_path, url, f"w{k}", "--batch", "2") for k in range(2)]
        stored = [_stored(w) for w in workers]
        assert sum(stored) == texts  # a text embedded twice would be stored twice
        assert _state(tmp_path, url) == {"cached": texts, "queued": 0, "embedded": chunks, "total": chunks}


VICTIM = """
import sys, time
from core.store.catalog import Catalog
from core.store.embedding_claims import run_worker
from core.store.embeddings import HashingEmbedder

class Stuck(HashingEmbedder):
    def embed(self, texts, kind):
        print(len(texts), flush=True)  # mid-batch: claimed, nothing stored yet
        time.sleep(600)

run_worker(Catalog(sys.argv[1]), Stuck(), "victim", batch=4, lease=3.0)
"""


def test_a_worker_killed_mid_batch_loses_no_text(tmp_path) -> None:
    import sqlalchemy as sa

    with postgres_schema() as url:
        texts, chunks = _ingest_without_vectors(tmp_path, url, copies=3)
        victim = subprocess.Popen(
            [sys.executable, "-c", VICTIM, url],
            cwd=ROOT,
            env=_env(tmp_path / "v", url),
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert select.select([victim.stdout], [], [], TIMEOUT)[0] and victim.stdout.readline().strip() == "4"
        finally:
            victim.send_signal(signal.SIGKILL)
            victim.wait()
        engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
        with engine.connect() as conn:
            held = conn.execute(sa.text("SELECT count(*) FROM embedding_claims WHERE worker = 'victim'")).scalar_one()
        engine.dispose()
        assert held == 4  # the dead worker's batch is still queued, under its lease
        started = time.monotonic()
        assert _stored(_worker(tmp_path, url, "w", "--lease", "3")) == texts  # its own and, after the lease, the 4
        assert time.monotonic() - started < 30
        assert _state(tmp_path, url) == {"cached": texts, "queued": 0, "embedded": chunks, "total": chunks}


def test_a_version_switch_during_questions_from_another_process_never_mixes_versions(tmp_path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()

    def write(version: int) -> None:
        body = "\n\n".join(
            f"## 滚动更新 第 {n} 步\n\n滚动更新 Deployment 时（第 {version} 版说明），"
            f"maxSurge 与 maxUnavailable 控制第 {n} 步替换的 Pod 数量。"
            for n in range(6)
        )
        (docs / "rollout.md").write_text(f"# 滚动更新\n\n{body}\n", encoding="utf-8")

    with postgres_schema() as url:
        asker, writer = Replica.pair(tmp_path, url, ("asker", "writer"))
        try:
            write(0)
            assert writer(op="ingest", paths=[str(docs)], embed=True)["added"] == 1
            seen: set[str] = set()
            answers = 0
            for version in range(1, 5):
                write(version)
                writer.send(op="ingest", paths=[str(docs)], embed=True)
                while True:
                    done = writer.ready()
                    reply = asker(op="ask", question="滚动更新 Deployment 时 maxSurge 控制什么？")
                    answers += 1
                    ours = [c for c in reply["chunks"] if c["source_id"] == "rollout.md"]
                    assert ours, reply["status"]
                    versions = {c["version"] for c in ours}
                    markers = {m for c in ours for m in re.findall(r"第 (\d+) 版", c["text"])}
                    assert len(versions) == 1 and len(markers) == 1, (versions, markers)  # one version per answer
                    seen |= markers
                    if done:
                        break
                assert writer.receive()["updated"] == 1
            assert len(seen) >= 2 and answers >= 4  # the questions really ran across switches
        finally:
            asker.stop()
            writer.stop()
