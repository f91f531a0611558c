"""Attacks in the Action Point module (seed 004): aim (R39), the melee attack (R38: no roll to
hit, the weapons' dice halved up together) and the shot (R39: a Dexterity check against the
distance), and their hit and damage stages (R45: hit, then damage, then the defence window).
"""

from __future__ import annotations

import math

from caltrop.core.commands import Act
from caltrop.core.model import (
    CreatureDef,
    Halving,
    Weapon,
    WeaponKind,
)
from caltrop.core.pool import net_advantage
from caltrop.dice.ast import Const, Dice, Div, Expr, Group, Term
from caltrop.economy.base import Engine
from caltrop.economy.pending import PendingRoll
from caltrop.economy.points.common import (
    ADJACENT,
    PointsPlan,
    Price,
    Quote,
    distance,
    doubled,
    lose_aim,
    meters,
    no_extras,
    one_target,
    pay_for,
    push,
    state_of,
)
from caltrop.economy.points.rolls import Damage, Hit
from caltrop.economy.points.state import stat
from caltrop.errors import IllegalActionError, InvalidActionError

#: R38: "Standard unarmed attack requires 2 AP, and it's damage is (1d8 + [Power Mod])."
UNARMED = Weapon("unarmed", Expr((Term(1, Dice(1, 8)),)), WeaponKind.MELEE, ap=2)


def equipped(enc: Engine, i: int, names: tuple[str, ...], kind: WeaponKind) -> list[Weapon]:
    creature = enc.creatures[i]
    state = state_of(enc, i)
    if not names:
        fitting = [w for w in creature.weapons if w.name in state.equipped and w.kind is kind]
        if kind is WeaponKind.MELEE:
            return fitting[:1] if fitting else [UNARMED]
        if len(fitting) != 1:
            known = ", ".join(w.name for w in fitting) or "none equipped"
            raise InvalidActionError(f"which ranged weapon? add 'with WEAPON' ({known})")
        return fitting
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise IllegalActionError(
            f"each weapon joins an attack once; {', '.join(twice)} is named twice (R38)"
        )
    if "unarmed" in names and len(names) > 1:
        raise IllegalActionError("an unarmed attack is made alone, not with weapons (R38)")
    out: list[Weapon] = []
    for name in names:
        if name == "unarmed":
            out.append(UNARMED)
            continue
        weapon = creature.weapon(name)
        if weapon is None:
            known = ", ".join(w.name for w in creature.weapons) or "none"
            raise InvalidActionError(f"{creature.name} has no weapon {name!r} (has: {known})")
        if name not in state.equipped:
            raise IllegalActionError(f"{name} is not equipped: 'equip {name}' first (R44)")
        if weapon.kind is not kind:
            raise IllegalActionError(
                f"{name} is a {weapon.kind} weapon: melee attacks (R38), ranged shots (R39)"
            )
        out.append(weapon)
    return out


def plan_aim(enc: Engine, i: int, command: Act, on_turn: bool, top: PendingRoll | None) -> Quote:
    no_extras(command, "aim", targets=True)
    target = one_target(enc, command, "aim")
    pay = pay_for(enc, i, command, Price(1), on_turn, "aim (1 AP, R39)")
    return Quote(command, Price(1), pay, target=target)


def plan_attack(enc: Engine, i: int, command: Act, on_turn: bool, top: PendingRoll | None) -> Quote:
    no_extras(command, "attack", targets=True)
    target = one_target(enc, command, "attack")
    creature = enc.creatures[i]
    if enc.creatures[target].side is creature.side:
        raise IllegalActionError(f"{creature.name} will not attack an ally (R38)")
    d = distance(state_of(enc, i), state_of(enc, target))
    if d > ADJACENT + 1e-9:
        raise IllegalActionError(
            f"{enc.creatures[target].name} is {meters(round(d, 2))} away; a melee attack reaches "
            f"{ADJACENT:g} m (adjacent, R34)"
        )
    weapons = equipped(enc, i, command.weapons, WeaponKind.MELEE)
    base = max(w.ap if w.ap is not None else 2 for w in weapons)  # R38: the highest AP
    factor = doubled(enc, i, target)
    price = Price(base * factor)
    names = "+".join(w.name for w in weapons)
    what = f"attack with {names} ({base} AP{' ×2, R42/R43' if factor > 1 else ''}, R38)"
    pay = pay_for(enc, i, command, price, on_turn, what)
    return Quote(command, price, pay, target=target, weapons=tuple(weapons))


