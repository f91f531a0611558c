"""The numba kernels of the fast path: the fast tactic (:mod:`caltrop.sim.fast`) on flat arrays.

Nothing here is public: :func:`caltrop.sim.fast.simulate` is the typed entry point. The kernel
plays the same rules as the engine (:class:`caltrop.encounter.Encounter`) in the same order —
round start (R19), turn start (R10), gate (R11, R20), pool (R12), the reaction window in turn
order after the roller (R15), source keys counted once (R14), damage (R16), Load += Cost after
resolving, a downed creature skipped, the end when one side is all down — and the decisions of
:class:`caltrop.sim.fast.reference.FastTacticPolicy`. ``tests/sim/test_fast.py`` checks that
both make the same decisions on the same dice, roll by roll.

Dice: each encounter ``i`` has its own SplitMix64 stream, started from the 128-bit key of the
simulation seed and ``i`` only, so a result never depends on the number of threads or on how
encounters are split among them. A pool of d4s takes one 64-bit draw per 32 dice (a 2-bit field
per die, summed branch-free); other dice take 32 bits each by Lemire's unbiased
multiply-and-reject.
"""

from __future__ import annotations

import os

import numpy as np
from numba import config, njit, prange

# A fork-safe threading layer, unless the user chose one: the default (GNU OpenMP on Linux)
# kills a child forked after a parallel run ("fork() called from a process already using GNU
# OpenMP"), and the simulator's worker processes may fork. Without TBB this is numba's
# ``workqueue``, which is not thread safe: :func:`caltrop.sim.fast.simulate` serialises calls.
if not os.environ.get("NUMBA_THREADING_LAYER"):
    config.THREADING_LAYER = "forksafe"  # type: ignore[attr-defined]

GAMMA = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
U0 = np.uint64(0)
U1 = np.uint64(1)
U2 = np.uint64(2)
U3 = np.uint64(3)
U27 = np.uint64(27)
U30 = np.uint64(30)
U31 = np.uint64(31)
U32 = np.uint64(32)
LOW32 = np.uint64(0xFFFFFFFF)
U4 = np.uint64(4)
U56 = np.uint64(56)
M2BITS = np.uint64(0x3333333333333333)
M4BITS = np.uint64(0x0F0F0F0F0F0F0F0F)
ONES8 = np.uint64(0x0101010101010101)

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


@njit(cache=True, inline="always")
def _mix(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> U30)) * MIX1
    z = (z ^ (z >> U27)) * MIX2
    return z ^ (z >> U31)


@njit(cache=True, inline="always")
def stream_start(key0: np.uint64, key1: np.uint64, i: np.uint64) -> np.uint64:
    """The SplitMix64 state that starts encounter ``i``'s stream."""
    return _mix(key0 ^ _mix(key1 + i * GAMMA))


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


@njit(cache=True, inline="always")
def _die(sides: int, s: np.uint64) -> tuple[int, np.uint64]:
    """One die of ``sides`` faces (1..sides) from 32 fresh bits, unbiased (Lemire)."""
    n = np.uint64(sides)
    s = s + GAMMA
    m = (_mix(s) >> U32) * n
    low = m & LOW32
    if low < n:
        threshold = (np.uint64(0x100000000) - n) % n
        while low < threshold:
            s = s + GAMMA
            m = (_mix(s) >> U32) * n
            low = m & LOW32
    return int(m >> U32) + 1, s


@njit(cache=True, inline="always")
def _d4_sum(word: np.uint64) -> int:
    """The sum of the 32 two-bit fields of ``word`` (each 0..3), branch-free (SWAR)."""
    x = (word & M2BITS) + ((word >> U2) & M2BITS)
    x = (x + (x >> U4)) & M4BITS
    return int((x * ONES8) >> U56)


@njit(cache=True, inline="always")
def _d4s(k: int, s: np.uint64) -> tuple[int, np.uint64]:
    """The total of ``k`` d4: each die is a 2-bit field of a fresh 64-bit draw, plus 1."""
    total = k
    while k > 0:
        s = s + GAMMA
        word = _mix(s)
        if k < 32:
            word &= (U1 << np.uint64(2 * k)) - U1
            k = 0
        else:
            k -= 32
        total += _d4_sum(word)
    return total, s


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


