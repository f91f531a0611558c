"""The GM's facts of the Action Point module (R34): set by command, logged, undone, replayed."""

from __future__ import annotations

import json

import pytest

from caltrop.core.commands import SetFact, parse_command
from caltrop.core.model import (
    CreatureDef,
    Economy,
    EncounterDef,
    Initiative,
    Ruleset,
    Side,
)
from caltrop.economy.points.state import points
from caltrop.encounter import Encounter
from caltrop.errors import IllegalActionError, InvalidActionError

ASPECTS = {"Speed": 3, "Poise": 3, "Perception": 3, "Dexterity": 3}


def _duel() -> Encounter:
    ruleset = Ruleset(name="ap", economy=Economy.ACTION_POINTS, initiative=Initiative.GM)
    aria = CreatureDef("aria", "Aria", Side.PC, dict(ASPECTS), 10, stats={"x": 0, "y": 0})
    goblin = CreatureDef("goblin", "Goblin", Side.NPC, dict(ASPECTS), 10, stats={"x": 5, "y": 0})
    return Encounter.begin(EncounterDef("duel", ruleset, (aria, goblin)), seed=1)


@pytest.mark.parametrize(
    "line",
    [
        "gm: set aria prone on",
        "gm: set goblin aware aria off",
        "gm: set goblin sight aria off",
        "gm: set aria at 3,4.5",
        "gm: set aria at -2,0",
    ],
)
def test_fact_text_round_trips(line: str) -> None:
    """The shared notation: ``parse_command(str(c)) == c`` and ``str(parse_command(t)) == t``."""
    command = parse_command(line)
    assert isinstance(command, SetFact)
    assert str(command) == line
    assert parse_command(str(command)) == command


@pytest.mark.parametrize(
    "line",
    ["gm: set aria", "gm: set aria fly", "gm: set goblin aware on", "gm: set aria at 3"],
)
def test_malformed_facts_are_refused(line: str) -> None:
    with pytest.raises(InvalidActionError):
        parse_command(line)


def test_a_condition_no_ruleset_names_is_refused_by_the_engine() -> None:
    """R48: "set any condition or fact" — any condition the content names; ``fly`` is well
    formed but this ruleset names no such condition, so the engine refuses it and says which."""
    enc = _duel()
    with pytest.raises(IllegalActionError, match=r"no condition 'fly' \(conditions: prone"):
        enc.apply(parse_command("gm: set aria fly on"))
    assert enc.commands == ()


def test_facts_change_state_and_replay() -> None:
    """R34: "Line of sight, awareness and cover are facts the GM sets" — they change the state,
    are logged, undo and replay like every command."""
    enc = _duel()
    enc.apply(parse_command("gm: set goblin aware aria off"))
    enc.apply(parse_command("gm: set goblin sight aria off"))
    enc.apply(parse_command("gm: set aria prone on"))
    enc.apply(parse_command("gm: set aria at 2,1"))
    goblin = points(enc.resources[1])
    aria = points(enc.resources[0])
    assert goblin.unaware_of == ("aria",)
    assert goblin.no_sight == ("aria",)
    assert aria.prone
    assert (aria.x, aria.y) == (2.0, 1.0)
    replayed = Encounter.replay(enc.definition, [json.loads(x) for x in enc.log_lines()])
    assert replayed.to_json() == enc.to_json()
    enc.apply(parse_command("gm: set goblin aware aria on"))
    assert points(enc.resources[1]).unaware_of == ()
    enc.undo()
    assert points(enc.resources[1]).unaware_of == ("aria",)


@pytest.mark.parametrize(
    "line", ["gm: set a aware b off", "gm: set a sight b off", "gm: set a at 1,2"]
)
def test_positions_and_awareness_belong_to_the_action_point_module(line: str) -> None:
    """R34's facts (positions, awareness, line of sight) mean nothing without positions: the
    Action Load module refuses them with that reason (R48: facts work "where they mean
    anything"); prone is a condition there (see tests/encounter/test_gm.py)."""
    ruleset = Ruleset()
    a = CreatureDef("a", "A", Side.PC, {"Finesse": 3}, 5)
    b = CreatureDef("b", "B", Side.NPC, {"Finesse": 3}, 5)
    enc = Encounter.begin(EncounterDef("load", ruleset, (a, b)), seed=1)
    before = enc.to_json()
    with pytest.raises(IllegalActionError, match="Action Point module"):
        enc.apply(parse_command(line))
    assert enc.to_json() == before