def plan_shoot(enc: Engine, i: int, command: Act, on_turn: bool, top: PendingRoll | None) -> Quote:
    no_extras(command, "shoot", targets=True)
    target = one_target(enc, command, "shoot")
    creature = enc.creatures[i]
    if enc.creatures[target].side is creature.side:
        raise IllegalActionError(f"{creature.name} will not shoot an ally (R39)")
    (weapon,) = equipped(enc, i, command.weapons[:1], WeaponKind.RANGED)
    if len(command.weapons) > 1:
        raise InvalidActionError("shoot uses one ranged weapon")
    d = math.ceil(distance(state_of(enc, i), state_of(enc, target)) - 1e-9)  # R34: rounded up
    far = weapon.far if weapon.far is not None else weapon.close
    if far is None or d > far:
        raise IllegalActionError(
            f"{enc.creatures[target].name} is {d} m away; {weapon.name} reaches {far or 0} m (R39)"
        )
    base = weapon.ap if weapon.ap is not None else 2
    factor = doubled(enc, i, target)
    price = Price(base * factor)
    what = f"shoot with {weapon.name} ({base} AP{' ×2' if factor > 1 else ''}, R39)"
    pay = pay_for(enc, i, command, price, on_turn, what)
    return Quote(command, price, pay, target=target, weapons=(weapon,), dc=d)


def do_aim(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
    state = state_of(enc, plan.actor)
    target = enc.creatures[plan.extra["target"]].id
    if state.aim_target != target:
        state.unseen = 0.0  # R39: the count starts at the first Aim at this target
    state.aim += 1
    state.aim_target = target


def do_attack(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
    weapons: tuple[Weapon, ...] = plan.extra["weapons"]
    halving = enc.definition.ruleset.multi_weapon_halving
    push(
        enc,
        plan.actor,
        Damage(
            verb="attack",
            attacker=plan.actor,
            target=int(plan.extra["target"]),
            damage=str(melee_damage(enc.creatures[plan.actor], weapons, halving)),
            weapons="+".join(w.name for w in weapons),
            reveals=reveals(plan.command),
        ),
    )


def reveals(command: Act) -> bool:
    """R41: an attack made without ``+stealth`` is not inconspicuous — its target, if it was
    unsuspecting, notices the attacker once the attack is resolved (one ambush, not many)."""
    return "stealth" not in command.flags


def do_shoot(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
    state = state_of(enc, plan.actor)
    (weapon,) = plan.extra["weapons"]
    dc = int(plan.extra["dc"])
    close = weapon.close if weapon.close is not None else 0
    favor = 1 if dc <= close else -1  # R39: close range Favor, far range Disfavor
    favor += state.aim  # R39: Aim stacks, all spent by this attack
    favor += net_advantage(plan.command.advantages)
    lose_aim(state)
    push(
        enc,
        plan.actor,
        Hit(
            verb="shoot",
            attacker=plan.actor,
            target=int(plan.extra["target"]),
            dc=dc,
            favor=favor,
            damage=str(weapon.dice),
            weapons=weapon.name,
            reveals=reveals(plan.command),
        ),
    )


def melee_parts(weapons: tuple[Weapon, ...], power_mod: int) -> tuple[tuple[Term, ...], int]:
    """R38's two parts of a melee attack with ``weapons`` as one: the damage dice (halved, rounded
    up, as a whole) and the constant added after (the weapons' modifiers, and the Power Mod if
    unarmed)."""
    dice_terms: list[Term] = []
    constant = 0
    for w in weapons:
        for term in w.dice.terms:
            if isinstance(term.node, Const):
                constant += term.sign * term.node.value
            else:
                dice_terms.append(term)
        if w is UNARMED:
            constant += power_mod
    return tuple(dice_terms), constant


def melee_damage(
    creature: CreatureDef, weapons: tuple[Weapon, ...], halving: Halving = Halving.TOGETHER
) -> Expr:
    """R38: ceil(sum of the damage dice / 2) + modifiers; several weapons as one attack, their
    dice halved up together (``together``, "the rolled value is halved up") or each weapon's
    dice halved up on its own, then summed (``each``). Constants and Power Mod come after."""
    power_mod = stat(creature, "power_mod")
    groups = [weapons] if halving is Halving.TOGETHER else [(w,) for w in weapons]
    terms: list[Term] = []
    constant = 0
    for group in groups:
        dice_terms, extra = melee_parts(group, power_mod)
        constant += extra
        if not dice_terms:
            continue
        first = dice_terms[0].node if len(dice_terms) == 1 and dice_terms[0].sign > 0 else None
        operand = first if isinstance(first, Dice | Group) else Group(Expr(tuple(dice_terms)))
        terms.append(Term(1, Div(operand, 2)))
    if constant or not terms:
        terms.append(Term(1 if constant >= 0 else -1, Const(abs(constant))))
    return Expr(tuple(terms))
