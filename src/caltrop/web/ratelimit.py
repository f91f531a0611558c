"""How often one client address may open a table (issue 20 §2): a token bucket per address.

Opening a table writes a table, its seats and its encounter to the database, and a stranger who
can reach the port could otherwise fill the disk in a loop. A GM opens a handful of tables a
night; a club behind one address a few dozen, so the bucket holds ``burst`` tables and refills at
``per_minute``. The buckets themselves are bounded: a full bucket is the same as no bucket, so
full ones are dropped, and past :data:`MAX_ADDRESSES` the longest-unused address is forgotten
(it starts again with a full bucket, which only ever lets a stranger in sooner, never a GM
later).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

#: the addresses whose buckets are remembered at once
MAX_ADDRESSES: Final = 10_000


@dataclass(frozen=True, slots=True)
class Refill:
    """A refused take: how many whole seconds until the address may open a table again."""

    retry_after: int


class TokenBucket:
    """Per address: at most ``burst`` tables at once, then ``per_minute`` a minute. A
    ``per_minute`` of 0 with a ``burst`` of 0 means no limit (for benchmarks and tests that
    open hundreds of tables from one address)."""

    def __init__(
        self,
        burst: int,
        per_minute: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if burst < 0 or per_minute < 0:
            raise ValueError("burst and per_minute are 0 or more")
        self.burst = burst
        self.per_second = per_minute / 60
        self.unlimited = burst == 0 and per_minute == 0
        self._clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, address: str) -> Refill | None:
        """Take one table for ``address``: None if it may, else when it may again."""
        if self.unlimited:
            return None
        now = self._clock()
        with self._lock:
            tokens = self._level(address, now)
            if tokens >= 1:
                self._buckets[address] = (tokens - 1, now)
                self._buckets.move_to_end(address)
                self._bound(now)
                return None
            self._buckets[address] = (tokens, now)
            self._buckets.move_to_end(address)
        if self.per_second == 0:
            return Refill(retry_after=86_400)  # a burst and no refill: a day is "not soon"
        return Refill(retry_after=max(1, math.ceil((1 - tokens) / self.per_second)))

    def give_back(self, address: str) -> None:
        """A take of ``address`` that opened no table after all (the route refused it): one
        table back, never past the burst."""
        if self.unlimited:
            return
        with self._lock:
            known = self._buckets.get(address)
            if known is not None:
                tokens, then = known
                self._buckets[address] = (min(float(self.burst), tokens + 1), then)

    def addresses(self) -> int:
        """How many addresses have a bucket remembered (bounded by :data:`MAX_ADDRESSES`)."""
        return len(self._buckets)

    def _level(self, address: str, now: float) -> float:
        known = self._buckets.get(address)
        if known is None:
            return float(self.burst)
        tokens, then = known
        return min(float(self.burst), tokens + (now - then) * self.per_second)

    def _bound(self, now: float) -> None:
        if len(self._buckets) <= MAX_ADDRESSES:
            return
        for address in [a for a in self._buckets if self._level(a, now) >= self.burst]:
            del self._buckets[address]
        while len(self._buckets) > MAX_ADDRESSES:
            self._buckets.popitem(last=False)
