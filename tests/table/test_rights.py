"""``caltrop.table.rights``: who may issue a command (issue 11, "Who may do what": "a player acts
only for their own creature; GM commands (undo, GM rolls, damage/heal, add/remove, facts, end
encounter) are refused to players")."""

from __future__ import annotations

import pytest

from caltrop.core.commands import parse_command
from caltrop.encounter import CHANCE
from caltrop.table.rights import refusal
from tests.table.plays import begin

GM_LINES = [
    "gm: damage orc-brute 3",
    "gm: heal bron 2",
    "gm: call aria Finesse dc 12",
    "gm: end encounter",
    "gm: set bron load 2",
    "gm: set aria prone on",
    "gm: add goblin",
    "gm: remove orc-brute",
    "gm: order bron,aria,orc-brute,goblin-archer",
    "gm: pass all",
    "total 12",
]


@pytest.mark.parametrize("line", GM_LINES)
def test_gm_commands_are_the_gms(line: str) -> None:
    enc = begin("orc-bridge")
    command = parse_command(line)
    assert refusal(enc, None, command) is None
    reason = refusal(enc, "bron", command)
    assert reason is not None
    assert "GM" in reason


def test_a_player_acts_for_its_own_creature_only() -> None:
    enc = begin("orc-bridge")
    strike = parse_command("bron: strike orc-brute")
    assert refusal(enc, "bron", strike) is None
    assert refusal(enc, "aria", strike) == "this seat plays aria, not bron"
    assert refusal(enc, None, strike) is None  # the GM may stand in for a player


def test_a_player_rolls_its_own_roll_once_the_window_is_closed() -> None:
    """R15: the roll stays pending while others may still react; only then its player rolls."""
    enc = begin("orc-bridge")
    enc.apply(parse_command("bron: strike orc-brute"))
    roll = parse_command("roll")
    assert enc.current() != CHANCE
    assert refusal(enc, "bron", roll) is not None
    assert refusal(enc, None, roll) is None
    enc.apply(parse_command("gm: pass all"))
    assert enc.current() == CHANCE
    assert refusal(enc, "bron", roll) is None
    assert refusal(enc, "bron", parse_command("roll 1,2,3,4,1,5")) is None
    reason = refusal(enc, "aria", roll)
    assert reason is not None
    assert "bron's" in reason
