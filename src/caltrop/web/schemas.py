"""The JSON bodies the API takes and gives (pydantic). The bodies taken are strict (issue 20
§4): a field the schema says is an integer takes an integer, not ``false`` or ``"3"``; a
boolean takes ``true`` or ``false``, not ``1`` or ``"yes"``; text takes text. Refusals are
:class:`caltrop.web.errors.ErrorOut`."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from caltrop.web.text import StoredText


class NewTableIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    encounter: StoredText = Field(
        default="goblin-ambush", max_length=100, description="an encounter of GET /api/library"
    )
    seed: int | None = Field(default=None, ge=0, lt=2**63, description="the dice's seed")


class NextEncounterIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    encounter: StoredText = Field(max_length=100, description="an encounter of GET /api/library")
    reset: list[Literal["health", "stamina", "exhaustion"]] = Field(
        default_factory=list, description="what the PCs do not carry over"
    )
    seed: int | None = Field(default=None, ge=0, lt=2**63)


class LibraryEntryOut(BaseModel):
    name: str = Field(description="what POST /api/tables takes as 'encounter'")
    title: str
    module: str = Field(description="action_load or action_points")
    summary: str


class SeatOut(BaseModel):
    token: str
    link: str


class NewTableOut(BaseModel):
    table_id: str
    gm: SeatOut
    players: dict[str, SeatOut]


class CommandIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    command: StoredText = Field(max_length=2000, description="the engine's notation: 'aria: help'")
    command_id: StoredText = Field(min_length=1, max_length=100, description="chosen by the client")
    expected_seq: int | None = Field(default=None, ge=0)


class RevealIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    health: Literal["exact", "label", "hidden"] = "label"
    aspects: bool = False
    resources: bool = False
    odds: bool = True


class JoinOut(BaseModel):
    table_id: str
    role: Literal["gm", "player"]
    creature: str | None = Field(description="the player's creature; null for the GM")


AnyJson = dict[str, Any]
