"""SQLite checkpoints off the commit path (issue 11's p99).

In WAL mode a commit appends to the write-ahead log; by default the commit that takes the log
past 1,000 pages also *checkpoints* it — copies its pages into the database file and syncs that
to disk — before it returns. Under the load test one such commit took 380 ms, and every command
of the server waited behind it (the appends are committed one batch at a time). A serving
process opens its database with that switched off (:func:`caltrop.store.open_database`'s
``autocheckpoint=False``) and checkpoints here instead, in a thread of its own every
:data:`CHECKPOINT_SECONDS`: a ``PASSIVE`` checkpoint copies what no reader still needs without
taking the writers' lock, so commits go on meanwhile, and the next writer after a complete one
starts the log again from its beginning (it does not grow without bound).
"""

from __future__ import annotations

import threading
from typing import Final

from sqlalchemy import Engine

#: How often the serving process checkpoints its SQLite write-ahead log.
CHECKPOINT_SECONDS: Final = 1.0


def checkpoint(engine: Engine) -> tuple[int, int, int]:
    """One ``PASSIVE`` checkpoint: (1 if it could not finish, pages in the log, pages copied)."""
    with engine.connect() as connection:
        row = connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").one()
    busy, logged, copied = (int(x) for x in row)
    return busy, logged, copied


class Checkpointer:
    """Checkpoints an SQLite database every :data:`CHECKPOINT_SECONDS` in a daemon thread."""

    def __init__(self, engine: Engine, every: float = CHECKPOINT_SECONDS) -> None:
        self._engine = engine
        self._every = every
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        #: checkpoints made (for tests)
        self.runs = 0

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="caltrop-checkpoint", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            try:
                checkpoint(self._engine)
            except Exception:  # a missed checkpoint is made next time
                continue
            self.runs += 1
