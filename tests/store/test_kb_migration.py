"""A data folder made before knowledge bases keeps working (issue 16, item 1).

The fixture ``tests/golden/legacy_data`` was made by the code of commit ead6ac5
(``make_fixture.py`` says how): its catalog holds two documents with ids
``source@version#n`` and the hash embedder's vectors in its cache; its record store
holds one answered question. Opening it with this code moves every document into
``default`` (ids ``default/source@version#n``), rebuilds the vectors under the new
ids from the cache, and old answers still replay and open their snapshots.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from core.engine import Engine
from core.generators.extractive import ExtractiveGenerator
from core.models import DEFAULT_KB
from core.records.replay import current_counterpart, snapshot_state
from core.records.store import RecordStore
from core.store.embeddings import HashingEmbedder
from core.store.index import KnowledgeIndex
from tests.conftest import make_settings

LEGACY = Path(__file__).resolve().parents[1] / "golden" / "legacy_data"
OLD_CHUNK = "cron.md@85518e6b0e2a736a#0"  # the chunk the stored answer cites (printed by make_fixture.py)


@pytest.fixture()
def legacy_dir(tmp_path) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    for name in ("catalog.sqlite3", "records.sqlite3"):
        shutil.copy(LEGACY / name, data / name)
    return data


def _open(data: Path) -> Engine:
    settings = make_settings(data, embedding="hash")
    embedder = HashingEmbedder()
    index = KnowledgeIndex(settings, embedder)
    return Engine(settings, embedder, index, RecordStore(settings.records_path), {"extractive": ExtractiveGenerator()})


def test_fixture_is_a_folder_of_the_old_version():
    db = sqlite3.connect(LEGACY / "catalog.sqlite3")
    try:
        columns = {row[1] for row in db.execute("PRAGMA table_info(documents)")}
        ids = [cid for (cid,) in db.execute("SELECT chunk_id FROM chunks")]
    finally:
        db.close()
    assert "kb" not in columns and OLD_CHUNK in ids


def test_old_folder_moves_into_default_and_answers_from_it(legacy_dir):
    engine = _open(legacy_dir)
    assert engine.index.catalog.migrated
    active = engine.index.active_chunks()
    assert active and all(cid.startswith("default/") for cid in active)
    assert all(c.knowledge_base == DEFAULT_KB and c.document_id.startswith("default/") for c in active.values())
    assert f"default/{OLD_CHUNK}" in active
    assert [r.document.document_id.split("/")[0] for r in engine.index.documents()] == [DEFAULT_KB, DEFAULT_KB]
    assert [kb.name for kb in engine.index.knowledge_bases.list()] == [DEFAULT_KB]
    # vectors were moved from the catalog's cache under the new ids, nothing embedded
    assert engine.index.dense_coverage() == (len(active), len(active))
    assert engine.index.pending_chunks() == []
    record = engine.ask("CronJob 的时区默认是什么？")
    assert record.status == "answered" and record.knowledge_bases == (DEFAULT_KB,)
    assert {c.chunk_id for c in record.chunks} == {f"default/{OLD_CHUNK}"}
    assert record.retrieval["dense_coverage"] == f"{len(active)}/{len(active)}"  # dense searched every chunk


def test_old_answer_replays_and_its_snapshot_opens(legacy_dir):
    import html as html_lib

    from components.answer_view import render_answer
    from components.cards import snapshot_url

    engine = _open(legacy_dir)
    (old,) = engine.records.list(limit=10)
    assert old.knowledge_bases == () and old.chunks[0].chunk_id == OLD_CHUNK
    snap = old.chunk(OLD_CHUNK)
    assert snap is not None and snap.knowledge_base is None and snap.source_key == "default/cron.md"
    versions = engine.index.current_versions()
    assert snapshot_state(snap, versions) == "unchanged"
    assert current_counterpart(engine.index, snap).chunk_id == f"default/{OLD_CHUNK}"
    html = render_answer(old, current_versions=versions)
    assert html.count('<sup class="yz-cite">') == len(old.supports) > 0
    assert html_lib.escape(snapshot_url(old.answer_id, OLD_CHUNK), quote=True) in html  # the link keeps the old id


def test_snapshot_page_opens_an_old_chunk_id(legacy_dir, monkeypatch):
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    root = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(root)
    monkeypatch.setenv("YINZHENG_DATA_DIR", str(legacy_dir))
    monkeypatch.setenv("YINZHENG_EMBEDDING", "hash")
    monkeypatch.setenv("YINZHENG_BACKGROUND_EMBEDDING", "0")
    st.cache_resource.clear()
    try:
        (old,) = RecordStore(legacy_dir / "records.sqlite3").list(limit=10)
        at = AppTest.from_file(str(root / "app_pages" / "sources.py"), default_timeout=60)
        at.query_params["answer_id"] = old.answer_id
        at.query_params["chunk_id"] = OLD_CHUNK
        at.run()
        assert not at.exception, at.exception
        assert not at.error, [e.value for e in at.error]
        meta = at.dataframe[0].value
        assert dict(zip(meta["字段"], meta["值"]))["片段 ID"] == OLD_CHUNK
    finally:
        st.cache_resource.clear()


def test_two_processes_opening_the_old_folder_migrate_once(legacy_dir):
    first = KnowledgeIndex(make_settings(legacy_dir, embedding="hash"), HashingEmbedder())
    second_catalog_open = KnowledgeIndex(make_settings(legacy_dir, embedding="hash"), HashingEmbedder())
    assert first.catalog.migrated and not second_catalog_open.catalog.migrated
    assert list(first.active_chunks()) == list(second_catalog_open.active_chunks())
