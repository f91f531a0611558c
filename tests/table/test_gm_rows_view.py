"""The figures a GM screen's creature rows need, in the one view model (issue 22 item 7): the
conditions the GM may toggle (R48, the engine's list, not a screen's) and what the players see
of each NPC, for the GM only (its odds switch among them)."""

from __future__ import annotations

import dataclasses

import pytest

from caltrop.content import load_encounter
from caltrop.core.commands import GM, parse_command
from caltrop.core.model import Side
from caltrop.encounter import Encounter
from caltrop.errors import IllegalActionError
from caltrop.table import HealthShown, Reveal, view
from tests.table.plays import BUNDLED


@pytest.mark.parametrize("name", BUNDLED)
def test_the_conditions_a_gm_may_toggle_are_the_ones_the_engine_takes(name: str) -> None:
    """R48: "set any condition or fact": every condition the view offers is one ``gm: set``
    takes, on and back off; one more than it offers is refused by the engine."""
    definition = load_encounter(name)
    ruleset = dataclasses.replace(definition.ruleset, conditions=("blinded", "prone"))
    enc = Encounter.begin(dataclasses.replace(definition, ruleset=ruleset), 1)
    offered = view(enc, GM).as_dict()["conditions"]
    assert offered == ["prone", "blinded"]  # prone once, in both modules
    target = enc.creatures[0]
    for condition in offered:
        enc.apply(parse_command(f"gm: set {target.id} {condition} on"))
        assert condition in view(enc, GM).as_dict()["creatures"][0]["conditions"]
        enc.apply(parse_command(f"gm: set {target.id} {condition} off"))
        assert condition not in view(enc, GM).as_dict()["creatures"][0]["conditions"]
    with pytest.raises(IllegalActionError, match="no condition 'deafened'"):
        enc.apply(parse_command(f"gm: set {target.id} deafened on"))
    plain = Encounter.begin(definition, 1)
    assert view(plain, GM).as_dict()["conditions"] == ["prone", *definition.ruleset.conditions]


@pytest.mark.parametrize("name", BUNDLED)
def test_only_the_gm_sees_what_the_players_are_shown_of_each_npc(name: str) -> None:
    enc = Encounter.begin(load_encounter(name), 1)
    npcs = [c.id for c in enc.creatures if c.side is Side.NPC]
    hidden = {npcs[0]: Reveal(HealthShown.HIDDEN, aspects=True, resources=False, odds=False)}
    gm = {c["id"]: c for c in view(enc, GM, hidden).as_dict()["creatures"]}
    assert gm[npcs[0]]["shown"] == {
        "health": "hidden",
        "aspects": True,
        "resources": False,
        "odds": False,
    }
    for npc in npcs[1:]:  # the default: a Health label, odds shown, nothing else
        assert gm[npc]["shown"] == {
            "health": "label",
            "aspects": False,
            "resources": False,
            "odds": True,
        }
    for c in gm.values():
        if c["side"] == "pc":
            assert "shown" not in c  # a PC is the party's own sheet: nothing to switch
    pc = next(c.id for c in enc.creatures if c.side is Side.PC)
    for c in view(enc, pc, hidden).as_dict()["creatures"]:
        assert "shown" not in c  # a player is not told what the GM hides from it
