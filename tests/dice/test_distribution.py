"""Exact distributions against two independent oracles: icepool and brute-force enumeration.

Tests of ``dice/distribution.py`` (tests/test_layout.py).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import icepool
import numpy as np
import pytest

from caltrop.dice import constant, dice, distribution, parse
from tests.dice.oracles import brute_pmf, d4_sums, icepool_pmf, nonzero, to_icepool

# Expressions covering every node type, signs, halving (R38), constants and zero dice.
EXPRESSIONS = [
    "1d4",
    "5d4",
    "12d4",
    "17d4",
    "5d4+1d8",
    "4d4+1d4",
    "3d4-2",
    "3d6-2",
    "2d8/2+3",  # R38: the 2d8 *sum* is halved rounding up, then +3
    "1d8/2+2",
    "(1d8+1d6)/2+1",  # R38: several weapons' damage dice are summed, then halved
    "-1d4+3",
    "0d4+2",
    "0d4",
    "7",
    "-(2d4-3)/2",  # ceil of a negative operand
    "1d6-1d4",
    "(3d4)/3-(1d8+2)",
    "2d1+1d2",
    "1d20/4",
]

# Small enough to enumerate every face combination.
SMALL = [e for e in EXPRESSIONS if math.prod(parse(e).dice_slots()) <= 5000]


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_pmf_matches_icepool_exactly(text: str) -> None:
    d = distribution(text)
    expected = icepool_pmf(to_icepool(parse(text)))
    assert nonzero(d.pmf_exact()) == expected
    # Caltrop lists every integer from min to max; the ends are real outcomes.
    assert list(d.pmf_exact()) == list(d.outcomes)
    assert d.min == min(expected)
    assert d.max == max(expected)


@pytest.mark.parametrize("text", SMALL)
def test_pmf_matches_brute_force_exactly(text: str) -> None:
    assert nonzero(distribution(text).pmf_exact()) == brute_pmf(parse(text))


def test_the_icepool_oracle_is_written_independently() -> None:
    """Sanity of the oracle itself: icepool's 2d8 halved up is not 1d8 (it is 2..8 halved)."""
    die = to_icepool(parse("2d8/2+3"))
    # ceil(s/2)+3 for s in 2..16 is 4..11; P(4) = P(s=2) = 1/64.
    assert min(die.outcomes()) == 4
    assert max(die.outcomes()) == 11
    assert icepool_pmf(die)[4] == Fraction(1, 64)


def test_halving_applies_to_the_dice_sum_not_each_die() -> None:
    """R38: "Damage = ceil(sum of damage dice / 2) + modifiers" — ``(1d8+1d6)/2`` differs from
    ``1d8/2+1d6/2`` (8+6 → 7, but 4+3 → 7 too; 1+1 → 1 versus 1+1 → 2)."""
    grouped = distribution("(1d8+1d6)/2")
    per_die = distribution("1d8/2+1d6/2")
    assert grouped.min == 1  # ceil((1+1)/2)
    assert per_die.min == 2  # ceil(1/2)+ceil(1/2)
    assert grouped.pmf_exact() != per_die.pmf_exact()


def test_the_doc_example_three_d4_at_least_ten() -> None:
    # 3d4 totals ≥ 10: (4,4,4), (4,4,3)×3, (4,4,2)×3, (4,3,3)×3 → 10 of 64.
    assert distribution("3d4").p_at_least_exact(10) == Fraction(10, 64)


