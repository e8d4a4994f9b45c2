"""One way to open a SQLite database: WAL, a busy timeout, rows by name, and
``sqlite3.Error`` mapped into the product's error tree.

Used by the catalog (``core.catalog``) and the answer store (``core.records``).
Facts from the SQLite docs (https://www.sqlite.org/wal.html, /pragma.html):
``journal_mode=WAL`` is stored in the file (set once, kept by every later
connection); ``synchronous=NORMAL`` in WAL mode is durable on an application
crash but may lose the last commits on a power loss; closing the last
connection of a WAL database checkpoints it, so a database opened on every
call can keep its connection per thread (``keep_open``).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from core.errors import AppError

log = logging.getLogger(__name__)

#: Seconds a writer waits for another process's lock before "database is locked".
BUSY_TIMEOUT = 30.0


class Database:
    """A SQLite file in WAL mode; ``transaction()`` yields a connection.

    ``error``: the ``AppError`` subclass every ``sqlite3.Error`` becomes
    (``raise error(...) from exc``; the message names ``label`` and the path).
    ``schema``: a SQL script run once when the object is made (``CREATE ... IF NOT EXISTS``).
    ``synchronous``: ``"NORMAL"`` or ``"FULL"`` (the SQLite default).
    ``keep_open``: keep one connection per thread (closed by ``close()``, on this
    thread) instead of opening one per transaction. Rows are ``sqlite3.Row``
    (index, unpack or read by column name).
    """

    def __init__(
        self, path: Path, *, error: type[AppError], label: str, schema: str = "",
        synchronous: str = "FULL", keep_open: bool = False,
    ) -> None:
        self.path = Path(path)
        self.error = error
        self.label = label
        self._synchronous = synchronous
        self._keep_open = keep_open
        self._local = threading.local()
        with self.transaction() as db:
            db.execute("PRAGMA journal_mode=WAL")
            if schema:
                db.executescript(schema)

    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT)
            conn.execute(f"PRAGMA synchronous={self._synchronous}")
        except sqlite3.Error as exc:
            raise self.error(f"cannot open {self.label} {self.path}: {exc}") from exc
        conn.row_factory = sqlite3.Row
        return conn

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A transaction: committed when the block ends, rolled back when it raises.
        Raises ``self.error`` for any ``sqlite3.Error`` (opening, SQL, commit)."""
        conn = getattr(self._local, "conn", None) if self._keep_open else None
        if conn is None:
            conn = self._connect()
            if self._keep_open:
                self._local.conn = conn
        try:
            with conn:
                yield conn
        except sqlite3.Error as exc:
            raise self.error(f"{self.label} error in {self.path}: {exc}") from exc
        finally:
            if not self._keep_open:
                conn.close()

    def close(self) -> None:
        """Close this thread's kept connection (reopened on the next use)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            self._local.conn = None
            conn.close()


def read_value(path: Path, sql: str, params: tuple = ()) -> object | None:
    """The first column of the first row of ``sql`` in the database at ``path``,
    or None when the file, the table or the row is missing or unreadable
    (``sqlite3.Error`` is caught here: the caller treats "unknown" as "none")."""
    if not Path(path).exists():
        return None
    try:
        db = sqlite3.connect(path, timeout=BUSY_TIMEOUT)
        try:
            row = db.execute(sql, params).fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        log.warning("cannot read %s; treated as missing", path, exc_info=True)
        return None
    return row[0] if row else None
