"""The sockets of each table in this process, and how far each table's sockets have been told."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from caltrop.store.repository import Seat


@dataclass(eq=False)
class Subscriber:
    """One open socket: its seat and the queue of messages waiting to be sent to it."""

    seat: Seat
    queue: asyncio.Queue[Mapping[str, Any]] = field(default_factory=asyncio.Queue)


class Hub:
    def __init__(self) -> None:
        self._tables: dict[str, set[Subscriber]] = {}
        #: per table with sockets: (encounter id, seq) of the last event its sockets were told
        self._told: dict[str, tuple[int, int]] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def subscribe(self, seat: Seat) -> Subscriber:
        subscriber = Subscriber(seat)
        self._tables.setdefault(seat.table_id, set()).add(subscriber)
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        table_id = subscriber.seat.table_id
        subscribers = self._tables.get(table_id)
        if subscribers is not None:
            subscribers.discard(subscriber)
            if not subscribers:
                del self._tables[table_id]
                self._told.pop(table_id, None)
                self._locks.pop(table_id, None)

    def subscribers(self, table_id: str) -> list[Subscriber]:
        return list(self._tables.get(table_id, ()))

    def tables(self) -> list[str]:
        """The tables with at least one socket open here."""
        return list(self._tables)

    def told(self, table_id: str) -> tuple[int, int] | None:
        """How far the table's sockets were told: (encounter id, seq), None before any hello."""
        return self._told.get(table_id)

    def tell(self, table_id: str, encounter_id: int, seq: int) -> None:
        """Note that the table's sockets were told up to ``seq`` of ``encounter_id`` (a later
        encounter replaces an earlier; within one, the furthest seq stays)."""
        if table_id not in self._tables:
            return
        known = self._told.get(table_id)
        if (
            known is None
            or encounter_id > known[0]
            or (encounter_id == known[0] and seq > known[1])
        ):
            self._told[table_id] = (encounter_id, seq)

    def lock(self, table_id: str) -> asyncio.Lock:
        """One at a time per table: telling its sockets about changes, in order."""
        return self._locks.setdefault(table_id, asyncio.Lock())
