"""Defence in the Action Point module (seed 004): the window an incoming attack opens (R40,
R45) — block, dodge, take cover, assist — and the damage that gets through (Resistance, R40).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from caltrop.core.commands import Act
from caltrop.economy.base import Engine
from caltrop.economy.outcome import Outcome
from caltrop.economy.pending import PendingRoll
from caltrop.economy.points.common import (
    ADJACENT,
    PointsPlan,
    Price,
    Quote,
    distance,
    doubled,
    meters,
    pay_for,
    reaction_window,
    state_of,
)
from caltrop.economy.points.grapple import release
from caltrop.economy.points.rolls import Defence
from caltrop.economy.points.state import stat
from caltrop.errors import IllegalActionError


def _window(enc: Engine, i: int, command: Act, top: PendingRoll | None) -> PendingRoll:
    """The defence window ``command`` answers (R40, R45): an incoming attack's defence stage."""
    top = reaction_window(command, top)
    if top.stage != "defence":
        raise IllegalActionError(f"{command.action} answers an incoming attack (R40)")
    return top


def _own_window(enc: Engine, i: int, command: Act, top: PendingRoll | None) -> PendingRoll:
    """Block, Dodge and Take Cover are the target's own (R40)."""
    top = _window(enc, i, command, top)
    if i != top.roller:
        raise IllegalActionError(
            f"only {enc.creatures[top.roller].name}, the target, may {command.action} (R40)"
        )
    return top


def plan_assist(enc: Engine, i: int, command: Act, on_turn: bool, top: PendingRoll | None) -> Quote:
    """R40 Defense Assist: 1 RP, an adjacent ally of the target adds a die to its Block or
    Dodge."""
    top = _window(enc, i, command, top)
    creature = enc.creatures[i]
    defender = top.roller
    if i == defender or enc.creatures[defender].side is not creature.side:
        raise IllegalActionError("Defense Assist helps an adjacent ally being attacked (R40)")
    d = distance(state_of(enc, i), state_of(enc, defender))
    if d > ADJACENT + 1e-9:
        raise IllegalActionError(
            f"{enc.creatures[defender].name} is {meters(round(d, 2))} away; assist needs adjacency (R40)"
        )
    if Defence.of(top.context).mode not in ("block", "dodge"):
        raise IllegalActionError(
            f"Defense Assist adds a die to a Block or Dodge; {enc.creatures[defender].name} "
            "has chosen neither (R40)"
        )
    price = Price(1, "rp")
    pay = pay_for(enc, i, command, price, on_turn, "Defense Assist (1 RP, R40)")
    return Quote(command, price, pay)


def plan_cover(enc: Engine, i: int, command: Act, on_turn: bool, top: PendingRoll | None) -> Quote:
    """R40 Take Cover: 1 AP/RP, before Block or Dodge (R45), once per source until positions
    change."""
    top = _own_window(enc, i, command, top)
    creature = enc.creatures[i]
    window = Defence.of(top.context)
    source = enc.creatures[window.attacker]
    if window.cover or source.id in state_of(enc, i).cover_from:
        raise IllegalActionError(
            f"{creature.name} is already in cover from {source.name} until positions change (R40)"
        )
    if window.mode:
        raise IllegalActionError("Take Cover comes before Block or Dodge (R45)")
    price = Price(1, "rp")
    pay = pay_for(enc, i, command, price, on_turn, "Take Cover (1 AP/RP, R40)")
    return Quote(command, price, pay)


def plan_guard(enc: Engine, i: int, command: Act, on_turn: bool, top: PendingRoll | None) -> Quote:
    """R40 Block or Dodge: 1 AP/RP (doubled when grappled or scaled, R42, R43), one of the two."""
    top = _own_window(enc, i, command, top)
    verb = command.action
    window = Defence.of(top.context)
    if window.mode:
        raise IllegalActionError(f"{enc.creatures[i].name} already chose to {window.mode} (R40)")
    factor = doubled(enc, i, window.attacker)
    price = Price(factor, "rp")
    what = f"{verb} (1 AP/RP{' ×2, R42/R43' if factor > 1 else ''}, R40)"
    pay = pay_for(enc, i, command, price, on_turn, what)
    return Quote(command, price, pay)


def _amend(top: PendingRoll | None, **changes: Any) -> Defence:
    """Change the defence window's record (R40): the window is the roll the reaction answers."""
    assert top is not None
    window = replace(Defence.of(top.context), **changes)
    top.context = window.context()
    return window


def do_block(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
    _amend(top, mode="block")


def do_dodge(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
    _amend(top, mode="dodge")


def do_cover(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
    window = _amend(top, cover=True)
    state = state_of(enc, plan.actor)
    source = enc.creatures[window.attacker].id
    if source not in state.cover_from:
        state.cover_from = (*state.cover_from, source)


def do_assist(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
    assert top is not None
    _amend(top, assists=Defence.of(top.context).assists + 1)


def apply_damage(
    enc: Engine,
    target: int,
    amount: int,
    _unused: object,
    base: dict[str, Any],
    *,
    note: str,
    raw: bool = False,
) -> Outcome:
    creature = enc.creatures[target]
    dealt = amount if raw else max(0, amount - stat(creature, "resistance"))
    enc.health[target] = max(0, enc.health[target] - dealt)
    downed = False
    if enc.health[target] == 0 and not enc.down[target]:
        enc.down[target] = True
        downed = True
        release(enc, target)
    return Outcome(**base, target=creature.id, damage=dealt, downed=downed, note=note)
