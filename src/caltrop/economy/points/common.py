"""What every verb of the Action Point module (seed 004) uses: its price and payment (R31-R33,
R37), its one target, the refusal of parts it does not take, the R42/R43 doubling, a pushed roll
stage and the state helpers (aim lost, R39; awareness, R41).

A verb's parts are in its phase's module (:mod:`.movement`, :mod:`.attacks`, :mod:`.defence`,
:mod:`.grapple`, :mod:`.stealth`, :mod:`.misc`) and in the one table of verbs, :mod:`.verbs`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from caltrop.core.commands import Act
from caltrop.dice.ast import Dice, Expr, Term
from caltrop.economy.base import Engine
from caltrop.economy.outcome import Outcome
from caltrop.economy.pending import PendingRoll, RollKind
from caltrop.economy.points.economy import Payment, payment
from caltrop.economy.points.rolls import StageRecord
from caltrop.economy.points.state import PointsState, Unit, points
from caltrop.errors import IllegalActionError, InvalidActionError

#: R34 option: "Adjacent" means within 1.5 m.
ADJACENT = 1.5


def distance(a: PointsState, b: PointsState) -> float:
    return math.hypot(a.x - b.x, a.y - b.y)


def meters(x: float) -> str:
    return f"{x:g} m"


@dataclass(frozen=True, slots=True)
class Price:
    """What an action costs: points (in AP or RP) and Stamina (R37)."""

    points: int
    unit: Unit = "ap"
    stamina: int = 0


class Quote:
    """What a verb's planner found: the command as it will be carried out (a partial move is
    the exact ``move to X,Y`` it comes to, R35), its price and its payment, and what the verb's
    effect needs (``extra``: a target, weapons, a DC, a distance)."""

    __slots__ = ("command", "extra", "pay", "price")

    def __init__(self, command: Act, price: Price, pay: Payment, **extra: Any) -> None:
        self.command = command
        self.price = price
        self.pay = pay
        self.extra = extra


class PointsPlan:
    """A validated command of this module: ``execute`` cannot fail.

    ``run`` is the module's executor (:func:`caltrop.economy.points.actions.execute`), handed in
    by the planner that built this plan, so the verbs' modules need not import it back."""

    __slots__ = ("actor", "command", "extra", "pay", "price", "run", "verb")

    def __init__(
        self,
        verb: str,
        actor: int,
        quote: Quote,
        run: Callable[[Engine, PointsPlan], Outcome | None],
    ) -> None:
        self.verb = verb
        self.actor = actor
        self.command = quote.command
        self.price = quote.price
        self.pay = quote.pay
        self.extra = quote.extra
        self.run = run

    def execute(self, enc: Engine) -> Outcome | None:
        return self.run(enc, self)


#: A verb's planner: its legality and price (R31-R45) for creature ``i``; ``on_turn`` says if it
#: pays in AP (its own turn, no roll pending) and ``top`` is the roll pending, if any.
Planner = Callable[[Engine, int, Act, bool, PendingRoll | None], Quote]
#: A verb's effect, once paid: it changes the encounter or pushes the verb's first roll stage.
Effect = Callable[[Engine, PointsPlan, PendingRoll | None], Outcome | None]


def state_of(enc: Engine, i: int) -> PointsState:
    return points(enc.resources[i])


def pay_for(enc: Engine, i: int, command: Act, price: Price, on_turn: bool, what: str) -> Payment:
    state = state_of(enc, i)
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


def one_target(enc: Engine, command: Act, verb: str) -> int:
    if len(command.targets) != 1:
        raise InvalidActionError(f"{verb} needs one target: '{command.actor}: {verb} TARGET'")
    return enc.standing(command.targets[0])


def no_extras(command: Act, verb: str, *, to: bool = False, targets: bool = False) -> None:
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


def doubled(enc: Engine, i: int, against: int | None) -> int:
    """R42/R43: Attack, Block and Dodge cost double when grappled (against anyone but the
    grappler) and when targeted against the creature scaling this one."""
    state = state_of(enc, i)
    other = enc.creatures[against].id if against is not None else None
    factor = 1
    if state.grappled_by is not None and other != state.grappled_by:
        factor = 2
    if other is not None and state_of(enc, against).scaling == enc.creatures[i].id:  # type: ignore[arg-type]
        factor = 2
    return factor


def push(enc: Engine, roller: int, stage: StageRecord) -> None:
    """Push ``stage`` for ``roller`` to roll next (R45: the last pushed resolves first)."""
    enc.pending.append(
        PendingRoll(
            RollKind.STAGE,
            roller,
            stage=stage.name,
            context=stage.context(),
            on_turn=enc.turn_owner == enc.creatures[roller].id,
        )
    )


def reaction_window(command: Act, top: PendingRoll | None) -> PendingRoll:
    """A reaction answers a roll stage being resolved (R40, R45): the stage it answers."""
    no_extras(command, command.action)
    if top is None or top.kind is not RollKind.STAGE:
        raise IllegalActionError(
            f"{command.action} is a reaction: nothing to react to now (R40, R45)"
        )
    return top


def lose_aim(state: PointsState) -> None:
    state.aim = 0
    state.aim_target = None
    state.unseen = 0.0


def set_unaware(enc: Engine, observer: int, of: str, unaware: bool) -> None:
    s = state_of(enc, observer)
    if unaware and of not in s.unaware_of:
        s.unaware_of = (*s.unaware_of, of)
    elif not unaware and of in s.unaware_of:
        s.unaware_of = tuple(x for x in s.unaware_of if x != of)


def pool(n: int) -> Expr:
    """A d4 pool, never below 1d4 (R3)."""
    return Expr((Term(1, Dice(max(1, n), 4)),))
