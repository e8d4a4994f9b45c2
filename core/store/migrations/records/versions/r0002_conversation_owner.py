"""Conversation metadata belongs to one user (issue 25): ``conversations`` is keyed by
(``owner``, ``conversation_id``), so a title or hidden flag set by one user never reaches
another who holds the same conversation id (a shared ``?c=`` link).

``owner`` is the opaque user id of ``answers.user_id``, or ``''`` for the operator (local
single-user mode; a primary-key column cannot be NULL on PostgreSQL). An existing row goes
to the one user every answer of its conversation has; a row whose conversation has answers of
several users, answers without a user, or no answers cannot be attributed and becomes the
operator's, so no signed-in user sees a title another may have set. The table is rebuilt
(SQLite cannot change a primary key in place); rows are copied, none dropped.

Revision ID: r0002
Revises: r0001
"""

import sqlalchemy as sa
from alembic import op

revision = "r0002"
down_revision = "r0001"
branch_labels = None
depends_on = None

_TIME = sa.Text().with_variant(sa.Text(collation="C"), "postgresql")
#: The one user of all answers of the row's conversation, else NULL (then ``''``).
_OWNER = """(SELECT CASE WHEN COUNT(DISTINCT a.user_id) = 1 AND COUNT(a.user_id) = COUNT(*)
                         THEN MAX(a.user_id) END
             FROM answers a WHERE a.conversation_id = c.conversation_id)"""


def upgrade() -> None:
    op.create_table(
        "conversations_owned",
        sa.Column("owner", sa.Text, nullable=False),
        sa.Column("conversation_id", sa.Text, nullable=False),
        sa.Column("title", sa.Text),
        sa.Column("hidden", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created_at", _TIME, nullable=False),
        sa.Column("updated_at", _TIME, nullable=False),
        sa.PrimaryKeyConstraint("owner", "conversation_id", name="conversations_owner_pkey"),
    )
    op.execute(
        "INSERT INTO conversations_owned (owner, conversation_id, title, hidden, created_at, updated_at) "
        f"SELECT COALESCE({_OWNER}, ''), c.conversation_id, c.title, c.hidden, c.created_at, c.updated_at "
        "FROM conversations c"
    )
    op.drop_table("conversations")
    op.rename_table("conversations_owned", "conversations")
