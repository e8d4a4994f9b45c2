"""The answer store as of issue 16, adopted: creates only what is missing.

A new database gets every table and index; a SQLite file made by the code before
Alembic (``PRAGMA user_version`` 0 = answers only, 1 = plus ``conversations``; the
``user_id`` column added on open since issue 16) gains the tables, the column and the
indexes it lacks, and no row is rewritten. On SQLite it also sets ``PRAGMA user_version``
to 1, so the code before Alembic still opens the file. ISO 8601 time columns sort with the
"C" collation on PostgreSQL (byte order, as SQLite compares text).

Revision ID: r0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "r0001"
down_revision = None
branch_labels = None
depends_on = None

_TIME = sa.Text().with_variant(sa.Text(collation="C"), "postgresql")
_INDEXES = {
    "answers_created": ("answers", ["created_at"]),
    "answers_conversation": ("answers", ["conversation_id", "created_at"]),
    "answers_user": ("answers", ["user_id", "created_at"]),
}


def upgrade() -> None:
    bind = op.get_bind()
    tables = set(sa.inspect(bind).get_table_names())
    if "answers" not in tables:
        op.create_table(
            "answers",
            sa.Column("answer_id", sa.Text, primary_key=True),
            sa.Column("created_at", _TIME, nullable=False),
            sa.Column("status", sa.Text, nullable=False),
            sa.Column("conversation_id", sa.Text),
            sa.Column("query", sa.Text, nullable=False),
            sa.Column("record_json", sa.Text, nullable=False),
            sa.Column("user_id", sa.Text),
        )
    elif "user_id" not in {c["name"] for c in sa.inspect(bind).get_columns("answers")}:
        op.add_column("answers", sa.Column("user_id", sa.Text))
    if "conversations" not in tables:
        op.create_table(
            "conversations",
            sa.Column("conversation_id", sa.Text, primary_key=True),
            sa.Column("title", sa.Text),
            sa.Column("hidden", sa.Integer, nullable=False, server_default="0"),
            sa.Column("created_at", _TIME, nullable=False),
            sa.Column("updated_at", _TIME, nullable=False),
        )
    existing = {i["name"] for i in sa.inspect(bind).get_indexes("answers")}
    for name, (table, columns) in _INDEXES.items():
        if name not in existing:
            op.create_index(name, table, columns)
    if bind.dialect.name == "sqlite" and bind.exec_driver_sql("PRAGMA user_version").scalar() < 1:
        op.execute("PRAGMA user_version = 1")
