"""The simulator's statistics: Wilson, paired differences, Newcombe, Holm, summaries."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from caltrop.sim.stats import (
    distribution_summary,
    holm,
    mean_interval,
    newcombe_paired,
    one_sample_p_value,
    paired_difference,
    paired_p_value,
    wilson,
    z_for,
)


def test_wilson_known_values() -> None:
    iv = wilson(5, 10)
    assert iv.estimate == 0.5
    assert iv.lo == pytest.approx(0.2366, abs=1e-4)
    assert iv.hi == pytest.approx(0.7634, abs=1e-4)
    zero = wilson(0, 10)
    assert zero.lo == 0.0
    assert zero.hi == pytest.approx(0.2775, abs=1e-4)
    full = wilson(10, 10)
    assert full.hi == 1.0
    assert full.lo == pytest.approx(1 - 0.2775, abs=1e-4)


def test_wilson_refuses_nonsense() -> None:
    with pytest.raises(ValueError, match="n ≥ 1"):
        wilson(0, 0)
    with pytest.raises(ValueError, match="between 0 and n"):
        wilson(11, 10)
    with pytest.raises(ValueError, match="confidence"):
        z_for(1.5)


def test_wilson_covers_about_95_percent() -> None:
    """Coverage over many binomial samples is close to nominal (Wilson is near 95% at n=200)."""
    rng = np.random.default_rng(7)
    p, n = 0.3, 200
    hits = sum(wilson(int(k), n).contains(p) for k in rng.binomial(n, p, size=4000))
    assert 0.93 <= hits / 4000 <= 0.97


def test_paired_difference_by_hand() -> None:
    a = [1, 0, 1, 0]
    b = [1, 1, 1, 0]  # d = 0, 1, 0, 0: mean 1/4, sd 1/2
    iv = paired_difference(a, b)
    half = z_for(0.95) * 0.5 / 2
    assert iv.estimate == 0.25
    assert iv.lo == pytest.approx(0.25 - half)
    assert iv.hi == pytest.approx(0.25 + half)


def test_paired_difference_of_identical_runs_is_exactly_zero() -> None:
    x = np.array([1, 0, 0, 1, 1], dtype=float)
    iv = paired_difference(x, x)
    assert (iv.estimate, iv.lo, iv.hi) == (0.0, 0.0, 0.0)
    assert paired_p_value(x, x) == 1.0


def test_pairing_makes_the_interval_narrower_than_independent_samples() -> None:
    rng = np.random.default_rng(1)
    a = (rng.random(5000) < 0.5).astype(float)
    flip = rng.random(5000) < 0.05  # b differs from a on 5% of the encounters
    b = np.where(flip, 1 - a, a)
    paired = paired_difference(a, b)
    wa, wb = wilson(a.sum(), a.size), wilson(b.sum(), b.size)
    independent = math.hypot(wa.hi - wa.lo, wb.hi - wb.lo)
    assert paired.hi - paired.lo < independent / 3


def test_newcombe_agrees_with_the_paired_wald_interval_for_large_n() -> None:
    rng = np.random.default_rng(3)
    a = (rng.random(20000) < 0.6).astype(float)
    b = np.where(rng.random(20000) < 0.1, (rng.random(20000) < 0.5).astype(float), a)
    wald = paired_difference(a, b)
    score = newcombe_paired(a, b)
    assert score.estimate == pytest.approx(wald.estimate)
    assert score.lo == pytest.approx(wald.lo, abs=2e-3)
    assert score.hi == pytest.approx(wald.hi, abs=2e-3)


def test_newcombe_stays_in_range_and_holds_its_estimate() -> None:
    a = [1, 1, 1, 1, 0]
    b = [0, 0, 0, 0, 0]
    iv = newcombe_paired(a, b)
    assert -1.0 <= iv.lo <= iv.estimate <= iv.hi <= 1.0
    assert iv.estimate == pytest.approx(-0.8)
    with pytest.raises(ValueError, match="0/1"):
        newcombe_paired([0.5], [1])


def test_holm_by_hand() -> None:
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([]) == []
    with pytest.raises(ValueError, match="p-value"):
        holm([1.5])


def test_holm_is_never_below_the_raw_p_values_and_never_above_bonferroni() -> None:
    rng = np.random.default_rng(5)
    p = list(rng.random(12) ** 3)
    adjusted = holm(p)
    for raw, adj in zip(p, adjusted, strict=True):
        assert raw <= adj <= min(1.0, len(p) * raw) + 1e-15


def test_one_sample_p_value() -> None:
    assert one_sample_p_value(50, 100, 0.5) == pytest.approx(1.0)
    assert one_sample_p_value(70, 100, 0.5) < 0.001


def test_distribution_summary() -> None:
    s = distribution_summary([1, 2, 2, 3, 10])
    assert s["mean"] == 3.6
    assert s["median"] == 2.0
    assert s["p90"] == 10.0  # nearest rank: ceil(0.9 × 5) = 5th value
    assert s["histogram"] == {1: 1, 2: 2, 3: 1, 10: 1}
    assert (s["min"], s["max"]) == (1, 10)
    ten = distribution_summary(list(range(1, 11)))
    assert ten["p90"] == 9.0


def test_mean_interval() -> None:
    iv = mean_interval([2.0, 4.0])
    assert iv.estimate == 3.0
    assert iv.lo < 3.0 < iv.hi
    assert mean_interval([5.0]).lo == 5.0


def _point(value: str, p: float, half: float) -> dict[str, Any]:
    rate = {"p": p, "lo": p - half, "hi": p + half}
    return {"value": value, "win_rate": {"pc": rate}}


def test_the_crossing_is_interpolated_with_the_band_s_interval() -> None:
    """A sweep whose PC win rate goes 30% → 70% between 2 and 4 (bands ±10 pp) crosses 50%
    at 3; the band holds 50% from where its upper edge (p + 0.1) passes 0.5 to where its lower
    edge does: 2.5 to 3.5."""
    from caltrop.sim.summary import crossing

    points = [_point("2", 0.3, 0.1), _point("4", 0.7, 0.1)]
    c = crossing(points, side="pc", target=0.5)
    assert c["value"] == pytest.approx(3.0)
    assert (c["lo"], c["hi"]) == (pytest.approx(2.5), pytest.approx(3.5))
    wide = crossing([_point("2", 0.3, 0.3), _point("4", 0.7, 0.3)], side="pc", target=0.5)
    assert (wide["lo"], wide["hi"]) == (None, None)  # the band reaches past the values swept
    falling = crossing([_point("1", 0.9, 0.05), _point("3", 0.6, 0.05), _point("5", 0.2, 0.05)],
                       side="pc", target=0.5)  # fmt: skip
    assert falling["value"] == pytest.approx(3.5)
    none = crossing([_point("1", 0.9, 0.05), _point("2", 0.8, 0.05)], side="pc", target=0.5)
    assert none["value"] is None
    assert "above 0.5 at every value" in none["why"]
    text = crossing([_point("a", 0.1, 0.1), _point("b", 0.9, 0.1)], side="pc", target=0.5)
    assert "not increasing numbers" in text["why"]


def test_mcnemar_exact_is_the_sign_test_of_the_discordant_pairs() -> None:
    from caltrop.sim.stats import mcnemar_exact

    # 9 pairs b won and a lost, 1 the other way, 10 concordant: 2·P(X ≤ 1), X ~ Bin(10, ½)
    a = [0] * 9 + [1] + [1] * 5 + [0] * 5
    b = [1] * 9 + [0] + [1] * 5 + [0] * 5
    assert mcnemar_exact(a, b) == pytest.approx(2 * 11 / 1024)
    assert mcnemar_exact(b, a) == mcnemar_exact(a, b)  # two-sided
    assert mcnemar_exact([1, 0], [1, 0]) == 1.0  # nothing discordant
    assert mcnemar_exact([0] * 3, [1] * 3) == pytest.approx(0.25)
    with pytest.raises(ValueError, match="0/1"):
        mcnemar_exact([0.5], [1])


def test_mcnemar_exact_takes_thousands_of_discordant_pairs() -> None:
    """Past 1,023 discordant pairs ``2**m`` no longer fits a float: the p-value is still the
    exact sign test's (checked against the normal approximation with continuity correction,
    which is within a few per cent there) and a lopsided split gives a tiny one, not an error."""
    from statistics import NormalDist

    from caltrop.sim.stats import mcnemar_exact

    up, down = 1100, 1000
    a = [0] * up + [1] * down
    b = [1] * up + [0] * down
    z = (abs(up - down) - 1) / math.sqrt(up + down)
    approx = 2 * (1 - NormalDist().cdf(z))
    assert mcnemar_exact(a, b) == pytest.approx(approx, rel=0.05)
    assert mcnemar_exact(b, a) == mcnemar_exact(a, b)
    assert 0.0 <= mcnemar_exact([0] * 3000 + [1] * 10, [1] * 3000 + [0] * 10) < 1e-300
