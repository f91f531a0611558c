"""The templates of ``caltrop new`` validate as they are, whatever name they are given: the id is
made from the name or the name is refused with a reason, and the name reads back as written."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caltrop.content import load_creature, load_encounter_text
from caltrop.content.templates import (
    Module,
    creature_template,
    display_name,
    encounter_template,
    template_id,
)
from caltrop.core.ids import RESERVED_WORDS

names = st.text(alphabet="abcXYZ019 -_:#'\"!?é", min_size=1, max_size=16)


@pytest.mark.parametrize(
    ("name", "creature_id", "shown"),
    [
        ("Cave Troll", "cave-troll", "Cave Troll"),
        ("cave-troll", "cave-troll", "Cave Troll"),
        ("goblin_king", "goblin-king", "Goblin King"),
        ("  Orc   Chief ", "orc-chief", "Orc Chief"),
        ("R2-D2", "r2-d2", "R2-D2"),
    ],
)
def test_id_and_name_from_the_given_name(name: str, creature_id: str, shown: str) -> None:
    assert template_id(name) == creature_id
    assert display_name(name) == shown


@pytest.mark.parametrize("name", ["!!!", "", "élan", *sorted(RESERVED_WORDS)])
def test_a_name_that_makes_no_id_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match=r"cannot make an id|reserved word"):
        template_id(name)


@settings(max_examples=60, deadline=None)
@given(names, st.sampled_from(Module))
def test_every_template_validates_with_its_name(name: str, module: Module) -> None:
    try:
        creature_id = template_id(name)
    except ValueError:
        return
    encounter = load_encounter_text(encounter_template(name, module))
    assert encounter.name == display_name(name)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "creature.yaml"
        path.write_text(creature_template(name, module, path.name), encoding="utf-8")
        creature = load_creature(path)
    assert (creature.id, creature.name) == (creature_id, display_name(name))
