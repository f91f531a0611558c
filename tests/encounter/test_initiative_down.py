"""Issue 21 item 3: a creature downed (or healed) by the GM while initiative is rolled.

R30: "Each participant makes a Speed check (R1). Order by total, highest first." R48: "damage or
heal a creature (Health stays within 0…max; 0 is down, healing above 0 brings it back up)".
The project's reading (docs/rules.md, R30 "A creature down during initiative"): initiative is
rolled for every participant, standing or down; it is never dropped when a creature goes down,
so the downed creature keeps a place in the order by its total, skipped while down.

The cause: downing a creature dropped every pending roll of a downed creature, its initiative
roll too, and the order was then sorted by a total it never rolled (``AssertionError`` in
``_finish_initiative``; ``caltrop play bridge-duel-ap --seed 1``, ``gm: damage brakka 1000``,
``roll`` ×4; the same in warband-ap; resuming or undoing and rolling crashed again).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from caltrop.cli import app
from caltrop.content import load_encounter
from caltrop.core.commands import RollDice, parse_command
from caltrop.encounter import CHANCE, Encounter, RollKind


def _initiative_rolled(enc: Encounter) -> None:
    while enc.round == 0 and not enc.over:
        assert enc.current() == CHANCE
        enc.apply(RollDice())


@pytest.mark.parametrize("name", ["bridge-duel-ap", "warband-ap"])
def test_a_creature_downed_before_its_initiative_roll_keeps_its_place(name: str) -> None:
    enc = Encounter.begin(load_encounter(name), seed=1)
    brakka = enc.index("brakka")
    assert any(p.roller == brakka and p.kind is RollKind.INITIATIVE for p in enc.pending)
    waiting = len(enc.pending)
    enc.apply(parse_command("gm: damage brakka 1000"))
    assert enc.down[brakka]
    assert len(enc.pending) == waiting, "no initiative roll is dropped"
    _initiative_rolled(enc)
    assert enc.round == 1
    assert enc.initiative[brakka] is not None
    assert sorted(enc.order) == list(range(len(enc.creatures))), "everyone has a place"
    assert enc.turn_owner != "brakka", "a downed creature's turns are skipped"
    # the log replays, and so does it after an undo and more rolls (the table is not stuck)
    assert Encounter.replay(enc.initial, enc.events).to_json() == enc.to_json()
    enc.undo()
    enc.apply(RollDice())
    assert enc.round == 1
    assert Encounter.replay(enc.initial, enc.events).to_json() == enc.to_json()


def test_a_creature_healed_after_initiative_acts_in_its_place() -> None:
    enc = Encounter.begin(load_encounter("bridge-duel-ap"), seed=1)
    enc.apply(parse_command("gm: damage brakka 1000"))
    _initiative_rolled(enc)
    place = enc.order.index(enc.index("brakka"))
    enc.apply(parse_command("gm: heal brakka 5"))
    assert not enc.down[enc.index("brakka")]
    assert enc.order.index(enc.index("brakka")) == place
    # play ends turns until Brakka's comes: she acts in her place
    for _ in range(len(enc.order) + 1):
        if enc.turn_owner == "brakka":
            break
        enc.apply(parse_command(f"{enc.turn_owner}: end turn"))
    assert enc.turn_owner == "brakka"


def test_everyone_of_one_side_downed_during_initiative_ends_the_encounter() -> None:
    enc = Encounter.begin(load_encounter("bridge-duel-ap"), seed=3)
    enc.apply(parse_command("gm: damage brakka 1000"))
    enc.apply(parse_command("gm: damage bandit-archer 1000"))
    assert enc.over
    assert enc.winner is not None
    assert enc.winner.value == "pc"
    assert not enc.pending


@pytest.mark.parametrize(("name", "creatures"), [("bridge-duel-ap", 4), ("warband-ap", 6)])
def test_the_issues_session_at_the_terminal_plays_resumes_and_undoes(
    tmp_path: Path, name: str, creatures: int
) -> None:
    """The issue's own steps, at the terminal: ``caltrop play bridge-duel-ap --seed 1 --log``,
    ``gm: damage brakka 1000``, ``roll`` for each creature (an ``AssertionError`` at the last);
    then ``--resume`` the log, undo the last roll and roll again (both crashed: the table was
    stuck)."""
    log = tmp_path / "night.jsonl"
    lines = ["gm: damage brakka 1000", *["roll"] * creatures]
    first = _play(name, "--seed", "1", "--log", str(log), lines=lines)
    assert "to act" in first.stdout
    assert len(log.read_text(encoding="utf-8").splitlines()) == 1 + len(lines)
    again = _play("--resume", str(log), lines=["gm: undo", "roll", "json"])
    assert f"resumed after {len(lines)} commands" in again.stdout
    state = json.loads(again.stdout[again.stdout.rindex("> {") + 2 :].split("\n> ")[0])
    assert state["round"] == 1
    assert len(log.read_text(encoding="utf-8").splitlines()) == 1 + len(lines) + 2


def _play(*args: str, lines: list[str]) -> Result:
    runner = CliRunner(env={"COLUMNS": "250", "NO_COLOR": "1"})
    result = runner.invoke(app, ["play", *args], input="".join(f"{line}\n" for line in lines))
    assert result.exit_code == 0, (result.output, result.exception)
    assert "Traceback" not in result.output
    assert result.exception is None
    return result
