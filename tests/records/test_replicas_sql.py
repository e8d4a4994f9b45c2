"""Two app replicas on one database URL (issue 17; ``database_location``: SQLite, and
PostgreSQL with ``YINZHENG_TEST_DATABASE_URL``): each with its own data folder (its own
embedded vector store), sharing the catalog and the answer records through
``YINZHENG_DATABASE_URL``. An ingest through one is served by the other after its
generation check; the shared catalog refuses ``--rebuild``."""

from __future__ import annotations

import pytest

from core.errors import ConfigError
from core.ingest.run import ingest
from core.records.store import RecordStore
from core.store.embeddings import HashingEmbedder
from core.store.index import KnowledgeIndex, reset_index
from tests.conftest import SAMPLE, make_settings


@pytest.mark.slow  # an ingest of the sample (jieba) per backend
def test_an_ingest_through_one_replica_is_served_by_the_other(database_location, tmp_path) -> None:
    url = database_location if isinstance(database_location, str) else f"sqlite:///{database_location}"
    one, two = (make_settings(tmp_path / name, embedding="hash", database_url=url) for name in ("one", "two"))
    first = KnowledgeIndex(one, HashingEmbedder())
    second = KnowledgeIndex(two, HashingEmbedder())
    try:
        assert second.active_chunks() == {}
        ingest(first, [SAMPLE], embed=False)
        assert second.refresh_if_changed()  # the shared generation moved
        assert second.active_chunks().keys() == first.active_chunks().keys() and len(second.active_chunks()) > 100
        assert not (tmp_path / "one" / "catalog.sqlite3").exists()  # the catalog is in the database
        assert RecordStore(one.records_location).list() == []  # one records store, in the database too
        with pytest.raises(ConfigError, match="YINZHENG_DATABASE_URL"):
            reset_index(one)
        assert len(first.active_chunks()) == len(second.active_chunks())  # nothing deleted
    finally:
        first.catalog.close()
        second.catalog.close()
