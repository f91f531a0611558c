"""The numba kernel of the compiled tactical policy: Action Load encounters played to the end
with :class:`~caltrop.sim.tactics.TacticalPolicy`'s choices on both sides.

Nothing here is public (:mod:`caltrop.sim.fast.tactical.simulate` is the typed entry point).
The rules are the engine's, in the engine's order (the same as the fast tactic's kernel,
:mod:`caltrop.sim.fast.kernel`): round start (R19), turn start (R10), the gate (R11, R20), the
pool (R12), the reaction window in turn order after the roller, each creature asked until it
passes (R15), source keys counted once per roll (R14) and once per creature (R47), boons
consumed by the next roll, damage (R16), Load += Cost after resolving. The choices are
:class:`~caltrop.sim.tactics.TacticalPolicy`'s for the Action Load economy, step by step in
the order its code takes them (each function below names the method it mirrors), on the harm
numbers :mod:`.compile` worked out with the policy's own functions; its memos only remember
answers, so the kernel works each one out anew. ``tests/sim/test_fast_tactical.py`` replays
kernel encounters in the engine with the Python policy, command by command and die by die.

Every decision and roll can be written to a trace (one row each: kind, actor, action, target,
weapon, d4 pool, total, round), which is how the tests compare. The play loop is
:mod:`caltrop.sim.fast.loop`'s, compiled into this module; ``tab`` is ``(creatures, threat,
turn options, weapon rolls, rolls, terms, profile rolls, team, harm, legacy, round_reset,
min_gain, discount, reserve, scored capacity)`` and ``work`` the scratch arrays of
:func:`new_work`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from caltrop.sim.fast.loop import GOING, define_loop
from caltrop.sim.fast.rng import _d4s, _die

# creature columns (as .compile)
C_SIDE, C_HEALTH, C_EVASION, C_RESET, C_TURN0, C_TURN1, C_TEAM0, C_TEAM1 = range(8)
C_PROF0, C_PROF1, C_REACTION, C_HINDERS, C_HELPS = range(8, 13)
O_KIND, O_ACTION, O_CEILING, O_COST, O_ASPECT, O_FIXED, O_W0, O_W1, O_SOURCE = range(9)
TURN_ATTACK = 0
R_CREATURE, R_ACTION, R_WEAPON, R_CEILING, R_COST, R_ASPECT, R_FIXED, R_T0, R_T1 = range(9)
M_ACTION, M_CEILING, M_COST, M_GRANTS, M_SIGN, M_ALLY, M_SOURCE, M_SELF = range(8)
T_COUNT, T_SIDES, T_SIGN = range(3)

# trace: one row per decision or roll
K_ACT, K_PASS, K_END, K_ROLL = range(4)
X_KIND, X_ACTOR, X_ACTION, X_TARGET, X_WEAPON, X_D4, X_TOTAL, X_ROUND = range(8)
X_COLUMNS = 8

#: no side won: the round limit was reached
DRAW = -1
#: Attacks a creature is assumed to make per turn at most (tactics._MAX_ATTACKS)
MAX_ATTACKS = 4
#: Reactions counted at most (TacticalPolicy._reaction_count)
MAX_REACTIONS = 12
U0 = np.uint64(0)
U1 = np.uint64(1)

# per-encounter state, one int64 array: columns of the ``state`` table
S_HEALTH, S_LOAD, S_DOWN, S_COST, S_DEALT, S_REACTIONS, S_HELPS, S_HINDERS = range(8)
S_COLUMNS = 8


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
def _popcount(x: np.uint64) -> int:
    n = 0
    while x != U0:
        x &= x - U1
        n += 1
    return n


@njit(cache=True)
def _focus(side: int, cre: np.ndarray, threat: np.ndarray, state: np.ndarray) -> int:
    """_Decision.focus: the standing foe of ``side`` with the least Health per threat (the
    first such in turn order), −1 if none stands."""
    found = -1
    least = 0.0
    for j in range(cre.shape[0]):
        if cre[j, C_SIDE] == side or state[j, S_DOWN] != 0:
            continue
        key = state[j, S_HEALTH] / threat[j]
        if found < 0 or key < least:
            found = j
            least = key
    return found


@njit(cache=True)
def _swing(
    j: int,
    load: int,
    delta: int,
    cre: np.ndarray,
    threat: np.ndarray,
    rolls: np.ndarray,
    prof: np.ndarray,
    harm: np.ndarray,
    legacy: int,
    state: np.ndarray,
) -> float:
    """TacticalPolicy._swing: harm changed when ``j``'s best attack at ``load`` on the foe it
    likely picks gets ``delta`` more Net Advantage."""
    t = _focus(cre[j, C_SIDE], cre, threat, state)
    if t < 0:
        return 0.0
    health = state[t, S_HEALTH]
    best_full = 0.0
    swing = 0.0
    for p in range(cre[j, C_PROF0], cre[j, C_PROF1]):
        r = prof[p]
        if load > rolls[r, R_CEILING]:
            continue
        aspect, fixed = rolls[r, R_ASPECT], rolls[r, R_FIXED]
        full = harm[r, _pool(aspect, load, 0, fixed, legacy), t, health]
        if full > best_full:
            changed = harm[r, _pool(aspect, load, delta, fixed, legacy), t, health]
            best_full = full
            swing = changed - full
    return swing


@njit(cache=True)
def _attack_count(o: int, load: int, cre: np.ndarray, rolls: np.ndarray, prof: np.ndarray) -> int:
    """TacticalPolicy._attack_count: attacks ``o`` can make in a row from ``load`` (at most 4)."""
    count = 0
    for p in range(cre[o, C_PROF0], cre[o, C_PROF1]):
        r = prof[p]
        probe = load
        n = 0
        while n < MAX_ATTACKS and probe <= rolls[r, R_CEILING]:
            probe += rolls[r, R_COST]
            n += 1
        count = max(count, n)
    return count


@njit(cache=True)
def _plan(
    i: int,
    owner: int,
    round_reset: int,
    discount: float,
    cre: np.ndarray,
    threat: np.ndarray,
    rolls: np.ndarray,
    prof: np.ndarray,
    harm: np.ndarray,
    legacy: int,
    state: np.ndarray,
    segment: np.ndarray,
    before: np.ndarray,
    after: np.ndarray,
) -> tuple[int, int, int]:
    """TacticalPolicy._make_plan with ActionLoadAdvisor.segment: the reactions ``i`` expects
    to want before its next reset, into ``before`` and ``after`` (sorted, largest first);
    returns (len(before), len(after), own_later)."""
    n_cre = cre.shape[0]
    # the segment: the turns before i's Load next resets, from the turn now
    k = 0
    if round_reset != 0:
        for o in range(owner, n_cre):
            if state[o, S_DOWN] == 0:
                segment[k] = o
                k += 1
    else:
        segment[0] = owner
        k = 1
        if owner == i:
            for step in range(1, n_cre):
                o = (owner + step) % n_cre
                if state[o, S_DOWN] == 0:
                    segment[k] = o
                    k += 1
        else:
            o = owner
            while True:
                o = (o + 1) % n_cre
                if state[o, S_DOWN] != 0:
                    continue
                if o == i:
                    break
                segment[k] = o
                k += 1
    own_later = 0
    for q in range(1, k):
        if segment[q] == i:
            own_later = 1
    hinders = cre[i, C_HINDERS] != 0
    helps = cre[i, C_HELPS] != 0
    if not (hinders or helps):
        return 0, 0, own_later
    nb = 0
    na = 0
    seen_own = False
    my_side = cre[i, C_SIDE]
    for q in range(k):
        o = segment[q]
        if o == i:
            seen_own = True
            continue
        foe = cre[o, C_SIDE] != my_side
        if not (hinders if foe else helps):
            continue
        # ActionLoadAdvisor.start_of_turn
        start = state[o, S_LOAD] if o == owner or round_reset != 0 else cre[o, C_RESET]
        count = _attack_count(o, start, cre, rolls, prof)
        gain = 0.0
        if count > 0:
            gain = abs(
                _swing(o, start, -1 if foe else 1, cre, threat, rolls, prof, harm, legacy, state)
            )
        if count == 0 or gain <= 0:
            continue
        value = discount * gain
        if own_later != 0 and not seen_own:
            for _ in range(count):
                before[nb] = value
                nb += 1
        else:
            for _ in range(count):
                after[na] = value
                na += 1
    _sort_down(before, nb)
    _sort_down(after, na)
    return nb, na, own_later


@njit(cache=True)
def _sort_down(values: np.ndarray, n: int) -> None:
    """Sort ``values[:n]`` largest first (insertion: a few dozen at most)."""
    for a in range(1, n):
        v = values[a]
        b = a - 1
        while b >= 0 and values[b] < v:
            values[b + 1] = values[b]
            b -= 1
        values[b + 1] = v


@njit(cache=True)
def _best_attack_now(
    i: int,
    load: int,
    net: int,
    cre: np.ndarray,
    threat: np.ndarray,
    rolls: np.ndarray,
    prof: np.ndarray,
    harm: np.ndarray,
    legacy: int,
    state: np.ndarray,
) -> tuple[int, float]:
    """TacticalPolicy._best_attack_now: the best single attack of ``i`` on its focus target at
    ``load``: (its roll, or −1 for none, and its harm)."""
    t = _focus(cre[i, C_SIDE], cre, threat, state)
    if t < 0:
        return -1, 0.0
    health = state[t, S_HEALTH]
    best = -1
    best_value = 0.0
    for p in range(cre[i, C_PROF0], cre[i, C_PROF1]):
        r = prof[p]
        if load > rolls[r, R_CEILING]:
            continue
        value = harm[r, _pool(rolls[r, R_ASPECT], load, net, rolls[r, R_FIXED], legacy), t, health]
        if best < 0 or value > best_value:
            best = r
            best_value = value
    return best, best_value


@njit(cache=True)
def _budget(
    i: int,
    load: int,
    net: int,
    attacking: bool,
    before: np.ndarray,
    nb: int,
    after: np.ndarray,
    na: int,
    cre: np.ndarray,
    threat: np.ndarray,
    rolls: np.ndarray,
    prof: np.ndarray,
    team: np.ndarray,
    harm: np.ndarray,
    legacy: int,
    state: np.ndarray,
) -> float:
    """TacticalPolicy._budget: what ``load`` will still buy ``i`` before its reset, in harm."""
    m = cre[i, C_REACTION]
    best = 0.0
    res = load
    taken = 0.0
    for rb in range(nb + 1):
        if rb > 0:
            if m < 0 or res > team[m, M_CEILING]:
                break
            res += team[m, M_COST]
            taken += before[rb - 1]
        probe = res
        attacks = 0.0
        for k in range(MAX_ATTACKS + 1 if attacking else 1):
            if k > 0:
                r, value = _best_attack_now(
                    i, probe, net, cre, threat, rolls, prof, harm, legacy, state
                )
                if r < 0:
                    break
                attacks += value
                probe += rolls[r, R_COST]
            # TacticalPolicy._reactions_value
            reactions = 0.0
            if m >= 0 and na > 0:
                count = 0
                left = probe
                while count < MAX_REACTIONS and left <= team[m, M_CEILING]:
                    left += team[m, M_COST]
                    count += 1
                for q in range(min(count, na)):
                    reactions += after[q]
            total = taken + attacks + reactions
            if total > best:
                best = total
        # (max(best, total) in Python: the same value)
    return best


@njit(cache=True)
def _net(adv: np.uint64, dis: np.uint64) -> int:
    """R14: distinct advantage sources minus distinct disadvantage sources."""
    return _popcount(adv) - _popcount(dis)


@njit(cache=True)
def _choose_turn(
    i: int,
    round_reset: int,
    min_gain: float,
    discount: float,
    reserve: bool,
    cre: np.ndarray,
    threat: np.ndarray,
    turn: np.ndarray,
    wrolls: np.ndarray,
    rolls: np.ndarray,
    prof: np.ndarray,
    team: np.ndarray,
    harm: np.ndarray,
    legacy: int,
    state: np.ndarray,
    boon_adv: np.ndarray,
    boon_dis: np.ndarray,
    scratch: np.ndarray,
    scored_value: np.ndarray,
    scored_int: np.ndarray,
    segment: np.ndarray,
    before: np.ndarray,
    after: np.ndarray,
) -> tuple[int, int, int]:
    """TacticalPolicy._act: (option, target, roll) of ``i``'s command on its turn; option −1
    ends the turn (roll −1 for an effect)."""
    n_cre = cre.shape[0]
    my_side = cre[i, C_SIDE]
    load = state[i, S_LOAD]
    net = _net(boon_adv[i], boon_dis[i])
    count = 0
    for o in range(cre[i, C_TURN0], cre[i, C_TURN1]):
        if load > turn[o, O_CEILING]:
            continue
        if turn[o, O_KIND] == TURN_ATTACK:  # score_attack
            d4 = _pool(turn[o, O_ASPECT], load, net, turn[o, O_FIXED], legacy)
            for j in range(n_cre):
                if j == i or cre[j, C_SIDE] == my_side or state[j, S_DOWN] != 0:
                    continue
                health = state[j, S_HEALTH]
                for w in range(turn[o, O_W0], turn[o, O_W1]):
                    r = wrolls[w]
                    value = harm[r, d4, j, health]
                    if value > 0:
                        scored_value[count] = value
                        scored_int[count, 0] = o
                        scored_int[count, 1] = j
                        scored_int[count, 2] = r
                        count += 1
        else:  # score_boon: advantage on an ally's next roll
            bit = U1 << np.uint64(turn[o, O_SOURCE])
            for j in range(n_cre):
                if j == i or cre[j, C_SIDE] != my_side or state[j, S_DOWN] != 0:
                    continue
                if (boon_adv[j] & bit) != U0:
                    continue  # R14: the source is already on the ally's next roll (0.0)
                value = discount * _swing(
                    j, state[j, S_LOAD], 1, cre, threat, rolls, prof, harm, legacy, state
                )
                if value > 0:
                    scored_value[count] = value
                    scored_int[count, 0] = o
                    scored_int[count, 1] = j
                    scored_int[count, 2] = -1
                    count += 1
    if count == 0:
        return -1, -1, -1
    if not reserve:
        pick = 0
        for q in range(1, count):
            if scored_value[q] > scored_value[pick]:
                pick = q
        return scored_int[pick, 0], scored_int[pick, 1], scored_int[pick, 2]
    nb, na, own_later = _plan(
        i, i, round_reset, discount, cre, threat, rolls, prof, harm, legacy, state,
        segment, before, after,
    )  # fmt: skip
    best = _budget(
        i, load, net, own_later != 0, before, nb, after, na,
        cre, threat, rolls, prof, team, harm, legacy, state,
    )  # fmt: skip
    pick = -1
    # the budget after paying depends only on the action: worked out once per option
    for o in range(cre[i, C_TURN0], cre[i, C_TURN1]):
        scratch[o - cre[i, C_TURN0]] = np.nan
    for q in range(count):
        o = scored_int[q, 0]
        slot = o - cre[i, C_TURN0]
        left = scratch[slot]
        if np.isnan(left):
            left = _budget(
                i, load + turn[o, O_COST], net, True, before, nb, after, na,
                cre, threat, rolls, prof, team, harm, legacy, state,
            )  # fmt: skip
            scratch[slot] = left
        total = scored_value[q] + left
        if total > best + 1e-12:
            best = total
            pick = q
    if pick < 0:
        return -1, -1, -1
    return scored_int[pick, 0], scored_int[pick, 1], scored_int[pick, 2]


@njit(cache=True, inline="always")
def _fits(m: int, i: int, roller: int, cre: np.ndarray, team: np.ndarray) -> bool:
    """grant_fits: a team action with a grant, to an ally's roll (another creature of the same
    side) or to an enemy's."""
    if team[m, M_GRANTS] == 0:
        return False
    if team[m, M_ALLY] != 0:
        return bool(cre[i, C_SIDE] == cre[roller, C_SIDE] and i != roller)
    return bool(cre[i, C_SIDE] != cre[roller, C_SIDE])


