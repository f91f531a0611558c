"""Playing: ``GET /api/view`` (the seat's view model), ``POST /api/commands`` (committed, then
answered, then the table's sockets are told), ``GET /api/events?after=N`` (the log as the seat
may see it) or ``?before=N`` (a page of it going back), ``GET /api/log`` and ``GET /api/night``
(the GM's exports)."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping
from typing import Annotated, Any, Final

from fastapi import APIRouter, Query, Response
from fastapi.responses import PlainTextResponse
from starlette.concurrency import run_in_threadpool

from caltrop.errors import RefusedError
from caltrop.store.service import Accepted
from caltrop.table.log import MAX_PAGE, PAGE
from caltrop.web.deps import ORIGIN_CHECKED, HubDep, SeatDep, TablesDep
from caltrop.web.errors import responses
from caltrop.web.schemas import CommandIn

router = APIRouter()
#: far past any log's head (a seq or position beyond it is refused, never sent to the database)
MAX_SEQ: Final = 2**31 - 1


@router.get("/api/view", responses=responses("GET /api/view"))
async def get_view(service: TablesDep, seat: SeatDep) -> dict[str, Any]:
    found = await run_in_threadpool(service.view, seat)
    return found.as_dict()


@router.post(
    "/api/commands", dependencies=ORIGIN_CHECKED, responses=responses("POST /api/commands")
)
async def post_command(
    body: CommandIn, service: TablesDep, hub: HubDep, seat: SeatDep
) -> Mapping[str, Any]:
    """``{command, command_id, expected_seq?}``: committed, then answered; the table's
    sockets are told after (its stream, :mod:`caltrop.web.stream`). A retry of a command_id
    gets the stored answer; 409 for a stale ``expected_seq`` (with ``head``), 403 for a
    command the seat may not give, 422 for one the rules refuse — nothing is stored then."""
    accepted: Accepted = await run_in_threadpool(
        service.submit, seat, body.command, body.command_id, body.expected_seq
    )
    if not accepted.replayed:  # committed above: only now is anyone told
        await hub.poke(seat.table_id)
    return public_answer(accepted)


def public_answer(accepted: Accepted) -> dict[str, Any]:
    """A command's answer as its client gets it (without the seat id stored with it)."""
    return {k: v for k, v in accepted.answer.items() if k != "seat"}


@router.get("/api/events", responses=responses("GET /api/events"))
async def get_events(
    service: TablesDep,
    seat: SeatDep,
    after: Annotated[int | None, Query(ge=-1, le=MAX_SEQ)] = None,
    before: Annotated[int | None, Query(ge=0, le=MAX_SEQ)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = PAGE,
) -> dict[str, list[dict[str, Any]]]:
    """The log as the seat may see it: every event after ``after`` (default -1, the whole
    log), oldest first; or, with ``before``, one page going back (issue 22 item 6): at most
    ``limit`` events with seq below ``before``, newest first — the next page's ``before`` is
    the last seq of this one, and an empty page is the log's start."""
    if before is not None:
        if after is not None:
            raise RefusedError("give after (events since) or before (a page back), not both")
        return {"events": await run_in_threadpool(service.events_before, seat, before, limit)}
    return {
        "events": await run_in_threadpool(
            service.events_since, seat, -1 if after is None else after
        )
    }


@router.get("/api/log", response_class=PlainTextResponse, responses=responses("GET /api/log"))
async def get_log(
    service: TablesDep,
    seat: SeatDep,
    position: Annotated[int | None, Query(ge=0, le=MAX_SEQ)] = None,
) -> str:
    """The GM's export of an encounter's log (``caltrop replay`` reads it): the current one,
    or the one at ``position`` of the night (0 the first)."""
    lines = await run_in_threadpool(service.log_lines, seat, position)
    return "\n".join(lines) + "\n"


@router.get(
    "/api/night",
    response_class=Response,
    responses={
        200: {"content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}}},
        **responses("GET /api/night"),
    },
)
async def get_night(service: TablesDep, seat: SeatDep) -> Response:
    """Every encounter's log of the night (``1-goblin-ambush.jsonl``, …) in one zip."""
    logs = await run_in_threadpool(service.night, seat)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, lines in logs:
            archive.writestr(name, "\n".join(lines) + "\n")
    return Response(
        buffer.getvalue(),
        media_type="application/zip",
        headers={"Content-Disposition": 'attachment; filename="caltrop-night.zip"'},
    )
