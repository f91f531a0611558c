"""The numba kernel of the compiled tactical policy for Action Point encounters (seed 004).

Nothing here is public (:mod:`.simulate` is the typed entry point). The rules are the
engine's (:mod:`caltrop.economy.points.actions`), in the engine's order, for the actions the
tactical policy takes there: initiative (R30), AP and RP at each turn's start and floating RP
lost (R31, R33), moves (R34 spacing, R35 cost), equip (R44), aim (R39, lost by any other
action, a reaction too), Hold Action (R33), melee attacks (R38) and shots (R39) as staged
rolls (hit → damage → defence, R45), the defence window — the defender first, then the others
in turn order after it, each asked until it passes — with Take Cover, Block, Dodge and Defense
Assist (R40), cover ending when positions change (R40). The choices are
:mod:`caltrop.sim.points_tactics`' step by step in the order its code takes them (each function
below names the one it mirrors), on the policy's own numbers looked up by key in the
:class:`~caltrop.sim.fast.points_tactical.compile.Numbers` table; a key not there is recorded
(the encounter is then played again once it is filled). Positions use CPython's float
arithmetic (:mod:`caltrop.sim.fast.points.geometry`). ``tests/sim/test_fast_points_tactical.py``
replays kernel encounters in the engine with the Python policy, command by command and die by
die.

``tab`` is ``(creatures, places, weapons, options, option_span, option_mean, terms,
check_initiative, spacing, keys, values, bits, safety, shooter_turns, sidesteps, knobs,
anytime)`` and
``work`` the scratch arrays of :func:`new_work`.

A process compiles :func:`play_listed` before :func:`play_resumed`
(:func:`caltrop.sim.fast.points_tactical.simulate.playouts_first`): numba types a call with
constant arguments against the overloads its callee already has, so the other order gives the
playouts the resume path's general callees, 7× slower, and numba's cache keeps them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit, prange

from caltrop.core.commands import COORDINATE_LIMIT
from caltrop.sim.fast.loop import GOING, define_loop
from caltrop.sim.fast.points.geometry import _mul, hypot
from caltrop.sim.fast.points.initiative import sort_by_initiative
from caltrop.sim.fast.points_tactical.compile import (
    C_AP,
    C_BLOCK,
    C_DEX,
    C_DODGE,
    C_EQUIPPED,
    C_HEALTH,
    C_INIT_D4,
    C_INIT_SCORE,
    C_RESIST,
    C_RP,
    C_SHOOTER,
    C_SIDE,
    C_W0,
    C_W1,
    F_SPEED,
    F_X,
    F_Y,
    K_AGAINST,
    K_HIT,
    K_LOSSES,
    K_SAVING,
    K_SERIES,
    O_AP,
    O_CONST,
    O_RANGED,
    O_T0,
    O_T1,
    O_WEAPON,
    P_ONE,
    P_ZERO,
    T_COUNT,
    T_SIDES,
    T_SIGN,
    W_AP,
    W_BIT,
    W_CLOSE,
    W_FAR,
    W_KIND,
)
from caltrop.sim.fast.points_tactical.table import GOLD
from caltrop.sim.fast.rng import _d4s, _die, stream_start

#: R34: "Adjacent" means within 1.5 m; a melee fighter stops 1 m from its target.
ADJ = 1.5
STOP = 1.0
MAX_AIMS = 3
MAX_SHOOTER_STEPS = 4
#: no side won: the round limit was reached
DRAW = -1
#: keys a run may record as missing before it stops (it is played again once they are known)
MISS_CAP = 512
#: spots whose threat a decision remembers
SPOTS = 96
#: a key the kernel cannot form (a pool or a count beyond the keys' fields)
UNSUPPORTED = -2

# per-creature state
S_HEALTH, S_DOWN, S_AP, S_RP, S_FLOAT, S_EQ, S_AIM, S_COVER = range(8)
S_COST, S_DEALT, S_REACT = range(8, 11)
S_COLUMNS = 11
# outputs per creature
OUT_COST, OUT_DEALT, OUT_REACT, OUT_DOWN, OUT_HEALTH = range(5)
OUT_COLUMNS = 5

# the trace: one row per decision or roll
K_ACT, K_PASS, K_END, K_ROLL = range(4)
V_EQUIP, V_MOVE, V_AIM, V_ATTACK, V_SHOOT, V_HOLD, V_BLOCK, V_DODGE, V_COVER, V_ASSIST = range(10)
R_INITIATIVE, R_HIT, R_DAMAGE, R_DEFENCE = range(4)
X_KIND, X_ACTOR, X_VERB, X_TARGET, X_ARG, X_KX, X_KY, X_D4, X_TOTAL, X_ROUND = range(10)
X_COLUMNS = 10
TRACE_COLUMNS = X_COLUMNS

# the decision buffer (``work[4]``)
D_VERB, D_TARGET, D_ARG, D_KX, D_KY = range(5)


# -- the policy's numbers ---------------------------------------------------------------------


@njit(cache=True, inline="always")
def _note(work, key):  # type: ignore[no-untyped-def]
    miss = work[5]
    k = miss[0]
    if k < MISS_CAP:
        miss[1 + k] = key
    miss[0] = k + 1


@njit(cache=True)
def _get(tab, work, key):  # type: ignore[no-untyped-def]
    """The slot of ``key`` in the table, or -1 (recorded as missing)."""
    keys, bits = tab[9], tab[11]
    mask = (1 << bits) - 1
    h = np.int64((np.uint64(key) * GOLD) >> np.uint64(64 - bits))
    while True:
        k = keys[h, 0]
        if k == key:
            return h
        if k == -1:
            _note(work, key)
            return -1
        h = (h + 1) & mask


@njit(cache=True, inline="always")
def _canonical(pool: int, dc: int) -> int:
    """The pool a hit code names: at least 1 (R3); a pool of ``dc`` d4s or more always reaches
    ``dc`` (hit_chance is exactly 1.0 there, checked for every DC the keys hold), so a larger
    pool — an Aim stack grown over a stand-off — is named by ``max(1, dc)``."""
    pool = max(1, pool)
    return max(1, dc) if pool >= dc else pool


@njit(cache=True, inline="always")
def _code(pool: int, dc: int) -> int:
    """A hit code (``compile.hit_code``)."""
    return 2 + _canonical(pool, dc) * 128 + dc


@njit(cache=True)
def _hit(tab, work, pool, dc):  # type: ignore[no-untyped-def]
    """hit_chance: ``pool`` d4s (at least 1) reach ``dc``."""
    pool = _canonical(pool, dc)
    if pool > 126 or dc > 127 or dc < 0:
        _note(work, UNSUPPORTED)
        return 0.0
    h = _get(tab, work, (K_HIT << 60) | (pool << 7) | dc)
    return tab[10][h, 1] if h >= 0 else 0.0


@njit(cache=True)
def _series(tab, work, o, p1, p2, n, target, defences, cover, kind=K_SERIES):  # type: ignore[no-untyped-def]
    """Planner.series at the target's Health: (harm, P(down)) of ``n`` attacks of option
    ``o``, the first landing with hit code ``p1``, the others ``p2`` (with ``kind``
    K_AGAINST: Planner.against's choice between it and Take Cover)."""
    health = work[0][target, S_HEALTH]
    if n > 15 or defences > 15 or p1 > 16383 or p2 > 16383:
        _note(work, UNSUPPORTED)
        return 0.0, 0.0
    key = (
        (kind << 60)
        | (target << 54)
        | (o << 45)
        | (p1 << 31)
        | (p2 << 17)
        | (n << 13)
        | (health << 5)
        | (defences << 1)
        | (1 if cover else 0)
    )
    h = _get(tab, work, key)
    if h < 0:
        return 0.0, 0.0
    return tab[10][h, 1], tab[10][h, 2]


@njit(cache=True)
def _against(tab, work, o, p1, p2, n, target, defences, in_cover):  # type: ignore[no-untyped-def]
    """Planner.against: already in cover every defence doubled; else, against a shot with 2
    defences or more, Take Cover and one defence fewer if that harms it less."""
    if in_cover:
        return _series(tab, work, o, p1, p2, n, target, defences, True)
    if defences >= 2 and tab[3][o, O_RANGED] != 0:
        # the better of the two for the defender, worked out with the numbers (K_AGAINST)
        return _series(tab, work, o, p1, p2, n, target, defences, False, K_AGAINST)
    return _series(tab, work, o, p1, p2, n, target, defences, False)


@njit(cache=True)
def _losses(tab, work, defender, incoming, health, cover, assists):  # type: ignore[no-untyped-def]
    """option_losses: the loss of no defence, Block and Dodge against a known damage."""
    if incoming > 255 or incoming < 0 or assists > 15:
        _note(work, UNSUPPORTED)
        return 0.0, 0.0, 0.0
    key = (
        (K_LOSSES << 60)
        | (defender << 54)
        | (incoming << 30)
        | (health << 5)
        | (assists << 1)
        | (1 if cover else 0)
    )
    h = _get(tab, work, key)
    if h < 0:
        return 0.0, 0.0, 0.0
    v = tab[10]
    return v[h, 1], v[h, 2], v[h, 3]


@njit(cache=True)
def _saving(tab, work, defender, o, p, health, cover):  # type: ignore[no-untyped-def]
    """_expected_saving: per future attack, the loss one defence saves and cover's extra."""
    key = (
        (K_SAVING << 60)
        | (defender << 54)
        | (o << 45)
        | (p << 31)
        | (health << 5)
        | (1 if cover else 0)
    )
    h = _get(tab, work, key)
    if h < 0:
        return 0.0, 0.0
    return tab[10][h, 1], tab[10][h, 2]


# -- geometry (the policy's, with CPython's float arithmetic) ---------------------------------


@njit(cache=True)
def _round_k(x: float) -> float:
    """``k`` with ``round(x, 2) == k / 100`` (CPython's correctly rounded ``round``)."""
    y = x * 100.0
    hi, lo = _mul(x, 100.0)
    err = (hi - y) + lo
    k = float(math.floor(y))
    frac = y - k
    if frac > 0.5 or (frac == 0.5 and (err > 0.0 or (err == 0.0 and k % 2.0 != 0.0))):
        k += 1.0
    return k


@njit(cache=True, inline="always")
def _move_cost(sx: float, sy: float, tx: float, ty: float, speed: float) -> int:
    """move_cost (R35)."""
    d = hypot(sx - tx, sy - ty)
    if d <= 0:
        return 0
    if speed <= 0:
        return 10**6
    return math.ceil(d / speed - 1e-9)


@njit(cache=True)
def _toward(sx, sy, gx, gy, travel):  # type: ignore[no-untyped-def]
    """_toward: (kx, ky) of the rounded spot ``travel`` m from start toward goal."""
    d = hypot(sx - gx, sy - gy)
    f = travel / d if d > 0 else 0.0
    return _round_k(sx + (gx - sx) * f), _round_k(sy + (gy - sy) * f)


@njit(cache=True)
def _approach(sx, sy, gx, gy, speed, ap, within, stop):  # type: ignore[no-untyped-def]
    """approach: (found, AP, x, y, kx, ky)."""
    d = hypot(sx - gx, sy - gy)
    if d <= within - 1e-6:
        return True, 0, sx, sy, 0.0, 0.0
    if speed <= 0:
        return False, 0, sx, sy, 0.0, 0.0
    for k in range(1, ap + 1):
        if d - k * speed > within - 0.02:
            continue
        for q in range(3):
            slack = 0.01 if q == 0 else (0.03 if q == 1 else 0.06)
            travel = min(d - stop, k * speed - slack)
            kx, ky = _toward(sx, sy, gx, gy, travel)
            tx, ty = kx / 100.0, ky / 100.0
            cost = _move_cost(sx, sy, tx, ty, speed)
            if hypot(tx - gx, ty - gy) <= within - 1e-6 and cost <= k:
                return True, cost, tx, ty, kx, ky
    return False, 0, sx, sy, 0.0, 0.0


@njit(cache=True)
def _furthest(sx, sy, gx, gy, speed, ap, stop):  # type: ignore[no-untyped-def]
    """furthest_toward: (found, AP, x, y, kx, ky)."""
    d = hypot(sx - gx, sy - gy)
    travel = min(d - stop, ap * speed - 0.01)
    if speed <= 0 or travel < 0.05:
        return False, 0, sx, sy, 0.0, 0.0
    kx, ky = _toward(sx, sy, gx, gy, travel)
    tx, ty = kx / 100.0, ky / 100.0
    cost = _move_cost(sx, sy, tx, ty, speed)
    if cost < 1 or cost > ap:
        return False, 0, sx, sy, 0.0, 0.0
    return True, cost, tx, ty, kx, ky


@njit(cache=True)
def _sidestep(tab, sx, sy, ax, ay, speed):  # type: ignore[no-untyped-def]
    """sidestep: 1 AP around an adjacent creature, at STOP m from it: (found, x, y, kx, ky)."""
    if speed <= 0:
        return False, sx, sy, 0.0, 0.0
    rot = tab[14]
    dx, dy = sx - ax, sy - ay
    d = hypot(dx, dy)
    if d == 0.0:
        d = 1.0
    ux, uy = dx / d, dy / d
    for r in range(rot.shape[0]):
        c, s = rot[r, 0], rot[r, 1]
        vx, vy = ux * c - uy * s, ux * s + uy * c
        kx, ky = _round_k(ax + vx * STOP), _round_k(ay + vy * STOP)
        tx, ty = kx / 100.0, ky / 100.0
        if (
            (tx != sx or ty != sy)
            and hypot(tx - ax, ty - ay) <= ADJ - 1e-6
            and _move_cost(sx, sy, tx, ty, speed) == 1
        ):
            return True, tx, ty, kx, ky
    return False, sx, sy, 0.0, 0.0


@njit(cache=True)
def _legal_move(tab, work, i, tx, ty, off=False):  # type: ignore[no-untyped-def]
    """A move of ``i`` to (tx, ty) passes R34 (finite, within the limit, min_spacing from every
    other standing creature) and R35 (at least 1 AP, paid from its AP, or off its turn 2 RP per
    AP, R32)."""
    st, pos = work[0], work[1]
    if not (math.isfinite(tx) and math.isfinite(ty)):
        return False
    if max(abs(tx), abs(ty)) > COORDINATE_LIMIT:
        return False
    spacing = tab[8]
    for j in range(st.shape[0]):
        if j == i or st[j, S_DOWN] != 0:
            continue
        if hypot(pos[j, 0] - tx, pos[j, 1] - ty) < spacing - 1e-9:
            return False
    steps = _move_cost(pos[i, 0], pos[i, 1], tx, ty, tab[1][i, F_SPEED])
    if off:
        return steps >= 1 and 2 * steps <= st[i, S_RP] + st[i, S_FLOAT]
    return 1 <= steps <= st[i, S_AP]


# -- what enemies can do ----------------------------------------------------------------------


@njit(cache=True)
def _reach(tab, work, e, sx, sy, ap, out_i, out_f, chances=False):  # type: ignore[no-untyped-def]
    """Planner.reach_attacks: per option of ``e``, how many attacks on a creature at (sx, sy)
    with ``ap`` and each one's hit code (``out_i`` rows: option, n, code; ``out_f``: its chance,
    with ``chances``)."""
    cre, pla, wpn, opt, span = tab[0], tab[1], tab[2], tab[3], tab[4]
    st, pos = work[0], work[1]
    d = hypot(pos[e, 0] - sx, pos[e, 1] - sy)
    v = pla[e, F_SPEED]
    dex = cre[e, C_DEX]
    m = st[e, S_EQ]
    k = 0
    for o in range(span[e, m, 0], span[e, m, 1]):
        if opt[o, O_RANGED] != 0:
            dc = math.ceil(d - 1e-9)
            w = opt[o, O_WEAPON] + cre[e, C_W0]
            if dc > wpn[w, W_FAR]:
                continue
            favor = 1 if dc <= wpn[w, W_CLOSE] else -1
            n = ap // opt[o, O_AP]
            if n:
                out_i[k, 0] = o
                out_i[k, 1] = n
                out_i[k, 2] = _code(dex + favor, dc)
                out_f[k] = _hit(tab, work, dex + favor, dc) if chances else 0.0
                k += 1
        else:
            if d <= ADJ + 1e-9:
                steps = 0
            elif v <= 0:
                continue
            else:
                steps = math.ceil((d - STOP) / v - 1e-9)
            n = (ap - steps) // opt[o, O_AP]
            if n > 0:
                out_i[k, 0] = o
                out_i[k, 1] = n
                out_i[k, 2] = P_ONE
                out_f[k] = 1.0
                k += 1
    return k


@njit(cache=True)
def _threat(tab, work, i, sx, sy, harm, has, holds):  # type: ignore[no-untyped-def]
    """Planner.threat_at: each enemy's best harm on ``i`` at (sx, sy) in its next turn
    (``harm``, ``has``) and the floating RP values, best first (``holds``); returns their
    count."""
    cre = tab[0]
    st = work[0]
    ri, rf = work[6], work[7]
    n = st.shape[0]
    rp = cre[i, C_RP]
    side = cre[i, C_SIDE]
    nh = 0
    for e in range(n):
        has[e] = False
        if st[e, S_DOWN] != 0 or cre[e, C_SIDE] == side:
            continue
        cnt = _reach(tab, work, e, sx, sy, cre[e, C_AP], ri, rf)
        best = -1
        bv = 0.0
        for r in range(cnt):
            value = _against(tab, work, ri[r, 0], ri[r, 2], ri[r, 2], ri[r, 1], i, rp, False)[0]
            if best < 0 or value > bv:
                best = r
                bv = value
        if best < 0:
            continue
        has[e] = True
        harm[e] = bv
        o, times, code = ri[best, 0], ri[best, 1], ri[best, 2]
        coverable = tab[3][o, O_RANGED] != 0
        extra = times - (rp - 1 if coverable else rp)
        if extra > 0:
            undefended = _series(tab, work, o, code, code, 1, i, 0, False)[0]
            defended = _series(tab, work, o, code, code, 1, i, 1, False)[0]
            dv = max(0.0, undefended - defended)
            for _ in range(extra):
                if nh < holds.shape[0]:
                    holds[nh] = dv
                    nh += 1
    # best first (equal values are interchangeable)
    for a in range(1, nh):
        v = holds[a]
        b = a - 1
        while b >= 0 and holds[b] < v:
            holds[b + 1] = holds[b]
            b -= 1
        holds[b + 1] = v
    return nh


@njit(cache=True, inline="always")
def _total(n, harm, has, spare, kill):  # type: ignore[no-untyped-def]
    """Threat.total: the summed harm, ``spare``'s share scaled by 1 − kill."""
    out = 0.0
    for e in range(n):
        if has[e]:
            out += harm[e] * (1.0 - kill) if e == spare else harm[e]
    return out


@njit(cache=True, inline="always")
def _hold_value(hold, have, holds, nh, k):  # type: ignore[no-untyped-def]
    """Planner.hold_value: ``hold`` × the defences ``k`` more floating RP would buy."""
    s = 0.0
    for idx in range(have, min(have + k, nh)):
        s += holds[idx]
    return hold * s


# -- plans ----------------------------------------------------------------------------------------


@njit(cache=True)
def _nearest(tab, work, i, by_health):  # type: ignore[no-untyped-def]
    """The standing enemy nearest ``i`` (ties: the lower Health with ``by_health``, then the
    first listed), or -1."""
    cre = tab[0]
    st, pos = work[0], work[1]
    best = -1
    bd = 0.0
    for j in range(st.shape[0]):
        if st[j, S_DOWN] != 0 or cre[j, C_SIDE] == cre[i, C_SIDE]:
            continue
        d = hypot(pos[i, 0] - pos[j, 0], pos[i, 1] - pos[j, 1])
        if best < 0 or d < bd or (by_health and d == bd and st[j, S_HEALTH] < st[best, S_HEALTH]):
            best = j
            bd = d
    return best


@njit(cache=True)
def _turn_value(tab, work, i, mask, t):  # type: ignore[no-untyped-def]
    """_equip_bonus's turn(): the best harm of a fresh turn of attacks on ``t`` holding
    ``mask``."""
    cre, wpn, opt, span = tab[0], tab[2], tab[3], tab[4]
    ap = cre[i, C_AP]
    dex = cre[i, C_DEX]
    best = 0.0
    for o in range(span[i, mask, 0], span[i, mask, 1]):
        n = ap // opt[o, O_AP]
        if n == 0:
            continue
        code = P_ONE
        if opt[o, O_RANGED] != 0:
            w = opt[o, O_WEAPON] + cre[i, C_W0]
            if wpn[w, W_FAR] < 6:
                code = P_ZERO
            else:
                favor = 1 if wpn[w, W_CLOSE] >= 6 else -1
                code = _code(dex + favor, 6)
        value = _against(tab, work, o, code, code, n, t, cre[t, C_RP], False)[0]
        best = max(best, value)
    return best


@njit(cache=True)
def _equip_bonus(tab, work, i, bit):  # type: ignore[no-untyped-def]
    """_equip_bonus: ``equip`` × the extra harm of a fresh turn with the weapon in hand."""
    t = _nearest(tab, work, i, False)
    if t < 0:
        return 0.0
    mask = work[0][i, S_EQ]
    gain = _turn_value(tab, work, i, mask | (1 << bit), t) - _turn_value(tab, work, i, mask, t)
    return tab[15][1] * max(0.0, gain)


@njit(cache=True)
def _shooter_spots(tab, work, i, t, ap, spots):  # type: ignore[no-untyped-def]
    """_shooter_spots: (AP, x, y, kx, ky) rows of where a shooter might shoot from; returns the
    count."""
    cre, pla, opt = tab[0], tab[1], tab[3]
    st, pos = work[0], work[1]
    ri, rf = work[6], work[7]
    hx, hy = pos[i, 0], pos[i, 1]
    spots[0, 0] = 0.0
    spots[0, 1] = hx
    spots[0, 2] = hy
    k = 1
    speed = pla[i, F_SPEED]
    if speed <= 0:
        return k
    gx, gy = pos[t, 0], pos[t, 1]
    menace = -1
    best = math.inf
    for e in range(st.shape[0]):
        if st[e, S_DOWN] != 0 or cre[e, C_SIDE] == cre[i, C_SIDE]:
            continue
        cnt = _reach(tab, work, e, hx, hy, 6, ri, rf)
        melee = False
        for r in range(cnt):
            if opt[ri[r, 0], O_RANGED] == 0:
                melee = True
        if melee:
            d = hypot(hx - pos[e, 0], hy - pos[e, 1])
            if d < best:
                best = d
                menace = e
    dirs = work[8]
    nd = 0
    d_goal = hypot(hx - gx, hy - gy)
    if d_goal > 0:
        dirs[0, 0] = (gx - hx) / d_goal
        dirs[0, 1] = (gy - hy) / d_goal
        nd = 1
    if menace >= 0:
        mx, my = pos[menace, 0], pos[menace, 1]
        dm = hypot(hx - mx, hy - my)
        if dm > 0:
            ux, uy = (hx - mx) / dm, (hy - my) / dm
            rot = tab[13]
            for r in range(rot.shape[0]):
                c, s = rot[r, 0], rot[r, 1]
                dirs[nd, 0] = ux * c - uy * s
                dirs[nd, 1] = ux * s + uy * c
                nd += 1
    for steps in range(1, min(ap, MAX_SHOOTER_STEPS) + 1):
        for n in range(nd):
            travel = steps * speed - 0.01
            if n == 0:
                travel = min(travel, d_goal - STOP)
                if travel < 0.05:
                    continue
            kx = _round_k(hx + dirs[n, 0] * travel)
            ky = _round_k(hy + dirs[n, 1] * travel)
            tx, ty = kx / 100.0, ky / 100.0
            cost = _move_cost(hx, hy, tx, ty, speed)
            if 1 <= cost <= ap:
                spots[k, 0] = cost
                spots[k, 1] = tx
                spots[k, 2] = ty
                spots[k, 3] = kx
                spots[k, 4] = ky
                k += 1
    return k


@njit(cache=True)
def _threats_still(work, i):  # type: ignore[no-untyped-def]
    """Keep the threats at spots worked out for ``i``'s last decision if they still hold, else
    forget them. A spot's threat (:func:`_threat`) reads only where the others stand, whether
    they are down, what they hold, and ``i``'s Health: none of that changes when ``i`` moves,
    aims or swings without felling anyone, so the decisions of one turn share most spots (a
    Warband encounter weighed about 1,400 spots in 290 decisions before)."""
    st, pos = work[0], work[1]
    seen, mark, where = work[16], work[22], work[23]
    n = st.shape[0]
    same = mark[0] == i and mark[1] == st[i, S_HEALTH]
    for e in range(n):
        if not same:
            break
        if e != i and (
            mark[2 + e] != st[e, S_DOWN]
            or mark[2 + n + e] != st[e, S_EQ]
            or where[e, 0] != pos[e, 0]
            or where[e, 1] != pos[e, 1]
        ):
            same = False
    if same:
        return
    seen[0] = 0
    mark[0] = i
    mark[1] = st[i, S_HEALTH]
    for e in range(n):
        mark[2 + e] = st[e, S_DOWN]
        mark[2 + n + e] = st[e, S_EQ]
        where[e, 0] = pos[e, 0]
        where[e, 1] = pos[e, 1]


@njit(cache=True)
def _choose_turn(tab, work, i, rnd):  # type: ignore[no-untyped-def]
    """choose_turn / turn_plans: the best attack plan whose first step is legal, else _engage;
    the step is written to the decision buffer."""
    cre, pla, wpn, opt, span = tab[0], tab[1], tab[2], tab[3], tab[4]
    safety = tab[12][min(rnd, tab[12].shape[0] - 1)]
    knobs = tab[15]
    hold, min_harm = knobs[0], knobs[3]
    st, pos, dec = work[0], work[1], work[4]
    harm, has, holds = work[9], work[10], work[11]
    harm0, has0, holds0 = work[12], work[13], work[14]
    spots = work[15]
    n = st.shape[0]
    ap = st[i, S_AP]
    mask0 = st[i, S_EQ]
    hx, hy = pos[i, 0], pos[i, 1]
    speed = pla[i, F_SPEED]
    dex = cre[i, C_DEX]
    have = st[i, S_FLOAT]
    seen, seen_xy, seen_harm, seen_has = work[16], work[17], work[18], work[19]
    seen_holds, seen_nh = work[20], work[21]
    _threats_still(work, i)
    nh0 = -1
    for z in range(seen[0]):
        if seen_xy[z, 0] == hx and seen_xy[z, 1] == hy:
            nh0 = seen_nh[z]
            for e in range(n):
                harm0[e] = seen_harm[z, e]
                has0[e] = seen_has[z, e]
            for r in range(nh0):
                holds0[r] = seen_holds[z, r]
            break
    if nh0 < 0:
        nh0 = _threat(tab, work, i, hx, hy, harm0, has0, holds0)
    found = False
    bv = 0.0
    w0, w1 = cre[i, C_W0], cre[i, C_W1]
    for pw in range(w0 - 1, w1):
        # the prefixes: none, then each weapon not in hand that pays to equip
        bonus = 0.0
        eq_ap = 0
        mask = mask0
        if pw >= w0:
            bit = wpn[pw, W_BIT]
            if (mask0 >> bit) & 1 or wpn[pw, W_AP] > ap:
                continue
            bonus = _equip_bonus(tab, work, i, bit)
            if not bonus > 0:
                continue
            eq_ap = wpn[pw, W_AP]
            mask = mask0 | (1 << bit)
        ap0 = ap - eq_ap
        for t in range(n):
            if st[t, S_DOWN] != 0 or cre[t, C_SIDE] == cre[i, C_SIDE]:
                continue
            tx, ty = pos[t, 0], pos[t, 1]
            in_cover = (st[t, S_COVER] >> i) & 1 != 0
            defences = st[t, S_RP] + st[t, S_FLOAT]
            for o in range(span[i, mask, 0], span[i, mask, 1]):
                cost = opt[o, O_AP]
                if opt[o, O_RANGED] == 0:
                    ok, mc, sx, sy, kx, ky = _approach(hx, hy, tx, ty, speed, ap0, ADJ, STOP)
                    if not ok:
                        continue
                    spots[0, 0] = mc
                    spots[0, 1] = sx
                    spots[0, 2] = sy
                    spots[0, 3] = kx
                    spots[0, 4] = ky
                    ns = 1
                    if in_cover and mc == 0:
                        ok2, sx2, sy2, kx2, ky2 = _sidestep(tab, hx, hy, tx, ty, speed)
                        if ok2:
                            spots[1, 0] = 1
                            spots[1, 1] = sx2
                            spots[1, 2] = sy2
                            spots[1, 3] = kx2
                            spots[1, 4] = ky2
                            ns = 2
                else:
                    ns = _shooter_spots(tab, work, i, t, ap0 - cost, spots)
                for q in range(ns):
                    move_ap = int(spots[q, 0])
                    rem = ap0 - move_ap
                    if rem < cost:
                        continue
                    sx, sy = spots[q, 1], spots[q, 2]
                    if move_ap == 0:
                        th, tf, tl, nh = harm0, has0, holds0, nh0
                    else:
                        # the threat at a spot, worked out once per decision (a shooter's
                        # spots away from its menace are the same for every target)
                        slot = -1
                        for z in range(seen[0]):
                            if seen_xy[z, 0] == sx and seen_xy[z, 1] == sy:
                                slot = z
                                break
                        if slot < 0 and seen[0] < seen_xy.shape[0]:
                            slot = seen[0]
                            seen[0] += 1
                            seen_xy[slot, 0] = sx
                            seen_xy[slot, 1] = sy
                            seen_nh[slot] = _threat(
                                tab, work, i, sx, sy, seen_harm[slot], seen_has[slot],
                                seen_holds[slot],
                            )  # fmt: skip
                        if slot >= 0:
                            th, tf, tl = seen_harm[slot], seen_has[slot], seen_holds[slot]
                            nh = seen_nh[slot]
                        else:
                            nh = _threat(tab, work, i, sx, sy, harm, has, holds)
                            th, tf, tl = harm, has, holds
                    cover = in_cover and move_ap == 0
                    if opt[o, O_RANGED] == 0:
                        times = rem // cost
                        hv, kill = _against(tab, work, o, P_ONE, P_ONE, times, t, defences, cover)
                        left = rem - times * cost
                        value = (
                            hv
                            - safety * _total(n, th, tf, t, kill)
                            + _hold_value(hold, have, tl, nh, left // 2)
                            + bonus
                        )
                        if (not found or value > bv) and (
                            pw >= w0 or move_ap == 0 or _legal_move(tab, work, i, sx, sy)
                        ):
                            found = True
                            bv = value
                            _step(dec, pw, move_ap, spots, q, 0, t, o, cre[i, C_W0])
                        continue
                    dc = math.ceil(hypot(sx - tx, sy - ty) - 1e-9)
                    w = opt[o, O_WEAPON] + cre[i, C_W0]
                    if dc > wpn[w, W_FAR]:
                        continue
                    favor = 1 if dc <= wpn[w, W_CLOSE] else -1
                    held = st[i, S_AIM] if (move_ap == 0 and pw < w0) else 0
                    later = _code(dex + favor, dc)
                    for aims in range(0, min(MAX_AIMS, rem - cost) + 1):
                        first = _code(dex + favor + aims + held, dc)
                        for times in range(1, (rem - aims) // cost + 1):
                            hv, kill = _against(
                                tab, work, o, first, later, times, t, defences, cover
                            )
                            left = rem - aims - times * cost
                            value = (
                                hv
                                - safety * _total(n, th, tf, t, kill)
                                + _hold_value(hold, have, tl, nh, left // 2)
                                + bonus
                            )
                            if hv < min_harm:
                                continue
                            if (not found or value > bv) and (
                                pw >= w0 or move_ap == 0 or _legal_move(tab, work, i, sx, sy)
                            ):
                                found = True
                                bv = value
                                _step(dec, pw, move_ap, spots, q, aims, t, o, cre[i, C_W0])
    if found:
        return
    _engage(tab, work, i, harm0, has0)


@njit(cache=True, inline="always")
def _step(dec, pw, move_ap, spots, q, aims, t, o, w0):  # type: ignore[no-untyped-def]
    """Step.command: equip, else move, else aim, else the attack."""
    dec[D_TARGET] = t
    if pw >= w0:
        dec[D_VERB] = V_EQUIP
        dec[D_ARG] = pw - w0
    elif move_ap:
        dec[D_VERB] = V_MOVE
        dec[D_KX] = int(spots[q, 3])
        dec[D_KY] = int(spots[q, 4])
    elif aims:
        dec[D_VERB] = V_AIM
    else:
        dec[D_VERB] = V_ATTACK
        dec[D_ARG] = o
        dec[D_KX] = -1


@njit(cache=True)
def _engage(tab, work, i, harm0, has0):  # type: ignore[no-untyped-def]
    """_engage: close in, equip, hold, aim — or end the turn."""
    cre, pla, wpn, opt, span = tab[0], tab[1], tab[2], tab[3], tab[4]
    st, pos, dec = work[0], work[1], work[4]
    ap = st[i, S_AP]
    mask = st[i, S_EQ]
    hx, hy = pos[i, 0], pos[i, 1]
    nearest = _nearest(tab, work, i, True)
    if nearest < 0:
        dec[D_VERB] = -1
        return
    speed = pla[i, F_SPEED]
    shooter = cre[i, C_SHOOTER] != 0
    best_equip = -1
    best_bonus = 0.0
    for pw in range(cre[i, C_W0], cre[i, C_W1]):
        bit = wpn[pw, W_BIT]
        if (mask >> bit) & 1 or wpn[pw, W_AP] > ap:
            continue
        bonus = _equip_bonus(tab, work, i, bit)
        if bonus > 0 and (best_equip < 0 or bonus > best_bonus):
            best_equip = pw
            best_bonus = bonus
    gx, gy = pos[nearest, 0], pos[nearest, 1]
    ranged = False
    close = 0
    for o in range(span[i, mask, 0], span[i, mask, 1]):
        if opt[o, O_RANGED] != 0:
            w = opt[o, O_WEAPON] + cre[i, C_W0]
            close = wpn[w, W_CLOSE] if not ranged else max(close, wpn[w, W_CLOSE])
            ranged = True
    d = hypot(hx - gx, hy - gy)
    ok = False
    mc = 0
    tx, ty, kx, ky = hx, hy, 0.0, 0.0
    if shooter and ranged:
        if d > close:
            ok, mc, tx, ty, kx, ky = _approach(hx, hy, gx, gy, speed, ap, close, close - 0.3)
            if not ok:
                ok, mc, tx, ty, kx, ky = _furthest(hx, hy, gx, gy, speed, ap, close - 0.3)
    elif d > ADJ:
        ok, mc, tx, ty, kx, ky = _approach(hx, hy, gx, gy, speed, ap, ADJ, STOP)
        if not ok:
            ok, mc, tx, ty, kx, ky = _furthest(hx, hy, gx, gy, speed, ap, STOP)
    if best_equip >= 0 and (not ok or ap - mc >= wpn[best_equip, W_AP]):
        dec[D_VERB] = V_EQUIP
        dec[D_ARG] = best_equip - cre[i, C_W0]
        return
    if ok and mc >= 1 and _legal_move(tab, work, i, tx, ty):
        dec[D_VERB] = V_MOVE
        dec[D_KX] = int(kx)
        dec[D_KY] = int(ky)
        return
    threatened = False
    for e in range(st.shape[0]):
        if has0[e]:
            threatened = True
    if ap >= 2 and threatened:
        dec[D_VERB] = V_HOLD
        return
    if ap >= 1 and shooter and ranged:
        dec[D_VERB] = V_AIM
        dec[D_TARGET] = _nearest(tab, work, i, False)
        return
    dec[D_VERB] = -1  # end the turn


#: Aim stacks an ally builds off turn at most (points_tactics.OFF_TURN_AIM)
OFF_TURN_AIM = 2


@njit(cache=True)
def _ally_step(tab, work, j):  # type: ignore[no-untyped-def]
    """_ally_step (R32 ``off_turn_actions: any``): a shooter aims at the nearest enemy within
    its reach (up to OFF_TURN_AIM stacks); a melee fighter adjacent to no enemy moves 1 AP
    toward the nearest; written to the decision buffer, False if none applies (Stamina stays
    full, nobody is prone or grappled: the tactical policy never trips, grapples or leaps)."""
    cre, pla, wpn = tab[0], tab[1], tab[2]
    st, pos, dec = work[0], work[1], work[4]
    hx, hy = pos[j, 0], pos[j, 1]
    nearest = _nearest(tab, work, j, False)
    if nearest < 0:
        return False
    if cre[j, C_SHOOTER] != 0:
        if st[j, S_AIM] < OFF_TURN_AIM:
            reach = 0
            for w in range(cre[j, C_W0], cre[j, C_W1]):
                if wpn[w, W_KIND] != 0 and (st[j, S_EQ] >> wpn[w, W_BIT]) & 1:
                    reach = max(reach, wpn[w, W_FAR])
            best = -1
            bd = 0.0
            for k in range(st.shape[0]):
                if st[k, S_DOWN] != 0 or cre[k, C_SIDE] == cre[j, C_SIDE]:
                    continue
                d = hypot(hx - pos[k, 0], hy - pos[k, 1])
                if math.ceil(d - 1e-9) <= reach and (best < 0 or d < bd):
                    best = k
                    bd = d
            if best >= 0:
                dec[D_VERB] = V_AIM
                dec[D_TARGET] = best
                return True
        return False
    for k in range(st.shape[0]):
        if st[k, S_DOWN] != 0 or cre[k, C_SIDE] == cre[j, C_SIDE]:
            continue
        if hypot(hx - pos[k, 0], hy - pos[k, 1]) <= ADJ:
            return False
    gx, gy = pos[nearest, 0], pos[nearest, 1]
    ok, _, tx, ty, kx, ky = _furthest(hx, hy, gx, gy, pla[j, F_SPEED], 1, STOP)
    if ok and _legal_move(tab, work, j, tx, ty, True):
        dec[D_VERB] = V_MOVE
        dec[D_KX] = int(kx)
        dec[D_KY] = int(ky)
        return True
    return False


@njit(cache=True)
def _off_turn(tab, work, c):  # type: ignore[no-untyped-def]
    """off_turn_step: the first ally (in participant order) with 2 RP and a step; -1 if none."""
    cre, st = tab[0], work[0]
    for j in range(st.shape[0]):
        if j == c or st[j, S_DOWN] != 0 or cre[j, C_SIDE] != cre[c, C_SIDE]:
            continue
        if st[j, S_RP] < 2:
            continue
        if _ally_step(tab, work, j):
            return j
    return -1


# -- the defence window ----------------------------------------------------------------------


@njit(cache=True)
def _attacks_left(tab, work, a, target):  # type: ignore[no-untyped-def]
    """_attacks_left: (option, n, code) of the attacker's best remaining attacks on ``target``
    this turn, option -1 if none."""
    st, pos = work[0], work[1]
    ri, rf = work[6], work[7]
    cnt = _reach(tab, work, a, pos[target, 0], pos[target, 1], st[a, S_AP], ri, rf, True)
    best = -1
    bv = 0.0
    for r in range(cnt):
        value = ri[r, 1] * rf[r] * tab[5][ri[r, 0]]
        if best < 0 or value > bv:
            best = r
            bv = value
    if best < 0:
        return -1, 0, 0
    return ri[best, 0], ri[best, 1], ri[best, 2]


@njit(cache=True)
def _choose_defence(tab, work, i, a, incoming, ctx_cover, shot):  # type: ignore[no-untyped-def]
    """choose_defence: V_BLOCK, V_DODGE, V_COVER or -1 (pass)."""
    st = work[0]
    covered = ctx_cover or (st[i, S_COVER] >> a) & 1 != 0
    budget = st[i, S_RP] + st[i, S_FLOAT]
    health = st[i, S_HEALTH]
    none_now, block_now, dodge_now = _losses(tab, work, i, incoming, health, covered, 0)
    mode = V_BLOCK if block_now <= dodge_now else V_DODGE
    defend_now = min(block_now, dodge_now)
    o, n_more, code = _attacks_left(tab, work, a, i)
    saving, gain = 0.0, 0.0
    if o < 0:
        n_more = 0
    else:
        saving, gain = _saving(tab, work, i, o, code, health, covered)
    best_v = none_now - min(n_more, budget) * saving
    best_c = -1
    if budget >= 1:
        later = min(n_more, budget - 1)
        value = defend_now - later * saving
        if value < best_v - 1e-9:
            best_v = value
            best_c = mode
    if not covered and budget >= 2 and shot:
        _, block_c, dodge_c = _losses(tab, work, i, incoming, health, True, 0)
        later = min(n_more, budget - 2)
        value = min(block_c, dodge_c) - later * (saving + gain) - 0.0
        if value < best_v - 1e-9:
            best_v = value
            best_c = V_COVER
    return best_c


@njit(cache=True)
def _wants_assist(tab, work, j, d, a, incoming, mode, assists, ctx_cover):  # type: ignore[no-untyped-def]
    """choose_assist (the assist already legal): one more die lowers the defender's loss by at
    least ``assist_gain`` and a regular RP is to spare."""
    st = work[0]
    covered = ctx_cover or (st[d, S_COVER] >> a) & 1 != 0
    health = st[d, S_HEALTH]
    before = _losses(tab, work, d, incoming, health, covered, assists)
    after = _losses(tab, work, d, incoming, health, covered, assists + 1)
    b = before[1] if mode == V_BLOCK else before[2]
    f = after[1] if mode == V_BLOCK else after[2]
    o, _, _ = _attacks_left(tab, work, a, j)
    keep = 1 if o >= 0 else 0
    return b - f >= tab[15][2] and st[j, S_RP] - keep >= 1


@njit(cache=True, inline="always")
def _pay_rp(st, i, price):  # type: ignore[no-untyped-def]
    """R32 off turn: RP first, then floating RP."""
    from_rp = min(st[i, S_RP], price)
    st[i, S_RP] -= from_rp
    st[i, S_FLOAT] -= price - from_rp
    st[i, S_COST] += price


@njit(cache=True, inline="always")
def _row(trace, rows, kind, actor, verb, target, arg, kx, ky, d4, total, rnd):  # type: ignore[no-untyped-def]
    if rows < trace.shape[0]:
        trace[rows, X_KIND] = kind
        trace[rows, X_ACTOR] = actor
        trace[rows, X_VERB] = verb
        trace[rows, X_TARGET] = target
        trace[rows, X_ARG] = arg
        trace[rows, X_KX] = kx
        trace[rows, X_KY] = ky
        trace[rows, X_D4] = d4
        trace[rows, X_TOTAL] = total
        trace[rows, X_ROUND] = rnd
    return rows + 1


@njit(cache=True)
def _roll_terms(term, t0, t1, s):  # type: ignore[no-untyped-def]
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


@njit(cache=True)
def _window(tab, work, standing, a, t, incoming, shot, s, rnd, trace, rows):  # type: ignore[no-untyped-def]
    """R45's defence window on ``incoming`` damage to ``t`` and its roll (R40); returns
    (stream, rows, GOING or the side that won)."""
    mode, ctx_cover, rows = _defend(tab, work, a, t, incoming, shot, False, rnd, trace, rows)
    assists = 0
    if mode >= 0:
        assists, rows = _assists(tab, work, a, t, incoming, mode, ctx_cover, 0, 1, rnd, trace, rows)
    return _defence_roll(
        tab, work, standing, a, t, incoming, mode, assists, ctx_cover, -1, s, rnd, trace, rows
    )


@njit(cache=True)
def _defend(tab, work, a, t, incoming, shot, ctx_cover, rnd, trace, rows):  # type: ignore[no-untyped-def]
    """The defender of R45's window, asked until it passes or has no reaction left (R40):
    (its Block or Dodge or -1, cover taken in this window, rows)."""
    st = work[0]
    mode = -1
    while mode < 0 and st[t, S_RP] + st[t, S_FLOAT] >= 1:
        choice = _choose_defence(tab, work, t, a, incoming, ctx_cover, shot)
        if choice < 0:
            rows = _row(trace, rows, K_PASS, t, -1, -1, -1, 0, 0, 0, 0, rnd)
            break
        rows = _row(trace, rows, K_ACT, t, choice, -1, -1, 0, 0, 0, 0, rnd)
        _pay_rp(st, t, 1)
        st[t, S_REACT] += 1
        st[t, S_AIM] = 0
        if choice == V_COVER:
            ctx_cover = True
            st[t, S_COVER] |= 1 << a
        else:
            mode = choice
    return mode, ctx_cover, rows


@njit(cache=True)
def _assists(tab, work, a, t, incoming, mode, ctx_cover, assists, q0, rnd, trace, rows):  # type: ignore[no-untyped-def]
    """The others in turn order after the defender, from the ``q0``-th on: adjacent allies
    may assist (R40), each asked until it passes; (the assists, rows)."""
    cre = tab[0]
    st, pos, order = work[0], work[1], work[2]
    n = st.shape[0]
    at = 0
    for p in range(n):
        if order[p] == t:
            at = p
    for q in range(q0, n):
        j = order[(at + q) % n]
        if st[j, S_DOWN] != 0 or cre[j, C_SIDE] != cre[t, C_SIDE]:
            continue
        if hypot(pos[j, 0] - pos[t, 0], pos[j, 1] - pos[t, 1]) > ADJ + 1e-9:
            continue
        while st[j, S_RP] + st[j, S_FLOAT] >= 1:
            if _wants_assist(tab, work, j, t, a, incoming, mode, assists, ctx_cover):
                rows = _row(trace, rows, K_ACT, j, V_ASSIST, -1, -1, 0, 0, 0, 0, rnd)
                _pay_rp(st, j, 1)
                st[j, S_REACT] += 1
                st[j, S_AIM] = 0
                assists += 1
            else:
                rows = _row(trace, rows, K_PASS, j, -1, -1, -1, 0, 0, 0, 0, rnd)
                break
    return assists, rows


@njit(cache=True)
def _defence_roll(  # type: ignore[no-untyped-def]
    tab, work, standing, a, t, incoming, mode, assists, ctx_cover, landed, s, rnd, trace, rows
):
    """The window's roll (R40: Block, Dodge or none) and the damage through it: rolled, or with
    ``landed`` ≥ 0 that total landed (a fight resumed at the roll, untraced); returns (stream,
    rows, GOING or the side that won)."""
    cre = tab[0]
    st = work[0]
    resist = cre[t, C_RESIST]
    if mode < 0:
        dealt = max(0, incoming - resist)
        if landed < 0:
            rows = _row(trace, rows, K_ROLL, t, R_DEFENCE, a, dealt, 0, 0, 0, 0, rnd)
    else:
        rating = cre[t, C_BLOCK] if mode == V_BLOCK else cre[t, C_DODGE]
        pool = max(1, rating + assists)
        if landed < 0:
            total, s = _d4s(pool, s)
        else:
            total = landed
        cover = ctx_cover or (st[t, S_COVER] >> a) & 1 != 0
        defence = total * (2 if cover else 1) + resist
        if mode == V_BLOCK:
            dealt = max(0, incoming - defence)
        else:
            dealt = 0 if defence >= incoming else incoming
        if landed < 0:
            rows = _row(trace, rows, K_ROLL, t, R_DEFENCE, a, dealt, 0, 0, pool, total, rnd)
    st[t, S_HEALTH] = max(0, st[t, S_HEALTH] - dealt)
    st[a, S_DEALT] += dealt
    if st[t, S_HEALTH] == 0 and st[t, S_DOWN] == 0:
        st[t, S_DOWN] = 1
        side = cre[t, C_SIDE]
        standing[side] -= 1
        if standing[side] == 0:
            return s, rows, cre[a, C_SIDE]
    return s, rows, GOING


# -- the loop's parts --------------------------------------------------------------------------


@njit(cache=True, inline="always")
def begin(tab, work, standing):  # type: ignore[no-untyped-def]
    """Health, RP, weapons in hand and places as the encounter starts; count who stands."""
    cre, pla = tab[0], tab[1]
    st, pos, order, miss = work[0], work[1], work[2], work[5]
    n = cre.shape[0]
    miss[0] = 0
    work[22][0] = -1  # no threats at spots kept from another encounter (_threats_still)
    for c in range(n):
        for k in range(S_COLUMNS):
            st[c, k] = 0
        st[c, S_HEALTH] = cre[c, C_HEALTH]
        st[c, S_DOWN] = 1 if cre[c, C_HEALTH] <= 0 else 0
        st[c, S_RP] = cre[c, C_RP]
        st[c, S_EQ] = cre[c, C_EQUIPPED]
        pos[c, 0] = pla[c, F_X]
        pos[c, 1] = pla[c, F_Y]
        order[c] = c
        if st[c, S_DOWN] == 0:
            standing[cre[c, C_SIDE]] += 1
    return n


@njit(cache=True, inline="always")
def opening(tab, work, s, trace):  # type: ignore[no-untyped-def]
    """R30 with ``initiative: check``: a Speed check each, in participant order, then the
    order by total; otherwise the participant order."""
    if tab[7] != 0:
        return _initiative_from(tab, work, 0, s, trace, 0)
    return s, 0


@njit(cache=True)
def _initiative_from(tab, work, first, s, trace, rows):  # type: ignore[no-untyped-def]
    """R30's Speed checks of the participants from ``first`` on, in participant order (those
    before it already rolled, into ``work[3]``), then the order by total."""
    cre = tab[0]
    order, init = work[2], work[3]
    n = cre.shape[0]
    for c in range(first, n):
        total, s = _d4s(cre[c, C_INIT_D4], s)
        init[c] = total
        rows = _row(trace, rows, K_ROLL, c, R_INITIATIVE, -1, -1, 0, 0, cre[c, C_INIT_D4], total, 0)
    sort_by_initiative(order, n, init, cre, C_SIDE, C_INIT_SCORE)
    return s, rows


@njit(cache=True, inline="always")
def round_start(tab, work):  # type: ignore[no-untyped-def]
    """Nothing at a round's start: points follow turns (R31)."""


@njit(cache=True, inline="always")
def turn_order(tab, work, pos):  # type: ignore[no-untyped-def]
    return work[2][pos]


@njit(cache=True, inline="always")
def is_down(tab, work, c):  # type: ignore[no-untyped-def]
    return work[0][c, S_DOWN] != 0


@njit(cache=True, inline="always")
def _relocate(st, pos, c, tx, ty):  # type: ignore[no-untyped-def]
    """R35: ``c`` moves to (tx, ty) as the engine shifts it; its Aim is lost (R39) and cover
    against or by it ends (R40: positions changed)."""
    st[c, S_AIM] = 0
    pos[c, 0] = pos[c, 0] + (tx - pos[c, 0])
    pos[c, 1] = pos[c, 1] + (ty - pos[c, 1])
    st[c, S_COVER] = 0
    for k in range(st.shape[0]):
        st[k, S_COVER] &= ~(1 << c)


@njit(cache=True, inline="always")
def _turn_start(tab, work, c):  # type: ignore[no-untyped-def]
    """R31: the owner gets its AP, loses its floating RP (R33); the others' RP are set."""
    cre, st = tab[0], work[0]
    for k in range(st.shape[0]):
        if k == c:
            st[k, S_AP] = cre[k, C_AP]
            st[k, S_RP] = 0
            st[k, S_FLOAT] = 0
        else:
            st[k, S_AP] = 0
            st[k, S_RP] = cre[k, C_RP]


@njit(cache=True)
def _turn(tab, work, standing, c, s, rnd, trace, rows):  # type: ignore[no-untyped-def]
    """Creature ``c``'s turn, from its start: (stream, rows, GOING or the side that won)."""
    _turn_start(tab, work, c)
    return _turn_on(tab, work, standing, c, s, rnd, trace, rows)


@njit(cache=True)
def _turn_on(tab, work, standing, c, s, rnd, trace, rows):  # type: ignore[no-untyped-def]
    """``c``'s turn from its next decision (an ally's off-turn step first, R32) to its end."""
    cre, wpn, opt = tab[0], tab[2], tab[3]
    st, pos, dec, miss = work[0], work[1], work[4], work[5]
    while True:
        if miss[0] >= MISS_CAP:
            return s, rows, DRAW  # played again once the numbers are known
        dec[D_VERB] = -1
        dec[D_TARGET] = -1
        dec[D_ARG] = -1
        dec[D_KX] = 0
        dec[D_KY] = 0
        if tab[16] != 0:
            ally = _off_turn(tab, work, c)
            if ally >= 0:
                verb = dec[D_VERB]
                rows = _row(
                    trace, rows, K_ACT, ally, verb, dec[D_TARGET], -1, dec[D_KX], dec[D_KY],
                    0, 0, rnd,
                )  # fmt: skip
                _pay_rp(st, ally, 2)  # R32: 1 AP = 2 RP off turn
                if verb == V_AIM:
                    st[ally, S_AIM] += 1
                else:
                    _relocate(st, pos, ally, dec[D_KX] / 100.0, dec[D_KY] / 100.0)
                continue
        _choose_turn(tab, work, c, rnd)
        verb, t, arg = dec[D_VERB], dec[D_TARGET], dec[D_ARG]
        if verb == V_ATTACK and opt[arg, O_RANGED] != 0:
            verb = V_SHOOT
        if verb < 0:
            rows = _row(trace, rows, K_END, c, -1, -1, -1, 0, 0, 0, 0, rnd)
            return s, rows, GOING
        rows = _row(trace, rows, K_ACT, c, verb, t, arg, dec[D_KX], dec[D_KY], 0, 0, rnd)
        if verb == V_EQUIP:
            w = cre[c, C_W0] + arg
            st[c, S_AP] -= wpn[w, W_AP]
            st[c, S_COST] += wpn[w, W_AP]
            st[c, S_EQ] |= 1 << wpn[w, W_BIT]
            st[c, S_AIM] = 0
        elif verb == V_MOVE:
            tx, ty = dec[D_KX] / 100.0, dec[D_KY] / 100.0
            steps = _move_cost(pos[c, 0], pos[c, 1], tx, ty, tab[1][c, F_SPEED])
            st[c, S_AP] -= steps
            st[c, S_COST] += steps
            _relocate(st, pos, c, tx, ty)
        elif verb == V_AIM:
            st[c, S_AP] -= 1
            st[c, S_COST] += 1
            st[c, S_AIM] += 1
        elif verb == V_HOLD:
            st[c, S_AP] -= 2
            st[c, S_FLOAT] += 1
            st[c, S_COST] += 1
            st[c, S_AIM] = 0
        else:
            cost = opt[arg, O_AP]
            st[c, S_AP] -= cost
            st[c, S_COST] += cost
            s, rows, winner = _strike(
                tab, work, standing, c, verb, t, arg, R_HIT, -1, -1, s, rnd, trace, rows
            )
            if winner != GOING:
                return s, rows, winner


@njit(cache=True)
def _strike(tab, work, standing, c, verb, t, arg, stage, landed, dc, s, rnd, trace, rows):  # type: ignore[no-untyped-def]
    """``c``'s attack (R38) or shot (R39) of option ``arg`` on ``t``, paid for, from its roll
    ``stage`` on (R45: hit, damage, then the defence window): every roll rolled, or the first
    with ``landed`` ≥ 0 landed with that total (a fight resumed at the roll, untraced; a shot's
    ``dc`` is then the engine's); returns (stream, rows, GOING or the side that won)."""
    cre, wpn, opt, term = tab[0], tab[2], tab[3], tab[6]
    st, pos = work[0], work[1]
    if verb == V_ATTACK:
        st[c, S_AIM] = 0
        if landed >= 0:
            incoming = landed
        else:
            rolled, s = _roll_terms(term, opt[arg, O_T0], opt[arg, O_T1], s)
            incoming = -((-rolled) // 2) + opt[arg, O_CONST]  # R38: halved up
            rows = _row(trace, rows, K_ROLL, c, R_DAMAGE, t, -1, 0, 0, -1, incoming, rnd)
    else:
        if stage == R_HIT:
            pool = 0
            if landed >= 0:
                total = landed
            else:
                w = opt[arg, O_WEAPON] + cre[c, C_W0]
                dc = math.ceil(hypot(pos[c, 0] - pos[t, 0], pos[c, 1] - pos[t, 1]) - 1e-9)
                favor = (1 if dc <= wpn[w, W_CLOSE] else -1) + st[c, S_AIM]  # R39
                pool = max(1, cre[c, C_DEX] + favor)
                total, s = _d4s(pool, s)
            st[c, S_AIM] = 0
            hit = total >= dc
            if landed < 0:
                rows = _row(trace, rows, K_ROLL, c, R_HIT, t, int(hit), 0, 0, pool, total, rnd)
            if not hit:
                return s, rows, GOING
            landed = -1
        if landed >= 0:
            incoming = landed
        else:
            rolled, s = _roll_terms(term, opt[arg, O_T0], opt[arg, O_T1], s)
            incoming = rolled + opt[arg, O_CONST]
            rows = _row(trace, rows, K_ROLL, c, R_DAMAGE, t, -1, 0, 0, -1, incoming, rnd)
    return _window(tab, work, standing, c, t, incoming, verb == V_SHOOT, s, rnd, trace, rows)


@njit(cache=True, inline="always")
def turn(tab, work, standing, c, s, rnd, trace, rows):  # type: ignore[no-untyped-def]
    """Creature ``c``'s turn: (stream, trace rows, GOING or the side that won)."""
    return _turn(tab, work, standing, c, s, rnd, trace, rows)


@njit(cache=True, inline="always")
def new_work(tab):  # type: ignore[no-untyped-def]
    n = tab[0].shape[0]
    holds = 256
    return (
        np.zeros((n, S_COLUMNS), np.int64),  # 0 state
        np.zeros((n, 2), np.float64),  # 1 positions
        np.zeros(n, np.int64),  # 2 turn order
        np.zeros(n, np.int64),  # 3 initiative totals
        np.zeros(5, np.int64),  # 4 the decision
        np.zeros(MISS_CAP + 1, np.int64),  # 5 missing keys (count first)
        np.zeros((64, 3), np.int64),  # 6 reach: option, n, code
        np.zeros(64, np.float64),  # 7 reach: chance
        np.zeros((8, 2), np.float64),  # 8 a shooter's directions
        np.zeros(n, np.float64),  # 9 threat at a spot: harm by enemy
        np.zeros(n, np.bool_),  # 10 … which enemies
        np.zeros(holds, np.float64),  # 11 … floating RP values
        np.zeros(n, np.float64),  # 12 threat here
        np.zeros(n, np.bool_),  # 13
        np.zeros(holds, np.float64),  # 14
        np.zeros((32, 5), np.float64),  # 15 spots: AP, x, y, kx, ky
        np.zeros(1, np.int64),  # 16 threats at spots this decision: how many
        np.zeros((SPOTS, 2), np.float64),  # 17 … the spots
        np.zeros((SPOTS, n), np.float64),  # 18 … harm by enemy
        np.zeros((SPOTS, n), np.bool_),  # 19 … which enemies
        np.zeros((SPOTS, holds), np.float64),  # 20 … floating RP values
        np.zeros(SPOTS, np.int64),  # 21 … how many
        np.zeros(2 + 2 * n, np.int64),  # 22 what they were worked out for (_threats_still)
        np.zeros((n, 2), np.float64),  # 23 … where the others stood
    )


@njit(cache=True, inline="always")
def record(tab, work, i, rows, out):  # type: ignore[no-untyped-def]
    """Encounter ``i``'s steps, per-creature figures and missing keys into ``out``."""
    steps, stats, missing = out
    st, miss = work[0], work[5]
    steps[i] = rows
    for c in range(st.shape[0]):
        stats[i, OUT_COST, c] = st[c, S_COST]
        stats[i, OUT_DEALT, c] = st[c, S_DEALT]
        stats[i, OUT_REACT, c] = st[c, S_REACT]
        stats[i, OUT_DOWN, c] = st[c, S_DOWN]
        stats[i, OUT_HEALTH, c] = st[c, S_HEALTH]
    k = min(miss[0], MISS_CAP)
    missing[i, 0] = miss[0]
    for r in range(k):
        missing[i, 1 + r] = miss[1 + r]


# play_on, play_one, play_many and play_traced: the shared loop with the parts above
play_on: Any
play_one: Any
play_many: Any
play_traced: Any
define_loop(globals())


@njit(cache=True, parallel=True)
def play_listed(key0, key1, indices, chunk, tab, max_rounds, winner, rounds, out):  # type: ignore[no-untyped-def]
    """Play encounters ``indices`` (each from its own stream), in parallel chunks of ``chunk``
    (a chunk shares its scratch state): row ``r`` of the outputs is encounter ``indices[r]``'s."""
    n = indices.shape[0]
    chunks = (n + chunk - 1) // chunk
    for ch in prange(chunks):
        work = new_work(tab)
        standing = np.zeros(2, np.int64)
        trace = np.empty((0, TRACE_COLUMNS), np.int64)
        for r in range(ch * chunk, min(n, (ch + 1) * chunk)):
            s = stream_start(key0, key1, np.uint64(indices[r]))
            w, k, rows = play_one(s, tab, work, standing, max_rounds, trace)  # noqa: F821
            winner[r] = w
            rounds[r] = k
            record(tab, work, r, rows, out)


# -- playing on from the engine's state (:mod:`.resume`) -------------------------------------

# where a resumed fight stands (``pending``): the turn owner, its round and turn position, and
# what waits: a roll (initiative, hit, damage, defence) or a decision (the owner's, the
# defender's, an ally's in the window)
(
    P_STAGE, P_OWNER, P_ROUND, P_POS, P_ROLLER, P_TARGET, P_ARG, P_VERB, P_DC, P_INCOMING,
    P_MODE, P_ASSISTS, P_COVER, P_ASKED,
) = range(14)  # fmt: skip
P_COLUMNS = 14
#: stages of ``pending[P_STAGE]`` beyond the rolls' R_*: a decision
W_TURN, W_DEFEND, W_ASSIST = range(4, 7)


@njit(cache=True)
def _play_on_from(tab, work, standing, pending, landed, s, max_rounds, trace, rows):  # type: ignore[no-untyped-def]
    """One fight from the restored state in ``work``: ``pending``'s roll landed with ``landed``
    (or its decision made), the turn owner's turn on, then the rounds; (winner, rounds, rows)."""
    n = tab[0].shape[0]
    stage = pending[P_STAGE]
    c, rnd, at = pending[P_OWNER], pending[P_ROUND], pending[P_POS]
    if stage == R_INITIATIVE:
        k = pending[P_ROLLER]
        work[3][k] = landed
        s, rows = _initiative_from(tab, work, k + 1, s, trace, rows)
        s, w, rnd, rows = play_on(s, tab, work, standing, n, 1, 0, max_rounds, trace, rows)  # noqa: F821
        return w, rnd, rows
    w = GOING
    t, arg, verb = pending[P_TARGET], pending[P_ARG], pending[P_VERB]
    incoming, mode = pending[P_INCOMING], pending[P_MODE]
    assists, cover = pending[P_ASSISTS], pending[P_COVER] != 0
    shot = verb == V_SHOOT
    if R_HIT <= stage <= R_DAMAGE:
        s, rows, w = _strike(
            tab, work, standing, c, verb, t, arg, stage, landed, pending[P_DC], s, rnd, trace,
            rows,
        )  # fmt: skip
    elif stage != W_TURN:  # the defence window: its defender, an ally or its roll
        if stage == W_DEFEND:
            mode, cover, rows = _defend(tab, work, c, t, incoming, shot, cover, rnd, trace, rows)
            landed = -1
            if mode >= 0:
                assists, rows = _assists(
                    tab, work, c, t, incoming, mode, cover, 0, 1, rnd, trace, rows
                )
        elif stage == W_ASSIST:
            landed = -1
            assists, rows = _assists(
                tab, work, c, t, incoming, mode, cover, assists, pending[P_ASKED], rnd, trace,
                rows,
            )  # fmt: skip
        s, rows, w = _defence_roll(
            tab, work, standing, c, t, incoming, mode, assists, cover, landed, s, rnd, trace, rows
        )
    if w == GOING:
        s, rows, w = _turn_on(tab, work, standing, c, s, rnd, trace, rows)
    if w == GOING:
        s, w, rnd, rows = play_on(s, tab, work, standing, n, rnd, at + 1, max_rounds, trace, rows)  # noqa: F821
    return w, rnd, rows


@njit(cache=True)
def play_resumed(  # type: ignore[no-untyped-def]
    key0, key1, streams, tab, snap, pending, totals, max_rounds, winner, rounds, out, trace
):
    """Fights on from the engine's state ``snap`` (state, positions, turn order, initiative
    totals): fight ``i`` lands ``pending``'s roll with ``totals[i]`` (a decision ignores it)
    and plays to the end on the stream ``streams[i]``; writes ``winner[i]``, ``rounds[i]``
    and ``out`` (steps, figures, missing keys, as ``record``); returns the rows the last one
    traced (the first ``trace.shape[0]`` written)."""
    work = new_work(tab)
    standing = np.zeros(2, np.int64)
    st0, pos0, order0, init0 = snap
    st, pos, order, init, miss = work[0], work[1], work[2], work[3], work[5]
    cre = tab[0]
    n = cre.shape[0]
    rows = 0
    for i in range(winner.shape[0]):
        s = stream_start(key0, key1, np.uint64(streams[i]))
        standing[0] = 0
        standing[1] = 0
        for c in range(n):
            for k in range(S_COLUMNS):
                st[c, k] = st0[c, k]
            pos[c, 0] = pos0[c, 0]
            pos[c, 1] = pos0[c, 1]
            order[c] = order0[c]
            init[c] = init0[c]
            if st[c, S_DOWN] == 0:
                standing[cre[c, C_SIDE]] += 1
        miss[0] = 0
        work[22][0] = -1
        w, rnd, rows = _play_on_from(
            tab, work, standing, pending, totals[i], s, max_rounds, trace, 0
        )
        winner[i] = w
        rounds[i] = rnd
        record(tab, work, i, rows, out)
    return rows
