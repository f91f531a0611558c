"""The numba kernel of the Action Point fast path: ``attack-weakest`` (seed 004) on flat arrays.

Nothing here is public: :func:`caltrop.sim.fast.points.simulate` is the typed entry point. The
kernel plays the engine's rules (:mod:`caltrop.economy.points.actions`) in the engine's order, for the
actions :func:`caltrop.sim.points_tactics.simple_points_command` takes:

* initiative (R30): each participant's Speed check in participant order, then the order by total,
  a PC before an NPC on a tie, PCs in joined order, NPCs by the higher Speed score, then joined
  order; fixed for the encounter (``initiative: gm``: the participant order, no rolls);
* points (R31, R32): at the start of each turn the owner gets its AP and 0 RP, every other
  participant's RP are set to its RP; on its turn a creature pays AP, off its turn RP;
* a melee attack (R38) on the adjacent (≤ 1.5 m, R34) enemy with the least Health: the highest
  AP of the weapons in hand, no roll to hit, damage = ceil(sum of their dice / 2) + constants
  (+ Power Mod unarmed); a shot (R39): DC = the distance rounded up, Favor within close range,
  Disfavor beyond it (within far range), the Dexterity pool, the weapon's dice on a hit;
* the defence window (R40, R45): the target Blocks for 1 RP if it has one (Block Rating d4s +
  Resistance off the damage), else takes it less its Resistance; nobody assists;
* a move (R35) toward the nearest enemy as :func:`~caltrop.sim.points_tactics.furthest_toward`
  computes it, with CPython's float arithmetic (:mod:`.geometry`): ``ceil(d / speed)`` AP.

A creature at 0 Health is down (R16); the encounter ends when a side has nobody standing, or is a
draw after ``max_rounds`` rounds. Dice come from :mod:`caltrop.sim.fast.rng`: encounter ``i``
rolls from a stream of the seed and ``i`` only. The play loop is :mod:`caltrop.sim.fast.loop`'s,
compiled into this module; the parts below are this kernel's: ``tab`` is ``(creatures, places,
weapons, terms, check_initiative)`` and ``work`` ``(health, down, ap, rp, x, y, order, init,
foes, dist, dealt, blocks, spent)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from caltrop.sim.fast.loop import GOING, define_loop
from caltrop.sim.fast.points.compile import (
    C_AP,
    C_BLOCK_D4,
    C_DEX,
    C_HEALTH,
    C_INIT_D4,
    C_INIT_SCORE,
    C_MELEE_AP,
    C_MELEE_CONST,
    C_MELEE_T0,
    C_MELEE_T1,
    C_R0,
    C_R1,
    C_RESIST,
    C_RP,
    C_SIDE,
    F_SPACING,
    F_SPEED,
    F_STOP,
    F_X,
    F_Y,
    T_COUNT,
    T_SIDES,
    T_SIGN,
    W_AP,
    W_CLOSE,
    W_CONST,
    W_FAR,
    W_T0,
    W_T1,
)
from caltrop.sim.fast.points.geometry import ceil_int, hypot, round2
from caltrop.sim.fast.points.initiative import sort_by_initiative
from caltrop.sim.fast.rng import _d4s, _die

#: R34 option: "Adjacent" means within 1.5 m.
ADJACENT = 1.5
#: no side won: the round limit was reached
DRAW = -1

# the stages of a traced roll
S_INITIATIVE, S_HIT, S_DAMAGE, S_DEFENCE = range(4)
# trace columns: one row per roll. POOL: d4s of an initiative, hit or Block roll (0: no defence,
# the engine's constant 0; -1: a damage roll); WEAPON: the ranged weapon of a hit or damage roll
# (-1: melee); OTHER: the target of a hit or damage roll, the attacker of a defence roll;
# RESULT: 1/0 hit or miss, the damage a defence roll lets through, else the total.
R_ROUND, R_ROLLER, R_STAGE, R_OTHER, R_POOL, R_WEAPON, R_TOTAL, R_RESULT = range(8)
R_COLUMNS = 8


@njit(cache=True)
def _roll_terms(term: np.ndarray, t0: int, t1: int, s: np.uint64) -> tuple[int, np.uint64]:
    total = 0
    for t in range(t0, t1):
        count = term[t, T_COUNT]
        sides = term[t, T_SIDES]
        if sides == 4:
            rolled, s = _d4s(count, s)
        else:
            rolled = 0
            for _ in range(count):
                face, s = _die(sides, s)
                rolled += face
        total += term[t, T_SIGN] * rolled
    return total, s


@njit(cache=True, inline="always")
def _row(
    trace: np.ndarray,
    rows: int,
    rnd: int,
    roller: int,
    stage: int,
    other: int,
    pool: int,
    weapon: int,
    total: int,
    result: int,
) -> int:
    if rows < trace.shape[0]:
        trace[rows, R_ROUND] = rnd
        trace[rows, R_ROLLER] = roller
        trace[rows, R_STAGE] = stage
        trace[rows, R_OTHER] = other
        trace[rows, R_POOL] = pool
        trace[rows, R_WEAPON] = weapon
        trace[rows, R_TOTAL] = total
        trace[rows, R_RESULT] = result
    return rows + 1


@njit(cache=True)
def _land(
    s: np.uint64,
    cre: np.ndarray,
    rnd: int,
    attacker: int,
    target: int,
    incoming: int,
    health: np.ndarray,
    down: np.ndarray,
    rp: np.ndarray,
    dealt: np.ndarray,
    blocks: np.ndarray,
    spent: np.ndarray,
    trace: np.ndarray,
    rows: int,
) -> tuple[np.uint64, int, bool]:
    """The defence window and roll of R45 on ``incoming`` damage, and the damage applied;
    returns the stream, the trace rows and whether the target went down."""
    resist = cre[target, C_RESIST]
    if rp[target] >= 1:
        # R40: Block for 1 RP: damage -= Block Rating d4s + Resistance, never below 0
        rp[target] -= 1
        spent[target] += 1
        blocks[target] += 1
        pool = cre[target, C_BLOCK_D4]
        rolled, s = _d4s(pool, s)
        damage = max(0, incoming - (rolled + resist))
    else:
        # R40: no defence: damage - Resistance (the engine rolls the constant 0)
        pool = 0
        rolled = 0
        damage = max(0, incoming - resist)
    rows = _row(trace, rows, rnd, target, S_DEFENCE, attacker, pool, -1, rolled, damage)
    health[target] = max(0, health[target] - damage)
    dealt[attacker] += damage
    if health[target] == 0 and not down[target]:
        down[target] = True
        return s, rows, True
    return s, rows, False


TRACE_COLUMNS = R_COLUMNS


@njit(cache=True, inline="always")
def begin(tab, work, standing):  # type: ignore[no-untyped-def]
    """Health, RP and places as the encounter starts (AP come with each turn, R31); count who
    stands."""
    cre, pla = tab[0], tab[1]
    health, down, ap, rp, x, y, order, init, _, dist, dealt, blocks, spent = work
    n = cre.shape[0]
    for c in range(n):
        health[c] = cre[c, C_HEALTH]
        down[c] = health[c] <= 0
        ap[c] = 0
        rp[c] = cre[c, C_RP]
        x[c] = pla[c, F_X]
        y[c] = pla[c, F_Y]
        dealt[c] = 0
        blocks[c] = 0
        spent[c] = 0
        order[c] = c
        init[c] = 0
        if not down[c]:
            standing[cre[c, C_SIDE]] += 1
    for c in range(n):
        for j in range(c):
            dist[c, j] = dist[j, c] = hypot(x[c] - x[j], y[c] - y[j])
        dist[c, c] = 0.0
    return n


@njit(cache=True, inline="always")
def opening(tab, work, s, trace):  # type: ignore[no-untyped-def]
    """R30 with ``initiative: check``: a Speed check each, in participant order, then the
    order by total (fixed for the encounter); otherwise the participant order."""
    cre, check_initiative = tab[0], tab[4]
    order, init = work[6], work[7]
    n = cre.shape[0]
    rows = 0
    if check_initiative != 0:
        for c in range(n):
            total, s = _d4s(cre[c, C_INIT_D4], s)
            init[c] = total
            rows = _row(trace, rows, 0, c, S_INITIATIVE, -1, cre[c, C_INIT_D4], -1, total, total)
        # highest first; a PC beats an NPC; NPCs by the higher score; then joined order
        sort_by_initiative(order, n, init, cre, C_SIDE, C_INIT_SCORE)
    return s, rows


@njit(cache=True, inline="always")
def round_start(tab, work):  # type: ignore[no-untyped-def]
    """Nothing at a round's start: points come with each turn (R31)."""


