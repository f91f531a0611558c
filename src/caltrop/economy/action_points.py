"""The Action Point economy (seed 004): 6 AP on one's own turn, 2 RP on every other turn.

* R31 — at the start of its own turn a participant gets its AP (default 6; unspent AP are lost
  when the turn ends); at the start of every *other* participant's turn its RP are **set** to 2.
* R32 — on its own turn a participant pays in AP, an RP price 1 AP per RP; on another's turn it
  pays in RP and floating RP, an AP price 2 RP per AP.
* R33 — Hold Action: on its own turn 2 AP become 1 floating RP, spent once on any other
  participant's turn on top of the regular RP; all are lost at the start of the holder's turn.

Besides points, :class:`PointsState` holds the rest of a participant's changing body in this
module: Stamina (R37), position in meters (R34), equipped weapons, aim (R39), conditions
(prone, grappled, scaling, cover) and the GM's awareness and line-of-sight facts.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal, TypeAlias

from caltrop.core.model import ActionDef, CreatureDef, Ruleset
from caltrop.core.pool import pool_size
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


@dataclass(frozen=True, slots=True)
class Payment:
    """Whether a price can be paid now, and how: the points it would take."""

    allowed: bool
    reason: str
    ap: int = 0
    rp: int = 0
    floating: int = 0

    def __bool__(self) -> bool:
        return self.allowed


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
        (``tests/economy/test_points_state_key.py``)."""
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


def payment(state: PointsState, price: int, unit: Unit, *, on_turn: bool, what: str) -> Payment:
    """How ``price`` (in ``unit``) would be paid now, or why it cannot be (R32).

    On its own turn: AP, an RP price at 1 AP per RP. Off turn: RP first, then floating RP; an
    AP price at 2 RP per AP.
    """
    if on_turn:
        if state.ap >= price:
            return Payment(True, f"{what}: {price} AP of {state.ap}", ap=price)
        per = "" if unit == "ap" else f" ({price} RP paid as {price} AP)"
        return Payment(False, f"{what} needs {price} AP{per}; {state.ap} AP left")
    need = price * 2 if unit == "ap" else price
    have = state.rp + state.floating
    shown = f"{price} AP = {need} RP" if unit == "ap" else f"{need} RP"
    if have < need:
        return Payment(
            False, f"{what} needs {shown}; {state.rp} RP + {state.floating} floating RP = {have}"
        )
    from_rp = min(state.rp, need)
    return Payment(True, f"{what}: {shown} of {have}", rp=from_rp, floating=need - from_rp)


def spend(state: PointsState, pay: Payment) -> None:
    state.ap -= pay.ap
    state.rp -= pay.rp
    state.floating -= pay.floating


class ActionPointsEconomy:
    """The points of seed 004 behind the economy protocol (the rules of its actions are in
    :mod:`caltrop.economy.points_actions`)."""

    name = "action_points"

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset

    def initial(self, creature: CreatureDef) -> PointsState:
        equipped = (
            creature.equipped
            if creature.equipped is not None
            else tuple(w.name for w in creature.weapons)
        )
        return PointsState(
            ap=0,
            rp=stat(creature, "rp"),
            floating=0,
            stamina=creature.stats.get("stamina", 0),
            x=float(stat(creature, "x")),
            y=float(stat(creature, "y")),
            equipped=tuple(equipped),
        )

    def on_round_start(
        self, creatures: tuple[CreatureDef, ...], resources: list[Resources]
    ) -> None:
        """Nothing happens at a round start in this module: points follow turns (R31)."""

    def on_turn_start(
        self, creatures: tuple[CreatureDef, ...], resources: list[Resources], owner: int
    ) -> None:
        """R31: the owner gets its AP; everyone else's RP are *set* to their RP (not added).
        R33: the owner's floating RP are lost. Unspent AP of the others are gone. R36: a run-up
        does not carry over into another turn."""
        for i, (creature, res) in enumerate(zip(creatures, resources, strict=True)):
            state = points(res)
            state.moved = 0.0
            if i == owner:
                state.ap = stat(creature, "ap")
                state.rp = 0
                state.floating = 0
            else:
                state.ap = 0
                state.rp = stat(creature, "rp")

    def gate(
        self, creature: CreatureDef, resources: Resources, action: ActionDef, *, on_turn: bool
    ) -> Payment:
        """Whether ``action.cost`` AP can be paid now (R32); never depends on Favor (R2, R11)."""
        return payment(points(resources), action.cost, "ap", on_turn=on_turn, what=action.name)

    def allows(
        self, creature: CreatureDef, resources: Resources, action: ActionDef, *, on_turn: bool
    ) -> bool:
        return bool(self.gate(creature, resources, action, on_turn=on_turn))

    def pool(
        self, creature: CreatureDef, resources: Resources, action: ActionDef, net_adv: int
    ) -> int:
        """R1/R2/R3: the stat's value in d4s, plus one per net Favor, at least 1."""
        return pool_size(creature.aspects.get(action.aspect, 0), 0, net_adv)

    def pay(
        self, creature: CreatureDef, resources: Resources, action: ActionDef, *, on_turn: bool
    ) -> None:
        state = points(resources)
        spend(state, payment(state, action.cost, "ap", on_turn=on_turn, what=action.name))

    def gm_pool(
        self,
        creature: CreatureDef,
        resources: Resources,
        aspect: int,
        net_adv: int,
        *,
        count_load: bool,
    ) -> int:
        """A GM-called roll of a stat: its value in d4s plus net Favor, at least 1 (R1, R3)."""
        return max(1, aspect + net_adv)

    def describe(self, creature: CreatureDef, resources: Resources) -> str:
        s = points(resources)
        floating = f" +{s.floating}f" if s.floating else ""
        return f"AP {s.ap} RP {s.rp}{floating} St {s.stamina}"
