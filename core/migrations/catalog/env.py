"""Alembic environment of the catalog (``core.migrations.run``)."""

from core.migrations import run

run()
