"""The GM's odds tables: float and exact paths agree, and both agree with distribution().

Tests of ``table/pool.py`` (tests/test_layout.py).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caltrop.dice import distribution
from caltrop.dice.tables import damage_table, success_table


def _expr(n: int, extra: str | None) -> str:
    if not extra:
        return f"{n}d4"
    return f"{n}d4{extra}" if extra.startswith("-") else f"{n}d4+{extra}"


@pytest.mark.parametrize("extra", [None, "1d8", "2d8/2+3", "-2", "(1d8+1d6)/2"])
@pytest.mark.parametrize(
    "pools", [range(1, 13), range(0, 6), range(3, 20, 4), range(12, 0, -1), range(5, 6)]
)
def test_success_table_matches_distribution(extra: str | None, pools: range) -> None:
    dcs = range(-2, 40)
    fl = success_table(pools, dcs, extra)
    ex = success_table(pools, dcs, extra, exact=True)
    assert isinstance(fl.values, np.ndarray)
    assert fl.values.shape == (len(pools), len(dcs))
    assert not fl.values.flags.writeable
    for n in pools:
        d = distribution(_expr(n, extra))
        for dc in dcs:
            want = d.p_at_least_exact(dc)
            got = ex.value(n, dc)
            assert isinstance(got, Fraction)
            assert got == want, (n, dc)
            assert fl.value(n, dc) == pytest.approx(float(want), abs=1e-12)


@pytest.mark.parametrize("extra", [None, "1d8", "2d8/2+3", "3"])
@pytest.mark.parametrize("pools", [range(1, 11), range(0, 4), range(10, 2, -3)])
def test_damage_table_matches_distribution(extra: str | None, pools: range) -> None:
    """R16: expected damage E[max(0, total − Evasion)]."""
    evasions = range(0, 35)
    fl = damage_table(pools, evasions, extra)
    ex = damage_table(pools, evasions, extra, exact=True)
    for n in pools:
        d = distribution(_expr(n, extra))
        for ev in evasions:
            want = d.expected_damage_exact(ev)
            assert ex.value(n, ev) == want
            assert fl.value(n, ev) == pytest.approx(float(want), rel=1e-12, abs=1e-12)


def test_descending_pools_are_not_reused() -> None:
    """Bug fixed: a descending ``pools`` range used to keep the largest pool for every row."""
    t = success_table(range(5, 0, -1), range(5, 9), exact=True)
    assert t.value(1, 5) == 0  # 1d4 never reaches 5
    assert t.value(2, 8) == Fraction(1, 16)  # 2d4 = 8 only on (4, 4)


def test_table_metadata() -> None:
    t = success_table(range(1, 4), range(2, 6), "1d8")
    assert t.title == "P(total ≥ DC)"
    assert t.extra == "1d8"
    assert t.pools == range(1, 4)
    assert t.columns == range(2, 6)
    assert success_table(range(1, 3), range(1, 3)).extra is None
    assert success_table(range(1, 3), range(1, 3), "").extra is None
    assert damage_table(range(1, 3), range(1, 3)).title == "expected damage"
    with pytest.raises(ValueError, match="not in range"):
        t.value(9, 2)  # not a row of the table


def test_hand_checked_cells() -> None:
    ex = success_table(range(1, 4), range(1, 13), exact=True)
    assert ex.value(3, 10) == Fraction(10, 64)  # see test_distribution: 10 of 64 faces
    assert ex.value(1, 4) == Fraction(1, 4)
    assert ex.value(2, 1) == 1
    dmg = damage_table(range(1, 2), range(2, 3), exact=True)
    assert dmg.value(1, 2) == Fraction(3, 4)  # 1d4 vs Evasion 2: 0,0,1,2 → 3/4


def test_success_is_monotone_in_pool_and_dc() -> None:
    """More dice never lower the odds; a higher DC never raises them."""
    v = success_table(range(1, 25), range(0, 100), "1d8", exact=True).values
    assert isinstance(v, tuple)
    for i in range(len(v)):
        for j in range(len(v[i])):
            if i:
                assert v[i][j] >= v[i - 1][j]
            if j:
                assert v[i][j] <= v[i][j - 1]


@settings(max_examples=60, deadline=None)
@given(
    start=st.integers(0, 14),
    length=st.integers(0, 6),
    step=st.sampled_from([1, 2, 3, -1, -2]),
    dc_start=st.integers(-5, 40),
    dc_len=st.integers(0, 12),
    extra=st.sampled_from([None, "1d8", "1d6-3", "2d8/2+3", "5", "1d4"]),
)
def test_tables_property(
    start: int, length: int, step: int, dc_start: int, dc_len: int, extra: str | None
) -> None:
    """Any pools range (ascending, strided or descending), any columns: every cell equals the
    distribution of that pool, and float agrees with exact."""
    pools = (
        range(start, start + step * length, step)
        if step > 0
        else range(start + length, start, step)
    )
    cols = range(dc_start, dc_start + dc_len)
    tables = [
        (success_table, lambda d, c: d.p_at_least_exact(c)),
        (damage_table, lambda d, c: d.expected_damage_exact(c)),
    ]
    for make, oracle in tables:
        fl = make(pools, cols, extra)
        ex = make(pools, cols, extra, exact=True)
        assert len(ex.values) == len(pools)
        assert np.shape(fl.values) == (len(pools), len(cols))
        for n in pools:
            d = distribution(_expr(n, extra))
            for c in cols:
                want = oracle(d, c)
                assert ex.value(n, c) == want
                assert fl.value(n, c) == pytest.approx(float(want), rel=1e-12, abs=1e-12)
