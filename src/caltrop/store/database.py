"""Opening the database: the default SQLite file, its pragmas, write transactions that take
the lock up front, and the migrations applied on start."""

from __future__ import annotations

import importlib.resources
from pathlib import Path
from typing import Any, Final, Literal

import platformdirs
from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

#: How long a writer waits for another's lock on SQLite before it gives up (milliseconds).
BUSY_TIMEOUT_MS: Final = 10_000
#: The execution option that marks a connection as a writer (``BEGIN IMMEDIATE`` on SQLite).
WRITE: Final = "caltrop_write"


def default_url() -> str:
    """One SQLite file in the user's data directory (Linux: ``~/.local/share/caltrop``)."""
    folder = platformdirs.user_data_path("caltrop", appauthor=False)
    return f"sqlite:///{folder / 'caltrop.db'}"


def open_database(
    url: str | None = None,
    *,
    migrate_now: bool = True,
    autocheckpoint: bool = True,
    synchronous: Literal["full", "normal"] = "full",
) -> Engine:
    """An engine on ``url`` (default: :func:`default_url`), migrated to the newest schema.

    SQLite gets WAL mode, a busy timeout and foreign keys, and its write transactions begin
    with ``BEGIN IMMEDIATE`` (the write lock up front, so two writers never both read a head
    and then race to append). ``autocheckpoint=False``: no commit checkpoints the write-ahead
    log; the caller does (:class:`caltrop.store.checkpoint.Checkpointer`). ``synchronous``:
    ``"full"`` (the default) — a commit returns once the log is on disk; ``"normal"`` — once it
    is in the log, which the operating system writes out: a commit survives the process's
    crash or kill (the write-ahead log is never left half-written), and a power cut may take
    back the last commits before the next checkpoint (SQLite's own advice for WAL mode; what
    the table server uses, so that a busy disk's sync does not hold every command).
    """
    url = url or default_url()
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})
        _sqlite_setup(engine, autocheckpoint=autocheckpoint, synchronous=synchronous)
    else:
        engine = create_engine(url, pool_pre_ping=True)
    if migrate_now:
        migrate(engine)
    return engine


def _sqlite_setup(
    engine: Engine,
    *,
    autocheckpoint: bool = True,
    synchronous: Literal["full", "normal"] = "full",
) -> None:
    """SQLAlchemy's recipe for SQLite transactions: pysqlite's own BEGIN is switched off and
    the engine emits ``BEGIN`` (readers) or ``BEGIN IMMEDIATE`` (writers) itself."""

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA synchronous={synchronous.upper()}")
        if not autocheckpoint:
            cursor.execute("PRAGMA wal_autocheckpoint=0")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        immediate = connection.get_execution_options().get(WRITE, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def migrate(engine: Engine) -> None:
    """Apply every Alembic migration the database lacks (batch mode on SQLite)."""
    location = importlib.resources.files("caltrop.store") / "migrations"
    config = Config()
    config.set_main_option("script_location", str(location))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
