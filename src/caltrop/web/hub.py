"""The sockets of each table, and the messages broadcast to them (in this process)."""

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

    def subscribe(self, seat: Seat) -> Subscriber:
        subscriber = Subscriber(seat)
        self._tables.setdefault(seat.table_id, set()).add(subscriber)
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        subscribers = self._tables.get(subscriber.seat.table_id)
        if subscribers is not None:
            subscribers.discard(subscriber)
            if not subscribers:
                del self._tables[subscriber.seat.table_id]

    def subscribers(self, table_id: str) -> list[Subscriber]:
        return list(self._tables.get(table_id, ()))
