"""A mapping that keeps only its most recently used entries (issue 20 §2: "memory comes back").

The table service keeps each encounter's state in memory so that a command needs no replay; a
server that has opened thousands of tables would otherwise keep every one of them for ever. An
:class:`LRU` holds at most ``bound`` entries: using one (``get``, ``setdefault``, setting it)
makes it the newest, and adding one past the bound forgets the oldest — which the service then
rebuilds from the database the next time it is used (a replay of its log, checked as
``caltrop replay`` checks it). Not thread-safe on its own: the service holds its cache lock
around every call, as it did around the dict this replaces.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LRU(Generic[K, V]):
    """At most ``bound`` entries, the least recently used forgotten first."""

    def __init__(self, bound: int) -> None:
        if bound < 1:
            raise ValueError("an LRU holds at least one entry")
        self.bound = bound
        self._entries: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        return value

    def setdefault(self, key: K, value: V) -> V:
        """The entry of ``key`` if there is one (now the newest), else ``value``, added."""
        known = self.get(key)
        if known is not None:
            return known
        self[key] = value
        return value

    def __setitem__(self, key: K, value: V) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.bound:
            self._entries.popitem(last=False)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)
