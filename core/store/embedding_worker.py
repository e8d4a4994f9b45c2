"""The background embedding worker: one thread that fills in dense vectors.

The app starts one per process (``components.resources``); the soak benchmark
starts one the same way. A pass is ``KnowledgeIndex.embed_pending`` (which
first reconciles: vectors of chunks no longer served are deleted). A pass runs

* at start, and after ``wake()`` (an ingest or hide in this process);
* when the catalog generation changed, i.e. another process ingested or hid
  documents (``python -m core ingest`` while the app runs): the worker polls it
  every ``poll_seconds`` (one small SQLite read);
* when this process has just become the owner of the embedded vector store
  (the process that owned it exited; see ``core.store.store_lock``);
* whenever an active chunk has no vector in the store (``KnowledgeIndex.missing_vector_ids``,
  a set difference recomputed only when the vector count or the active set changes): vectors
  are repaired, not assumed, e.g. for a chunk another process ingested while a command-line
  ingest owned the store and exited before embedding it (issue 24).

While another process owns the store, passes are skipped: that owner fills in
the vectors. The chat keeps working meanwhile (BM25 for chunks without vectors).

Interactive work first (``EmbeddingWorker(process=True)``, the app's mode): the
model runs in a separate process (``python -m core.store.embedding_worker``, started
by ``EmbeddingProcess``) at the lowest CPU priority with one thread per numeric
library (``core.store.priority.lower_priority``). It reads the active chunks from the
catalog, embeds the texts that have no cached vector and writes them to the
catalog's embedding cache (``fill_cache``), pausing before each batch while a
question is in flight and for ``GRACE_SECONDS`` after (``core.store.priority.background_waits``); it never opens
the vector store. With a shared catalog (``YINZHENG_DATABASE_URL``) it takes its batches from
the shared queue instead (``core.store.embedding_claims.run_worker``), so replicas and ``python -m
core embed-worker`` processes never embed a text twice. The owner's thread then only copies cached vectors into Chroma
(``embed_pending(embed_missing=False)``), also stepping aside while a question
is answered. The child exits when its parent does.

The second vector set (``core.store.second_vectors``, ``YINZHENG_SECOND_EMBEDDING``): once the
primary pass of a catalog generation is done, the same process (or thread) fills the
second model's vectors into the catalog's embedding cache the same way (``fill_cache`` /
the shared queue, paused while a question is in flight, resumable: only texts without a
vector are embedded). Nothing is copied into Chroma for it: retrieval reads the cache.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from core.config import Settings
from core.errors import AppError
from core.models import sha256_hex
from core.store.catalog import Catalog, embedding_text
from core.store.embedding_claims import run_worker, wait_while
from core.store.embeddings import Embedder
from core.store.index import KnowledgeIndex
from core.store.priority import background_env, background_waits

POLL_SECONDS = 2.0
#: Texts per model call in the embedding process (a pause waits for at most one batch).
PROCESS_BATCH = 8
#: Seconds before an embedding process that exited is started again.
RESTART_SECONDS = 30.0
ROOT = Path(__file__).resolve().parents[2]


class EmbeddingWorker:
    """One daemon thread embedding ``index``'s pending chunks.

    ``error``: the last pass's failure as a message (None after a good pass);
    ``passes``: completed passes. ``start()`` once; ``wake()`` after an ingest;
    ``stop()`` ends the thread (tests, benchmarks).
    """

    def __init__(self, index: KnowledgeIndex, *, poll_seconds: float = POLL_SECONDS, process: bool = False) -> None:
        if poll_seconds <= 0:
            raise ValueError(f"poll_seconds must be > 0, got {poll_seconds}")
        self.index = index
        #: the model's process (``process=True``), started by the first pass that owns the store
        self.process = (
            EmbeddingProcess(
                index.settings, index.embedder.name, None if index.second is None else index.second.embedder.name
            )
            if process
            else None
        )
        self.poll_seconds = poll_seconds
        self.error: str | None = None
        self.passes = 0
        self._embedded_for: str | None = None  # catalog generation the last pass embedded
        self._copied: int | None = None  # process mode: cached vectors when the last copy pass ran
        self._copied_for: str | None = None  # ... and the catalog generation then
        self._missing_after: frozenset[str] = frozenset()  # active chunks the last pass left without a vector
        #: whether the second model was loaded here once its set was complete (``_warm_second``)
        self.second_warmed = False
        self.thread: threading.Thread | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def start(self) -> "EmbeddingWorker":
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, name="yinzheng-embed", daemon=True)
            self.thread.start()
        return self

    def wake(self) -> None:
        """Look for new chunks now (after an ingest or hide in this process)."""
        self._wake.set()

    def stop(self, timeout: float | None = None) -> None:
        """End the thread after the current batch."""
        self._stop.set()
        self._wake.set()
        if self.thread is not None:
            self.thread.join(timeout)
        if self.process is not None:
            self.process.stop()

    def _run(self) -> None:
        due = True
        while not self._stop.is_set():
            if due:
                due = self._pass()
            woke = self._wake.wait(self.poll_seconds)
            self._wake.clear()
            if self._stop.is_set():
                break
            try:
                # Compared with the generation of the last pass, not with the index's own
                # (a question may already have reloaded the index onto the new generation).
                changed = self.index.catalog_generation() != self._embedded_for or self._missing()
                self._warm_second()
            except Exception as exc:  # noqa: BLE001 - keep the thread alive
                self.error, changed = str(exc), True
            due = due or woke or changed

    def _missing(self) -> bool:
        """Whether this process owns the store and active chunks lack a vector that did not lack
        one after the last pass (a pass for chunks still waiting for the embedding process would
        only re-read the store). Process mode: a copy pass skips while the cache did not grow
        (``_copy_pass``), so a vector that went missing from the store is copied by forcing one."""
        if not self.index.owns_vectors():
            return False
        missing = self.index.missing_vector_ids()
        if not missing or missing <= self._missing_after:
            return False
        self._copied = None
        return True

    def _passed(self) -> None:
        """Remember what the pass left without a vector (``_missing``)."""
        self._missing_after = self.index.missing_vector_ids()

    def _warm_second(self) -> None:
        """Once the second set has a vector (its ranking joins retrieval), load the second model
        here with one query vector, unless a question is in flight: the first question of the
        two-model state would otherwise load it (USE: ~2 s) while the person waits. Once per worker."""
        second = self.index.second
        if self.second_warmed or second is None or background_waits(self.index.settings.data_dir):
            return
        if second.coverage(self.index.active_chunks())[0] > 0:
            second.query_vector("预热")
            self.second_warmed = True

    def _pass(self) -> bool:
        """One pass when this process owns the store; returns whether another is due
        (not the owner yet, or the pass failed: try again at the next poll)."""
        try:
            if not self.index.owns_vectors():
                return True
            generation = self.index.catalog_generation()
            if self.process is not None:
                return self._copy_pass(generation)
            self.index.refresh_if_changed()
            self.index.embed_pending(should_stop=self._stop.is_set)
            if self.index.second is not None and not self._stop.is_set():
                fill_cache(
                    self.index.catalog,
                    self.index.second.embedder,
                    should_stop=self._stop.is_set,
                    paused=lambda: background_waits(self.index.settings.data_dir),
                )
            self._embedded_for = generation
            self._passed()
        except AppError as exc:
            self.error = str(exc)
            return True
        except Exception as exc:  # noqa: BLE001 - keep the app alive; the sidebar shows the reason
            self.error = f"向量任务出错：{exc}"
            return True
        self.error = None
        self.passes += 1
        return False

    def _copy_pass(self, generation: str) -> bool:
        """Process mode: (re)start the model's process, copy the vectors it cached into
        Chroma unless a question is in flight; another pass is due while chunks lack one."""
        assert self.process is not None
        self.error = self.process.ensure_running()
        data_dir = self.index.settings.data_dir
        if background_waits(data_dir):
            return True
        cached = self.index.catalog.vector_count(self.index.embedder.name)
        if cached == self._copied and generation == self._copied_for:
            return True  # nothing new in the cache: no Chroma read, no work beside the chat
        stopped = []

        def should_stop() -> bool:
            if self._stop.is_set() or background_waits(data_dir):
                stopped.append(True)
            return bool(stopped)

        self.index.refresh_if_changed()
        self.index.embed_pending(should_stop=should_stop, embed_missing=False)
        if not stopped:  # a complete copy: the next pass may skip until the cache grows
            self._copied, self._copied_for = cached, generation
            self._passed()
        embedded, total = self.index.dense_coverage()
        if embedded >= total:
            self._embedded_for = generation
            self.passes += 1
            return False
        return True


class EmbeddingProcess:
    """The child process that computes vectors (``python -m core.store.embedding_worker``).

    Started with ``core.store.priority.background_env`` (one thread per numeric library)
    and the parent's data folder and embedding settings (``second_model``: the parent's
    second embedder's name, None: the child builds no second set); the child lowers its own
    priority first. ``pid`` of the running child or None; its stderr goes to
    ``<data_dir>/embedding_process.log``.
    """

    def __init__(self, settings: Settings, model_name: str, second_model: str | None = None) -> None:
        self.settings = settings
        self.model_name = model_name
        self.second_model = second_model
        self.popen: subprocess.Popen[bytes] | None = None
        self._started_at = 0.0

    @property
    def pid(self) -> int | None:
        return self.popen.pid if self.popen is not None and self.popen.poll() is None else None

    def ensure_running(self) -> str | None:
        """Start the child unless it runs (again ``RESTART_SECONDS`` after it exited);
        returns a Chinese message when it exited with an error, else None."""
        if self.popen is not None:
            code = self.popen.poll()
            if code is None:
                return None
            if time.monotonic() - self._started_at < RESTART_SECONDS:
                return f"向量进程已退出（退出码 {code}），稍后重启；详情见 {self.log_path}"
        env = background_env()
        env.update(
            YINZHENG_DATA_DIR=str(self.settings.data_dir),
            YINZHENG_EMBEDDING=self.settings.embedding,
            YINZHENG_SECOND_EMBEDDING=self.settings.second_embedding if self.second_model else "none",
        )
        self.settings.data_dir.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log_file:
            self.popen = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "core.store.embedding_worker",
                    "--parent",
                    str(os.getpid()),
                    "--model",
                    self.model_name,
                    *(["--second-model", self.second_model] if self.second_model else []),
                ],
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log_file,
            )
        self._started_at = time.monotonic()
        return None

    @property
    def log_path(self) -> Path:
        return self.settings.data_dir / "embedding_process.log"

    def stop(self, timeout: float = 10.0) -> None:
        """Terminate the child (SIGTERM, then SIGKILL after ``timeout`` seconds)."""
        if self.popen is None or self.popen.poll() is not None:
            return
        self.popen.terminate()
        try:
            self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()


def fill_cache(
    catalog: Catalog,
    embedder: Embedder,
    *,
    paused: Callable[[], bool] = lambda: False,
    should_stop: Callable[[], bool] = lambda: False,
    batch_size: int = PROCESS_BATCH,
) -> int:
    """Embed the active chunks' texts (``embedding_text``) that have no vector of
    ``embedder.name`` in the catalog's cache and store them there, ``batch_size``
    texts per model call. Before each call it waits while ``paused()`` (checked
    ``core.store.embedding_claims.wait_while``); it returns early when ``should_stop()``.
    Returns the number of vectors stored."""
    texts: dict[str, str] = {}
    for chunk in catalog.active_chunks({}).values():
        text = embedding_text(chunk)
        texts.setdefault(sha256_hex(text), text)
    have = catalog.cached_vectors(embedder.name, sorted(texts))
    missing = [k for k in texts if k not in have]
    stored = 0
    for i in range(0, len(missing), batch_size):
        wait_while(paused, should_stop)
        if should_stop():
            break
        keys = missing[i : i + batch_size]
        vectors = embedder.embed([texts[k] for k in keys], "passage")
        catalog.store_vectors(embedder.name, dict(zip(keys, vectors)))
        stored += len(keys)
    return stored


def run_process(argv: list[str] | None = None) -> int:
    """The body of the embedding process (``python -m core.store.embedding_worker``, started by
    ``EmbeddingProcess``; not a user command): lowest priority, then ``fill_cache`` after every catalog
    change until the parent process (``--parent``) is gone; after the primary model's, the second
    model's (``--second-model``) vectors the same way. Exit code 2 when the
    configured model is not ``--model`` (the parent's), or the second not ``--second-model``."""
    from core.config import load_settings  # noqa: PLC0415
    from core.store.embeddings import make_embedder, make_second_embedder  # noqa: PLC0415
    from core.store.priority import lower_priority  # noqa: PLC0415

    ap = argparse.ArgumentParser(prog="python -m core.store.embedding_worker")
    ap.add_argument("--parent", type=int, required=True, help="exit when this process is gone")
    ap.add_argument("--model", required=True, help="the embedder name the parent uses")
    ap.add_argument(
        "--second-model", default=None, help="the second embedder name the parent uses (none: no second set)"
    )
    ap.add_argument("--poll", type=float, default=POLL_SECONDS)
    args = ap.parse_args(argv)
    lower_priority()
    settings = load_settings()
    embedder = make_embedder(settings.embedding)
    if embedder.name != args.model:
        print(f"embedding model {embedder.name} is not the parent's {args.model}", file=sys.stderr)
        return 2
    second = make_second_embedder(settings.second_embedding, settings.embedding) if args.second_model else None
    if args.second_model and (second is None or second.name != args.second_model):
        print(
            f"second embedding model {second and second.name} is not the parent's {args.second_model}", file=sys.stderr
        )
        return 2
    catalog = Catalog(settings.catalog_location)

    def orphaned() -> bool:
        return os.getppid() != args.parent

    def paused() -> bool:
        return background_waits(settings.data_dir)

    worker = f"app:{socket.gethostname()}:{os.getpid()}"
    done_for: str | None = None
    while not orphaned():
        generation = catalog.generation()
        if generation != done_for:
            for model in (embedder, second):  # the primary vectors first, then the second set
                if model is None or orphaned():
                    continue
                if settings.database_url:  # a shared catalog: take turns with other replicas and embed-workers
                    run_worker(catalog, model, worker, batch=PROCESS_BATCH, paused=paused, should_stop=orphaned)
                else:
                    fill_cache(catalog, model, paused=paused, should_stop=orphaned)
            done_for = generation
        time.sleep(args.poll)
    return 0


if __name__ == "__main__":
    sys.exit(run_process())