@njit(cache=True, inline="always")
def turn_order(tab, work, pos):  # type: ignore[no-untyped-def]
    return work[6][pos]


@njit(cache=True, inline="always")
def is_down(tab, work, c):  # type: ignore[no-untyped-def]
    return work[1][c]


@njit(cache=True, inline="always")
def turn(tab, work, standing, c, s, rnd, trace, rows):  # type: ignore[no-untyped-def]
    """Creature ``c``'s turn with ``attack-weakest`` (the module docs); returns (stream, trace
    rows, GOING or the side that won)."""
    cre, pla, wpn, term, _ = tab
    health, down, ap, rp, x, y, _, _, foes, dist, dealt, blocks, spent = work
    n = cre.shape[0]
    # R31: the owner gets its AP; everyone else's RP are set to their RP
    for k in range(n):
        if k == c:
            ap[k] = cre[k, C_AP]
            rp[k] = 0
        else:
            ap[k] = 0
            rp[k] = cre[k, C_RP]
    side = cre[c, C_SIDE]
    while True:
        # the standing enemies by (Health, index)
        nf = 0
        for j in range(n):
            if down[j] or cre[j, C_SIDE] == side:
                continue
            b = nf
            while b > 0 and health[foes[b - 1]] > health[j]:
                foes[b] = foes[b - 1]
                b -= 1
            foes[b] = j
            nf += 1
        my_ap = ap[c]
        target = -1
        weapon = -1
        # 1. the adjacent enemy with the least Health, every melee weapon at once (R38)
        if my_ap >= cre[c, C_MELEE_AP]:
            for f in range(nf):
                j = foes[f]
                if dist[c, j] <= ADJACENT:
                    target = j
                    break
        if target >= 0:
            cost = cre[c, C_MELEE_AP]
            ap[c] -= cost
            spent[c] += cost
            rolled, s = _roll_terms(term, cre[c, C_MELEE_T0], cre[c, C_MELEE_T1], s)
            incoming = -((-rolled) // 2) + cre[c, C_MELEE_CONST]  # halved up (R38)
            rows = _row(trace, rows, rnd, c, S_DAMAGE, target, -1, -1, incoming, incoming)
            s, rows, downed = _land(
                s, cre, rnd, c, target, incoming, health, down, rp, dealt, blocks,
                spent, trace, rows,
            )  # fmt: skip
            if downed:
                standing[cre[target, C_SIDE]] -= 1
                if standing[cre[target, C_SIDE]] == 0:
                    return s, rows, side
            continue
        # 2. the weakest enemy within close range of a ranged weapon in hand (R39)
        for f in range(nf):
            j = foes[f]
            d = ceil_int(dist[c, j] - 1e-9)  # R34: rounded up
            for w in range(cre[c, C_R0], cre[c, C_R1]):
                if d <= wpn[w, W_CLOSE] and d <= wpn[w, W_FAR] and my_ap >= wpn[w, W_AP]:
                    target = j
                    weapon = w
                    break
            if target >= 0:
                break
        # 3. toward the nearest enemy (furthest_toward)
        if target < 0 and my_ap >= 1 and nf > 0:
            near = -1
            near_d = 0.0
            for j in range(n):
                if down[j] or cre[j, C_SIDE] == side:
                    continue
                d2 = dist[c, j]
                if near < 0 or d2 < near_d:
                    near = j
                    near_d = d2
            speed = pla[c, F_SPEED]
            travel = min(near_d - pla[c, F_STOP], my_ap * speed - 0.01)
            if speed > 0 and travel >= 0.05:
                f2 = travel / near_d if near_d > 0 else 0.0
                tx = round2(x[c] + (x[near] - x[c]) * f2)
                ty = round2(y[c] + (y[near] - y[c]) * f2)
                md = hypot(x[c] - tx, y[c] - ty)
                steps = ceil_int(md / speed - 1e-9) if md > 0 else 0
                crowded = False  # R34 min_spacing: not within it of another standing
                for j in range(n):
                    if j != c and not down[j]:
                        gap = hypot(x[j] - tx, y[j] - ty)
                        if gap < pla[c, F_SPACING] - 1e-9:
                            crowded = True
                if 1 <= steps <= my_ap and not crowded:
                    ap[c] -= steps  # R35
                    spent[c] += steps
                    x[c] = x[c] + (tx - x[c])
                    y[c] = y[c] + (ty - y[c])
                    for j in range(n):
                        if j != c:
                            dist[c, j] = dist[j, c] = hypot(x[c] - x[j], y[c] - y[j])
                    continue
        # 4. the weakest enemy within far range
        if target < 0:
            for f in range(nf):
                j = foes[f]
                d = ceil_int(dist[c, j] - 1e-9)
                for w in range(cre[c, C_R0], cre[c, C_R1]):
                    if d <= wpn[w, W_FAR] and my_ap >= wpn[w, W_AP]:
                        target = j
                        weapon = w
                        break
                if target >= 0:
                    break
        if target < 0:
            return s, rows, GOING  # 5. end the turn
        # the shot (R39): Dexterity check, DC = distance
        cost = wpn[weapon, W_AP]
        ap[c] -= cost
        spent[c] += cost
        dc = ceil_int(dist[c, target] - 1e-9)
        favor = 1 if dc <= wpn[weapon, W_CLOSE] else -1
        pool = max(1, cre[c, C_DEX] + favor)
        total, s = _d4s(pool, s)
        hit = total >= dc
        rows = _row(trace, rows, rnd, c, S_HIT, target, pool, weapon, total, int(hit))
        if not hit:
            continue
        rolled, s = _roll_terms(term, wpn[weapon, W_T0], wpn[weapon, W_T1], s)
        incoming = rolled + wpn[weapon, W_CONST]
        rows = _row(trace, rows, rnd, c, S_DAMAGE, target, -1, weapon, incoming, incoming)
        s, rows, downed = _land(
            s, cre, rnd, c, target, incoming, health, down, rp, dealt, blocks, spent,
            trace, rows,
        )  # fmt: skip
        if downed:
            standing[cre[target, C_SIDE]] -= 1
            if standing[cre[target, C_SIDE]] == 0:
                return s, rows, side


@njit(cache=True, inline="always")
def new_work(tab):  # type: ignore[no-untyped-def]
    n = tab[0].shape[0]
    return (
        np.empty(n, np.int64),
        np.empty(n, np.bool_),
        np.empty(n, np.int64),
        np.empty(n, np.int64),
        np.empty(n, np.float64),
        np.empty(n, np.float64),
        np.empty(n, np.int64),
        np.empty(n, np.int64),
        np.empty(n, np.int64),
        np.empty((n, n), np.float64),
        np.empty(n, np.int64),
        np.empty(n, np.int64),
        np.empty(n, np.int64),
    )


@njit(cache=True, inline="always")
def record(tab, work, i, rows, out):  # type: ignore[no-untyped-def]
    """Encounter ``i``'s damage dealt, Blocks, AP and RP spent, down and Health into ``out``."""
    health, down = work[0], work[1]
    dealt, blocks, spent = work[10], work[11], work[12]
    dealt_out, blocks_out, spent_out, down_out, health_out = out
    for c in range(tab[0].shape[0]):
        dealt_out[i, c] = dealt[c]
        blocks_out[i, c] = blocks[c]
        spent_out[i, c] = spent[c]
        down_out[i, c] = down[c]
        health_out[i, c] = health[c]


# play_one, play_many and play_traced: the shared loop with the parts above
play_one: Any
play_many: Any
play_traced: Any
define_loop(globals())
