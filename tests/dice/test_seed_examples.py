"""Dice examples of the seed texts, each quoting the sentence it checks.

Numbers are derived by hand in comments and cross-checked by brute-force enumeration.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

from caltrop.core.pool import Advantage, net_advantage, pool_size
from caltrop.dice import (
    Dice,
    blocked,
    distribution,
    dodged,
    parse,
    pool,
    render_plain,
    roll,
    undefended,
)
from tests.dice.oracles import brute_pmf, d4_sums

# -- seed 000 / 001: resolving the dice roll ---------------------------------------------------------


def test_dagger_example_total_14_against_evasion_11() -> None:
    """Seed 000: "Your Finesse is 6 and your Action Load is 2. You want to use a dagger (1d4
    damage). You roll 6 − 2 = 4d4 + 1d4 (damage). Your total is 14. The GM subtracts the target's
    Evasion (e.g. 11). The remainder is damage dealt." Seed 001: "…leaving 3 damage dealt." (R16)
    """
    expr = pool(pool_size(6, 2), Dice(1, 4))
    assert str(expr) == "4d4+1d4"
    r = roll(expr, entered=[4, 3, 2, 1, 4])  # one way to roll 14
    assert r.total == 14
    assert render_plain(r) == "4d4 (4,3,2,1) + 1d4 (4) = 14"
    assert max(0, r.total - 11) == 3
    # The odds of exactly this outcome: 4d4+1d4 is 5d4; totals of 14 over 4**5 by enumeration.
    d = distribution(expr)
    assert d.damage(11).pmf_exact()[3] == Fraction(d4_sums(5)[14], 4**5)
    assert d.pmf_exact() == distribution("5d4").pmf_exact()


def test_meets_or_beats_the_dc() -> None:
    """Seed 000: "Compares the total to a Difficulty Class (DC) → The action succeeds if the total
    meets or beats the DC" (R4, R16). 1d4 against DC 4 succeeds only on a 4: 1/4, not 0."""
    assert distribution("1d4").p_at_least_exact(4) == Fraction(1, 4)
    # 2d4 against DC 7: (3,4), (4,3), (4,4) → 3/16.
    assert distribution("2d4").p_at_least_exact(7) == Fraction(3, 16)


def test_trap_check_rolls_5d4() -> None:
    """Seed 000: "The player will roll 5d4." — the check's odds against a DC come from 5d4.
    P(5d4 ≥ 15) by enumerating all 1024 rolls."""
    net = net_advantage(
        [Advantage("dis", "dark"), Advantage("adv", "torch"), Advantage("adv", "advice")]
    )
    expr = pool(pool_size(4, 0, net))
    counts = d4_sums(5)
    want = Fraction(sum(c for t, c in counts.items() if t >= 15), 4**5)
    assert distribution(expr).p_at_least_exact(15) == want


def test_favor_adds_one_d4() -> None:
    """R2 with seed 004: "If your target is within close range, you gain Favor" — a Dexterity 3
    ranged attack at close range rolls 4d4; within far range, with Disfavor, 2d4."""
    assert pool_size(3, 0, net_advantage([("adv", "close-range")])) == 4
    assert pool_size(3, 0, net_advantage([("dis", "far-range")])) == 2


# -- seed 004: attacking -------------------------------------------------------------------------------


def test_unarmed_damage_halved_up_plus_power_mod() -> None:
    """Seed 004: "Standard unarmed attack requires 2 AP, and it's damage is (1d8 + [Power
    Mod])." and "For damage dealt, rolled value is halved up, but modifiers are added normally."
    (R38) With Power Mod 2: 1d8 → 1,1,2,2,3,3,4,4 halved up, +2 → 3..6, each 1/4; the modifier
    is not halved (that would give 1d8+2 halved: 2..5)."""
    got = distribution("1d8/2+2").pmf_exact()
    assert got == {t: Fraction(1, 4) for t in (3, 4, 5, 6)}
    assert got != distribution("(1d8+2)/2").pmf_exact()
    assert roll("1d8/2+2", entered=[7]).total == 6  # ceil(7/2) = 4, + 2


def test_several_weapons_are_summed_then_halved() -> None:
    """Seed 004: "While having multiple weapons equipped, you may attack with them
    simultaneously." R38: "deals their damages summed, as one attack" with "Damage =
    ceil(sum of damage dice / 2) + modifiers". A 1d8 and a 1d6 weapon: 8 and 6 rolled odd-odd
    (1 and 1) give ceil(2/2) = 1, not 1 + 1."""
    expr = parse("(1d8+1d6)/2+1")
    want = Counter(math.ceil(Fraction(a + b, 2)) + 1 for a in range(1, 9) for b in range(1, 7))
    assert distribution(expr).pmf_exact() == {t: Fraction(c, 48) for t, c in sorted(want.items())}
    assert roll(expr, entered=[1, 1]).total == 2


