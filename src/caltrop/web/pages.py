"""The browser pages of the table (issue 12): the home page, the GM and player screens, and the
page socket that keeps a screen live.

Thin over :class:`caltrop.store.service.Tables` like the JSON API beside it: every route reads
the seat from the cookie ``GET /join/TOKEN`` set (or that opening a table set for the GM), asks
the service, and renders :mod:`caltrop.web.screen`'s templates from the view model. The routes:

* ``GET /`` — the encounters ready to open, and an upload form (encounter YAML or a log);
* ``POST /tables`` / ``POST /tables/upload`` — open a table: the GM cookie is set and the GM
  screen shows the GM recovery link and each seat's link and QR code, once;
* ``GET /table`` — the seat's screen (the GM's or a player's);
* ``POST /table/command`` — a command form (``command`` + ``command_id``, or a GM tool form):
  committed and broadcast; a refusal answers 403/422 with the server's reason as HTML (the pages
  post here only where their socket never opened; a browser without JavaScript posts the form
  itself and is sent back to ``/table``, or shown the refusal on a page);
* ``POST /table/visibility``, ``POST /table/seats/ID/reissue``, ``POST /table/encounters`` —
  the GM's controls;
* ``WS /ws/screen`` — the page socket (cookie, ``Origin`` checked): on connect the whole screen,
  then every view as HTML fragments swapped by id; a ``resync`` message sends the whole screen
  again (the page sends one when it becomes visible). The page sends its command forms on it
  too (issue 20 §1, issue 22 item 5): ``{"form": {field: [value, …]}, "command_id",
  "expected_seq"?}``, read as ``POST /table/command`` reads a form and run as ``WS /ws`` runs a
  command (:func:`caltrop.web.routes.socket.command`: the stored answer, then the broadcast),
  answered on this socket as JSON ``{"type": "answer" | "refused", "command_id", …}`` before
  the new screen.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from importlib import resources
from typing import Any, Final

import orjson
from fastapi import APIRouter, Request, WebSocket
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from caltrop.content.logfile import MAX_LOG_BYTES
from caltrop.errors import NoSeatError, RefusedError
from caltrop.store.repository import Seat
from caltrop.store.service import MAX_UPLOAD_BYTES as MAX_CONTENT_BYTES
from caltrop.store.service import NewTable, RefusalError, Tables
from caltrop.web import seating
from caltrop.web.deps import ORIGIN_CHECKED, hub_of, service_of
from caltrop.web.errors import status_of
from caltrop.web.forms import FormError, command_text
from caltrop.web.routes.gm import close_revoked_here
from caltrop.web.routes.socket import command as socket_command
from caltrop.web.routes.socket import open_seat, serve_socket
from caltrop.web.screen import qr_svg, render, screen_context, screen_fragments
from caltrop.web.subscriber import Outgoing, Subscriber
from caltrop.web.text import checked_form

router = APIRouter(include_in_schema=False)
#: the largest upload the home page reads: a log, or an encounter's content files
MAX_UPLOAD_BYTES: Final = max(MAX_LOG_BYTES, MAX_CONTENT_BYTES)
MODULES: Final = {"action_load": "Action Load", "action_points": "Action Points"}


# -- helpers ------------------------------------------------------------------------------


_service = service_of
_hub = hub_of


def _flash(request: Request) -> dict[int, dict[str, Any]]:
    """Seat links to show once on the GM's next screen, by GM seat id (memory only)."""
    state = request.app.state
    if not hasattr(state, "page_flash"):
        state.page_flash = {}
    flash: dict[int, dict[str, Any]] = state.page_flash
    return flash


async def _page_seat(request: Request) -> Seat:
    token = request.cookies.get(seating.COOKIE)
    if not token:
        raise NoSeatError("no seat in this browser: open your invite link")
    return await run_in_threadpool(_service(request).seat, token)


def _answer(text: str, status: int = 200, *, ok: bool = True) -> HTMLResponse:
    cls = "ok" if ok else "refusal"
    role = "status" if ok else "alert"
    body = f'<span class="{cls}" role="{role}">{html.escape(text)}</span>' if text else ""
    return HTMLResponse(body, status_code=status)


