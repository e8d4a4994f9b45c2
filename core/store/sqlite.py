"""One value read from a SQLite file without opening it as a store (no migration, no
pool): ``core.store.catalog.read_index_id`` names a data folder's Chroma collection before
the catalog is opened, or after it is gone. The stores themselves open databases
through ``core.store.sql`` (SQLAlchemy; SQLite or PostgreSQL).
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

log = logging.getLogger(__name__)

#: Seconds a writer waits for another process's lock before "database is locked".
BUSY_TIMEOUT = 30.0


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