def test_hand_derived_small_pmfs() -> None:
    # 2d4: totals 2..8 with counts 1,2,3,4,3,2,1 over 16.
    assert distribution("2d4").pmf_exact() == {
        t: Fraction(c, 16) for t, c in zip(range(2, 9), [1, 2, 3, 4, 3, 2, 1], strict=True)
    }
    # -1d4+3: 3-{1,2,3,4} = {2,1,0,-1}, each 1/4.
    assert distribution("-1d4+3").pmf_exact() == {t: Fraction(1, 4) for t in (-1, 0, 1, 2)}
    # 0d4+2 is the constant 2.
    assert distribution("0d4+2").pmf_exact() == {2: Fraction(1)}
    # 1d8/2: faces 1..8 halved up are 1,1,2,2,3,3,4,4.
    assert distribution("1d8/2").pmf_exact() == {t: Fraction(1, 4) for t in (1, 2, 3, 4)}


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_thresholds_exact_and_float(text: str) -> None:
    d = distribution(text)
    die = to_icepool(parse(text))
    pmf = icepool_pmf(die)
    for k in range(d.min - 2, d.max + 3):
        at_least = sum((p for t, p in pmf.items() if t >= k), Fraction(0))
        at_most = sum((p for t, p in pmf.items() if t <= k), Fraction(0))
        assert d.p_at_least_exact(k) == at_least
        assert d.p_at_most_exact(k) == at_most
        assert d.p_at_least(k) == pytest.approx(float(at_least), abs=1e-12)
        assert d.p_at_most(k) == pytest.approx(float(at_most), abs=1e-12)
        # icepool's own threshold queries agree too.
        assert die.probability(">=", k) == at_least
    assert d.p_at_least(d.min) == 1.0
    assert d.p_at_least(d.max + 1) == 0.0


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_mean_variance(text: str) -> None:
    d = distribution(text)
    die = to_icepool(parse(text))
    assert d.mean_exact == die.mean()
    assert d.variance_exact == die.variance()
    assert d.mean == pytest.approx(float(die.mean()), rel=1e-12, abs=1e-12)
    assert d.stdev == pytest.approx(math.sqrt(die.variance()), rel=1e-12, abs=1e-12)


def test_mean_variance_by_hand() -> None:
    # One d4: mean 5/2, variance (1+4+9+16)/4 - 25/4 = 5/4; n dice add.
    d = distribution("5d4+1d8")
    assert d.mean_exact == 5 * Fraction(5, 2) + Fraction(9, 2)
    # d8: (1..8)² mean is 204/8, minus (9/2)² → 21/4.
    assert d.variance_exact == 5 * Fraction(5, 4) + Fraction(21, 4)


@pytest.mark.parametrize("text", ["5d4", "5d4+1d8", "2d8/2+3", "17d4", "-1d4+3", "1d6-1d4"])
def test_expected_damage_against_evasion(text: str) -> None:
    """R16: an attack deals max(0, total − Evasion)."""
    d = distribution(text)
    pmf = icepool_pmf(to_icepool(parse(text)))
    evasions = range(d.min - 3, d.max + 3)
    curve = d.expected_damage_curve(evasions)
    for i, ev in enumerate(evasions):
        expected = sum((p * max(0, t - ev) for t, p in pmf.items()), Fraction(0))
        assert d.expected_damage_exact(ev) == expected
        assert d.expected_damage(ev) == pytest.approx(float(expected), rel=1e-12, abs=1e-12)
        assert curve[i] == pytest.approx(float(expected), rel=1e-12, abs=1e-12)
        # The damage distribution agrees with the expectation and is never negative.
        dmg = d.damage(ev)
        assert dmg.min >= 0
        assert dmg.mean_exact == expected
    # Evasion below every total: the whole mean minus Evasion.
    assert d.expected_damage_exact(d.min - 1) == d.mean_exact - (d.min - 1)
    assert d.expected_damage_exact(d.max) == 0


def test_expected_damage_by_hand() -> None:
    # 1d4 against Evasion 2: damage 0,0,1,2 → mean 3/4.
    assert distribution("1d4").expected_damage_exact(2) == Fraction(3, 4)
    # Seed 000 dagger: 4d4+1d4 total 14 vs Evasion 11 leaves 3.
    assert distribution("4d4+1d4").damage(11).pmf_exact()[3] == Fraction(d4_sums(5)[14], 4**5)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7])
def test_d4_pool_against_enumeration(n: int) -> None:
    counts = d4_sums(n)
    d = dice(n, 4)
    assert d.pmf_exact() == {t: Fraction(c, 4**n) for t, c in sorted(counts.items())}
    assert d is dice(n, 4)  # cached


def test_large_pools_match_icepool() -> None:
    """Kronecker-packed big-integer powers stay exact far past float precision."""
    for n in (40, 100, 250):
        d = dice(n, 4)
        assert d.pmf_exact() == icepool_pmf(n @ icepool.d4)
        assert sum(d.pmf_exact().values()) == 1
        assert float(sum(d.probabilities)) == pytest.approx(1.0, abs=1e-12)
    # The single most extreme outcome of 250d4 is 4**-250: not representable as a float64,
    # exact as a fraction.
    assert dice(250, 4).pmf_exact()[250] == Fraction(1, 4**250)


