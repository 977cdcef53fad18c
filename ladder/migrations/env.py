"""Alembic environment for the ladder's schema.

Normally called through ``ladder.db.migrate``, which hands over a connection already inside
a transaction (so on SQLite the whole migration runs under ``BEGIN IMMEDIATE`` and two
processes opening a fresh file cannot both create the tables).  Run by the ``alembic`` command
itself (``alembic -c ladder/alembic.ini upgrade head``), it opens the database named by
``sqlalchemy.url`` or ``REFEREE_DB``.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from ladder.db import make_engine
from ladder.models import Base

config = context.config


def run_migrations(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        # SQLite cannot ALTER most things: batch mode recreates tables; constraints are
        # named by the models' naming convention so batch mode can find them.
        render_as_batch=connection.dialect.name == "sqlite",
        # pysqlite with isolation_level=None runs DDL inside our transaction, so both
        # dialects migrate atomically.
        transactional_ddl=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        run_migrations(connection)
        return
    engine = make_engine(config.get_main_option("sqlalchemy.url") or None)
    try:
        with engine.begin() as conn:
            run_migrations(conn)
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (--sql) migrations are not supported; run them against a database")
run_online()
