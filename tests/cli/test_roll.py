"""``caltrop roll``: seeded or entered dice, every die shown, D4 math, DC and Evasion (R5, R16)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from caltrop.dice import render_d4_math, render_plain, roll
from tests.cli.conftest import Invoke
from tests.cli.helpers import assert_user_error

JsonInvoke = Callable[..., dict[str, Any]]


def test_entered_dice_show_every_die_and_the_d4_math(invoke: Invoke) -> None:
    """Issue 2: a roll "renders as plain text (`5d4 (3,1,4,4,2) + 1d8 (7) = 21`)"."""
    result = invoke("roll", "5d4+1d8", "--dice", "3,1,4,4,2,7")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "5d4 (3,1,4,4,2) + 1d8 (7) = 21"
    # D4 Math Tips: pair 1+4 and 2+3 into fives, then add what is left.
    assert "D4 math: 5d4 [(1+4) (2+3) + 4] + 1d8 (7) = 21" in lines
    assert "dice entered at the table" in result.stdout


def test_d4_math_sidebar_form_for_a_lone_pool(invoke: Invoke) -> None:
    """Seed 000 names the D4 Math Tips sidebar: pair 1s with 4s and 2s with 3s, count the fives."""
    result = invoke("roll", "7d4", "--dice", "1 4 1 4 2 3 4")
    assert result.exit_code == 0, result.stderr
    assert "D4 math: 7d4: (1+4) (1+4) (2+3) + 4 = 19" in result.stdout


def test_dice_may_be_separated_by_commas_or_spaces(invoke_json: JsonInvoke) -> None:
    assert invoke_json("roll", "3d4", "--dice", "1, 2 ,3")["faces"] == [1, 2, 3]


def test_seeded_roll_is_reproducible_and_uses_default_rng(invoke: Invoke) -> None:
    first = invoke("roll", "5d4+1d8", "--seed", "7")
    second = invoke("roll", "5d4+1d8", "--seed", "7")
    assert first.exit_code == 0, first.stderr
    assert first.stdout == second.stdout
    expected = roll("5d4+1d8", np.random.default_rng(7))
    assert first.stdout.splitlines()[0] == render_plain(expected)
    assert f"D4 math: {render_d4_math(expected)}" in first.stdout
    assert "seed 7 (given" in first.stdout


def test_unseeded_roll_prints_the_seed_that_reproduces_it(
    invoke: Invoke, invoke_json: JsonInvoke
) -> None:
    result = invoke("roll", "6d4+1d8")
    assert result.exit_code == 0, result.stderr
    match = re.search(r"seed (\d+) \(fresh", result.stdout)
    assert match, result.stdout
    again = invoke_json("roll", "6d4+1d8", "--seed", match.group(1))
    assert again["text"] == result.stdout.splitlines()[0]


def test_json_is_render_json_plus_seed_and_verdicts(invoke_json: JsonInvoke) -> None:
    data = invoke_json("roll", "5d4+1d8", "--seed", "11", "--dc", "14")
    expected = roll("5d4+1d8", np.random.default_rng(11))
    assert data["expression"] == "5d4+1d8"
    assert data["faces"] == list(expected.faces)
    assert data["total"] == expected.total
    assert [t["values"] for t in data["terms"]] == [list(d.values) for d in expected.dice_rolls()]
    assert data["seed"] == 11
    assert data["dc"] == 14
    assert data["success"] is (expected.total >= 14)
    assert data["evasion"] is None
    assert data["damage"] is None
    assert data["text"] == render_plain(expected)
    assert data["d4_math"] == render_d4_math(expected)


def test_entered_dice_json_has_no_seed(invoke_json: JsonInvoke) -> None:
    data = invoke_json("roll", "5d4+1d8", "--dice", "3,1,4,4,2,7", "--evasion", "11")
    assert data["seed"] is None
    assert data["total"] == 21
    assert data["damage"] == 21 - 11


@pytest.mark.parametrize(("dc", "verdict"), [(21, "success (21 ≥ 21)"), (22, "failure (21 < 22)")])
def test_dc_meets_or_beats(invoke: Invoke, dc: int, verdict: str) -> None:
    """R16: "A check against a DC succeeds iff total ≥ DC"."""
    result = invoke("roll", "5d4+1d8", "--dice", "3,1,4,4,2,7", "--dc", str(dc))
    assert f"DC {dc}: {verdict}" in result.stdout


@pytest.mark.parametrize(("evasion", "damage"), [(11, 10), (21, 0), (30, 0)])
def test_evasion_damage_is_never_negative(invoke: Invoke, evasion: int, damage: int) -> None:
    """R16: attacks deal max(0, total − Evasion)."""
    result = invoke("roll", "5d4+1d8", "--dice", "3,1,4,4,2,7", "--evasion", str(evasion))
    assert f"Evasion {evasion}: damage max(0, 21 − {evasion}) = {damage}" in result.stdout


def test_the_seed_text_dagger_roll(invoke: Invoke) -> None:
    """Seed 000: "You roll 6 − 2 = 4d4 + 1d4 (damage). Your total is 14. The GM subtracts the
    target's Evasion (e.g. 11). The remainder is damage dealt."""
    result = invoke("roll", "4d4+1d4", "--dice", "4,3,2,1,4", "--evasion", "11")
    assert result.exit_code == 0, result.stderr
    assert "= 14" in result.stdout.splitlines()[0]
    assert "damage max(0, 14 − 11) = 3" in result.stdout


# -- errors: red on stderr, exit code 2, never a traceback -------------------------------------


def test_too_few_entered_dice(invoke: Invoke) -> None:
    result = invoke("roll", "5d4+1d8", "--dice", "3,1,4,4,2")
    assert_user_error(result, "Error:", "5d4+1d8 needs 6 dice (5×d4, 1×d8); 5 entered")


def test_face_out_of_range(invoke: Invoke) -> None:
    result = invoke("roll", "5d4+1d8", "--dice", "3,1,4,4,5,7")
    assert_user_error(result, "die 5 of 6 is a d4 and shows 1 to 4, not 5")


def test_face_that_is_not_a_number(invoke: Invoke) -> None:
    result = invoke("roll", "5d4", "--dice", "3,1,four,4,2")
    assert_user_error(result, "die 3 is 'four', not a whole number")


def test_bad_expression_shows_the_caret(invoke: Invoke) -> None:
    result = invoke("roll", "5d4+*2")
    assert_user_error(result, "bad dice expression at column 5", "  5d4+*2\n      ^")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--dc", "10", "--evasion", "5"], "--dc and --evasion cannot be used together"),
        (["--seed", "1", "--dice", "1,2,3"], "--seed and --dice cannot be used together"),
    ],
)
def test_exclusive_options(invoke: Invoke, args: list[str], message: str) -> None:
    assert_user_error(invoke("roll", "3d4", *args), message)
