"""Listening for table changes committed by other processes (PostgreSQL ``LISTEN``).

Every change of a table is notified on :data:`~caltrop.store.repository.CHANNEL` inside its
transaction (PostgreSQL delivers a notification when, and only when, its transaction commits).
A :class:`Listener` holds one connection of its own in a thread, waits on it, and hands each
notification's table id and kind to a callback; it reconnects if the connection drops.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from typing import Final

import psycopg
from sqlalchemy import Engine

from caltrop.store.repository import CHANNEL

#: How often the listening thread looks up from its wait to see whether it should stop.
WAKE_SECONDS: Final = 0.5
#: How long it waits before reconnecting after the connection dropped.
RECONNECT_SECONDS: Final = 1.0

log = logging.getLogger(__name__)


def can_listen(engine: Engine) -> bool:
    """Whether the database sends notifications (PostgreSQL); SQLite does not."""
    return engine.dialect.name == "postgresql"


class Listener:
    """A thread that calls ``on_change(table_id, kind)`` for every committed table change."""

    def __init__(self, engine: Engine, on_change: Callable[[str, str], None]) -> None:
        # the engine's URL as libpq reads it (the driver's name dropped), password included
        self._conninfo = engine.url.set(drivername="postgresql").render_as_string(
            hide_password=False
        )
        self._on_change = on_change
        self._stop = threading.Event()
        self._listening = threading.Event()
        self._thread = threading.Thread(target=self._run, name="caltrop-listen", daemon=True)

    def start(self, timeout: float = 10.0) -> None:
        """Start listening; returns once ``LISTEN`` is in place (so nothing later is missed)."""
        self._thread.start()
        self._listening.wait(timeout)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                with psycopg.connect(self._conninfo, autocommit=True) as connection:
                    connection.execute(f"LISTEN {CHANNEL}")
                    self._listening.set()
                    while not self._stop.is_set():
                        for notify in connection.notifies(timeout=WAKE_SECONDS):
                            self._dispatch(notify.payload)
            except psycopg.Error as exc:  # the server went away: try again shortly
                log.warning("table notifications: %s; reconnecting", exc)
                self._stop.wait(RECONNECT_SECONDS)

    def _dispatch(self, payload: str) -> None:
        try:
            data = json.loads(payload)
            table_id, kind = str(data["table"]), str(data["kind"])
        except (ValueError, KeyError, TypeError):
            log.warning("table notifications: an unreadable payload %r", payload[:100])
            return
        self._on_change(table_id, kind)
