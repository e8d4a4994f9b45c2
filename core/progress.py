"""Progress lines for the command line (stderr): done/total, rate and an estimate."""

from __future__ import annotations

import sys
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
