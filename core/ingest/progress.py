"""Progress of long work: lines for the command line (stderr: done/total, rate and an
estimate), and ``BackgroundJob``, a function run in a thread whose progress a page polls."""

from __future__ import annotations

import sys
import threading
import time
from typing import Callable, TextIO


def progress_printer(label: str, stream: TextIO | None = None, every_s: float = 0.5) -> Callable[..., None]:
    """A ``progress(done, total, *_)`` callback that rewrites one line at most every ``every_s`` seconds."""
    out = stream or sys.stderr
    state = {"t0": time.monotonic(), "last": 0.0}

    def show(done: int, total: int, *_: object) -> None:
        now = time.monotonic()
        if done != total and now - state["last"] < every_s:
            return
        state["last"] = now
        rate = done / max(now - state["t0"], 1e-9)
        eta = (total - done) / rate if rate > 0 else 0
        print(f"\r{label}: {done}/{total} ({rate:.1f}/s, ~{eta:.0f}s left)   ", end="", file=out)
        if done == total:
            print(file=out)

    return show


class BackgroundJob:
    """One function run in a daemon thread with its progress readable from any thread.

    ``target(progress)`` gets a ``progress(done, total, name)`` callback; its return
    value becomes ``result``, an exception ``error`` (the exception itself, re-raised
    by ``wait``). ``done``/``total``/``name`` are the last progress reported.
    """

    def __init__(self, target: Callable[[Callable[[int, int, str], None]], object], name: str = "job") -> None:
        self._target = target
        self._finished = threading.Event()
        self._lock = threading.Lock()
        self.done = self.total = 0
        self.name = ""
        self.result: object = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name=f"yinzheng-{name}", daemon=True)

    def start(self) -> "BackgroundJob":
        self.thread.start()
        return self

    def _progress(self, done: int, total: int, name: str) -> None:
        with self._lock:
            self.done, self.total, self.name = done, total, name

    def _run(self) -> None:
        try:
            self.result = self._target(self._progress)
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            self.error = exc
        finally:
            self._finished.set()

    @property
    def finished(self) -> bool:
        return self._finished.is_set()

    def fraction(self) -> float:
        """Share done (0..1); 0 before the first progress report."""
        with self._lock:
            return self.done / self.total if self.total else 0.0

    def wait(self, timeout: float | None = None) -> object:
        """The result once finished (``TimeoutError`` after ``timeout`` seconds);
        re-raises the job's exception."""
        if not self._finished.wait(timeout):
            raise TimeoutError(f"the background job did not finish within {timeout} s")
        if self.error is not None:
            raise self.error
        return self.result
