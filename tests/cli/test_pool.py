"""``caltrop pool``: the gate (R11, R20), the pool (R12, R14, R3) and GM-called rolls (R17)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any

import pytest

from caltrop.cli.pool_command import dice_arithmetic
from caltrop.core.pool import Revision, check_gate, gm_pool_size, pool_size
from tests.cli.conftest import Invoke
from tests.cli.helpers import assert_user_error

JsonInvoke = Callable[..., dict[str, Any]]

TRAP = ("pool", "4", "--load", "0", "--dis", "dark", "--adv", "torch", "--adv", "advice")


def test_trap_example_rolls_5d4(invoke: Invoke, invoke_json: JsonInvoke) -> None:
    """Seed 000: "Their Finesse value is 4 and they already acted this turn, so their Action Load
    is 0 … This trap is in a darkly lit dungeon which gives Disadvantage … One of the other
    characters helps by holding a torch, giving Advantage … Another character assists by peering
    over their shoulder and giving advice, granting another advantage - the pool is now 5.
    The player will roll 5d4."
    """
    data = invoke_json(*TRAP)
    assert data["allowed"] is True
    assert data["d4"] == 5
    assert data["expression"] == "5d4"
    assert data["net_advantage"] == 1
    assert data["reason"] == "Aspect 4 − Load 0 = 4 ≥ cost 1"

    result = invoke(*TRAP, "--aspect-name", "Finesse")
    assert result.exit_code == 0, result.stderr
    assert "Allowed: Finesse 4 − Load 0 = 4 ≥ cost 1 (R11)" in result.stdout
    assert "Net Advantage +1: advantage torch, advice; disadvantage dark" in result.stdout
    assert "Roll 5d4: Finesse 4 − Load 0 + 1 Net Advantage = 5d4" in result.stdout


def test_dagger_example_rolls_4d4_plus_1d4(invoke: Invoke, invoke_json: JsonInvoke) -> None:
    """Seed 000: "Your Finesse is 6 and your Action Load is 2. You want to use a dagger (1d4
    damage). You roll 6 − 2 = 4d4 + 1d4 (damage)."
    """
    data = invoke_json("pool", "6", "--load", "2", "--extra", "1d4")
    assert data["allowed"] is True
    assert data["d4"] == 4
    assert data["expression"] == "4d4+1d4"
    result = invoke("pool", "6", "--load", "2", "--extra", "1d4")
    assert "Roll 4d4+1d4: Aspect 6 − Load 2 = 4d4 + 1d4" in result.stdout
    assert "Then Load 2 + cost 1 = 3 (R12)." in result.stdout


def test_refusal_spells_out_the_arithmetic(invoke: Invoke, invoke_json: JsonInvoke) -> None:
    """R11: allowed iff Aspect − Load ≥ Cost; the refusal says why."""
    args = ("pool", "4", "--load", "3", "--cost", "2", "--aspect-name", "Finesse")
    data = invoke_json(*args)
    assert data == data | {"allowed": False, "d4": None, "expression": None}
    assert data["reason"] == "Finesse 4 − Load 3 = 1 < cost 2"
    result = invoke(*args)
    assert result.exit_code == 0
    assert "Not allowed: Finesse 4 − Load 3 = 1 < cost 2 (R11)" in result.stdout
    assert "No roll" in result.stdout


def test_advantage_never_opens_the_gate(invoke_json: JsonInvoke) -> None:
    """Seed 000: "Advantage and Disadvantage never change whether you can act"."""
    data = invoke_json("pool", "2", "--load", "2", "--adv", "torch", "--adv", "advice")
    assert data["allowed"] is False
    blocked_by_dis = invoke_json("pool", "3", "--load", "2", "--dis", "a", "--dis", "b")
    assert blocked_by_dis["allowed"] is True
    assert blocked_by_dis["d4"] == 1  # R3: at least 1d4


def test_a_source_counts_once(invoke: Invoke, invoke_json: JsonInvoke) -> None:
    """Seed 000: "If two allies both use the "Watch My Back" feature … you still only gain +1d4"."""
    args = ("pool", "3", "--adv", "watch-my-back", "--adv", "watch-my-back")
    assert invoke_json(*args)["d4"] == 4
    assert "a source counts once per action, R14" in invoke(*args).stdout


def test_zero_cost_at_zero_margin(invoke_json: JsonInvoke) -> None:
    """Seed 000: "A 0-cost action can be taken whenever Aspect − Load is 0 or more"; legacy
    (seed 001, R20) also needs Aspect − Load > 0."""
    args = ("pool", "2", "--load", "2", "--cost", "0")
    current = invoke_json(*args)
    assert (current["allowed"], current["d4"]) == (True, 1)
    legacy = invoke_json(*args, "--revision", "legacy")
    assert legacy["allowed"] is False
    assert "not more than 0" in legacy["reason"]


def test_legacy_fixed_pool(invoke_json: JsonInvoke) -> None:
    """R20: an action that "uses only 1d4" rolls that pool whatever the Load, and is still gated."""
    data = invoke_json("pool", "5", "--load", "1", "--revision", "legacy", "--fixed-pool", "1")
    assert (data["allowed"], data["expression"]) == (True, "1d4")


@pytest.mark.parametrize(
    ("args", "d4"),
    [
        (["-2", "--gm-roll"], 1),  # "at least 1d4, even with a negative Aspect"; no `--` needed
        (["4", "--load", "3", "--gm-roll"], 4),  # by default Load does not count (R17)
        (["4", "--load", "3", "--gm-roll", "--count-load"], 1),
        (["4", "--load", "-1", "--gm-roll", "--count-load"], 4),  # a negative Load adds nothing
        (["1", "--load", "5", "--cost", "3", "--gm-roll"], 1),  # the gate does not apply
    ],
)
def test_gm_called_rolls(invoke_json: JsonInvoke, args: list[str], d4: int) -> None:
    """R17: GM-called rolls roll max(1, Aspect − (max(0, Load) if Load counts) + NetAdv)."""
    data = invoke_json("pool", *args)
    assert data["allowed"] is True
    assert data["d4"] == d4
    assert data["gm_roll"] is True
    load = int(args[args.index("--load") + 1]) if "--load" in args else 0
    assert data["load_after"] == load  # a GM-called roll does not raise Load


def test_count_load_needs_gm_roll(invoke: Invoke) -> None:
    assert_user_error(invoke("pool", "4", "--count-load"), "--count-load only applies")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["4", "--extra", "1d"], "--extra: bad dice expression at column 3"),
        (["4", "--adv", "two words"], "an advantage source key is one word"),
        (["4", "--gm-roll", "--fixed-pool", "1"], "--fixed-pool"),
    ],
)
def test_pool_user_errors(invoke: Invoke, args: list[str], message: str) -> None:
    assert_user_error(invoke("pool", *args), message)


def test_arithmetic_text_agrees_with_the_core_rules() -> None:
    """The spelled-out sum always ends in the pool the core rule computes (no second rule)."""
    for aspect, load, net, revision, fixed in itertools.product(
        range(-2, 7), range(-2, 5), range(-3, 4), Revision, (None, 1, 2)
    ):
        if not check_gate(aspect, load, 0, revision):
            continue
        text = dice_arithmetic(aspect, load, net, revision=revision, fixed_pool=fixed)
        assert _final_d4(text) == pool_size(aspect, load, net, revision, fixed_pool=fixed), text
    for aspect, load, net, count in itertools.product(
        range(-2, 7), range(-2, 5), range(-3, 4), (False, True)
    ):
        text = dice_arithmetic(aspect, load, net, gm_roll=True, count_load=count)
        assert _final_d4(text) == gm_pool_size(aspect, load, net, count_load=count), text


def _final_d4(text: str) -> int:
    match = re.search(r"(\d+)d4$", text)
    assert match, text
    return int(match.group(1))
