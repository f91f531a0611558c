"""The databases the store and server tests run on: SQLite in ``tmp_path`` always, and
PostgreSQL when ``CALTROP_TEST_PG_URL`` names one (its ``public`` schema is emptied per test)."""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import Connection, create_engine, text
from sqlalchemy.exc import OperationalError

PG_URL = os.environ.get("CALTROP_TEST_PG_URL")
BACKENDS = ["sqlite", *(["postgresql"] if PG_URL else [])]
#: how long emptying the schema waits for another session's locks before it names them
LOCK_WAIT = "20s"
#: PostgreSQL's SQLSTATE for a lock not granted in time (the message text is translated)
LOCK_NOT_AVAILABLE = "55P03"


def fresh_url(backend: str, tmp_path: Path) -> str:
    """An empty database of ``backend`` for one test.

    On PostgreSQL, ``DROP SCHEMA`` waits for every lock on the schema's tables: a session an
    earlier test left inside a transaction (a server process not stopped, a connection not
    given back) would make it wait for ever, and the whole run with it. It waits
    :data:`LOCK_WAIT`, then ends those sessions and fails this test naming them (pid,
    application, state, last query), so the run goes on and says what was left behind."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'caltrop.db'}"
    assert PG_URL is not None
    engine = create_engine(PG_URL)
    try:
        try:
            with engine.begin() as connection:
                _empty(connection)
        except OperationalError as exc:
            if getattr(exc.orig, "sqlstate", None) != LOCK_NOT_AVAILABLE:
                raise
            with engine.begin() as connection:
                left = _end_holders(connection)
            with engine.begin() as connection:
                _empty(connection)
            raise AssertionError(
                f"emptying the test database waited {LOCK_WAIT} on sessions an earlier test "
                f"left in a transaction (now ended): {left}"
            ) from exc
    finally:
        engine.dispose()
    return PG_URL


def _empty(connection: Connection) -> None:
    connection.execute(text(f"SET LOCAL lock_timeout = '{LOCK_WAIT}'"))
    connection.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
    connection.execute(text("CREATE SCHEMA public"))


def _end_holders(connection: Connection) -> list[dict[str, object]]:
    """End the other sessions on this database that are inside a transaction (waiting up to
    5 s for each to go); say which. Another role's sessions show no transaction to a role
    that is not a superuser (``state`` NULL): they are named too, and ended where allowed."""
    rows = connection.execute(
        text(
            "SELECT pid, application_name, state, left(query, 200) AS query,"
            " CASE WHEN xact_start IS NOT NULL THEN pg_terminate_backend(pid, 5000) END"
            " AS ended FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            " AND (xact_start IS NOT NULL OR state IS NULL)"
        )
    )
    return [dict(row._mapping) for row in rows]
