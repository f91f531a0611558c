"""Issue 21 item 6: exact odds within the dice limits cost work bounded by their size.

``caltrop odds 1000d21`` is inside every dice limit (1,000 dice, 20,001 totals) and took 288 s:
the exact counts came from one big-integer power of the packed polynomial (Karatsuba in CPython),
and the text form's standard deviation asked for them even without ``--exact``. Now a sum of
one kind of die is counted by a linear recurrence (``ExactPMF.dice``: one pass over half the
totals), products of big polynomials go through libmpdec's number-theoretic transform, dice of
one kind in an expression are one sum, and percentages never build exact counts. docs/limits.md
("Cost of odds") states the bound; these tests check the work, never the clock.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

import caltrop.dice.backends as backends
from caltrop.dice.ast import Dice, Expr, Term
from caltrop.dice.backends import ExactPMF
from caltrop.dice.distribution import clear_caches, distribution
from caltrop.dice.parse import MAX_DICE, MAX_SPAN, check_limits
from caltrop.errors import DiceLimitError
from tests.dice.oracles import icepool_pmf, to_icepool
from tests.fuzzing import fuzz

#: docs/limits.md: the bits of the largest exact count's denominator within the dice limits
MAX_DENOMINATOR_BITS = 4393


@fuzz(80)
@given(count=st.integers(0, 40), sides=st.integers(1, 12))
def test_the_recurrence_counts_what_the_power_counts_and_icepool_agrees(
    count: int, sides: int
) -> None:
    fast = ExactPMF.dice(count, sides)
    assert fast == ExactPMF.die(sides).power(count)
    if count:
        want = icepool_pmf(to_icepool(Expr((Term(1, Dice(count, sides)),))))
        got = {fast.offset + i: Fraction(c, fast.denominator) for i, c in enumerate(fast.counts)}
        assert {t: p for t, p in got.items() if p} == want


def test_one_kind_of_die_never_takes_the_big_integer_power(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """1000d21, and 500d21+500d21 (one sum of one kind), are counted in one linear pass: the
    packed power and packed products (the quadratic-plus work) are never asked for."""

    def refused(*_: object) -> None:
        raise AssertionError("the packed big-integer path was taken")

    clear_caches()
    monkeypatch.setattr(ExactPMF, "power", refused)
    monkeypatch.setattr(backends, "_pack", refused)
    for text in ("1000d21", "500d21+500d21", "20d1000"):
        d = distribution(text)
        counts, denominator = d.exact_counts()
        assert sum(counts) == denominator
        assert len(counts) == d.max - d.min + 1 <= MAX_SPAN + 1
    clear_caches()


def test_a_product_of_big_polynomials_goes_through_the_transform(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two kinds of die with big counts: one transform product, equal to the packed integer
    product it replaces (checked at a size the packed product still does quickly)."""
    calls: list[int] = []
    real = backends._product_ntt

    def counted(a: tuple[int, ...], b: tuple[int, ...], width: int) -> tuple[int, ...]:
        calls.append(len(a) * len(b))
        return real(a, b, width)

    monkeypatch.setattr(backends, "_product_ntt", counted)
    monkeypatch.setattr(backends, "_NTT_BITS", 1 << 12)
    a, b = ExactPMF.dice(60, 21), ExactPMF.dice(50, 19)
    width = a._width(b)
    packed = backends._unpack(
        backends._pack(a.counts, width) * backends._pack(b.counts, width),
        width,
        len(a.counts) + len(b.counts) - 1,
    )
    assert a.add(b).counts == packed
    assert len(calls) == 1


