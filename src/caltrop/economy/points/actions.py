"""The actions of the Action Point module (seed 004), plugged into the one encounter engine.

The engine hands this module the commands, roll stages and reaction windows of an encounter whose
ruleset names ``economy: action_points``; turns, the log, replay, undo, clone, chance points and
the decision pointer stay the engine's. Every participant has the module's built-in actions:

=============  ==========================================  =================================
action         text                                        rule
=============  ==========================================  =================================
move           ``aria: move to 3,4``                       R35: 1 AP per travel speed meters
leap           ``aria: leap to 6,4``                       R36: 3 AP + 3 Stamina
hold           ``aria: hold``                              R33: 2 AP → 1 floating RP
aim            ``aria: aim goblin``                        R39: 1 AP, +1 Favor, stacking
attack         ``aria: attack goblin with sword+dagger``   R38: melee, no roll to hit
shoot          ``aria: shoot goblin with bow``             R39: Dexterity check, DC = distance
block / dodge  ``aria: block`` (in the defence window)     R40, R45
cover          ``aria: cover`` (in the defence window)     R40: doubles Block/Dodge dice
assist         ``bron: assist`` (adjacent ally)            R40: 1 RP, +1 die
grapple        ``brakka: grapple aria``                    R42: 3 AP + 2 Stamina, opposed
escape         ``aria: escape``                            R42: 2 AP/RP + 2 Stamina
scale          ``aria: scale troll`` / ``aria: scale``     R43: 3 AP + 4 Stamina
shake          ``troll: shake``                            R43: as escape
oppose         ``brakka: oppose``                          R42/R43: answer an escape/scale
equip / stow   ``aria: equip bow``                         R44: the weapon's attack AP
stand          ``aria: stand``                             R44: 1 AP
breath         ``aria: breath``                            R37: 1 AP, +1 Stamina
martial        ``aria: martial dc 12``                     R44: 3 AP, Analysis check
=============  ==========================================  =================================

Any action may carry ``+stealth`` (R41: a Poise check against each observer) and ``+careful``
(R41: double AP for 1 Favor on that check). Each refusal names the rule and the numbers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from caltrop.core.commands import COORDINATE_LIMIT, Act, Command, EndTurn, Pass, SetFact
from caltrop.core.model import (
    ActionDef,
    ActionKind,
    CreatureDef,
    Halving,
    OffTurn,
    Side,
    Weapon,
    WeaponKind,
)
from caltrop.core.pool import Advantage, net_advantage
from caltrop.dice.ast import Const, Dice, Div, Expr, Group, Term
from caltrop.economy.base import Engine
from caltrop.economy.outcome import Outcome
from caltrop.economy.pending import PendingRoll, RollKind
from caltrop.economy.points.economy import Payment, payment, spend
from caltrop.economy.points.state import PointsState, Unit, points, stat
from caltrop.errors import IllegalActionError, InvalidActionError

#: R34 option: "Adjacent" means within 1.5 m.
ADJACENT = 1.5
#: R38: "Standard unarmed attack requires 2 AP, and it's damage is (1d8 + [Power Mod])."
UNARMED = Weapon("unarmed", Expr((Term(1, Dice(1, 8)),)), WeaponKind.MELEE, ap=2)

OWN_TURN = ("move", "leap", "hold", "aim", "equip", "stow", "stand", "breath", "martial")
REACTIONS = ("block", "dodge", "cover", "assist", "oppose")
VERBS = (
    *OWN_TURN,
    "attack",
    "shoot",
    "grapple",
    "escape",
    "scale",
    "shake",
    *REACTIONS,
)


def _act(name: str, aspect: str, cost: int, kind: ActionKind = ActionKind.EFFECT) -> ActionDef:
    return ActionDef(name, aspect, cost, kind)


def distance(a: PointsState, b: PointsState) -> float:
    return math.hypot(a.x - b.x, a.y - b.y)


def _m(x: float) -> str:
    return f"{x:g} m"


def check_place(enc: Engine, i: int, to: tuple[float, float], verb: str) -> None:
    """R34: a creature ends a move, a leap or a GM placement at finite coordinates within
    ±10,000 m, and never within ``min_spacing`` of another standing creature (those it holds or
    is held by move with it and do not count)."""
    x, y = to
    if not (math.isfinite(x) and math.isfinite(y)) or max(abs(x), abs(y)) > COORDINATE_LIMIT:
        raise InvalidActionError(
            f"a position is two numbers within ±{COORDINATE_LIMIT:,} m, not {x:g},{y:g} (R34)"
        )
    spacing = enc.definition.ruleset.min_spacing
    me = _state(enc, i)
    cid = enc.creatures[i].id
    for j, other in enumerate(enc.creatures):
        if j == i or enc.down[j]:
            continue
        them = _state(enc, j)
        linked = cid in (them.grappled_by, them.scaling) or other.id in (
            me.grappled_by,
            me.scaling,
        )
        if linked:
            continue
        d = math.hypot(them.x - x, them.y - y)
        if d < spacing - 1e-9:
            raise IllegalActionError(
                f"{enc.creatures[i].name} would {verb} {_m(round(d, 2))} from {other.name}; "
                f"standing creatures keep {spacing:g} m apart (R34, min_spacing)"
            )


@dataclass(frozen=True, slots=True)
class Price:
    """What an action costs: points (in AP or RP) and Stamina (R37)."""

    points: int
    unit: Unit = "ap"
    stamina: int = 0


class PointsPlan:
    """A validated command of this module: ``execute`` cannot fail."""

    __slots__ = ("actor", "command", "extra", "pay", "price", "verb")

    def __init__(
        self, verb: str, actor: int, command: Act, price: Price, pay: Payment, **extra: Any
    ) -> None:
        self.verb = verb
        self.actor = actor
        self.command = command
        self.price = price
        self.pay = pay
        self.extra = extra

    def execute(self, enc: Engine) -> Outcome | None:
        return PointsRules.execute(enc, self)


def _state(enc: Engine, i: int) -> PointsState:
    return points(enc.resources[i])


class PointsRules:
    """Seed 004's actions for the engine; stateless (all state is in :class:`PointsState`)."""

    # -- validation -----------------------------------------------------------------------------

    @staticmethod
    def plan(enc: Engine, command: Act) -> PointsPlan:
        i = enc.standing(command.actor)
        creature = enc.creatures[i]
        verb = command.action
        if verb not in VERBS:
            raise InvalidActionError(
                f"{creature.name} has no action {verb!r} in the Action Point module (actions: {', '.join(VERBS)})"
            )
        unknown = set(command.flags) - {"stealth", "careful"}
        if unknown:
            raise InvalidActionError(
                f"unknown flag(s) {', '.join(sorted(unknown))}: +stealth, +careful"
            )
        if "careful" in command.flags and "stealth" not in command.flags:
            raise InvalidActionError("+careful goes with +stealth (R41: double AP for 1 Favor)")
        top = enc.pending[-1] if enc.pending else None
        if top is not None and top.kind is RollKind.INITIATIVE:
            raise IllegalActionError(
                "initiative is being rolled; nobody acts until it is done (R30)"
            )
        mine = enc.turn_owner == creature.id
        on_turn = top is None and mine
        if verb in REACTIONS:
            return PointsRules._plan_reaction(enc, i, verb, command, top)
        anytime = enc.definition.ruleset.off_turn_actions is OffTurn.ANY
        if top is not None and (top.roller == i or not (anytime or verb in ("escape", "shake"))):
            raise IllegalActionError(
                f"a roll is pending: only reactions ({', '.join(REACTIONS)}) or 'pass' now (R45)"
            )
        if not on_turn and verb not in ("escape", "shake"):
            owner = enc.turn_owner
            whose = f"it is {enc.creature(owner).name if owner else 'nobody'}'s turn"
            if not anytime:
                # off_turn_actions: reactions — only reactions, escape and shake off-turn (R32)
                raise IllegalActionError(
                    f"{whose}; {verb} is taken on {creature.name}'s own turn "
                    "(R32, off_turn_actions: reactions)"
                )
            if verb == "hold" and not mine:
                raise IllegalActionError(
                    f"{whose}; Hold Action turns AP into floating RP on one's own turn (R33)"
                )
            # R32 (off_turn_actions: any): any action it can pay for, at any moment, paid in RP
            # and floating RP (2 RP per AP) — or in AP by the turn owner during a window
            on_turn = mine
        planner: Any = getattr(PointsRules, f"_plan_{verb}")
        plan: PointsPlan = planner(enc, i, command, on_turn)
        return plan

    @staticmethod
    def _pay(enc: Engine, i: int, command: Act, price: Price, on_turn: bool, what: str) -> Payment:
        state = _state(enc, i)
        if "careful" in command.flags:
            price = Price(price.points * 2, price.unit, price.stamina)  # R41
        if price.stamina > state.stamina:
            # "Leap needs 3 AP and 3 Stamina; Brakka has 2 Stamina (R36, R37)"
            head = what.partition(" (")[0]
            rules = ", ".join([*dict.fromkeys(re.findall(r"R\d+", what)), "R37"])
            unit = "AP" if price.unit == "ap" else "AP/RP"
            raise IllegalActionError(
                f"{head[:1].upper()}{head[1:]} needs {price.points} {unit} and {price.stamina} "
                f"Stamina; {enc.creatures[i].name} has {state.stamina} Stamina ({rules})"
            )
        pay = payment(state, price.points, price.unit, on_turn=on_turn, what=what)
        if not pay:
            reason = pay.reason.removeprefix(f"{what} ")
            raise IllegalActionError(f"{enc.creatures[i].name} cannot {what}: {reason} (R32)")
        return pay

    @staticmethod
    def _target(enc: Engine, command: Act, verb: str) -> int:
        if len(command.targets) != 1:
            raise InvalidActionError(f"{verb} needs one target: '{command.actor}: {verb} TARGET'")
        return enc.standing(command.targets[0])

    @staticmethod
    def _no_extras(command: Act, verb: str, *, to: bool = False, targets: bool = False) -> None:
        if command.toward and verb != "move":
            raise InvalidActionError(f"{verb} takes no 'toward': only move does (R35)")
        if command.to is not None and not to:
            raise InvalidActionError(f"{verb} takes no position")
        if command.targets and not targets:
            raise InvalidActionError(f"{verb} takes no target")
        if command.weapons and verb not in ("attack", "shoot"):
            raise InvalidActionError(f"{verb} takes no weapon")
        if command.dc is not None and verb != "martial":
            raise InvalidActionError(f"{verb} takes no DC")

    @staticmethod
    def _doubled(enc: Engine, i: int, against: int | None) -> int:
        """R42/R43: Attack, Block and Dodge cost double when grappled (against anyone but the
        grappler) and when targeted against the creature scaling this one."""
        state = _state(enc, i)
        other = enc.creatures[against].id if against is not None else None
        factor = 1
        if state.grappled_by is not None and other != state.grappled_by:
            factor = 2
        if other is not None and _state(enc, against).scaling == enc.creatures[i].id:  # type: ignore[arg-type]
            factor = 2
        return factor

    @staticmethod
    def _destination(
        enc: Engine, i: int, command: Act, verb: str
    ) -> tuple[PointsState, CreatureDef, float]:
        """A move's or a leap's checked destination: the mover's position state, the mover,
        and the straight-line distance in metres to ``to X,Y`` (R34)."""
        PointsRules._no_extras(command, verb, to=True)
        if command.to is None:
            raise InvalidActionError(f"{verb} needs a destination: 'aria: {verb} to X,Y'")
        state = _state(enc, i)
        check_place(enc, i, command.to, f"end the {verb}")
        d = math.hypot(command.to[0] - state.x, command.to[1] - state.y)
        return state, enc.creatures[i], d

    @staticmethod
    def _plan_move(enc: Engine, i: int, command: Act, on_turn: bool) -> PointsPlan:
        if command.toward:
            command = PointsRules._toward(enc, i, command, on_turn)
        state, creature, d = PointsRules._destination(enc, i, command, "move")
        speed = PointsRules.travel_speed(enc, i)
        if d > 0 and speed <= 0:
            reason = "grappled" if state.grappled_by else "travel speed 0"
            raise IllegalActionError(f"{creature.name} cannot move: {reason} (R42)")
        steps = math.ceil(d / speed - 1e-9) if d > 0 else 0
        if steps == 0:
            raise IllegalActionError(f"{creature.name} is already there (R35)")
        what = f"move {_m(round(d, 2))} ({steps} × {speed:g} m per AP, R35)"
        pay = PointsRules._pay(enc, i, command, Price(steps), on_turn, what)
        return PointsPlan("move", i, command, Price(steps), pay, distance=d, to=command.to)

    @staticmethod
    def _toward(enc: Engine, i: int, command: Act, on_turn: bool) -> Act:
        """R35 partial moves: ``move toward ID [N m]`` goes straight at a creature and stops
        when adjacent (R34); ``move N m toward X,Y`` at most N m toward a point. Either goes as
        far as the AP (or, off turn, the RP, R32) the mover can pay allow. The planned move is
        the exact ``move to X,Y`` it comes to (rounded to the centimeter), checked like one."""
        creature = enc.creatures[i]
        me = _state(enc, i)
        if (
            command.weapons
            or command.dc is not None
            or (command.to is None) == (not command.targets)
        ):
            raise InvalidActionError("'move toward CREATURE [N m]' or 'move N m toward X,Y' (R35)")
        if command.targets:
            j = PointsRules._target(enc, command, "move toward")
            if j == i:
                raise IllegalActionError(f"{creature.name} cannot move toward itself")
            them = _state(enc, j)
            goal, stop = (them.x, them.y), ADJACENT - 0.05
        else:
            assert command.to is not None
            goal, stop = command.to, 0.0
        d = math.hypot(goal[0] - me.x, goal[1] - me.y)
        speed = PointsRules.travel_speed(enc, i)
        if speed <= 0:
            reason = "grappled" if me.grappled_by else "travel speed 0"
            raise IllegalActionError(f"{creature.name} cannot move: {reason} (R42)")
        if "careful" in command.flags:
            raise InvalidActionError(
                "+careful doubles a fixed price: use 'move to X,Y +stealth +careful'"
            )
        can_pay = me.ap if on_turn else (me.rp + me.floating) // 2
        travel = min(d - stop, can_pay * speed - 0.01)
        if command.meters is not None:
            travel = min(travel, command.meters)
        if d - stop <= 0.005:
            raise IllegalActionError(
                f"{creature.name} is already {'adjacent' if command.targets else 'there'} (R34, R35)"
            )
        if travel < 0.01:
            raise IllegalActionError(
                f"{creature.name} cannot move: {me.ap if on_turn else me.rp + me.floating} "
                f"{'AP' if on_turn else 'RP'} left, {speed:g} m per AP (R32, R35)"
            )
        f = travel / d
        to = (round(me.x + (goal[0] - me.x) * f, 2), round(me.y + (goal[1] - me.y) * f, 2))
        return Act(command.actor, "move", to=to, flags=command.flags, advantages=command.advantages)

    @staticmethod
    def travel_speed(enc: Engine, i: int) -> float:
        """R35 with R42: grappled creatures have speed 0; a grappler's speed is halved."""
        state = _state(enc, i)
        if state.grappled_by is not None:
            return 0.0
        speed = float(stat(enc.creatures[i], "travel_speed"))
        cid = enc.creatures[i].id
        if any(_state(enc, j).grappled_by == cid for j in range(len(enc.creatures))):
            speed /= 2
        return speed

    @staticmethod
    def _plan_leap(enc: Engine, i: int, command: Act, on_turn: bool) -> PointsPlan:
        state, creature, d = PointsRules._destination(enc, i, command, "leap")
        run_up = state.moved >= 2
        name = "Strength" if run_up else "Power"
        reach = creature.aspects.get(name, 0)
        if d > reach + 1e-9:
            why = "after a 2 m run-up" if run_up else "without a 2 m run-up"
            raise IllegalActionError(
                f"{creature.name} leaps at most {name} {reach} m {why}; {_m(round(d, 2))} is too far (R36)"
            )
        if state.grappled_by is not None:
            raise IllegalActionError(f"{creature.name} is grappled and cannot leap (R42)")
        price = Price(3, stamina=3)
        pay = PointsRules._pay(enc, i, command, price, on_turn, "leap (3 AP and 3 Stamina, R36)")
        return PointsPlan("leap", i, command, price, pay, distance=d)

    @staticmethod
    def _plan_hold(enc: Engine, i: int, command: Act, on_turn: bool) -> PointsPlan:
        PointsRules._no_extras(command, "hold")
        pay = PointsRules._pay(
            enc, i, command, Price(2), on_turn, "hold action (2 AP → 1 floating RP, R33)"
        )
        return PointsPlan("hold", i, command, Price(2), pay)

    @staticmethod
    def _plan_aim(enc: Engine, i: int, command: Act, on_turn: bool) -> PointsPlan:
        PointsRules._no_extras(command, "aim", targets=True)
        target = PointsRules._target(enc, command, "aim")
        pay = PointsRules._pay(enc, i, command, Price(1), on_turn, "aim (1 AP, R39)")
        return PointsPlan("aim", i, command, Price(1), pay, target=target)

    @staticmethod
    def _equipped(enc: Engine, i: int, names: tuple[str, ...], kind: WeaponKind) -> list[Weapon]:
        creature = enc.creatures[i]
        state = _state(enc, i)
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

    @staticmethod
    def _plan_attack(enc: Engine, i: int, command: Act, on_turn: bool) -> PointsPlan:
        PointsRules._no_extras(command, "attack", targets=True)
        target = PointsRules._target(enc, command, "attack")
        creature = enc.creatures[i]
        if enc.creatures[target].side is creature.side:
            raise IllegalActionError(f"{creature.name} will not attack an ally (R38)")
        d = distance(_state(enc, i), _state(enc, target))
        if d > ADJACENT + 1e-9:
            raise IllegalActionError(
                f"{enc.creatures[target].name} is {_m(round(d, 2))} away; a melee attack reaches "
                f"{ADJACENT:g} m (adjacent, R34)"
            )
        weapons = PointsRules._equipped(enc, i, command.weapons, WeaponKind.MELEE)
        base = max(w.ap if w.ap is not None else 2 for w in weapons)  # R38: the highest AP
        factor = PointsRules._doubled(enc, i, target)
        price = Price(base * factor)
        names = "+".join(w.name for w in weapons)
        what = f"attack with {names} ({base} AP{' ×2, R42/R43' if factor > 1 else ''}, R38)"
        pay = PointsRules._pay(enc, i, command, price, on_turn, what)
        return PointsPlan("attack", i, command, price, pay, target=target, weapons=tuple(weapons))

    @staticmethod
    def _plan_shoot(enc: Engine, i: int, command: Act, on_turn: bool) -> PointsPlan:
        PointsRules._no_extras(command, "shoot", targets=True)
        target = PointsRules._target(enc, command, "shoot")
        creature = enc.creatures[i]
        if enc.creatures[target].side is creature.side:
            raise IllegalActionError(f"{creature.name} will not shoot an ally (R39)")
        (weapon,) = PointsRules._equipped(enc, i, command.weapons[:1], WeaponKind.RANGED)
        if len(command.weapons) > 1:
            raise InvalidActionError("shoot uses one ranged weapon")
        d = math.ceil(distance(_state(enc, i), _state(enc, target)) - 1e-9)  # R34: rounded up
        far = weapon.far if weapon.far is not None else weapon.close
        if far is None or d > far:
            raise IllegalActionError(
                f"{enc.creatures[target].name} is {d} m away; {weapon.name} reaches {far or 0} m (R39)"
            )
        base = weapon.ap if weapon.ap is not None else 2
        factor = PointsRules._doubled(enc, i, target)
        price = Price(base * factor)
        what = f"shoot with {weapon.name} ({base} AP{' ×2' if factor > 1 else ''}, R39)"
        pay = PointsRules._pay(enc, i, command, price, on_turn, what)
        return PointsPlan("shoot", i, command, price, pay, target=target, weapons=(weapon,), dc=d)

    @staticmethod
    def _plan_equip(enc: Engine, i: int, command: Act, on_turn: bool) -> PointsPlan:
        return PointsRules._plan_equip_or_stow(enc, i, command, on_turn, equip=True)

    @staticmethod
    def _plan_stow(enc: Engine, i: int, command: Act, on_turn: bool) -> PointsPlan:
        return PointsRules._plan_equip_or_stow(enc, i, command, on_turn, equip=False)

    @staticmethod
    def _plan_equip_or_stow(
        enc: Engine, i: int, command: Act, on_turn: bool, *, equip: bool
    ) -> PointsPlan:
        verb = "equip" if equip else "stow"
        if len(command.targets) != 1 or command.to is not None or command.weapons:
            raise InvalidActionError(f"'{command.actor}: {verb} WEAPON'")
        creature = enc.creatures[i]
        weapon = creature.weapon(command.targets[0])
        if weapon is None:
            raise InvalidActionError(f"{creature.name} has no weapon {command.targets[0]!r}")
        held = weapon.name in _state(enc, i).equipped
        if held == equip:
            raise IllegalActionError(
                f"{weapon.name} is {'already' if equip else 'not'} equipped (R44)"
            )
        ap = weapon.ap if weapon.ap is not None else 2
        pay = PointsRules._pay(
            enc, i, command, Price(ap), on_turn, f"{verb} {weapon.name} ({ap} AP, R44)"
        )
        return PointsPlan(verb, i, command, Price(ap), pay, weapon=weapon.name)

    @staticmethod
    def _plan_stand(enc: Engine, i: int, command: Act, on_turn: bool) -> PointsPlan:
        PointsRules._no_extras(command, "stand")
        if not _state(enc, i).prone:
            raise IllegalActionError(f"{enc.creatures[i].name} is not prone (R44)")
        pay = PointsRules._pay(enc, i, command, Price(1), on_turn, "stand up (1 AP, R44)")
        return PointsPlan("stand", i, command, Price(1), pay)

    @staticmethod
    def _plan_breath(enc: Engine, i: int, command: Act, on_turn: bool) -> PointsPlan:
        PointsRules._no_extras(command, "breath")
        creature = enc.creatures[i]
        if _state(enc, i).stamina >= creature.stats.get("stamina", 0):
            raise IllegalActionError(f"{creature.name}'s Stamina is full (R37)")
        pay = PointsRules._pay(enc, i, command, Price(1), on_turn, "deep breath (1 AP, R37)")
        return PointsPlan("breath", i, command, Price(1), pay)

    @staticmethod
    def _plan_martial(enc: Engine, i: int, command: Act, on_turn: bool) -> PointsPlan:
        PointsRules._no_extras(command, "martial")
        if command.dc is None:
            raise InvalidActionError("a Martial Check needs the GM's DC: 'aria: martial dc 12'")
        pay = PointsRules._pay(enc, i, command, Price(3), on_turn, "Martial Check (3 AP, R44)")
        return PointsPlan("martial", i, command, Price(3), pay)

    @staticmethod
    def _plan_grapple(enc: Engine, i: int, command: Act, on_turn: bool) -> PointsPlan:
        PointsRules._no_extras(command, "grapple", targets=True)
        target = PointsRules._target(enc, command, "grapple")
        if target == i:
            raise IllegalActionError("a creature cannot grapple itself (R42)")
        d = distance(_state(enc, i), _state(enc, target))
        if d > ADJACENT + 1e-9:
            raise IllegalActionError(
                f"{enc.creatures[target].name} is {_m(round(d, 2))} away; grapple needs adjacency "
                f"({ADJACENT:g} m, R34, R42)"
            )
        if _state(enc, target).grappled_by is not None:
            raise IllegalActionError(f"{enc.creatures[target].name} is already grappled (R42)")
        price = Price(3, stamina=2)
        pay = PointsRules._pay(enc, i, command, price, on_turn, "grapple (3 AP and 2 Stamina, R42)")
        return PointsPlan("grapple", i, command, price, pay, target=target)

    @staticmethod
    def _plan_scale(enc: Engine, i: int, command: Act, on_turn: bool) -> PointsPlan:
        PointsRules._no_extras(command, "scale", targets=True)
        price = Price(3, stamina=4)
        what = "scale (3 AP and 4 Stamina, R43)"
        if not command.targets:
            pay = PointsRules._pay(enc, i, command, price, on_turn, what)
            return PointsPlan("scale", i, command, price, pay, target=None)
        target = PointsRules._target(enc, command, "scale")
        me, them = enc.creatures[i], enc.creatures[target]
        if target == i:
            raise IllegalActionError("a creature cannot scale itself (R43)")
        if stat(them, "size") < stat(me, "size"):
            raise IllegalActionError(
                f"{them.name} is smaller than {me.name}; only same size or larger (R43)"
            )
        d = distance(_state(enc, i), _state(enc, target))
        if d > ADJACENT + 1e-9:
            raise IllegalActionError(
                f"{them.name} is {_m(round(d, 2))} away; scaling needs adjacency "
                f"({ADJACENT:g} m, R34, R43)"
            )
        pay = PointsRules._pay(enc, i, command, price, on_turn, what)
        return PointsPlan("scale", i, command, price, pay, target=target)

    @staticmethod
    def _plan_escape(enc: Engine, i: int, command: Act, on_turn: bool) -> PointsPlan:
        PointsRules._no_extras(command, "escape")
        holder = _state(enc, i).grappled_by
        if holder is None:
            raise IllegalActionError(f"{enc.creatures[i].name} is not grappled (R42)")
        price = Price(2, "rp", stamina=2)
        pay = PointsRules._pay(
            enc, i, command, price, on_turn, "escape (2 AP/RP and 2 Stamina, R42)"
        )
        return PointsPlan("escape", i, command, price, pay, target=enc.index(holder))

    @staticmethod
    def _plan_shake(enc: Engine, i: int, command: Act, on_turn: bool) -> PointsPlan:
        PointsRules._no_extras(command, "shake")
        me = enc.creatures[i].id
        scalers = [
            j for j in range(len(enc.creatures)) if _state(enc, j).scaling == me and not enc.down[j]
        ]
        if not scalers:
            raise IllegalActionError(f"{enc.creatures[i].name} is not being scaled (R43)")
        price = Price(2, "rp", stamina=2)
        pay = PointsRules._pay(
            enc, i, command, price, on_turn, "shake off (2 AP/RP and 2 Stamina, R43)"
        )
        return PointsPlan("shake", i, command, price, pay, target=scalers[0])

    @staticmethod
    def _plan_reaction(
        enc: Engine, i: int, verb: str, command: Act, top: PendingRoll | None
    ) -> PointsPlan:
        PointsRules._no_extras(command, verb)
        creature = enc.creatures[i]
        if top is None or top.kind is not RollKind.STAGE:
            raise IllegalActionError(f"{verb} is a reaction: nothing to react to now (R40, R45)")
        on_turn = enc.turn_owner == creature.id
        if verb == "oppose":
            if (
                top.stage != "contest"
                or top.context.get("opposer") != i
                or "opposed" in top.context
            ):
                raise IllegalActionError(f"{creature.name} has nothing to oppose now (R42, R43)")
            stamina = 2 if top.context["verb"] in ("escape", "shake") else 0
            price = Price(0, "rp", stamina=stamina)
            pay = PointsRules._pay(
                enc, i, command, price, on_turn, f"oppose ({stamina} Stamina, R42/R43)"
            )
            return PointsPlan("oppose", i, command, price, pay)
        if top.stage != "defence":
            raise IllegalActionError(f"{verb} answers an incoming attack (R40)")
        defender = top.roller
        attacker = int(top.context["attacker"])
        ctx = top.context
        if verb == "assist":
            if i == defender or enc.creatures[defender].side is not creature.side:
                raise IllegalActionError(
                    "Defense Assist helps an adjacent ally being attacked (R40)"
                )
            d = distance(_state(enc, i), _state(enc, defender))
            if d > ADJACENT + 1e-9:
                raise IllegalActionError(
                    f"{enc.creatures[defender].name} is {_m(round(d, 2))} away; assist needs adjacency (R40)"
                )
            if ctx.get("mode") not in ("block", "dodge"):
                raise IllegalActionError(
                    f"Defense Assist adds a die to a Block or Dodge; {enc.creatures[defender].name} "
                    "has chosen neither (R40)"
                )
            price = Price(1, "rp")
            pay = PointsRules._pay(enc, i, command, price, on_turn, "Defense Assist (1 RP, R40)")
            return PointsPlan("assist", i, command, price, pay)
        if i != defender:
            raise IllegalActionError(
                f"only {enc.creatures[defender].name}, the target, may {verb} (R40)"
            )
        if verb == "cover":
            source = enc.creatures[attacker]
            if ctx.get("cover") or source.id in _state(enc, i).cover_from:
                raise IllegalActionError(
                    f"{creature.name} is already in cover from {source.name} until positions change (R40)"
                )
            if ctx.get("mode"):
                raise IllegalActionError("Take Cover comes before Block or Dodge (R45)")
            price = Price(1, "rp")
            pay = PointsRules._pay(enc, i, command, price, on_turn, "Take Cover (1 AP/RP, R40)")
            return PointsPlan("cover", i, command, price, pay)
        if ctx.get("mode"):
            raise IllegalActionError(f"{creature.name} already chose to {ctx['mode']} (R40)")
        factor = PointsRules._doubled(enc, i, attacker)
        price = Price(factor, "rp")
        what = f"{verb} (1 AP/RP{' ×2, R42/R43' if factor > 1 else ''}, R40)"
        pay = PointsRules._pay(enc, i, command, price, on_turn, what)
        return PointsPlan(verb, i, command, price, pay)

    # -- legal actions --------------------------------------------------------------------------

    @staticmethod
    def legal(enc: Engine, i: int) -> Iterator[Command]:
        """A useful finite list of legal commands: positions are continuous, so moves toward each
        enemy (to adjacency, or as far as the AP allow) stand for every move. Off its turn and
        outside a window, what R32 ``off_turn_actions: any`` lets it pay for with its RP."""
        creature = enc.creatures[i]
        cid = creature.id
        top = enc.pending[-1] if enc.pending else None
        candidates: list[Act] = []
        if top is not None:
            if top.kind is RollKind.STAGE and top.roller != i:
                candidates += [Act(cid, v) for v in ("assist", "oppose")]
            if top.kind is RollKind.STAGE and top.roller == i:
                candidates += [Act(cid, v) for v in ("cover", "block", "dodge")]
            for command in candidates:
                if enc.is_legal(command):
                    yield command
            asked = top.roller != i or i in PointsRules.reactors(enc, top)
            if top.kind is not RollKind.INITIATIVE and asked and i not in top.passed:
                yield Pass(cid)
            return
        if enc.turn_owner != cid and enc.definition.ruleset.off_turn_actions is not OffTurn.ANY:
            return  # R32 reactions: off turn only in a window (above)
        # R32 any: off turn, any action it can pay for (in RP), listed as on its own turn
        me = _state(enc, i)
        for j, other in enumerate(enc.creatures):
            if enc.down[j] or other.side is creature.side:
                continue
            candidates.append(Act(cid, "attack", (other.id,)))
            for w in creature.weapons:
                if w.kind is WeaponKind.RANGED and w.name in me.equipped:
                    candidates.append(Act(cid, "shoot", (other.id,), (w.name,)))
            if any(w.kind is WeaponKind.RANGED and w.name in me.equipped for w in creature.weapons):
                candidates.append(Act(cid, "aim", (other.id,)))  # only with a bow in hand
            candidates.append(Act(cid, "grapple", (other.id,)))
            them = _state(enc, j)
            d = distance(me, them)
            if d > 1.0:
                speed = PointsRules.travel_speed(enc, i)
                reach = min(d - 1.0, speed * me.ap)
                if reach > 0:
                    f = reach / d
                    to = (
                        round(me.x + (them.x - me.x) * f, 2),
                        round(me.y + (them.y - me.y) * f, 2),
                    )
                    candidates.append(Act(cid, "move", to=to))
        candidates += [Act(cid, v) for v in ("hold", "breath", "stand", "escape", "shake")]
        for command in dict.fromkeys(candidates):  # two enemies in a line: one move
            if enc.is_legal(command):
                yield command

    @staticmethod
    def reactors(enc: Engine, top: PendingRoll) -> Iterator[int]:
        """Who may still react to ``top``: the defender first, then its adjacent allies."""
        if top.kind is not RollKind.STAGE:
            return
        if top.stage == "defence":
            yield top.roller
            yield from (j for j in enc.window_order(top) if j != top.roller)
        elif top.stage == "contest" and "opposed" not in top.context:
            yield int(top.context["opposer"])

    @staticmethod
    def has_reaction(enc: Engine, i: int, top: PendingRoll) -> bool:
        return any(isinstance(c, Act) for c in PointsRules.legal(enc, i))

    # -- execution ------------------------------------------------------------------------------

    @staticmethod
    def _lose_aim(state: PointsState) -> None:
        state.aim = 0
        state.aim_target = None
        state.unseen = 0.0

    @staticmethod
    def execute(enc: Engine, plan: PointsPlan) -> Outcome | None:
        i = plan.actor
        state = _state(enc, i)
        spend(state, plan.pay)
        state.stamina -= plan.price.stamina
        verb = plan.verb
        if verb not in ("aim", "shoot"):
            PointsRules._lose_aim(state)  # R39: any other action, a reaction too
        if verb != "move":
            state.moved = 0.0
        top = enc.pending[-1] if enc.pending else None
        handler = getattr(PointsRules, f"_do_{verb}")
        outcome: Outcome | None = handler(enc, plan, top)
        if "stealth" in plan.command.flags:
            PointsRules._queue_stealth(enc, i, plan.command)
        return outcome

    @staticmethod
    def _do_move(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
        # R36 "traveled at least 2 meters right before the leap": consecutive moves add up (the
        # run-up is reset by any other action and at every turn start).
        state = _state(enc, plan.actor)
        run_up = state.moved
        PointsRules._relocate(enc, plan.actor, plan.extra["to"])
        state.moved = run_up + float(plan.extra["distance"])

    @staticmethod
    def _do_leap(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
        PointsRules._relocate(enc, plan.actor, plan.command.to)

    @staticmethod
    def _relocate(enc: Engine, i: int, to: tuple[float, float] | None) -> None:
        """Move ``i`` (and whoever it grapples or carries, R42, R43)."""
        assert to is not None
        state = _state(enc, i)
        cid = enc.creatures[i].id
        # R42: the grappled move with the grappler; R43: a creature being scaled carries whoever
        # is scaling it, and a scaler that moves off on its own stops scaling.
        moved = [i] + [
            j
            for j in range(len(enc.creatures))
            if _state(enc, j).grappled_by == cid or _state(enc, j).scaling == cid
        ]
        if state.scaling is not None and enc.index(state.scaling) not in moved:
            state.scaling = None
        PointsRules._place(enc, moved, to[0] - state.x, to[1] - state.y)

    @staticmethod
    def _place(enc: Engine, moved: list[int], dx: float, dy: float) -> None:
        """Shift ``moved`` by (dx, dy): positions changed, so cover against or by them ends
        (R40); an aimer without line of sight to a creature that moved adds the distance to
        what its target has moved unseen since the first Aim, and at 1 m loses its aim (R39)."""
        for j in moved:
            s = _state(enc, j)
            s.x, s.y = s.x + dx, s.y + dy
            s.cover_from = ()
        ids = {enc.creatures[j].id for j in moved}
        step = math.hypot(dx, dy)
        for j in range(len(enc.creatures)):
            s = _state(enc, j)
            if s.cover_from and ids & set(s.cover_from):
                s.cover_from = tuple(c for c in s.cover_from if c not in ids)
            if s.aim_target in ids and s.aim_target in s.no_sight and step > 0:
                s.unseen += step
                if s.unseen >= 1 - 1e-9:
                    PointsRules._lose_aim(s)

    @staticmethod
    def _do_hold(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
        _state(enc, plan.actor).floating += 1

    @staticmethod
    def _do_aim(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
        state = _state(enc, plan.actor)
        target = enc.creatures[plan.extra["target"]].id
        if state.aim_target != target:
            state.unseen = 0.0  # R39: the count starts at the first Aim at this target
        state.aim += 1
        state.aim_target = target

    @staticmethod
    def _do_equip(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
        state = _state(enc, plan.actor)
        state.equipped = (*state.equipped, plan.extra["weapon"])

    @staticmethod
    def _do_stow(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
        state = _state(enc, plan.actor)
        state.equipped = tuple(w for w in state.equipped if w != plan.extra["weapon"])

    @staticmethod
    def _do_stand(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
        _state(enc, plan.actor).prone = False

    @staticmethod
    def _do_breath(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
        state = _state(enc, plan.actor)
        state.stamina = min(state.stamina + 1, enc.creatures[plan.actor].stats.get("stamina", 0))

    @staticmethod
    def _push(enc: Engine, roller: int, stage: str, **context: Any) -> None:
        enc.pending.append(
            PendingRoll(
                RollKind.STAGE,
                roller,
                stage=stage,
                context=context,
                on_turn=enc.turn_owner == enc.creatures[roller].id,
            )
        )

    @staticmethod
    def _do_martial(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
        PointsRules._push(
            enc,
            plan.actor,
            "check",
            verb="martial",
            stat="Analysis",
            dc=plan.command.dc,
            favor=net_advantage(plan.command.advantages),
        )

    @staticmethod
    def _do_attack(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
        weapons: tuple[Weapon, ...] = plan.extra["weapons"]
        PointsRules._push(
            enc,
            plan.actor,
            "damage",
            verb="attack",
            attacker=plan.actor,
            target=plan.extra["target"],
            damage=str(
                melee_damage(
                    enc.creatures[plan.actor], weapons, enc.definition.ruleset.multi_weapon_halving
                )
            ),
            weapons="+".join(w.name for w in weapons),
            **PointsRules._reveals(plan.command),
        )

    @staticmethod
    def _reveals(command: Act) -> dict[str, bool]:
        """R41: an attack made without ``+stealth`` is not inconspicuous — its target, if it was
        unsuspecting, notices the attacker once the attack is resolved (one ambush, not many)."""
        return {} if "stealth" in command.flags else {"reveals": True}

    @staticmethod
    def _do_shoot(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
        state = _state(enc, plan.actor)
        (weapon,) = plan.extra["weapons"]
        dc = int(plan.extra["dc"])
        close = weapon.close if weapon.close is not None else 0
        favor = 1 if dc <= close else -1  # R39: close range Favor, far range Disfavor
        favor += state.aim  # R39: Aim stacks, all spent by this attack
        favor += net_advantage(plan.command.advantages)
        PointsRules._lose_aim(state)
        PointsRules._push(
            enc,
            plan.actor,
            "hit",
            verb="shoot",
            attacker=plan.actor,
            target=plan.extra["target"],
            dc=dc,
            favor=favor,
            damage=str(weapon.dice),
            weapons=weapon.name,
            **PointsRules._reveals(plan.command),
        )

    @staticmethod
    def _do_grapple(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
        target = int(plan.extra["target"])
        them = enc.creatures[target]
        # R42: opposed by the target's Strength or Agility, the target's choice: the higher.
        stat_b = (
            "Strength"
            if them.aspects.get("Strength", 0) >= them.aspects.get("Agility", 0)
            else "Agility"
        )
        PointsRules._push(
            enc,
            plan.actor,
            "contest",
            verb="grapple",
            initiator=plan.actor,
            opposer=target,
            stat_a="Strength",
            stat_b=stat_b,
            favor=net_advantage(plan.command.advantages),
            opposed=True,
        )

    @staticmethod
    def _do_scale(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> Outcome | None:
        target = plan.extra["target"]
        if target is None:
            return None  # R43: an obstacle, no check
        me, them = enc.creatures[plan.actor], enc.creatures[target]
        larger = stat(them, "size") - stat(me, "size")
        stat_b = "Strength" if larger == 0 else "Agility"
        PointsRules._push(
            enc,
            plan.actor,
            "contest",
            verb="scale",
            initiator=plan.actor,
            opposer=target,
            stat_a="Agility",
            stat_b=stat_b,
            favor=net_advantage(plan.command.advantages) - larger,
        )
        return None

    @staticmethod
    def _do_escape(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
        PointsRules._push_escape(enc, plan, "escape")

    @staticmethod
    def _do_shake(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
        PointsRules._push_escape(enc, plan, "shake")

    @staticmethod
    def _push_escape(enc: Engine, plan: PointsPlan, verb: str) -> None:
        me = enc.creatures[plan.actor]
        stat_a = (
            "Strength"
            if me.aspects.get("Strength", 0) >= me.aspects.get("Agility", 0)
            else "Agility"
        )
        holder = int(plan.extra["target"])
        stat_b = "Strength" if verb == "escape" else "Agility"
        PointsRules._push(
            enc,
            plan.actor,
            "contest",
            verb=verb,
            initiator=plan.actor,
            opposer=holder,
            stat_a=stat_a,
            stat_b=stat_b,
            favor=net_advantage(plan.command.advantages),
        )

    @staticmethod
    def _do_oppose(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
        assert top is not None
        top.context["opposed"] = True

    @staticmethod
    def _do_block(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
        assert top is not None
        top.context["mode"] = "block"

    @staticmethod
    def _do_dodge(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
        assert top is not None
        top.context["mode"] = "dodge"

    @staticmethod
    def _do_cover(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
        assert top is not None
        top.context["cover"] = True
        state = _state(enc, plan.actor)
        source = enc.creatures[int(top.context["attacker"])].id
        if source not in state.cover_from:
            state.cover_from = (*state.cover_from, source)

    @staticmethod
    def _do_assist(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
        assert top is not None
        top.context["assists"] = int(top.context.get("assists", 0)) + 1

    @staticmethod
    def _queue_stealth(enc: Engine, i: int, command: Act) -> None:
        """R41: one Poise check per observer (each enemy aware of the field), pushed so that they
        resolve before the action's own rolls."""
        me = enc.creatures[i]
        favor = net_advantage(command.advantages) + (1 if "careful" in command.flags else 0)
        for j in reversed(range(len(enc.creatures))):
            other = enc.creatures[j]
            if j == i or enc.down[j] or other.side is me.side:
                continue
            obs = _state(enc, j)
            in_sight = me.id not in obs.no_sight
            f = favor - (2 if in_sight else 0)  # R41: in line of sight, 2 Disfavor
            aware = me.id not in obs.unaware_of
            score = other.aspects.get("Perception", 0) * (
                2 if stat(other, "gifted_perception") else 1
            )
            if aware:
                PointsRules._push(
                    enc,
                    i,
                    "contest",
                    verb="stealth",
                    initiator=i,
                    opposer=j,
                    stat_a="Poise",
                    stat_b="Perception",
                    favor=f,
                    opposed=True,
                )
            else:
                PointsRules._push(
                    enc, i, "check", verb="stealth", stat="Poise", dc=score, favor=f, observer=j
                )

    # -- rolling --------------------------------------------------------------------------------

    @staticmethod
    def expression(enc: Engine, p: PendingRoll) -> Expr:
        ctx = p.context
        if p.stage == "damage":
            from caltrop.dice.parse import parse

            return parse(str(ctx["damage"]))
        if p.stage == "hit":
            return _pool(enc.creatures[p.roller].aspects.get("Dexterity", 0) + int(ctx["favor"]))
        if p.stage == "check":
            return _pool(
                enc.creatures[p.roller].aspects.get(str(ctx["stat"]), 0) + int(ctx["favor"])
            )
        if p.stage == "contest":
            if "total_a" not in ctx:
                return _pool(
                    enc.creatures[p.roller].aspects.get(str(ctx["stat_a"]), 0) + int(ctx["favor"])
                )
            opposer = enc.creatures[int(ctx["opposer"])]
            return _pool(opposer.aspects.get(str(ctx["stat_b"]), 0))
        if p.stage == "defence":
            mode = ctx.get("mode")
            if not mode:
                return Expr((Term(1, Const(0)),))
            rating = stat(enc.creatures[p.roller], f"{mode}_rating")
            return _pool(rating + int(ctx.get("assists", 0)))
        raise AssertionError(p.stage)  # pragma: no cover

    @staticmethod
    def resolve(
        enc: Engine, p: PendingRoll, expr: Expr, faces: tuple[int, ...], total: int
    ) -> Outcome:
        ctx = p.context
        roller = enc.creatures[p.roller]
        verb = str(ctx["verb"])
        base: dict[str, Any] = {
            "roller": roller.id,
            "kind": RollKind.STAGE,
            "expression": str(expr),
            "faces": faces,
            "total": total,
            "action": verb,
        }
        if p.stage == "hit":
            dc = int(ctx["dc"])
            target = enc.creatures[int(ctx["target"])]
            if total >= dc:
                PointsRules._push(
                    enc,
                    p.roller,
                    "damage",
                    **{k: v for k, v in ctx.items() if k not in ("dc", "favor")},
                )
                return Outcome(**base, target=target.id, dc=dc, success=True, note="hit")
            if ctx.get("reveals"):
                PointsRules._set_unaware(enc, int(ctx["target"]), roller.id, False)
            return Outcome(**base, target=target.id, dc=dc, success=False, note="miss")
        if p.stage == "damage":
            target_i = int(ctx["target"])
            target = enc.creatures[target_i]
            attacker = enc.creatures[int(ctx["attacker"])]
            if attacker.id in _state(enc, target_i).unaware_of:
                # R40/R41: an unsuspecting target cannot defend; Resistance still applies.
                if ctx.get("reveals"):
                    PointsRules._set_unaware(enc, target_i, attacker.id, False)
                return PointsRules._apply_damage(enc, target_i, total, 0, base, note="unsuspecting")
            PointsRules._push(
                enc, target_i, "defence", verb=verb, attacker=int(ctx["attacker"]), incoming=total
            )
            return Outcome(**base, target=target.id, note=f"{total} damage incoming")
        if p.stage == "defence":
            incoming = int(ctx["incoming"])
            mode = ctx.get("mode")
            resistance = stat(roller, "resistance")
            attacker_id = enc.creatures[int(ctx["attacker"])].id
            # R40: Take Cover doubles the dice against that source "until the positions are
            # changed": cover taken in this window or in an earlier one still standing.
            cover = bool(ctx.get("cover")) or attacker_id in _state(enc, p.roller).cover_from
            dice_total = total * (2 if cover else 1)
            defence = dice_total + resistance
            if mode == "block":
                dealt = max(0, incoming - defence)
                note = f"block {defence} (dice {dice_total} + Resistance {resistance})"
            elif mode == "dodge":
                dealt = 0 if defence >= incoming else incoming
                note = f"dodge {defence} vs {incoming}: {'all prevented' if dealt == 0 else 'fully dealt'}"
            else:
                dealt = max(0, incoming - resistance)
                note = f"no defence: Resistance {resistance}"
            base["roller"] = roller.id
            return PointsRules._apply_damage(enc, p.roller, dealt, None, base, note=note, raw=True)
        if p.stage == "check":
            dc = int(ctx["dc"])
            success = total >= dc
            if verb == "martial" and success:
                _state(enc, p.roller).hints += 1
            if verb == "stealth":
                observer = enc.creatures[int(ctx["observer"])]
                PointsRules._set_unaware(enc, int(ctx["observer"]), roller.id, success)
                return Outcome(
                    **base,
                    target=observer.id,
                    dc=dc,
                    success=success,
                    note="unnoticed" if success else "noticed",
                )
            return Outcome(**base, dc=dc, success=success)
        if p.stage == "contest":
            if "total_a" not in ctx:
                if verb in ("escape", "shake", "scale") and not ctx.get("opposed"):
                    # R42/R43: not opposed, the escape (or the scaling) simply succeeds.
                    PointsRules._contest_result(enc, ctx, True)
                    return Outcome(**base, success=True, note="not opposed")
                ctx["total_a"] = total
                enc.pending.append(p)  # the opposer rolls next (R4)
                return Outcome(**base, note=f"{roller.name} rolls {total}; the opposer answers")
            success = int(ctx["total_a"]) > total  # R4: the initiator must beat the opposer
            opposer = enc.creatures[int(ctx["opposer"])]
            PointsRules._contest_result(enc, ctx, success)
            base["roller"] = opposer.id
            return Outcome(
                **base,
                target=opposer.id,
                success=success,
                note=f"{ctx['total_a']} vs {total}: {'success' if success else 'the status quo holds'}",
            )
        raise AssertionError(p.stage)  # pragma: no cover

    @staticmethod
    def _set_unaware(enc: Engine, observer: int, of: str, unaware: bool) -> None:
        s = _state(enc, observer)
        if unaware and of not in s.unaware_of:
            s.unaware_of = (*s.unaware_of, of)
        elif not unaware and of in s.unaware_of:
            s.unaware_of = tuple(x for x in s.unaware_of if x != of)

    @staticmethod
    def _contest_result(enc: Engine, ctx: dict[str, Any], success: bool) -> None:
        verb = ctx["verb"]
        a, b = int(ctx["initiator"]), int(ctx["opposer"])
        if verb == "stealth":
            PointsRules._set_unaware(enc, b, enc.creatures[a].id, success)
            return
        # R42/R43: the holder's 2 Stamina for opposing an escape or a shake are paid by its
        # ``oppose`` reaction (refused if it cannot pay, R37), not a second time here.
        if not success:
            return
        if verb == "grapple":
            _state(enc, b).grappled_by = enc.creatures[a].id
        elif verb == "escape":
            _state(enc, a).grappled_by = None
        elif verb == "scale":
            _state(enc, a).scaling = enc.creatures[b].id
        elif verb == "shake":
            _state(enc, b).scaling = None

    @staticmethod
    def _apply_damage(
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
            PointsRules._release(enc, target)
        return Outcome(**base, target=creature.id, damage=dealt, downed=downed, note=note)

    @staticmethod
    def _release(enc: Engine, i: int) -> None:
        """A creature that goes down holds nobody and is held by nobody: grapples (R42) and
        scaling (R43) by it or of it end (a down grappler cannot oppose, let alone hold)."""
        cid = enc.creatures[i].id
        mine = _state(enc, i)
        mine.grappled_by = None
        mine.scaling = None
        for j in range(len(enc.creatures)):
            s = _state(enc, j)
            if s.grappled_by == cid:
                s.grappled_by = None
            if s.scaling == cid:
                s.scaling = None


def carried_weight(enc: Engine, i: int) -> int:
    """R43: "The scaling creature's weight is applied to target" — the weight of every
    standing creature scaling ``i`` (the rules text gives it no further effect yet)."""
    me = enc.creatures[i].id
    return sum(
        stat(enc.creatures[j], "weight")
        for j in range(len(enc.creatures))
        if not enc.down[j] and _state(enc, j).scaling == me
    )


def _pool(n: int) -> Expr:
    """A d4 pool, never below 1d4 (R3)."""
    return Expr((Term(1, Dice(max(1, n), 4)),))


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


class PointsActions:
    """Seed 004's actions behind the engine's :class:`~caltrop.economy.base.Actions` interface."""

    __slots__ = ()

    def plan(self, enc: Engine, command: Act) -> PointsPlan:
        return PointsRules.plan(enc, command)

    def legal(self, enc: Engine, i: int) -> Iterator[Command]:
        yield from PointsRules.legal(enc, i)
        cid = enc.creatures[i].id
        if not enc.pending and enc.turn_owner == cid:
            yield EndTurn(cid)

    def reactors(self, enc: Engine, top: PendingRoll) -> Iterator[int]:
        return PointsRules.reactors(enc, top)

    def next_reactor(self, enc: Engine, top: PendingRoll) -> int | None:
        for i in PointsRules.reactors(enc, top):
            if i not in top.passed and not enc.down[i] and PointsRules.has_reaction(enc, i, top):
                return i
        return None

    def expression(self, enc: Engine, p: PendingRoll) -> tuple[Expr, str]:
        expr = PointsRules.expression(enc, p)
        return expr, str(expr)

    def resolve(
        self, enc: Engine, p: PendingRoll, expr: Expr, text: str, faces: tuple[int, ...], total: int
    ) -> Outcome:
        return PointsRules.resolve(enc, p, expr, faces, total)

    # -- the GM's adjustments (R48) and facts (R34) --------------------------------------------

    stats: tuple[str, ...] = ("ap", "rp", "stamina")

    def on_down(self, enc: Engine, i: int) -> None:
        PointsRules._release(enc, i)

    def check_stat(self, enc: Engine, i: int, stat: str, value: int) -> None:
        """R48: AP and RP 0…99; Stamina 0…its maximum (R37: never below 0)."""
        if stat not in self.stats:
            raise IllegalActionError(
                f"{stat} is an Action Load stat; this encounter plays Action Points "
                f"(its stats: {', '.join(self.stats)}, R48)"
            )
        high = enc.creatures[i].stats.get("stamina", 0) if stat == "stamina" else 99
        if not 0 <= value <= high:
            raise IllegalActionError(
                f"{stat} of {enc.creatures[i].name} must be from 0 to {high}, not {value} (R48)"
            )

    def set_stat(self, enc: Engine, i: int, stat: str, value: int) -> CreatureDef | None:
        setattr(_state(enc, i), stat, value)
        return None

    def owns_fact(self, name: str) -> bool:
        return name in ("prone", "aware", "sight", "at")

    def check_fact(self, enc: Engine, fact: SetFact) -> None:
        """R34: awareness and line of sight are about another creature; a position is a finite
        place within the map's bounds, not on top of another standing creature."""
        i = enc.index(fact.subject)
        if fact.other is not None and enc.index(fact.other) == i:
            raise IllegalActionError(f"{fact.fact} is a fact about another creature")
        if fact.at is not None:
            check_place(enc, i, fact.at, "be placed")

    def apply_fact(self, enc: Engine, fact: SetFact) -> None:
        """Set ``fact``; a new position ends cover by and against the creature (R40) and counts
        toward the aim its watchers lose (R39)."""
        i = enc.index(fact.subject)
        s = _state(enc, i)
        if fact.fact == "prone":
            s.prone = fact.value
        elif fact.fact in ("aware", "sight"):
            assert fact.other is not None
            name = "unaware_of" if fact.fact == "aware" else "no_sight"
            current: tuple[str, ...] = getattr(s, name)
            without = tuple(x for x in current if x != fact.other)
            setattr(s, name, without if fact.value else (*without, fact.other))
        else:
            assert fact.at is not None
            PointsRules._place(enc, [i], fact.at[0] - s.x, fact.at[1] - s.y)

    def preview(self, enc: Engine, command: Act) -> dict[str, Any]:
        """What an action would cost and leave (R31–R33), without doing it."""
        plan = PointsRules.plan(enc, command)
        after = _state(enc, plan.actor).copy()
        spend(after, plan.pay)
        after.stamina -= plan.price.stamina
        return {
            "actor": enc.creatures[plan.actor].id,
            "action": plan.verb,
            "resources_after": after.as_dict(),
        }


__all__ = [
    "ADJACENT",
    "UNARMED",
    "VERBS",
    "PointsActions",
    "PointsRules",
    "carried_weight",
    "distance",
    "melee_damage",
    "melee_parts",
]
_ = (Advantage, Side, _act)
