"""Dice notation: canonical text, round trips, syntax errors with columns, and limits."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caltrop.dice import Const, Dice, Div, Expr, Group, Term, parse, pool
from caltrop.dice.parse import MAX_DICE, MAX_SIDES, MAX_SPAN
from caltrop.errors import DiceLimitError, DiceSyntaxError
from tests.dice.oracles import exprs, slots


def _dice_count(e: Expr) -> int:
    return len(slots(e))


# Round trips over generated ASTs. Counts and sides go up to the limits so that the text of
# multi-digit numbers is exercised; expressions over MAX_DICE dice are filtered out (they are
# rejected by design, tested below).
_wide = exprs(max_count=400, max_sides=MAX_SIDES, max_const=10**6, max_terms=4).filter(
    lambda e: _dice_count(e) <= MAX_DICE and sum(s - 1 for s in slots(e)) <= MAX_SPAN
)


@settings(max_examples=300, deadline=None)
@given(_wide)
def test_parse_of_str_is_identity_on_asts(e: Expr) -> None:
    assert parse(str(e)) == e


@settings(max_examples=200, deadline=None)
@given(_wide, st.data())
def test_str_of_parse_is_canonical_with_spaces_and_capitals(e: Expr, data: st.DataObject) -> None:
    """Spaces anywhere between tokens and an upper-case ``D`` parse to the same tree, whose
    text is the canonical form."""
    text = str(e)
    # Insert spaces at random token boundaries (never inside a number).
    out: list[str] = []
    for i, ch in enumerate(text):
        boundary = i == 0 or not (ch.isdigit() and text[i - 1].isdigit())
        if boundary and data.draw(st.booleans()):
            out.append(" ")
        out.append("D" if ch == "d" and data.draw(st.booleans()) else ch)
    noisy = "".join(out) + data.draw(st.sampled_from(["", " ", "  "]))
    parsed = parse(noisy)
    assert parsed == e
    assert str(parsed) == text
    assert parse(str(parsed)) == parsed


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("5d4+1d8", "5d4+1d8"),
        ("5d4 + 1d8", "5d4+1d8"),
        ("3d4-2", "3d4-2"),
        ("2d8/2+3", "2d8/2+3"),
        ("(1d8+1d6)/2+1", "(1d8+1d6)/2+1"),
        ("-1d4+3", "-1d4+3"),
        ("+3", "3"),  # a leading plus is dropped
        ("d4", "1d4"),  # a missing count is one die
        ("D8", "1d8"),
        ("0d4+2", "0d4+2"),
        ("((2d4))", "((2d4))"),  # groups are kept, not flattened
        ("-(1d4-2)/2", "-(1d4-2)/2"),
    ],
)
def test_str_of_parse(text: str, canonical: str) -> None:
    assert str(parse(text)) == canonical


def test_parse_builds_the_expected_tree() -> None:
    assert parse("2d8/2+3") == Expr((Term(1, Div(Dice(2, 8), 2)), Term(1, Const(3))))
    assert parse("-(1d8+1d6)/2") == Expr(
        (Term(-1, Div(Group(Expr((Term(1, Dice(1, 8)), Term(1, Dice(1, 6))))), 2)),)
    )
    assert parse("d4") == Expr((Term(1, Dice(1, 4)),))


def test_pool_helper_and_dice_slots() -> None:
    assert str(pool(4, Dice(1, 8))) == "4d4+1d8"
    assert str(pool(3, Const(2))) == "3d4+2"
    assert parse("5d4+1d8").dice_slots() == (4, 4, 4, 4, 4, 8)
    assert parse("(1d8+2d6)/2-1d4+3").dice_slots() == (8, 6, 6, 4)
    assert parse("7").dice_slots() == ()


def test_empty_expr_is_rejected() -> None:
    with pytest.raises(ValueError, match="at least one term"):
        Expr(())


def test_nodes_are_hashable_and_frozen() -> None:
    e = parse("5d4+1d8")
    assert hash(e) == hash(parse("5d4 + 1D8"))
    with pytest.raises(AttributeError):
        e.terms = ()  # type: ignore[misc]


# -- syntax errors: DiceSyntaxError with the 1-based column of the offending character -----------


@pytest.mark.parametrize(
    ("text", "column", "why"),
    [
        ("5x4", 2, "unexpected character 'x'"),
        (" 5x4", 3, "unexpected character 'x'"),
        ("5d4+", 5, "ends too early"),  # the column just past the end
        ("5d4//2", 5, "unexpected '/'"),  # the second slash
        ("5d4+1d8*2", 8, "unexpected character '*'"),
        ("", 1, "ends too early"),
        ("+", 2, "ends too early"),
        ("5d4++1", 5, "unexpected '+'"),
        ("--1", 2, "unexpected '-'"),
        ("(5d4", 5, "ends too early"),
        ("5d4)", 4, "unexpected ')'"),
        ("()", 2, "unexpected ')'"),
        ("5d", 3, "ends too early"),
        ("1d4/", 5, "ends too early"),
        ("1d4/2/2", 6, "unexpected '/'"),  # a/b/c is not allowed
        ("1d4/-2", 5, "unexpected '-'"),  # divisors are unsigned
        ("5d4 2", 5, "unexpected '2'"),
        ("1d4 1d4", 5, "unexpected '1'"),
        ("5d4\t+1", 4, "unexpected character '\\t'"),  # only spaces are ignored
    ],
)
def test_syntax_error_column(text: str, column: int, why: str) -> None:
    with pytest.raises(DiceSyntaxError) as info:
        parse(text)
    err = info.value
    assert err.column == column
    assert err.text == text
    assert why in err.expected
    # The message shows the text with a caret under the offending column.
    lines = str(err).splitlines()
    assert lines[0].startswith(f"bad dice expression at column {column}:")
    assert lines[1] == f"  {text}"
    assert lines[2] == "  " + " " * (column - 1) + "^"


def test_syntax_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="column 2"):
        parse("5x4")


# -- limits ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("5d0", "at least 1 side"),
        ("d0+1", "at least 1 side"),
        ("1d4/0", "cannot divide by 0"),
        ("(1d4+1)/0", "cannot divide by 0"),
        ("((1d4)/0)", "cannot divide by 0"),  # inside a group too
        (f"{MAX_DICE + 1}d4", f"{MAX_DICE + 1} dice"),
        ("500d4+501d4", "1001 dice"),  # the cap is on the whole expression
        ("600d4-(401d6)", "1001 dice"),
        ("12345678901234567890d4", "at most 1000"),
        (f"1d{MAX_SIDES + 1}", f"at most {MAX_SIDES} sides"),
        ("1000d1000", "999001 possible totals"),  # 1000 dice of 1000 sides: too wide to be exact
        ("21d1000+1d2", "20981 possible totals"),
    ],
)
def test_limits(text: str, match: str) -> None:
    with pytest.raises(DiceLimitError, match=match):
        parse(text)


def test_limits_are_inclusive() -> None:
    assert len(parse(f"{MAX_DICE}d4").dice_slots()) == MAX_DICE
    assert len(parse("500d4+500d4").dice_slots()) == MAX_DICE
    assert parse(f"1d{MAX_SIDES}").dice_slots() == (MAX_SIDES,)
    assert len(parse(f"{MAX_SPAN // 999}d1000").dice_slots()) == MAX_SPAN // 999  # 20 dice fit
    assert parse("1d4/1") == Expr((Term(1, Div(Dice(1, 4), 1)),))
