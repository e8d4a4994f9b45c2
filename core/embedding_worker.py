"""The background embedding worker: one thread that fills in dense vectors.

The app starts one per process (``components.resources``); the soak benchmark
starts one the same way. A pass is ``KnowledgeIndex.embed_pending`` (which
first reconciles: vectors of chunks no longer served are deleted). A pass runs

* at start, and after ``wake()`` (an ingest or hide in this process);
* when the catalog generation changed, i.e. another process ingested or hid
  documents (``python -m core ingest`` while the app runs): the worker polls it
  every ``poll_seconds`` (one small SQLite read);
* when this process has just become the owner of the embedded vector store
  (the process that owned it exited; see ``core.store_lock``).

While another process owns the store, passes are skipped: that owner fills in
the vectors. The chat keeps working meanwhile (BM25 for chunks without vectors).
"""

from __future__ import annotations

import threading

from core.errors import AppError
from core.index import KnowledgeIndex

POLL_SECONDS = 2.0


class EmbeddingWorker:
    """One daemon thread embedding ``index``'s pending chunks.

    ``error``: the last pass's failure as a message (None after a good pass);
    ``passes``: completed passes. ``start()`` once; ``wake()`` after an ingest;
    ``stop()`` ends the thread (tests, benchmarks).
    """

    def __init__(self, index: KnowledgeIndex, *, poll_seconds: float = POLL_SECONDS) -> None:
        if poll_seconds <= 0:
            raise ValueError(f"poll_seconds must be > 0, got {poll_seconds}")
        self.index = index
        self.poll_seconds = poll_seconds
        self.error: str | None = None
        self.passes = 0
        self._embedded_for: str | None = None  # catalog generation the last pass embedded
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
                changed = self.index.catalog_generation() != self._embedded_for
            except Exception as exc:  # noqa: BLE001 - keep the thread alive
                self.error, changed = str(exc), True
            due = due or woke or changed

    def _pass(self) -> bool:
        """One pass when this process owns the store; returns whether another is due
        (not the owner yet, or the pass failed: try again at the next poll)."""
        try:
            if not self.index.owns_vectors():
                return True
            generation = self.index.catalog_generation()
            self.index.refresh_if_changed()
            self.index.embed_pending(should_stop=self._stop.is_set)
            self._embedded_for = generation
        except AppError as exc:
            self.error = str(exc)
            return True
        except Exception as exc:  # noqa: BLE001 - keep the app alive; the sidebar shows the reason
            self.error = f"向量任务出错：{exc}"
            return True
        self.error = None
        self.passes += 1
        return False
