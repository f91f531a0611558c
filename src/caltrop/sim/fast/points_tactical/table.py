"""The open-addressing hash table of the policy's numbers (:class:`~caltrop.sim.fast.
points_tactical.compile.Numbers`), built here and read by the kernel: a module of its own so
that neither the compiler nor the kernel imports the other."""

from __future__ import annotations

import numpy as np
from numba import njit

from caltrop.sim.harm_kernel import series_harm

#: the multiplier of the table's hash (Fibonacci hashing)
GOLD = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def build_table(keys: np.ndarray, values: np.ndarray, bits: int) -> np.ndarray:
    """The open-addressing table of ``keys`` → ``values``: 2**bits slots of four 64-bit words,
    the key (-1: empty) and its three floats' bits (read through a float64 view), so that a
    probe reads one cache line."""
    size = 1 << bits
    out = np.zeros((size, 4), np.int64)
    out[:, 0] = -1
    floats = out.view(np.float64)
    mask = size - 1
    for r in range(keys.shape[0]):
        key = keys[r]
        h = np.int64((np.uint64(key) * GOLD) >> np.uint64(64 - bits))
        while out[h, 0] != -1:
            h = (h + 1) & mask
        out[h, 0] = key
        for c in range(3):
            floats[h, c + 1] = values[r, c]
    return out


@njit(cache=True)
def series_batch(
    pmfs: np.ndarray,
    size: np.ndarray,
    defended: np.ndarray,
    undefended: np.ndarray,
    first: np.ndarray,
    later: np.ndarray,
    n: np.ndarray,
    defences: np.ndarray,
    health: np.ndarray,
    threat: np.ndarray,
) -> np.ndarray:
    """Row ``r``: (harm, P(down)) of :func:`~caltrop.sim.harm_kernel.series_harm` on the
    ``dealt_pmf`` rows ``defended[r]`` and ``undefended[r]`` of ``pmfs`` (their first
    ``size[r]`` entries), ``n[r]`` attacks landing with ``first[r]``, then ``later[r]`` — the
    numbers :func:`caltrop.sim.points_tactics.series_of` computes, with the same function."""
    m = n.shape[0]
    out = np.zeros((m, 3), np.float64)
    scratch = 16 * pmfs.shape[1] + 1
    a = np.empty(scratch, np.float64)
    b = np.empty(scratch, np.float64)
    hits = np.empty(16, np.float64)
    for r in range(m):
        for j in range(n[r]):
            hits[j] = first[r] if j == 0 else later[r]
        harm, kill = series_harm(
            pmfs[defended[r], : size[r]],
            pmfs[undefended[r], : size[r]],
            hits[: n[r]],
            defences[r],
            health[r],
            threat[r],
            a,
            b,
        )
        out[r, 0] = harm
        out[r, 1] = kill
    return out