@njit(cache=True)
def _has_reaction(
    i: int, roller: int, cre: np.ndarray, team: np.ndarray, state: np.ndarray, applied: np.ndarray
) -> bool:
    """LoadActions._has_reaction: whether ``i`` may take any team action on the roll."""
    for m in range(cre[i, C_TEAM0], cre[i, C_TEAM1]):
        if not _fits(m, i, roller, cre, team):
            continue
        if state[i, S_LOAD] > team[m, M_CEILING]:
            continue
        if (applied[i] & (U1 << np.uint64(team[m, M_SOURCE]))) != U0:
            continue
        return True
    return False


@njit(cache=True)
def _choose_reaction(
    i: int,
    roller: int,
    roll: int,
    target: int,
    roll_adv: np.uint64,
    roll_dis: np.uint64,
    round_reset: int,
    min_gain: float,
    discount: float,
    reserve: bool,
    cre: np.ndarray,
    threat: np.ndarray,
    rolls: np.ndarray,
    prof: np.ndarray,
    team: np.ndarray,
    harm: np.ndarray,
    legacy: int,
    state: np.ndarray,
    boon_adv: np.ndarray,
    boon_dis: np.ndarray,
    applied: np.ndarray,
    segment: np.ndarray,
    before: np.ndarray,
    after: np.ndarray,
) -> int:
    """TacticalPolicy._react with score_team: the team action ``i`` takes on the pending
    attack of ``roller`` (roll id ``roll``) on ``target``, or −1 to pass."""
    load = state[i, S_LOAD]
    net = _net(roll_adv, roll_dis)
    roller_load = state[roller, S_LOAD]
    aspect, fixed = rolls[roll, R_ASPECT], rolls[roll, R_FIXED]
    health = state[target, S_HEALTH]
    best = -1
    best_value = 0.0
    for m in range(cre[i, C_TEAM0], cre[i, C_TEAM1]):
        if not _fits(m, i, roller, cre, team) or load > team[m, M_CEILING]:
            continue
        bit = U1 << np.uint64(team[m, M_SOURCE])
        if (applied[i] & bit) != U0:
            continue  # R47: not offered again
        value = 0.0
        if team[m, M_SELF] != 0 and target != i:
            value = 0.0
        else:
            present = (roll_adv & bit) if team[m, M_SIGN] > 0 else (roll_dis & bit)
            if present == U0:  # R14: a source already on the roll changes nothing (0.0)
                old = harm[roll, _pool(aspect, roller_load, net, fixed, legacy), target, health]
                new = harm[
                    roll,
                    _pool(aspect, roller_load, net + team[m, M_SIGN], fixed, legacy),
                    target,
                    health,
                ]
                value = old - new if cre[target, C_SIDE] == cre[i, C_SIDE] else new - old
        if value >= min_gain and (best < 0 or value > best_value):
            best = m
            best_value = value
    if best < 0:
        return -1
    if reserve:
        owner = roller  # the roller's turn: only attacks are weighed, and only on its turn
        nb, na, own_later = _plan(
            i, owner, round_reset, discount, cre, threat, rolls, prof, harm, legacy, state,
            segment, before, after,
        )  # fmt: skip
        mine = _net(boon_adv[i], boon_dis[i])
        attacking = own_later != 0  # never its own turn: it is not the roller
        keep = _budget(
            i, load, mine, attacking, before, nb, after, na,
            cre, threat, rolls, prof, team, harm, legacy, state,
        )  # fmt: skip
        spend = best_value + _budget(
            i, load + team[best, M_COST], mine, attacking, before, nb, after, na,
            cre, threat, rolls, prof, team, harm, legacy, state,
        )  # fmt: skip
        if spend < keep + min_gain:
            return -1
    return best


