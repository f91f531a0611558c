"""The numba kernels of the fast path: the fast tactic (:mod:`caltrop.sim.fast`) on flat arrays.

Nothing here is public: :func:`caltrop.sim.fast.simulate` is the typed entry point. The kernel
plays the same rules as the engine (:class:`caltrop.encounter.Encounter`) in the same order —
round start (R19), turn start (R10), gate (R11, R20), pool (R12), the reaction window in turn
order after the roller (R15), source keys counted once (R14), damage (R16), Load += Cost after
resolving, a downed creature skipped, the end when one side is all down — and the decisions of
:class:`caltrop.sim.fast.reference.FastTacticPolicy`. ``tests/sim/test_fast.py`` checks that
both make the same decisions on the same dice, roll by roll.

Dice: :mod:`caltrop.sim.fast.rng` (each encounter rolls from its own stream of the seed). The
play loop — rounds, turns, the end, the parallel batch — is :mod:`caltrop.sim.fast.loop`'s, compiled
into this module (:func:`~caltrop.sim.fast.loop.define_loop`); the parts below are this kernel's:
``tab`` is ``(creatures, attacks, terms, team, attack limits, team limits, hinder limits,
legacy, round_reset)`` and ``work`` ``(health, load, down, dealt, hinders, spent)``.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from numba import config, njit

from caltrop.sim.fast.loop import GOING, define_loop
from caltrop.sim.fast.rng import _d4s, _die, stream_start

# A fork-safe threading layer, unless the user chose one: the default (GNU OpenMP on Linux)
# kills a child forked after a parallel run ("fork() called from a process already using GNU
# OpenMP"), and the simulator's worker processes may fork. Without TBB this is numba's
# ``workqueue``, which is not thread safe: :func:`caltrop.sim.fast.simulate` serialises calls.
if not os.environ.get("NUMBA_THREADING_LAYER"):
    config.THREADING_LAYER = "forksafe"  # type: ignore[attr-defined]

# creature table columns
C_SIDE, C_HEALTH, C_EVASION, C_RESET, C_A0, C_A1, C_M0, C_M1 = range(8)
C_COLUMNS = 8
# attack-option table columns
A_ASPECT, A_COST, A_FIXED, A_BMAX, A_BMEAN2, A_T0, A_T1 = range(7)
A_COLUMNS = 7
# dice-term table columns (sides 0: the constant COUNT)
T_COUNT, T_SIDES, T_SIGN = range(3)
T_COLUMNS = 3
# hinder team-action table columns
M_ASPECT, M_COST, M_SOURCE = range(3)
M_COLUMNS = 3
# trace columns: one row per resolved attack roll
R_ROUND, R_ROLLER, R_OPTION, R_TARGET, R_HELPERS, R_D4, R_TOTAL, R_DAMAGE = range(8)
R_COLUMNS = 8

#: no side won: the round limit was reached
DRAW = -1
U0 = np.uint64(0)
U1 = np.uint64(1)


@njit(cache=True, inline="always")
def _pool(aspect: int, load: int, net: int, fixed: int, legacy: int) -> int:
    """R12: Aspect − max(0, Load) + Net Advantage, at least 1; R20: Aspect − Load; fixed pool."""
    if fixed >= 0:
        base = fixed
    elif legacy != 0:
        base = aspect - load
    else:
        base = aspect - max(0, load)
    return max(1, base + net)


BIG = 1 << 40


@njit(cache=True)
def load_limits(
    cre: np.ndarray, att: np.ndarray, team: np.ndarray, legacy: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The largest Load at which each attack option and each hinder passes the gate (R11:
    Load ≤ Aspect − Cost; R20 also Load ≤ Aspect − 1), and per creature the largest over its
    hinders (−BIG if it has none): the gate becomes one comparison."""
    att_limit = np.empty(att.shape[0], np.int64)
    for a in range(att.shape[0]):
        limit = att[a, A_ASPECT] - att[a, A_COST]
        if legacy != 0:
            limit = min(limit, att[a, A_ASPECT] - 1)
        att_limit[a] = limit
    team_limit = np.empty(team.shape[0], np.int64)
    for m in range(team.shape[0]):
        limit = team[m, M_ASPECT] - team[m, M_COST]
        if legacy != 0:
            limit = min(limit, team[m, M_ASPECT] - 1)
        team_limit[m] = limit
    hinder_limit = np.full(cre.shape[0], -BIG, np.int64)
    for c in range(cre.shape[0]):
        for m in range(cre[c, C_M0], cre[c, C_M1]):
            hinder_limit[c] = max(hinder_limit[c], team_limit[m])
    return att_limit, team_limit, hinder_limit


TRACE_COLUMNS = R_COLUMNS


@njit(cache=True, inline="always")
def begin(tab, work, standing):  # type: ignore[no-untyped-def]
    """Every creature at its Health and reset Load (R10), down at 0 Health; count who stands."""
    cre = tab[0]
    health, load, down, dealt, hinders, spent = work
    for c in range(cre.shape[0]):
        health[c] = cre[c, C_HEALTH]
        load[c] = cre[c, C_RESET]
        down[c] = health[c] <= 0
        dealt[c] = 0
        hinders[c] = 0
        spent[c] = 0
        if not down[c]:
            standing[cre[c, C_SIDE]] += 1
    return cre.shape[0]


@njit(cache=True, inline="always")
def opening(tab, work, s, trace):  # type: ignore[no-untyped-def]
    """Nothing before round 1: the GM's turn order (R21)."""
    return s, 0


@njit(cache=True, inline="always")
def round_start(tab, work):  # type: ignore[no-untyped-def]
    """R19 ``round``: everyone's Load resets at the start of each round."""
    if tab[8] != 0:
        cre, load = tab[0], work[1]
        for c in range(cre.shape[0]):
            load[c] = cre[c, C_RESET]