def test_ranged_check_dc_is_the_distance() -> None:
    """Seed 004: "To hit, you make a Dexterity check with the difficulty being the distance
    between you and your target in meters." R34: rounded up to a whole meter. Dexterity 2 at
    7.2 m within close range (Favor) rolls 3d4 against DC 8: totals ≥ 8 by enumeration."""
    dc = math.ceil(7.2)
    n = pool_size(2, 0, net_advantage([("adv", "close-range")]))
    assert (n, dc) == (3, 8)
    want = Fraction(sum(1 for f in itertools.product(range(1, 5), repeat=3) if sum(f) >= 8), 64)
    # 3d4 counts for totals 12, 11, 10, 9, 8 are 1, 3, 6, 10, 12: 32 of 64.
    assert want == Fraction(32, 64)
    assert distribution(pool(n)).p_at_least_exact(dc) == want


def test_ranged_damage_is_not_halved() -> None:
    """R39: "Damage = the weapon's dice, not halved." A 1d8 bow deals 1..8."""
    assert distribution("1d8").pmf_exact() == {t: Fraction(1, 8) for t in range(1, 9)}


# -- seed 004: defending -------------------------------------------------------------------------------


def test_block_reduces_the_damage() -> None:
    """Seed 004: "Block: You roll your Block Rating and add Resistance, reducing the damage dealt
    by the result." (R40) 6 damage, Block Rating 1, Resistance 1: 6 − (1d4+1) = 4,3,2,1."""
    got = blocked(distribution("6"), 1, 1)
    assert {t: p for t, p in got.pmf_exact().items() if p} == {
        t: Fraction(1, 4) for t in (1, 2, 3, 4)
    }


def test_dodge_all_or_nothing() -> None:
    """Seed 004: "Dodge: You roll your Dodge Rating and add Resistance. If the result is equal to
    or higher than the damage that would be dealt to your health, all damage is prevented. If the
    result is lower, damage is fully dealt to you" (R40). 6 damage, Dodge 2, Resistance 1:
    2d4+1 ≥ 6 iff 2d4 ≥ 5: 10 of 16 → P(0) = 10/16, P(6) = 6/16 (the full 6, not 6 − 1)."""
    got = dodged(distribution("6"), 2, 1)
    assert {t: p for t, p in got.pmf_exact().items() if p} == {
        0: Fraction(10, 16),
        6: Fraction(6, 16),
    }


def test_take_cover_doubles_the_roll() -> None:
    """Seed 004: "Take Cover … Any Dodge or Block rolls used against the source of damage are
    doubled" (R40: the dice total is doubled, then Resistance added). 9 damage, Block 1 in cover,
    Resistance 1: 9 − (2·1d4 + 1) = 6, 4, 2, 0."""
    got = blocked(distribution("9"), 1, 1, cover=True)
    assert {t: p for t, p in got.pmf_exact().items() if p} == {
        t: Fraction(1, 4) for t in (0, 2, 4, 6)
    }


def test_defense_assist_adds_a_die_each_time() -> None:
    """Seed 004: "If a creature adjacent to you is being attacked, you can use 1 RP to add 1 die
    to their Block or Dodge rating, any number of times." Dodge 1 with two assists is 3d4.
    Against 9 damage: dodged iff 3d4 ≥ 9 — 20 of 64 rolls (10 + 6 + 3 + 1 for 9, 10, 11, 12)."""
    got = dodged(distribution("9"), 1, assists=2)
    assert got.pmf_exact()[0] == Fraction(20, 64)
    assert Fraction(sum(c for t, c in d4_sums(3).items() if t >= 9), 64) == Fraction(20, 64)


def test_resistance_always_applies() -> None:
    """Seed 004: "Your Resistance value always applies to incoming damage, if not stated
    otherwise. It reduces the damage by the stat value." Undefended unarmed hit (1d8/2+2) against
    Resistance 2 deals 1d8 halved up: 1..4."""
    got = undefended(distribution("1d8/2+2"), 2)
    assert got.pmf_exact() == brute_pmf(parse("1d8/2"))


def test_martial_check_is_a_check() -> None:
    """Seed 004: "You spend 3 AP to make an Analysis check." (R44, R1: a pool of Analysis d4s
    against a GM-set DC). Analysis 2 against DC 8 succeeds only on (4, 4): 1/16."""
    assert distribution(pool(2)).p_at_least_exact(8) == Fraction(1, 16)