@njit(cache=True, inline="always")
def _trace(
    trace: np.ndarray,
    rows: int,
    kind: int,
    actor: int,
    action: int,
    target: int,
    weapon: int,
    d4: int,
    total: int,
    rnd: int,
) -> int:
    if rows < trace.shape[0]:
        trace[rows, X_KIND] = kind
        trace[rows, X_ACTOR] = actor
        trace[rows, X_ACTION] = action
        trace[rows, X_TARGET] = target
        trace[rows, X_WEAPON] = weapon
        trace[rows, X_D4] = d4
        trace[rows, X_TOTAL] = total
        trace[rows, X_ROUND] = rnd
    return rows + 1


TRACE_COLUMNS = X_COLUMNS


@njit(cache=True, inline="always")
def begin(tab, work, standing):  # type: ignore[no-untyped-def]
    """Every creature at its Health and reset Load (R10), no boons; count who stands."""
    cre = tab[0]
    state, boon_adv, boon_dis = work[0], work[1], work[2]
    for c in range(cre.shape[0]):
        for col in range(S_COLUMNS):
            state[c, col] = 0
        state[c, S_HEALTH] = cre[c, C_HEALTH]
        state[c, S_LOAD] = cre[c, C_RESET]
        boon_adv[c] = U0
        boon_dis[c] = U0
        if cre[c, C_HEALTH] <= 0:
            state[c, S_DOWN] = 1
        else:
            standing[cre[c, C_SIDE]] += 1
    return cre.shape[0]


