"""Rolling from a seeded RNG or from entered physical dice (R5), and the three renderers."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caltrop.dice import (
    EnteredDice,
    RngDice,
    Roll,
    distribution,
    parse,
    render_d4_math,
    render_json,
    render_plain,
    roll,
)
from caltrop.dice.ast import Expr
from caltrop.dice.render import d4_pairs
from caltrop.dice.roll import roll_faces
from caltrop.errors import DiceInputError
from tests.dice.oracles import evaluate, exprs, slots

# -- seeded rolls ----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["5d4+1d8", "2d8/2+3", "(1d8+1d6)/2+1", "-1d4+3", "0d4+2", "7"])
def test_same_seed_same_roll(text: str) -> None:
    a = roll(text, np.random.default_rng(1234))
    b = roll(text, np.random.default_rng(1234))
    assert a == b
    assert str(a) == str(b)
    assert a.faces == b.faces
    assert len(a.faces) == len(parse(text).dice_slots())


def test_different_seeds_differ() -> None:
    rolls = {roll("20d4", np.random.default_rng(seed)).faces for seed in range(10)}
    # 10 draws of 20 d4 faces (4**20 possibilities) colliding would be astronomically unlikely.
    assert len(rolls) == 10


def test_rng_is_the_only_source_of_randomness() -> None:
    """Caltrop draws from the passed-in generator: successive rolls on one generator advance it,
    and a generator in the same state gives the same faces."""
    rng = np.random.default_rng(99)
    first = roll("10d4", rng)
    second = roll("10d4", rng)
    again = np.random.default_rng(99)
    assert roll("10d4", again) == first
    assert roll("10d4", again) == second


@settings(max_examples=80, deadline=None)
@given(exprs(max_count=8, max_sides=20), st.integers(0, 2**32 - 1))
def test_rng_rolls_are_in_range_and_total_correctly(e: Expr, seed: int) -> None:
    r = roll(e, np.random.default_rng(seed))
    sides = slots(e)
    assert len(r.faces) == len(sides)
    assert all(1 <= f <= s for f, s in zip(r.faces, sides, strict=True))
    # The total is the oracle's evaluation of the same faces (ceil by Fraction there).
    assert r.total == evaluate(e, iter(r.faces))
    assert r.expr == e
    # Every rolled total is a possible outcome of the exact distribution.
    assert distribution(e).pmf_exact()[r.total] > 0


@settings(max_examples=80, deadline=None)
@given(exprs(max_count=8, max_sides=20), st.integers(0, 2**32 - 1))
def test_faces_fed_back_as_entered_give_the_identical_roll(e: Expr, seed: int) -> None:
    """R5: entered dice are recorded exactly like generated ones."""
    r = roll(e, np.random.default_rng(seed))
    again = roll(e, entered=list(r.faces))
    assert again == r
    assert render_plain(again) == render_plain(r)
    assert render_json(again) == render_json(r)


def test_rng_dice_source_directly() -> None:
    src = RngDice(np.random.default_rng(5))
    assert src.faces(4, 0) == ()
    faces = src.faces(4, 1000)
    assert set(faces) == {1, 2, 3, 4}  # 1000 d4s without some face: probability ≈ 4·0.75**1000
    assert all(type(f) is int for f in faces)


SIDES = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 20, 100, 2**31 + 1, 3 * 10**9, 2**32 - 1, 2**32, 2**40]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(SIDES), st.integers(0, 9)), max_size=30),
    st.integers(0, 2**32 - 1),
    st.sampled_from([np.random.PCG64, np.random.MT19937, np.random.Philox, np.random.SFC64]),
)
def test_rng_dice_draw_what_numpy_draws(
    dice: list[tuple[int, int]], seed: int, bit_generator: type[np.random.BitGenerator]
) -> None:
    """RngDice draws its own dice word by word: the faces, and the generator's state after
    them, are those of ``rng.integers(1, sides + 1, size=count)`` for every term, whatever the
    sides (some ranges reject many words: 3·10**9 about a third) and the bit generator."""
    ours = np.random.Generator(bit_generator(seed))
    theirs = np.random.Generator(bit_generator(seed))
    src = RngDice(ours)
    for sides, count in dice:
        expected = tuple(int(v) for v in theirs.integers(1, sides + 1, size=count))
        faces = src.faces(sides, count)
        assert faces == expected
        assert all(type(f) is int for f in faces)
    np.testing.assert_equal(ours.bit_generator.state, theirs.bit_generator.state)


def test_rng_dice_refuse_what_numpy_refuses() -> None:
    """A negative count or an empty range raises numpy's own error, as before."""
    src = RngDice(np.random.default_rng(1))
    with pytest.raises(ValueError, match="negative dimensions"):
        src.faces(4, -1)
    with pytest.raises(ValueError, match="low >= high"):
        src.faces(0, 2)
    assert src.faces(1, 3) == (1, 1, 1)  # a d1 draws nothing and shows 1


