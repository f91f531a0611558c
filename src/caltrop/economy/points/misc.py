"""The Action Point module's other own-turn verbs (seed 004): hold (R33: AP into floating RP),
equip and stow (R44), stand (R44), a deep breath (R37) and the Martial Check (R44).
"""

from __future__ import annotations

from caltrop.core.commands import Act
from caltrop.core.pool import net_advantage
from caltrop.economy.base import Engine
from caltrop.economy.pending import PendingRoll
from caltrop.economy.points.common import (
    PointsPlan,
    Price,
    Quote,
    no_extras,
    pay_for,
    push,
    state_of,
)
from caltrop.economy.points.rolls import Check
from caltrop.errors import IllegalActionError, InvalidActionError


def plan_hold(enc: Engine, i: int, command: Act, on_turn: bool, top: PendingRoll | None) -> Quote:
    no_extras(command, "hold")
    pay = pay_for(enc, i, command, Price(2), on_turn, "hold action (2 AP → 1 floating RP, R33)")
    return Quote(command, Price(2), pay)


def plan_equip(enc: Engine, i: int, command: Act, on_turn: bool, top: PendingRoll | None) -> Quote:
    return _equip_or_stow(enc, i, command, on_turn, equip=True)


def plan_stow(enc: Engine, i: int, command: Act, on_turn: bool, top: PendingRoll | None) -> Quote:
    return _equip_or_stow(enc, i, command, on_turn, equip=False)


def _equip_or_stow(enc: Engine, i: int, command: Act, on_turn: bool, *, equip: bool) -> Quote:
    """R44: equipping or stowing a weapon costs the weapon's attack AP (2 if it names none)."""
    verb = "equip" if equip else "stow"
    if len(command.targets) != 1 or command.to is not None or command.weapons:
        raise InvalidActionError(f"'{command.actor}: {verb} WEAPON'")
    creature = enc.creatures[i]
    weapon = creature.weapon(command.targets[0])
    if weapon is None:
        raise InvalidActionError(f"{creature.name} has no weapon {command.targets[0]!r}")
    held = weapon.name in state_of(enc, i).equipped
    if held == equip:
        raise IllegalActionError(f"{weapon.name} is {'already' if equip else 'not'} equipped (R44)")
    ap = weapon.ap if weapon.ap is not None else 2
    pay = pay_for(enc, i, command, Price(ap), on_turn, f"{verb} {weapon.name} ({ap} AP, R44)")
    return Quote(command, Price(ap), pay, weapon=weapon.name)


def plan_stand(enc: Engine, i: int, command: Act, on_turn: bool, top: PendingRoll | None) -> Quote:
    no_extras(command, "stand")
    if not state_of(enc, i).prone:
        raise IllegalActionError(f"{enc.creatures[i].name} is not prone (R44)")
    pay = pay_for(enc, i, command, Price(1), on_turn, "stand up (1 AP, R44)")
    return Quote(command, Price(1), pay)


def plan_breath(enc: Engine, i: int, command: Act, on_turn: bool, top: PendingRoll | None) -> Quote:
    no_extras(command, "breath")
    creature = enc.creatures[i]
    if state_of(enc, i).stamina >= creature.stats.get("stamina", 0):
        raise IllegalActionError(f"{creature.name}'s Stamina is full (R37)")
    pay = pay_for(enc, i, command, Price(1), on_turn, "deep breath (1 AP, R37)")
    return Quote(command, Price(1), pay)


def plan_martial(
    enc: Engine, i: int, command: Act, on_turn: bool, top: PendingRoll | None
) -> Quote:
    no_extras(command, "martial")
    if command.dc is None:
        raise InvalidActionError("a Martial Check needs the GM's DC: 'aria: martial dc 12'")
    pay = pay_for(enc, i, command, Price(3), on_turn, "Martial Check (3 AP, R44)")
    return Quote(command, Price(3), pay)


def do_hold(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
    state_of(enc, plan.actor).floating += 1


def do_equip(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
    state = state_of(enc, plan.actor)
    state.equipped = (*state.equipped, plan.extra["weapon"])


def do_stow(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
    state = state_of(enc, plan.actor)
    state.equipped = tuple(w for w in state.equipped if w != plan.extra["weapon"])


def do_stand(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
    state_of(enc, plan.actor).prone = False


def do_breath(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
    state = state_of(enc, plan.actor)
    state.stamina = min(state.stamina + 1, enc.creatures[plan.actor].stats.get("stamina", 0))


def do_martial(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
    assert plan.command.dc is not None  # plan_martial refuses a check without the GM's DC
    favor = net_advantage(plan.command.advantages)
    push(enc, plan.actor, Check(verb="martial", stat="Analysis", dc=plan.command.dc, favor=favor))
