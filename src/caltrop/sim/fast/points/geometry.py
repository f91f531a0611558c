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
from typing import Any

from llvmlite import ir  # type: ignore[import-untyped]
from numba import njit, types
from numba.extending import intrinsic

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


@intrinsic
def _bits(typingctx: Any, x: Any) -> Any:
    """The IEEE 754 bits of a float64, as an int64 (a bit cast: no arithmetic)."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(types.float64), codegen


@intrinsic
def _from_bits(typingctx: Any, x: Any) -> Any:
    """The float64 of IEEE 754 bits (the inverse of :func:`_bits`)."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.int64), codegen


#: the smallest normal float64 (C's ``DBL_MIN``)
_DBL_MIN = 2.2250738585072014e-308


@njit(cache=True)
def hypot(a: float, b: float) -> float:
    """``math.hypot(a, b)`` exactly as CPython 3.11 computes it (finite arguments).

    ``frexp``'s exponent and ``ldexp(1.0, -e)`` are read from and written into the float's
    bits where it is normal (the same numbers, without two calls into the C library: the
    distances are about a quarter of the Action Point tactical kernel's time); subnormal
    arguments are scaled by ``DBL_MIN`` first, as CPython does."""
    a = abs(a)
    b = abs(b)
    big = max(a, b)
    if big == 0.0:
        return big
    e = ((_bits(big) >> 52) & 0x7FF) - 1022  # type: ignore[call-arg]  # big = m * 2**e
    factor = 1.0
    if -1021 <= e <= 1021:
        scale = _from_bits((1023 - e) << 52)  # 2**-e
    else:
        _, e = math.frexp(big)
        if e < -1023:  # ldexp(1.0, -e) would overflow: CPython scales the subnormals up
            a, b = a / _DBL_MIN, b / _DBL_MIN
            _, e = math.frexp(max(a, b))
            factor = _DBL_MIN
        scale = math.ldexp(1.0, -e)
    return factor * _norm(a, b, scale)  # 1.0 * x is x, to the bit


@njit(cache=True, inline="always")
def _norm(a: float, b: float, scale: float) -> float:
    """CPython 3.11's ``vector_norm`` of (a, b) ≥ 0 with its power-of-two ``scale``."""
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
