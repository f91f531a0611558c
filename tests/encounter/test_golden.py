"""Golden logs: seed examples saved as JSON-lines logs and checked by replaying them.

Issue 3: "The log is a JSON-lines file: it is the save format, the replay format and the test
fixture format" and "the state is a pure function of the log (replaying it gives the same state,
byte for byte when serialised)."

Each scenario has two committed files under ``golden/``: ``NAME.jsonl`` (``log_lines()``) and
``NAME.state.json`` (``to_json()`` of the final state). The test replays the committed log with
the definition from :mod:`tests.encounter.builders` and compares both byte for byte; it also
plays the commands live and compares, so a change in the engine's behaviour shows up here.

The test only reads them: it cannot pass by writing what it compares against. To (re)generate
the files after a deliberate change, run the separate command (then review the diff)::

    .venv/bin/python -m tests.encounter.regen_golden
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from caltrop.core.model import EncounterDef
from caltrop.core.pool import Revision
from caltrop.encounter import Encounter
from tests.encounter.builders import (
    dagger_example,
    goblin_team_example,
    run,
    skirmish,
    trap_example,
    watch_my_back_example,
)

GOLDEN = Path(__file__).parent / "golden"


@dataclass(frozen=True)
class Scenario:
    name: str
    definition: Callable[[], EncounterDef]
    seed: int
    commands: tuple[str, ...]


SCENARIOS = [
    # Seed 000: "The player will roll 5d4."
    Scenario(
        "trap_example",
        trap_example,
        0,
        (
            "rogue: prepare",
            "rogue: disable-trap dc 12 +dis:dark",
            "torchbearer: hold-torch",
            "torchbearer: pass",
            "sage: advise",
            "sage: pass",
            "roll 4,3,2,3,1",
            "rogue: end turn",
        ),
    ),
    # Seed 000: "6 − 2 = 4d4 + 1d4 (damage). Your total is 14. … (e.g. 11)." → 3 damage
    Scenario(
        "dagger_example",
        dagger_example,
        0,
        ("rogue: prepare", "rogue: prepare", "rogue: strike goblin with dagger", "roll 4,4,3,1,2"),
    ),
    # Seed 001, same example: "leaving 3 damage dealt."
    Scenario(
        "dagger_example_legacy",
        lambda: dagger_example(Revision.LEGACY),
        0,
        ("rogue: prepare", "rogue: prepare", "rogue: strike goblin with dagger", "roll 4,4,3,1,2"),
    ),
    # Seed 000: "You use a Team Action (cost 1) to impose Disadvantage."
    Scenario(
        "goblin_team_action",
        goblin_team_example,
        0,
        (
            "you: prepare",
            "you: end turn",
            "ally: end turn",
            "goblin: strike ally with dagger",
            "you: hinder",
            "you: pass",
            "ally: pass",
            "roll 2,2,2,1",
        ),
    ),
    # Seed 000: "you still only gain +1d4"; the engine's own RNG rolls this one.
    Scenario(
        "watch_my_back",
        watch_my_back_example,
        20240601,
        (
            "bron: watch-my-back aria",
            "bron: end turn",
            "cara: watch-my-back aria",
            "cara: end turn",
            "aria: strike goblin",
            "bron: pass",
            "cara: help",
            "cara: pass",
            "roll",
            "aria: end turn",
            "goblin: strike aria",
            "roll",
        ),
    ),
    # A longer mixed fight with engine rolls, a GM call and a RollTotal chance outcome.
    Scenario(
        "skirmish",
        skirmish,
        7,
        (
            "aria: strike goblin with sword +adv:flank",
            "bron: help",
            "bron: pass",
            "goblin: hinder",
            "goblin: riposte aria",
            "roll",
            "goblin: pass",
            "shaman: pass",
            "roll",
            "gm: call bron Control dc 8 +count-load",
            "roll",
            "aria: end turn",
            "bron: watch-my-back aria",
            "bron: strike shaman",
            "aria: help",
            "aria: pass",
            "total 9",
            "bron: end turn",
        ),
    ),
]


def _play(scenario: Scenario) -> Encounter:
    enc = Encounter.begin(scenario.definition(), scenario.seed)
    run(enc, *scenario.commands)
    return enc


def _texts(enc: Encounter) -> tuple[str, str]:
    return "\n".join(enc.log_lines()) + "\n", enc.to_json() + "\n"


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_golden_log_replays_byte_for_byte(scenario: Scenario) -> None:
    """Issue 3 (the log is the fixture format; replay gives the same state byte for byte), R5
    (every die is in the log)."""
    log_path = GOLDEN / f"{scenario.name}.jsonl"
    state_path = GOLDEN / f"{scenario.name}.state.json"
    log_text = log_path.read_text(encoding="utf-8")
    state_text = state_path.read_text(encoding="utf-8")

    events = [json.loads(line) for line in log_text.splitlines()]
    assert events[0]["event"] == "begin"
    assert events[0]["seed"] == scenario.seed
    assert [e["command"] for e in events[1:]] == list(scenario.commands)
    replayed = Encounter.replay(scenario.definition(), events)
    assert _texts(replayed) == (log_text, state_text)
    assert _texts(_play(scenario)) == (log_text, state_text)


def test_golden_dagger_log_records_every_die() -> None:
    """R5: "The log must record every die, not just totals." Seed 000: "Your total is 14." """
    lines = (GOLDEN / "dagger_example.jsonl").read_text(encoding="utf-8").splitlines()
    last = json.loads(lines[-1])
    assert last["command"] == "roll 4,4,3,1,2"
    assert last["roll"] == {
        "damage": 3,
        "expression": "4d4+1d4",
        "faces": [4, 4, 3, 1, 2],
        "roller": "rogue",
        "target": "goblin",
        "total": 14,
    }
    state = json.loads((GOLDEN / "dagger_example.state.json").read_text(encoding="utf-8"))
    goblin = next(p for p in state["participants"] if p["id"] == "goblin")
    assert goblin["health"] == 7


def test_tampered_log_is_refused() -> None:
    """Issue 3 / R5: replay verifies recorded dice against the replay; a log whose recorded roll
    was edited is refused rather than silently accepted."""
    lines = (GOLDEN / "watch_my_back.jsonl").read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines]
    rolled = next(e for e in events if e.get("roll"))
    rolled["roll"]["total"] += 1
    with pytest.raises(ValueError, match="differs from replay"):
        Encounter.replay(watch_my_back_example(), events)
    with pytest.raises(ValueError, match="starts with its 'begin' event"):
        Encounter.replay(watch_my_back_example(), events[1:])


def test_the_golden_test_never_writes_its_files() -> None:
    """Issue 24 item 6: regenerating is a separate command (:mod:`tests.encounter.regen_golden`),
    so nothing in this module writes a file or reads the environment (a switch that regenerates
    would let the test pass by writing what it compares against)."""
    import ast

    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    called = {
        node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
    }
    assert called & {"write_text", "write_bytes", "write", "open", "mkdir", "getenv"} == set()
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert "environ" not in {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert "os" not in names
