"""Alembic environment of the answer store: runs on the connection ``core.sql.SqlDatabase``
passes (``config.attributes["connection"]``, already inside its write transaction) with
the version table ``config.attributes["version_table"]``. No offline (SQL script) mode."""

from alembic import context

config = context.config
context.configure(connection=config.attributes["connection"], version_table=config.attributes["version_table"])
with context.begin_transaction():
    context.run_migrations()
