"""The whole log on the page (issue 22 item 6): ``GET /table/log?before=SEQ&limit=N``, one page
of the log going back as HTML list items for the screen's "Older" button (htmx), the same page
``GET /api/events?before=SEQ`` gives as JSON: the seat's own (cookie or bearer), at most
:data:`~caltrop.table.log.MAX_PAGE` events, as that seat may see them (the live stream's
filter). Also ``GET /favicon.ico``: the pages name their icon inline, but a browser shown
anything else (a JSON answer, an error) still asks for it (issue 22 item 8)."""

from __future__ import annotations

from typing import Annotated, Final

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from caltrop.table.log import MAX_PAGE, PAGE
from caltrop.web.deps import SeatDep, TablesDep
from caltrop.web.routes.play import MAX_SEQ
from caltrop.web.screen import render

router = APIRouter(include_in_schema=False)
#: the pages' icon (the same triangle base.html names inline)
FAVICON: Final = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
    '<path d="M8 1 15 14H1z" fill="#0b4f8a"/></svg>'
)


@router.get("/table/log", response_class=HTMLResponse)
async def log_page(
    service: TablesDep,
    seat: SeatDep,
    before: Annotated[int, Query(ge=0, le=MAX_SEQ)],
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = PAGE,
) -> HTMLResponse:
    """The entries below ``before``, newest first, and the next "Older" (or the log's start)."""
    entries, older = await run_in_threadpool(service.log_page, seat, before, limit)
    return HTMLResponse(render("log.html", log_page=entries, older=older))


@router.get("/favicon.ico")
async def favicon() -> Response:
    return Response(FAVICON, media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"})
