"""One owner per embedded vector store: an inter-process lock on the Chroma folder.

Chroma's embedded client (``PersistentClient``) is not made for several
processes on one directory: concurrent writers grew an HNSW file to gigabytes
and left later readers crashing (issue 10). So exactly one process, the
*owner*, opens ``<data_dir>/chroma``; every other process leaves it alone (see
``core.store.index.KnowledgeIndex``: it scores from the catalog's cached vectors).

* Lock: ``<data_dir>/chroma.lock`` (beside the Chroma folder, so ``--rebuild``
  can delete the folder without dropping the lock), an exclusive ``filelock``
  lock (``flock`` on POSIX, ``LockFileEx`` on Windows). Taken without waiting;
  held from the first successful ``acquire`` until ``release`` or the end of the
  process (the OS drops it on any exit, also ``kill -9`` or a crash).
* Owner note: ``<data_dir>/chroma.owner.json`` = ``{"pid", "command", "since"}``
  (``since``: UTC ISO 8601), written by the owner right after it took the lock,
  so another process can name it. The note is only trusted while the lock is
  held and its pid is alive.
* Per process, not per object: every ``KnowledgeIndex`` of one process on the
  same folder shares the one hold (a second lock object in the same process
  would be refused by the OS).

Server mode (``CHROMA_HOST``) takes no lock: the server is the one process that
owns its files.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout

from core.models import utc_now

_HELD: dict[str, tuple[int, FileLock]] = {}  # resolved chroma dir → (pid that took it, its lock)
_GUARD = threading.Lock()


@dataclass(frozen=True)
class StoreOwner:
    """The process that owns a Chroma folder, as its owner note states it."""

    pid: int | None
    command: str
    since: str

    def describe(self) -> str:
        """A short Chinese description, e.g. ``进程 1234（streamlit run app.py，自 2026-12-01T11:00:00+00:00）``."""
        if self.pid is None:
            return "另一个进程（尚未登记进程号）"
        return f"进程 {self.pid}（{self.command or '命令未知'}，自 {self.since or '时间未知'}）"


def lock_path(chroma_dir: Path) -> Path:
    """``<chroma_dir>.lock``: the lock file beside the Chroma folder."""
    return chroma_dir.with_name(chroma_dir.name + ".lock")


def owner_path(chroma_dir: Path) -> Path:
    """``<chroma_dir>.owner.json``: the owner note beside the Chroma folder."""
    return chroma_dir.with_name(chroma_dir.name + ".owner.json")


def _key(chroma_dir: Path) -> str:
    return str(Path(chroma_dir).resolve())


def held(chroma_dir: Path) -> bool:
    """Whether this process owns ``chroma_dir`` (a forked child does not inherit ownership)."""
    entry = _HELD.get(_key(chroma_dir))
    return entry is not None and entry[0] == os.getpid()


def acquire(chroma_dir: Path) -> bool:
    """Try to own ``chroma_dir`` for the rest of this process's life, without waiting.

    Returns True when this process owns it (now or already), False when another
    process does. Creates the parent folder if needed. Raises ``OSError`` when
    the lock file cannot be created (e.g. a read-only folder).
    """
    key = _key(chroma_dir)
    with _GUARD:
        if held(chroma_dir):
            return True
        path = lock_path(Path(key))
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(path), thread_local=False)
        try:
            lock.acquire(timeout=0)
        except Timeout:
            return False
        _HELD[key] = (os.getpid(), lock)
        note = {"pid": os.getpid(), "command": _command_line(), "since": utc_now().isoformat(timespec="seconds")}
        tmp = owner_path(Path(key)).with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(note, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, owner_path(Path(key)))
        return True


def release(chroma_dir: Path) -> None:
    """Give up ownership (tests, ``--rebuild`` hand-over). A no-op when not held."""
    key = _key(chroma_dir)
    with _GUARD:
        entry = _HELD.pop(key, None)
        if entry is None or entry[0] != os.getpid():
            return
        owner_path(Path(key)).unlink(missing_ok=True)
        entry[1].release()


def owner(chroma_dir: Path) -> StoreOwner | None:
    """Who owns ``chroma_dir`` as its owner note says: None when this process owns
    it or the note names a process that is gone (the lock is free then).

    Reads the note only (no probe of the lock: taking it even briefly could make a
    starting process miss it). Call it after ``acquire`` returned False; a note
    that is unreadable or not yet written gives ``StoreOwner(pid=None)``.
    """
    if held(chroma_dir):
        return None
    try:
        note = json.loads(owner_path(Path(_key(chroma_dir))).read_text(encoding="utf-8"))
        pid = int(note["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return StoreOwner(None, "", "")
    if pid == os.getpid() or not _alive(pid):
        return None
    return StoreOwner(pid, str(note.get("command", "")), str(note.get("since", "")))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def _command_line() -> str:
    """This process's command line, shortened (e.g. ``python -m core ingest docs``, ``streamlit run app.py``)."""
    argv = list(sys.argv)
    if argv and argv[0].endswith("__main__.py"):
        argv[0] = "python -m " + Path(argv[0]).parent.name
    elif argv:
        argv[0] = Path(argv[0]).name
    # argv decoded with surrogateescape may hold lone surrogates (a non-UTF-8 byte): written as "?"
    text = " ".join(argv).encode("utf-8", "replace").decode("utf-8")
    return text if len(text) <= 200 else text[:199] + "…"