def _message(request: Request, heading: str, message: str, status: int) -> HTMLResponse:
    return HTMLResponse(render("message.html", heading=heading, message=message), status)


def library(service: Tables) -> list[dict[str, str]]:
    """The encounters ready to open (:meth:`Tables.library`), each with a readable module."""
    return [
        {
            "name": entry.name,
            "title": entry.title,
            "module": entry.module,
            "module_label": MODULES.get(entry.module, entry.module),
            "summary": entry.summary,
        }
        for entry in service.library()
    ]


def _link(request: Request, token: str) -> str:
    return f"{str(request.base_url).rstrip('/')}/join/{token}"


def _opened(request: Request, new: NewTable) -> RedirectResponse:
    """The GM's cookie is set and the seat links kept to be shown once; on to the GM screen."""
    gm = _service(request).seat(new.gm_token)
    _flash(request)[gm.id] = {
        "gm": _link(request, new.gm_token),
        "players": {cid: _link(request, t) for cid, t in new.player_tokens.items()},
    }
    response = RedirectResponse("/table", status_code=303)
    seating.set_seat_cookie(request, response, new.gm_token)
    return response


# -- pages --------------------------------------------------------------------------------

#: the files under ``/static/`` and their media types (the vendored scripts among them)
STATIC: Final = {
    "caltrop.css": "text/css",
    "caltrop.js": "text/javascript",
    "gm_rows.js": "text/javascript",
    "map.js": "text/javascript",
    "log.js": "text/javascript",
    "vendor/htmx.min.js": "text/javascript",
    "vendor/htmx-ext-ws.min.js": "text/javascript",
}


@router.get("/static/{name:path}")
async def static(name: str) -> Response:
    """The pages' CSS and scripts, from the package (no CDN, no build step)."""
    media = STATIC.get(name)
    if media is None:
        return Response("no such file", status_code=404, media_type="text/plain")
    body = resources.files("caltrop.web").joinpath("static", *name.split("/")).read_bytes()
    headers = {"Cache-Control": "no-cache"}
    return Response(body, media_type=media, headers=headers)


@router.get("/", response_class=HTMLResponse)
async def home(request: Request) -> HTMLResponse:
    return HTMLResponse(render("home.html", library=library(_service(request))))


@router.post("/tables", dependencies=ORIGIN_CHECKED)
async def open_table(request: Request) -> Response:
    form = checked_form(await request.form())  # no NUL (issue 20)
    name = str(form.get("encounter") or "")
    service = _service(request)
    try:
        new = await run_in_threadpool(service.create, name)
    except RefusalError as exc:
        return _message(request, "Cannot open that table", exc.reason, status_of(exc))
    return _opened(request, new)


