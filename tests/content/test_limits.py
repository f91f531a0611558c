"""Content limits (issue 10): every number, list and text that sets the engine's work is bounded,
and a hostile file is refused in one line naming the file (and the line and field where there is
one), never with a traceback, a hang or a run that eats the machine.

Issue 10: "Pool sizes from content are bounded like typed expressions: an Aspect or
``fixed_pool`` of 10^9 spins in dice/roll.py today; content validation refuses values past
sensible limits (documented in docs/rules.md)" and "Size limits on every input: content files
… encounters (10,000 creatures took 236 s and 1.8 GB, quadratic in Encounter.begin)".
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from caltrop.content import (
    ContentFileError,
    limits,
    load_document,
    load_encounter,
    load_encounter_text,
)
from caltrop.content.source import TextSource, parse_yaml
from caltrop.errors import ContentError
from tests.content.test_errors import error_of, has, write
from tests.fuzzing import within

ROOT = Path(__file__).resolve().parents[2]

CREATURE = """\
kind: creature
id: goblin
name: Goblin
side: npc
aspects: {{Finesse: {finesse}, Might: 2}}
health: {health}
evasion: {evasion}
load_buffer: {buffer}
exhaustion: {exhaustion}
stats: {{x: {x}}}
weapons:
  - {{name: bow, dice: 1d6, kind: ranged, ap: {ap}, close: {close}, far: {far}}}
actions:
  - {{name: shoot, aspect: Finesse, cost: {cost}, kind: attack, fixed_pool: {pool}}}
  - {{name: spot, aspect: Finesse, cost: 0, kind: check, dc: {dc}}}
"""

GOOD = {
    "finesse": 4,
    "health": 9,
    "evasion": 10,
    "buffer": 1,
    "exhaustion": 0,
    "x": 3,
    "ap": 2,
    "close": 10,
    "far": 30,
    "cost": 3,
    "pool": 1,
    "dc": 12,
}


def creature(tmp_path: Path, **changes: int) -> Path:
    return write(tmp_path, "goblin.yaml", CREATURE.format(**{**GOOD, **changes}))


def test_the_good_creature_loads(tmp_path: Path) -> None:
    load_document(creature(tmp_path))


@pytest.mark.parametrize(
    ("key", "value", "line", "field", "bounds"),
    [
        ("finesse", 10**9, 5, "creature.aspects.Finesse", limits.ASPECT),
        ("finesse", 101, 5, "creature.aspects.Finesse", limits.ASPECT),
        ("finesse", -21, 5, "creature.aspects.Finesse", limits.ASPECT),
        ("health", 0, 6, "creature.health", limits.HEALTH),
        ("health", 10_001, 6, "creature.health", limits.HEALTH),
        ("evasion", 10**30, 7, "creature.evasion", limits.EVASION),
        ("buffer", 101, 8, "creature.load_buffer", limits.LOAD_NUMBER),
        ("exhaustion", 10**6, 9, "creature.exhaustion", limits.LOAD_NUMBER),
        ("x", 10_001, 10, "creature.stats.x", limits.STAT),
        ("ap", 100, 12, "creature.weapons[1].ap", limits.WEAPON_AP),
        ("far", 10**5, 12, "creature.weapons[1].far", limits.RANGE),
        ("cost", -1, 14, "creature.actions[1].cost", limits.COST),
        ("cost", 101, 14, "creature.actions[1].cost", limits.COST),
        ("pool", 10**9, 14, "creature.actions[1].fixed_pool", limits.FIXED_POOL),
        ("dc", 10**7, 15, "creature.actions[2].dc", limits.DC),
    ],
)
def test_a_number_past_its_limit_is_refused_with_file_line_and_field(
    tmp_path: Path, key: str, value: int, line: int, field: str, bounds: tuple[int, int]
) -> None:
    """Issue 10: "an Aspect or fixed_pool of 10^9" (and every other pool-setting number) is
    refused at load time, naming the range (docs/rules.md, "Content limits")."""
    error = error_of(load_document, creature(tmp_path, **{key: value}))
    low, high = bounds
    if value < low:
        has(error, "goblin.yaml", line, field, f"expected a number ≥ {low}, got {value}")
    else:
        has(error, "goblin.yaml", line, field, f"≤ {high}", f"from {low:,} to {high:,}")
    assert len(str(error).splitlines()) == 1


def test_the_limits_themselves_load(tmp_path: Path) -> None:
    """The bounds are inclusive: each extreme value is accepted."""
    load_document(
        creature(
            tmp_path,
            finesse=limits.ASPECT[1],
            health=limits.HEALTH[1],
            evasion=limits.EVASION[1],
            buffer=limits.LOAD_NUMBER[1],
            exhaustion=limits.LOAD_NUMBER[1],
            x=limits.STAT[0],
            ap=limits.WEAPON_AP[1],
            close=0,
            far=limits.RANGE[1],
            cost=limits.COST[1],
            pool=limits.FIXED_POOL[1],
            dc=limits.DC[1],
        )
    )


def test_an_action_point_stat_block_is_bounded_like_the_gm_controls(tmp_path: Path) -> None:
    """R48's ``gm: set ID ap|rp|stamina N`` takes 0 to 99; a stat block may not start past it."""
    text = (
        "kind: encounter\nname: Duel\nruleset: action-points\nparticipants:\n"
        "  - {id: a, name: A, side: pc, aspects: {Speed: 2}, health: 5, stats: {stamina: 100}}\n"
        "  - {id: b, name: B, side: npc, aspects: {Speed: 2}, health: 5}\n"
    )
    with pytest.raises(ContentFileError) as info:
        load_encounter_text(text, "duel.yaml")
    has(info.value, "duel.yaml", 5, "encounter.participants[1].stats.stamina", "from 0 to 99")


