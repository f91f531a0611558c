"""The exact harm of a series of attacks (Action Point tactics), compiled once for both players
of it: :func:`caltrop.sim.points_tactics.series_of` (the Python policy) and the compiled kernel
(:mod:`caltrop.sim.fast.points_tactical`) call this same function, so both compare the same
float to the last bit (a numpy convolution and a BLAS dot product sum in an order of their own,
which a kernel could not follow).

``n`` attacks land each with its chance (``hits``); the first ``defences`` meet the defender's
cheapest defence (``defended``, the damage dealt per incoming damage after it, R40, R45), the
others only its Resistance (``undefended``). The damages add up exactly (a convolution), and a
defender with Health ``h`` and threat ``T`` loses ``T × (E[min(X, h)] / h + P(X ≥ h))``
(:func:`caltrop.sim.tactics.harm`'s unit); P(X ≥ h) is the chance it goes down.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def series_harm(
    defended: np.ndarray,
    undefended: np.ndarray,
    hits: np.ndarray,
    defences: int,
    health: int,
    threat: float,
    a: np.ndarray,
    b: np.ndarray,
) -> tuple[float, float]:
    """(harm, P(down)) of ``len(hits)`` attacks; ``a`` and ``b`` are scratch arrays of at least
    ``len(hits) × (len(defended) − 1) + 1`` floats (their contents are overwritten)."""
    size = defended.shape[0]
    a[0] = 1.0
    length = 1
    for k in range(hits.shape[0]):
        p = hits[k]
        one = defended if k < defences else undefended
        out_len = length + size - 1
        for m in range(out_len):
            b[m] = 0.0
        for j in range(size):
            # the attack's damage j: it lands with chance p (a miss deals 0)
            w = one[j] * p if p < 1.0 else one[j]
            if j == 0 and p < 1.0:
                w = w + (1.0 - p)
            if w == 0.0:
                continue
            for m in range(length):
                b[m + j] += a[m] * w
        for m in range(out_len):
            a[m] = b[m]
        length = out_len
    if health <= 0:
        return 0.0, 1.0
    capped = 0.0
    kill = 0.0
    for m in range(length):
        capped += (m if m < health else health) * a[m]
        if m >= health:
            kill += a[m]
    return threat * (capped / health + kill), kill


__all__ = ["series_harm"]
