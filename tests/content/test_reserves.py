"""The creatures a GM may add mid-encounter (R48: "``gm: add CREATURE`` … CREATURE is a bundled
creature (by name, e.g. ``goblin``, ``bron``), a creature the encounter file includes or already
uses, or a creature file path"): the loader's ``EncounterDef.reserves`` and
:func:`caltrop.content.resolve_creature`."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from caltrop.content import (
    ContentFileError,
    bundled_creatures,
    load_creature,
    load_encounter,
    resolve_creature,
)
from caltrop.errors import ContentError


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


# -- EncounterDef.reserves ------------------------------------------------------------------------


def test_goblin_ambush_reserves_are_its_included_creatures_under_their_own_ids() -> None:
    """Goblin Ambush includes seven creature files; goblin-1 and goblin-2 are renamed goblins,
    so the GM adds another with ``gm: add goblin``."""
    encounter = load_encounter("goblin-ambush")
    assert [c.id for c in encounter.reserves] == [
        "aria",
        "bron",
        "cass",
        "dain",
        "goblin",
        "goblin-archer",
        "hobgoblin-captain",
    ]
    goblin = next(c for c in encounter.reserves if c.id == "goblin")
    assert goblin == load_creature("caltrop:monsters/goblin")
    assert goblin.name == "Goblin"
    goblin_1 = next(c for c in encounter.participants if c.id == "goblin-1")
    assert (goblin_1.name, goblin_1.aspects) == ("Goblin 1", goblin.aspects)


def test_reserves_come_from_includes_file_references_and_inline_participants(
    tmp_path: Path,
) -> None:
    write(tmp_path, "monsters/troll.yaml", TROLL)
    path = write(
        tmp_path,
        "fight.yaml",
        """
        kind: encounter
        name: Fight
        include: [caltrop:party/aria, caltrop:monsters/orc-brute]
        participants:
          - aria
          - {creature: monsters/troll.yaml, id: troll-1, name: Troll 1}
          - {creature: monsters/troll.yaml, id: troll-2, name: Troll 2}
          - {creature: caltrop:monsters/goblin, id: sneak, name: Sneak}
          - {id: rat, name: Rat, side: npc, aspects: {Finesse: 2}, health: 3}
        """,
    )
    encounter = load_encounter(path)
    # Each creature once, under its own id: the unused orc-brute too; troll once for two uses.
    assert [c.id for c in encounter.reserves] == ["aria", "orc-brute", "troll", "goblin", "rat"]
    troll = next(c for c in encounter.reserves if c.id == "troll")
    assert troll == load_creature(tmp_path / "monsters/troll.yaml")
    rat = next(c for c in encounter.reserves if c.id == "rat")
    assert rat == next(c for c in encounter.participants if c.id == "rat")


def test_a_reserve_is_not_placed_where_its_participant_stands(tmp_path: Path) -> None:
    """``position:`` places a participant (R34); the creature it was made from keeps the
    position its own file gives (none here)."""
    path = write(
        tmp_path,
        "duel.yaml",
        """
        kind: encounter
        name: Duel
        ruleset: action-points
        include: [caltrop:action-points/party/torvald]
        participants:
          - {creature: torvald, position: [0, 0]}
          - {creature: caltrop:action-points/monsters/wolf, id: wolf-1, position: [5, 2]}
          - {id: rat, name: Rat, side: npc, aspects: {Speed: 4}, health: 3, position: [7, 1]}
        """,
    )
    encounter = load_encounter(path)
    wolf_1 = next(c for c in encounter.participants if c.id == "wolf-1")
    assert (wolf_1.stats["x"], wolf_1.stats["y"]) == (5, 2)
    reserves = {c.id: c for c in encounter.reserves}
    assert set(reserves) == {"torvald", "wolf", "rat"}
    assert "x" not in reserves["wolf"].stats
    assert "x" not in reserves["rat"].stats
    assert reserves["wolf"] == load_creature("caltrop:action-points/monsters/wolf")


def test_a_reserve_finds_its_names_in_the_encounters_libraries(tmp_path: Path) -> None:
    """A creature's names missing from its own includes are looked up in the including
    encounter's libraries, for a reserve as for a participant."""
    bare = TROLL.replace("    include: [caltrop:actions, caltrop:weapons]\n", "")
    assert "include" not in bare
    write(tmp_path, "troll.yaml", bare)
    path = write(
        tmp_path,
        "fight.yaml",
        """
        kind: encounter
        name: Fight
        include: [caltrop:actions, caltrop:weapons, troll.yaml, caltrop:party/bron]
        participants: [bron]
        """,
    )
    (_, troll) = sorted(load_encounter(path).reserves, key=lambda c: c.id)
    assert (troll.id, [a.name for a in troll.actions]) == ("troll", ["strike"])