def _encounter(participants: list[str], position: str = "") -> str:
    lines = ["kind: encounter", "name: Crowd", "participants:"]
    for i, side in enumerate(participants):
        lines.append(
            f"  - {{id: c{i}, name: C{i}, side: {side}, aspects: {{Might: 1}}, health: 1{position}}}"
        )
    return "\n".join(lines) + "\n"


def test_an_encounter_of_more_than_200_participants_is_refused_quickly() -> None:
    """Issue 10: "10,000 creatures took 236 s and 1.8 GB, quadratic in Encounter.begin"."""
    error = within(10, lambda: _refused(_encounter(["pc", "npc"] * 500)))
    has(error, "crowd.yaml", 3, "encounter.participants", f"at most {limits.MAX_PARTICIPANTS}")
    # 10,000 of them are more values than a content file holds: refused while parsing
    huge = within(10, lambda: _refused(_encounter(["pc", "npc"] * 5000)))
    assert f"more than {limits.MAX_YAML_VALUES:,} values" in huge.first.message
    allowed = load_encounter_text(_encounter(["pc", "npc"] * 100), "crowd.yaml")
    assert len(allowed.participants) == limits.MAX_PARTICIPANTS


def _refused(text: str, name: str = "crowd.yaml") -> ContentFileError:
    with pytest.raises(ContentFileError) as info:
        load_encounter_text(text, name)
    return info.value


def test_a_position_past_10000_m_is_refused() -> None:
    """R34: "Coordinates must be finite numbers within ±10,000 m"."""
    text = _encounter(["pc", "npc"]).replace("health: 1}", "health: 1, position: [0, 20000]}", 1)
    has(
        _refused(text),
        "crowd.yaml",
        4,
        "encounter.participants[1].position",
        "from -10,000 to 10,000 m (R34)",
    )


@pytest.mark.parametrize(
    "name", ["\x1b[31mOrc", "Orc\x00", "Orc\u202e", "Orc\x07", "Two\nlines", "Orc\x9b"]
)
def test_a_control_character_in_a_name_is_refused(name: str) -> None:
    """Issue 10: "Escape sequences in creature names reach the terminal raw": a name with a
    control (or bidi format) character is refused at load time, naming file, line and field."""
    escaped = name.encode("unicode_escape").decode("ascii").replace('"', '\\"')
    text = _encounter(["pc", "npc"]).replace("name: C0,", f'name: "{escaped}",')
    error = _refused(text)
    has(error, "crowd.yaml", 4, "encounter.participants[1].name", "control character U+")
    assert "\x1b" not in str(error)
    assert "\x00" not in str(error)


