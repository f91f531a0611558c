"""The fast path's dice: SplitMix64 streams, unbiased dice, d4 pools summed 32 at a time.

Each encounter ``i`` has its own SplitMix64 stream, started from the 128-bit key of the
simulation seed and ``i`` only, so a result never depends on the number of threads or on how
encounters are split among them. A pool of d4s takes one 64-bit draw per 32 dice (a 2-bit field
per die, summed branch-free); other dice take 32 bits each by Lemire's unbiased
multiply-and-reject. Every kernel of the fast path rolls with these.
"""

from __future__ import annotations

import numpy as np
from numba import njit

GAMMA = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
U0 = np.uint64(0)
U1 = np.uint64(1)
U2 = np.uint64(2)
U4 = np.uint64(4)
U27 = np.uint64(27)
U30 = np.uint64(30)
U31 = np.uint64(31)
U32 = np.uint64(32)
U56 = np.uint64(56)
LOW32 = np.uint64(0xFFFFFFFF)
M2BITS = np.uint64(0x3333333333333333)
M4BITS = np.uint64(0x0F0F0F0F0F0F0F0F)
ONES8 = np.uint64(0x0101010101010101)


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


__all__ = ["_d4s", "_die", "stream_start"]
