"""The dice layer under hostile input (issue 10): every bad expression is refused with the
project's own error in microseconds, never a RecursionError, OverflowError, MemoryError or a
bare TypeError; and the limits are the same for an expression typed and one built in code."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from caltrop.dice import Const, Dice, Expr, Term, distribution, parse, roll
from caltrop.dice.faces import parse_faces
from caltrop.dice.parse import MAX_DEPTH, MAX_LENGTH, MAX_NUMBER, MAX_TERMS, check_limits
from caltrop.errors import (
    CaltropError,
    DiceInputError,
    DiceLimitError,
    DiceSyntaxError,
    DiceTypeError,
)
from tests.fuzzing import fuzz, within

T = TypeVar("T")

# -- the cases found by fuzzing, one test per class -------------------------------------------


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 165, 10_000])
def test_deep_parentheses_are_refused_before_parsing(depth: int) -> None:
    text = "(" * depth + "1d4" + ")" * depth
    with pytest.raises(DiceLimitError, match=f"nested more than {MAX_DEPTH} deep|characters long"):
        within(0.5, lambda: parse(text))


def test_parentheses_up_to_the_depth_limit_parse() -> None:
    text = "(" * MAX_DEPTH + "1d4" + ")" * MAX_DEPTH
    expr = parse(text)
    assert str(expr) == text
    assert distribution(expr).mean_exact == pytest.approx(2.5)


def test_a_sum_of_300_terms_is_refused_and_100_evaluate_flat() -> None:
    """``odds`` of a 300-term sum recursed past Python's stack; now the term count is bounded
    and the sum is folded in one frame, so even the largest allowed sum evaluates with a small
    recursion limit."""
    with pytest.raises(DiceLimitError, match=f"at most {MAX_TERMS}"):
        parse("+".join(["1"] * 300))
    built = Expr(tuple(Term(1, Dice(1, 4)) for _ in range(300)))
    with pytest.raises(DiceLimitError, match=f"at most {MAX_TERMS}"):
        distribution(built)
    largest = Expr(tuple(Term(1, Dice(1, 4)) for _ in range(MAX_TERMS)))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)  # the old chain of a + b nodes needed ~4 frames a term
    try:
        assert distribution(largest).mean_exact == 250
    finally:
        sys.setrecursionlimit(limit)


@pytest.mark.parametrize(
    "text",
    [
        "9" * 5000,  # past Python's 4,300-digit conversion limit
        "1d" + "9" * 5000,
        "9" * 400,  # converts, but 10**400 overflows a float (OverflowError in the mean)
        "1d4/" + "9" * 20,
        "1d4+" + str(MAX_NUMBER + 1),
    ],
)
def test_huge_numbers_are_refused(text: str) -> None:
    with pytest.raises(DiceLimitError):
        parse(text)


def test_numbers_up_to_the_limit_parse_and_evaluate() -> None:
    assert distribution(f"1d4+{MAX_NUMBER}").max == MAX_NUMBER + 4
    assert distribution(f"{MAX_NUMBER}/{MAX_NUMBER}").max == 1


def test_a_megabyte_expression_is_refused_at_once() -> None:
    """It took 41 s to parse; the length is now checked before the parser runs."""
    text = "+".join(["1d4"] * 250_000)
    with pytest.raises(DiceLimitError, match=f"at most {MAX_LENGTH:,}"):
        within(0.1, lambda: parse(text))
    assert len(parse("1" + " " * (MAX_LENGTH - 1)).terms) == 1  # the limit is inclusive


@pytest.mark.parametrize("value", [None, b"1d4", 5, ["1d4"], 2.5])
def test_parse_of_what_is_not_text_is_a_dice_type_error(value: object) -> None:
    with pytest.raises(DiceTypeError, match="a dice expression is text"):
        parse(value)  # type: ignore[arg-type]
    with pytest.raises(TypeError):  # still a TypeError for Python code that expects one
        parse(value)  # type: ignore[arg-type]
    with pytest.raises(DiceTypeError):
        distribution(value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "expr",
    [
        Expr((Term(1, Dice(10**9, 4)),)),  # a pool of 10**9 from content spun in dice/roll.py
        Expr((Term(1, Dice(1, 10**5000)),)),
        Expr((Term(1, Const(10**5000)),)),
        Expr((Term(1, Dice(-1, 4)),)),
    ],
)
def test_expressions_built_in_code_meet_the_same_limits(expr: Expr) -> None:
    import numpy as np

    with pytest.raises(DiceLimitError):
        within(0.5, lambda: check_limits(expr))
    with pytest.raises(DiceLimitError):
        within(0.5, lambda: roll(expr, np.random.default_rng(1)))
    with pytest.raises(DiceLimitError):
        within(0.5, lambda: roll(expr, entered=[1]))
    with pytest.raises(DiceLimitError):
        within(0.5, lambda: distribution(expr))


def test_a_syntax_error_never_prints_an_escape_sequence() -> None:
    with pytest.raises(DiceSyntaxError) as info:
        parse("1d4\x1b[31m")
    assert "\x1b" not in str(info.value)
    assert info.value.text == "1d4\x1b[31m"  # the text itself is kept for programs
    caret = str(info.value).splitlines()
    assert caret[1] == "  1d4?[31m"
    assert caret[2].index("^") == 2 + 3


# -- typed faces (R5) --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("٣,1", "die 1 is '٣'"),  # int() takes Arabic-Indic digits; the notation does not
        ("3,²", "die 2 is '²'"),
        (",", "no faces given"),
        ("", "no faces given"),
        ("  ", "no faces given"),
        ("3,x", "die 2 is 'x'"),
        ("9" * 5000, "no die has a face that large"),
        (",".join(["1"] * 1001), "at most 1000 dice"),
    ],
)
def test_bad_faces_are_refused(text: str, match: str) -> None:
    with pytest.raises(DiceInputError, match=match):
        parse_faces(text)


def test_faces_are_read_with_commas_and_spaces() -> None:
    """R5: the faces of physical dice, in expression order."""
    assert parse_faces(" 3, 1 4,,4 ") == (3, 1, 4, 4)
    assert parse_faces("-1") == (-1,)  # read, and refused by the expression (out of range)


# -- fuzzers -----------------------------------------------------------------------------------


def _outcome(call: Callable[[], T]) -> T | Exception:
    """What ``call()`` returns, or the exception it raised (any: the test says which may)."""
    try:
        return call()
    except Exception as exc:  # the fuzzer inspects whatever escapes
        return exc


_NOTATION = "0123456789dD()+-/ "
_hostile = st.one_of(
    st.text(),  # anything at all, surrogates and controls included
    st.text(alphabet=_NOTATION, max_size=60),  # near-misses of real expressions
    st.text(alphabet=_NOTATION + "٣²\x00\t\n", min_size=900, max_size=1100),  # around MAX_LENGTH
    st.builds(lambda d, inner: "(" * d + inner + ")" * d, st.integers(0, 40), st.text(_NOTATION)),
    st.builds(lambda n, t: "+".join([t] * n), st.integers(1, 400), st.sampled_from(["1", "d4"])),
    st.builds(lambda n: "9" * n, st.integers(1, 6000)),
)


@fuzz(400)
@given(_hostile)
def test_parse_of_any_text_returns_an_expression_or_a_dice_error(text: str) -> None:
    expr = within(1.0, lambda: _outcome(lambda: parse(text)))
    if isinstance(expr, Exception):
        assert isinstance(expr, DiceSyntaxError | DiceLimitError)
        message = str(expr)
        assert message
        assert "\x1b" not in message
        assert "\x00" not in message
        assert len(message.splitlines()[0]) < 200  # the first line is a short reason
        return
    assert parse(str(expr)) == expr  # whatever parses round-trips
    check_limits(expr)


@fuzz(100)
@given(_hostile.filter(lambda t: len(t) <= 200))
def test_odds_and_rolls_of_what_parses_are_bounded(text: str) -> None:
    import numpy as np

    try:
        expr = parse(text)
    except CaltropError:
        return
    dist = within(3.0, lambda: distribution(expr))
    assert dist.min <= dist.mean <= dist.max
    rolled = roll(expr, np.random.default_rng(0))
    assert dist.min <= rolled.total <= dist.max
    assert roll(expr, entered=list(rolled.faces)).total == rolled.total


@fuzz(300)
@given(st.one_of(st.text(), st.text(alphabet="0123456789, -٣²\t", max_size=40)))
def test_parse_faces_of_any_text_returns_ascii_faces_or_refuses(text: str) -> None:
    faces = _outcome(lambda: parse_faces(text))
    if isinstance(faces, Exception):
        assert isinstance(faces, DiceInputError)
        assert str(faces)
        assert "\n" not in str(faces)
        return
    assert faces
    assert all(str(abs(f)).isascii() for f in faces)
