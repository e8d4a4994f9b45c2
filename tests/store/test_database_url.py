"""Database URLs in the form other tools take (issue 30): ``postgresql://`` and
``postgres://`` mean PostgreSQL through the installed driver (psycopg 3); a URL for a
driver that is not installed names the package to install; a backend the stores do
not run on is refused by name. Checked in ``core.store.sql`` (every engine) and at start in
``core.config`` (``YINZHENG_DATABASE_URL``); never with the password in a message.
The real connection runs with ``YINZHENG_TEST_DATABASE_URL`` only."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import sqlalchemy as sa

from core.config import load_settings
from core.errors import ConfigError, RecordError
from core.models import AnswerRecord, GeneratorInfo
from core.records.store import RecordStore
from core.store.sql import DatabaseUrlError, parse_url
from tests.conftest import postgres_schema
from tests.fakes import T0
from tests.records.test_records_sql import socket_free_port

PW = "s3cret-pw"


@pytest.mark.parametrize(
    "given, expected",
    [
        ("postgresql://user@host/db", "postgresql+psycopg://user@host/db"),
        (
            f"postgres://yz:{PW}@db.example:5433/yinzheng?sslmode=require",
            f"postgresql+psycopg://yz:{PW}@db.example:5433/yinzheng?sslmode=require",
        ),
        ("postgresql+psycopg://yz@127.0.0.1:5432/yz", "postgresql+psycopg://yz@127.0.0.1:5432/yz"),
        ("postgres+psycopg://yz@h/yz", "postgresql+psycopg://yz@h/yz"),
        ("sqlite:///data/x.sqlite3", "sqlite:///data/x.sqlite3"),
        ("sqlite+pysqlite:///x.sqlite3", "sqlite+pysqlite:///x.sqlite3"),
    ],
)
def test_standard_urls_mean_the_installed_driver(given, expected):
    url = parse_url(given)
    assert url.render_as_string(hide_password=False) == expected
    assert url.get_dialect().import_dbapi() is not None  # the driver it names is importable


def test_a_path_is_a_sqlite_file():
    assert parse_url(Path("a b/数据.sqlite3")).drivername == "sqlite"
    assert parse_url("records.sqlite3").database == "records.sqlite3"


def _missing(module: str) -> bool:
    return importlib.util.find_spec(module) is None


@pytest.mark.parametrize(
    "url, module, package",
    [
        (f"postgresql+psycopg2://yz:{PW}@h/db", "psycopg2", "psycopg2-binary"),
        (f"postgres+pg8000://yz:{PW}@h/db", "pg8000", "pg8000"),
    ],
)
def test_a_driver_that_is_not_installed_names_the_package(url, module, package):
    if not _missing(module):
        pytest.skip(f"{module} is installed here")
    with pytest.raises(DatabaseUrlError, match=rf"pip install {package}\b") as err:
        parse_url(url)
    msg = str(err.value)
    assert module in msg and "postgresql://" in msg  # and the form that works without installing
    assert PW not in msg


@pytest.mark.parametrize(
    "url", [f"mysql://yz:{PW}@h/db", f"mysql+pymysql://yz:{PW}@h/db", f"mssql+pyodbc://yz:{PW}@h/db"]
)
def test_a_backend_the_stores_do_not_run_on_is_refused_by_name(url):
    with pytest.raises(DatabaseUrlError, match="SQLite and PostgreSQL only") as err:
        parse_url(url)
    assert url.split(":", 1)[0].split("+")[0] in str(err.value) and PW not in str(err.value)


def test_an_asyncio_driver_is_refused():
    with pytest.raises(DatabaseUrlError, match="asyncio") as err:
        parse_url(f"postgresql+asyncpg://yz:{PW}@h/db")
    assert PW not in str(err.value)


def test_the_store_says_what_to_install_not_the_exception_type():
    """Before: "not a database URL SQLAlchemy can open (ModuleNotFoundError)"."""
    if not _missing("psycopg2"):
        pytest.skip("psycopg2 is installed here")
    with pytest.raises(RecordError, match="the answer store: .*pip install psycopg2-binary") as err:
        RecordStore(f"postgresql+psycopg2://yz:{PW}@127.0.0.1/yz")
    assert PW not in str(err.value) and "ModuleNotFoundError" not in str(err.value)


@pytest.mark.parametrize("scheme", ["postgresql", "postgres"])
def test_a_standard_url_reaches_the_server(scheme):
    """The URL is accepted and the store tries the server (nobody listens on the port)."""
    with socket_free_port() as port:
        with pytest.raises(RecordError, match="the answer store error in postgresql\\+psycopg://") as err:
            RecordStore(f"{scheme}://yz:{PW}@127.0.0.1:{port}/yz?connect_timeout=2")
    assert PW not in str(err.value) and f"127.0.0.1:{port}" in str(err.value)


def test_config_checks_the_url_at_start(tmp_path):
    none = tmp_path / "none.toml"
    s = load_settings({"YINZHENG_DATABASE_URL": "postgresql://user@host/db"}, secrets_path=none)
    assert s.records_location == s.catalog_location == "postgresql://user@host/db"
    if _missing("psycopg2"):
        with pytest.raises(ConfigError, match="YINZHENG_DATABASE_URL: .*pip install psycopg2-binary") as err:
            load_settings({"YINZHENG_DATABASE_URL": f"postgresql+psycopg2://yz:{PW}@h/db"}, secrets_path=none)
        assert PW not in str(err.value)
    with pytest.raises(ConfigError, match="YINZHENG_DATABASE_URL: .*SQLite and PostgreSQL only") as err:
        load_settings({"YINZHENG_DATABASE_URL": f"mysql://yz:{PW}@h/db"}, secrets_path=none)
    assert PW not in str(err.value)


@pytest.mark.parametrize("scheme", ["postgresql", "postgres"])
def test_a_standard_url_opens_a_real_postgresql(scheme):
    """With ``YINZHENG_TEST_DATABASE_URL``: the store opens, migrates, writes and reads
    through ``postgresql://`` / ``postgres://`` as given by other tools."""
    with postgres_schema() as url:
        plain = sa.make_url(url).set(drivername=scheme).render_as_string(hide_password=False)
        assert plain.startswith(f"{scheme}://")
        store = RecordStore(plain)
        try:
            record = AnswerRecord(
                answer_id="u1",
                query="标准 URL",
                status="answered",
                generator=GeneratorInfo(name="extractive"),
                created_at=T0,
                conversation_id="c1",
                answer_text="回答",
            )
            store.for_user("a" * 32).save(record)
            assert store.for_user("a" * 32).get("u1") == record
        finally:
            store.close()
