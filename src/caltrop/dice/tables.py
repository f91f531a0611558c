"""The GM's odds reference: P(success) by pool size × DC and expected damage by pool × Evasion.

Built incrementally (pool n is pool n−1 plus one d4) so a whole table costs one convolution per
row; :func:`success_table` and :func:`damage_table` have a float64 path (default) and an exact
``Fraction`` path (``exact=True``) from the same backends as :mod:`caltrop.dice.distribution`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from caltrop.dice.ast import Expr
from caltrop.dice.backends import ExactPMF, FloatArray, FloatPMF
from caltrop.dice.distribution import P, distribution
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


def _pools(pools: range, extra: Expr | None, backend: type[P]) -> Iterator[P]:
    """PMF of ``n``d4 + extra for each n in ``pools`` (ascending), one convolution per step."""
    d4 = backend.die(4)
    extra_pmf = distribution(extra)._in(backend) if extra is not None else None
    current = d4.power(pools.start)
    n = pools.start
    for target in pools:
        while n < target:
            current = current.add(d4)
            n += 1
        yield current.add(extra_pmf) if extra_pmf is not None else current


def _float_at_least(pmf: FloatPMF, dcs: range) -> FloatArray:
    tail = np.concatenate((np.cumsum(pmf.probs[::-1])[::-1], [0.0]))
    idx = np.clip(np.asarray(dcs) - pmf.offset, 0, len(pmf.probs))
    out: FloatArray = tail[idx]
    return out


def success_table(
    pools: range, dcs: range, extra: Expr | str | None = None, *, exact: bool = False
) -> OddsTable:
    """P(total ≥ DC) for every pool × DC (a check succeeds iff the total meets or beats the DC)."""
    ex = _extra(extra)
    label = str(ex) if ex else None
    if exact:
        rows: list[tuple[Fraction, ...]] = []
        for e in _pools(pools, ex, ExactPMF):
            tails = [0] * (len(e.counts) + 1)
            for i in range(len(e.counts) - 1, -1, -1):
                tails[i] = tails[i + 1] + e.counts[i]
            rows.append(
                tuple(
                    Fraction(tails[min(max(dc - e.offset, 0), len(e.counts))], e.denominator)
                    for dc in dcs
                )
            )
        return OddsTable("P(total ≥ DC)", label, pools, dcs, tuple(rows))
    table = np.stack([_float_at_least(f, dcs) for f in _pools(pools, ex, FloatPMF)])
    table.setflags(write=False)
    return OddsTable("P(total ≥ DC)", label, pools, dcs, table)


def damage_table(
    pools: range, evasions: range, extra: Expr | str | None = None, *, exact: bool = False
) -> OddsTable:
    """Expected damage E[max(0, total − Evasion)] for every pool × Evasion (R16)."""
    ex = _extra(extra)
    label = str(ex) if ex else None
    if exact:
        rows: list[tuple[Fraction, ...]] = []
        for e in _pools(pools, ex, ExactPMF):
            rows.append(
                tuple(
                    Fraction(
                        sum(max(0, e.offset + i - ev) * c for i, c in enumerate(e.counts)),
                        e.denominator,
                    )
                    for ev in evasions
                )
            )
        return OddsTable("expected damage", label, pools, evasions, tuple(rows))
    ev = np.asarray(evasions)[:, None]
    out = []
    for f in _pools(pools, ex, FloatPMF):
        values = np.arange(f.offset, f.offset + len(f.probs))
        out.append(np.maximum(values[None, :] - ev, 0) @ f.probs)
    table = np.stack(out)
    table.setflags(write=False)
    return OddsTable("expected damage", label, pools, evasions, table)
