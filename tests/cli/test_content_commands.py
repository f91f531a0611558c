"""``caltrop validate``, ``caltrop new`` and ``caltrop examples`` (issue 9, "Content": "``caltrop
validate FILE…`` (all problems at once, file:line:field), ``caltrop new encounter|creature NAME``
(a commented template that validates), ``caltrop examples`` (what is bundled, with one line
each)")."""

from __future__ import annotations

import json
import re
from pathlib import Path
from textwrap import dedent

import pytest

from caltrop.content import (
    bundled_catalogue,
    bundled_files,
    check_file,
    load_creature,
    load_encounter,
)
from caltrop.core.model import Economy
from caltrop.encounter import Encounter
from tests.cli.conftest import Invoke
from tests.cli.helpers import assert_user_error

PROBLEM_LINE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): (?:(?P<field>[\w.\[\]]+): )?\S")


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dedent(text).lstrip("\n"), encoding="utf-8")
    return path


TROLL = """
    kind: creature
    include: [caltrop:actions, caltrop:weapons]
    id: troll
    name: Troll
    side: npc
    aspects: {Finesse: 2, Might: 6}
    health: 20
    weapons: [greataxe]
    actions: [strike]
"""

# Four problems of three sorts in one file: a bad field (the schema), an unknown bundled
# ruleset and an unknown bundled include (references), and an included creature file whose own
# field is bad. All are reported in one run.
BROKEN = """
    kind: encounter
    name: Broken
    ruleset: caltrop:rulesets/curent
    include: [caltrop:party/aria, caltrop:monsters/gobin, troll.yaml]
    participants:
      - aria
      - {creature: caltrop:monsters/goblin, id: Goblin-1}
      - troll
"""


# -- validate -------------------------------------------------------------------------------------


def test_every_bundled_file_validates_by_name(invoke: Invoke) -> None:
    names = [f"caltrop:{name}" for name in bundled_files()]
    result = invoke("validate", *names)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == len(names)
    for name, line in zip(names, lines, strict=True):
        assert line.startswith(f"{name}: ok (")


def test_valid_files_of_each_kind_print_one_ok_line_each(invoke: Invoke, tmp_path: Path) -> None:
    troll = write(tmp_path, "troll.yaml", TROLL)
    weapons = write(tmp_path, "weapons.yaml", "kind: weapons\nweapons: [{name: club, dice: 1d6}]\n")
    rules = write(tmp_path, "rules.yaml", "kind: ruleset\nload_reset: round\n")
    fight = write(
        tmp_path,
        "fight.yaml",
        """
        kind: encounter
        name: Troll Bridge
        ruleset: rules.yaml
        include: [troll.yaml, caltrop:party/bron]
        participants: [bron, troll]
        """,
    )
    result = invoke("validate", str(fight), str(troll), str(weapons), str(rules))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        f"{fight}: ok (encounter 'Troll Bridge', 2 participants)",
        f"{troll}: ok (creature 'troll')",
        f"{weapons}: ok (weapons library, 1 weapon)",
        f"{rules}: ok (ruleset)",
    ]


def test_all_problems_at_once_as_file_line_field(invoke: Invoke, tmp_path: Path) -> None:
    write(tmp_path, "troll.yaml", TROLL.replace("health: 20", "health: lots"))
    broken = write(tmp_path, "broken.yaml", BROKEN)
    result = invoke("validate", str(broken))
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert all(PROBLEM_LINE.match(line) for line in lines), lines
    found = {
        (Path(m["file"]).name, int(m["line"]), m["field"])
        for m in map(PROBLEM_LINE.match, lines)
        if m
    }
    assert {
        ("broken.yaml", 3, "encounter.ruleset"),
        ("broken.yaml", 4, "encounter.include[2]"),
        ("broken.yaml", 7, "encounter.participants[2].id"),
        ("troll.yaml", 7, "creature.health"),
    } <= found
    assert "did you mean 'caltrop:rulesets/current'?" in result.stdout
    assert "did you mean 'caltrop:monsters/goblin'?" in result.stdout
    # The file's own problems come first, by line; then those of the files it includes.
    own = [int(m["line"]) for m in map(PROBLEM_LINE.match, lines) if m and m["file"] == str(broken)]
    assert own == sorted(own)
    assert Path(lines[-1].split(":")[0]).name == "troll.yaml"
    assert f"{len(lines)} problems in 1 of 1 file" in result.stderr
    assert "Traceback" not in result.output


