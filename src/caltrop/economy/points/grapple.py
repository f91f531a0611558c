"""Grapples and scaling in the Action Point module (seed 004): grapple, escape (R42), scale,
shake (R43) and oppose, the opposed contests they start (R4), and what ends them (a creature
going down, R42, R43).
"""

from __future__ import annotations

from dataclasses import replace

from caltrop.core.commands import Act
from caltrop.core.pool import net_advantage
from caltrop.economy.base import Engine
from caltrop.economy.outcome import Outcome
from caltrop.economy.pending import PendingRoll
from caltrop.economy.points.common import (
    ADJACENT,
    PointsPlan,
    Price,
    Quote,
    distance,
    meters,
    no_extras,
    one_target,
    pay_for,
    push,
    reaction_window,
    state_of,
)
from caltrop.economy.points.rolls import Contest
from caltrop.economy.points.state import stat
from caltrop.errors import IllegalActionError


def plan_grapple(
    enc: Engine, i: int, command: Act, on_turn: bool, top: PendingRoll | None
) -> Quote:
    no_extras(command, "grapple", targets=True)
    target = one_target(enc, command, "grapple")
    if target == i:
        raise IllegalActionError("a creature cannot grapple itself (R42)")
    d = distance(state_of(enc, i), state_of(enc, target))
    if d > ADJACENT + 1e-9:
        raise IllegalActionError(
            f"{enc.creatures[target].name} is {meters(round(d, 2))} away; grapple needs adjacency "
            f"({ADJACENT:g} m, R34, R42)"
        )
    if state_of(enc, target).grappled_by is not None:
        raise IllegalActionError(f"{enc.creatures[target].name} is already grappled (R42)")
    price = Price(3, stamina=2)
    pay = pay_for(enc, i, command, price, on_turn, "grapple (3 AP and 2 Stamina, R42)")
    return Quote(command, price, pay, target=target)


def plan_scale(enc: Engine, i: int, command: Act, on_turn: bool, top: PendingRoll | None) -> Quote:
    no_extras(command, "scale", targets=True)
    price = Price(3, stamina=4)
    what = "scale (3 AP and 4 Stamina, R43)"
    if not command.targets:
        pay = pay_for(enc, i, command, price, on_turn, what)
        return Quote(command, price, pay, target=None)
    target = one_target(enc, command, "scale")
    me, them = enc.creatures[i], enc.creatures[target]
    if target == i:
        raise IllegalActionError("a creature cannot scale itself (R43)")
    if stat(them, "size") < stat(me, "size"):
        raise IllegalActionError(
            f"{them.name} is smaller than {me.name}; only same size or larger (R43)"
        )
    d = distance(state_of(enc, i), state_of(enc, target))
    if d > ADJACENT + 1e-9:
        raise IllegalActionError(
            f"{them.name} is {meters(round(d, 2))} away; scaling needs adjacency "
            f"({ADJACENT:g} m, R34, R43)"
        )
    pay = pay_for(enc, i, command, price, on_turn, what)
    return Quote(command, price, pay, target=target)


def plan_escape(enc: Engine, i: int, command: Act, on_turn: bool, top: PendingRoll | None) -> Quote:
    no_extras(command, "escape")
    holder = state_of(enc, i).grappled_by
    if holder is None:
        raise IllegalActionError(f"{enc.creatures[i].name} is not grappled (R42)")
    price = Price(2, "rp", stamina=2)
    pay = pay_for(enc, i, command, price, on_turn, "escape (2 AP/RP and 2 Stamina, R42)")
    return Quote(command, price, pay, target=enc.index(holder))


def plan_shake(enc: Engine, i: int, command: Act, on_turn: bool, top: PendingRoll | None) -> Quote:
    no_extras(command, "shake")
    me = enc.creatures[i].id
    scalers = [
        j for j in range(len(enc.creatures)) if state_of(enc, j).scaling == me and not enc.down[j]
    ]
    if not scalers:
        raise IllegalActionError(f"{enc.creatures[i].name} is not being scaled (R43)")
    price = Price(2, "rp", stamina=2)
    pay = pay_for(enc, i, command, price, on_turn, "shake off (2 AP/RP and 2 Stamina, R43)")
    return Quote(command, price, pay, target=scalers[0])


