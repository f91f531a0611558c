"""Bundled files by name (issue 9, "Content"): ``include: [caltrop:actions, caltrop:weapons]``,
``creature: caltrop:monsters/goblin`` and ``ruleset: caltrop:rulesets/legacy`` work from a file
anywhere, and an unknown name is refused with its file, line and field, a "did you mean" and the
bundled names."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from caltrop.content import (
    BUNDLED_PREFIX,
    ContentFileError,
    bundled_catalogue,
    bundled_files,
    check_file,
    examples_root,
    load_actions,
    load_creature,
    load_document,
    load_encounter,
    load_encounter_text,
    load_ruleset,
    load_weapons,
)
from caltrop.content.catalogue import bundled_catalogue_entry, suggest
from caltrop.core.model import Economy, LoadReset
from caltrop.core.pool import Revision
from caltrop.errors import ContentError


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def problems_of(call: object, *args: object) -> ContentFileError:
    assert callable(call)
    with pytest.raises(ContentFileError) as info:
        call(*args)
    return info.value


def on_disk(name: str) -> Path:
    """The bundled file ``name`` in the source tree (the tests run from a checkout)."""
    root = Path(str(examples_root()))
    return root / Path(*bundled_files()[name])


TROLL = """
    kind: creature
    include: [caltrop:actions, caltrop:weapons]
    id: troll
    name: Troll
    side: npc
    aspects: {Finesse: 2, Might: 6}
    health: 20
    weapons: [greataxe]
    actions: [strike, parry]
"""


def test_every_bundled_file_has_a_name_and_loads_by_it() -> None:
    loaders = {
        "actions": load_actions,
        "weapons": load_weapons,
        "creature": load_creature,
        "encounter": load_encounter,
        "ruleset": load_ruleset,
    }
    names = bundled_files()
    assert {"actions", "weapons", "monsters/goblin", "party/aria", "action-points/weapons"} <= set(
        names
    )
    for entry in bundled_catalogue():
        by_name = loaders[entry.kind](BUNDLED_PREFIX + entry.name)  # type: ignore[operator]
        assert by_name == loaders[entry.kind](on_disk(entry.name))  # type: ignore[operator]


def test_a_creature_file_anywhere_includes_the_bundled_libraries(tmp_path: Path) -> None:
    troll = load_creature(write(tmp_path, "troll.yaml", TROLL))
    library = {a.name: a for a in load_actions("caltrop:actions")}
    assert troll.actions == (library["strike"], library["parry"])
    weapons = {w.name: w for w in load_weapons("caltrop:weapons")}
    assert troll.weapons == (weapons["greataxe"],)


def test_an_encounter_anywhere_uses_bundled_creatures_and_rulesets(tmp_path: Path) -> None:
    write(tmp_path, "troll.yaml", TROLL)
    path = write(
        tmp_path,
        "fight.yaml",
        """
        kind: encounter
        name: Troll Bridge
        ruleset: caltrop:rulesets/legacy
        include: [caltrop:party/aria, caltrop:monsters/goblin, troll.yaml]
        participants:
          - aria
          - {creature: goblin, id: goblin-1, name: Goblin 1}
          - caltrop:party/bron
          - {creature: caltrop:monsters/orc-brute, id: orc, name: Orc}
          - troll
        """,
    )
    encounter = load_encounter(path)
    assert [c.id for c in encounter.participants] == ["aria", "goblin-1", "bron", "orc", "troll"]
    assert encounter.ruleset.revision is Revision.LEGACY
    bron = next(c for c in encounter.participants if c.id == "bron")
    assert bron == load_creature(on_disk("party/bron"))
    assert check_file(path).kind == "encounter"


def test_the_action_point_library_by_name(tmp_path: Path) -> None:
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
          - id: raider
            name: Raider
            side: npc
            aspects: {Speed: 2, Power: 3, Strength: 3, Dexterity: 2}
            health: 9
            weapons: [{name: club, dice: 1d6, ap: 2}]
            position: [4, 0]
        """,
    )
    encounter = load_encounter(path)
    assert encounter.ruleset.economy is Economy.ACTION_POINTS
    creature = write(
        tmp_path,
        "scout.yaml",
        """
        kind: creature
        include: [caltrop:action-points/weapons]
        id: scout
        name: Scout
        side: pc
        aspects: {Speed: 3, Dexterity: 3}
        health: 8
        weapons: [shortbow, dagger]
        """,
    )
    bow = load_creature(creature).weapon("shortbow")
    assert bow is not None
    assert (bow.close, bow.far) == (10, 30)


def test_a_text_encounter_may_include_bundled_files() -> None:
    """A text encounter cannot follow relative paths, but bundled names work anywhere."""
    encounter = load_encounter_text(
        dedent(
            """
            kind: encounter
            name: From a form
            ruleset: caltrop:rulesets/round-reset
            include: [caltrop:party/dain, caltrop:monsters/goblin-archer]
            participants: [dain, goblin-archer]
            """
        )
    )
    assert encounter.ruleset.load_reset is LoadReset.ROUND
    assert [c.id for c in encounter.participants] == ["dain", "goblin-archer"]


