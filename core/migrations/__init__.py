"""Alembic script folders, one per store (``records``; ``catalog`` next), run by ``core.sql.SqlDatabase``."""
