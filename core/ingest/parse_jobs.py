"""What to parse, and where: the parse key that lets an ingest skip an unchanged
file before parsing it, and the process pool that parses a large corpus.

``parse_key`` is the SHA-256 of a file's bytes and of every other input of its
parse (source id, public URI, glossary titles, the parsing code itself), so
equal keys give equal documents and chunks (``core.ingest.corpus.load_changed_sources``
compares it with the key of the active version, ``Catalog.parse_keys``).
``parser_pool`` forks worker processes only from a process with one thread
(forking a threaded process can copy a lock held by another thread).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import multiprocessing
import os
import threading
from collections.abc import Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from pathlib import Path

__all__ = ["POOL_MAX_WORKERS", "POOL_MIN_FILES", "glossary_digest", "parse_key", "parser_pool"]


@lru_cache(maxsize=1)
def _parser_fingerprint() -> str:
    """SHA-256 over the source of every ``core`` module (read once per process): a
    change to the parsing code (or anything else in ``core``) makes every file's
    :func:`parse_key` new, so the next ingest parses everything again."""
    h = hashlib.sha256()
    core = Path(__file__).resolve().parents[1]
    for f in sorted(core.rglob("*.py")):
        h.update(f.relative_to(core).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def glossary_digest(glossary: Mapping[str, str]) -> str:
    """SHA-256 (hex) of the glossary titles, computed once per ingest for ``parse_key``."""
    text = json.dumps(sorted(glossary.items()), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def parse_key(data: bytes, source_id: str, uri: str | None, glossary: str) -> str:
    """The SHA-256 (hex) of everything a file's parse depends on: its bytes, its
    source id, its public URI, the glossary titles (``glossary_digest``) and the
    parsing code (``_parser_fingerprint``). Equal keys give equal documents and chunks."""
    h = hashlib.sha256(_parser_fingerprint().encode())
    meta = json.dumps([source_id, uri, glossary], ensure_ascii=False)
    h.update(meta.encode("utf-8", "surrogateescape") + b"\0")
    h.update(data)
    return h.hexdigest()


#: Files to parse from which a process pool is used (below it, starting workers costs more than it saves).
POOL_MIN_FILES = 200
#: Most worker processes of that pool.
POOL_MAX_WORKERS = 4


@contextlib.contextmanager
def parser_pool(jobs: int, workers: int | None) -> Iterator[ProcessPoolExecutor | None]:
    """A forked process pool for ``jobs`` parses, or None (parse here): too few jobs,
    one CPU, ``workers`` <= 1, or other threads alive in this process."""
    if workers is None:
        workers = min(len(os.sched_getaffinity(0)), POOL_MAX_WORKERS)
    if jobs < POOL_MIN_FILES or workers <= 1 or not _only_thread():
        yield None
        return
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork")) as pool:
        yield pool


#: Threads that may run while forking (idle monitors that hold no lock a parse needs).
_HARMLESS_THREADS = frozenset({"tqdm_monitor"})


def _only_thread() -> bool:
    """Whether this is the main thread and no other thread runs but ``_HARMLESS_THREADS``."""
    if threading.current_thread() is not threading.main_thread():
        return False
    return all(t is threading.main_thread() or t.name in _HARMLESS_THREADS for t in threading.enumerate())
