"""The library and tables: ``GET /api/library``, ``POST /api/tables`` (one of the library's
encounters), ``POST /api/tables/upload`` (uploaded content YAML), ``POST /api/tables/import``
(going on from an exported log), ``GET /join/TOKEN`` (a browser takes a seat; a GM's browser
is asked first, ``POST /join/TOKEN`` its yes)."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Final

from fastapi import APIRouter, Path, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from starlette.concurrency import run_in_threadpool

from caltrop.content.logfile import MAX_LOG_BYTES
from caltrop.store.repository import SCREEN_ROLE
from caltrop.store.service import RefusalError, Tables
from caltrop.web.deps import ORIGIN_CHECKED, TablesDep
from caltrop.web.errors import responses
from caltrop.web.routes.links import table_out
from caltrop.web.schemas import JoinOut, LibraryEntryOut, NewTableIn, NewTableOut
from caltrop.web.screen import render
from caltrop.web.seating import COOKIE, set_seat_cookie
from caltrop.web.uploads import UPLOAD_BODY, bounded_body, seed_field, uploaded

router = APIRouter()
#: a seat token's letters (``secrets.token_urlsafe``: 43 of them)
TOKEN_PATTERN: Final = r"^[A-Za-z0-9_-]{1,100}$"


@router.get("/api/library", responses=responses("GET /api/library"))
async def get_library(service: TablesDep) -> list[LibraryEntryOut]:
    """The encounters ready to open as a table."""
    entries = await run_in_threadpool(service.library)
    return [LibraryEntryOut(**dataclasses.asdict(e)) for e in entries]


@router.post(
    "/api/tables",
    status_code=201,
    dependencies=ORIGIN_CHECKED,
    responses=responses("POST /api/tables"),
)
async def create_table(body: NewTableIn, service: TablesDep, request: Request) -> NewTableOut:
    """A table of one of the library's encounters: the GM's token and link, one per PC."""
    new = await run_in_threadpool(service.create, body.encounter, seed=body.seed)
    return table_out(request, new)


@router.post(
    "/api/tables/upload",
    status_code=201,
    openapi_extra=UPLOAD_BODY,
    dependencies=ORIGIN_CHECKED,
    responses=responses("POST /api/tables/upload"),
)
async def upload_table(request: Request, service: TablesDep) -> NewTableOut:
    """A table of an uploaded encounter: multipart ``files`` (its YAML files: one of them
    ``kind: encounter``, which may include the others by relative path) and ``seed``."""
    files, fields = await uploaded(request)
    seed = seed_field(fields)
    new = await run_in_threadpool(lambda: service.create_from_upload(files, seed=seed))
    return table_out(request, new)


@router.post(
    "/api/tables/import",
    status_code=201,
    dependencies=ORIGIN_CHECKED,
    responses=responses("POST /api/tables/import"),
)
async def import_table(request: Request, service: TablesDep) -> NewTableOut:
    """A table that goes on from an exported log: the body is the JSON-lines log."""
    payload = await bounded_body(request, MAX_LOG_BYTES)
    return table_out(request, await run_in_threadpool(service.import_log, payload))


@router.get(
    "/join/{token}",
    response_model=JoinOut,
    responses={
        303: {"description": "a browser (Accept: text/html) goes on to its screen, /table"},
        **responses("GET /join/{token}"),
    },
)
async def join(
    token: Annotated[str, Path(pattern=TOKEN_PATTERN, description="a seat link's token")],
    service: TablesDep,
    request: Request,
) -> Response:
    """Bind this browser to the seat: an HttpOnly, SameSite cookie; a browser (one that
    accepts HTML) goes on to its screen (303 to ``/table``), a client gets JSON. A browser
    that is a GM's screen is asked first (issue 22 item 3: the GM's cookie is not lost to a
    seat link opened by mistake), its GM screen one tap away; ``POST /join/TOKEN`` is its
    yes."""
    found = await run_in_threadpool(service.seat, token)
    response: Response
    if "text/html" in request.headers.get("accept", ""):
        if found.role == SCREEN_ROLE:  # a table screen's link: its page, and no cookie set
            return RedirectResponse(f"/tv/{token}", status_code=303)
        held = request.cookies.get(COOKIE)
        if held is not None and held != token and await run_in_threadpool(_is_gm, service, held):
            name = found.creature_id or "the GM"
            return HTMLResponse(render("join.html", token=token, seat_name=name))
        response = RedirectResponse("/table", status_code=303)
    else:
        response = JSONResponse(
            {"table_id": found.table_id, "role": found.role, "creature": found.creature_id}
        )
    if found.role != SCREEN_ROLE:  # a table screen's token never becomes a browser's seat
        set_seat_cookie(request, response, token)
    return response


@router.post(
    "/join/{token}",
    status_code=303,
    dependencies=ORIGIN_CHECKED,
    responses={
        303: {"description": "the browser now holds the seat and goes on to /table"},
        **responses("POST /join/{token}"),
    },
)
async def confirm_join(
    token: Annotated[str, Path(pattern=TOKEN_PATTERN, description="a seat link's token")],
    service: TablesDep,
    request: Request,
) -> Response:
    """A GM's browser's yes to the question ``GET /join/TOKEN`` asked: it takes the seat."""
    found = await run_in_threadpool(service.seat, token)
    if found.role == SCREEN_ROLE:  # its page, as GET /join/TOKEN sends it; no cookie
        return RedirectResponse(f"/tv/{token}", status_code=303)
    response = RedirectResponse("/table", status_code=303)
    set_seat_cookie(request, response, token)
    return response


def _is_gm(service: Tables, token: str) -> bool:
    """Whether ``token`` is a GM seat still in force (an unknown or revoked one is not: such
    a browser holds nothing to lose)."""
    try:
        return service.seat(token).role == "gm"
    except RefusalError:
        return False
