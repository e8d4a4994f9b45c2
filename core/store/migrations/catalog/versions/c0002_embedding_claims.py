"""The shared embedding queue (issue 17): ``embedding_claims`` holds each text that an
embedding worker still has to embed for a model, and who holds it until when.

``lease_until`` is a Unix time in seconds (NULL: nobody holds it); see
``core.store.embedding_claims``.

Revision ID: c0002
Revises: c0001
"""

import sqlalchemy as sa
from alembic import op

revision = "c0002"
down_revision = "c0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "embedding_claims",
        sa.Column("model", sa.Text, primary_key=True),
        sa.Column("text_sha256", sa.Text, primary_key=True),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("worker", sa.Text),
        sa.Column("lease_until", sa.Float),
    )
    op.create_index("embedding_claims_lease", "embedding_claims", ["model", "lease_until"])