@fuzz(60)
@given(
    sides=st.lists(st.integers(1, 1000), min_size=1, max_size=5),
    data=st.data(),
)
def test_counts_within_the_limits_stay_under_the_documented_bits(
    sides: list[int], data: st.DataObject
) -> None:
    """The bound docs/limits.md states: within 1,000 dice and 20,001 totals, the exact
    denominator (the product of every die's sides) has at most 1000·log2(21) ≈ 4,393 bits —
    log2(1+t) is concave, so spreading the 20,000 span evenly over 1,000 dice is the worst."""
    terms = []
    for s in sides:
        terms.append(Term(1, Dice(data.draw(st.integers(1, MAX_DICE), label="count"), s)))
    expr = Expr(tuple(terms))
    try:
        check_limits(expr)
    except DiceLimitError:
        return
    bits = sum(d.count * math.log2(d.sides) for d in expr.dice())
    assert bits <= MAX_DENOMINATOR_BITS


def test_the_worst_case_denominator_is_1000d21() -> None:
    assert math.isclose(MAX_DICE * math.log2(21), MAX_DENOMINATOR_BITS, abs_tol=1)
    check_limits(Expr((Term(1, Dice(1000, 21)),)))  # inside every limit
    assert distribution("1000d21").exact_counts()[1].bit_length() <= MAX_DENOMINATOR_BITS + 1


def test_percentages_never_build_the_exact_counts() -> None:
    """The text form's mean and stdev are float64 (the exact variance is asked for only with
    --exact): the standard deviation agrees with the exact one."""
    clear_caches()
    d = distribution("40d7+3d5")
    assert d.stdev > 0
    assert "_exact" not in d.__dict__, "stdev built the exact counts"
    assert math.isclose(d.stdev, math.sqrt(float(d.variance_exact)), rel_tol=1e-12)


@fuzz(40)
@given(
    kinds=st.lists(
        st.tuples(st.integers(1, 60), st.integers(2, 40), st.sampled_from([1, -1])),
        min_size=2,
        max_size=30,
    )
)
def test_many_kinds_of_die_are_summed_smallest_first(kinds: list[tuple[int, int, int]]) -> None:
    """docs/limits.md ("Cost of odds"): a sum of k kinds of die takes about log2(k) rounds of
    products whose sizes add up to the whole (Huffman's order), not k products of the growing
    total (a fold from the left: 50d2+50d3+…+50d21 --exact took 16 s at load 7, now 2.6 s).
    The work is the totals of each product made: at most (log2(k) + 1) × (the sum's totals + k).
    """
    expr = Expr(tuple(Term(sign, Dice(count, sides)) for count, sides, sign in kinds))
    try:
        check_limits(expr)
    except DiceLimitError:
        return
    made: list[int] = []
    real = ExactPMF.add

    def add(self: ExactPMF, other: ExactPMF) -> ExactPMF:
        out = real(self, other)
        made.append(len(out.counts))
        return out

    clear_caches()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ExactPMF, "add", add)
        counts, denominator = distribution(expr).exact_counts()
    assert sum(counts) == denominator
    parts = len({(sign, sides) for _, sides, sign in kinds})
    assert len(made) <= parts - 1  # a few dice beside a larger sum are added die by die
    if parts > 1:
        assert sum(made) <= (math.log2(parts) + 1) * (len(counts) + parts)
    clear_caches()


def test_the_issues_many_kinds_take_few_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """50d21+50d20+…+50d2 (largest first, the worst order for a fold from the left): the products'
    totals add up to under 5 times the sum's, where the left fold made 12 times."""
    made: list[int] = []
    real = ExactPMF.add

    def add(self: ExactPMF, other: ExactPMF) -> ExactPMF:
        out = real(self, other)
        made.append(len(out.counts))
        return out

    clear_caches()
    monkeypatch.setattr(ExactPMF, "add", add)
    d = distribution("+".join(f"50d{s}" for s in range(21, 1, -1)))
    total = d.max - d.min + 1
    d.exact_counts()
    assert len(made) <= 19
    assert sum(made) < 5 * total
    clear_caches()


