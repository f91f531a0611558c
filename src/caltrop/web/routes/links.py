"""Seat links: the address an invite token is opened at (``base_url`` + ``/join/TOKEN``)."""

from __future__ import annotations

from fastapi import Request

from caltrop.store.service import NewTable
from caltrop.web.schemas import NewTableOut, SeatOut


def link(request: Request, token: str) -> str:
    base: str = request.app.state.settings.base_url
    return f"{base.rstrip('/')}/join/{token}"


def seat_out(request: Request, token: str) -> SeatOut:
    return SeatOut(token=token, link=link(request, token))


def table_out(request: Request, new: NewTable) -> NewTableOut:
    return NewTableOut(
        table_id=new.table_id,
        gm=seat_out(request, new.gm_token),
        players={c: seat_out(request, t) for c, t in new.player_tokens.items()},
    )