def test_one_bad_file_among_good_ones(invoke: Invoke, tmp_path: Path) -> None:
    good = write(tmp_path, "troll.yaml", TROLL)
    bad = write(tmp_path, "orc.yaml", TROLL.replace("id: troll", "id: Orc"))
    result = invoke("validate", str(good), str(bad))
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{good}: ok (creature 'troll')",
        f"{bad}:3: creature.id: expected one lowercase word of a-z, 0-9 and '-' "
        "(like goblin-2), got 'Orc'",
    ]
    assert "1 problem in 1 of 2 files" in result.stderr


def test_a_yaml_syntax_error_is_a_problem_not_a_crash(invoke: Invoke, tmp_path: Path) -> None:
    path = write(tmp_path, "broken.yaml", "kind: creature\naspects: {Finesse: 4\nhealth: 3\n")
    result = invoke("validate", str(path))
    assert result.exit_code == 1
    assert result.stdout.startswith(f"{path}:3: YAML syntax error")


def test_json_lists_each_file_and_its_problems(invoke: Invoke, tmp_path: Path) -> None:
    good = write(tmp_path, "troll.yaml", TROLL)
    bad = write(tmp_path, "orc.yaml", TROLL.replace("health: 20", "health: -1"))
    result = invoke("validate", str(good), str(bad), "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["ok"] is False
    assert [(f["file"], f["kind"], f["ok"]) for f in data["files"]] == [
        (str(good), "creature", True),
        (str(bad), "creature", False),
    ]
    assert data["files"][0]["problems"] == []
    assert data["files"][1]["problems"] == [
        {
            "file": str(bad),
            "line": 7,
            "field": "creature.health",
            "message": "expected a number ≥ 1, got -1",
        }
    ]
    again = invoke("validate", str(good), "--json")
    assert again.exit_code == 0
    assert json.loads(again.stdout)["ok"] is True


def test_usage_errors_exit_2(invoke: Invoke, tmp_path: Path) -> None:
    assert invoke("validate").exit_code == 2
    assert_user_error(invoke("validate", str(tmp_path / "nope.yaml")), "no such file")
    assert_user_error(invoke("validate", str(tmp_path)), "is a folder")
    assert_user_error(
        invoke("validate", "caltrop:monster/goblin"),
        "no bundled file 'caltrop:monster/goblin'",
        "did you mean 'caltrop:monsters/goblin'?",
    )


# -- new ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("module", ["action-load", "action-points"])
def test_a_new_creature_validates_as_it_is(invoke: Invoke, tmp_path: Path, module: str) -> None:
    result = invoke("new", "creature", "Cave Troll", "--out", str(tmp_path), "--module", module)
    assert result.exit_code == 0, result.output
    path = tmp_path / "cave-troll.yaml"
    assert f"wrote {path}" in result.stdout
    text = path.read_text(encoding="utf-8")
    assert "kind: creature\nexample: false\n" in text
    assert "docs/rules.md" in text
    assert sum(line.lstrip().startswith("#") for line in text.splitlines()) >= 8
    assert f"caltrop validate {path.name}" in text
    creature = load_creature(path)
    assert (creature.id, creature.name) == ("cave-troll", "Cave Troll")
    checked = invoke("validate", str(path))
    assert checked.exit_code == 0, checked.output
    # It can be used in an encounter of its module, next to a bundled creature.
    foe = (
        "caltrop:action-points/party/torvald" if module == "action-points" else "caltrop:party/aria"
    )
    ruleset = "action-points" if module == "action-points" else "current"
    fight = write(
        tmp_path,
        "fight.yaml",
        f"""
        kind: encounter
        name: Cave
        ruleset: {ruleset}
        include: [cave-troll.yaml, {foe}]
        participants: [{foe.rsplit("/", 1)[1]}, cave-troll]
        """,
    )
    assert [c.id for c in load_encounter(fight).participants][-1] == "cave-troll"


@pytest.mark.parametrize(
    ("module", "economy"),
    [("action-load", Economy.ACTION_LOAD), ("action-points", Economy.ACTION_POINTS)],
)
def test_a_new_encounter_validates_and_plays_anywhere(
    invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str, economy: Economy
) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke("new", "encounter", "troll-bridge", "--module", module)
    assert result.exit_code == 0, result.output
    path = tmp_path / "troll-bridge.yaml"
    text = path.read_text(encoding="utf-8")
    assert "kind: encounter\nexample: false\nname: Troll Bridge\n" in text
    assert "caltrop:" in text
    assert "docs/rules.md" in text
    assert check_file(path).kind == "encounter"
    encounter = load_encounter(path)
    assert encounter.name == "Troll Bridge"
    assert encounter.ruleset.economy is economy
    assert {c.side for c in encounter.participants} == {"pc", "npc"}
    assert encounter.reserves  # the included creatures: the GM may add more (R48)
    game = Encounter.begin(encounter, seed=1)
    assert game.legal_actions()


def test_new_refuses_to_overwrite(invoke: Invoke, tmp_path: Path) -> None:
    target = tmp_path / "mine.yaml"
    target.write_text("my own work\n", encoding="utf-8")
    result = invoke("new", "creature", "troll", "--out", str(target))
    assert result.exit_code == 1
    assert f"{target} exists; not overwritten" in result.stderr
    assert target.read_text(encoding="utf-8") == "my own work\n"
    assert "Traceback" not in result.output


def test_new_cannot_write_into_a_missing_folder(invoke: Invoke, tmp_path: Path) -> None:
    result = invoke("new", "creature", "troll", "--out", str(tmp_path / "no" / "troll.yaml"))
    assert result.exit_code == 1
    assert "cannot write" in result.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("new", "monster", "troll"), ["expected encounter or creature", "'monster'"]),
        (("new", "creature", "!!!"), ["cannot make an id from '!!!'"]),
        (("new", "creature", "end"), ["'end' is a reserved word"]),
        (("new", "creature", "troll", "--module", "dice"), []),
    ],
)
def test_new_usage_errors(
    invoke: Invoke, tmp_path: Path, args: tuple[str, ...], words: list[str]
) -> None:
    result = invoke(*args, "--out", str(tmp_path))
    assert result.exit_code == 2
    if words:
        assert_user_error(result, *words)
    assert list(tmp_path.iterdir()) == []


