"""Each table's one sequencer in this process (issue 20, "the live stream is lossless and
ordered"): every socket of a table is told every event it may see exactly once, in seq order,
with no gap, whatever the concurrency and whichever process committed it.

Nothing is sent from a command's own handler. A change only *pokes* the table's stream (a
command committed here, a notification or poll of another process's commit, a client's hello,
a visibility change); the stream then reads, from one state of the encounter, the events after
the last seq its sockets were told up to that state's head, and sends them and the views that
follow. Handlers finishing out of seq order therefore cannot skip or reorder anything: the
stream never sends seq s before s − 1, and a gap (another process's commit not yet notified)
is filled from that same read. Pokes that arrive while a step runs are folded into the next
step, so 50 commands released together cost a few steps, not 50 broadcasts.

The protocol a socket sees (``WS /ws``): after ``{"hello": {"last_seq": N}}``, an
``{"type": "events", "events": [{seq, event}…]}`` message with every event after N (in
messages of at most :data:`MAX_EVENTS_MESSAGE`), then ``{"type": "view"}``; then each change
as events then views; ``{"type": "encounter", "encounter": ID}`` when the table goes on to its
next encounter (seqs start again at 0, and its events follow from its first). A client that
sees a gap anyway (it cannot happen on this path) says hello again with its last seq.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any, Final

import orjson
from starlette.concurrency import run_in_threadpool

from caltrop.store.repository import Seat
from caltrop.store.service import Batch, Tables
from caltrop.web.subscriber import Outgoing, Subscriber

#: at most this many events in one socket message (a hello far behind gets several)
MAX_EVENTS_MESSAGE: Final = 500

log = logging.getLogger(__name__)
#: the events of a viewer a batch lists none for (one list, so its id keys one entry)
_NO_EVENTS: Final[list[dict[str, Any]]] = []


class TableStream:
    """The sockets of one table in this process and how far each was told."""

    def __init__(self, table_id: str, service: Tables) -> None:
        self.table_id = table_id
        self.service = service
        self.subscribers: set[Subscriber] = set()
        #: the encounter and the last seq the joined sockets were told up to
        self.encounter_id: int | None = None
        self.head = -1
        #: each viewer's last view sent, encoded (a view that did not change is not sent)
        self._views: dict[str, bytes] = {}
        self._dirty = False
        self._fresh = False
        self._running = False

    @property
    def busy(self) -> bool:
        """A step is under way (the stream is kept while it finishes)."""
        return self._running

    async def poke(self, *, fresh: bool = False) -> None:
        """Something may have changed: tell the sockets. ``fresh``: ask the database where the
        table is (another process's commit, a new encounter, a visibility change). A poke made
        while a step runs is folded into the next one; only one step runs at a time."""
        self._dirty = True
        self._fresh = self._fresh or fresh
        if self._running:
            return
        self._running = True
        try:
            while self._dirty:
                self._dirty = False
                fresh, self._fresh = self._fresh, False
                try:
                    await self._step(fresh)
                except Exception:
                    log.exception("telling the sockets of table %s failed", self.table_id)
                    self._fresh = True  # the next poke reads the database again
                    return
        finally:
            self._running = False

    def join(self, subscriber: Subscriber, last_seq: int, encounter_id: int | None) -> None:
        """A hello: the next step tells ``subscriber`` every event after ``last_seq`` (of
        ``encounter_id``, or of the encounter it was told of), then its view."""
        subscriber.state = "joining"
        subscriber.hellos += 1
        subscriber.last_seq = last_seq
        if encounter_id is not None:
            subscriber.encounter_id = encounter_id

    def revoke(self, seat_ids: Iterable[int], message: Outgoing) -> None:
        """The sockets of revoked seats get ``message``, which ends them."""
        ids = set(seat_ids)
        for subscriber in self.subscribers:
            if subscriber.seat.id in ids:
                subscriber.put(message)

    async def _step(self, fresh: bool) -> None:
        telling = [s for s in self.subscribers if s.state != "waiting"]
        if not telling:
            return
        hellos = {id(s): s.hellos for s in telling}
        joining = [s for s in telling if s.state == "joining"]
        fresh = fresh or bool(joining) or self.encounter_id is None
        viewers = {s.viewer for s in telling}
        batch = await self._read(self.head, viewers, fresh)
        need = min((self._after(s, batch) for s in telling if s.events), default=batch.after)
        if need < batch.after:  # a hello from further back than the stream
            batch = await self._read(need, viewers, fresh)
        views = self._views_of(batch)
        told: dict[tuple[int, int], list[Outgoing]] = {}
        for subscriber in telling:
            if subscriber.hellos != hellos[id(subscriber)] or subscriber not in self.subscribers:
                continue  # said hello again, or gone, meanwhile: the next step tells it
            self._tell(subscriber, batch, views, told)
        self.encounter_id, self.head = batch.encounter_id, batch.head

    async def _read(self, after: int, viewers: set[str], fresh: bool) -> Batch:
        """One read of the table (in a worker thread); views are worked out when there are
        new events, and on a fresh read (a hello, a visibility change, another process). Not
        in the event loop, though the views' work holds the interpreter's lock either way:
        while a step's read runs, the loop takes the next commands, whose pokes fold into the
        next step (one table at 81 commands/s: p50 87 ms in a thread, 215 ms in the loop, at
        the same load; issue 20 §5)."""
        return await run_in_threadpool(
            lambda: self.service.batch(
                self.table_id, self.encounter_id, after, viewers, fresh=fresh, force_views=fresh
            )
        )

    @staticmethod
    def _after(subscriber: Subscriber, batch: Batch) -> int:
        """The last seq of ``batch``'s encounter the subscriber was told (-1: none of it); a
        hello that names no encounter means the table's current one."""
        known = subscriber.encounter_id
        if (known is not None and known != batch.encounter_id) or subscriber.last_seq > batch.head:
            return -1
        return subscriber.last_seq

    def _views_of(self, batch: Batch) -> dict[str, tuple[Outgoing, bool]]:
        """Each viewer's view message (encoded once for all its sockets) and whether it
        changed since it was last sent."""
        out: dict[str, tuple[Outgoing, bool]] = {}
        for viewer, data in batch.views.items():
            encoded = orjson.dumps(data)
            text = '{"type":"view","view":' + encoded.decode() + "}"
            out[viewer] = (
                Outgoing({"type": "view", "view": data}, text),
                (self._views.get(viewer) != encoded),
            )
            self._views[viewer] = encoded
        return out

    def _tell(
        self,
        subscriber: Subscriber,
        batch: Batch,
        views: dict[str, tuple[Outgoing, bool]],
        told: dict[tuple[int, int], list[Outgoing]],
    ) -> None:
        """Queue for ``subscriber`` what it was not told of ``batch``. ``told``: the events
        messages of this step so far, by the viewer's list of events and where the socket's
        part of it starts: the sockets that see the events alike (every player, each GM
        screen) share one message, encoded once."""
        joining = subscriber.state == "joining"
        known = subscriber.encounter_id
        after = self._after(subscriber, batch)
        moved = known is not None and known != batch.encounter_id
        if moved or subscriber.last_seq > batch.head:
            # the table went on to its next encounter (or a hello names a seq beyond this
            # log: one of an encounter before): seqs start again, from this log's first
            subscriber.put({"type": "encounter", "encounter": batch.encounter_id})
        if subscriber.events:
            listed = batch.shown.get(subscriber.viewer, _NO_EVENTS)
            skip = after - batch.after if after >= batch.after else 0
            key = (id(listed), skip)  # the lists live as long as the batch, this whole step
            messages = told.get(key)
            if messages is None:
                fresh = listed[skip:]
                messages = told[key] = [
                    Outgoing(
                        {"type": "events", "events": fresh[start : start + MAX_EVENTS_MESSAGE]}
                    )
                    for start in range(0, len(fresh), MAX_EVENTS_MESSAGE)
                ]
            for message in messages:
                subscriber.put(message)
        view = views.get(subscriber.viewer)
        if view is not None and (joining or moved or view[1]):
            subscriber.put(view[0])
        subscriber.encounter_id, subscriber.last_seq = batch.encounter_id, batch.head
        subscriber.state = "joined"


class Hub:
    """The tables with sockets open in this process, each with its :class:`TableStream`."""

    def __init__(self, service: Tables) -> None:
        self._service = service
        self._streams: dict[str, TableStream] = {}

    def subscribe(self, seat: Seat, token: str = "", *, events: bool = True) -> Subscriber:
        subscriber = Subscriber(seat, token, events=events)
        stream = self._streams.get(seat.table_id)
        if stream is None:
            stream = self._streams[seat.table_id] = TableStream(seat.table_id, self._service)
        stream.subscribers.add(subscriber)
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        stream = self._streams.get(subscriber.seat.table_id)
        if stream is not None:
            stream.subscribers.discard(subscriber)
            if not stream.subscribers:
                del self._streams[subscriber.seat.table_id]

    def stream(self, table_id: str) -> TableStream | None:
        """The table's stream, None if no socket of it is open here."""
        return self._streams.get(table_id)

    async def poke(self, table_id: str, *, fresh: bool = False) -> None:
        """Tell the table's sockets here what changed (nothing if it has none)."""
        stream = self._streams.get(table_id)
        if stream is not None:
            await stream.poke(fresh=fresh)

    def tell(self, table_id: str, message_for: Callable[[Subscriber], Outgoing | None]) -> None:
        """Queue for each socket of the table here the message ``message_for`` gives it (None:
        nothing), outside the stream's seq order (the chance of winning, issue 23 item 4)."""
        stream = self._streams.get(table_id)
        for subscriber in list(stream.subscribers) if stream is not None else []:
            message = message_for(subscriber)
            if message is not None:
                subscriber.put(message)

    def subscribers(self, table_id: str) -> list[Subscriber]:
        stream = self._streams.get(table_id)
        return list(stream.subscribers) if stream is not None else []

    def tables(self) -> list[str]:
        """The tables with at least one socket open here."""
        return list(self._streams)

    def where(self, table_id: str) -> tuple[int, int] | None:
        """How far the table's sockets here were told: (encounter id, seq), None before any."""
        stream = self._streams.get(table_id)
        if stream is None or stream.encounter_id is None:
            return None
        return stream.encounter_id, stream.head
