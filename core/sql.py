"""The one adapter to SQL engines (issue 17): a database URL becomes a pooled
SQLAlchemy 2 engine, transactions map every ``SQLAlchemyError`` into the product's
error tree, and a store's Alembic migrations run when it is opened.

* URLs: ``sqlite:///<path>`` (the default stores, :func:`sqlite_url`) or
  ``postgresql+psycopg://user@host:port/db`` (``YINZHENG_DATABASE_URL``).
* SQLite (facts from SQLAlchemy's pysqlite docs, "Serializable isolation /
  Savepoints / Transactional DDL", and https://www.sqlite.org/lang_transaction.html):
  the sqlite3 module's own transaction handling is switched off
  (``isolation_level=None``) and each transaction starts with an explicit ``BEGIN``
  (a reader: its statements share one snapshot) or ``BEGIN IMMEDIATE`` (a writer:
  takes the write lock first, so two writers never deadlock upgrading a read lock).
  ``journal_mode=WAL`` is stored in the file; ``synchronous`` is per connection;
  ``timeout`` (seconds) is the busy wait before "database is locked".
* PostgreSQL: psycopg 3, SQLAlchemy's ``QueuePool`` with ``pool_pre_ping``; readers
  run at ``REPEATABLE READ`` (one snapshot per transaction), writers at the default
  ``READ COMMITTED``.
* Migrations: each store has an Alembic script folder ``core/migrations/<store>/``
  and its own version table ``alembic_version_<store>``, so two stores can share one
  PostgreSQL database. :class:`SqlDatabase` runs ``upgrade head`` in one write
  transaction (PostgreSQL: under ``pg_advisory_xact_lock``), so processes opening a
  store together migrate it once.

A URL's password is never put in a message (``render_as_string(hide_password=True)``).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import weakref
import zlib
from contextlib import contextmanager
from pathlib import Path
from typing import ContextManager, Iterator, Mapping, Sequence

import sqlalchemy as sa
from alembic import command
from alembic.config import Config as AlembicConfig
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.expression import ColumnElement, FunctionElement

from core.errors import AppError
from core.sqlite import BUSY_TIMEOUT  # seconds a SQLite writer waits for another's lock

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def sqlite_url(path: Path) -> URL:
    """The SQLAlchemy URL of the SQLite file at ``path`` (any characters in the path)."""
    return URL.create("sqlite", database=str(Path(path)))


def parse_url(location: Path | str | URL) -> URL:
    """``location`` as a URL: a ``Path`` (or a string without ``://``) is a SQLite file.
    Raises ``sqlalchemy.exc.ArgumentError`` or ``ValueError`` for a string that is no URL."""
    if isinstance(location, URL):
        return location
    if isinstance(location, Path) or "://" not in location:
        return sqlite_url(Path(location))
    return make_url(location)  # raises ArgumentError or ValueError for a malformed one


class SqlDatabase:
    """A database a store lives in; ``read()`` / ``write()`` yield a ``Connection``
    inside one transaction (committed when the block ends, rolled back when it raises).

    ``location``: a SQLite file path or a database URL (:func:`parse_url`).
    ``error``: the ``AppError`` subclass every ``SQLAlchemyError`` becomes (the message
    names ``label`` and where). ``migrations``: the store's Alembic folder name under
    ``core/migrations`` (upgraded to head on open). ``synchronous``: SQLite's
    ``"NORMAL"`` or ``"FULL"``. Raises ``error`` when the database cannot be opened
    or migrated.
    """

    def __init__(
        self, location: Path | str | URL, *, error: type[AppError], label: str, migrations: str,
        synchronous: str = "FULL",
    ) -> None:
        self.error = error
        self.label = label
        try:
            self.url = parse_url(location)
            self.dialect = self.url.get_backend_name()
            if self.dialect == "sqlite":
                path = Path(self.url.database or "")
                if path.parent != Path(""):
                    path.parent.mkdir(parents=True, exist_ok=True)
                # Idle connections stay open (closing the last one of a WAL file checkpoints it);
                # past pool_size more are opened as needed (threads never wait for one).
                self.engine = sa.create_engine(
                    self.url, connect_args={"timeout": BUSY_TIMEOUT}, pool_size=8, max_overflow=-1
                )
                _sqlite_transactions(self.engine, synchronous)
            else:
                self.engine = sa.create_engine(self.url, pool_pre_ping=True)
        except (ArgumentError, ValueError, ImportError, OSError) as exc:  # ImportError: no driver installed
            raise error(f"{label}: not a database URL SQLAlchemy can open ({type(exc).__name__})") from exc
        self.where = self.url.render_as_string(hide_password=True)
        _forget_connections_in_forked_children(self.engine)
        self._migrate(migrations)

    @contextmanager
    def _transaction(self, options: Mapping[str, object]) -> Iterator[Connection]:
        try:
            with self.engine.connect() as conn:
                conn = conn.execution_options(**options) if options else conn
                with conn.begin():
                    yield conn
        except SQLAlchemyError as exc:
            raise self.error(f"{self.label} error in {self.where}: {getattr(exc, 'orig', None) or exc}") from exc

    def read(self) -> ContextManager[Connection]:
        """A read transaction: one snapshot for all its statements."""
        return self._transaction({"isolation_level": "REPEATABLE READ"} if self.dialect == "postgresql" else {})

    def write(self) -> ContextManager[Connection]:
        """A write transaction (SQLite: ``BEGIN IMMEDIATE``, the file's write lock from the start)."""
        return self._transaction({"sqlite_immediate": True} if self.dialect == "sqlite" else {})

    def _migrate(self, store: str) -> None:
        config = AlembicConfig()
        config.set_main_option("script_location", str(MIGRATIONS / store).replace("%", "%%"))
        config.attributes["version_table"] = f"alembic_version_{store}"
        with self.write() as conn:
            if self.dialect == "postgresql":  # one migrating process per store and database
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": zlib.crc32(store.encode())})
            config.attributes["connection"] = conn
            command.upgrade(config, "head")
        #: What this open's migrations reported (attributes a revision set, e.g. ``moved_into_default``).
        self.migration_notes = {k: v for k, v in config.attributes.items() if k not in ("connection", "version_table")}

    def close(self) -> None:
        """Close the pooled connections (reopened on the next use)."""
        self.engine.dispose()


def _forget_connections_in_forked_children(engine: sa.Engine) -> None:
    """A forked child (the parse pool, ``core.parse_jobs``) starts with an empty pool: it never
    uses nor closes the parent's connections (SQLAlchemy's "Using Connection Pools with
    Multiprocessing or os.fork()": ``dispose(close=False)`` in the child)."""
    ref = weakref.ref(engine)

    def in_child() -> None:
        live = ref()
        if live is not None:
            live.dispose(close=False)

    os.register_at_fork(after_in_child=in_child)


def _use_wal(dbapi_connection) -> None:  # noqa: ANN001 - a sqlite3.Connection
    """Put the file in WAL mode unless it is already. Connections opening a new file together
    race to switch it, and SQLite answers them "database is locked" without calling the busy
    handler (each holds a shared lock and wants the exclusive one), so the switches of this
    process take turns (:data:`_WAL_SWITCH`) and a later one finds the file in WAL already; a
    switch lost to another process is accepted when the mode read afterwards is WAL."""
    mode = lambda: dbapi_connection.execute("PRAGMA journal_mode").fetchone()[0].lower()  # noqa: E731
    if mode() == "wal":
        return
    with _WAL_SWITCH:
        try:
            dbapi_connection.execute("PRAGMA journal_mode=WAL")
        except sqlite3.OperationalError:
            if mode() != "wal":
                raise


#: Serializes this process's switches of new SQLite files to WAL (:func:`_use_wal`).
_WAL_SWITCH = threading.Lock()


def _sqlite_transactions(engine: sa.Engine, synchronous: str) -> None:
    """Explicit ``BEGIN`` / ``BEGIN IMMEDIATE`` on SQLite (the recipe in SQLAlchemy's pysqlite docs)."""

    @sa.event.listens_for(engine, "connect")
    def _connect(dbapi_connection, _record) -> None:  # noqa: ANN001 - a sqlite3.Connection
        dbapi_connection.isolation_level = None  # the driver's own BEGIN off; ours below
        _use_wal(dbapi_connection)
        dbapi_connection.execute(f"PRAGMA synchronous={synchronous}")

    @sa.event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("sqlite_immediate") else "BEGIN")


def upsert(conn: Connection, table: sa.Table, rows: Sequence[Mapping[str, object]] | Mapping[str, object],
           keys: Sequence[str], update: Sequence[str] = ()) -> None:
    """Insert ``rows``; a row whose ``keys`` exist already updates the columns ``update``
    (none: it is left as it is). ``INSERT … ON CONFLICT`` on both dialects."""
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    stmt = dialect.insert(table)
    if update:
        stmt = stmt.on_conflict_do_update(index_elements=list(keys), set_={c: stmt.excluded[c] for c in update})
    else:
        stmt = stmt.on_conflict_do_nothing(index_elements=list(keys))
    conn.execute(stmt, list(rows) if not isinstance(rows, Mapping) else [rows])


class json_text(FunctionElement):  # noqa: N801 - used like a SQL function
    """``json_text(column, "key")``: the top-level ``key`` of the JSON text in ``column``
    as text (NULL when absent): SQLite ``json_extract``, PostgreSQL ``CAST(… AS json) ->>``."""

    type = sa.Text()
    inherit_cache = True

    def __init__(self, column: ColumnElement, key: str) -> None:
        super().__init__(column, sa.literal(key))


@compiles(json_text, "sqlite")
def _json_text_sqlite(element: json_text, compiler, **kw) -> str:  # noqa: ANN001
    column, key = element.clauses
    return f"json_extract({compiler.process(column, **kw)}, '$.' || {compiler.process(key, **kw)})"


@compiles(json_text, "postgresql")
def _json_text_postgresql(element: json_text, compiler, **kw) -> str:  # noqa: ANN001
    column, key = element.clauses
    return f"(CAST({compiler.process(column, **kw)} AS JSON) ->> {compiler.process(key, **kw)})"
