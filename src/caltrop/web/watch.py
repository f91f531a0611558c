"""Changes committed by other processes, pushed to this process's sockets (issue 11, "Past one
machine"): on PostgreSQL by ``LISTEN``/``NOTIFY`` (:mod:`caltrop.store.listen`), elsewhere by
looking at the heads of the tables with sockets here every :data:`POLL_SECONDS` (one query).
Either way the sockets get the same messages as for a change made here
(:func:`caltrop.web.broadcast.catch_up`)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Final

from sqlalchemy import Engine
from starlette.concurrency import run_in_threadpool

from caltrop.store.listen import Listener, can_listen
from caltrop.store.service import Tables
from caltrop.web.broadcast import catch_up, close_revoked
from caltrop.web.hub import Hub

#: How often a database without notifications is asked for the heads of watched tables.
POLL_SECONDS: Final = 0.5


class Watcher:
    def __init__(self, hub: Hub, service: Tables, engine: Engine) -> None:
        self._hub = hub
        self._service = service
        self._engine = engine
        self._listener: Listener | None = None
        self._poller: asyncio.Task[None] | None = None
        self._pending: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        if can_listen(self._engine):

            def notified(table_id: str, kind: str) -> None:  # in the listening thread
                loop.call_soon_threadsafe(self._changed, table_id, kind)

            self._listener = Listener(self._engine, notified)
            await run_in_threadpool(self._listener.start)
        else:
            self._poller = asyncio.create_task(self._poll())

    async def stop(self) -> None:
        if self._listener is not None:
            await run_in_threadpool(self._listener.stop)
        if self._poller is not None:
            self._poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poller
        for task in list(self._pending):
            task.cancel()

    def _changed(self, table_id: str, kind: str) -> None:
        if not self._hub.subscribers(table_id):
            return
        if kind == "seats":  # a revocation: close its sockets here
            task = asyncio.create_task(close_revoked(self._hub, self._service, table_id))
        else:
            task = asyncio.create_task(catch_up(self._hub, self._service, table_id, kind))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(POLL_SECONDS)
            tables = self._hub.tables()
            if not tables:
                continue
            heads = await run_in_threadpool(self._service.heads, tables)
            for table_id, current in heads.items():
                known = self._hub.told(table_id)
                if known is not None and known != current:
                    await catch_up(self._hub, self._service, table_id)
