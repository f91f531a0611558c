"""Telling a table's sockets what changed: each its events as its seat may see them, then its
view (issue 11: only after the change is committed) — changes made by this process, and those
other processes committed (:mod:`caltrop.web.watch`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from starlette.concurrency import run_in_threadpool

from caltrop.store.service import Tables, Told, viewer_of
from caltrop.web.hub import Hub
from caltrop.web.seating import REVOKED


async def broadcast(
    hub: Hub,
    service: Tables,
    table_id: str,
    events: Sequence[tuple[int, Mapping[str, Any]]] = (),
    encounter_id: int | None = None,
    told: Told | None = None,
) -> None:
    """Tell every socket of the table the new ``events`` (of ``encounter_id``) as its seat may
    see them, then its view (one view per viewer, all from one read of the state, in one trip
    to a worker thread — or ``told``, worked out by the command that made the events; a socket
    whose viewer it lacks opened meanwhile and got its view from its hello). Events the
    sockets were already told are left out (another process's change may have been told
    first); clients drop any duplicate seq anyway."""
    subscribers = hub.subscribers(table_id)
    if not subscribers:
        return
    known = hub.told(table_id)
    if encounter_id is not None and known is not None and known[0] == encounter_id:
        new = [(seq, e) for seq, e in events if seq > known[1]]
        if events and not new:  # told already, views and all, by another path
            return
        if len(new) != len(events):  # partly told: what is left is worked out here
            events, told = new, None
    if encounter_id is not None and events:
        hub.tell(table_id, encounter_id, events[-1][0])
    if told is None:
        told = await run_in_threadpool(service.told, table_id, events, viewers(hub, table_id))
    shown, views = told
    if events:  # the events first, then the views
        for subscriber in subscribers:
            listed = shown.get(viewer_of(subscriber.seat))
            if listed is not None:
                await subscriber.queue.put({"type": "events", "events": listed})
    for subscriber in hub.subscribers(table_id):
        seen = views.get(viewer_of(subscriber.seat))
        if seen is not None:  # a creature that sits this encounter out gets no view
            await subscriber.queue.put({"type": "view", "view": seen})


def viewers(hub: Hub, table_id: str) -> set[str]:
    """Who watches the table from this process (the GM, creatures' ids)."""
    return {viewer_of(subscriber.seat) for subscriber in hub.subscribers(table_id)}


async def announce_encounter(hub: Hub, service: Tables, table_id: str) -> None:
    """The table went on to its next encounter: every socket gets ``{"type": "encounter"}``
    (seqs start again at 0) and a fresh view."""
    heads = await run_in_threadpool(service.heads, [table_id])
    current = heads.get(table_id)
    if current is None:
        return
    for subscriber in hub.subscribers(table_id):
        await subscriber.queue.put({"type": "encounter", "encounter": current[0]})
    hub.tell(table_id, *current)
    await broadcast(hub, service, table_id)


async def catch_up(hub: Hub, service: Tables, table_id: str, kind: str = "events") -> None:
    """Tell the table's sockets what was committed since they were last told (by any process):
    the events after the last one told, a new encounter, or (``kind`` "visibility") views."""
    async with hub.lock(table_id):
        known = hub.told(table_id)
        if known is None:  # no socket has said hello yet: its hello brings it up to date
            return
        heads = await run_in_threadpool(service.heads, [table_id])
        current = heads.get(table_id)
        if current is None:
            return
        if current[0] != known[0]:
            await announce_encounter(hub, service, table_id)
        elif current[1] > known[1]:
            events = await run_in_threadpool(service.encounter_events, current[0], known[1])
            await broadcast(hub, service, table_id, events, current[0])
        elif kind == "visibility":
            await broadcast(hub, service, table_id)


async def close_revoked(hub: Hub, service: Tables, table_id: str) -> None:
    """Another process revoked seats of the table: the sockets of those seats here get the
    revoked message, which ends them."""
    revoked = await run_in_threadpool(service.revoked_seats, table_id)
    for subscriber in hub.subscribers(table_id):
        if subscriber.seat.id in revoked:
            await subscriber.queue.put(REVOKED)