def test_a_broken_included_creature_is_reported_even_when_unused(tmp_path: Path) -> None:
    """The GM may add any included creature, so each is checked like a participant."""
    write(tmp_path, "troll.yaml", TROLL.replace("actions: [strike]", "actions: [smash]"))
    path = write(
        tmp_path,
        "fight.yaml",
        """
        kind: encounter
        name: Fight
        include: [caltrop:party/aria, troll.yaml]
        participants: [aria]
        """,
    )
    with pytest.raises(ContentFileError) as info:
        load_encounter(path)
    (problem,) = info.value.problems
    assert (Path(problem.file).name, problem.line, problem.field) == (
        "troll.yaml",
        9,
        "creature.actions[1]",
    )
    assert "no action 'smash'" in problem.message


# -- resolve_creature -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reference", "bundled"),
    [
        ("goblin", "caltrop:monsters/goblin"),
        ("bron", "caltrop:party/bron"),
        ("brakka", "caltrop:action-points/monsters/brakka"),
        ("caltrop:monsters/goblin", "caltrop:monsters/goblin"),
        ("caltrop:action-points/party/kestrel", "caltrop:action-points/party/kestrel"),
    ],
)
def test_a_bundled_creature_by_name(reference: str, bundled: str) -> None:
    assert resolve_creature(reference) == load_creature(bundled)


def test_every_bundled_creature_resolves_by_its_id() -> None:
    for creature_id, entry in bundled_creatures().items():
        creature = resolve_creature(creature_id)
        assert creature.id == creature_id
        assert creature == load_creature(entry.reference)


def test_a_creature_file_relative_to_base(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    troll = write(tmp_path, "monsters/troll.yaml", TROLL)
    encounter_file = write(tmp_path, "fight.yaml", "kind: encounter\n")
    expected = load_creature(troll)
    assert resolve_creature("monsters/troll.yaml", base=tmp_path) == expected
    assert resolve_creature("monsters/troll.yaml", base=encounter_file) == expected
    assert resolve_creature(str(troll), base=tmp_path / "elsewhere") == expected
    monkeypatch.chdir(tmp_path / "monsters")
    assert resolve_creature("troll.yaml") == expected


def test_an_unknown_name_lists_the_bundled_creatures() -> None:
    with pytest.raises(ContentError) as info:
        resolve_creature("gobin")
    message = str(info.value)
    assert "no bundled creature 'gobin' (did you mean 'goblin'?)" in message
    assert "bundled creatures: aria, bandit, bandit-archer, brakka, bron" in message
    assert "monsters/troll.yaml" in message  # and how to give a file instead


@pytest.mark.parametrize(
    ("reference", "words"),
    [
        ("caltrop:monsters/gobin", ["no bundled file", "did you mean 'caltrop:monsters/goblin'?"]),
        ("caltrop:actions", ["'caltrop:actions' is a bundled actions file, not a creature"]),
        ("monsters/troll.yaml", ["no creature file 'monsters/troll.yaml'", "bundled creatures:"]),
        ("monsters/goblin", ["no creature file", "did you mean 'caltrop:monsters/goblin'?"]),
        ("  ", ["no creature named", "goblin"]),
    ],
)
def test_nothing_matches(reference: str, words: list[str], tmp_path: Path) -> None:
    with pytest.raises(ContentError) as info:
        resolve_creature(reference, base=tmp_path)
    for word in words:
        assert word in str(info.value)


def test_a_bad_creature_file_names_its_line(tmp_path: Path) -> None:
    write(tmp_path, "troll.yaml", TROLL.replace("health: 20", "health: lots"))
    write(tmp_path, "weapons.yaml", "kind: weapons\nweapons: [{name: club, dice: 1d6}]\n")
    with pytest.raises(ContentFileError) as info:
        resolve_creature("troll.yaml", base=tmp_path)
    assert info.value.first.line == 7
    assert info.value.first.field == "creature.health"
    with pytest.raises(ContentFileError) as wrong_kind:
        resolve_creature("weapons.yaml", base=tmp_path)
    assert "expected kind: creature here, got kind: weapons" in str(wrong_kind.value)
