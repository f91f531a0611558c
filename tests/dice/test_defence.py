"""Defences of the Action Point module (R40) against brute-force enumeration of every die.

The oracle enumerates every face of the incoming damage dice *and* of the defence dice jointly
with ``itertools.product`` and applies the rule text directly:

* Block: damage − (Block Rating d4s [×2 in cover] + Resistance), never below 0.
* Dodge: 0 if (Dodge Rating d4s [×2 in cover] + Resistance) ≥ damage, else the full damage,
  Resistance *not* subtracted ("fully dealt").
* No defence: damage − Resistance, never below 0.
* Defense Assist: +1 d4 per assist. A pool is never below 1d4 (R3).

Tests of ``dice/defence.py`` (tests/test_layout.py).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable
from fractions import Fraction

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caltrop.dice import blocked, defence_total, distribution, dodged, parse, undefended
from tests.dice.oracles import evaluate, icepool_pmf, nonzero, slots

INCOMING = ["1d8", "1d8/2+2", "2d8/2+3", "1d6+1d4", "3d4", "(1d8+1d6)/2+1", "5"]


def _defence_value(faces: tuple[int, ...], resistance: int, cover: bool) -> int:
    return sum(faces) * (2 if cover else 1) + resistance


def _block(damage: int, defence: int) -> int:
    return max(0, damage - defence)


def _dodge(damage: int, defence: int) -> int:
    return 0 if defence >= damage else damage


def brute_defence(
    incoming: str,
    rule: Callable[[int, int], int],
    rating: int,
    resistance: int,
    cover: bool,
    assists: int,
) -> dict[int, Fraction]:
    expr = parse(incoming)
    sides = slots(expr)
    n_def = max(1, rating + assists)  # R3
    counts: Counter[int] = Counter()
    for faces in itertools.product(*(range(1, s + 1) for s in sides), *[range(1, 5)] * n_def):
        damage = evaluate(expr, iter(faces[: len(sides)]))
        defence = _defence_value(faces[len(sides) :], resistance, cover)
        counts[rule(damage, defence)] += 1
    total = sum(counts.values())
    return {t: Fraction(c, total) for t, c in sorted(counts.items())}


def brute_undefended(incoming: str, resistance: int) -> dict[int, Fraction]:
    expr = parse(incoming)
    counts: Counter[int] = Counter()
    for faces in itertools.product(*(range(1, s + 1) for s in slots(expr))):
        counts[max(0, evaluate(expr, iter(faces)) - resistance)] += 1
    total = sum(counts.values())
    return {t: Fraction(c, total) for t, c in sorted(counts.items())}


# A grid that keeps every joint enumeration small (at most 4**4 defence faces × 64 damage faces).
GRID = [
    (inc, rating, res, cover, assists)
    for inc in INCOMING
    for rating, assists in [(0, 0), (1, 0), (2, 0), (1, 2), (3, 1)]
    for res in (0, 2)
    for cover in (False, True)
]


@pytest.mark.parametrize(("incoming", "rating", "resistance", "cover", "assists"), GRID)
def test_block_and_dodge_match_enumeration(
    incoming: str, rating: int, resistance: int, cover: bool, assists: int
) -> None:
    """R40 Block and Dodge, with Take Cover and Defense Assist, exactly and in float64."""
    dmg = distribution(incoming)
    kw = {"cover": cover, "assists": assists}
    b = blocked(dmg, rating, resistance, **kw)
    d = dodged(dmg, rating, resistance, **kw)
    want_b = brute_defence(incoming, _block, rating, resistance, cover, assists)
    want_d = brute_defence(incoming, _dodge, rating, resistance, cover, assists)
    assert nonzero(b.pmf_exact()) == want_b
    assert nonzero(d.pmf_exact()) == want_d
    for dist in (b, d):
        assert sum(dist.pmf_exact().values()) == 1
        exact = dist.pmf_exact()
        for t, p in dist.pmf().items():
            assert p == pytest.approx(float(exact[t]), abs=1e-12)


@pytest.mark.parametrize("incoming", INCOMING)
@pytest.mark.parametrize("resistance", [0, 1, 3, 20])
def test_undefended_match_enumeration(incoming: str, resistance: int) -> None:
    """R40: with no defence, Resistance still applies, never below 0."""
    got = undefended(distribution(incoming), resistance)
    assert nonzero(got.pmf_exact()) == brute_undefended(incoming, resistance)


@settings(max_examples=40, deadline=None)
@given(
    incoming=st.sampled_from(["1d4", "1d8", "2d4+1", "1d6/2+3", "1d4+1d4"]),
    rating=st.integers(-2, 3),
    resistance=st.integers(-1, 4),
    cover=st.booleans(),
    assists=st.integers(0, 2),
    rule=st.sampled_from(["block", "dodge"]),
)
def test_defences_match_enumeration_property(
    incoming: str, rating: int, resistance: int, cover: bool, assists: int, rule: str
) -> None:
    """Random ratings (including ratings ≤ 0: still 1d4, R3) and resistances."""
    fn = blocked if rule == "block" else dodged
    want = brute_defence(
        incoming, _block if rule == "block" else _dodge, rating, resistance, cover, assists
    )
    got = fn(distribution(incoming), rating, resistance, cover=cover, assists=assists)
    assert nonzero(got.pmf_exact()) == want


def test_defence_total_matches_icepool() -> None:
    """defence_total = (rating + assists)d4, doubled in cover, then + Resistance."""
    for rating, res, cover, assists in itertools.product(
        range(0, 5), (0, 3), (False, True), (0, 2)
    ):
        n = max(1, rating + assists)
        pool = n @ icepool.d4
        want = (pool * 2 if cover else pool) + res
        got = defence_total(rating, res, cover=cover, assists=assists)
        assert nonzero(got.pmf_exact()) == icepool_pmf(want)


def test_cover_doubles_the_dice_then_adds_resistance() -> None:
    # 1d4 in cover with Resistance 3: 2·{1,2,3,4}+3 = {5,7,9,11}; (1d4+3)·2 would be {8,…,14}.
    assert nonzero(defence_total(1, 3, cover=True).pmf_exact()) == {
        t: Fraction(1, 4) for t in (5, 7, 9, 11)
    }


def test_assists_add_d4s_and_minimum_pool() -> None:
    assert defence_total(2, assists=1).pmf_exact() == distribution("3d4").pmf_exact()
    assert defence_total(0).pmf_exact() == distribution("1d4").pmf_exact()  # R3
    assert defence_total(-3, assists=1).pmf_exact() == distribution("1d4").pmf_exact()
    assert defence_total(0, assists=3).pmf_exact() == distribution("3d4").pmf_exact()


def test_dodge_is_all_or_nothing_by_hand() -> None:
    """R40 Dodge against a fixed 5 damage with Dodge Rating 1 and Resistance 2: defence is
    1d4+2 ∈ {3,4,5,6}; faces 3 and 4 reach 5 → P(0) = 1/2; otherwise the full 5 is dealt
    (not 5 − 2 = 3: Resistance is not subtracted on a failed dodge)."""
    got = dodged(distribution("5"), 1, 2)
    assert nonzero(got.pmf_exact()) == {0: Fraction(1, 2), 5: Fraction(1, 2)}
    assert got.p_at_least_exact(1) == Fraction(1, 2)
    assert 3 not in nonzero(got.pmf_exact())


def test_block_by_hand() -> None:
    """R40 Block against a fixed 5 with Block Rating 1 and Resistance 2: 5 − {3,4,5,6} =
    {2,1,0,−1→0}."""
    got = blocked(distribution("5"), 1, 2)
    assert nonzero(got.pmf_exact()) == {0: Fraction(1, 2), 1: Fraction(1, 4), 2: Fraction(1, 4)}
    assert undefended(distribution("5"), 2).pmf_exact() == {3: Fraction(1)}
    assert undefended(distribution("5"), 9).pmf_exact() == {0: Fraction(1)}


def test_dodge_ties_go_to_the_defender() -> None:
    """ "equal to or higher than the damage … all damage is prevented": damage 4 vs 1d4 → only a
    4 on the die stops it."""
    got = dodged(distribution("4"), 1)
    assert nonzero(got.pmf_exact()) == {0: Fraction(1, 4), 4: Fraction(3, 4)}


def test_block_lowers_the_mean_damage_below_no_defence() -> None:
    """A Block removes at least Resistance + 1 (the pool is at least 1d4) wherever the hit
    gets through Resistance, so its mean damage is strictly lower than taking the hit."""
    inc = distribution("2d8/2+3")
    for rating in range(0, 5):
        for res in range(0, 3):
            assert (
                blocked(inc, rating, res).mean_exact < undefended(inc, res).mean_exact
                or undefended(inc, res).mean_exact == 0
            )
