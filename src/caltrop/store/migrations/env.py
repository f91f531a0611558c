"""Alembic's environment: runs on the connection :func:`caltrop.store.database.migrate` passes,
in batch mode on SQLite (which alters tables by copying them)."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from caltrop.store.models import Base


def run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


_connection = context.config.attributes.get("connection")
if not isinstance(_connection, Connection):
    raise RuntimeError("caltrop's migrations run through caltrop.store.database.migrate")
run(_connection)
