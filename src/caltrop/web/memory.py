"""Memory a finished socket or request freed goes back to the system (issue 20 §2: "2,000
sockets opened then closed leave RSS near where it started").

Two things keep a closed socket's memory from the system, measured on ``caltrop serve`` (200
tables, their sockets opened 200 at a time, a hello each, and closed, ten rounds back to back:
RSS 164 → 199 MB, and on by 3–10 MB a round):

* its objects form reference cycles, which only the cyclic collector frees; a socket lives long
  enough for them to reach the oldest generation, and a serving process runs its full pass
  rarely (:mod:`caltrop.web.collector`, for short pauses under load), so the garbage of closed
  sockets waits for it;
* what is freed goes back to glibc's ``malloc``, which keeps it in its heap and gives back to the
  system only a free stretch at the heap's very top — the objects that stay (other tables'
  states, the server's own) sit between the holes. ``malloc_trim(0)`` returns every free page.

:class:`Trimmer` runs a moment after a socket closes or a request ends: a collection, then
``malloc_trim(0)`` (the same ten rounds: 155 → 161 MB). The collection is of the young and
middle generations (``gc.collect(1)``, a few milliseconds) unless at least
:data:`FULL_PASS_SOCKETS` sockets, and at least as many as are still open, closed since the last
full pass — then it is the full pass (60–80 ms with 200 tables), so its cost is always shared by
as many closed sockets as it walks live ones. It runs :data:`TRIM_SECONDS` after the first call
and then waits for the next one, so a burst of closes costs one run and a busy server one every
few seconds. Where the C library has no ``malloc_trim`` (musl, macOS) only the collection runs.
"""

from __future__ import annotations

import asyncio
import ctypes
import gc
from collections.abc import Callable
from typing import Final

#: how long after the first finished socket or request the run comes, and so the least time
#: between two runs (the sockets of a closing table, or a burst of requests, share one)
TRIM_SECONDS: Final = 3.0
#: the fewest sockets closed since the last full pass that make the next run a full pass
FULL_PASS_SOCKETS: Final = 100


def _malloc_trim() -> Callable[[], object] | None:
    """glibc's ``malloc_trim(0)``, or None where the C library has none."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return lambda: trim(0)


#: this C library's trim, looked up once (None where there is none)
MALLOC_TRIM: Final = _malloc_trim()


class Trimmer:
    """Collects garbage and trims the C heap :data:`TRIM_SECONDS` after :meth:`soon` is first
    called (see the module docstring), then waits for the next call. ``trim`` is the C
    library's (None: collect only); ``collect`` is :func:`gc.collect`."""

    def __init__(
        self,
        trim: Callable[[], object] | None = MALLOC_TRIM,
        seconds: float = TRIM_SECONDS,
        collect: Callable[[int], object] = gc.collect,
    ) -> None:
        self._trim = trim
        self._collect = collect
        self.seconds = seconds
        self._pending: asyncio.TimerHandle | None = None
        #: sockets open now, and closed since the last full pass
        self.open_sockets = 0
        self.closed_sockets = 0
        #: how many runs there were, and how many of them full passes
        self.runs = 0
        self.full_passes = 0

    def opened(self) -> None:
        """A socket opened."""
        self.open_sockets += 1

    def closed(self) -> None:
        """A socket closed: its memory comes back soon."""
        self.open_sockets -= 1
        self.closed_sockets += 1
        self.soon()

    def soon(self) -> None:
        """Something finished: run within :attr:`seconds` (once for every call until then).
        Called from the event loop."""
        if self._pending is None:
            self._pending = asyncio.get_running_loop().call_later(self.seconds, self.run)

    def run(self) -> None:
        """Collect, then trim (now)."""
        self._pending = None
        full = self.closed_sockets >= max(FULL_PASS_SOCKETS, self.open_sockets)
        self._collect(2 if full else 1)
        if full:
            self.closed_sockets = 0
            self.full_passes += 1
        if self._trim is not None:
            self._trim()
        self.runs += 1
