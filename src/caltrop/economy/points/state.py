"""A participant's state in the Action Point module (seed 004): its points and its body.

:class:`PointsState` holds the points (AP, RP, floating RP: R31–R33) and the rest of a
participant's changing body in this module: Stamina (R37), position in meters (R34), equipped
weapons, aim (R39), conditions (prone, grappled, scaling, cover) and the GM's awareness and
line-of-sight facts. :data:`STAT_DEFAULTS` and :func:`stat` read the module's stat block.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal, TypeAlias

from caltrop.core.model import CreatureDef
from caltrop.economy.base import Resources

Unit: TypeAlias = Literal["ap", "rp"]

#: Stat names of a stat block in this module (``CreatureDef.stats``) and their defaults.
STAT_DEFAULTS: dict[str, int] = {
    "ap": 6,  # R31: "Every turn you have 6 Action Points"
    "rp": 2,  # R31: "2 Reaction Points during their turn"
    "stamina": 0,
    "power_mod": 0,
    "resistance": 0,
    "block_rating": 0,
    "dodge_rating": 0,
    "travel_speed": 1,  # meters per AP (R35)
    "size": 0,  # size category: larger numbers are larger creatures (R43)
    "weight": 0,
    "gifted_perception": 0,  # 1 if gifted in Perception (R41: score doubled)
    "x": 0,  # starting position in meters (R34)
    "y": 0,
}


def stat(creature: CreatureDef, name: str) -> int:
    """A stat of the Action Point stat block, with its default."""
    return creature.stats.get(name, STAT_DEFAULTS[name])


@dataclass(slots=True)
class PointsState:
    """One participant's changing state in the Action Point module."""

    ap: int
    rp: int
    floating: int
    stamina: int
    x: float
    y: float
    equipped: tuple[str, ...]
    moved: float = 0.0  # meters moved by the action just before (R36 run-up)
    aim: int = 0  # Aim stacks (R39)
    aim_target: str | None = None
    unseen: float = 0.0  # meters the aim target moved out of sight since the first Aim (R39)
    prone: bool = False
    grappled_by: str | None = None  # R42
    scaling: str | None = None  # the creature this one is scaling (R43)
    cover_from: tuple[str, ...] = ()  # sources it has taken cover from (R40)
    unaware_of: tuple[str, ...] = ()  # participants it is not aware of (R41)
    no_sight: tuple[str, ...] = ()  # participants it has no line of sight to (R34, GM's facts)
    hints: int = 0  # successful Martial Checks (R44)

    def copy(self) -> PointsState:
        return replace(self)

    def key(self) -> tuple[Any, ...]:
        """Every field, in order (each is a number, a string, None or a tuple of strings, so
        the tuple is hashable as it is); :meth:`as_dict` shows each of them too, leaving out
        only those at their default, so the two tell states apart alike
        (``tests/economy/points/test_state.py``)."""
        return (
            self.ap,
            self.rp,
            self.floating,
            self.stamina,
            self.x,
            self.y,
            self.equipped,
            self.moved,
            self.aim,
            self.aim_target,
            self.unseen,
            self.prone,
            self.grappled_by,
            self.scaling,
            self.cover_from,
            self.unaware_of,
            self.no_sight,
            self.hints,
        )

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ap": self.ap,
            "rp": self.rp,
            "floating_rp": self.floating,
            "stamina": self.stamina,
            "position": [self.x, self.y],
            "equipped": list(self.equipped),
        }
        for name in ("aim", "hints"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        if self.moved:
            out["moved"] = self.moved  # the run-up so far (R36): it decides what a leap may do
        if self.aim_target:
            out["aim_target"] = self.aim_target
        if self.unseen:
            out["aim_target_moved_unseen"] = self.unseen
        if self.prone:
            out["prone"] = True
        if self.grappled_by:
            out["grappled_by"] = self.grappled_by
        if self.scaling:
            out["scaling"] = self.scaling
        for name in ("cover_from", "unaware_of", "no_sight"):
            if getattr(self, name):
                out[name] = list(getattr(self, name))
        return out


def points(resources: Resources) -> PointsState:
    assert isinstance(resources, PointsState)
    return resources