@njit(cache=True, inline="always")
def opening(tab, work, s, trace):  # type: ignore[no-untyped-def]
    """Nothing before round 1: the GM's turn order (R21)."""
    return s, 0


@njit(cache=True, inline="always")
def round_start(tab, work):  # type: ignore[no-untyped-def]
    """R19 ``round``: everyone's Load resets at the start of each round."""
    if tab[10] != 0:
        cre, state = tab[0], work[0]
        for c in range(cre.shape[0]):
            state[c, S_LOAD] = cre[c, C_RESET]


@njit(cache=True, inline="always")
def turn_order(tab, work, pos):  # type: ignore[no-untyped-def]
    """The GM's order: the participant list (R21)."""
    return pos


@njit(cache=True, inline="always")
def is_down(tab, work, c):  # type: ignore[no-untyped-def]
    return work[0][c, S_DOWN] != 0


@njit(cache=True, inline="always")
def _land(
    cre: np.ndarray,
    state: np.ndarray,
    standing: np.ndarray,
    c: int,
    target: int,
    cost: int,
    total: int,
) -> int:
    """``c``'s attack on ``target`` rolled ``total``: damage over Evasion (R16), then Load +=
    Cost (seed 000 step 6); GOING, or the side that won when the target's side has nobody
    standing."""
    damage = max(0, total - cre[target, C_EVASION])
    state[target, S_HEALTH] = max(0, state[target, S_HEALTH] - damage)
    state[c, S_DEALT] += damage
    state[c, S_LOAD] += cost
    state[c, S_COST] += cost
    if state[target, S_HEALTH] == 0 and state[target, S_DOWN] == 0:
        state[target, S_DOWN] = 1
        side = cre[target, C_SIDE]
        standing[side] -= 1
        if standing[side] == 0:
            return 1 - int(side)
    return GOING


