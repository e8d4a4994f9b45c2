"""The stores behind ``KnowledgeIndex`` (issue 11): one SQL adapter (``core.store.sql``) for the
catalog and the answer store, every Chroma call mapped into the error tree
(including the write in ``embed_pending``'s flush), and nothing lost on a failure."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from core.errors import IndexError_, RecordError
from core.ingest.run import ingest
from core.models import sha256_hex
from core.records.store import RecordStore
from core.store.catalog import Catalog, embedding_text, read_index_id
from core.store.embeddings import HashingEmbedder
from core.store.index import KnowledgeIndex
from core.store.sql import SqlDatabase
from tests.conftest import SAMPLE, make_settings

DOC = SAMPLE / "reference/glossary/pod.md"


def _index(tmp_path) -> KnowledgeIndex:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / DOC.name).write_bytes(DOC.read_bytes())
    index = KnowledgeIndex(make_settings(tmp_path / "data", embedding="hash"), HashingEmbedder())
    ingest(index, [docs], embed=False)
    return index


class _FailingWrites:
    """A Chroma collection whose writes fail with ``exc`` (reads pass through)."""

    def __init__(self, inner, exc: BaseException) -> None:
        self.inner, self.exc = inner, exc

    def __getattr__(self, name):
        if name in {"upsert", "delete"}:

            def fail(*_a, **_kw):
                raise self.exc

            return fail
        return getattr(self.inner, name)


def test_a_failing_vector_write_is_an_index_error_and_keeps_the_embedding_cache(tmp_path):
    index = _index(tmp_path)
    pending = index.pending_chunks()
    assert pending
    index._collection = _FailingWrites(index._collection, Exception("disk I/O error"))  # noqa: SLF001
    with pytest.raises(IndexError_, match="cannot write the vector store: disk I/O error"):
        index.embed_pending()
    # The vectors computed before the failure are in the catalog cache: a retry does not embed them again.
    keys = [sha256_hex(embedding_text(c)) for c in pending]
    cached = index.catalog.cached_vectors(index.embedder.name, keys)
    assert set(cached) == set(keys)
    assert index.dense_coverage() == (0, len(index.active_chunks()))


def test_a_programming_error_in_a_chroma_call_is_not_turned_into_an_index_error(tmp_path):
    index = _index(tmp_path)
    index._collection = _FailingWrites(index._collection, TypeError("bad argument"))  # noqa: SLF001
    with pytest.raises(TypeError, match="bad argument"):
        index.embed_pending()


def test_a_catalog_that_is_not_sqlite_is_an_index_error(tmp_path):
    path = tmp_path / "catalog.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(IndexError_, match="the catalog"):
        Catalog(path)
    assert read_index_id(path) is None


def test_the_answer_store_maps_sqlite_errors_to_record_errors(tmp_path):
    path = tmp_path / "answers.sqlite3"
    path.mkdir()  # a folder where the file should be
    with pytest.raises(RecordError, match="the answer store"):
        RecordStore(path)


def test_database_transactions_roll_back_as_a_whole(database_location):
    """``core.store.sql.SqlDatabase`` on each backend: a failing block leaves nothing; SQLite files are WAL."""
    db = SqlDatabase(database_location, error=RecordError, label="a test store", migrations="records")
    insert = sa.text("INSERT INTO meta_test VALUES (:k, :v)")
    try:
        with db.write() as conn:
            conn.execute(sa.text("CREATE TABLE meta_test (k TEXT PRIMARY KEY, v INTEGER)"))
            conn.execute(insert, {"k": "a", "v": 1})
        with pytest.raises(RecordError, match="a test store error"):
            with db.write() as conn:
                conn.execute(insert, {"k": "b", "v": 2})
                conn.execute(insert, {"k": "a", "v": 3})  # primary key taken: the whole block rolls back
        with db.read() as conn:
            assert conn.execute(sa.text("SELECT k, v FROM meta_test")).all() == [("a", 1)]
            if db.dialect == "sqlite":
                assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    finally:
        db.close()


def test_catalog_index_id_is_stable_and_readable_without_opening_the_index(tmp_path):
    path = tmp_path / "catalog.sqlite3"
    first = Catalog(path).index_id
    assert len(first) == 16 and Catalog(path).index_id == first
    assert read_index_id(path) == first
    assert read_index_id(tmp_path / "missing.sqlite3") is None
