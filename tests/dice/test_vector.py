"""Vectorised rolling: reproducible, and its empirical distribution fits the exact PMF.

scipy is not a dependency of Caltrop (and is not installed), so the chi-square test is done by
hand: the statistic Σ (observed − expected)² / expected over bins whose expected count is at least
5, compared with a critical value from the Wilson–Hilferty approximation of the chi-square
quantile,

    χ²_df(q) ≈ df · (1 − 2/(9·df) + z_q · √(2/(9·df)))³,

at z = 5 (one-sided normal tail ≈ 2.9e-7). The approximation is conservative for small df (for
df = 1 it gives 30.9 against an exact 25.4) and within a few percent for df ≥ 5; at this level a
correct roller fails with probability well under one in a million per expression, and the seed is
fixed, so the suite is deterministic. The critical values are generous yet far below what a real
defect produces: a d4 whose face 4 is 26% instead of 25% likely gives a statistic in the
hundreds over 200 000 rolls of 5d4 (checked below), and an off-by-one face range or a dropped
die puts samples outside the support, which fails at once.

Tests of ``dice/vector.py`` (tests/test_layout.py).
"""

from __future__ import annotations

import math
from fractions import Fraction

import icepool
import numpy as np
import pytest

from caltrop.dice import distribution, parse, roll_totals
from tests.dice.oracles import icepool_pmf, to_icepool

N = 200_000
SEED = 20240601
Z = 5.0


def critical_value(df: int, z: float = Z) -> float:
    """Wilson–Hilferty approximation of the chi-square quantile (see the module docstring)."""
    a = 2.0 / (9.0 * df)
    return df * (1.0 - a + z * math.sqrt(a)) ** 3


def chi_square(samples: np.ndarray, pmf: dict[int, Fraction]) -> tuple[float, int]:
    """The statistic and degrees of freedom, merging adjacent outcomes until each bin expects
    at least 5 samples. Samples outside the support fail the test outright."""
    n = len(samples)
    values, counts = np.unique(samples, return_counts=True)
    observed = dict(zip(values.tolist(), counts.tolist(), strict=True))
    outside = set(observed) - {t for t, p in pmf.items() if p}
    assert not outside, f"rolled impossible totals {sorted(outside)[:5]}"
    bins: list[tuple[float, int]] = []  # (expected, observed)
    exp_acc, obs_acc = 0.0, 0
    for t in sorted(pmf):
        exp_acc += float(pmf[t]) * n
        obs_acc += observed.get(t, 0)
        if exp_acc >= 5.0:
            bins.append((exp_acc, obs_acc))
            exp_acc, obs_acc = 0.0, 0
    if exp_acc or obs_acc:  # a thin upper tail joins the last bin
        e, o = bins.pop()
        bins.append((e + exp_acc, o + obs_acc))
    stat = sum((o - e) ** 2 / e for e, o in bins)
    return stat, len(bins) - 1


def test_critical_value_approximation() -> None:
    """Spot checks against published chi-square quantiles at p = 1e-6 (χ²_10 ≈ 46.9, χ²_30 ≈ 81.8,
    χ²_100 ≈ 180.4): z = 5 is a little further out (p ≈ 2.9e-7), so slightly larger."""
    assert 46.9 < critical_value(10) < 52
    assert 81.8 < critical_value(30) < 88
    assert 180.4 < critical_value(100) < 190


@pytest.mark.parametrize(
    "text",
    [
        "5d4",
        "5d4+1d8",
        "3d6-2",
        "2d8/2+3",
        "12d4",
        "17d4",
        "(1d8+1d6)/2+1",
        "-1d4+3",
        "3d2+1d16",
        "1d256+1d512",
        "2d1+1d3",
    ],
)
def test_roll_totals_fit_the_exact_pmf(text: str) -> None:
    samples = roll_totals(text, N, np.random.default_rng(SEED))
    assert samples.shape == (N,)
    assert samples.dtype == np.int64
    pmf = distribution(text).pmf_exact()
    assert nonzero_support(pmf) == set(icepool_pmf_of(text))
    stat, df = chi_square(samples, pmf)
    if df == 0:  # a constant: every sample must be that constant (checked via the support)
        return
    assert stat < critical_value(df), (text, stat, df)
    # The sample mean sits within 6 standard errors of the exact mean.
    d = distribution(text)
    assert abs(samples.mean() - float(d.mean_exact)) < 6 * d.stdev / math.sqrt(N)


def nonzero_support(pmf: dict[int, Fraction]) -> set[int]:
    return {t for t, p in pmf.items() if p}


def icepool_pmf_of(text: str) -> dict[int, Fraction]:
    return icepool_pmf(to_icepool(parse(text)))


def test_the_chi_square_check_has_power() -> None:
    """The same 5d4 samples against a 5d4 whose face 4 is 26% likely (faces 1 and 4 at 24% and
    26%) must be rejected: the check is not vacuous."""
    samples = roll_totals("5d4", N, np.random.default_rng(SEED))
    biased = 5 @ icepool.Die({1: 24, 2: 25, 3: 25, 4: 26})
    stat, df = chi_square(samples, icepool_pmf(biased))
    assert stat > 2 * critical_value(df)


def test_impossible_totals_are_caught() -> None:
    # A 5d4 total of 4 or 21 is impossible: a roller with faces 0..3 or 2..5 would produce them.
    for bad in (np.array([4, 10, 12]), np.array([21, 10, 12])):
        with pytest.raises(AssertionError, match="impossible totals"):
            chi_square(bad, distribution("5d4").pmf_exact())


def test_same_seed_same_totals() -> None:
    for text in ["5d4", "5d4+1d8", "3d6-2", "2d8/2+3", "(1d8+1d6)/2+1", "0d4+2"]:
        a = roll_totals(text, 5000, np.random.default_rng(7))
        b = roll_totals(text, 5000, np.random.default_rng(7))
        c = roll_totals(text, 5000, np.random.default_rng(8))
        assert np.array_equal(a, b)
        if distribution(text).max > distribution(text).min:
            assert not np.array_equal(a, c)


def test_totals_stay_within_bounds_for_every_power_of_two() -> None:
    """The packed-bits path covers d2‥d512 and pools that span several 16-bit words."""
    rng = np.random.default_rng(3)
    for sides in (1, 2, 3, 4, 8, 16, 32, 64, 128, 256, 512, 1000):
        for count in (1, 5, 9, 17):
            t = roll_totals(f"{count}d{sides}", 4000, rng)
            assert t.min() >= count
            assert t.max() <= count * sides
            if sides > 1:
                assert t.min() < t.max()


def test_extremes_are_reached() -> None:
    """Every face of a d4 appears in every packed position: 1d4..8d4 hit both ends."""
    rng = np.random.default_rng(11)
    for count in range(1, 9):
        t = roll_totals(f"{count}d4", 20_000 if count < 6 else 400_000, rng)
        # P(all ones) = 4**-count; with 400k rolls of 8d4, expected 6 hits of each extreme.
        assert t.min() == count
        assert t.max() == 4 * count


def test_zero_rolls_and_constants() -> None:
    rng = np.random.default_rng(0)
    assert roll_totals("5d4", 0, rng).shape == (0,)
    assert np.all(roll_totals("0d4+2", 10, rng) == 2)
    assert np.all(roll_totals("-3", 10, rng) == -3)
    assert np.all(roll_totals(parse("7-(2)"), 4, rng) == 5)