def test_an_unknown_include_names_file_line_field_and_the_bundled_libraries(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, "troll.yaml", TROLL.replace("caltrop:actions", "caltrop:acitons"))
    error = problems_of(load_creature, path)
    (problem,) = [p for p in error.problems if p.field == "creature.include[1]"]
    assert (Path(problem.file).name, problem.line) == ("troll.yaml", 2)
    assert "no bundled file 'caltrop:acitons'" in problem.message
    assert "did you mean 'caltrop:actions'?" in problem.message
    # A creature includes actions and weapons: those are the bundled names listed.
    listed = problem.message.split("bundled actions or weapons files: ")[1].split(", ")
    assert listed == ["caltrop:action-points/weapons", "caltrop:actions", "caltrop:weapons"]
    assert str(problem).startswith(f"{path}:2: creature.include[1]: no bundled file")


def test_a_bundled_file_of_the_wrong_kind_is_refused(tmp_path: Path) -> None:
    path = write(
        tmp_path, "troll.yaml", TROLL.replace("caltrop:weapons", "caltrop:encounters/orc-bridge")
    )
    error = problems_of(load_creature, path)
    (problem,) = [p for p in error.problems if p.field == "creature.include[2]"]
    assert "'caltrop:encounters/orc-bridge' is an encounter file" in problem.message
    assert "expected an actions or weapons file" in problem.message


def test_an_unknown_bundled_creature_or_ruleset_is_refused_with_the_names(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "fight.yaml",
        """
        kind: encounter
        name: Fight
        ruleset: caltrop:rulesets/curent
        participants:
          - caltrop:party/aria
          - {creature: caltrop:goblin, id: goblin-1}
        """,
    )
    error = problems_of(load_encounter, path)
    by_field = {p.field: p for p in error.problems}
    ruleset = by_field["encounter.ruleset"]
    assert ruleset.line == 3
    assert "did you mean 'caltrop:rulesets/current'?" in ruleset.message
    assert "bundled ruleset files: caltrop:rulesets/action-points, " in ruleset.message
    creature = by_field["encounter.participants[2].creature"]
    assert creature.line == 6
    assert "no bundled file 'caltrop:goblin'" in creature.message
    assert "did you mean 'caltrop:monsters/goblin'?" in creature.message
    assert "caltrop:action-points/monsters/brakka" in creature.message
    assert "caltrop:actions" not in creature.message  # only creature files are listed


def test_the_public_loaders_refuse_an_unknown_bundled_name() -> None:
    with pytest.raises(ContentError) as info:
        load_creature("caltrop:monsters/gobin")
    assert "no bundled file 'caltrop:monsters/gobin'" in str(info.value)
    assert "did you mean 'caltrop:monsters/goblin'?" in str(info.value)
    assert "bundled creature files: caltrop:action-points/monsters/bandit" in str(info.value)
    assert "caltrop:encounters/goblin-ambush" not in str(info.value)  # creatures only
    with pytest.raises(ContentError) as anything:
        load_document("caltrop:nothing")
    assert "bundled files: " in str(anything.value)
    assert "caltrop:encounters/goblin-ambush" in str(anything.value)  # any kind
    with pytest.raises(ContentError):
        load_document("caltrop:")


def test_an_encounter_by_bundled_name_is_the_bundled_encounter() -> None:
    assert load_encounter("caltrop:encounters/orc-bridge") == load_encounter("orc-bridge")


def test_suggestions_prefer_the_same_last_part_then_the_spelling() -> None:
    names = list(bundled_files())
    assert suggest("goblin", names) == "monsters/goblin"
    assert suggest("torvald", names) == "action-points/party/torvald"
    assert suggest("party/arai", names) == "party/aria"
    assert suggest("zzzzzz", names) is None


def test_the_catalogue_knows_each_file() -> None:
    goblin = bundled_catalogue_entry("caltrop:monsters/goblin")
    assert goblin is not None
    assert (goblin.kind, goblin.title, goblin.creature_id) == ("creature", "Goblin", "goblin")
    assert goblin.economy == "action_load"
    duel = bundled_catalogue_entry("encounters/bridge-duel-ap")
    assert duel is not None
    assert duel.economy == "action_points"
    weapons = bundled_catalogue_entry("action-points/weapons")
    assert weapons is not None
    assert weapons.economy == "action_points"
    assert bundled_catalogue_entry("monsters/troll") is None
    ids = [e.creature_id for e in bundled_catalogue() if e.kind == "creature"]
    assert len(ids) == len(set(ids)) == 15  # a bundled creature's id names it alone
    assert all(e.description for e in bundled_catalogue())


def test_the_format_docs_example_of_bundled_names_loads(tmp_path: Path) -> None:
    """The creature and encounter of ``examples/README.md``'s "Bundled files by name" load."""
    readme = Path(str(examples_root())) / "README.md"
    section = readme.read_text(encoding="utf-8").split("### Bundled files by name")[1]
    block = section.split("```yaml\n")[1].split("```")[0]
    troll, encounter = block.split("\nkind: encounter")
    (tmp_path / "troll.yaml").write_text(troll.strip() + "\n", encoding="utf-8")
    path = tmp_path / "fight.yaml"
    path.write_text("kind: encounter" + encounter, encoding="utf-8")
    loaded = load_encounter(path)
    assert [c.id for c in loaded.participants] == ["aria", "goblin-1", "bron", "troll"]
    assert loaded.ruleset.load_reset is LoadReset.ROUND
    assert {"aria", "goblin", "troll", "bron"} == {c.id for c in loaded.reserves}