def test_a_name_that_yaml_would_misread_is_quoted(invoke: Invoke, tmp_path: Path) -> None:
    """``name: True`` or ``name: 1984`` would not be text; the template quotes them."""
    for name, file in (("True", "true.yaml"), ("1984", "1984.yaml")):
        result = invoke("new", "encounter", name, "--out", str(tmp_path))
        assert result.exit_code == 0, result.output
        assert load_encounter(tmp_path / file).name == name


# -- examples -------------------------------------------------------------------------------------


def test_examples_lists_every_bundled_file_on_one_line(invoke: Invoke) -> None:
    result = invoke("examples", columns=80)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    for entry in bundled_catalogue():
        listed = (
            entry.name.rsplit("/", 1)[-1]
            if entry.kind in ("encounter", "ruleset")
            else entry.reference
        )
        (line,) = [ln for ln in lines if ln.split() and ln.split()[0] == listed]
        about = f"{entry.title}: " if entry.kind in ("encounter", "creature") else ""
        assert (about + entry.description)[:25] in line
    assert "caltrop play NAME" in result.stdout
    assert "include: [caltrop:NAME]" in result.stdout
    wide = invoke("examples", columns=200)
    assert "On a forest road, goblins spring from the brush while their hobgoblin" in wide.stdout


def test_examples_json_says_how_to_use_each_and_the_uses_work(invoke: Invoke) -> None:
    result = invoke("examples", "--json")
    assert result.exit_code == 0
    entries = json.loads(result.stdout)["examples"]
    assert sorted(e["name"] for e in entries) == sorted(bundled_files())
    by_name = {e["name"]: e for e in entries}
    assert by_name["encounters/goblin-ambush"]["use"] == "caltrop play goblin-ambush"
    assert by_name["monsters/goblin"]["use"] == "include: [caltrop:monsters/goblin]; gm: add goblin"
    assert by_name["actions"]["use"] == "include: [caltrop:actions]"
    assert by_name["rulesets/legacy"]["use"] == "ruleset: legacy"
    assert by_name["action-points/monsters/brakka"]["module"] == "action_points"
    for entry in entries:
        if entry["kind"] == "encounter":
            assert load_encounter(entry["use"].removeprefix("caltrop play ")).name == entry["title"]
        if entry["kind"] == "creature":
            assert load_creature(entry["reference"]).id == entry["id"]