def test_rich_markup_in_names_loads_as_it_is() -> None:
    """Issue 10's ``"[/x] M"``: brackets are text; the terminal escapes them when it prints."""
    text = _encounter(["pc", "npc"]).replace("name: C0,", 'name: "[/x] M",')
    text = text.replace("name: Crowd", 'name: "[bold]Crowd[/]"')
    encounter = load_encounter_text(text, "crowd.yaml")
    assert encounter.participants[0].name == "[/x] M"
    assert encounter.name == "[bold]Crowd[/]"


def test_a_description_keeps_its_lines_but_no_escape_sequence() -> None:
    ok = _encounter(["pc", "npc"]).replace("name: Crowd", 'name: Crowd\ndescription: "a\\nb\\tc"')
    assert load_encounter_text(ok, "crowd.yaml").description == "a\nb\tc"
    bad = ok.replace("a\\nb", "a\\eb")
    has(_refused(bad), "crowd.yaml", 3, "encounter.description", "U+001B")


# -- the file ---------------------------------------------------------------------------------


def _parse_error(text: str, name: str = "hostile.yaml") -> ContentFileError:
    with pytest.raises(ContentFileError) as info:
        within(10, lambda: parse_yaml(TextSource(text, name)))
    assert len(str(info.value).splitlines()) == 1, str(info.value)
    assert str(info.value).startswith(f"{name}:")
    return info.value


def test_a_nul_byte_is_refused_with_its_line() -> None:
    """Issue 10: "a YAML file with a NUL byte" reached a traceback."""
    error = _parse_error("kind: creature\nid: go\x00blin\n")
    assert (error.first.line, error.first.field) == (2, "")
    assert "NUL byte at column 7" in error.first.message


def test_an_integer_past_pythons_digit_limit_is_refused_with_its_line() -> None:
    """Issue 10: "integers past Python's 4,300-digit limit anywhere (… YAML numbers …)"."""
    error = _parse_error("kind: creature\naspects: {Might: " + "9" * 5000 + "}\n")
    assert error.first.line == 2
    assert "5,000 characters" in error.first.message
    assert f"at most {limits.MAX_INT_CHARS}" in error.first.message
    sexagesimal = _parse_error("kind: ruleset\nx: " + ":".join(["59"] * 3000) + "\n")
    assert sexagesimal.first.line == 2


@pytest.mark.parametrize(
    "text",
    [
        "kind: creature\nid: " + "[" * 5000 + "]" * 5000 + "\n",
        "kind: creature\nid: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n",
        "kind: creature\nid:\n" + "".join(" " * i + "-\n" for i in range(200)),
    ],
    ids=["flow-lists", "flow-mappings", "block-lists"],
)
def test_deeply_nested_yaml_is_refused_without_recursion(text: str) -> None:
    """Issue 10: "recursion: … deeply nested YAML"."""
    error = _parse_error(text)
    assert f"nested more than {limits.MAX_YAML_DEPTH} deep" in error.first.message


