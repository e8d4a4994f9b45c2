"""The catalog on a database URL (issue 17), on SQLite and PostgreSQL (``database_location``;
PostgreSQL only with ``YINZHENG_TEST_DATABASE_URL``): versions, hiding, the generation
counter and both caches through two catalog objects (two replicas) on one database; a
version switch seen by a reader in another thread is all-old or all-new, never a mixture; a
SQLite catalog made by the code before Alembic is adopted with its rows."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from core.ingest.corpus import load_sources
from core.models import DEFAULT_KB, place_in_knowledge_base
from core.store.catalog import Catalog
from core.store.knowledge_bases import KnowledgeBaseError


def _versions(tmp_path: Path, texts: list[str]):
    """(document, chunks) of ``guide.md`` with each of ``texts``, placed in ``default``."""
    out = []
    for k, text in enumerate(texts):
        folder = tmp_path / f"v{k}"
        folder.mkdir()
        (folder / "guide.md").write_text(text, encoding="utf-8")
        (parsed,), failures = load_sources([folder], base_url=None)
        assert failures == []
        out.append(place_in_knowledge_base(parsed.document, parsed.chunks, DEFAULT_KB))
    return out


V1 = "# 指南\n\n## 安装\n\n先安装 kubectl。\n\n## 配置\n\n再写配置文件。\n"
V2 = "# 指南\n\n## 安装\n\n用包管理器安装 kubectl。\n\n## 升级\n\n按版本顺序升级。\n\n## 卸载\n\n删除二进制文件。\n"


def test_two_catalogs_on_one_database_share_versions_generation_and_caches(database_location, tmp_path) -> None:
    (d1, c1), (d2, c2) = _versions(tmp_path, [V1, V2])
    one, two = Catalog(database_location), Catalog(database_location)
    try:
        assert one.index_id == two.index_id and len(one.index_id) == 16
        assert one.generation() == "0"
        assert one.apply([(d1, c1)], remove_missing=False, parse_keys={d1.source_id: ("k1", ["警告"])}) == (
            {d1.source_id: "added"},
            [],
        )
        assert two.generation() == "1" and list(two.active_chunks({})) == [c.chunk_id for c in c1]
        assert two.parse_keys() == {d1.source_id: ("k1", ["警告"])}
        results, stale = two.apply([(d2, c2)], remove_missing=False)
        assert results == {d2.source_id: "updated"} and stale == [c.chunk_id for c in c1]
        assert one.generation() == "2" and one.current_versions() == {f"default/{d2.source_id}": d2.version}
        assert one.get_chunk(c1[0].chunk_id) == c1[0]  # old versions stay for replay
        assert one.hide(d2.source_id) == (True, [c.chunk_id for c in c2]) and two.active_chunks({}) == {}
        assert [r.document.version for r in two.hidden_documents()] == [d2.version]  # the latest one
        assert two.unhide(d2.source_id) and not two.unhide(d2.source_id)
        assert one.generation() == "4" and [r.document.version for r in one.documents()] == [d2.version]
        one.store_vectors("m", {"h1": np.array([1.0, 0.5], dtype=np.float32)})
        assert two.cached_vectors("m", ["h1", "h2"])["h1"].tolist() == [1.0, 0.5] and two.vector_count("m") == 1
        terms = two.terms_for({c.chunk_id: c for c in c2})
        assert all(terms.values()) and one.terms_for({c.chunk_id: c for c in c2}) == terms
        one.knowledge_bases.create("b", "第二个库")
        assert [kb.name for kb in two.knowledge_bases.list()] == [DEFAULT_KB, "b"]
        with pytest.raises(KnowledgeBaseError):
            two.knowledge_bases.create("b")
    finally:
        one.close()
        two.close()


def test_a_reader_never_sees_a_mixture_of_two_versions(database_location, tmp_path) -> None:
    (d1, c1), (d2, c2) = _versions(tmp_path, [V1, V2])
    writer, reader = Catalog(database_location), Catalog(database_location)
    writer.apply([(d1, c1)], remove_missing=False)
    whole = {frozenset(c.chunk_id for c in c1), frozenset(c.chunk_id for c in c2)}
    seen: list[frozenset[str]] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            seen.append(frozenset(reader.active_chunks({})))

    thread = threading.Thread(target=read)
    thread.start()
    try:
        for k in range(30):  # switch back and forth: apply the other version, each in one transaction
            writer.apply([(d2, c2) if k % 2 == 0 else (d1, c1)], remove_missing=False)
    finally:
        stop.set()
        thread.join()
        writer.close()
        reader.close()
    assert seen and set(seen) <= whole  # every read: exactly one version's chunks


#: The layout the code before issue 17 made (``PRAGMA user_version`` 1: knowledge bases, source files).
PRE_ALEMBIC = """
CREATE TABLE embeddings (model TEXT NOT NULL, text_sha256 TEXT NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (model, text_sha256));
CREATE TABLE lexical_terms (tokenizer TEXT NOT NULL, text_sha256 TEXT NOT NULL, terms TEXT NOT NULL,
    PRIMARY KEY (tokenizer, text_sha256));
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE knowledge_bases (name TEXT PRIMARY KEY, title TEXT NOT NULL, hidden INTEGER NOT NULL DEFAULT 0,
    settings_json TEXT NOT NULL DEFAULT '{}', created_at TEXT NOT NULL);
