"""One open socket of a table and the messages waiting for it (issue 20: bounded, each message
encoded once for every socket it goes to)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import orjson

from caltrop.store.repository import Seat
from caltrop.store.service import viewer_of

#: messages waiting for one socket before it counts as gone (a client that stopped reading):
#: the socket is closed (:data:`BEHIND`) and its client catches up by ``hello`` (issue 20)
QUEUE_BOUND: Final = 256
#: the close code of a socket that fell :data:`QUEUE_BOUND` messages behind
BEHIND: Final = 4008


class Outgoing:
    """One message for many sockets: encoded once, whoever sends it first (a view is ~6 KB
    and a table's sockets get the same one per viewer)."""

    __slots__ = ("_text", "data", "memo")

    def __init__(self, data: Mapping[str, Any], text: str | None = None) -> None:
        self.data = data
        self._text = text
        #: what a screen made of it once, for all its sockets (a screen's HTML)
        self.memo: dict[str, str] = {}

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = orjson.dumps(self.data).decode()
        return self._text

    @property
    def kind(self) -> str:
        return str(self.data.get("type", ""))


@dataclass(eq=False)
class Subscriber:
    """One open socket: its seat, what it has been told, and the queue of messages waiting to
    be sent to it (bounded: past :data:`QUEUE_BOUND` it is marked ``behind`` and closed).

    ``state``: ``waiting`` for the client's hello (told nothing yet), ``joining`` (its hello
    came: the stream's next step tells it the events after ``last_seq`` and a view), ``joined``
    (told every event up to ``last_seq`` of ``encounter_id``). ``events`` False: a screen
    socket, which renders views and is told no events."""

    seat: Seat
    #: the token the socket opened with (each command over it checks the seat again)
    token: str = ""
    events: bool = True
    state: Literal["waiting", "joining", "joined"] = "waiting"
    encounter_id: int | None = None
    last_seq: int = -1
    #: how many hellos it said (a step leaves alone a socket that said hello meanwhile)
    hellos: int = 0
    #: a JSON socket whose hello asked for the chance of winning (issue 23 item 4)
    chance: bool = False
    queue: asyncio.Queue[Outgoing] = field(default_factory=lambda: asyncio.Queue(QUEUE_BOUND))
    behind: asyncio.Event = field(default_factory=asyncio.Event)
    #: the event loop the socket is served on (the one its queue wakes), where there is one
    loop: asyncio.AbstractEventLoop | None = field(default_factory=lambda: _running_loop())

    @property
    def viewer(self) -> str:
        return viewer_of(self.seat)

    def put(self, message: Outgoing | Mapping[str, Any]) -> None:
        """Queue ``message``; a full queue marks the socket ``behind`` (it is then closed, and
        nothing more is queued for it).

        From another thread or event loop (a worker thread; a test client's request, which
        runs on a loop of its own) the socket's own loop queues it: an asyncio queue is not
        thread-safe, and a put from elsewhere left the socket's sender asleep with the
        message in its queue (two CI runs hung so, waiting for a screen)."""
        item = message if isinstance(message, Outgoing) else Outgoing(message)
        loop = self.loop
        if loop is not None and _running_loop() is not loop:
            with contextlib.suppress(RuntimeError):  # its loop closed: the socket is gone
                loop.call_soon_threadsafe(self._put, item)
            return
        self._put(item)

    def _put(self, item: Outgoing) -> None:
        if self.behind.is_set():
            return
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:
            self.behind.set()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running in this thread, or None."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