@njit(cache=True, inline="always")
def turn(tab, work, standing, c, s, rnd, trace, steps):  # type: ignore[no-untyped-def]
    """Creature ``c``'s turn: the R10 reset, then :func:`turn_on`."""
    if tab[10] == 0:
        work[0][c, S_LOAD] = tab[0][c, C_RESET]
    return turn_on(tab, work, standing, c, s, rnd, trace, steps)


@njit(cache=True, inline="always")
def turn_on(tab, work, standing, c, s, rnd, trace, steps):  # type: ignore[no-untyped-def]
    """The rest of creature ``c``'s turn: TacticalPolicy's commands until it ends the turn,
    each reaction window asked in turn order; returns (stream, steps, GOING or the winner)."""
    (
        cre, threat, options, wrolls, rolls, terms, prof, team, harm, legacy, round_reset,
        min_gain, discount, reserve, _,
    ) = tab  # fmt: skip
    (
        state, boon_adv, boon_dis, applied, scratch, scored_value, scored_int, segment,
        before, after,
    ) = work  # fmt: skip
    n_cre = cre.shape[0]
    while True:
        o, target, roll = _choose_turn(
            c, round_reset, min_gain, discount, reserve, cre, threat, options, wrolls,
            rolls, prof, team, harm, legacy, state, boon_adv, boon_dis, scratch,
            scored_value, scored_int, segment, before, after,
        )  # fmt: skip
        if o < 0:
            steps = _trace(trace, steps, K_END, c, -1, -1, -1, 0, 0, rnd)
            return s, steps, GOING
        cost = options[o, O_COST]
        if options[o, O_KIND] != TURN_ATTACK:  # an effect: the boon, paid at once
            steps = _trace(trace, steps, K_ACT, c, options[o, O_ACTION], target, -1, 0, 0, rnd)
            boon_adv[target] |= U1 << np.uint64(options[o, O_SOURCE])
            state[c, S_LOAD] += cost
            state[c, S_COST] += cost
            continue
        steps = _trace(
            trace, steps, K_ACT, c, rolls[roll, R_ACTION], target, rolls[roll, R_WEAPON],
            0, 0, rnd,
        )  # fmt: skip
        # declared: the attacker's boons go onto the roll (and are used up)
        roll_adv = boon_adv[c]
        roll_dis = boon_dis[c]
        boon_adv[c] = U0
        boon_dis[c] = U0
        for j in range(n_cre):
            applied[j] = U0
        # the reaction window, in turn order after the roller (R15)
        for k in range(1, n_cre):
            j = c + k
            if j >= n_cre:
                j -= n_cre
            if state[j, S_DOWN] != 0:
                continue
            while _has_reaction(j, c, cre, team, state, applied):
                m = _choose_reaction(
                    j, c, roll, target, roll_adv, roll_dis, round_reset, min_gain,
                    discount, reserve, cre, threat, rolls, prof, team, harm, legacy,
                    state, boon_adv, boon_dis, applied, segment, before, after,
                )  # fmt: skip
                if m < 0:
                    steps = _trace(trace, steps, K_PASS, j, -1, -1, -1, 0, 0, rnd)
                    break
                steps = _trace(trace, steps, K_ACT, j, team[m, M_ACTION], -1, -1, 0, 0, rnd)
                bit = U1 << np.uint64(team[m, M_SOURCE])
                if team[m, M_SIGN] > 0:
                    roll_adv |= bit
                    state[j, S_HELPS] += 1
                else:
                    roll_dis |= bit
                    state[j, S_HINDERS] += 1
                applied[j] |= bit
                state[j, S_LOAD] += team[m, M_COST]
                state[j, S_COST] += team[m, M_COST]
                state[j, S_REACTIONS] += 1
        # the roll: the d4 pool, then the weapon's and the action's extra dice
        d4 = _pool(
            rolls[roll, R_ASPECT],
            state[c, S_LOAD],
            _net(roll_adv, roll_dis),
            rolls[roll, R_FIXED],
            legacy,
        )
        total, s = _d4s(d4, s)
        for t in range(rolls[roll, R_T0], rolls[roll, R_T1]):
            count = terms[t, T_COUNT]
            sides = terms[t, T_SIDES]
            sign = terms[t, T_SIGN]
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
        steps = _trace(trace, steps, K_ROLL, c, -1, target, -1, d4, total, rnd)
        winner = _land(cre, state, standing, c, target, cost, total)
        if winner != GOING:
            return s, steps, winner


