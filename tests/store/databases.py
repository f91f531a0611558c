"""The databases the store and server tests run on: SQLite in ``tmp_path`` always, and
PostgreSQL when ``CALTROP_TEST_PG_URL`` names one (its ``public`` schema is emptied per test)."""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import create_engine, text

PG_URL = os.environ.get("CALTROP_TEST_PG_URL")
BACKENDS = ["sqlite", *(["postgresql"] if PG_URL else [])]


def fresh_url(backend: str, tmp_path: Path) -> str:
    """An empty database of ``backend`` for one test."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'caltrop.db'}"
    assert PG_URL is not None
    engine = create_engine(PG_URL)
    with engine.begin() as connection:
        connection.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
        connection.execute(text("CREATE SCHEMA public"))
    engine.dispose()
    return PG_URL
