"""Movement in the Action Point module (seed 004): move (R35, with partial moves), leap (R36),
and where a creature may stand (R34); whoever it grapples or carries moves with it (R42, R43).
"""

from __future__ import annotations

import math

from caltrop.core.commands import COORDINATE_LIMIT, Act
from caltrop.core.model import (
    CreatureDef,
    OffTurn,
)
from caltrop.economy.base import Engine
from caltrop.economy.pending import PendingRoll
from caltrop.economy.points.common import (
    ADJACENT,
    PointsPlan,
    Price,
    Quote,
    lose_aim,
    meters,
    no_extras,
    one_target,
    pay_for,
    state_of,
)
from caltrop.economy.points.state import PointsState, stat
from caltrop.errors import IllegalActionError, InvalidActionError


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
    for j in kept_apart(enc, i):
        them = state_of(enc, j)
        d = math.hypot(them.x - x, them.y - y)
        if d < spacing - 1e-9:
            raise IllegalActionError(
                f"{enc.creatures[i].name} would {verb} {meters(round(d, 2))} from "
                f"{enc.creatures[j].name}; standing creatures keep {spacing:g} m apart "
                "(R34, min_spacing)"
            )


def kept_apart(enc: Engine, i: int) -> list[int]:
    """The creatures ``i`` may not end a move within ``min_spacing`` of (R34): every other
    standing one, but those it holds or is held by, who move with it (R42, R43)."""
    me = state_of(enc, i)
    cid = enc.creatures[i].id
    out = []
    for j, other in enumerate(enc.creatures):
        if j == i or enc.down[j]:
            continue
        them = state_of(enc, j)
        linked = cid in (them.grappled_by, them.scaling) or other.id in (
            me.grappled_by,
            me.scaling,
        )
        if not linked:
            out.append(j)
    return out


def clear_travel(
    start: tuple[float, float],
    unit: tuple[float, float],
    travel: float,
    others: list[tuple[float, float]],
    spacing: float,
) -> float:
    """How far along the ray from ``start`` (direction ``unit``, a unit vector) a partial move
    may go, at most ``travel`` m: the furthest distance whose spot is no nearer than
    ``spacing`` to any of ``others`` (R34: a move may not end within ``min_spacing`` of
    another standing creature), a centimetre's margin kept so that the spot rounded to the
    centimetre is clear too. 0 when no spot of the ray up to ``travel`` is clear."""
    margin = 0.01
    # each other creature keeps the open stretch (lo, hi) of the ray clear of spots
    stretches = []
    for ox, oy in others:
        along = (ox - start[0]) * unit[0] + (oy - start[1]) * unit[1]
        off2 = (ox - start[0]) ** 2 + (oy - start[1]) ** 2 - along**2
        reach2 = (spacing + margin) ** 2 - off2
        if reach2 > 0:
            half = math.sqrt(reach2)
            stretches.append((along - half, along + half))
    t = travel
    moved = True
    while moved and t > 0:
        moved = False
        for lo, hi in stretches:
            if lo < t < hi:
                t, moved = lo, True
    return max(t, 0.0)


def destination(
    enc: Engine, i: int, command: Act, verb: str
) -> tuple[PointsState, CreatureDef, float]:
    """A move's or a leap's checked destination: the mover's position state, the mover,
    and the straight-line distance in metres to ``to X,Y`` (R34)."""
    no_extras(command, verb, to=True)
    if command.to is None:
        raise InvalidActionError(f"{verb} needs a destination: 'aria: {verb} to X,Y'")
    state = state_of(enc, i)
    check_place(enc, i, command.to, f"end the {verb}")
    d = math.hypot(command.to[0] - state.x, command.to[1] - state.y)
    return state, enc.creatures[i], d


def travel_speed(enc: Engine, i: int) -> float:
    """R35 with R42: grappled creatures have speed 0; a grappler's speed is halved."""
    state = state_of(enc, i)
    if state.grappled_by is not None:
        return 0.0
    speed = float(stat(enc.creatures[i], "travel_speed"))
    cid = enc.creatures[i].id
    if any(state_of(enc, j).grappled_by == cid for j in range(len(enc.creatures))):
        speed /= 2
    return speed


