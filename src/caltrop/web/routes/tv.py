"""The table screen (issue 22): a read-only view of the table for a shared screen or a TV — the
turn order, each creature's Health as the players see it (never a number the GM hides), the
pending roll and its dice, the latest rolls — in large type, live over the table's stream.

Its link is a seat of its own kind (``screen``, :data:`caltrop.store.service.SCREEN_ROLE`): it
sees the table as :data:`caltrop.table.SCREEN` (what every player sees) and the service refuses
every command it sends (403), over HTTP and over either socket. The link carries its token in
the path (``/tv/TOKEN``), so opening it sets no cookie: a GM's browser may open it in a tab and
keep its GM screen. One screen link at a time: the GM makes one (the one before stops working,
its sockets are closed) or revokes it, on the GM screen (with a QR code to show) or by the API.

* ``GET /tv/TOKEN`` — the page; ``WS /ws/tv/TOKEN`` — its socket (Origin rule): the screen on
  connect and on ``resync``, then each view that changed;
* ``POST /table/screen`` / ``POST /table/screen/revoke`` — the GM screen's controls (HTML);
* ``POST /api/screen`` / ``DELETE /api/screen`` — the same for a client (JSON).
"""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Path, Request, WebSocket
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from caltrop.errors import ForbiddenError, RefusalError
from caltrop.store.repository import SCREEN_ROLE
from caltrop.web.deps import ORIGIN_CHECKED, HubDep, SeatDep, TablesDep, foreign, seat_of_token
from caltrop.web.errors import responses, status_of
from caltrop.web.pages import screen_command
from caltrop.web.routes.gm import close_revoked_here
from caltrop.web.routes.socket import command as socket_command
from caltrop.web.routes.socket import serve_socket
from caltrop.web.routes.tables import TOKEN_PATTERN
from caltrop.web.schemas import SeatOut
from caltrop.web.screen import qr_svg, render, screen_context
from caltrop.web.subscriber import Outgoing

router = APIRouter()
TokenPath = Annotated[str, Path(pattern=TOKEN_PATTERN, description="a table screen's token")]
NOT_A_SCREEN = "this is not a table screen link: ask the GM for the table screen's link"


def tv_link(request: Request, token: str) -> str:
    base: str = request.app.state.settings.base_url
    return f"{base.rstrip('/')}/tv/{token}"


def tv_context(view: dict[str, Any]) -> dict[str, Any]:
    """What tv.html is rendered with: the screen's context and the latest rolls."""
    context = screen_context(view)
    context["rolls"] = [e for e in reversed(context["log"]) if e.get("dice")][:3]
    return context


def tv_fragments(view: dict[str, Any]) -> str:
    """The table screen's changing part, swapped by its id (htmx ``hx-swap-oob``)."""
    return render("tv_live.html", oob=True, **tv_context(view))


# -- the page and its socket -----------------------------------------------------------------


@router.get("/tv/{token}", response_class=HTMLResponse, include_in_schema=False)
async def tv_page(token: TokenPath, service: TablesDep) -> HTMLResponse:
    try:
        seat = await seat_of_token(service, token)
        if seat.role != SCREEN_ROLE:
            raise ForbiddenError(NOT_A_SCREEN)
        view = (await run_in_threadpool(service.view, seat)).as_dict()
    except RefusalError as exc:
        page = render("message.html", heading="No table screen here", message=exc.reason)
        return HTMLResponse(page, status_of(exc))
    return HTMLResponse(render("tv.html", oob=False, token=token, **tv_context(view)))


