"""First checks of the dice core; the full suite compares against icepool and brute force."""

from fractions import Fraction

import numpy as np

from caltrop.dice import distribution, parse, roll


def test_three_d4_at_least_ten_is_five_in_32() -> None:
    # 3d4 totals ≥ 10: (4,4,4),(4,4,3)x3,(4,4,2)x3,(4,3,3)x3 → 10 of 64.
    assert distribution("3d4").p_at_least_exact(10) == Fraction(10, 64)


def test_roll_renders_every_die() -> None:
    r = roll(parse("5d4+1d8"), entered=[3, 1, 4, 4, 2, 7])
    assert str(r) == "5d4 (3,1,4,4,2) + 1d8 (7) = 21"
    assert roll("5d4+1d8", np.random.default_rng(7)).total in range(6, 29)