@njit(cache=True, inline="always")
def turn_order(tab, work, pos):  # type: ignore[no-untyped-def]
    """The GM's order: the participant list (R21)."""
    return pos


@njit(cache=True, inline="always")
def is_down(tab, work, c):  # type: ignore[no-untyped-def]
    return work[2][c]


@njit(cache=True, inline="always")
def turn(tab, work, standing, c, s, rnd, trace, rows):  # type: ignore[no-untyped-def]
    """Creature ``c``'s turn with the fast tactic (R10 reset, then attack while the gate
    allows); returns (stream, trace rows, GOING or the side that won)."""
    cre, att, term, team, att_limit, team_limit, hinder_limit, legacy, round_reset = tab
    health, load, down, dealt, hinders, spent = work
    n_cre = cre.shape[0]
    cap = trace.shape[0]
    if round_reset == 0:
        load[c] = cre[c, C_RESET]
    my_side = cre[c, C_SIDE]
    while True:
        # the attack option with the largest expected total the gate allows
        best = -1
        best_value = 0
        my_load = load[c]
        for a in range(cre[c, C_A0], cre[c, C_A1]):
            if my_load > att_limit[a]:
                continue
            value = (
                5 * _pool(att[a, A_ASPECT], my_load, 0, att[a, A_FIXED], legacy) + att[a, A_BMEAN2]
            )
            if best < 0 or value > best_value:
                best = a
                best_value = value
        if best < 0:
            return s, rows, GOING  # end of turn
        # the standing enemy with the least Health (ties: first in turn order)
        target = -1
        for j in range(n_cre):
            if down[j] or cre[j, C_SIDE] == my_side:
                continue
            if target < 0 or health[j] < health[target]:
                target = j
        fixed = att[best, A_FIXED]
        if fixed >= 0:
            base = fixed
        elif legacy != 0:
            base = att[best, A_ASPECT] - my_load
        else:
            base = att[best, A_ASPECT] - max(0, my_load)
        evasion = cre[target, C_EVASION]
        # the roll can down the target iff 4 × d4 pool ≥ its Health + Evasion − bonus max
        need = health[target] + evasion - att[best, A_BMAX]
        # the reaction window, in turn order after the roller (R15)
        dis = U0
        net = 0
        helpers = 0
        for k in range(1, n_cre):
            j = c + k
            if j >= n_cre:
                j -= n_cre
            if load[j] > hinder_limit[j] or down[j] or cre[j, C_SIDE] == my_side:
                continue
            m0 = cre[j, C_M0]
            m1 = cre[j, C_M1]
            if 4 * max(1, base + net) < need:
                continue  # this roll cannot down the target: keep the Load
            for m in range(m0, m1):
                bit = U1 << np.uint64(team[m, M_SOURCE])
                if (dis & bit) != U0:
                    continue  # R14: that source key already counts on this roll
                if load[j] > team_limit[m]:
                    continue
                dis |= bit
                net -= 1
                load[j] += team[m, M_COST]
                spent[j] += team[m, M_COST]
                hinders[j] += 1
                helpers |= 1 << j
                break
        # roll: the d4 pool, then the weapon's and the action's extra dice
        d4 = max(1, base + net)
        total, s = _d4s(d4, s)
        for t in range(att[best, A_T0], att[best, A_T1]):
            count = term[t, T_COUNT]
            sides = term[t, T_SIDES]
            sign = term[t, T_SIGN]
            if sides == 0:
                total += sign * count
                continue
            if sides == 4:
                rolled, s = _d4s(count, s)
                total += sign * rolled
                continue
            for _ in range(count):
                face, s = _die(sides, s)
                total += sign * face
        damage = max(0, total - evasion)  # R16
        removed = min(damage, health[target])
        health[target] -= removed
        dealt[c] += removed
        cost = att[best, A_COST]
        load[c] += cost  # seed 000 step 6
        spent[c] += cost
        if rows < cap:
            trace[rows, R_ROUND] = rnd
            trace[rows, R_ROLLER] = c
            trace[rows, R_OPTION] = best
            trace[rows, R_TARGET] = target
            trace[rows, R_HELPERS] = helpers
            trace[rows, R_D4] = d4
            trace[rows, R_TOTAL] = total
            trace[rows, R_DAMAGE] = damage
            rows += 1
        if health[target] == 0:
            down[target] = True
            side = cre[target, C_SIDE]
            standing[side] -= 1
            if standing[side] == 0:
                return s, rows, 1 - side


@njit(cache=True, inline="always")
def new_work(tab):  # type: ignore[no-untyped-def]
    n_cre = tab[0].shape[0]
    return (
        np.empty(n_cre, np.int64),
        np.empty(n_cre, np.int64),
        np.empty(n_cre, np.bool_),
        np.empty(n_cre, np.int64),
        np.empty(n_cre, np.int64),
        np.empty(n_cre, np.int64),
    )


@njit(cache=True, inline="always")
def record(tab, work, i, rows, out):  # type: ignore[no-untyped-def]
    """Encounter ``i``'s damage dealt, hinders, Load spent, down and Health into ``out``."""
    health, _, down, dealt, hinders, spent = work
    dealt_out, hinders_out, spent_out, down_out, health_out = out
    for c in range(tab[0].shape[0]):
        dealt_out[i, c] = dealt[c]
        hinders_out[i, c] = hinders[c]
        spent_out[i, c] = spent[c]
        down_out[i, c] = down[c]
        health_out[i, c] = health[c]


# play_one, play_many and play_traced: the shared loop with the parts above
play_one: Any
play_many: Any
play_traced: Any
define_loop(globals())
__all__ = ["_d4s", "_die", "load_limits", "stream_start"]
