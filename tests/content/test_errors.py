"""A bad content file gets an error naming the file, the line and the field, and what was
expected (issue 3, "Content")."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from caltrop.content import (
    ContentFileError,
    check_file,
    examples_root,
    load_creature,
    load_document,
    load_encounter,
    load_encounter_text,
    load_ruleset,
    load_weapons,
)
from caltrop.errors import ContentError

HEADER = "# Example content, not official rules.\n"


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def error_of(call: object, *args: object) -> ContentFileError:
    assert callable(call)
    with pytest.raises(ContentFileError) as info:
        call(*args)
    assert isinstance(info.value, ContentError)  # the narrow error every interface catches
    return info.value


def has(error: ContentFileError, file: str, line: int, field: str, *words: str) -> None:
    """Some problem of ``error`` is in ``file`` at ``line`` on ``field`` and says ``words``."""
    for p in error.problems:
        if Path(p.file).name == file and p.line == line and p.field == field:
            missing = [w for w in words if w not in p.message]
            assert not missing, f"{p} lacks {missing}"
            assert str(p).startswith(
                f"{p.file}:{line}: {field}: " if field else f"{p.file}:{line}: "
            )
            assert str(p) in str(error)
            return
    raise AssertionError(f"no problem at {file}:{line} {field}; got:\n{error}")


GOBLIN = """
    # a goblin
    kind: creature
    id: goblin
    name: Goblin
    side: npc
    aspects:
      Finesse: {finesse}
      Might: 2
    health: 7
    evasion: 9
