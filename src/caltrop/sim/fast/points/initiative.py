"""R30's order after the initiative rolls, written once for both Action Point kernels (the
plain one, :mod:`caltrop.sim.fast.points.kernel`, and the tactical one,
:mod:`caltrop.sim.fast.points_tactical.kernel`): highest total first; on a tie a PC before an
NPC; NPCs by the higher initiative score; then the order they joined in."""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def sort_by_initiative(order, n, init, cre, side_col, score_col):  # type: ignore[no-untyped-def]
    """Sort ``order[:n]`` (creature indices, in joined order) in place by R30, an insertion sort
    (stable, a handful of creatures): ``init`` the totals, ``cre[c, side_col]`` the side (0 PC),
    ``cre[c, score_col]`` the initiative score."""
    for a in range(1, n):
        v = order[a]
        b = a - 1
        while b >= 0:
            u = order[b]
            if init[v] != init[u]:
                first = init[v] > init[u]
            elif cre[v, side_col] != cre[u, side_col]:
                first = cre[v, side_col] < cre[u, side_col]
            elif cre[v, score_col] != cre[u, score_col]:
                first = cre[v, score_col] > cre[u, score_col]
            else:
                first = v < u
            if not first:
                break
            order[b + 1] = u
            b -= 1
        order[b + 1] = v
