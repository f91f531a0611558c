"""Statistics of simulated encounters: pure functions over plain numbers and numpy arrays.

* :func:`wilson` — the Wilson score interval of a proportion (win rates).
* :func:`paired_difference` — the difference of two proportions measured on **paired** runs
  (encounter *i* of every variant uses the same random streams). With ``d_i = a_i − b_i`` in
  {−1, 0, 1} the interval is ``mean(d) ± z·sd(d)/√n`` (the Wald interval of a paired mean, i.e.
  the normal approximation to the McNemar-type comparison). It is the interval Caltrop reports:
  with the thousands of runs a simulation makes it is accurate, and it uses the pairing — the
  discordant pairs only — so it is much narrower than comparing two independent Wilson
  intervals. :func:`newcombe_paired` gives Newcombe's (1998, method 10) score-based interval for
  the same quantity, better behaved for small *n* or rates near 0 or 1.
* :func:`mcnemar_exact` — the exact two-sided McNemar test of paired 0/1 outcomes (the sign
  test of the discordant pairs), for head-to-head comparisons with few encounters.
* :func:`distribution_summary` — mean, median, 90th percentile and histogram (rounds).
* :func:`holm` — Holm's step-down adjustment of p-values, for sweeps that name a best value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np
import numpy.typing as npt

#: The z of a two-sided 95% interval.
Z95 = NormalDist().inv_cdf(0.975)


def z_for(confidence: float) -> float:
    """The two-sided normal quantile for ``confidence`` (0.95 → 1.959…)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


@dataclass(frozen=True, slots=True)
class Interval:
    """An estimate with its confidence interval."""

    estimate: float
    lo: float
    hi: float

    def contains(self, value: float) -> bool:
        return self.lo <= value <= self.hi

    def as_dict(self, name: str = "p") -> dict[str, float]:
        return {name: self.estimate, "lo": self.lo, "hi": self.hi}


def wilson(successes: float, n: int, *, confidence: float = 0.95) -> Interval:
    """The Wilson score interval of ``successes / n`` (Wilson 1927).

    ``successes`` may be fractional (a draw counted as half a win). Unlike the Wald interval it
    never leaves [0, 1] and is not degenerate at 0 or n successes.
    """
    if n <= 0:
        raise ValueError("a proportion needs n ≥ 1")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be between 0 and n={n}, not {successes}")
    z = z_for(confidence)
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)  # exact ends, no rounding residue
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return Interval(p, lo, hi)


def paired_difference(a: npt.ArrayLike, b: npt.ArrayLike, *, confidence: float = 0.95) -> Interval:
    """``mean(b) − mean(a)`` on paired runs, with ``mean(d) ± z·sd(d)/√n`` for ``d = b − a``.

    ``a`` and ``b`` hold one outcome per encounter (1 win, 0 loss; any numbers work, so the
    same function gives the paired difference of mean fight length). With n = 1 or identical
    runs the interval is the point itself.
    """
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("paired samples must be one-dimensional and of the same length")
    n = x.size
    if n == 0:
        raise ValueError("paired samples must not be empty")
    d = y - x
    mean = float(d.mean())
    if n == 1:
        return Interval(mean, mean, mean)
    sd = float(d.std(ddof=1))
    half = z_for(confidence) * sd / math.sqrt(n)
    return Interval(mean, mean - half, mean + half)


def paired_p_value(a: npt.ArrayLike, b: npt.ArrayLike) -> float:
    """Two-sided p-value of H0: mean(b − a) = 0 (the z-test of the paired differences)."""
    d = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
    n = d.size
    if n < 2:
        return 1.0
    sd = float(d.std(ddof=1))
    mean = float(d.mean())
    if sd == 0.0:
        return 1.0 if mean == 0.0 else 0.0
    z = abs(mean) / (sd / math.sqrt(n))
    return 2 * (1 - NormalDist().cdf(z))


def mcnemar_exact(a: npt.ArrayLike, b: npt.ArrayLike) -> float:
    """Exact two-sided p-value of H0: ``P(a wins, b loses) = P(a loses, b wins)`` on paired
    0/1 outcomes (McNemar's test, exact: under H0 each discordant pair goes either way with
    probability ½, so their split is Binomial(discordant, ½)). Concordant pairs carry no
    information; with no discordant pair the p-value is 1."""
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("paired samples must be one-dimensional and of the same length")
    if not (np.isin(x, (0.0, 1.0)).all() and np.isin(y, (0.0, 1.0)).all()):
        raise ValueError("McNemar's test takes 0/1 outcomes")
    up = int(((y == 1) & (x == 0)).sum())
    down = int(((y == 0) & (x == 1)).sum())
    m = up + down
    if m == 0:
        return 1.0
    tail = sum(math.comb(m, k) for k in range(min(up, down) + 1))
    return min(1.0, 2 * tail / (1 << m))  # exact integers: no float overflow past 1,023 pairs


