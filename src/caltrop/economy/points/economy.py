"""The Action Point economy (seed 004): 6 AP on one's own turn, 2 RP on every other turn.

* R31 — at the start of its own turn a participant gets its AP (default 6; unspent AP are lost
  when the turn ends); at the start of every *other* participant's turn its RP are **set** to 2.
* R32 — on its own turn a participant pays in AP, an RP price 1 AP per RP; on another's turn it
  pays in RP and floating RP, an AP price 2 RP per AP.
* R33 — Hold Action: on its own turn 2 AP become 1 floating RP, spent once on any other
  participant's turn on top of the regular RP; all are lost at the start of the holder's turn.

The participant's state (:class:`~caltrop.economy.points.state.PointsState`: points, Stamina,
position, conditions) is in :mod:`caltrop.economy.points.state`.
"""

from __future__ import annotations

from dataclasses import dataclass

from caltrop.core.model import ActionDef, CreatureDef, Ruleset
from caltrop.core.pool import pool_size
from caltrop.economy.base import Resources
from caltrop.economy.points.state import PointsState, Unit, points, stat


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
    :mod:`caltrop.economy.points.actions`)."""

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