@router.websocket("/ws/tv/{token}")
async def tv_socket(websocket: WebSocket, token: str) -> None:
    """The table screen, live (as ``WS /ws/screen`` is a seat's screen). A command or form
    sent on it takes the one socket command path, where the service refuses it (403)."""
    why = foreign(websocket.headers)
    if why is not None:
        await websocket.close(code=1008, reason="cross-origin socket refused")
        return
    service = websocket.app.state.tables
    try:
        seat = await seat_of_token(service, token)
    except RefusalError as exc:
        await websocket.close(code=1008, reason=exc.reason)
        return
    if seat.role != SCREEN_ROLE:
        await websocket.close(code=1008, reason=NOT_A_SCREEN)
        return
    await websocket.accept()
    hub = websocket.app.state.hub
    subscriber = hub.subscribe(seat, token, events=False)

    async def rejoin() -> None:
        stream = hub.stream(seat.table_id)
        if stream is not None:
            stream.join(subscriber, -1, None)
            await stream.poke(fresh=True)

    async def receive(text: str) -> None:
        data = _json(text)
        if data is not None and "form" in data:
            await screen_command(websocket, subscriber, data)
        elif data is not None and "command" in data:
            await socket_command(service, hub, subscriber, data)
        else:  # any other message asks for the screen again
            await rejoin()

    async def send(message: Outgoing) -> bool:
        kind = message.kind
        if kind == "revoked":
            await websocket.send_text(REVOKED_FRAGMENT)
            await websocket.close(code=1008, reason="this table screen link was revoked")
            return False
        if kind in ("answer", "refused"):
            await websocket.send_text(message.text)
        elif kind == "view":
            html_text = message.memo.get("tv")
            if html_text is None:  # rendered once for all the table's screens
                html_text = message.memo["tv"] = tv_fragments(message.data["view"])
            await websocket.send_text(html_text)
        return True

    await rejoin()
    await serve_socket(websocket, subscriber, receive, send)


REVOKED_FRAGMENT = (
    '<div id="tv-live" hx-swap-oob="true"><p class="refusal" role="alert">'
    "This table screen link was revoked: ask the GM for the new one.</p></div>"
)


def _json(text: str) -> dict[str, Any] | None:
    if not text.startswith("{"):
        return None
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None


# -- the GM's controls -----------------------------------------------------------------------


@router.post(
    "/table/screen",
    response_class=HTMLResponse,
    dependencies=ORIGIN_CHECKED,
    include_in_schema=False,
)
async def make_screen_card(
    request: Request, service: TablesDep, hub: HubDep, seat: SeatDep
) -> HTMLResponse:
    """The GM screen's "make a table screen link": the link and its QR code (the one before
    stops working)."""
    token, revoked = await run_in_threadpool(service.open_screen, seat)
    close_revoked_here(hub, seat.table_id, revoked)
    link = tv_link(request, token)
    return HTMLResponse(render("screen_link.html", card_only=True, screen_link=link, qr=qr_svg))


@router.post(
    "/table/screen/revoke",
    response_class=HTMLResponse,
    dependencies=ORIGIN_CHECKED,
    include_in_schema=False,
)
async def revoke_screen_card(service: TablesDep, hub: HubDep, seat: SeatDep) -> HTMLResponse:
    revoked = await run_in_threadpool(service.close_screen, seat)
    close_revoked_here(hub, seat.table_id, revoked)
    return HTMLResponse(render("screen_link.html", card_only=True, screen_link=None, revoked=True))


@router.post(
    "/api/screen",
    status_code=201,
    dependencies=ORIGIN_CHECKED,
    responses=responses("POST /api/screen"),
)
async def open_screen(request: Request, service: TablesDep, hub: HubDep, seat: SeatDep) -> SeatOut:
    """The GM: a new table screen link (``/tv/TOKEN``); the one before stops working."""
    token, revoked = await run_in_threadpool(service.open_screen, seat)
    close_revoked_here(hub, seat.table_id, revoked)
    return SeatOut(token=token, link=tv_link(request, token))


@router.delete(
    "/api/screen",
    status_code=204,
    dependencies=ORIGIN_CHECKED,
    responses=responses("DELETE /api/screen"),
)
async def close_screen(service: TablesDep, hub: HubDep, seat: SeatDep) -> Response:
    """The GM: the table screen link stops working (its sockets are closed)."""
    revoked = await run_in_threadpool(service.close_screen, seat)
    close_revoked_here(hub, seat.table_id, revoked)
    return Response(status_code=204)
