"""The catalog as of issue 18 (knowledge bases, source files), adopted: creates only what is missing.

A new database gets every table and index. A SQLite file made by the code before
Alembic is taken as it is: at ``PRAGMA user_version`` 1 it only gains what it lacks;
at 0 with a ``documents`` table without ``kb`` (a data folder made before knowledge
bases) every document and chunk moves into ``default`` (ids gain the ``default/``
prefix, in the columns and in the stored JSON, SQLite's ``json_set``) and the
generation is bumped, as the code before Alembic did on open (and the run's
``moved_into_default`` attribute set: ``core.store.sql.SqlDatabase.migration_notes``). On SQLite it sets
``PRAGMA user_version`` to 1, so the code before Alembic still opens the file. The
"C" collation keeps PostgreSQL's text order that of SQLite (byte order) for ISO times.

Revision ID: c0001
Revises:
"""

import sqlalchemy as sa
from alembic import context, op

revision = "c0001"
down_revision = None
branch_labels = None
depends_on = None

DEFAULT_KB = "default"  # core.models.DEFAULT_KB when this revision was written
_TIME = sa.Text().with_variant(sa.Text(collation="C"), "postgresql")
_TEXT_KEY = sa.Text().with_variant(sa.Text(collation="C"), "postgresql")


def _tables() -> dict[str, list[sa.Column]]:
    return {
        "embeddings": [
            sa.Column("model", sa.Text, primary_key=True),
            sa.Column("text_sha256", sa.Text, primary_key=True),
            sa.Column("vector", sa.LargeBinary, nullable=False),
        ],
        "lexical_terms": [
            sa.Column("tokenizer", sa.Text, primary_key=True),
            sa.Column("text_sha256", sa.Text, primary_key=True),
            sa.Column("terms", sa.Text, nullable=False),
        ],
        "meta": [sa.Column("key", sa.Text, primary_key=True), sa.Column("value", sa.Text, nullable=False)],
        "knowledge_bases": [
            sa.Column("name", _TEXT_KEY, primary_key=True),
            sa.Column("title", sa.Text, nullable=False),
            sa.Column("hidden", sa.Integer, nullable=False, server_default="0"),
            sa.Column("settings_json", sa.Text, nullable=False, server_default="{}"),
            sa.Column("created_at", _TIME, nullable=False),
        ],
        "documents": [
            sa.Column("kb", _TEXT_KEY, primary_key=True),
            sa.Column("source_id", _TEXT_KEY, primary_key=True),
            sa.Column("version", sa.Text, primary_key=True),
            sa.Column("document_json", sa.Text, nullable=False),
            sa.Column("active", sa.Integer, nullable=False, server_default="0"),
            sa.Column("chunk_count", sa.Integer, nullable=False),
            sa.Column("ingested_at", _TIME, nullable=False),
        ],
        "chunks": [
            sa.Column("chunk_id", sa.Text, primary_key=True),
            sa.Column("kb", _TEXT_KEY, nullable=False),
            sa.Column("source_id", _TEXT_KEY, nullable=False),
            sa.Column("version", sa.Text, nullable=False),
            sa.Column("ordinal", sa.Integer, nullable=False),
            sa.Column("chunk_json", sa.Text, nullable=False),
        ],
        "source_files": [
            sa.Column("kb", sa.Text, primary_key=True),
            sa.Column("source_id", sa.Text, primary_key=True),
            sa.Column("parse_key", sa.Text, nullable=False),
            sa.Column("version", sa.Text, nullable=False),
            sa.Column("warnings", sa.Text, nullable=False),
        ],
    }


_INDEXES = {"documents_active": ("documents", ["active"]), "chunks_doc": ("chunks", ["kb", "source_id", "version"])}

#: The move of a data folder made before knowledge bases into ``default`` (SQLite only: PostgreSQL never held one).
_MOVE_INTO_DEFAULT = (
    "INSERT INTO documents SELECT :kb, source_id, version, json_set(document_json, '$.knowledge_base', :kb, "
    "'$.document_id', :kb || '/' || source_id || '@' || version), active, chunk_count, ingested_at FROM documents_v0",
    "INSERT INTO chunks SELECT :kb || '/' || chunk_id, :kb, source_id, version, ordinal, json_set(chunk_json, "
    "'$.knowledge_base', :kb, '$.chunk_id', :kb || '/' || chunk_id, '$.document_id', "
    ":kb || '/' || json_extract(chunk_json, '$.document_id')) FROM chunks_v0",
    "DROP TABLE documents_v0",
    "DROP TABLE chunks_v0",
    "INSERT INTO meta VALUES ('generation', '1') "
    "ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)",
)


def upgrade() -> None:
    bind = op.get_bind()
    existing = set(sa.inspect(bind).get_table_names())
    legacy = "documents" in existing and "kb" not in {c["name"] for c in sa.inspect(bind).get_columns("documents")}
    if legacy:  # user_version 0: documents and chunks without knowledge bases
        op.rename_table("documents", "documents_v0")
        op.rename_table("chunks", "chunks_v0")
        op.execute("DROP INDEX IF EXISTS documents_active")
        op.execute("DROP INDEX IF EXISTS chunks_doc")
        existing -= {"documents", "chunks"}
    for name, columns in _tables().items():
        if name not in existing:
            op.create_table(name, *columns)
    for name, (table, columns) in _INDEXES.items():
        if name not in {i["name"] for i in sa.inspect(bind).get_indexes(table)}:
            op.create_index(name, table, columns)
    if legacy:
        for stmt in _MOVE_INTO_DEFAULT:
            bind.execute(sa.text(stmt), {"kb": DEFAULT_KB} if ":kb" in stmt else {})
        context.config.attributes["moved_into_default"] = True  # read as Catalog.migrated
    if bind.dialect.name == "sqlite" and bind.exec_driver_sql("PRAGMA user_version").scalar() < 1:
        op.execute("PRAGMA user_version = 1")
