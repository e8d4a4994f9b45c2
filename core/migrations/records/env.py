"""Alembic environment of the answer store (``core.migrations.run``)."""

from core.migrations import run

run()
