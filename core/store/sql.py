"""The one adapter to SQL engines (issue 17): a database URL becomes a pooled
SQLAlchemy 2 engine, transactions map every ``SQLAlchemyError`` into the product's
error tree, and a store's Alembic migrations run when it is opened.

* URLs (:func:`parse_url`): ``sqlite:///<path>`` (the default stores, :func:`sqlite_url`) or
  ``postgresql://user@host:port/db`` (``YINZHENG_DATABASE_URL``). ``postgresql://`` and
  ``postgres://`` (the form libpq, psql and most tools take) mean psycopg 3, the installed
  driver (``postgresql+psycopg://``); SQLAlchemy alone would load psycopg2 for them, and it
  refuses ``postgres://``. A URL naming a driver that is not installed is a
  :class:`DatabaseUrlError` naming the package to install; another backend (MySQL, ...)
  or an asyncio driver is refused by name (the stores run on SQLite and PostgreSQL only).
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
* Migrations: each store has an Alembic script folder ``core/store/migrations/<store>/``
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
from core.store.sqlite import BUSY_TIMEOUT  # seconds a SQLite writer waits for another's lock

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def sqlite_url(path: Path) -> URL:
    """The SQLAlchemy URL of the SQLite file at ``path`` (any characters in the path)."""
    return URL.create("sqlite", database=str(Path(path)))


#: The backends the stores run on (``upsert``, ``json_text`` and the migrations know these two).
BACKENDS = ("sqlite", "postgresql")
#: The driver a URL without one means (``postgresql://``): psycopg 3, the one in requirements.txt.
DEFAULT_DRIVERS = {"postgresql": "psycopg"}
#: The PyPI package of each DBAPI module SQLAlchemy 2's SQLite and PostgreSQL dialects import
#: (the "DBAPI" line of each dialect page in the SQLAlchemy docs; psycopg2's own docs name
#: psycopg2-binary as the package that installs without a compiler).
DRIVER_PACKAGES = {
    "psycopg": "psycopg[binary]",
    "psycopg2": "psycopg2-binary",
    "pg8000": "pg8000",
    "psycopg2cffi": "psycopg2cffi",
    "asyncpg": "asyncpg",
    "aiosqlite": "aiosqlite",
    "sqlcipher3": "sqlcipher3",
}


class DatabaseUrlError(ValueError):
    """A database URL the stores cannot use: another backend, an asyncio driver, a driver
    SQLAlchemy does not know or one that is not installed (the message names the package).
    The message never holds the URL's password."""


def parse_url(location: Path | str | URL) -> URL:
    """``location`` as the URL of a database the stores can open: a ``Path`` (or a string
    without ``://``) is a SQLite file; ``postgresql://`` / ``postgres://`` become
    ``postgresql+psycopg://`` (user, password, host, port, database and query kept).
    Raises :class:`DatabaseUrlError` (a ``ValueError``) for a string that is no URL, a URL
    of another backend, an asyncio driver or a driver that is missing."""
    if isinstance(location, URL):
        url = location
    elif isinstance(location, Path) or "://" not in location:
        return sqlite_url(Path(location))
    else:
        try:
            url = make_url(location)
        except (ArgumentError, ValueError) as exc:  # their messages hold the whole URL, password included
            raise DatabaseUrlError(
                "not a database URL SQLAlchemy can read; the form is postgresql://user:password@host:5432/<database>"
            ) from exc
    backend, _, driver = url.drivername.partition("+")
    backend = "postgresql" if backend == "postgres" else backend
    if backend not in BACKENDS:
        raise DatabaseUrlError(
            f"{url.drivername}:// is not a database the stores run on: SQLite and PostgreSQL only "
            "(sqlite:///<path>, or postgresql://user@host:5432/<database>)"
        )
    driver = driver or DEFAULT_DRIVERS.get(backend, "")
    url = url.set(drivername=f"{backend}+{driver}" if driver else backend)
    _check_driver(url, backend)
    return url


def _check_driver(url: URL, backend: str) -> None:
    """Raise :class:`DatabaseUrlError` unless ``url``'s driver is a known, blocking, installed one."""
    plain = f"{backend}://" + ("user@host:5432/<database>" if backend == "postgresql" else "/<path>")
    try:
        dialect = url.get_dialect()
    except ArgumentError as exc:  # NoSuchModuleError: SQLAlchemy has no such driver
        raise DatabaseUrlError(f"{url.drivername}:// names a driver SQLAlchemy does not know; write {plain}") from exc
    if dialect.is_async:
        raise DatabaseUrlError(
            f"{url.drivername}:// is an asyncio driver and the stores use blocking connections; write {plain}"
        )
    try:
        dialect.import_dbapi()
    except ImportError as exc:
        module = exc.name or url.get_driver_name()
        package = DRIVER_PACKAGES.get(module.split(".")[0])
        how = f"pip install {package}" if package else f"install the package that provides the Python module {module}"
        default = DEFAULT_DRIVERS.get(backend)
        instead = f" (or write {plain}, which uses {default})" if default and url.get_driver_name() != default else ""
        raise DatabaseUrlError(
            f"{url.drivername}:// needs the driver module {module}, which is not installed: {how}{instead}"
        ) from exc


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
        self,
        location: Path | str | URL,
        *,
        error: type[AppError],
        label: str,
        migrations: str,
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
        except DatabaseUrlError as exc:
            raise error(f"{label}: {exc}") from exc
        except (ArgumentError, ValueError, ImportError, OSError) as exc:  # their messages may hold the password
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
    """A forked child (the parse pool, ``core.ingest.parse_jobs``) starts with an empty pool: it never
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


def upsert(
    conn: Connection,
    table: sa.Table,
    rows: Sequence[Mapping[str, object]] | Mapping[str, object],
    keys: Sequence[str],
    update: Sequence[str] = (),
) -> None:
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
