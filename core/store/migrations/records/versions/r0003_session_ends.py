"""When each user last signed out (issue 25): ``session_ends`` holds one row per opaque user
id with ``ended_at``, a Unix time in seconds; an ID token issued at or before it is no longer
a session (``core.records.sessions``). In the answer store's database, so every replica sees it.

Revision ID: r0003
Revises: r0002
"""

import sqlalchemy as sa
from alembic import op

revision = "r0003"
down_revision = "r0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "session_ends",
        sa.Column("user_id", sa.Text, primary_key=True),
        sa.Column("ended_at", sa.Float, nullable=False),
    )