# a snapshot's pending attack (``snap[3]``): who rolls what at whom, when
P_ROLLER, P_ROLL, P_TARGET, P_ROUND, P_POS = range(5)
P_COLUMNS = 5


@njit(cache=True, inline="always")
def restore(tab, work, snap, standing):  # type: ignore[no-untyped-def]
    """Set ``work`` to the fight ``snap`` = (``state`` table, boons with advantage and with
    disadvantage per creature, the pending attack) stopped at, its counters at 0; count who
    stands. Returns (creatures, the roller, the round, the roller's turn position)."""
    cre = tab[0]
    state, boon_adv, boon_dis = work[0], work[1], work[2]
    snap_state, snap_adv, snap_dis, pend = snap
    standing[0] = 0
    standing[1] = 0
    for c in range(cre.shape[0]):
        for col in range(S_COLUMNS):
            state[c, col] = 0
        state[c, S_HEALTH] = snap_state[c, S_HEALTH]
        state[c, S_LOAD] = snap_state[c, S_LOAD]
        state[c, S_DOWN] = snap_state[c, S_DOWN]
        boon_adv[c] = snap_adv[c]
        boon_dis[c] = snap_dis[c]
        if state[c, S_DOWN] == 0:
            standing[cre[c, C_SIDE]] += 1
    return cre.shape[0], pend[P_ROLLER], pend[P_ROUND], pend[P_POS]


