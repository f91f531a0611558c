"""``caltrop replay LOG``: re-run a saved log; print the story and the final state, or JSON.

A log is trusted only as far as it replays: every recorded die must come out of the replay
again, so an edited log is refused (exit 2) rather than believed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import assert_user_error
from tests.cli.test_play import log_events, play, run, scripted

SCRIPT = [
    "bron: strike orc-brute",
    "aria: help",  # a team action in the reaction window (R15): +1d4
    "roll 3,1,4,4,2,2,7",  # 6d4+1d8 = 23 against Evasion 10: 13 damage
    "bron: end turn",
    "orc-brute: cleave bron",
    "bron: parry",
    "roll",
]


@pytest.fixture
def game_log(tmp_path: Path) -> Path:
    """A short orc-bridge game saved with --log (entered dice and a seeded roll)."""
    log = tmp_path / "game.jsonl"
    play("orc-bridge", "--seed", "9", "--log", str(log), lines=SCRIPT)
    return log


@pytest.fixture
def finished_log(tmp_path: Path) -> Path:
    """Goblin Ambush played to its end."""
    _, lines = scripted("goblin-ambush", 2, "attack-weakest")
    log = tmp_path / "ambush.jsonl"
    play("goblin-ambush", "--seed", "2", "--log", str(log), lines=lines)
    return log


def test_replay_tells_the_story_command_by_command(game_log: Path) -> None:
    result = run("replay", str(game_log))
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "   1. bron: strike orc-brute  —  Bron declares strike orc-brute\n" in out
    assert "   2. aria: help  —  Aria uses help on the pending roll (help)\n" in out
    assert (
        "   3. roll 3,1,4,4,2,2,7  —  Bron rolls 6d4 [(1+4) (2+3) + 4+2] + 1d8 (7) = 23"
        " → 13 damage to Orc Brute\n"
    ) in out
    assert "   4. bron: end turn  —  Bron ends the turn\n" in out
    assert "   6. bron: parry  —  Bron uses parry on the pending roll (parry)\n" in out
    assert "   7. roll  —  Orc Brute rolls " in out
    assert "Orc Bridge — round 1" in out  # the final state table follows the story
    assert " 9/22 " in out  # Orc Brute's Health after 13 damage


def test_replay_of_a_finished_game_ends_with_the_result(finished_log: Path) -> None:
    out = run("replay", str(finished_log)).stdout
    assert "The encounter is over:" in out
    assert "is down!" in out


def test_replay_json_gives_the_final_state(game_log: Path) -> None:
    result = run("replay", str(game_log), "--json")
    assert result.exit_code == 0, result.output
    state = json.loads(result.stdout)
    assert state["round"] == 1
    assert state["turn"] == "orc-brute"
    assert state["over"] is False
    assert state["commands"] == len(SCRIPT)
    by_id = {p["id"]: p for p in state["participants"]}
    assert list(by_id) == ["bron", "orc-brute", "aria", "goblin-archer"]
    for p in state["participants"]:
        assert {"id", "name", "side", "load", "health", "max_health", "down"} <= set(p)
    assert by_id["orc-brute"]["health"] == 22 - 13
    assert by_id["orc-brute"]["down"] is False
    assert by_id["aria"]["load"] == -1 + 1  # help cost 1 (R15)
    assert by_id["bron"]["load"] == -1 + 3 + 1  # strike 3 on his turn, then parry 1 on hers


def test_replay_json_of_a_finished_game(finished_log: Path) -> None:
    state = json.loads(run("replay", str(finished_log), "--json").stdout)
    assert state["over"] is True
    assert state["turn"] is None
    assert state["current"] == "terminal"
    assert state["winner"] in ("pc", "npc")
    losers = [p for p in state["participants"] if p["side"] != state["winner"]]
    assert all(p["down"] and p["health"] == 0 for p in losers)


def _edit_line(log: Path, n: int, old: str, new: str) -> Path:
    lines = log.read_text(encoding="utf-8").splitlines()
    assert old in lines[n - 1], lines[n - 1]
    lines[n - 1] = lines[n - 1].replace(old, new, 1)
    edited = log.with_name("edited.jsonl")
    edited.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return edited


def test_an_edited_die_is_refused(game_log: Path) -> None:
    events = log_events(game_log)
    seeded = events[7]  # line 8: the seeded roll
    assert seeded["command"] == "roll"
    faces = seeded["roll"]["faces"]
    changed = [*faces[:-1], 1 if faces[-1] != 1 else 2]
    edited = _edit_line(game_log, 8, f'"faces": {faces}', f'"faces": {changed}')
    result = run("replay", str(edited), "--json")
    assert_user_error(result, str(edited), "refused", "log event 8", "differs from replay")
    assert result.stdout == ""


def test_an_edited_entered_die_is_refused(game_log: Path) -> None:
    # the command says 3,1,4,4,2,2,7 and the record keeps those faces: change the command only
    edited = _edit_line(
        game_log, 4, '"command": "roll 3,1,4,4,2,2,7"', '"command": "roll 4,1,4,4,2,2,7"'
    )
    result = run("replay", str(edited))
    assert_user_error(result, str(edited), "log event 4", "differs from replay")


def test_an_edited_total_is_refused(game_log: Path) -> None:
    edited = _edit_line(game_log, 4, '"total": 23', '"total": 24')
    assert_user_error(run("replay", str(edited)), "differs from replay")


def test_a_dropped_command_is_refused(game_log: Path) -> None:
    lines = game_log.read_text(encoding="utf-8").splitlines()
    edited = game_log.with_name("dropped.jsonl")
    edited.write_text("\n".join(lines[:2] + lines[3:]) + "\n", encoding="utf-8")  # no 'aria: help'
    # the next event's number no longer matches its place (issue 10: every field is checked)
    assert_user_error(run("replay", str(edited)), str(edited), "refused", "this is command 2")
    events = [json.loads(line) for line in lines[:2] + lines[3:]]
    for n, event in enumerate(events[1:], start=1):
        event["n"] = n
    edited.write_text("\n".join(json.dumps(e) for e in events) + "\n", encoding="utf-8")
    # renumbered: without the help the roll is 5d4+1d8, and the seven dice no longer fit it
    assert_user_error(run("replay", str(edited)), str(edited), "refused", "needs 6 dice")


def test_a_line_that_is_not_json_is_refused_with_its_line(game_log: Path) -> None:
    edited = _edit_line(game_log, 3, "{", "{{")
    assert_user_error(run("replay", str(edited)), f"{edited}: line 3: not a JSON line")


def test_a_log_without_its_encounter_is_refused(tmp_path: Path) -> None:
    bare = tmp_path / "bare.jsonl"
    bare.write_text('{"event": "begin", "seed": 1}\n{"event": "command", "command": "roll"}\n')
    assert_user_error(run("replay", str(bare)), f"{bare}:1: the first line must be a 'begin' event")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert_user_error(run("replay", str(empty)), f"{empty}: holds no event")


def test_a_missing_log_is_refused(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    assert_user_error(run("replay", str(missing)), str(missing), "does not exist")


def test_replay_needs_no_example_files(game_log: Path) -> None:
    """The log's first event carries the whole encounter: a log replays on its own."""
    begin = log_events(game_log)[0]
    assert begin["event"] == "begin"
    assert begin["seed"] == 9
    assert begin["header"]["definition"]["name"] == "Orc Bridge"
