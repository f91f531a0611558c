"""The GM's controls: ``PUT /api/visibility`` (what players see of NPCs), ``POST
/api/encounters`` and ``POST /api/encounters/upload`` (the night's next encounter), ``POST
/api/seats/ID/reissue`` (a new seat link; the old one's sockets are closed)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from caltrop.errors import ForbiddenError, RefusedError
from caltrop.store.service import uploaded_encounter
from caltrop.web.deps import ORIGIN_CHECKED, HubDep, SeatDep, TablesDep
from caltrop.web.errors import responses
from caltrop.web.routes.links import seat_out
from caltrop.web.schemas import NextEncounterIn, RevealIn, SeatOut
from caltrop.web.seating import REVOKED
from caltrop.web.subscriber import Outgoing
from caltrop.web.uploads import UPLOAD_BODY, seed_field, uploaded

router = APIRouter()
RESETS = frozenset({"health", "stamina", "exhaustion"})


@router.put(
    "/api/visibility",
    status_code=204,
    dependencies=ORIGIN_CHECKED,
    responses=responses("PUT /api/visibility"),
)
async def put_visibility(
    body: dict[str, RevealIn], service: TablesDep, hub: HubDep, seat: SeatDep
) -> None:
    shown = {k: v.model_dump() for k, v in body.items()}
    await run_in_threadpool(service.set_visibility, seat, shown)
    await hub.poke(seat.table_id, fresh=True)


@router.post(
    "/api/encounters",
    status_code=201,
    dependencies=ORIGIN_CHECKED,
    responses=responses("POST /api/encounters"),
)
async def next_encounter(
    body: NextEncounterIn, service: TablesDep, hub: HubDep, seat: SeatDep, request: Request
) -> dict[str, dict[str, SeatOut]]:
    """The GM: the table's next encounter; PCs carry Health, Stamina and Exhaustion over
    unless ``reset`` names them. Gives links for PCs new to the table; every socket gets
    ``{"type": "encounter"}``, the new encounter's events and a fresh view."""
    tokens = await run_in_threadpool(
        lambda: service.next_encounter(seat, body.encounter, reset=body.reset, seed=body.seed)
    )
    await hub.poke(seat.table_id, fresh=True)
    return {"players": {c: seat_out(request, t) for c, t in tokens.items()}}


@router.post(
    "/api/encounters/upload",
    status_code=201,
    openapi_extra=UPLOAD_BODY,
    dependencies=ORIGIN_CHECKED,
    responses=responses("POST /api/encounters/upload"),
)
async def upload_next_encounter(
    request: Request, service: TablesDep, hub: HubDep, seat: SeatDep
) -> dict[str, dict[str, SeatOut]]:
    """The GM: the night's next encounter from uploaded YAML files (multipart ``files``;
    ``reset``: health, stamina or exhaustion, repeated; ``seed``)."""
    if seat.role != "gm":
        raise ForbiddenError("only the GM starts the next encounter")
    files, fields = await uploaded(request)
    reset = [str(v) for v in fields.getlist("reset")]
    wrong = sorted(set(reset) - RESETS)
    if wrong:
        raise RefusedError(f"reset names health, stamina or exhaustion, not {wrong[0]!r}")
    seed = seed_field(fields)
    definition = await run_in_threadpool(uploaded_encounter, files)
    tokens = await run_in_threadpool(
        lambda: service.next_encounter(seat, definition, reset=reset, seed=seed)
    )
    await hub.poke(seat.table_id, fresh=True)
    return {"players": {c: seat_out(request, t) for c, t in tokens.items()}}


@router.post(
    "/api/seats/{creature_id}/reissue",
    dependencies=ORIGIN_CHECKED,
    responses=responses("POST /api/seats/{creature_id}/reissue"),
)
async def reissue(
    creature_id: str, service: TablesDep, hub: HubDep, seat: SeatDep, request: Request
) -> SeatOut:
    """The GM: revoke the creature's seat (its sockets are closed) and issue a new link."""
    token, revoked = await run_in_threadpool(service.reissue, seat, creature_id)
    close_revoked_here(hub, seat.table_id, revoked)
    return seat_out(request, token)


def close_revoked_here(hub: HubDep, table_id: str, revoked: list[int] | set[int]) -> None:
    """The sockets here of the revoked seats get the revoked message, which ends them."""
    stream = hub.stream(table_id)
    if stream is not None:
        stream.revoke(revoked, Outgoing(REVOKED))