@njit(cache=True)
def play_one(
    s: np.uint64,
    cre: np.ndarray,
    att: np.ndarray,
    term: np.ndarray,
    team: np.ndarray,
    att_limit: np.ndarray,
    team_limit: np.ndarray,
    hinder_limit: np.ndarray,
    legacy: int,
    round_reset: int,
    max_rounds: int,
    health: np.ndarray,
    load: np.ndarray,
    down: np.ndarray,
    dealt: np.ndarray,
    hinders: np.ndarray,
    spent: np.ndarray,
    trace: np.ndarray,
) -> tuple[int, int, int]:
    """Play one encounter from stream state ``s``; returns (winner, rounds, trace rows).

    The gates use the limits of :func:`load_limits`. ``winner`` is 0 (PCs), 1 (NPCs) or
    :data:`DRAW`. The scratch arrays ``health``, ``load``,
    ``down`` are overwritten; ``dealt`` (Health removed by each creature's attacks),
    ``hinders`` (team actions taken) and ``spent`` (Load added by its actions) are per creature.
    The first ``trace.shape[0]`` attack rolls are written to ``trace`` (pass an empty array for
    none).
    """
    n_cre = cre.shape[0]
    standing0 = 0
    standing1 = 0
    for c in range(n_cre):
        health[c] = cre[c, C_HEALTH]
        load[c] = cre[c, C_RESET]
        down[c] = health[c] <= 0
        dealt[c] = 0
        hinders[c] = 0
        spent[c] = 0
        if not down[c]:
            if cre[c, C_SIDE] == 0:
                standing0 += 1
            else:
                standing1 += 1
    if standing0 == 0 or standing1 == 0:
        if standing0 > 0:
            return 0, 0, 0
        if standing1 > 0:
            return 1, 0, 0
        return DRAW, 0, 0
    rows = 0
    cap = trace.shape[0]
    rnd = 0
    while True:
        rnd += 1
        if rnd > max_rounds:
            return DRAW, max_rounds, rows
        if round_reset != 0:
            for c in range(n_cre):
                load[c] = cre[c, C_RESET]
        for c in range(n_cre):
            if down[c]:
                continue
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
                        5 * _pool(att[a, A_ASPECT], my_load, 0, att[a, A_FIXED], legacy)
                        + att[a, A_BMEAN2]
                    )
                    if best < 0 or value > best_value:
                        best = a
                        best_value = value
                if best < 0:
                    break  # end of turn
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
                    if cre[target, C_SIDE] == 0:
                        standing0 -= 1
                        if standing0 == 0:
                            return 1, rnd, rows
                    else:
                        standing1 -= 1
                        if standing1 == 0:
                            return 0, rnd, rows


@njit(cache=True, parallel=True)
def play_many(
    key0: np.uint64,
    key1: np.uint64,
    first: int,
    chunk: int,
    cre: np.ndarray,
    att: np.ndarray,
    term: np.ndarray,
    team: np.ndarray,
    legacy: int,
    round_reset: int,
    max_rounds: int,
    details: bool,
    winner: np.ndarray,
    rounds: np.ndarray,
    dealt_out: np.ndarray,
    hinders_out: np.ndarray,
    spent_out: np.ndarray,
    down_out: np.ndarray,
    health_out: np.ndarray,
) -> None:
    """Play encounters ``first .. first + len(winner) - 1`` in chunks of ``chunk``, in parallel.

    Encounter ``first + i`` writes ``winner[i]`` and ``rounds[i]`` and, with ``details``, row
    ``i`` of the per-creature outputs.
    """
    n = winner.shape[0]
    n_cre = cre.shape[0]
    n_chunks = (n + chunk - 1) // chunk
    att_limit, team_limit, hinder_limit = load_limits(cre, att, team, legacy)
    for ch in prange(n_chunks):
        health = np.empty(n_cre, np.int64)
        load = np.empty(n_cre, np.int64)
        down = np.empty(n_cre, np.bool_)
        dealt = np.empty(n_cre, np.int64)
        hinders = np.empty(n_cre, np.int64)
        spent = np.empty(n_cre, np.int64)
        trace = np.empty((0, R_COLUMNS), np.int64)
        stop = min(n, (ch + 1) * chunk)
        for i in range(ch * chunk, stop):
            s = stream_start(key0, key1, np.uint64(first + i))
            w, r, _ = play_one(
                s,
                cre,
                att,
                term,
                team,
                att_limit,
                team_limit,
                hinder_limit,
                legacy,
                round_reset,
                max_rounds,
                health,
                load,
                down,
                dealt,
                hinders,
                spent,
                trace,
            )
            winner[i] = w
            rounds[i] = r
            if details:
                for c in range(n_cre):
                    dealt_out[i, c] = dealt[c]
                    hinders_out[i, c] = hinders[c]
                    spent_out[i, c] = spent[c]
                    down_out[i, c] = down[c]
                    health_out[i, c] = health[c]


@njit(cache=True)
def play_traced(
    key0: np.uint64,
    key1: np.uint64,
    index: int,
    cre: np.ndarray,
    att: np.ndarray,
    term: np.ndarray,
    team: np.ndarray,
    legacy: int,
    round_reset: int,
    max_rounds: int,
    trace: np.ndarray,
) -> tuple[int, int, int]:
    """Play encounter ``index`` alone, writing its attack rolls to ``trace``; returns
    (winner, rounds, rows written)."""
    n_cre = cre.shape[0]
    s = stream_start(key0, key1, np.uint64(index))
    att_limit, team_limit, hinder_limit = load_limits(cre, att, team, legacy)
    return play_one(
        s,
        cre,
        att,
        term,
        team,
        att_limit,
        team_limit,
        hinder_limit,
        legacy,
        round_reset,
        max_rounds,
        np.empty(n_cre, np.int64),
        np.empty(n_cre, np.int64),
        np.empty(n_cre, np.bool_),
        np.empty(n_cre, np.int64),
        np.empty(n_cre, np.int64),
        np.empty(n_cre, np.int64),
        trace,
    )