#: the float noise a move's distance is forgiven, in AP (a nanometre's worth at 1 m per AP)
FORGIVEN = 1e-9


def move_price(distance: float, speed: float) -> int:
    """R35 "1 AP moves up to the participant's travel speed in meters": the AP a move of
    ``distance`` m costs at ``speed`` m per AP, ceil(distance ÷ speed), float noise forgiven;
    0 for no distance. The one formula: the engine's moves read it, and the map's preview
    reads :func:`move_steps`, worked out from it. ``speed`` is more than 0."""
    return math.ceil(distance / speed - FORGIVEN) if distance > 0 else 0


def move_steps(speed: float, points: int) -> list[tuple[int, float]]:
    """What ``points`` AP buy at ``speed`` m per AP (R35): for each price ``k`` in
    1..``points``, the farthest distance whose :func:`move_price` is ``k`` — so a move of
    ``d`` m costs the first price whose distance is at least ``d``, exactly as the engine
    charges it. Empty at speed 0 (grappled, R42)."""
    if speed <= 0:
        return []
    return [(k, (k + FORGIVEN) * speed) for k in range(1, points + 1)]


def move_budget(enc: Engine, i: int) -> tuple[float, int, bool]:
    """What creature ``i`` may move now: its travel speed (R35, R42), the AP it can pay and
    whether on its own turn (AP) or not (its RP and floating RP at 2 RP per AP, R32; none
    when the ruleset's ``off_turn_actions`` is ``reactions``: a move is no reaction)."""
    me = state_of(enc, i)
    on_turn = enc.turn_owner == enc.creatures[i].id
    if on_turn:
        can_pay = me.ap
    elif enc.definition.ruleset.off_turn_actions is OffTurn.ANY:
        can_pay = (me.rp + me.floating) // 2
    else:
        can_pay = 0
    return travel_speed(enc, i), can_pay, on_turn


def plan_move(enc: Engine, i: int, command: Act, on_turn: bool, top: PendingRoll | None) -> Quote:
    if command.toward:
        command = toward(enc, i, command, on_turn)
    state, creature, d = destination(enc, i, command, "move")
    speed = travel_speed(enc, i)
    if d > 0 and speed <= 0:
        reason = "grappled" if state.grappled_by else "travel speed 0"
        raise IllegalActionError(f"{creature.name} cannot move: {reason} (R42)")
    steps = move_price(d, speed)
    if steps == 0:
        raise IllegalActionError(f"{creature.name} is already there (R35)")
    what = f"move {meters(round(d, 2))} ({steps} × {speed:g} m per AP, R35)"
    pay = pay_for(enc, i, command, Price(steps), on_turn, what)
    return Quote(command, Price(steps), pay, distance=d, to=command.to)


def toward(enc: Engine, i: int, command: Act, on_turn: bool) -> Act:
    """R35 partial moves: ``move toward ID [N m]`` goes straight at a creature and stops
    when adjacent (R34); ``move N m toward X,Y`` at most N m toward a point. Either goes as
    far as the AP (or, off turn, the RP, R32) the mover can pay allow ("1 AP moves up to the
    participant's travel speed", R35), and stops short of any spot within ``min_spacing`` of
    another standing creature (R34: a move "may not end within 0.5 m of another standing
    creature"), at the furthest clear spot of its line, instead of being refused (issue 22
    item 8). The planned move is the exact ``move to X,Y`` it comes to (rounded to the
    centimeter), checked like one."""
    creature = enc.creatures[i]
    me = state_of(enc, i)
    if command.weapons or command.dc is not None or (command.to is None) == (not command.targets):
        raise InvalidActionError("'move toward CREATURE [N m]' or 'move N m toward X,Y' (R35)")
    if command.targets:
        j = one_target(enc, command, "move toward")
        if j == i:
            raise IllegalActionError(f"{creature.name} cannot move toward itself")
        them = state_of(enc, j)
        goal, stop = (them.x, them.y), ADJACENT - 0.05
    else:
        assert command.to is not None
        goal, stop = command.to, 0.0
    d = math.hypot(goal[0] - me.x, goal[1] - me.y)
    speed = travel_speed(enc, i)
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
    # R34: it stops short of a spot another standing creature keeps (min_spacing), at the
    # furthest clear spot on its line; with none, the move is checked as it is and refused
    unit = ((goal[0] - me.x) / d, (goal[1] - me.y) / d)
    others = [(state_of(enc, j).x, state_of(enc, j).y) for j in kept_apart(enc, i)]
    clear = clear_travel((me.x, me.y), unit, travel, others, enc.definition.ruleset.min_spacing)
    if clear >= 0.01:
        travel = clear
    f = travel / d
    to = (round(me.x + (goal[0] - me.x) * f, 2), round(me.y + (goal[1] - me.y) * f, 2))
    return Act(command.actor, "move", to=to, flags=command.flags, advantages=command.advantages)


