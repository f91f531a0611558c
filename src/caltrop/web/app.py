"""``create_app(settings)``: the table server's HTTP and WebSocket API (issue 11).

Every request names its seat by its token: ``Authorization: Bearer TOKEN`` or the HttpOnly
cookie ``caltrop_seat`` that ``GET /join/TOKEN`` sets. The routes:

* ``GET /api/library`` — the encounters ready to open (the bundled examples, seeded on first
  start); ``POST /api/tables`` — a table of one of them: the GM's token and link, one per PC;
  ``POST /api/tables/upload`` — the same from uploaded content YAML files (multipart ``files``);
  ``POST /api/tables/import`` — the same, going on from an exported log (the JSON-lines body);
* ``GET /api/view`` — the view model for the seat (:func:`caltrop.table.view`);
* ``POST /api/commands`` — ``{command, command_id, expected_seq?}``: committed, then answered
  and broadcast; a retry of a command_id gets the stored answer; 409 for a stale
  ``expected_seq`` (with ``head``), 403 for a command the seat may not give, 422 for one the
  rules refuse — nothing is stored then;
* ``GET /api/events?after=N`` — the log after N as the seat may see it; ``GET /api/log`` — the
  GM's export (JSON lines, ``caltrop replay`` reads it);
* ``PUT /api/visibility`` — the GM: what players see of NPCs; ``POST /api/encounters`` — the
  GM: the night's next encounter; ``POST /api/seats/ID/reissue`` — the GM: a new seat link;
* ``WS /ws`` — send ``{"hello": {"last_seq": N}}``: the socket is subscribed first, then gets
  the events after N (``{"type": "events", "events": [{seq, event}]}``) and a fresh view
  (``{"type": "view", "view": …}``); every later command arrives as an events message with its
  view. Clients drop events whose seq they have.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import json
import zipfile
from collections.abc import AsyncIterator, Mapping
from typing import Annotated, Any, Final
from urllib.parse import urlsplit

import orjson
from fastapi import (
    Depends,
    FastAPI,
    Header,
    HTTPException,
    Query,
    Request,
    Response,
    WebSocket,
    WebSocketDisconnect,
)
from fastapi.responses import JSONResponse, PlainTextResponse, RedirectResponse
from sqlalchemy.engine import make_url
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData, UploadFile
from starlette.formparsers import MultiPartException

from caltrop.content.logfile import MAX_LOG_BYTES
from caltrop.store import Repository, default_url, open_database
from caltrop.store.checkpoint import Checkpointer
from caltrop.store.repository import NotFoundError, Seat
from caltrop.store.service import (
    MAX_UPLOAD_BYTES,
    MAX_UPLOAD_FILES,
    Accepted,
    NewTable,
    RefusalError,
    Tables,
    uploaded_encounter,
)
from caltrop.web import pages
from caltrop.web.broadcast import announce_encounter, broadcast, catch_up, viewers
from caltrop.web.hub import Hub, Subscriber
from caltrop.web.limits import Limits
from caltrop.web.ratelimit import TokenBucket
from caltrop.web.schemas import (
    CommandIn,
    LibraryEntryOut,
    NewTableIn,
    NewTableOut,
    NextEncounterIn,
    RevealIn,
    SeatOut,
)
from caltrop.web.seating import COOKIE, REVOKED
from caltrop.web.settings import Settings
from caltrop.web.text import checked_form
from caltrop.web.watch import Watcher

#: far past any log's head (a seq or position beyond it is refused, never sent to the database)
MAX_SEQ: Final = 2**31 - 1
#: at most this many missed events are sent on a hello; further behind, a fresh view only
MAX_REPLAYED: Final = 1000


def _token(authorization: str | None, cookie: str | None) -> str:
    if authorization:
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise RefusalError(401, "Authorization must be 'Bearer TOKEN'")
        return token.strip()
    if cookie:
        return cookie
    raise RefusalError(401, "no seat: send 'Authorization: Bearer TOKEN' or open your link")


def _tables(request: Request) -> Tables:
    service: Tables = request.app.state.tables
    return service


async def _seat(request: Request, authorization: Annotated[str | None, Header()] = None) -> Seat:
    """The seat of the request's token (bearer header, else the seat cookie); 401 if none. A
    seat looked up a moment ago needs no trip to the database (nor to a worker thread)."""
    token = _token(authorization, request.cookies.get(COOKIE))
    service = _tables(request)
    known = service.known_seat(token)
    if known is not None:
        return known
    found: Seat = await run_in_threadpool(service.seat, token)
    return found


TablesDep = Annotated[Tables, Depends(_tables)]
SeatDep = Annotated[Seat, Depends(_seat)]


def create_app(settings: Settings | None = None) -> FastAPI:
    """The server over ``settings.database_url`` (migrated on start)."""
    settings = settings or Settings()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        sqlite = make_url(settings.database_url or default_url()).get_backend_name() == "sqlite"
        engine = open_database(
            settings.database_url, autocheckpoint=not sqlite, synchronous=settings.sqlite_sync
        )
        checkpointer = Checkpointer(engine) if sqlite else None  # off the commit path
        if checkpointer is not None:
            checkpointer.start()
        app.state.tables = Tables(Repository(engine))
        app.state.hub = Hub()
        watcher = Watcher(app.state.hub, app.state.tables, engine)
        await watcher.start()  # other processes' commits reach this process's sockets
        try:
            yield
        finally:
            await watcher.stop()
            if checkpointer is not None:
                await run_in_threadpool(checkpointer.stop)
            engine.dispose()

    app = FastAPI(title="Caltrop table server", lifespan=lifespan)
    # issue 20 §2: bodies, seats and table openings bounded before any route reads a byte
    opened = TokenBucket(settings.new_tables_burst, settings.new_tables_per_minute)
    app.add_middleware(Limits, tables=opened)
    app.include_router(pages.router)  # the browser screens (issue 12)

    @app.exception_handler(RefusalError)
    async def refused(_request: Request, exc: RefusalError) -> JSONResponse:
        return JSONResponse({"detail": exc.reason, **exc.extra}, status_code=exc.status)

    @app.exception_handler(NotFoundError)
    async def not_found(_request: Request, exc: NotFoundError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=404)

    def link(token: str) -> str:
        return f"{settings.base_url.rstrip('/')}/join/{token}"

    def links(new: NewTable) -> NewTableOut:
        return NewTableOut(
            table_id=new.table_id,
            gm=SeatOut(token=new.gm_token, link=link(new.gm_token)),
            players={c: SeatOut(token=t, link=link(t)) for c, t in new.player_tokens.items()},
        )

    @app.post("/api/tables", status_code=201)
    async def create_table(body: NewTableIn, service: TablesDep) -> NewTableOut:
        return links(await run_in_threadpool(service.create, body.encounter, seed=body.seed))

    @app.get("/api/library")
    async def get_library(service: TablesDep) -> list[LibraryEntryOut]:
        """The encounters ready to open as a table."""
        entries = await run_in_threadpool(service.library)
        return [LibraryEntryOut(**dataclasses.asdict(e)) for e in entries]

    @app.post("/api/tables/upload", status_code=201, openapi_extra=UPLOAD_BODY)
    async def upload_table(request: Request, service: TablesDep) -> NewTableOut:
        """A table of an uploaded encounter: multipart ``files`` (its YAML files: one of them
        ``kind: encounter``, which may include the others by relative path) and ``seed``."""
        files, fields = await _uploaded(request)
        seed = _seed_field(fields)
        return links(await run_in_threadpool(lambda: service.create_from_upload(files, seed=seed)))

    @app.post("/api/tables/import", status_code=201)
    async def import_table(request: Request, service: TablesDep) -> NewTableOut:
        """A table that goes on from an exported log: the body is the JSON-lines log."""
        payload = await _bounded_body(request, MAX_LOG_BYTES)
        return links(await run_in_threadpool(service.import_log, payload))

    @app.get("/join/{token}")
    async def join(token: str, service: TablesDep, request: Request) -> Response:
        """Bind this browser to the seat: an HttpOnly, SameSite cookie; a browser (one that
        accepts HTML) goes on to its screen (303 to ``/table``), a client gets JSON."""
        found = await run_in_threadpool(service.seat, token)
        response: Response
        if "text/html" in request.headers.get("accept", ""):
            response = RedirectResponse("/table", status_code=303)
        else:
            response = JSONResponse(
                {"table_id": found.table_id, "role": found.role, "creature": found.creature_id}
            )
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict", max_age=30 * 86400)
        return response

    @app.get("/api/view")
    async def get_view(service: TablesDep, seat_: SeatDep) -> dict[str, Any]:
        found = await run_in_threadpool(service.view, seat_)
        return found.as_dict()

    @app.get("/api/events")
    async def get_events(
        service: TablesDep, seat_: SeatDep, after: Annotated[int, Query(ge=-1, le=MAX_SEQ)] = -1
    ) -> dict[str, list[dict[str, Any]]]:
        return {"events": await run_in_threadpool(service.events_since, seat_, after)}

    @app.get("/api/log", response_class=PlainTextResponse)
    async def get_log(
        service: TablesDep,
        seat_: SeatDep,
        position: Annotated[int | None, Query(ge=0, le=MAX_SEQ)] = None,
    ) -> str:
        lines = await run_in_threadpool(service.log_lines, seat_, position)
        return "\n".join(lines) + "\n"

    @app.get("/api/night", response_class=Response)
    async def get_night(service: TablesDep, seat_: SeatDep) -> Response:
        """Every encounter's log of the night (``1-goblin-ambush.jsonl``, …) in one zip."""
        logs = await run_in_threadpool(service.night, seat_)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, lines in logs:
                archive.writestr(name, "\n".join(lines) + "\n")
        return Response(
            buffer.getvalue(),
            media_type="application/zip",
            headers={"Content-Disposition": 'attachment; filename="caltrop-night.zip"'},
        )

    @app.put("/api/visibility", status_code=204)
    async def put_visibility(body: dict[str, RevealIn], service: TablesDep, seat_: SeatDep) -> None:
        shown = {k: v.model_dump() for k, v in body.items()}
        await run_in_threadpool(service.set_visibility, seat_, shown)
        await broadcast(app.state.hub, service, seat_.table_id, ())

    @app.post("/api/encounters", status_code=201)
    async def next_encounter(
        body: NextEncounterIn, service: TablesDep, seat_: SeatDep
    ) -> dict[str, dict[str, SeatOut]]:
        """The GM: the table's next encounter; PCs carry Health, Stamina and Exhaustion over
        unless ``reset`` names them. Gives links for PCs new to the table; every socket gets
        ``{"type": "encounter"}`` and a fresh view (seqs start again at 0)."""
        tokens = await run_in_threadpool(
            lambda: service.next_encounter(seat_, body.encounter, reset=body.reset, seed=body.seed)
        )
        await announce_encounter(app.state.hub, service, seat_.table_id)
        return {"players": {c: SeatOut(token=t, link=link(t)) for c, t in tokens.items()}}

    @app.post("/api/encounters/upload", status_code=201, openapi_extra=UPLOAD_BODY)
    async def upload_next_encounter(
        request: Request, service: TablesDep, seat_: SeatDep
    ) -> dict[str, dict[str, SeatOut]]:
        """The GM: the night's next encounter from uploaded YAML files (multipart ``files``;
        ``reset``: health, stamina or exhaustion, repeated; ``seed``)."""
        if seat_.role != "gm":
            raise RefusalError(403, "only the GM starts the next encounter")
        files, fields = await _uploaded(request)
        reset = [str(v) for v in fields.getlist("reset")]
        wrong = sorted(set(reset) - {"health", "stamina", "exhaustion"})
        if wrong:
            raise RefusalError(422, f"reset names health, stamina or exhaustion, not {wrong[0]!r}")
        seed = _seed_field(fields)
        definition = await run_in_threadpool(uploaded_encounter, files)
        tokens = await run_in_threadpool(
            lambda: service.next_encounter(seat_, definition, reset=reset, seed=seed)
        )
        await announce_encounter(app.state.hub, service, seat_.table_id)
        return {"players": {c: SeatOut(token=t, link=link(t)) for c, t in tokens.items()}}

    @app.post("/api/seats/{creature_id}/reissue")
    async def reissue(creature_id: str, service: TablesDep, seat_: SeatDep) -> SeatOut:
        """The GM: revoke the creature's seat (its sockets are closed) and issue a new link."""
        token, revoked = await run_in_threadpool(service.reissue, seat_, creature_id)
        hub: Hub = app.state.hub
        for subscriber in hub.subscribers(seat_.table_id):
            if subscriber.seat.id in revoked:
                await subscriber.queue.put(REVOKED)
        return SeatOut(token=token, link=link(token))

    @app.post("/api/commands")
    async def post_command(
        body: CommandIn, service: TablesDep, seat_: SeatDep
    ) -> Mapping[str, Any]:
        hub: Hub = app.state.hub
        accepted: Accepted = await run_in_threadpool(
            lambda: service.submit(
                seat_,
                body.command,
                body.command_id,
                body.expected_seq,
                tell=viewers(hub, seat_.table_id),
            )
        )
        if not accepted.replayed:  # committed above: only now is anyone told
            await broadcast(
                hub,
                service,
                accepted.table_id,
                accepted.events,
                accepted.encounter_id,
                accepted.told,
            )
        return {k: v for k, v in accepted.answer.items() if k != "seat"}

    @app.websocket("/ws")
    async def socket(websocket: WebSocket) -> None:
        service: Tables = websocket.app.state.tables
        hub: Hub = websocket.app.state.hub
        origin = websocket.headers.get("origin")
        host = websocket.headers.get("host")
        if origin is not None and urlsplit(origin).netloc != host:
            await websocket.close(code=1008, reason="cross-origin socket refused")
            return
        try:
            token = _token(websocket.headers.get("authorization"), websocket.cookies.get(COOKIE))
            seat_ = await run_in_threadpool(service.seat, token)
        except RefusalError as exc:
            await websocket.close(code=1008, reason=exc.reason)
            return
        await websocket.accept()
        subscriber = hub.subscribe(seat_)  # subscribed first: nothing falls between
        sender = asyncio.create_task(_pump(websocket, subscriber))
        try:
            while True:
                message = await websocket.receive_text()
                await _hello(service, hub, subscriber, message)
        except (WebSocketDisconnect, RuntimeError):  # gone, or closed by the server (revoked)
            pass
        finally:
            hub.unsubscribe(subscriber)
            sender.cancel()

    return app