def test_rng_dice_draw_what_numpy_draws_at_length() -> None:
    """A long mixed stream, with the rejection step of Lemire's method exercised often."""
    ours, theirs = np.random.default_rng(2024), np.random.default_rng(2024)
    src = RngDice(ours)
    plan = np.random.default_rng(7)
    for _ in range(3000):
        sides = int(plan.choice([3, 4, 6, 8, 12, 3 * 10**9, 2**31 + 1]))
        count = int(plan.integers(0, 6))
        assert src.faces(sides, count) == tuple(theirs.integers(1, sides + 1, size=count).tolist())
    assert ours.bit_generator.state == theirs.bit_generator.state


@settings(max_examples=80, deadline=None)
@given(exprs(max_count=8, max_sides=20), st.integers(0, 2**32 - 1))
def test_roll_faces_is_the_faces_and_total_of_roll(e: Expr, seed: int) -> None:
    ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
    rolled = roll(e, theirs)
    assert roll_faces(e, ours) == (rolled.faces, rolled.total)
    assert ours.bit_generator.state == theirs.bit_generator.state


# -- entered dice ----------------------------------------------------------------------------------


def test_entered_dice_keep_every_die_by_term() -> None:
    r = roll("5d4+1d8-2", entered=[3, 1, 4, 4, 2, 7])
    assert r.faces == (3, 1, 4, 4, 2, 7)
    assert [d.values for d in r.dice_rolls()] == [(3, 1, 4, 4, 2), (7,)]
    assert r.total == 3 + 1 + 4 + 4 + 2 + 7 - 2
    assert isinstance(r, Roll)


@pytest.mark.parametrize(
    ("text", "entered", "message"),
    [
        ("5d4+1d8", [1, 2, 3, 4, 1], "5d4+1d8 needs 6 dice (5×d4, 1×d8); 5 entered"),
        ("5d4+1d8", [1] * 7, "needs 6 dice (5×d4, 1×d8); 7 entered"),
        ("2d4", [], "2d4 needs 2 dice (2×d4); 0 entered"),
        ("3", [1], "3 needs 0 dice (no dice); 1 entered"),
        ("5d4+1d8", [2, 2, 2, 2, 2, 9], "die 6 of 6 is a d8 and shows 1 to 8, not 9"),
        ("5d4+1d8", [2, 2, 5, 2, 2, 8], "die 3 of 6 is a d4 and shows 1 to 4, not 5"),
        ("1d4", [0], "die 1 of 1 is a d4 and shows 1 to 4, not 0"),
        ("1d4", [-1], "not -1"),
        # Bug fixed: 2.5 used to be accepted and truncated to 2, "3" raised a bare TypeError.
        ("2d4", [2.5, 3], "die 1 of 2 is a d4: a face is a whole number, not 2.5"),
        ("2d4", [1, "3"], "die 2 of 2 is a d4: a face is a whole number, not '3'"),
    ],
)
def test_entered_dice_are_validated(text: str, entered: list[object], message: str) -> None:
    with pytest.raises(DiceInputError) as info:
        roll(text, entered=entered)  # type: ignore[arg-type]
    assert message in str(info.value)


def test_entered_dice_accept_any_integer_sequence() -> None:
    """Bug fixed: a numpy array used to fail on ``entered or ()`` (ambiguous truth value)."""
    r = roll("2d4+1d8", entered=np.array([1, 4, 8]))
    assert r.faces == (1, 4, 8)
    assert all(type(f) is int for f in r.faces)
    assert roll("2d4", entered=(2, 3)).total == 5
    assert roll("0d4+2", entered=[]).total == 2


def test_roll_needs_exactly_one_source() -> None:
    with pytest.raises(TypeError, match="exactly one"):
        roll("1d4")
    with pytest.raises(TypeError, match="exactly one"):
        roll("1d4", np.random.default_rng(1), entered=[1])


def test_entered_source_validates_up_front() -> None:
    """Nothing is consumed when validation fails; a valid source hands out faces in slot order."""
    e = parse("2d4+1d6")
    src = EnteredDice(e, [1, 2, 6])
    assert src.faces(4, 2) == (1, 2)
    assert src.faces(6, 1) == (6,)


# -- totals by hand --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "entered", "total"),
    [
        ("2d8/2+3", [3, 4], 7),  # ceil(7/2) = 4, + 3
        ("2d8/2+3", [4, 4], 7),  # ceil(8/2) = 4, + 3
        ("(1d8+1d6)/2+1", [7, 4], 7),  # ceil(11/2) = 6, + 1
        ("-1d4+3", [4], -1),
        ("-(2d4-3)/2", [1, 1], 0),  # 1+1-3 = -1; ceil(-1/2) = 0; negated 0
        ("-(2d4-3)/2", [1, 4], -1),  # 1+4-3 = 2; ceil(2/2) = 1; negated -1
        ("(2d4-9)/2", [1, 1], -3),  # 1+1-9 = -7; ceil(-7/2) = -3 (rounds up, towards +inf)
    ],
)
def test_totals_by_hand(text: str, entered: list[int], total: int) -> None:
    r = roll(text, entered=entered)
    assert r.total == total
    assert r.total == evaluate(parse(text), iter(entered))