@njit(cache=True, inline="always")
def land(tab, work, standing, snap, total):  # type: ignore[no-untyped-def]
    """The snapshot's pending attack rolled ``total`` (:func:`_land`)."""
    pend = snap[3]
    c = pend[P_ROLLER]
    return _land(tab[0], work[0], standing, c, pend[P_TARGET], tab[4][pend[P_ROLL], R_COST], total)


@njit(cache=True, inline="always")
def new_work(tab):  # type: ignore[no-untyped-def]
    n_cre = tab[0].shape[0]
    scored_capacity = tab[14]
    return (
        np.empty((n_cre, S_COLUMNS), np.int64),
        np.empty(n_cre, np.uint64),
        np.empty(n_cre, np.uint64),
        np.empty(n_cre, np.uint64),
        np.empty(max(1, tab[2].shape[0]), np.float64),
        np.empty(scored_capacity, np.float64),
        np.empty((scored_capacity, 3), np.int64),
        np.empty(n_cre + 1, np.int64),
        np.empty(MAX_ATTACKS * n_cre + 1, np.float64),
        np.empty(MAX_ATTACKS * n_cre + 1, np.float64),
    )


@njit(cache=True, inline="always")
def record(tab, work, i, steps, out):  # type: ignore[no-untyped-def]
    """Encounter ``i``'s steps and its final ``state`` table (creature by column) into ``out``."""
    state = work[0]
    steps_out, state_out = out
    steps_out[i] = steps
    for c in range(tab[0].shape[0]):
        for col in range(S_COLUMNS):
            state_out[i, col, c] = state[c, col]


# play_one, play_many, play_traced and play_from: the shared loop with the parts above
play_one: Any
play_many: Any
play_traced: Any
play_from: Any
define_loop(globals())
