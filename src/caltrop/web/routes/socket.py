"""``WS /ws``: a seat's live stream, and its commands (issue 20).

The client says ``{"hello": {"last_seq": N}}`` (``"encounter": ID`` too, if it knows which):
it is told every event after N and a fresh view, then every change, in seq order, exactly once
(:mod:`caltrop.web.stream`). It may send commands on the same socket, as ``POST
/api/commands`` takes them: ``{"command", "command_id", "expected_seq"?}``, answered on this
socket with ``{"type": "answer", "command_id", "answer": {...}}`` once committed (the same
stored answer a retry over HTTP gets) or ``{"type": "refused", "command_id", "status",
"detail", ...}``; the table's sockets are told after. A socket that falls
:data:`~caltrop.web.subscriber.QUEUE_BOUND` messages behind (its client stopped reading) is
closed with code :data:`~caltrop.web.subscriber.BEHIND`; its client says hello again to catch
up. Sockets follow the Origin rule (:func:`caltrop.web.deps.foreign`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, Final

import orjson
from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from caltrop.store.repository import Seat
from caltrop.store.service import RefusalError, Tables
from caltrop.web.deps import foreign, hub_of, seat_of_token, service_of, token_of
from caltrop.web.errors import status_of
from caltrop.web.routes.play import public_answer
from caltrop.web.schemas import CommandIn
from caltrop.web.seating import COOKIE
from caltrop.web.stream import Hub
from caltrop.web.subscriber import BEHIND, Outgoing, Subscriber

router = APIRouter()
#: the largest message a client may send on a socket (a command is at most 2,000 characters)
MAX_MESSAGE: Final = 8 * 1024
#: how long a socket marked behind is given to close cleanly before it is dropped
CLOSE_SECONDS: Final = 2.0
HELLO_HELP: Final = 'send {"hello": {"last_seq": N}} (N ≥ -1) or {"command": …, "command_id": …}'


async def open_seat(websocket: WebSocket) -> tuple[Seat, str] | None:
    """The socket's seat and token, after the Origin rule and the token (bearer header or
    cookie); None once the socket was closed with the reason (1008)."""
    why = foreign(websocket.headers)
    if why is not None:
        await websocket.close(code=1008, reason="cross-origin socket refused")
        return None
    try:
        token = token_of(websocket.headers.get("authorization"), websocket.cookies.get(COOKIE))
        return await seat_of_token(service_of(websocket), token), token
    except RefusalError as exc:
        await websocket.close(code=1008, reason=exc.reason)
        return None


async def serve_socket(
    websocket: WebSocket,
    subscriber: Subscriber,
    receive: Callable[[str], Awaitable[None]],
    send: Callable[[Outgoing], Awaitable[bool]],
) -> None:
    """Run a socket until it goes: ``receive`` handles each client message, ``send`` each
    queued message (False ends the socket); a socket that falls behind is closed (BEHIND)."""
    hub = hub_of(websocket)

    async def pump() -> None:
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):
            while True:
                if not await send(await subscriber.queue.get()):
                    return

    async def read() -> None:
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):
            while True:
                text = await websocket.receive_text()
                if len(text) > MAX_MESSAGE:
                    subscriber.put(_error(f"a message is at most {MAX_MESSAGE:,} characters"))
                    continue
                await receive(text)

    tasks = [
        asyncio.create_task(pump()),
        asyncio.create_task(read()),
        asyncio.create_task(subscriber.behind.wait()),
    ]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        if tasks[2] in done:  # its client stopped reading: close, it says hello to catch up
            with contextlib.suppress(Exception):
                await asyncio.wait_for(
                    websocket.close(code=BEHIND, reason="too far behind: say hello again"),
                    CLOSE_SECONDS,
                )
    finally:
        for task in tasks:
            task.cancel()
        hub.unsubscribe(subscriber)


@router.websocket("/ws")
async def socket(websocket: WebSocket) -> None:
    opened = await open_seat(websocket)
    if opened is None:
        return
    await websocket.accept()
    service = service_of(websocket)
    hub = hub_of(websocket)
    subscriber = hub.subscribe(*opened)

    async def receive(text: str) -> None:
        await handle(service, hub, subscriber, text)

    async def send(message: Outgoing) -> bool:
        await websocket.send_text(message.text)
        if message.kind == "revoked":
            await websocket.close(code=1008, reason="this seat was revoked")
            return False
        return True

    await serve_socket(websocket, subscriber, receive, send)


def _error(detail: str) -> dict[str, Any]:
    return {"type": "error", "detail": detail}


async def handle(service: Tables, hub: Hub, subscriber: Subscriber, text: str) -> None:
    """One client message: a hello (catch up), or a command (commit, answer, then tell)."""
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        subscriber.put(_error(HELLO_HELP))
        return
    if isinstance(data, dict) and "hello" in data:
        await hello(hub, subscriber, data["hello"])
    elif isinstance(data, dict) and "command" in data:
        await command(service, hub, subscriber, data)
    else:
        subscriber.put(_error(HELLO_HELP))


async def hello(hub: Hub, subscriber: Subscriber, said: Any) -> None:
    last_seq = said.get("last_seq") if isinstance(said, dict) else None
    encounter = said.get("encounter") if isinstance(said, dict) else None
    if (
        not isinstance(last_seq, int)
        or isinstance(last_seq, bool)
        or not -1 <= last_seq < 2**31
        or (
            encounter is not None
            and (not isinstance(encounter, int) or isinstance(encounter, bool))
        )
    ):
        subscriber.put(_error(HELLO_HELP))
        return
    if isinstance(said, dict) and said.get("chance") is True:
        subscriber.chance = True  # the chance of winning too, when it may see it (issue 23)
    stream = hub.stream(subscriber.seat.table_id)
    if stream is None:
        return
    stream.join(subscriber, last_seq, encounter)
    await stream.poke(fresh=True)


async def command(service: Tables, hub: Hub, subscriber: Subscriber, data: dict[str, Any]) -> None:
    """A command over the socket: the same path and answer as ``POST /api/commands``."""
    command_id = data.get("command_id")
    try:
        body = CommandIn.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        subscriber.put(
            {
                "type": "refused",
                "command_id": command_id if isinstance(command_id, str) else None,
                "status": 422,
                "detail": f"{where}: {first['msg']}",
            }
        )
        return
    try:
        seat = await seat_of_token(service, subscriber.token)  # revoked since it opened: 401
        accepted = await run_in_threadpool(
            service.submit, seat, body.command, body.command_id, body.expected_seq
        )
    except RefusalError as exc:
        subscriber.put(
            {
                "type": "refused",
                "command_id": body.command_id,
                "status": status_of(exc),
                "detail": exc.reason,
                **exc.extra,
            }
        )
        return
    subscriber.put(
        {"type": "answer", "command_id": body.command_id, "answer": public_answer(accepted)}
    )
    if not accepted.replayed:
        await hub.poke(seat.table_id)
