"""What a resolved roll did: kept in the log beside its dice, for stories and displays."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from caltrop.economy.pending import RollKind


@dataclass(frozen=True, slots=True)
class Outcome:
    """One resolved roll: who rolled what (every die, R5), and what it did."""

    roller: str
    kind: RollKind
    expression: str
    faces: tuple[int, ...]
    total: int
    action: str | None = None
    target: str | None = None
    damage: int | None = None
    dc: int | None = None
    success: bool | None = None
    downed: bool = False
    note: str | None = None


def outcome_json(o: Outcome) -> dict[str, Any]:
    """The roll record of a log event: exactly what a replay must reproduce."""
    out: dict[str, Any] = {
        "roller": o.roller,
        "expression": o.expression,
        "faces": list(o.faces),
        "total": o.total,
    }
    if o.damage is not None:
        out["damage"] = o.damage
    if o.target is not None:
        out["target"] = o.target
    if o.success is not None:
        out["success"] = o.success
    if o.downed:
        out["downed"] = True
    if o.note:
        out["note"] = o.note
    return out