"""


def test_bad_type_names_file_line_and_field(tmp_path: Path) -> None:
    path = write(tmp_path, "goblin.yaml", GOBLIN.format(finesse="high"))
    error = error_of(load_creature, path)
    has(error, "goblin.yaml", 7, "creature.aspects.Finesse", "expected an integer, got 'high'")
    assert str(error) == (f"{path}:7: creature.aspects.Finesse: expected an integer, got 'high'")


def test_quoted_number_is_not_an_integer(tmp_path: Path) -> None:
    path = write(tmp_path, "goblin.yaml", GOBLIN.format(finesse='"4"'))
    has(error_of(load_creature, path), "goblin.yaml", 7, "creature.aspects.Finesse", "quotes")


def test_missing_field(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "orc.yaml",
        """
        kind: encounter
        name: Bridge
        participants:
          - id: orc
            name: Orc
            side: npc
            aspects: {Might: 5}
          - aria
        """,
    )
    error = error_of(load_encounter, path)
    has(error, "orc.yaml", 4, "encounter.participants[1].health", "required field is missing")


def test_unknown_field_suggests_the_right_one(tmp_path: Path) -> None:
    text = GOBLIN.format(finesse=4) + "    helth: 3\n"
    path = write(tmp_path, "goblin.yaml", text)
    has(
        error_of(load_document, path),
        "goblin.yaml",
        11,
        "creature.helth",
        "unknown field",
        "did you mean 'health'?",
    )


def test_bad_dice(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "weapons.yaml",
        """
        kind: weapons
        weapons:
          - {name: dagger, dice: 1d4}
          - name: sword
            dice: 1d
        """,
    )
    has(
        error_of(load_weapons, path),
        "weapons.yaml",
        5,
        "weapons[2].dice",
        "expected a dice expression",
        "'1d'",
        "column 3",
    )


def test_unknown_reference(tmp_path: Path) -> None:
    write(tmp_path, "goblin.yaml", GOBLIN.format(finesse=4))
    write(tmp_path, "aria.yaml", GOBLIN.format(finesse=4).replace("goblin", "aria"))
    path = write(
        tmp_path,
        "fight.yaml",
        """
        kind: encounter
        name: Fight
        include: [goblin.yaml, aria.yaml]
        participants:
          - goblin
          - aria
          - creature: orc
        """,
    )
    has(
        error_of(load_encounter, path),
        "fight.yaml",
        7,
        "encounter.participants[3].creature",
        "participant 3: no creature 'orc' (known: aria, goblin)",
    )


def test_yaml_syntax_error(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "broken.yaml",
        """
        kind: creature
        id: goblin
        aspects: {Finesse: 4, Might: 2
        health: 7
        """,
    )
    error = error_of(load_document, path)
    assert error.first.file.endswith("broken.yaml")
    assert error.first.line == 4  # the flow mapping opened on line 3 is found unclosed on 4
    assert "YAML syntax error" in error.first.message
    assert "starts on line 3" in error.first.message


def test_tab_indentation_is_a_syntax_error_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "tabs.yaml"
    path.write_text("kind: weapons\nweapons:\n\t- {name: dagger, dice: 1d4}\n", encoding="utf-8")
    error = error_of(load_document, path)
    assert (error.first.line, error.first.field) == (3, "")
    assert "YAML syntax error" in str(error)


@pytest.mark.parametrize("word", ["end", "with", "dc", "pass", "roll", "total", "gm", "call"])
def test_reserved_creature_id(tmp_path: Path, word: str) -> None:
    path = write(
        tmp_path, "goblin.yaml", GOBLIN.format(finesse=4).replace("id: goblin", f"id: {word}")
    )
    has(error_of(load_document, path), "goblin.yaml", 3, "creature.id", "reserved word")


def test_reserved_action_name(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "actions.yaml",
        """
        kind: actions
        actions:
          - {name: strike, aspect: Finesse, cost: 2, kind: attack}
          - {name: pass, aspect: Finesse, cost: 0, kind: effect}
        """,
    )
    has(error_of(load_document, path), "actions.yaml", 4, "actions[2].name", "reserved word")


def test_id_must_be_one_lowercase_word(tmp_path: Path) -> None:
    path = write(
        tmp_path, "goblin.yaml", GOBLIN.format(finesse=4).replace("id: goblin", "id: Big Goblin")
    )
    has(error_of(load_document, path), "goblin.yaml", 3, "creature.id", "one lowercase word")


def test_wrong_enum_value(tmp_path: Path) -> None:
    path = write(
        tmp_path, "goblin.yaml", GOBLIN.format(finesse=4).replace("side: npc", "side: monster")
    )
    has(
        error_of(load_document, path),
        "goblin.yaml",
        5,
        "creature.side",
        "'pc' or 'npc'",
        "'monster'",
    )


def test_missing_and_unknown_kind(tmp_path: Path) -> None:
    path = write(tmp_path, "x.yaml", "# nothing\nname: x\n")
    has(error_of(load_document, path), "x.yaml", 2, "kind", "required field is missing", "creature")
    path = write(tmp_path, "y.yaml", "name: x\nkind: monster\n")
    has(error_of(load_document, path), "y.yaml", 2, "kind", "expected one of", "'monster'")


def test_empty_and_non_mapping_files(tmp_path: Path) -> None:
    has(
        error_of(load_document, write(tmp_path, "e.yaml", "# only a comment\n")),
        "e.yaml",
        1,
        "",
        "empty",
    )
    has(
        error_of(load_document, write(tmp_path, "l.yaml", "- a\n- b\n")), "l.yaml", 1, "", "mapping"
    )


def test_missing_file(tmp_path: Path) -> None:
    has(error_of(load_document, tmp_path / "nope.yaml"), "nope.yaml", 1, "", "no such file")


def test_duplicate_key(tmp_path: Path) -> None:
    text = GOBLIN.format(finesse=4) + "    health: 9\n"
    path = write(tmp_path, "goblin.yaml", text)
    has(error_of(load_document, path), "goblin.yaml", 11, "health", "duplicate key", "line 9")


def test_team_action_needs_a_grant(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "actions.yaml",
        """
        kind: actions
        actions:
          - name: help
            kind: team
            aspect: Insight
            cost: 1
          - name: assist
            kind: team
            aspect: Insight
            cost: 1
            reaction: false
            grant: {kind: adv}
          - name: strike
            kind: attack
            aspect: Finesse
            cost: 2
            dc: 10
        """,
    )
    error = error_of(load_document, path)
    has(error, "actions.yaml", 3, "actions[1].grant", "team action needs a grant")
    has(error, "actions.yaml", 11, "actions[2].reaction", "always")
    has(error, "actions.yaml", 17, "actions[3].dc", "only check actions")


def test_missing_include(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "fight.yaml",
        """
        kind: encounter
        name: Fight
        include:
          - party.yaml
          - gone.yaml
        participants: [aria]
        """,
    )
    write(tmp_path, "party.yaml", GOBLIN.format(finesse=4).replace("goblin", "aria"))
    has(
        error_of(load_encounter, path),
        "fight.yaml",
        5,
        "encounter.include[2]",
        "no such file 'gone.yaml'",
    )


def test_include_of_the_wrong_kind(tmp_path: Path) -> None:
    write(tmp_path, "rules.yaml", "kind: ruleset\nname: mine\n")
    path = write(
        tmp_path,
        "goblin.yaml",
        GOBLIN.format(finesse=4) + "    include: [rules.yaml]\n",
    )
    has(error_of(load_creature, path), "goblin.yaml", 11, "creature.include[1]", "ruleset file")


def test_duplicate_participant_ids(tmp_path: Path) -> None:
    write(tmp_path, "goblin.yaml", GOBLIN.format(finesse=4))
    path = write(
        tmp_path,
        "fight.yaml",
        """
        kind: encounter
        name: Fight
        include: [goblin.yaml]
        participants:
          - goblin
          - {creature: goblin, id: goblin-2}
          - creature: goblin
        """,
    )
    has(
        error_of(load_encounter, path),
        "fight.yaml",
        7,
        "encounter.participants[3]",
        "duplicate id 'goblin'",
        "participant 1",
    )


def test_errors_in_an_included_file_name_that_file(tmp_path: Path) -> None:
    write(
        tmp_path,
        "monsters/goblin.yaml",
        GOBLIN.format(finesse=4) + "    actions: [strike, stab]\n    include: [../lib.yaml]\n",
    )
    write(
        tmp_path,
        "lib.yaml",
        """
        kind: actions
        actions:
          - {name: strike, kind: attack, aspect: Finesse, cost: 2}
        """,
    )
    path = write(
        tmp_path,
        "fight.yaml",
        """
        kind: encounter
        name: Fight
        participants:
          - creature: monsters/goblin.yaml
        """,
    )
    has(
        error_of(load_encounter, path),
        "goblin.yaml",
        11,
        "creature.actions[2]",
        "no action 'stab' (known: strike)",
    )


def test_action_aspect_the_creature_lacks(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "goblin.yaml",
        GOBLIN.format(finesse=4)
        + """
    actions:
      - {name: bite, kind: attack, aspect: Might, cost: 1}
      - {name: think, kind: effect, aspect: Insight, cost: 1}
    """,
    )
    has(
        error_of(load_creature, path),
        "goblin.yaml",
        14,
        "creature.actions[2].aspect",
        "'Insight'",
        "has: Finesse, Might",
    )


def test_override_of_an_unknown_action(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "goblin.yaml",
        GOBLIN.format(finesse=4)
        + """
    include: [{actions}]
    actions:
      - strike
      - {{use: smash, aspect: Might}}
    """.format(actions=(examples_root() / "actions.yaml")),
    )
    has(
        error_of(load_creature, path),
        "goblin.yaml",
        15,
        "creature.actions[2].use",
        "no action 'smash'",
    )


def test_uses_weapon_without_weapons(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "goblin.yaml",
        GOBLIN.format(finesse=4)
        + """
    actions:
      - {name: stab, kind: attack, aspect: Finesse, cost: 2, uses_weapon: true}
    """,
    )
    has(error_of(load_creature, path), "goblin.yaml", 13, "creature.actions[1]", "has no weapons")


def test_max_health_below_health(tmp_path: Path) -> None:
    path = write(tmp_path, "goblin.yaml", GOBLIN.format(finesse=4) + "    max_health: 5\n")
    has(
        error_of(load_creature, path),
        "goblin.yaml",
        11,
        "creature.max_health",
        "at least health (7)",
    )


def test_unknown_bundled_ruleset_and_bad_inline_ruleset(tmp_path: Path) -> None:
    error = error_of(
        load_encounter_text,
        dedent(
            """
            kind: encounter
            name: Fight
            ruleset: newest
            participants:
              - {id: a, name: A, side: pc, aspects: {Finesse: 3}, health: 5}
            """
        ).lstrip(),
        "fight.yaml",
    )
    has(error, "fight.yaml", 3, "encounter.ruleset", "no bundled ruleset 'newest'", "legacy")
    error = error_of(
        load_encounter_text,
        dedent(
            """
            kind: encounter
            name: Fight
            ruleset:
              initiative: check
              load_reset: sometimes
            participants:
              - {id: a, name: A, side: pc, aspects: {Finesse: 3}, health: 5}
            """
        ).lstrip(),
        "fight.yaml",
    )
    has(error, "fight.yaml", 5, "encounter.ruleset.load_reset", "'turn' or 'round'")


def test_initiative_check_needs_an_aspect(tmp_path: Path) -> None:
    path = write(tmp_path, "rules.yaml", "kind: ruleset\nname: mine\ninitiative: check\n")
    has(error_of(load_ruleset, path), "rules.yaml", 3, "ruleset.initiative", "initiative_aspect")


def test_several_problems_are_reported_together(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "goblin.yaml",
        """
        kind: creature
        id: Goblin
        name: Goblin
        side: npc
        aspects: {Finesse: high}
        health: -1
        """,
    )
    error = error_of(load_document, path)
    assert [p.line for p in error.problems] == [2, 5, 6]
    assert len(str(error).splitlines()) == 3


def test_wrong_kind_for_the_loader(tmp_path: Path) -> None:
    path = write(tmp_path, "goblin.yaml", GOBLIN.format(finesse=4))
    has(error_of(load_encounter, path), "goblin.yaml", 2, "kind", "expected kind: encounter")


def test_check_file_follows_references(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "fight.yaml",
        """
        kind: encounter
        name: Fight
        participants: [nobody]
        """,
    )
    load_document(path)  # the schema alone is satisfied
    has(
        error_of(check_file, path),
        "fight.yaml",
        3,
        "encounter.participants[1]",
        "no creature 'nobody'",
    )


def test_anchors_and_merge_keys_work(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "fight.yaml",
        """
        kind: encounter
        name: Fight
        participants:
          - &goblin {id: goblin-1, name: Goblin 1, side: npc, aspects: {Finesse: 4}, health: 7}
          - <<: *goblin
            id: goblin-2
            name: Goblin 2
          - {id: aria, name: Aria, side: pc, aspects: {Finesse: 6}, health: 14}
        """,
    )
    encounter = load_encounter(path)
    assert [c.id for c in encounter.participants] == ["goblin-1", "goblin-2", "aria"]
    assert encounter.participants[1].aspects == {"Finesse": 4}
