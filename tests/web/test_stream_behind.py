"""A socket whose client stops reading (issue 20 §1): "a socket that never reads is closed once
its queue passes a bound (no unbounded queue), and catches up by ``hello`` when it comes back";
and commands over the socket, answered as ``POST /api/commands`` answers them.

The app is driven at the ASGI level so that a socket can really stall: its ``send`` never
returns, as a phone's full TCP window would make it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI

from caltrop.web.app import create_app
from caltrop.web.settings import Settings
from caltrop.web.stream import Hub
from caltrop.web.subscriber import BEHIND, QUEUE_BOUND

SETS = ("gm: set orc-brute load 1", "gm: set orc-brute load 0")


def in_own_loop(test: Callable[[Path], Coroutine[Any, Any, None]]) -> Callable[[Path], None]:
    """Run an async test on a fresh event loop in its own thread: the browser tests' Playwright
    keeps a loop running in the main thread of the same pytest process."""

    def run(tmp_path: Path) -> None:
        failure: list[BaseException] = []

        def main() -> None:
            try:
                asyncio.run(test(tmp_path))
            except BaseException as exc:  # re-raised in the test's thread
                failure.append(exc)

        thread = threading.Thread(target=main)
        thread.start()
        thread.join()
        if failure:
            raise failure[0]

    run.__name__ = test.__name__
    run.__doc__ = test.__doc__
    return run


@dataclass
class FakeSocket:
    """One ASGI WebSocket conversation; ``sends_allowed`` messages go out, then ``send``
    blocks until ``gate`` is set (the client stopped reading), except a close."""

    app: FastAPI
    token: str
    sends_allowed: int = 10**9
    incoming: asyncio.Queue[dict[str, Any]] = field(default_factory=asyncio.Queue)
    sent: list[dict[str, Any]] = field(default_factory=list)
    closed: asyncio.Future[int] | None = None
    task: asyncio.Task[None] | None = None
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    #: set: a stalled send goes on (the client reads again)
    gate: asyncio.Event = field(default_factory=asyncio.Event)

    def open(self) -> None:
        self.closed = asyncio.get_running_loop().create_future()
        scope = {
            "type": "websocket",
            "asgi": {"version": "3.0"},
            "scheme": "ws",
            "path": "/ws",
            "raw_path": b"/ws",
            "query_string": b"",
            "root_path": "",
            "headers": [
                (b"host", b"testserver"),
                (b"authorization", f"Bearer {self.token}".encode()),
            ],
            "client": ("127.0.0.1", 5000),
            "server": ("testserver", 80),
            "subprotocols": [],
        }
        self.incoming.put_nowait({"type": "websocket.connect"})
        self.task = asyncio.create_task(self.app(scope, self.incoming.get, self._send))

    def say(self, data: dict[str, Any]) -> None:
        self.incoming.put_nowait({"type": "websocket.receive", "text": json.dumps(data)})

    async def _send(self, message: MutableMapping[str, Any]) -> None:
        assert self.closed is not None
        if message["type"] == "websocket.close":
            if not self.closed.done():
                self.closed.set_result(int(message.get("code", 1000)))
            return
        if message["type"] == "websocket.send":
            if len(self.sent) >= self.sends_allowed:
                await self.gate.wait()  # stalled until the client reads again
            self.sent.append(json.loads(message["text"]))
            self.arrived.set()

    def seqs(self) -> list[int]:
        return [e["seq"] for m in self.sent if m["type"] == "events" for e in m["events"]]

    async def until(self, predicate: Any, timeout: float = 30) -> None:
        async def wait() -> None:
            while not predicate():
                self.arrived.clear()
                await self.arrived.wait()

        await asyncio.wait_for(wait(), timeout)


@contextlib.asynccontextmanager
async def table(tmp_path: Path) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient, str]]:
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'c.db'}"))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            made = await http.post("/api/tables", json={"encounter": "orc-bridge", "seed": 3})
            assert made.status_code == 201, made.text
            token = made.json()["gm"]["token"]
            http.headers["Authorization"] = f"Bearer {token}"
            yield app, http, token


async def _commands(http: httpx.AsyncClient, count: int) -> None:
    for n in range(count):
        got = await http.post(
            "/api/commands", json={"command": SETS[n % 2], "command_id": uuid.uuid4().hex}
        )
        assert got.status_code == 200, got.text


@in_own_loop
async def test_a_socket_that_never_reads_is_closed_at_the_bound_and_catches_up_by_hello(
    tmp_path: Path,
) -> None:
    async with table(tmp_path) as (app, http, token):
        stalled = FakeSocket(app, token, sends_allowed=1)
        stalled.open()
        stalled.say({"hello": {"last_seq": 0}})
        await stalled.until(lambda: len(stalled.sent) == 1)  # its first view; then it stops
        hub: Hub = app.state.hub
        table_id = hub.tables()[0]
        # each command queues its events and the GM's new view: past the bound well before 400
        await _commands(http, 400)
        assert stalled.closed is not None
        assert await asyncio.wait_for(stalled.closed, 10) == BEHIND
        assert hub.subscribers(table_id) == []  # nothing kept for it, queue and all
        assert stalled.task is not None
        await asyncio.wait_for(stalled.task, 10)
        # its client comes back and says hello with the last seq it saw: it is told the rest, in order
        back = FakeSocket(app, token)
        back.open()
        back.say({"hello": {"last_seq": 0}})
        await back.until(lambda: 400 in back.seqs())
        assert back.seqs() == list(range(1, 401))
        views = [m for m in back.sent if m["type"] == "view"]
        assert len(views) == 1
        assert views[0]["view"]["seq"] == 400
        back.incoming.put_nowait({"type": "websocket.disconnect", "code": 1000})
        assert back.task is not None
        await asyncio.wait_for(back.task, 10)


@in_own_loop
async def test_the_bound_is_what_a_socket_may_have_waiting(tmp_path: Path) -> None:
    """Fewer messages than the bound waiting: the stalled socket stays open and loses
    nothing once it reads again."""
    async with table(tmp_path) as (app, http, token):
        slow = FakeSocket(app, token, sends_allowed=1)
        slow.open()
        slow.say({"hello": {"last_seq": 0}})
        await slow.until(lambda: len(slow.sent) == 1)
        await _commands(http, QUEUE_BOUND // 2 - 2)  # events + view each: just under the bound
        hub: Hub = app.state.hub
        (subscriber,) = hub.subscribers(hub.tables()[0])
        assert 0 < subscriber.queue.qsize() <= QUEUE_BOUND
        assert not subscriber.behind.is_set()
        assert slow.closed is not None
        assert not slow.closed.done()
        slow.gate.set()  # it reads again: everything waiting arrives, in order
        last = QUEUE_BOUND // 2 - 2
        await slow.until(lambda: last in slow.seqs())
        assert slow.seqs() == list(range(1, last + 1))
        assert slow.sent[-1]["type"] == "view"
        assert slow.sent[-1]["view"]["seq"] == last
        assert slow.task is not None
        slow.task.cancel()


@in_own_loop
async def test_a_command_over_the_socket_gets_the_stored_answer_then_the_table_is_told(
    tmp_path: Path,
) -> None:
    async with table(tmp_path) as (app, http, token):
        ws = FakeSocket(app, token)
        ws.open()
        ws.say({"hello": {"last_seq": 0}})
        await ws.until(lambda: any(m["type"] == "view" for m in ws.sent))
        ws.say({"command": SETS[0], "command_id": "tap-1", "expected_seq": 0})
        await ws.until(lambda: 1 in ws.seqs())
        answers = [m for m in ws.sent if m["type"] == "answer"]
        assert [a["command_id"] for a in answers] == ["tap-1"]
        kinds = [m["type"] for m in ws.sent]
        assert kinds.index("answer") < kinds.index("events")  # ack after commit, then broadcast
        # the same command id over HTTP is the same stored answer, not a second command
        again = await http.post("/api/commands", json={"command": SETS[0], "command_id": "tap-1"})
        assert again.status_code == 200
        assert again.json() == answers[0]["answer"]
        assert (await http.get("/api/view")).json()["seq"] == 1
        # a stale expected_seq is refused with the arithmetic, over the socket, and changes nothing
        ws.say({"command": SETS[1], "command_id": "tap-2", "expected_seq": 0})
        await ws.until(lambda: any(m["type"] == "refused" for m in ws.sent))
        (refused,) = [m for m in ws.sent if m["type"] == "refused"]
        assert refused["command_id"] == "tap-2"
        assert refused["status"] == 409
        assert (await http.get("/api/view")).json()["seq"] == 1
        # a malformed command is refused saying which field
        ws.say({"command": 7, "command_id": "tap-3"})
        await ws.until(lambda: sum(m["type"] == "refused" for m in ws.sent) == 2)
        assert "command" in ws.sent[-1]["detail"]
        assert ws.sent[-1]["status"] == 422
        assert ws.task is not None
        ws.task.cancel()