def plan_oppose(enc: Engine, i: int, command: Act, on_turn: bool, top: PendingRoll | None) -> Quote:
    """R42/R43: the holder (or the one scaled) answers a grapple's, an escape's, a scale's or a
    shake's contest; opposing an escape or a shake costs 2 Stamina."""
    top = reaction_window(command, top)
    contest = Contest.of(top.context) if top.stage == "contest" else None
    if contest is None or contest.opposer != i or contest.opposed:
        raise IllegalActionError(f"{enc.creatures[i].name} has nothing to oppose now (R42, R43)")
    stamina = 2 if contest.verb in ("escape", "shake") else 0
    price = Price(0, "rp", stamina=stamina)
    pay = pay_for(enc, i, command, price, on_turn, f"oppose ({stamina} Stamina, R42/R43)")
    return Quote(command, price, pay)


def do_grapple(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
    target = int(plan.extra["target"])
    them = enc.creatures[target]
    # R42: opposed by the target's Strength or Agility, the target's choice: the higher.
    stat_b = (
        "Strength"
        if them.aspects.get("Strength", 0) >= them.aspects.get("Agility", 0)
        else "Agility"
    )
    push(
        enc,
        plan.actor,
        Contest(
            verb="grapple",
            initiator=plan.actor,
            opposer=target,
            stat_a="Strength",
            stat_b=stat_b,
            favor=net_advantage(plan.command.advantages),
            opposed=True,
        ),
    )


def do_scale(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> Outcome | None:
    target = plan.extra["target"]
    if target is None:
        return None  # R43: an obstacle, no check
    me, them = enc.creatures[plan.actor], enc.creatures[target]
    larger = stat(them, "size") - stat(me, "size")
    stat_b = "Strength" if larger == 0 else "Agility"
    push(
        enc,
        plan.actor,
        Contest(
            verb="scale",
            initiator=plan.actor,
            opposer=int(target),
            stat_a="Agility",
            stat_b=stat_b,
            favor=net_advantage(plan.command.advantages) - larger,
        ),
    )
    return None


def do_escape(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
    push_escape(enc, plan, "escape")


def do_shake(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
    push_escape(enc, plan, "shake")


def push_escape(enc: Engine, plan: PointsPlan, verb: str) -> None:
    me = enc.creatures[plan.actor]
    stat_a = (
        "Strength" if me.aspects.get("Strength", 0) >= me.aspects.get("Agility", 0) else "Agility"
    )
    holder = int(plan.extra["target"])
    stat_b = "Strength" if verb == "escape" else "Agility"
    push(
        enc,
        plan.actor,
        Contest(
            verb=verb,
            initiator=plan.actor,
            opposer=holder,
            stat_a=stat_a,
            stat_b=stat_b,
            favor=net_advantage(plan.command.advantages),
        ),
    )


def do_oppose(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
    assert top is not None
    top.context = replace(Contest.of(top.context), opposed=True).context()


# What each contest decides once rolled (R4); on a failure the status quo holds. The holder's
# 2 Stamina for opposing an escape or a shake are paid by its ``oppose`` reaction (refused if it
# cannot pay, R37), not a second time here.


def grapple_decided(enc: Engine, contest: Contest, success: bool) -> None:
    """R42: a won grapple holds the target."""
    if success:
        state_of(enc, contest.opposer).grappled_by = enc.creatures[contest.initiator].id


def escape_decided(enc: Engine, contest: Contest, success: bool) -> None:
    """R42: a won escape breaks the grapple."""
    if success:
        state_of(enc, contest.initiator).grappled_by = None


def scale_decided(enc: Engine, contest: Contest, success: bool) -> None:
    """R43: a won scale puts the scaler on the creature it scales."""
    if success:
        state_of(enc, contest.initiator).scaling = enc.creatures[contest.opposer].id


def shake_decided(enc: Engine, contest: Contest, success: bool) -> None:
    """R43: a won shake throws the scaler off."""
    if success:
        state_of(enc, contest.opposer).scaling = None


def release(enc: Engine, i: int) -> None:
    """A creature that goes down holds nobody and is held by nobody: grapples (R42) and
    scaling (R43) by it or of it end (a down grappler cannot oppose, let alone hold)."""
    cid = enc.creatures[i].id
    mine = state_of(enc, i)
    mine.grappled_by = None
    mine.scaling = None
    for j in range(len(enc.creatures)):
        s = state_of(enc, j)
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
        if not enc.down[j] and state_of(enc, j).scaling == me
    )
