"""The builder's difficulty computations, off the event loop and superseded by newer changes
(issue 23 item 3: the panel "refreshes after each change, cancelled when a newer change comes").

Each builder page holds a session key. Every request for a computation of that key takes a
ticket, and a newer request's ticket supersedes the older one's: the older computation is asked
at each of its steps whether it is still wanted (``assess``'s and ``vary``'s progress callback,
called between chunks of encounters) and stops there with :class:`SupersededError`; an answer
that finishes after all the same is dropped, never sent. The client's ``hx-sync`` replace aborts
the older request too; the server does not rely on hearing of that.

The computations run one at a time, on one worker thread of their own: the compiled kernels'
numba threads are not to be launched from two Python threads at once, and a two-core machine
gains nothing from a second. A superseded computation gives the thread up at its next step, so
the newest request of each session waits for one step of an older one at most, plus whatever
other sessions asked first; at most :data:`MAX_WAITING` computations wait or run at once, and a
request past them is refused (429, :class:`~caltrop.errors.BusyError`), so that a stranger's
loop queues nothing.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Final, TypeVar

from caltrop.errors import BusyError, SupersededError
from caltrop.store.lru import LRU

T = TypeVar("T")
#: builder sessions whose latest ticket is remembered (an older one's runs are all superseded)
MAX_SESSIONS: Final = 1_000
#: computations waiting for the thread or running, at most: a page's newer request supersedes
#: its older one, so this is a few builder pages at once (beyond it: 429, nothing queued)
MAX_WAITING: Final = 4

#: ``still_wanted()``: raises :class:`SupersededError` once a newer request took the session
StillWanted = Callable[[], None]


class Runs:
    """The tickets of each builder session, and the worker thread the computations run on."""

    def __init__(self, sessions: int = MAX_SESSIONS) -> None:
        self._latest: LRU[str, int] = LRU(sessions)
        self._lock = threading.Lock()
        self._issued = 0
        self._waiting = 0
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="caltrop-builder")
        #: how many computations stopped early or had their answer dropped (for tests, logs)
        self.superseded = 0

    def ticket(self, session: str) -> int:
        """A new ticket for ``session``: every older one of it is superseded from now."""
        with self._lock:
            self._issued += 1
            self._latest[session] = self._issued
            return self._issued

    def current(self, session: str, ticket: int) -> bool:
        with self._lock:
            return self._latest.get(session) == ticket

    async def run(self, session: str, work: Callable[[StillWanted], T]) -> T | None:
        """``work(still_wanted)`` on the worker thread; None when a newer request of
        ``session`` superseded it (stopped at a step, or its answer dropped)."""
        with self._lock:
            if self._waiting >= MAX_WAITING:
                raise BusyError(
                    f"the server is already working out {self._waiting} builder computations "
                    f"(at most {MAX_WAITING} at once); try again in a moment"
                )
            self._waiting += 1
        try:
            return await self._run(session, work)
        finally:
            with self._lock:
                self._waiting -= 1

    async def _run(self, session: str, work: Callable[[StillWanted], T]) -> T | None:
        ticket = self.ticket(session)

        def still_wanted() -> None:
            if not self.current(session, ticket):
                raise SupersededError("a newer change of this draft replaced this computation")

        def guarded() -> T | None:
            try:
                still_wanted()  # superseded while it waited for the thread: no work at all
                return work(still_wanted)
            except SupersededError:
                return None

        loop = asyncio.get_running_loop()
        answer = await loop.run_in_executor(self._executor, guarded)
        if answer is None or not self.current(session, ticket):
            with self._lock:
                self.superseded += 1
            return None
        return answer

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
