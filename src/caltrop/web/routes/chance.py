"""``POST /table/chance``: the GM shows the live chance of winning to the players, or hides it
(issue 23 item 4; a form of the GM screen's chance panel, ``templates/chance.html``).

The switch is stored with the table (:meth:`~caltrop.store.service.Tables.set_chance_shown`),
so it outlives a restart; the chance worker is signalled, and tells the players' sockets (the
panel, or the empty one). A player's seat is refused (403), as every GM control is.
"""

from __future__ import annotations

import html

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from caltrop.errors import NoSeatError
from caltrop.store.service import RefusalError
from caltrop.web import seating
from caltrop.web.chance import chance_worker
from caltrop.web.deps import ORIGIN_CHECKED, hub_of, service_of
from caltrop.web.errors import status_of
from caltrop.web.text import checked_form

router = APIRouter(include_in_schema=False)


@router.post("/table/chance", response_class=HTMLResponse, dependencies=ORIGIN_CHECKED)
async def show_chance(request: Request) -> HTMLResponse:
    """``shown=1`` shows the chance to the players; no ``shown`` field hides it."""
    service = service_of(request)
    try:
        token = request.cookies.get(seating.COOKIE)
        if not token:
            raise NoSeatError("no seat in this browser: open your invite link")
        seat = await run_in_threadpool(service.seat, token)
        form = checked_form(await request.form())  # no NUL (issue 20)
        shown = form.get("shown") is not None
        await run_in_threadpool(service.set_chance_shown, seat, shown)
    except RefusalError as exc:
        body = f'<span class="refusal" role="alert">{html.escape(exc.reason)}</span>'
        return HTMLResponse(body, status_code=status_of(exc))
    worker = chance_worker(hub_of(request))
    if worker is not None:
        worker.changed(seat.table_id)
    said = "shown to the players" if shown else "hidden from the players"
    return HTMLResponse(f'<span class="ok" role="status">{said}</span>')
