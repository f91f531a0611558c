"""Changes committed by other processes, pushed to this process's sockets (issue 11, "Past one
machine"): on PostgreSQL by ``LISTEN``/``NOTIFY`` (:mod:`caltrop.store.listen`), elsewhere by
looking at the heads of the tables with sockets here every :data:`POLL_SECONDS` (one query).
Either way the table's stream is poked with a fresh read (:mod:`caltrop.web.stream`), which
tells its sockets every event they lack, in order."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Final

from sqlalchemy import Engine
from starlette.concurrency import run_in_threadpool

from caltrop.store.listen import Listener, can_listen
from caltrop.store.service import Tables
from caltrop.web.seating import REVOKED
from caltrop.web.stream import Hub
from caltrop.web.subscriber import Outgoing

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
        if self._hub.stream(table_id) is None:
            return
        if kind == "seats":  # a revocation: close its sockets here
            task = asyncio.create_task(self._close_revoked(table_id))
        else:
            task = asyncio.create_task(self._hub.poke(table_id, fresh=True))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _close_revoked(self, table_id: str) -> None:
        """Another process revoked seats of the table: the sockets of those seats here get the
        revoked message, which ends them."""
        revoked = await run_in_threadpool(self._service.revoked_seats, table_id)
        stream = self._hub.stream(table_id)
        if stream is not None:
            stream.revoke(revoked, Outgoing(REVOKED))

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(POLL_SECONDS)
            tables = self._hub.tables()
            if not tables:
                continue
            with contextlib.suppress(Exception):  # a failed poll is tried again next time
                heads = await run_in_threadpool(self._service.heads, tables)
                for table_id, current in heads.items():
                    known = self._hub.where(table_id)
                    if known is not None and known != current:
                        await self._hub.poke(table_id, fresh=True)
