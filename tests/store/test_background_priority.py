"""Interactive work first (issue 18): the embedding runs in a separate process at
the lowest CPU priority with one thread per numeric library, and waits while a
question is in flight. Mechanisms only; no test of a time."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from core.config import Settings
from core.engine import ask
from core.store import priority
from core.store.catalog import Catalog
from core.store.embedding_worker import EmbeddingProcess, EmbeddingWorker, fill_cache
from core.store.embeddings import HashingEmbedder
from core.store.priority import question_in_flight, questions_in_flight
from tests.fakes import FakeRetriever, ScriptedGenerator, build_engine, retrieved


def _docs(folder: Path, n: int = 3) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"d{i}.md").write_text(
            f"## 第{i}节\n\nPod {i} 是最小的部署单元，Service {i} 暴露它。\n", encoding="utf-8"
        )
    return folder


class SpyEmbedder(HashingEmbedder):
    """The hash embedder, remembering whether a question was in flight at each call."""

    def __init__(self, data_dir: Path) -> None:
        super().__init__()
        self.data_dir = data_dir
        self.busy_at_call: list[bool] = []

    def embed(self, texts, kind="passage"):  # noqa: ANN001
        self.busy_at_call.append(questions_in_flight(self.data_dir))
        return super().embed(texts, kind)


def test_the_flag_marks_a_question_in_flight_and_goes_with_it(tmp_path):
    assert not questions_in_flight(tmp_path)
    with question_in_flight(tmp_path) as flag:
        assert flag.exists() and questions_in_flight(tmp_path)
    assert not flag.exists() and not questions_in_flight(tmp_path)
    try:
        with question_in_flight(tmp_path):
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert not questions_in_flight(tmp_path)


def test_background_work_keeps_waiting_a_moment_after_a_question(tmp_path):
    """The pipeline's part of a question ends before its answer is drawn and sent: background work
    (which passes ``grace``) waits ``GRACE_SECONDS`` more, a question-only check does not."""
    assert not questions_in_flight(tmp_path, grace=priority.GRACE_SECONDS)  # no question yet
    with question_in_flight(tmp_path):
        pass
    ended = time.time()
    assert not questions_in_flight(tmp_path)
    assert questions_in_flight(tmp_path, grace=priority.GRACE_SECONDS, now=ended + priority.GRACE_SECONDS / 2)
    assert not questions_in_flight(tmp_path, grace=priority.GRACE_SECONDS, now=ended + priority.GRACE_SECONDS + 1)
    assert priority.background_waits(tmp_path)  # what background work asks, right after the question


def test_a_flag_left_by_a_dead_process_or_too_old_is_ignored(tmp_path):
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "999999999-dead").touch()  # no such pid
    assert not questions_in_flight(tmp_path)
    (busy / f"{os.getpid()}-old").touch()
    assert questions_in_flight(tmp_path)
    assert not questions_in_flight(tmp_path, now=time.time() + priority.STALE_SECONDS + 1)


def test_ask_marks_the_question_in_flight_while_it_runs(tmp_path):
    seen: list[bool] = []

    def draft(question, chunks):  # noqa: ANN001
        seen.append(questions_in_flight(tmp_path))
        return ScriptedGenerator().generate(question, chunks)

    timings: dict[str, float] = {}
    rec = ask(
        "Pod 是什么？",
        retriever=FakeRetriever([retrieved("a.md@v1#0", "Pod 是最小单元。")]),
        generator=ScriptedGenerator(draft),
        records=None,
        settings=Settings(data_dir=tmp_path),
        timings=timings,
    )
    assert rec.status == "answered"
    assert seen == [True]
    assert not questions_in_flight(tmp_path)
    assert {"retrieve", "generate", "ground", "verify", "total"} <= set(timings)
    assert timings["total"] >= sum(v for k, v in timings.items() if k != "total")


def test_fill_cache_waits_while_a_question_is_in_flight(tmp_path):
    engine = build_engine(tmp_path / "data", [_docs(tmp_path / "docs")])
    data_dir = engine.settings.data_dir
    catalog = Catalog(engine.settings.catalog_path)
    spy = SpyEmbedder(data_dir)
    done: list[int] = []
    with question_in_flight(data_dir):
        worker = threading.Thread(
            target=lambda: done.append(fill_cache(catalog, spy, paused=lambda: questions_in_flight(data_dir)))
        )
        worker.start()
        worker.join(0.5)
        assert worker.is_alive() and spy.busy_at_call == []  # waiting, not embedding
    worker.join(30)
    assert done == [3] and spy.busy_at_call and not any(spy.busy_at_call)
    assert len(catalog.cached_vectors(spy.name, _all_keys(catalog))) == 3
    assert fill_cache(catalog, spy) == 0  # nothing left to embed


def _all_keys(catalog: Catalog) -> list[str]:
    from core.models import sha256_hex
    from core.store.catalog import embedding_text

    return [sha256_hex(embedding_text(c)) for c in catalog.active_chunks({}).values()]


def _proc_env(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


def test_the_embedding_process_runs_at_the_lowest_priority_with_one_thread(tmp_path):
    engine = build_engine(tmp_path / "data", [_docs(tmp_path / "docs", 5)])
    worker = EmbeddingWorker(engine.index, poll_seconds=0.2, process=True).start()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and engine.index.dense_coverage() != (5, 5):
            time.sleep(0.2)
        proc = worker.process
        assert proc is not None and proc.pid is not None, proc and proc.log_path.read_text()
        assert os.getpriority(os.PRIO_PROCESS, proc.pid) == priority.BACKGROUND_NICENESS
        env = _proc_env(proc.pid)
        assert all(env.get(k) == v for k, v in priority.THREAD_VARIABLES.items())
        assert engine.index.dense_coverage() == (5, 5)  # computed by the child, copied into Chroma by the owner
        assert os.getpriority(os.PRIO_PROCESS, 0) < priority.BACKGROUND_NICENESS  # the app itself is untouched
        pid = proc.pid
    finally:
        worker.stop(10)
    assert worker.process.pid is None
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]


def test_a_child_of_another_model_refuses(tmp_path):
    settings = Settings(data_dir=tmp_path, embedding="hash")
    proc = EmbeddingProcess(settings, "some/other-model")
    proc.ensure_running()
    assert proc.popen is not None and proc.popen.wait(60) == 2
    assert "other-model" in proc.log_path.read_text()