CREATE TABLE documents (kb TEXT NOT NULL, source_id TEXT NOT NULL, version TEXT NOT NULL, document_json TEXT NOT NULL,
    active INTEGER NOT NULL DEFAULT 0, chunk_count INTEGER NOT NULL, ingested_at TEXT NOT NULL,
    PRIMARY KEY (kb, source_id, version));
CREATE INDEX documents_active ON documents(active);
CREATE TABLE chunks (chunk_id TEXT PRIMARY KEY, kb TEXT NOT NULL, source_id TEXT NOT NULL, version TEXT NOT NULL,
    ordinal INTEGER NOT NULL, chunk_json TEXT NOT NULL);
CREATE INDEX chunks_doc ON chunks(kb, source_id, version);
CREATE TABLE source_files (kb TEXT NOT NULL, source_id TEXT NOT NULL, parse_key TEXT NOT NULL, version TEXT NOT NULL,
    warnings TEXT NOT NULL, PRIMARY KEY (kb, source_id));
PRAGMA user_version = 1;
"""


def test_a_catalog_file_made_before_alembic_is_adopted_with_its_rows(tmp_path) -> None:
    import sqlite3

    ((d1, c1),) = _versions(tmp_path, [V1])
    path = tmp_path / "catalog.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript(PRE_ALEMBIC)
        db.execute("INSERT INTO meta VALUES ('index_id', 'abcdef0123456789'), ('generation', '7')")
        db.execute("INSERT INTO knowledge_bases VALUES ('default', '示例', 0, '{}', '2026-01-01T00:00:00+00:00')")
        db.execute(
            "INSERT INTO documents VALUES (?, ?, ?, ?, 1, ?, '2026-01-01T00:00:00+00:00')",
            (DEFAULT_KB, d1.source_id, d1.version, d1.model_dump_json(), len(c1)),
        )
        db.executemany(
            "INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?)",
            [(c.chunk_id, DEFAULT_KB, c.source_id, c.version, c.ordinal, c.model_dump_json()) for c in c1],
        )
    db.close()
    catalog = Catalog(path)
    try:
        assert not catalog.migrated and catalog.index_id == "abcdef0123456789" and catalog.generation() == "7"
        assert list(catalog.active_chunks({})) == [c.chunk_id for c in c1]
        assert [kb.title for kb in catalog.knowledge_bases.list()] == ["示例"]
    finally:
        catalog.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version_num FROM alembic_version_catalog").fetchall() == [("c0002",)]
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    db.close()
