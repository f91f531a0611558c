"""Issue 10: "an encounter named ``"[/x] M"`` (rich markup)" killed the session; names are text,
never markup, on every screen of both modules."""

from __future__ import annotations

from dataclasses import replace

from rich.console import Console

from caltrop.cli.encounter_view import screen
from caltrop.core.commands import parse_command
from caltrop.encounter import Encounter
from tests.encounter import builders as al
from tests.encounter import points_builders as ap

NAME = "[/x] M [bold]"


def _render(enc: Encounter) -> str:
    console = Console(width=120, record=True)
    console.print(screen(enc))
    return console.export_text()


def test_markup_in_names_is_shown_as_written_action_load() -> None:
    a = al.creature("a", name="[/b] Aria")
    b = al.npc("b", name="Gob [red]")
    enc = Encounter.begin(replace(al.definition(a, b), name=NAME), 1)
    enc.apply(parse_command("a: strike b"))
    text = _render(enc)
    assert NAME in text
    assert "[/b] Aria" in text


def test_markup_in_names_is_shown_as_written_action_points() -> None:
    a = replace(ap.ap_creature("a"), name="[/b] Aria")
    b = replace(ap.ap_npc("b", at=(1, 0)), name="Gob [red]")
    enc = Encounter.begin(replace(ap.definition(a, b), name=NAME), 1)
    enc.apply(parse_command("a: attack b"))
    text = _render(enc)
    assert NAME in text
    assert "[/b] Aria" in text


def test_conditions_the_gm_sets_are_on_the_screen() -> None:
    """R48: conditions are "facts everyone sees in the table" — in the Action Load module too."""
    enc = Encounter.begin(al.definition(al.creature("aria"), al.npc("gob")), 1)
    enc.apply(parse_command("gm: set aria prone on"))
    assert "conditions (GM, R48): aria prone" in _render(enc)
    enc.apply(parse_command("gm: set aria prone off"))
    assert "conditions (GM" not in _render(enc)
