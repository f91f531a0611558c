"""Telling a table's sockets what changed: each its events as its seat may see them, then its
view (issue 11: only after the change is committed)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.concurrency import run_in_threadpool

from caltrop.store.service import Tables, viewer_of
from caltrop.table import visible_event
from caltrop.web.hub import Hub


async def broadcast(
    hub: Hub,
    service: Tables,
    table_id: str,
    events: tuple[tuple[int, Mapping[str, Any]], ...],
) -> None:
    """Tell every socket of the table the new events as its seat may see them, then its view
    (one view per viewer, all from one read of the state)."""
    subscribers = hub.subscribers(table_id)
    if not subscribers:
        return
    for subscriber in subscribers:  # the events first: they are small and ready now
        viewer = viewer_of(subscriber.seat)
        shown = [{"seq": seq, "event": visible_event(e, viewer)} for seq, e in events]
        if shown:
            await subscriber.queue.put({"type": "events", "events": shown})
    viewers = {viewer_of(subscriber.seat) for subscriber in subscribers}
    found = await run_in_threadpool(service.views, table_id, viewers)
    views = {viewer: v.as_dict() for viewer, v in found.items()}
    for subscriber in subscribers:
        seen = views.get(viewer_of(subscriber.seat))
        if seen is not None:  # a creature that sits this encounter out gets no view
            await subscriber.queue.put({"type": "view", "view": seen})
