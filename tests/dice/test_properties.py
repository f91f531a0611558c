"""Hypothesis properties of distributions over generated expressions."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from caltrop.dice import Const, Dice, blocked, distribution, dodged, pool, undefended
from caltrop.dice.ast import Expr
from tests.dice.oracles import brute_pmf, exprs, icepool_pmf, nonzero, slots, to_icepool


@settings(max_examples=150, deadline=None)
@given(exprs(max_count=30, max_sides=20, max_const=50, max_terms=4))
def test_every_distribution_sums_to_one(e: Expr) -> None:
    d = distribution(e)
    exact = d.pmf_exact()
    assert sum(exact.values()) == 1
    assert all(p >= 0 for p in exact.values())
    assert math.fsum(d.pmf().values()) == pytest.approx(1.0, abs=1e-12)
    assert d.p_at_least_exact(d.min) == 1
    assert d.p_at_most_exact(d.max) == 1


@settings(max_examples=100, deadline=None)
@given(exprs(max_count=4, max_sides=6, max_const=10, max_terms=3))
def test_small_expressions_match_brute_force_and_icepool(e: Expr) -> None:
    assume(math.prod(slots(e)) <= 4096)
    d = distribution(e)
    want = brute_pmf(e)
    assert nonzero(d.pmf_exact()) == want
    assert icepool_pmf(to_icepool(e)) == want
    assert d.min == min(want)
    assert d.max == max(want)
    assert d.mean_exact == sum(t * p for t, p in want.items())


@settings(max_examples=60, deadline=None)
@given(exprs(max_count=12, max_sides=10, max_const=10, max_terms=4))
def test_larger_expressions_match_icepool(e: Expr) -> None:
    d = distribution(e)
    want = icepool_pmf(to_icepool(e))
    assert nonzero(d.pmf_exact()) == want
    fl = d.pmf()
    assert max(abs(fl[t] - float(p)) for t, p in d.pmf_exact().items()) < 1e-12


_extras = st.sampled_from([(), (Dice(1, 8),), (Dice(1, 4),), (Const(2),), (Dice(2, 6), Const(1))])


@settings(max_examples=100, deadline=None)
@given(n=st.integers(0, 40), extra=_extras, dc=st.integers(-5, 200))
def test_more_d4s_never_lower_the_odds(n: int, extra: tuple[Dice | Const, ...], dc: int) -> None:
    """One more d4 (Advantage, R2) never lowers P(total ≥ DC) (R4) — and strictly raises it
    whenever the smaller pool can fail and the larger can succeed."""
    small = distribution(pool(n, *extra))
    large = distribution(pool(n + 1, *extra))
    p_small = small.p_at_least_exact(dc)
    p_large = large.p_at_least_exact(dc)
    assert p_large >= p_small
    if p_large > 0 and p_small < 1:
        assert p_large > p_small
    assert large.p_at_least(dc) >= small.p_at_least(dc) - 1e-15


@settings(max_examples=60, deadline=None)
@given(
    incoming=exprs(max_count=3, max_sides=8, max_const=6, max_terms=2),
    rating=st.integers(-1, 6),
    resistance=st.integers(0, 5),
    cover=st.booleans(),
    assists=st.integers(0, 3),
)
def test_defence_distributions_sum_to_one_and_order(
    incoming: Expr, rating: int, resistance: int, cover: bool, assists: int
) -> None:
    """Defence results are distributions; a Block never deals more than the raw damage or the
    undefended damage, and a Dodge deals either 0 or the full damage."""
    inc = distribution(incoming)
    kw = {"cover": cover, "assists": assists}
    b = blocked(inc, rating, resistance, **kw)
    d = dodged(inc, rating, resistance, **kw)
    u = undefended(inc, resistance)
    for dist in (b, d, u):
        assert sum(dist.pmf_exact().values()) == 1
    assert b.min >= 0
    assert u.min >= 0
    # Stochastic order: P(Block ≥ k) ≤ P(undefended ≥ k) for every k ≥ 1.
    for k in range(1, max(inc.max, 1) + 2):
        assert b.p_at_least_exact(k) <= u.p_at_least_exact(k)
    # Dodge: every non-zero result is a possible raw damage value, with at most its raw odds.
    raw = inc.pmf_exact()
    for t, p in nonzero(d.pmf_exact()).items():
        if t != 0:
            assert p <= raw[t]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 30), k=st.integers(1, 5), c=st.integers(-10, 10))
def test_affine_identities(n: int, k: int, c: int) -> None:
    """E[aX + c] = aE[X] + c, Var scales by a², shifting moves every threshold."""
    x = distribution(f"{n}d4")
    y = x.scale(k) + c
    assert y.mean_exact == k * x.mean_exact + c
    assert y.variance_exact == k * k * x.variance_exact
    for dc in range(x.min - 1, x.max + 2):
        assert y.p_at_least_exact(k * dc + c) == x.p_at_least_exact(dc)
    assert x.mean_exact == Fraction(5 * n, 2)
    assert x.variance_exact == Fraction(5 * n, 4)
