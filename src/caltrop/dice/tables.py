"""The GM's odds reference: P(success) by pool size × DC and expected damage by pool × Evasion.

Built incrementally (pool n is pool n−1 plus one d4), so a whole table costs one convolution per
row. :func:`success_table` and :func:`damage_table` have a float64 path (default) and an exact
``Fraction`` path (``exact=True``) from the same backends as :mod:`caltrop.dice.distribution`.

The float path never materialises per-row objects. It keeps one 2-D array of *tails*,
``P(total ≥ t)`` for every pool and every total ``t``, because a tail obeys the same recurrence
as a PMF: ``P(X + d4 ≥ t)`` is the mean of ``P(X ≥ t − k)`` for k = 1‥4, so each row is one
sliding mean (``np.correlate``) of the row above. Every value is a sum of non-negative terms, so
small upper tails keep their relative accuracy. Expected damage then needs no matrix product:
``E[max(0, X − e)] = Σ_{t > e} P(X ≥ t)``, one reverse cumulative sum along the rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate

import numpy as np
import numpy.typing as npt

from caltrop.dice.ast import Expr
from caltrop.dice.backends import ExactPMF, FloatArray, FloatPMF
from caltrop.dice.distribution import distribution
from caltrop.dice.parse import parse


@dataclass(frozen=True, slots=True)
class OddsTable:
    """``values[i][j]`` for pool ``pools[i]`` d4 (+ ``extra``) and column ``columns[j]``.

    ``values`` is a read-only float64 array, or a tuple of tuples of ``Fraction`` when exact.
    """

    title: str
    extra: str | None
    pools: range
    columns: range
    values: FloatArray | tuple[tuple[Fraction, ...], ...]

    def value(self, pool: int, column: int) -> float | Fraction:
        v = self.values[self.pools.index(pool)][self.columns.index(column)]
        return v if isinstance(v, Fraction) else float(v)


def _extra(extra: Expr | str | None) -> Expr | None:
    if extra is None or extra == "":
        return None
    return parse(extra) if isinstance(extra, str) else extra


def _arange(r: range) -> npt.NDArray[np.int64]:
    out: npt.NDArray[np.int64] = np.arange(r.start, r.stop, r.step, dtype=np.int64)
    return out


# -- float64 ---------------------------------------------------------------------------------------

_QUARTER = np.full(4, 0.25)
_QUARTER.setflags(write=False)
#: Leading columns of every tail row that are certain (P = 1): the d4 recurrence reads 4 back.
_LEAD = 4


def _float_tails(smallest: int, largest: int, extra: Expr | None) -> tuple[FloatArray, int]:
    """Tails of ``n``d4 + extra for n = smallest‥largest, and ``base``, the total of column 0.

    ``tails[n − smallest, c] = P(total ≥ base + c)``. Columns ``0‥3`` are totals at or below the
    smallest pool's minimum (exactly 1) and the last column is one past the largest pool's
    maximum (exactly 0), so clipping a column index to the array gives the right tail.
    """
    first = FloatPMF.dice(smallest, 4)
    if extra is not None:
        first = first.add(distribution(extra)._in(FloatPMF))
    rows = largest - smallest + 1
    length = len(first.probs)
    base = first.offset - (_LEAD - 1)
    width = _LEAD + length + 4 * (rows - 1)
    tails = np.zeros((rows, width))
    tails[:, :_LEAD] = 1.0
    tails[0, _LEAD - 1 : _LEAD - 1 + length] = np.cumsum(first.probs[::-1])[::-1]
    tails[0, _LEAD - 1] = 1.0  # P(total ≥ min) is 1, not the rounded sum of the PMF
    # P(X + d4 ≥ t) is the mean of P(X ≥ t − k) for k = 1‥4: a sliding mean of the row above.
    for above, row in zip(tails[:-1, :-1], tails[1:, _LEAD:], strict=True):
        row[...] = np.correlate(above, _QUARTER)
    return tails, base


def _float_rows(pools: range, extra: Expr | None) -> tuple[FloatArray, int]:
    """The tails of :func:`_float_tails` for each pool of ``pools``, in ``pools`` order."""
    smallest, largest = min(pools[0], pools[-1]), max(pools[0], pools[-1])
    tails, base = _float_tails(smallest, largest, extra)
    if pools.step == 1:
        return tails, base
    return tails[_arange(pools) - smallest], base


def _clip(a: npt.NDArray[np.int64], lo: int, hi: int) -> npt.NDArray[np.int64]:
    """``np.clip`` for indices, without its per-call overhead (a few µs per table)."""
    out: npt.NDArray[np.int64] = np.minimum(np.maximum(a, lo), hi)
    return out


def _frozen(a: FloatArray) -> FloatArray:
    a.setflags(write=False)
    return a


def _float_success(pools: range, dcs: range, extra: Expr | None) -> FloatArray:
    if not pools:
        return _frozen(np.zeros((0, len(dcs))))
    tails, base = _float_rows(pools, extra)
    cols = _clip(_arange(dcs) - base, _LEAD - 1, tails.shape[1] - 1)
    return _frozen(tails[:, cols])


def _float_damage(pools: range, evasions: range, extra: Expr | None) -> FloatArray:
    if not pools:
        return _frozen(np.zeros((0, len(evasions))))
    tails, base = _float_rows(pools, extra)
    # beyond[:, c] = Σ_{t ≥ base + c} P(total ≥ t) = E[max(0, total − (base + c − 1))]
    beyond = np.cumsum(tails[:, ::-1], axis=1)[:, ::-1]
    first = _arange(evasions) + 1 - base  # the column of t = evasion + 1
    # Below column 0 every total beats the Evasion: add 1 per certain total that is not stored.
    values = beyond[:, _clip(first, 0, beyond.shape[1] - 1)] + np.maximum(-first, 0)
    return _frozen(values)


# -- exact -----------------------------------------------------------------------------------------

_ZERO = Fraction(0)
_ONE = Fraction(1)


def _exact_rows(pools: range, extra: Expr | None) -> list[tuple[int, list[int], int]]:
    """``(offset, tail counts, denominator)`` of ``n``d4 + extra for each n of ``pools``, in order.

    ``tail[k] / denominator = P(total ≥ offset + k)``. Counts come from one big-integer power for
    the smallest pool, then one d4 step per larger pool (a sliding sum of four counts).
    """
    if not pools:
        return []
    smallest, largest = min(pools[0], pools[-1]), max(pools[0], pools[-1])
    pmf = ExactPMF.dice(smallest, 4)
    if extra is not None:
        pmf = pmf.add(distribution(extra)._in(ExactPMF))
    offset, counts, denominator = pmf.offset, list(pmf.counts), pmf.denominator
    wanted = set(pools)
    found: dict[int, tuple[int, list[int], int]] = {}
    for n in range(smallest, largest + 1):
        if n > smallest:
            # counts of X + d4: new[k] = c[k] + c[k−1] + c[k−2] + c[k−3] = prefix[k+1] − prefix[k−3]
            prefix = [0, *accumulate(counts)]
            size = len(counts)
            counts = [prefix[min(k + 1, size)] - prefix[max(k - 3, 0)] for k in range(size + 3)]
            offset += 1
            denominator *= 4
        if n in wanted:
            found[n] = (offset, list(accumulate(reversed(counts)))[::-1], denominator)
    return [found[n] for n in pools]


def _exact_success(
    pools: range, dcs: range, extra: Expr | None
) -> tuple[tuple[Fraction, ...], ...]:
    rows: list[tuple[Fraction, ...]] = []
    for offset, tail, denominator in _exact_rows(pools, extra):
        size = len(tail)
        rows.append(
            tuple(
                _ONE
                if (k := dc - offset) <= 0
                else _ZERO
                if k >= size
                else Fraction(tail[k], denominator)
                for dc in dcs
            )
        )
    return tuple(rows)


def _exact_damage(
    pools: range, evasions: range, extra: Expr | None
) -> tuple[tuple[Fraction, ...], ...]:
    rows: list[tuple[Fraction, ...]] = []
    for offset, tail, denominator in _exact_rows(pools, extra):
        # beyond[k] / denominator = Σ_{t ≥ offset + k} P(total ≥ t) = E[max(0, total − (offset+k−1))]
        beyond = list(accumulate(reversed(tail)))[::-1]
        size = len(beyond)
        rows.append(
            tuple(
                _ZERO
                if (k := ev + 1 - offset) >= size
                else Fraction(beyond[max(k, 0)] + max(-k, 0) * denominator, denominator)
                for ev in evasions
            )
        )
    return tuple(rows)


# -- public ----------------------------------------------------------------------------------------


def success_table(
    pools: range, dcs: range, extra: Expr | str | None = None, *, exact: bool = False
) -> OddsTable:
    """P(total ≥ DC) for every pool × DC (a check succeeds iff the total meets or beats the DC)."""
    ex = _extra(extra)
    label = str(ex) if ex else None
    if exact:
        return OddsTable("P(total ≥ DC)", label, pools, dcs, _exact_success(pools, dcs, ex))
    return OddsTable("P(total ≥ DC)", label, pools, dcs, _float_success(pools, dcs, ex))


def damage_table(
    pools: range, evasions: range, extra: Expr | str | None = None, *, exact: bool = False
) -> OddsTable:
    """Expected damage E[max(0, total − Evasion)] for every pool × Evasion (R16)."""
    ex = _extra(extra)
    label = str(ex) if ex else None
    if exact:
        return OddsTable(
            "expected damage", label, pools, evasions, _exact_damage(pools, evasions, ex)
        )
    return OddsTable("expected damage", label, pools, evasions, _float_damage(pools, evasions, ex))