# -- combinators -----------------------------------------------------------------------------------


def test_arithmetic_combinators_match_icepool() -> None:
    a = distribution("2d4")
    b = distribution("1d6")
    cases = {
        "a+b": (a + b, 2 @ icepool.d4 + icepool.d6),
        "a-b": (a - b, 2 @ icepool.d4 - icepool.d6),
        "a+3": (a + 3, 2 @ icepool.d4 + 3),
        "a-3": (a - 3, 2 @ icepool.d4 - 3),
        "-a": (-a, -(2 @ icepool.d4)),
        "3a": (a.scale(3), (2 @ icepool.d4) * 3),
        "a/3": (a.div_ceil(3), (2 @ icepool.d4).map(lambda x: -(-x // 3))),
        "a halved": (a.halve_up(), (2 @ icepool.d4).map(lambda x: -(-x // 2))),
        "max(5,a)": (a.clamp_min(5), (2 @ icepool.d4).map(lambda x: max(5, x))),
        "max(0,a)": (a.clamp_min(0), 2 @ icepool.d4),
        "max(9,a)": (a.clamp_min(9), icepool.Die([9])),
        "dmg 4": (a.damage(4), (2 @ icepool.d4).map(lambda x: max(0, x - 4))),
    }
    for name, (ours, theirs) in cases.items():
        assert nonzero(ours.pmf_exact()) == icepool_pmf(theirs), name
        for t, p in ours.pmf().items():
            assert p == pytest.approx(float(ours.pmf_exact()[t]), abs=1e-12), name


def test_constant_and_bad_factors() -> None:
    assert constant(-3).pmf_exact() == {-3: Fraction(1)}
    with pytest.raises(ValueError, match="at least 1"):
        dice(2, 4).scale(0)
    with pytest.raises(ValueError, match="at least 1"):
        dice(2, 4).div_ceil(0)


def test_negative_dice_count_is_an_error_not_a_hang() -> None:
    """Bug fixed: ``FloatPMF.power(-1)`` looped forever (``-1 >> 1`` is ``-1``)."""
    with pytest.raises(ValueError, match="cannot sum"):
        dice(-1, 4).pmf()
    with pytest.raises(ValueError, match="cannot sum"):
        dice(-1, 4).pmf_exact()


def test_float_arrays_are_read_only() -> None:
    """Cached arrays are shared: writing into them must be impossible."""
    d = distribution("5d4")
    with pytest.raises(ValueError, match="read-only"):
        d.probabilities[0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        d.at_least()[0] = 0.5
    assert np.allclose(d.at_least(), [float(d.p_at_least_exact(t)) for t in d.outcomes])


def test_distribution_cache_and_labels() -> None:
    """``distribution`` is cached by expression, and labelling one expression never renames
    another cached distribution (bug fixed: ``(5d4)`` relabelled the shared ``5d4``)."""
    assert distribution("5d4+1d8") is distribution(parse("5d4 + 1d8"))
    plain = distribution("5d4")
    grouped = distribution("(5d4)")
    assert plain.label == "5d4"
    assert grouped.label == "(5d4)"
    assert dice(5, 4).label == "5d4"
    assert repr(distribution("2d8/2+3")) == "Distribution('2d8/2+3')"
    assert grouped.pmf_exact() == plain.pmf_exact()


def test_float_and_exact_agree_everywhere() -> None:
    for text in EXPRESSIONS:
        d = distribution(text)
        exact = d.pmf_exact()
        fl = d.pmf()
        assert list(fl) == list(exact)
        assert max(abs(fl[t] - float(exact[t])) for t in exact) < 1e-12


def test_thresholds_of_a_large_pool_by_symmetry() -> None:
    """n d4 is symmetric about 5n/2: P(≥ 5n/2 + k) = P(≤ 5n/2 − k)."""
    d = dice(60, 4)
    for k in range(0, 40, 3):
        assert d.p_at_least_exact(150 + k) == d.p_at_most_exact(150 - k)
    assert d.p_at_least_exact(60) == 1
    assert d.p_at_least_exact(241) == 0
    assert all(
        a == pytest.approx(float(d.p_at_least_exact(t)), abs=1e-12)
        for t, a in zip(itertools.count(d.min), d.at_least(), strict=False)
    )
