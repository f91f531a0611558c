"""A roll waiting in its reaction window (R15), and what became of rolls that resolved."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from caltrop.core.model import ActionDef, Weapon
from caltrop.core.pool import Advantage, net_advantage


class RollKind(StrEnum):
    """Why a roll is pending."""

    ACTION = "action"  # a declared attack or check (seed 000 steps 1–6)
    GM_CALL = "gm_call"  # a GM-called roll (R17): no gate, no Load
    INITIATIVE = "initiative"  # R21 option ``initiative: check`` (R30 procedure)
    STAGE = "stage"  # one roll of a module's multi-roll resolution (seed 004: hit, damage, …)


@dataclass(slots=True)
class PendingRoll:
    """A declared roll not yet rolled.

    While it is pending, other creatures may declare team actions and reactions that change its
    Net Advantage (R15); it is rolled when the GM or the declaring player says ``roll``.
    ``advantages`` holds every (kind, source) applied so far; duplicates of a source count once
    (R14). ``passed`` holds the creatures that declined to react.
    """

    kind: RollKind
    roller: int
    action: ActionDef | None = None
    target: int | None = None
    weapon: Weapon | None = None
    dc: int | None = None
    aspect: str | None = None
    count_load: bool = False
    advantages: list[Advantage] = field(default_factory=list)
    helpers: list[tuple[int, str]] = field(default_factory=list)
    passed: set[int] = field(default_factory=set)
    on_turn: bool = True
    stage: str = ""
    context: dict[str, Any] = field(default_factory=dict)

    def copy(self) -> PendingRoll:
        return PendingRoll(
            self.kind,
            self.roller,
            self.action,
            self.target,
            self.weapon,
            self.dc,
            self.aspect,
            self.count_load,
            list(self.advantages),
            list(self.helpers),
            set(self.passed),
            self.on_turn,
            self.stage,
            dict(self.context),
        )

    @property
    def net_advantage(self) -> int:
        return net_advantage(self.advantages) if self.advantages else 0