def newcombe_paired(a: npt.ArrayLike, b: npt.ArrayLike, *, confidence: float = 0.95) -> Interval:
    """Newcombe's (1998) method 10 for the difference of paired proportions ``p_b − p_a``.

    ``a`` and ``b`` are 0/1 outcomes. Built from the Wilson intervals of both margins with a
    correction for the correlation of the pairs; a score-type interval that stays within
    [−1, 1] and behaves well for small samples.
    """
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1 or x.size == 0:
        raise ValueError("paired samples must be one-dimensional, non-empty, of the same length")
    if not (np.isin(x, (0.0, 1.0)).all() and np.isin(y, (0.0, 1.0)).all()):
        raise ValueError("newcombe_paired needs 0/1 outcomes")
    n = x.size
    # the paired 2×2 table, "1" meaning variant b, "2" variant a (the difference is p1 − p2)
    r = float(np.sum((x == 1) & (y == 1)))
    s = float(np.sum((x == 0) & (y == 1)))
    t = float(np.sum((x == 1) & (y == 0)))
    u = n - r - s - t
    p1, p2 = (r + s) / n, (r + t) / n
    w1 = wilson(r + s, n, confidence=confidence)
    w2 = wilson(r + t, n, confidence=confidence)
    diff = p1 - p2
    # Newcombe's continuity-corrected estimate of the correlation φ of the pairs
    phi = 0.0
    margins = (r + s) * (t + u) * (r + t) * (s + u)
    if margins > 0:
        b = r * u - s * t
        c = b - n / 2 if b > n / 2 else (b if b < 0 else 0.0)
        phi = c / math.sqrt(margins)
    dl = math.sqrt(
        max(0.0, (p1 - w1.lo) ** 2 - 2 * phi * (p1 - w1.lo) * (w2.hi - p2) + (w2.hi - p2) ** 2)
    )
    du = math.sqrt(
        max(0.0, (p2 - w2.lo) ** 2 - 2 * phi * (p2 - w2.lo) * (w1.hi - p1) + (w1.hi - p1) ** 2)
    )
    return Interval(diff, max(-1.0, diff - dl), min(1.0, diff + du))


def one_sample_p_value(successes: float, n: int, target: float) -> float:
    """Two-sided p-value of H0: p = ``target`` (the score z-test of a proportion)."""
    if n <= 0:
        raise ValueError("a proportion needs n ≥ 1")
    if not 0.0 < target < 1.0:
        return 1.0 if successes / n == target else 0.0
    z = (successes / n - target) / math.sqrt(target * (1 - target) / n)
    return 2 * (1 - NormalDist().cdf(abs(z)))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's (1979) step-down adjusted p-values, in the input order.

    Sorted ascending, the k-th smallest (0-based) is multiplied by ``m − k``; the running
    maximum keeps the adjusted values monotone; each is capped at 1. Reject H_i at level α iff
    its adjusted p-value ≤ α: the family-wise error rate stays ≤ α.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        p = p_values[i]
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"a p-value is between 0 and 1, not {p}")
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[i] = running
    return adjusted


def distribution_summary(values: npt.ArrayLike) -> dict[str, Any]:
    """Mean, median, 90th percentile (nearest-rank: a value that occurred), min, max and the
    histogram ``{value: count}`` of integer data such as rounds per encounter."""
    x = np.asarray(values)
    if x.size == 0:
        raise ValueError("no values to summarise")
    ordered = np.sort(x)
    rank = max(1, math.ceil(0.9 * x.size))  # nearest-rank percentile
    counts = np.bincount(x.astype(np.int64) - int(ordered[0]))
    histogram = {int(ordered[0]) + k: int(c) for k, c in enumerate(counts.tolist()) if c}
    return {
        "mean": float(x.mean()),
        "median": float(np.median(x)),
        "p90": float(ordered[rank - 1]),
        "min": int(ordered[0]),
        "max": int(ordered[-1]),
        "histogram": histogram,
    }


def mean_interval(values: npt.ArrayLike, *, confidence: float = 0.95) -> Interval:
    """The mean with its normal-approximation interval (mean ± z·sd/√n)."""
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        raise ValueError("no values")
    mean = float(x.mean())
    if x.size == 1:
        return Interval(mean, mean, mean)
    half = z_for(confidence) * float(x.std(ddof=1)) / math.sqrt(x.size)
    return Interval(mean, mean - half, mean + half)
