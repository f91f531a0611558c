"""Python's float arithmetic of positions, bit for bit, in numba (R34, R35).

The engine measures distances with :func:`math.hypot` and rounds move destinations with
``round(x, 2)``; numba's ``math.hypot`` (the C library's) and ``round`` differ from CPython's in
the last bit now and then, and one bit decides a tie at 1.5 m (adjacency) or at a whole meter (the
ranged DC, rounded up). :func:`hypot` is CPython 3.11's ``vector_norm`` for two coordinates
(Dekker's exact products and a differential correction) and :func:`round2` CPython's
correctly rounded ``round(x, 2)`` (half-even on the exact binary value).
"""

from __future__ import annotations

import math

from numba import njit

_SPLIT = 134217729.0  # 2**27 + 1 (Veltkamp)


@njit(cache=True, inline="always")
def _split(x: float) -> tuple[float, float]:
    t = x * _SPLIT
    hi = t - (t - x)
    return hi, x - hi


@njit(cache=True, inline="always")
def _mul(x: float, y: float) -> tuple[float, float]:
    """Dekker's exact product: ``x * y == hi + lo`` exactly."""
    xh, xl = _split(x)
    yh, yl = _split(y)
    p = xh * yh
    q = xh * yl + xl * yh
    z = p + q
    zz = p - z + q + xl * yl
    return z, zz


@njit(cache=True, inline="always")
def _fast_sum(a: float, b: float) -> tuple[float, float]:
    x = a + b
    return x, (a - x) + b


@njit(cache=True)
def hypot(a: float, b: float) -> float:
    """``math.hypot(a, b)`` exactly as CPython 3.11 computes it (finite arguments)."""
    a = abs(a)
    b = abs(b)
    big = max(a, b)
    if big == 0.0:
        return big
    _, e = math.frexp(big)
    scale = math.ldexp(1.0, -e)
    csum = 1.0
    frac1 = 0.0
    frac2 = 0.0
    for k in range(2):
        x = (a if k == 0 else b) * scale
        hi, lo = _mul(x, x)
        csum, slo = _fast_sum(csum, hi)
        frac1 += lo
        frac2 += slo
    h = math.sqrt(csum - 1.0 + (frac1 + frac2))
    hi, lo = _mul(-h, h)
    csum, slo = _fast_sum(csum, hi)
    frac1 += lo
    frac2 += slo
    x = csum - 1.0 + (frac1 + frac2)
    h += x / (2.0 * h)
    return h / scale


@njit(cache=True)
def round2(x: float) -> float:
    """``round(x, 2)`` exactly as CPython computes it (correctly rounded, ties to even)."""
    y = x * 100.0
    hi, lo = _mul(x, 100.0)  # x * 100 == hi + lo exactly
    err = (hi - y) + lo  # the sign of x * 100 - y (0 only when y is exact)
    k = float(math.floor(y))
    frac = y - k
    if frac > 0.5 or (frac == 0.5 and (err > 0.0 or (err == 0.0 and k % 2.0 != 0.0))):
        k += 1.0
    return k / 100.0


@njit(cache=True)
def ceil_int(x: float) -> int:
    return math.ceil(x)
