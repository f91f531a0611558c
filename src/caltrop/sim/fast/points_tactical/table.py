"""The open-addressing hash table of the policy's numbers (:class:`~caltrop.sim.fast.
points_tactical.compile.Numbers`), built here and read by the kernel: a module of its own so
that neither the compiler nor the kernel imports the other."""

from __future__ import annotations

import numpy as np
from numba import njit

#: the multiplier of the table's hash (Fibonacci hashing)
GOLD = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def build_table(keys: np.ndarray, values: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """The open-addressing table of ``keys`` → ``values`` (2**bits slots, -1 empty)."""
    size = 1 << bits
    out_k = np.full(size, -1, np.int64)
    out_v = np.zeros((size, 3), np.float64)
    mask = size - 1
    for r in range(keys.shape[0]):
        key = keys[r]
        h = np.int64((np.uint64(key) * GOLD) >> np.uint64(64 - bits))
        while out_k[h] != -1:
            h = (h + 1) & mask
        out_k[h] = key
        for c in range(3):
            out_v[h, c] = values[r, c]
    return out_k, out_v
