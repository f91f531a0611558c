"""SQLite checkpoints off the commit path (issue 11's p99: a commit that also checkpointed the
write-ahead log took 380 ms under load, and every command waited behind it)."""

from __future__ import annotations

import time
from pathlib import Path

from sqlalchemy import Engine, text

from caltrop.store import open_database
from caltrop.store.checkpoint import Checkpointer, checkpoint

PAGE = 4096


def fill(engine: Engine, pages: int) -> None:
    """Commit one row of about a page ``pages`` times."""
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE IF NOT EXISTS filler (body TEXT)")
    for _ in range(pages):
        with engine.begin() as connection:
            connection.execute(text("INSERT INTO filler VALUES (:b)"), {"b": "x" * PAGE})


def wal_pages(path: Path) -> int:
    wal = path.with_name(path.name + "-wal")
    return wal.stat().st_size // PAGE if wal.exists() else 0


def test_by_default_a_commit_checkpoints_a_long_log(tmp_path: Path) -> None:
    path = tmp_path / "auto.db"
    engine = open_database(f"sqlite:///{path}")
    fill(engine, 1500)
    # the commit past 1,000 pages copied the log into the file and the log started again
    assert checkpoint(engine)[1] < 1000
    engine.dispose()


def test_a_serving_database_leaves_checkpoints_to_its_checkpointer(tmp_path: Path) -> None:
    path = tmp_path / "served.db"
    engine = open_database(f"sqlite:///{path}", autocheckpoint=False)
    fill(engine, 1500)
    assert wal_pages(path) > 1500  # no commit checkpointed: the log holds every page
    busy, logged, copied = checkpoint(engine)
    assert busy == 0
    assert logged > 1500
    assert copied == logged  # all of it is in the database file now
    fill(engine, 10)  # the next writer starts the log from its beginning
    assert checkpoint(engine)[1] < 100
    engine.dispose()


def test_the_checkpointer_checkpoints_in_its_thread_until_stopped(tmp_path: Path) -> None:
    path = tmp_path / "thread.db"
    engine = open_database(f"sqlite:///{path}", autocheckpoint=False)
    fill(engine, 300)
    checkpointer = Checkpointer(engine, every=0.05)
    checkpointer.start()
    try:
        deadline = time.monotonic() + 10
        while checkpointer.runs < 1:
            assert time.monotonic() < deadline
            time.sleep(0.01)
    finally:
        checkpointer.stop()
    runs = checkpointer.runs
    fill(engine, 1)  # after the thread's checkpoint the log starts again: 1 page, not 301
    assert checkpoint(engine)[1] < 10
    time.sleep(0.2)
    assert checkpointer.runs == runs  # stopped
    engine.dispose()
