"""Alembic environment of the catalog (``core.store.migrations.run``)."""

from core.store.migrations import run

run()