def plan_leap(enc: Engine, i: int, command: Act, on_turn: bool, top: PendingRoll | None) -> Quote:
    state, creature, d = destination(enc, i, command, "leap")
    run_up = state.moved >= 2
    name = "Strength" if run_up else "Power"
    reach = creature.aspects.get(name, 0)
    if d > reach + 1e-9:
        why = "after a 2 m run-up" if run_up else "without a 2 m run-up"
        raise IllegalActionError(
            f"{creature.name} leaps at most {name} {reach} m {why}; {meters(round(d, 2))} is too far (R36)"
        )
    if state.grappled_by is not None:
        raise IllegalActionError(f"{creature.name} is grappled and cannot leap (R42)")
    price = Price(3, stamina=3)
    pay = pay_for(enc, i, command, price, on_turn, "leap (3 AP and 3 Stamina, R36)")
    return Quote(command, price, pay, distance=d)


def do_move(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
    # R36 "traveled at least 2 meters right before the leap": consecutive moves add up (the
    # run-up is reset by any other action and at every turn start).
    state = state_of(enc, plan.actor)
    run_up = state.moved
    relocate(enc, plan.actor, plan.extra["to"])
    state.moved = run_up + float(plan.extra["distance"])


def do_leap(enc: Engine, plan: PointsPlan, top: PendingRoll | None) -> None:
    relocate(enc, plan.actor, plan.command.to)


def relocate(enc: Engine, i: int, to: tuple[float, float] | None) -> None:
    """Move ``i`` (and whoever it grapples or carries, R42, R43)."""
    assert to is not None
    state = state_of(enc, i)
    cid = enc.creatures[i].id
    # R42: the grappled move with the grappler; R43: a creature being scaled carries whoever
    # is scaling it, and a scaler that moves off on its own stops scaling.
    moved = [i] + [
        j
        for j in range(len(enc.creatures))
        if state_of(enc, j).grappled_by == cid or state_of(enc, j).scaling == cid
    ]
    if state.scaling is not None and enc.index(state.scaling) not in moved:
        state.scaling = None
    place(enc, moved, to[0] - state.x, to[1] - state.y)


def place(enc: Engine, moved: list[int], dx: float, dy: float) -> None:
    """Shift ``moved`` by (dx, dy): positions changed, so cover against or by them ends
    (R40); an aimer without line of sight to a creature that moved adds the distance to
    what its target has moved unseen since the first Aim, and at 1 m loses its aim (R39)."""
    for j in moved:
        s = state_of(enc, j)
        s.x, s.y = s.x + dx, s.y + dy
        s.cover_from = ()
    ids = {enc.creatures[j].id for j in moved}
    step = math.hypot(dx, dy)
    for j in range(len(enc.creatures)):
        s = state_of(enc, j)
        if s.cover_from and ids & set(s.cover_from):
            s.cover_from = tuple(c for c in s.cover_from if c not in ids)
        if s.aim_target in ids and s.aim_target in s.no_sight and step > 0:
            s.unseen += step
            if s.unseen >= 1 - 1e-9:
                lose_aim(s)