async def _bounded_body(request: Request, limit: int, what: str = "a log") -> bytes:
    """The request's body, refused with 413 as soon as it passes ``limit`` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise RefusalError(413, f"{what} is at most {limit:,} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise RefusalError(413, f"{what} is at most {limit:,} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


#: The multipart body of the upload routes, for the OpenAPI schema (they read it themselves,
#: bounded, so that an oversized upload is refused before it is parsed).
UPLOAD_BODY: Final[dict[str, Any]] = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["files"],
                    "properties": {
                        "files": {"type": "array", "items": {"type": "string", "format": "binary"}},
                        "seed": {"type": "integer", "minimum": 0},
                        "reset": {"type": "array", "items": {"type": "string"}},
                    },
                }
            }
        },
    }
}
#: multipart framing beyond the files' own bytes that an upload may carry
_UPLOAD_SLACK: Final = 64 * 1024


async def _uploaded(request: Request) -> tuple[dict[str, bytes], FormData]:
    """The uploaded files (name → bytes) and the other fields of a multipart body of at most
    MAX_UPLOAD_BYTES (and the framing); 413 past it, 422 for a body that is not multipart."""
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise RefusalError(422, "send the files as multipart/form-data (field 'files')")
    body = await _bounded_body(request, MAX_UPLOAD_BYTES + _UPLOAD_SLACK, "an upload")
    request._body = body  # Starlette's cached body: the form parser reads it, not the socket
    try:
        form = checked_form(await request.form(max_files=MAX_UPLOAD_FILES, max_fields=20))
    except (MultiPartException, HTTPException) as exc:
        raise RefusalError(422, f"not a multipart upload: {_detail(exc)}") from None
    files: dict[str, bytes] = {}
    for value in form.getlist("files"):
        if not isinstance(value, UploadFile):
            raise RefusalError(422, "'files' holds files, not text fields")
        name = value.filename or f"file-{len(files) + 1}.yaml"
        if name in files:
            raise RefusalError(422, f"two uploaded files are both named {name!r}")
        files[name] = await value.read()
    return files, form


def _detail(exc: Exception) -> str:
    return str(getattr(exc, "detail", None) or getattr(exc, "message", None) or exc)


def _seed_field(form: FormData) -> int | None:
    raw = form.get("seed")
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str) or not raw.isascii() or not raw.isdigit() or len(raw) > 18:
        raise RefusalError(422, "seed is a whole number from 0 (at most 18 digits)")
    return int(raw)


async def _pump(websocket: WebSocket, subscriber: Subscriber) -> None:
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            message = await subscriber.queue.get()
            # orjson: the same JSON as the standard library's, ~5× faster (a view is ~6 KB,
            # five of them a command)
            await websocket.send_text(orjson.dumps(message).decode())
            if message is REVOKED:
                await websocket.close(code=1008, reason="this seat was revoked")
                return


async def _hello(service: Tables, hub: Hub, subscriber: Subscriber, message: str) -> None:
    """``{"hello": {"last_seq": N}}``: the events after N as the seat sees them, then a view."""
    try:
        data = json.loads(message)
        last_seq = data["hello"]["last_seq"]
        if not isinstance(last_seq, int) or isinstance(last_seq, bool) or last_seq < -1:
            raise TypeError
    except (ValueError, KeyError, TypeError):
        await subscriber.queue.put(
            {"type": "error", "detail": 'send {"hello": {"last_seq": N}} (N ≥ -1)'}
        )
        return
    seat_ = subscriber.seat
    heads = await run_in_threadpool(service.heads, [seat_.table_id])
    encounter_id, head = heads[seat_.table_id]
    if head - last_seq <= MAX_REPLAYED and last_seq < head:
        events = await run_in_threadpool(service.events_since, seat_, last_seq)
        await subscriber.queue.put({"type": "events", "events": events})
    found = await run_in_threadpool(service.view, seat_)
    await subscriber.queue.put({"type": "view", "view": found.as_dict()})
    # anything committed after the head read above (here: already broadcast; by another
    # process: maybe notified before this socket's table was told) is caught up now
    hub.tell(seat_.table_id, encounter_id, head)
    await catch_up(hub, service, seat_.table_id)
