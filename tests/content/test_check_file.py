"""``check_file`` reports every problem of a file at once (issue 9: "``caltrop validate FILE…``
(all problems at once, file:line:field)"): when the file breaks the schema, its references are
still followed and its well-formed participants still resolved."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from caltrop.content import ContentFileError, check_file


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def problems(path: Path) -> set[tuple[str, int, str]]:
    with pytest.raises(ContentFileError) as info:
        check_file(path)
    return {(Path(p.file).name, p.line, p.field) for p in info.value.problems}


def test_a_schema_problem_does_not_hide_the_reference_problems(tmp_path: Path) -> None:
    write(
        tmp_path,
        "orc.yaml",
        "kind: creature\nid: orc\nname: Orc\nside: npc\naspects: {Might: x}\nhealth: 9\n",
    )
    path = write(
        tmp_path,
        "fight.yaml",
        """
        kind: encounter
        name: Fight
        ruleset: caltrop:rulesets/legasy
        include: [caltrop:party/aria, orc.yaml, caltrop:weapns]
        participants:
          - aria
          - {creature: aria, id: Aria-2}
          - {creature: caltrop:party/bron, id: bron-2}
          - {creature: nobody}
        """,
    )
    assert problems(path) == {
        ("fight.yaml", 3, "encounter.ruleset"),  # unknown bundled ruleset
        ("fight.yaml", 4, "encounter.include[3]"),  # unknown bundled library
        ("fight.yaml", 7, "encounter.participants[2].id"),  # the schema problem
        ("fight.yaml", 9, "encounter.participants[4].creature"),  # no such creature
        ("orc.yaml", 5, "creature.aspects.Might"),  # a problem of an included file
    }


def test_a_creature_with_a_schema_problem_still_follows_its_includes(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "troll.yaml",
        """
        kind: creature
        include: [caltrop:actoins]
        id: troll
        name: Troll
        side: monster
        aspects: {Might: 5}
        health: 9
        """,
    )
    assert problems(path) == {
        ("troll.yaml", 2, "creature.include[1]"),
        ("troll.yaml", 5, "creature.side"),
    }


def test_a_file_that_does_not_parse_reports_only_that(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.yaml", "kind: encounter\ninclude: [caltrop:nope\n")
    (only,) = problems(path)
    assert only[0] == "bad.yaml"