@router.post("/tables/upload", dependencies=ORIGIN_CHECKED)
async def upload_table(request: Request) -> Response:
    """A table from uploaded encounter YAML file(s) or an exported log (``.jsonl``)."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > MAX_UPLOAD_BYTES + 64 * 1024:
        return _message(request, "Upload refused", "the upload is too large", 413)
    form = checked_form(await request.form())  # no NUL (issue 20)
    files: dict[str, bytes] = {}
    for item in form.getlist("files"):
        if isinstance(item, UploadFile) and item.filename:
            files[item.filename] = await item.read()
    service = _service(request)
    try:
        new = await run_in_threadpool(_from_upload, service, files)
    except RefusalError as exc:
        return _message(request, "Upload refused", exc.reason, status_of(exc))
    return _opened(request, new)


def _from_upload(service: Tables, files: Mapping[str, bytes]) -> NewTable:
    """An exported log (``.jsonl``) goes on from where it was; YAML files are an encounter
    and the content it includes (:meth:`Tables.create_from_upload`)."""
    if not files:
        raise RefusedError("choose an encounter YAML file or an exported log")
    logs = [n for n in files if n.endswith((".jsonl", ".json"))]
    if logs:
        if len(files) > 1:
            raise RefusedError("upload a log on its own")
        return service.import_log(files[logs[0]])
    return service.create_from_upload(files)


@router.get("/table", response_class=HTMLResponse)
async def table(request: Request) -> HTMLResponse:
    try:
        seat = await _page_seat(request)
        service = _service(request)
        view = (await run_in_threadpool(service.view, seat)).as_dict()
    except RefusalError as exc:
        return _message(request, "No table here", exc.reason, status_of(exc))
    context = screen_context(view)
    if seat.role == "gm":
        record = await run_in_threadpool(service.repository.current_encounter, seat.table_id)
        context["visibility"] = dict(record.visibility)
        context["flash"] = _flash(request).pop(seat.id, None)
        context["library"] = library(service)
        # links are made from the address this browser used: on loopback, phones cannot open them
        context["loopback"] = request.url.hostname in ("127.0.0.1", "localhost", "::1")
    context["qr"] = qr_svg
    context["seat_link"] = None
    context["oob"] = False
    return HTMLResponse(render("table.html", **context))


@router.post("/table/command", response_class=HTMLResponse, dependencies=ORIGIN_CHECKED)
async def command(request: Request) -> Response:
    """One command form: the answer is empty when accepted (the socket brings the new screen),
    or the refusal's reason with its status (403 a right, 422 the rules). A plain form post
    (no htmx: a browser without JavaScript) is sent back to its screen, or shown the refusal
    on a page of its own."""
    plain = request.headers.get("hx-request") != "true"
    try:
        seat = await _page_seat(request)
        form = checked_form(await request.form())  # no NUL (issue 20)
        fields = {k: [str(v) for v in form.getlist(k)] for k in form}
        text = command_text(fields)
        command_id = (fields.get("command_id") or [""])[0]
        service = _service(request)
        accepted = await run_in_threadpool(service.submit, seat, text, command_id)
    except FormError as exc:
        return _refused(str(exc), 422, plain=plain)
    except RefusalError as exc:
        return _refused(exc.reason, status_of(exc), plain=plain)
    if not accepted.replayed:
        await _hub(request).poke(seat.table_id)
    return RedirectResponse("/table", status_code=303) if plain else _answer("")


def _refused(reason: str, status: int, *, plain: bool) -> HTMLResponse:
    """A refused command form: its reason beside the form (htmx), or on a page with the way
    back to the screen (a plain form post)."""
    if not plain:
        return _answer(reason, status, ok=False)
    page = render("message.html", heading="Not done", message=reason, back="/table")
    return HTMLResponse(page, status)


@router.post("/table/visibility", response_class=HTMLResponse, dependencies=ORIGIN_CHECKED)
async def visibility(request: Request) -> HTMLResponse:
    try:
        seat = await _page_seat(request)
        form = checked_form(await request.form())  # no NUL (issue 20)
        shown = {
            "health": str(form.get("health") or "label"),
            "aspects": form.get("aspects") is not None,
            "resources": form.get("resources") is not None,
            # the odds switch of an NPC's row (issue 22 item 7): an unticked box is not sent
            "odds": form.get("odds") is not None,
        }
        creature = str(form.get("creature") or "")
        service = _service(request)
        await run_in_threadpool(service.set_visibility, seat, {creature: shown})
    except RefusalError as exc:
        return _answer(exc.reason, status_of(exc), ok=False)
    await _hub(request).poke(seat.table_id, fresh=True)
    return _answer("shown to the players")


@router.post(
    "/table/seats/{creature_id}/reissue", response_class=HTMLResponse, dependencies=ORIGIN_CHECKED
)
async def reissue(request: Request, creature_id: str) -> HTMLResponse:
    """A new link (and QR code) for the seat; the old link stops working, its sockets close."""
    try:
        seat = await _page_seat(request)
        service = _service(request)
        token, revoked = await run_in_threadpool(service.reissue, seat, creature_id)
        view = await run_in_threadpool(service.view, seat)
    except RefusalError as exc:
        return _answer(exc.reason, status_of(exc), ok=False)
    close_revoked_here(_hub(request), seat.table_id, revoked)
    creature = next(c for c in view.as_dict()["creatures"] if c["id"] == creature_id)
    card = render("seat.html", c=creature, flash=None, seat_link=_link(request, token), qr=qr_svg)
    return HTMLResponse(card)


@router.post("/table/encounters", response_class=HTMLResponse, dependencies=ORIGIN_CHECKED)
async def next_encounter(request: Request) -> HTMLResponse:
    try:
        seat = await _page_seat(request)
        form = checked_form(await request.form())  # no NUL (issue 20)
        name = str(form.get("encounter") or "")
        reset = [str(r) for r in form.getlist("reset")]
        service = _service(request)
        tokens = await run_in_threadpool(lambda: service.next_encounter(seat, name, reset=reset))
    except RefusalError as exc:
        return _answer(exc.reason, status_of(exc), ok=False)
    await _hub(request).poke(seat.table_id, fresh=True)
    links = "".join(
        f'<li>{html.escape(cid)}: <a href="{html.escape(_link(request, t))}">'
        f"{html.escape(_link(request, t))}</a></li>"
        for cid, t in tokens.items()
    )
    note = f"<ul>{links}</ul>" if links else ""
    return HTMLResponse(f'<span class="ok" role="status">started {html.escape(name)}</span>{note}')


# -- the page socket ----------------------------------------------------------------------


@router.websocket("/ws/screen")
async def screen_socket(websocket: WebSocket) -> None:
    """The screen, live: the whole screen on connect and on ``resync``, then each view that
    changed (the table's stream, :mod:`caltrop.web.stream`; a screen socket is told views
    only). Follows the Origin rule."""
    opened = await open_seat(websocket)
    if opened is None:
        return
    await websocket.accept()
    hub = _hub(websocket)
    subscriber = hub.subscribe(*opened, events=False)

    async def rejoin() -> None:
        stream = hub.stream(subscriber.seat.table_id)
        if stream is not None:
            stream.join(subscriber, -1, None)
            await stream.poke(fresh=True)

    async def receive(text: str) -> None:
        form = _form_message(text)
        if form is None:  # any other message from the page asks for a resync
            await rejoin()
        else:
            await screen_command(websocket, subscriber, form)

    async def send(message: Outgoing) -> bool:
        kind = message.kind
        if kind == "revoked":
            await websocket.send_text(_revoked_fragment())
            await websocket.close(code=1008, reason="this seat was revoked")
            return False
        if kind in ("answer", "refused"):  # a command's answer, as JSON (caltrop.js reads it)
            await websocket.send_text(message.text)
        elif kind == "chance":  # the chance of winning's panel (web/chance.py renders it)
            await websocket.send_text(message.memo["screen"])
        elif kind == "view":  # (encounter messages: the view that follows shows them)
            html_text = message.memo.get("screen")
            if html_text is None:  # rendered once for all the viewer's screens
                html_text = message.memo["screen"] = screen_fragments(message.data["view"])
            await websocket.send_text(html_text)
        return True

    await rejoin()
    await serve_socket(websocket, subscriber, receive, send)


def _form_message(text: str) -> dict[str, Any] | None:
    """A command form sent on the page socket (a JSON object with ``form``), or None."""
    if not text.startswith("{"):
        return None
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return data if isinstance(data, dict) and "form" in data else None


async def screen_command(
    websocket: WebSocket, subscriber: Subscriber, data: dict[str, Any]
) -> None:
    """A command form over the page socket: its fields read as ``POST /table/command`` reads
    them (:func:`caltrop.web.forms.command_text`), then the one socket command path."""
    command_id = data.get("command_id")
    raw = data["form"]
    try:
        if not isinstance(raw, dict) or not all(
            isinstance(values, list) and all(isinstance(v, str) for v in values)
            for values in raw.values()
        ):
            raise FormError("form: each field is a list of text values")
        text = command_text(raw)
    except FormError as exc:
        subscriber.put(
            {
                "type": "refused",
                "command_id": command_id if isinstance(command_id, str) else None,
                "status": 422,
                "detail": str(exc),
            }
        )
        return
    said = {"command": text, "command_id": command_id}
    if "expected_seq" in data:
        said["expected_seq"] = data["expected_seq"]
    await socket_command(_service(websocket), _hub(websocket), subscriber, said)


def _revoked_fragment() -> str:
    return (
        '<div id="live" hx-swap-oob="true"><p class="refusal" role="alert">'
        "This seat was revoked: ask the GM for your new link.</p></div>"
    )