@fuzz(60)
@given(
    base=st.tuples(st.integers(0, 30), st.integers(1, 12)),
    count=st.integers(0, 12),
    sides=st.integers(1, 12),
    sign=st.sampled_from([1, -1]),
)
def test_dice_added_one_at_a_time_are_the_product(
    base: tuple[int, int], count: int, sides: int, sign: int
) -> None:
    """ExactPMF.add_dice (a window slid over prefix sums, once a die) counts what the product
    of the two count polynomials counts, subtracted dice included."""
    total = ExactPMF.dice(*base)
    more = ExactPMF.dice(count, sides)
    assert total.add_dice(count, sides, sign) == total.add(more.negate() if sign < 0 else more)


def test_a_few_dice_beside_a_large_sum_make_no_product(monkeypatch: pytest.MonkeyPatch) -> None:
    """50d6+906d20 (found by a probe: 21 s as a packed product, 6 s by the transform, while
    1000d21 takes a blink): the 50d6 are added to 906d20 one die at a time, 50 passes of
    additions over its totals, and no polynomial product is made. Checked against the product
    at a size the product still does quickly (30d6+300d20)."""

    def refused(*_: object) -> None:
        raise AssertionError("a product was made")

    clear_caches()
    want = ExactPMF.dice(300, 20).add(ExactPMF.dice(30, 6))
    monkeypatch.setattr(ExactPMF, "add", refused)
    got = distribution("30d6+300d20").exact_counts()
    assert got == (want.counts, want.denominator)
    counts, denominator = distribution("50d6+906d20").exact_counts()
    assert sum(counts) == denominator == 6**50 * 20**906
    clear_caches()


def test_a_group_added_as_it_is_joins_the_sum(monkeypatch: pytest.MonkeyPatch) -> None:
    """940d12+(33d8)-1d661 (a probe: 32 s exact): the group's dice are the sum's dice, so the
    33d8 and the 1d661 are added to 940d12 die by die and no polynomial product is made."""

    def refused(*_: object) -> None:
        raise AssertionError("a product was made")

    clear_caches()
    want = ExactPMF.dice(20, 12).add(ExactPMF.dice(33, 8)).add(ExactPMF.dice(1, 661).negate())
    assert distribution("20d12+(33d8)-1d661").exact_counts() == (want.counts, want.denominator)
    assert distribution("-(-20d12-(33d8)+1d661)").exact_counts() == (want.counts, want.denominator)
    clear_caches()
    monkeypatch.setattr(ExactPMF, "add", refused)
    counts, denominator = distribution("940d12+(33d8)-1d661").exact_counts()
    assert sum(counts) == denominator == 12**940 * 8**33 * 661
    clear_caches()


@fuzz(60)
@given(
    few=st.lists(st.integers(1, 2**40), min_size=1, max_size=8),
    many=st.lists(st.integers(1, 2**300), min_size=1, max_size=80),
)
def test_a_few_counts_times_many_term_by_term_is_the_packed_product(
    few: list[int], many: list[int]
) -> None:
    """``(15d8)/2`` beside 940d12 is no sum of dice: the few counts multiply the many term by
    term (``_convolve_few``), which is the product the packed integers give."""
    a, b = ExactPMF(0, tuple(few), 1), ExactPMF(0, tuple(many), 1)
    width = a._width(b)
    packed = backends._unpack(
        backends._pack(a.counts, width) * backends._pack(b.counts, width),
        width,
        len(few) + len(many) - 1,
    )
    assert backends._convolve_few(a.counts, b.counts) == packed
    assert a.add(b).counts == b.add(a).counts == packed


def test_a_halved_group_beside_a_large_sum_is_multiplied_term_by_term(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refused(*_: object) -> None:
        raise AssertionError("packed into integers")

    clear_caches()
    monkeypatch.setattr(backends, "_pack", refused)
    counts, denominator = distribution("940d12+(15d8)/2").exact_counts()
    assert sum(counts) == denominator == 12**940 * 8**15
    clear_caches()