def test_an_alias_bomb_is_refused_before_it_is_expanded() -> None:
    """A "billion laughs" file: nine lines that would expand to 10^9 values for the validators."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    error = _parse_error("\n".join(["kind: creature", *lines]) + "\n")
    assert f"more than {limits.MAX_YAML_VALUES:,} values" in error.first.message
    assert error.first.line <= 10


def test_an_alias_inside_the_collection_it_names_is_refused() -> None:
    error = _parse_error("kind: creature\nid: &loop [1, *loop]\n")
    assert "inside the collection &loop" in error.first.message


def test_a_few_aliases_load() -> None:
    """Aliases are fine in moderation: a shared stat block written once."""
    text = (
        "kind: encounter\nname: Two\nparticipants:\n"
        "  - &g {id: g, name: G, side: npc, aspects: {Might: 1}, health: 1}\n"
        "  - {id: h, name: H, side: pc, aspects: {Might: 1}, health: 1}\n"
    )
    assert len(load_encounter_text(text).participants) == 2


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """Issue 10: "Size limits on every input: content files …" (refused from its size)."""
    big = tmp_path / "big.yaml"
    with big.open("wb") as handle:
        handle.truncate(limits.MAX_FILE_BYTES + 1)  # sparse: nothing is written or read
    error = within(2, lambda: error_of(load_document, big))
    assert f"{limits.MAX_FILE_BYTES + 1:,} bytes" in error.first.message
    text = _parse_error("#" * (limits.MAX_FILE_BYTES + 1))
    assert "a content file is at most" in text.first.message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_is_refused_without_hanging(tmp_path: Path) -> None:
    """Issue 10: a FIFO hung the log reader; a content file's reader never opens one to read."""
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    error = within(5, lambda: error_of(load_document, fifo))
    assert "FIFO" in error.first.message


def test_a_device_is_refused_without_reading_it() -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero here")
    error = within(5, lambda: error_of(load_document, "/dev/zero"))
    assert "character device" in error.first.message


def test_text_that_is_not_utf8_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "latin.yaml"
    path.write_bytes(b"kind: creature\nname: Ren\xe9\n")
    error = error_of(load_document, path)
    assert error.first.line == 2
    assert "not UTF-8 text (byte 0xe9)" in error.first.message
    utf16 = tmp_path / "utf16.yaml"
    utf16.write_bytes("kind: creature\n".encode("utf-16"))
    assert "not UTF-8" in error_of(load_document, utf16).first.message


def test_a_file_name_with_a_nul_is_refused_in_words() -> None:
    with pytest.raises(ContentError, match="NUL or control character"):
        load_encounter("goblin\x00.yaml")


def test_an_include_with_a_control_character_is_refused(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "enc.yaml",
        'kind: encounter\nname: X\ninclude: ["a\\0b.yaml"]\nparticipants: [goblin]\n',
    )
    error = error_of(load_encounter, path)
    has(error, "enc.yaml", 3, "encounter.include[1]", "control character U+0000")


def test_every_limit_is_documented_in_the_rules_reference() -> None:
    """Issue 10: limits "documented in docs/rules.md": each constant's number appears there."""
    rules = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    section = rules.split("### Content limits", 1)[1].split("\n### ", 1)[0]
    numbers = set(re.findall(r"-?\d+(?:,\d{3})*", section.replace("−", "-")))
    for name in dir(limits):
        value = getattr(limits, name)
        if name.isupper() and isinstance(value, int):
            assert f"{value:,}" in numbers, f"{name} = {value:,} is not in docs/rules.md"
        elif name.isupper() and isinstance(value, tuple):
            for bound in value:
                assert f"{bound:,}" in numbers, f"{name} bound {bound:,} is not in docs/rules.md"


def test_without_libyaml_the_python_parser_keeps_the_same_limits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PyYAML may be installed without libyaml: the Python parser then reads every file, with
    the same limits and the same refusals."""
    from caltrop.content import yamlfile

    monkeypatch.setattr(yamlfile, "_Loader", yamlfile._PythonLoader)
    assert load_encounter("goblin-ambush").participants
    deep = _parse_error("kind: creature\nid: " + "[" * 5000 + "]" * 5000 + "\n")
    assert f"nested more than {limits.MAX_YAML_DEPTH} deep" in deep.first.message
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    bomb = _parse_error("\n".join(["kind: creature", *lines]) + "\n")
    assert "values in one file" in bomb.first.message
    big = _parse_error("kind: creature\nhealth: " + "9" * 5000 + "\n")
    assert big.first.line == 2
    syntax = _parse_error("kind: creature\naspects: {Finesse: 4\nhealth: 3\n")
    assert (syntax.first.line, "YAML syntax error" in syntax.first.message) == (3, True)