# -- renderers -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "entered", "plain"),
    [
        ("5d4+1d8", [3, 1, 4, 4, 2, 7], "5d4 (3,1,4,4,2) + 1d8 (7) = 21"),
        ("3d4-2", [1, 2, 3], "3d4 (1,2,3) - 2 = 4"),
        ("2d8/2+3", [3, 4], "2d8 (3,4)/2 + 3 = 7"),
        ("(1d8+1d6)/2+1", [7, 4], "(1d8 (7) + 1d6 (4))/2 + 1 = 7"),
        ("-1d4+3", [4], "-1d4 (4) + 3 = -1"),
        ("0d4+2", [], "0d4 () + 2 = 2"),
    ],
)
def test_render_plain(text: str, entered: list[int], plain: str) -> None:
    r = roll(text, entered=entered)
    assert render_plain(r) == plain
    assert str(r) == plain


def test_render_json() -> None:
    r = roll("5d4+1d8-(1d6)/2", entered=[3, 1, 4, 4, 2, 7, 5])
    data = render_json(r)
    assert set(data) == {"expression", "total", "faces", "terms"}
    assert data["expression"] == "5d4+1d8-(1d6)/2"
    assert data["total"] == 14 + 7 - 3  # ceil(5/2) = 3
    assert data["faces"] == [3, 1, 4, 4, 2, 7, 5]
    assert data["terms"] == [
        {"sign": 1, "kind": "dice", "count": 5, "sides": 4, "values": [3, 1, 4, 4, 2], "total": 14},
        {"sign": 1, "kind": "dice", "count": 1, "sides": 8, "values": [7], "total": 7},
        {
            "sign": -1,
            "kind": "div",
            "divisor": 2,
            "operand": {
                "kind": "group",
                "terms": [
                    {"sign": 1, "kind": "dice", "count": 1, "sides": 6, "values": [5], "total": 5}
                ],
                "total": 5,
            },
            "total": 3,
        },
    ]
    # JSON-ready: survives a dumps/loads round trip unchanged.
    assert json.loads(json.dumps(data)) == data
    assert render_json(roll("3", entered=[]))["terms"] == [
        {"sign": 1, "kind": "const", "value": 3, "total": 3}
    ]


@pytest.mark.parametrize(
    ("text", "entered", "math_form"),
    [
        ("6d4", [1, 4, 4, 1, 2, 3], "6d4: (1+4) (1+4) (2+3) = 15"),
        ("7d4", [4, 4, 1, 1, 2, 3, 4], "7d4: (1+4) (1+4) (2+3) + 4 = 19"),
        ("3d4", [4, 2, 4], "3d4: 4+4+2 = 10"),  # no pairs: leftovers largest first
        ("4d4", [1, 1, 2, 4], "4d4: (1+4) + 2+1 = 8"),
        ("2d4", [3, 2], "2d4: (2+3) = 5"),
        ("0d4", [], "0d4: 0 = 0"),
        ("5d4+1d8", [3, 1, 4, 4, 2, 7], "5d4 [(1+4) (2+3) + 4] + 1d8 (7) = 21"),
        ("-2d4", [1, 4], "-2d4 [(1+4)] = -5"),
        ("1d8", [6], "1d8 (6) = 6"),
    ],
)
def test_render_d4_math(text: str, entered: list[int], math_form: str) -> None:
    assert render_d4_math(roll(text, entered=entered)) == math_form


@given(st.lists(st.integers(1, 4), max_size=30))
def test_d4_pairs_property(values: list[int]) -> None:
    """Every pair is a five, pairs plus leftovers are the same dice, no five is left unpaired,
    leftovers are largest first."""
    pairs, rest = d4_pairs(tuple(values))
    assert all(a + b == 5 and a < b for a, b in pairs)
    assert sorted([*(v for p in pairs for v in p), *rest]) == sorted(values)
    assert 5 * len(pairs) + sum(rest) == sum(values)
    assert not (1 in rest and 4 in rest)
    assert not (2 in rest and 3 in rest)
    assert rest == sorted(rest, reverse=True)


def test_rng_dice_copies_and_pickles_with_their_own_generator() -> None:
    """An ``RngDice`` holds ctypes hooks into its generator: a deep copy or a pickle wraps a copy
    of the generator (in the state it was), so both roll the same faces from then on, and
    rolling one does not move the other."""
    import copy
    import pickle

    source = RngDice(np.random.default_rng(9))
    source.faces(4, 3)
    for twin in (copy.deepcopy(source), pickle.loads(pickle.dumps(source))):
        assert twin.rng is not source.rng
        ahead = RngDice(copy.deepcopy(source.rng))
        assert twin.faces(4, 5) == ahead.faces(4, 5)
    assert source.faces(4, 5) == RngDice(np.random.default_rng(9)).faces(4, 8)[3:]
