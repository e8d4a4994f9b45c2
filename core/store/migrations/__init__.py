"""Alembic script folders, one per store (``records``, ``catalog``), run by ``core.store.sql.SqlDatabase``.

Each folder's ``env.py`` calls :func:`run`: the migrations run on the connection
``SqlDatabase`` passes (``config.attributes["connection"]``, already inside its write
transaction) with the store's version table (``config.attributes["version_table"]``).
There is no offline (SQL script) mode.
"""

from alembic import context


def run() -> None:
    """Run the pending revisions of the folder whose ``env.py`` calls this."""
    config = context.config
    context.configure(connection=config.attributes["connection"], version_table=config.attributes["version_table"])
    with context.begin_transaction():
        context.run_migrations()
