"""The two arithmetic backends behind every distribution: float64 (numpy) and exact (integers).

A probability mass function (PMF) is an ``offset`` (the smallest outcome) and weights for the
outcomes ``offset, offset+1, …``. Each mechanic (sum, negate, scale, divide rounding up, clamp,
dodge) is written once per backend here and used once by :mod:`caltrop.dice.distribution`, so the
exact odds and the float odds come from the same fold over the expression.

* :class:`FloatPMF` holds probabilities as a read-only float64 array; sums are ``np.convolve``.
* :class:`ExactPMF` holds integer counts over an integer denominator (``4**n`` for ``n`` d4s).
  Products of polynomials are computed by Kronecker substitution — pack the counts into one big
  Python integer, multiply, unpack — which is exact and far faster than convolving Fractions.
"""

from __future__ import annotations

import decimal
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def _frozen(a: FloatArray) -> FloatArray:
    a.setflags(write=False)
    return a


@dataclass(frozen=True, slots=True, eq=False)
class FloatPMF:
    """Probabilities of ``offset + i`` in ``probs[i]`` (float64, read-only, sums to 1)."""

    offset: int
    probs: FloatArray

    @staticmethod
    def die(sides: int) -> FloatPMF:
        return FloatPMF(1, _frozen(np.full(sides, 1.0 / sides)))

    @staticmethod
    def dice(count: int, sides: int) -> FloatPMF:
        """The sum of ``count`` dice of ``sides`` faces (as :meth:`ExactPMF.dice`)."""
        return FloatPMF.die(sides).power(count)

    @staticmethod
    def const(value: int) -> FloatPMF:
        return FloatPMF(value, _frozen(np.ones(1)))

    def add(self, other: FloatPMF) -> FloatPMF:
        return FloatPMF(self.offset + other.offset, _frozen(np.convolve(self.probs, other.probs)))

    def power(self, n: int) -> FloatPMF:
        """The sum of ``n`` independent copies (``n >= 0``), by repeated squaring."""
        if n < 0:
            raise ValueError(f"cannot sum {n} dice")
        result = FloatPMF.const(0)
        base = self
        while n:
            if n & 1:
                result = result.add(base)
            n >>= 1
            if n:
                base = base.add(base)
        return result

    def negate(self) -> FloatPMF:
        return FloatPMF(-(self.offset + len(self.probs) - 1), _frozen(self.probs[::-1].copy()))

    def scale(self, k: int) -> FloatPMF:
        """Distribution of ``k * X`` for an integer ``k >= 1``."""
        out = np.zeros((len(self.probs) - 1) * k + 1)
        out[::k] = self.probs
        return FloatPMF(self.offset * k, _frozen(out))

    def div_ceil(self, k: int) -> FloatPMF:
        """Distribution of ``ceil(X / k)``."""
        lo = -(-self.offset // k)
        hi = -(-(self.offset + len(self.probs) - 1) // k)
        idx = -(-np.arange(self.offset, self.offset + len(self.probs)) // k) - lo
        out = np.bincount(idx, weights=self.probs, minlength=hi - lo + 1).astype(np.float64)
        return FloatPMF(lo, _frozen(out))

    def clamp_min(self, floor: int) -> FloatPMF:
        """Distribution of ``max(floor, X)``."""
        top = self.offset + len(self.probs) - 1
        if self.offset >= floor:
            return self
        if top <= floor:
            return FloatPMF.const(floor)
        cut = floor - self.offset
        out = self.probs[cut:].copy()
        out[0] = self.probs[: cut + 1].sum()
        return FloatPMF(floor, _frozen(out))

    def dodge(self, defence: FloatPMF) -> FloatPMF:
        """Distribution of ``D if B < D else 0`` for this ``D`` and an independent ``B``."""
        values = np.arange(self.offset, self.offset + len(self.probs))
        cdf = np.concatenate(([0.0], np.cumsum(defence.probs)))
        # P(B < d) = P(B <= d-1) = cdf[index of d-1 in defence, clipped]
        below = cdf[np.clip(values - defence.offset, 0, len(defence.probs))]
        kept = self.probs * below
        lo = min(0, self.offset)
        hi = max(0, self.offset + len(self.probs) - 1)
        out = np.zeros(hi - lo + 1)
        out[values - lo] += kept
        out[0 - lo] += 1.0 - kept.sum()
        return FloatPMF(lo, _frozen(out))


def _pack(counts: tuple[int, ...], width: int) -> int:
    return int.from_bytes(b"".join(c.to_bytes(width, "little") for c in counts), "little")


def _unpack(value: int, width: int, length: int) -> tuple[int, ...]:
    raw = value.to_bytes(width * length, "little")
    return tuple(int.from_bytes(raw[i : i + width], "little") for i in range(0, len(raw), width))


#: Past this many bits in the smaller packed operand, :meth:`ExactPMF.add` multiplies in
#: :mod:`decimal`, whose libmpdec switches to a number-theoretic transform for huge operands
#: (O(N log N)); CPython's own integers multiply by Karatsuba (O(N**1.58)): 500d21+500d20, two
#: 10,001-count polynomials of ~2,200-bit counts, took 73 s as one ``int`` product, 2.5 s so.
_NTT_BITS = 1 << 20
#: A count in decimal digits must stay under CPython's int/str conversion limit (4,300 digits).
_NTT_MAX_DIGITS = 4000
_LOG10_2 = 0.30103
_EXACT = decimal.Context(
    prec=decimal.MAX_PREC,
    Emax=decimal.MAX_EMAX,
    Emin=decimal.MIN_EMIN,
    traps=[decimal.Inexact, decimal.Rounded, decimal.Overflow, decimal.InvalidOperation],
)


#: At most this many counts in the smaller polynomial, beside one at least 8 times longer, are
#: multiplied term by term (:func:`_convolve_few`).
_DIRECT = 64


def _convolve_few(few: tuple[int, ...], many: tuple[int, ...]) -> tuple[int, ...]:
    """The product of a polynomial of few counts and one of many, term by term: a small-by-big
    multiplication a pair. Packing both into integers multiplied each big count as a whole
    integer many times over (issue 21 item 6: ``940d12+(33d8)-1d661`` took 32 s)."""
    out = [0] * (len(few) + len(many) - 1)
    for j, c in enumerate(few):
        if c:
            for i, v in enumerate(many, j):
                out[i] += c * v
    return tuple(out)


def _product_ntt(a: tuple[int, ...], b: tuple[int, ...], width: int) -> tuple[int, ...]:
    """The coefficients of the product of two count polynomials, exactly: each packed into one
    decimal integer, ``digits`` decimal places a count (enough for any coefficient of the
    product, as ``width`` bytes are), multiplied by libmpdec and read back."""
    digits = int(8 * width * _LOG10_2) + 2

    def packed(counts: tuple[int, ...]) -> decimal.Decimal:
        return decimal.Decimal("".join(str(c).zfill(digits) for c in reversed(counts)))

    text = format(_EXACT.multiply(packed(a), packed(b)), "f")
    length = len(a) + len(b) - 1
    text = text.zfill(length * digits)
    end = len(text)
    return tuple(int(text[end - (i + 1) * digits : end - i * digits]) for i in range(length))


@dataclass(frozen=True, slots=True)
class ExactPMF:
    """Exact PMF: outcome ``offset + i`` has probability ``counts[i] / denominator``."""

    offset: int
    counts: tuple[int, ...]
    denominator: int

    @staticmethod
    def die(sides: int) -> ExactPMF:
        return ExactPMF(1, (1,) * sides, sides)

    @staticmethod
    def const(value: int) -> ExactPMF:
        return ExactPMF(value, (1,), 1)

    def _width(self, other: ExactPMF) -> int:
        bound = min(len(self.counts), len(other.counts)) * max(self.counts) * max(other.counts)
        return bound.bit_length() // 8 + 1

    def add(self, other: ExactPMF) -> ExactPMF:
        """The sum of two independent outcomes: the product of their count polynomials."""
        few, many = sorted((self.counts, other.counts), key=len)
        if len(few) <= _DIRECT and len(many) >= 8 * len(few):
            counts = _convolve_few(few, many)
            return ExactPMF(
                self.offset + other.offset, counts, self.denominator * other.denominator
            )
        width = self._width(other)
        length = len(self.counts) + len(other.counts) - 1
        smaller = min(len(self.counts), len(other.counts)) * width * 8
        if smaller > _NTT_BITS and 8 * width * _LOG10_2 < _NTT_MAX_DIGITS:
            counts = _product_ntt(self.counts, other.counts, width)
        else:
            product = _pack(self.counts, width) * _pack(other.counts, width)
            counts = _unpack(product, width, length)
        return ExactPMF(self.offset + other.offset, counts, self.denominator * other.denominator)

    def add_dice(self, count: int, sides: int, sign: int = 1) -> ExactPMF:
        """The sum with ``count`` dice of ``sides`` faces (subtracted if ``sign`` is −1), one
        die at a time: each die is a window of ``sides`` counts slid over prefix sums, two big
        additions a total. A product of a few small counts by many big ones multiplies every big
        count (issue 21 item 6: 50d6+906d20 took 21 s packed, 6 s by the transform; this way
        50 passes of additions)."""
        counts = self.counts
        for _ in range(count):
            prefix = [0]
            acc = 0
            for c in counts:
                acc += c
                prefix.append(acc)
            n = len(counts)
            counts = tuple(
                prefix[min(m + 1, n)] - prefix[max(0, m - sides + 1)] for m in range(n + sides - 1)
            )
        shift = count if sign > 0 else -sides * count
        return ExactPMF(self.offset + shift, counts, self.denominator * sides**count)

    @staticmethod
    def dice(count: int, sides: int) -> ExactPMF:
        """The sum of ``count`` dice of ``sides`` faces, in work linear in its size.

        The counts are the coefficients of P = A**n with A = 1 + x + … + x**(s−1) =
        (1 − x**s)/(1 − x). From P′·A = n·A′·P, multiplied through by (1 − x)(1 − x**s):

            (m+1)·p[m+1] = (m+n)·p[m] + (m − s + 1 − n·s)·p[m−s+1] + (n·(s−1) − m + s)·p[m−s]

        (terms of a negative index are 0; the division is exact). Each count costs three
        small-by-big multiplications, so the whole is O(totals × bits of a count), where the
        big-integer power of :meth:`power` (Karatsuba, no FFT in CPython) took a minute for
        1000d21 (issue 21). The counts are symmetric, so half are computed and mirrored.
        """
        if count < 0:
            raise ValueError(f"cannot sum {count} dice")
        if sides < 1:
            raise ValueError(f"a die has at least 1 side, not {sides}")
        n, s = count, sides
        length = n * (s - 1) + 1
        counts = [0] * length
        counts[0] = 1
        half = (length - 1) // 2  # counts[0..half] computed; the rest mirror them
        for m in range(half):
            total = (m + n) * counts[m]
            if m - s + 1 >= 0:
                total += (m - s + 1 - n * s) * counts[m - s + 1]
            if m - s >= 0:
                total += (n * (s - 1) - m + s) * counts[m - s]
            counts[m + 1] = total // (m + 1)
        for k in range(half + 1, length):
            counts[k] = counts[length - 1 - k]
        return ExactPMF(n, tuple(counts), s**n)

    def power(self, n: int) -> ExactPMF:
        """The sum of ``n`` independent copies: one big-integer power of the packed polynomial."""
        if n < 0:
            raise ValueError(f"cannot sum {n} dice")
        if n == 0:
            return ExactPMF.const(0)
        # Every coefficient of P**n is at most (sum of counts)**n.
        width = (sum(self.counts) ** n).bit_length() // 8 + 1
        length = (len(self.counts) - 1) * n + 1
        counts = _unpack(_pack(self.counts, width) ** n, width, length)
        return ExactPMF(self.offset * n, counts, self.denominator**n)

    def negate(self) -> ExactPMF:
        return ExactPMF(-(self.offset + len(self.counts) - 1), self.counts[::-1], self.denominator)

    def scale(self, k: int) -> ExactPMF:
        out = [0] * ((len(self.counts) - 1) * k + 1)
        out[::k] = self.counts
        return ExactPMF(self.offset * k, tuple(out), self.denominator)

    def div_ceil(self, k: int) -> ExactPMF:
        lo = -(-self.offset // k)
        hi = -(-(self.offset + len(self.counts) - 1) // k)
        out = [0] * (hi - lo + 1)
        for i, c in enumerate(self.counts):
            out[-(-(self.offset + i) // k) - lo] += c
        return ExactPMF(lo, tuple(out), self.denominator)

    def clamp_min(self, floor: int) -> ExactPMF:
        top = self.offset + len(self.counts) - 1
        if self.offset >= floor:
            return self
        if top <= floor:
            return ExactPMF(floor, (self.denominator,), self.denominator)
        cut = floor - self.offset
        out = (sum(self.counts[: cut + 1]), *self.counts[cut + 1 :])
        return ExactPMF(floor, out, self.denominator)

    def dodge(self, defence: ExactPMF) -> ExactPMF:
        below = [0]
        for c in defence.counts:
            below.append(below[-1] + c)
        lo = min(0, self.offset)
        hi = max(0, self.offset + len(self.counts) - 1)
        out = [0] * (hi - lo + 1)
        denominator = self.denominator * defence.denominator
        kept_total = 0
        for i, c in enumerate(self.counts):
            d = self.offset + i
            kept = c * below[min(max(d - defence.offset, 0), len(defence.counts))]
            out[d - lo] += kept
            kept_total += kept
        out[0 - lo] += denominator - kept_total
        return ExactPMF(lo, tuple(out), denominator)

    def probabilities(self) -> tuple[Fraction, ...]:
        return tuple(Fraction(c, self.denominator) for c in self.counts)
