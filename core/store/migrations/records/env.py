"""Alembic environment of the answer store (``core.store.migrations.run``)."""

from core.store.migrations import run

run()
