"""The view model's ``movement`` (table/movement.py), read off the engine's rules (issue 22
item 1): R35 "1 AP moves up to the participant's travel speed in meters"; R32 "On another
participant's turn it pays in RP and floating RP; an AP price may be paid 2 RP per AP" (option
``off_turn_actions: reactions``: only the reactions off turn, and a move is none); R42 "Grappled:
travel speed 0 ... the grappler's speed is halved"; R39 close and far ranges; R34 adjacent 1.5 m."""

from __future__ import annotations

from dataclasses import replace

from caltrop.core.model import EncounterDef, OffTurn
from caltrop.encounter import Encounter
from caltrop.table import view
from caltrop.table.movement import movement
from tests.encounter.points_builders import BOW, SWORD, ap_creature, ap_npc, definition, run


def _begin(d: EncounterDef) -> Encounter:
    return Encounter.begin(d, 0)


def test_on_its_turn_its_ap_and_off_it_its_rp_at_two_per_ap() -> None:
    aria = ap_creature("aria", speed=3, weapons=(SWORD, BOW), equipped=("bow",))
    orc = ap_npc("orc", at=(20, 0), speed=2)
    enc = _begin(definition(aria, orc))
    mine = movement(enc, 0)
    assert mine is not None
    assert (mine["speed"], mine["points"], mine["unit"]) == (3.0, 6, "AP")
    assert mine["range"] == 18.0  # 6 AP x 3 m (R35)
    assert [s["cost"] for s in mine["steps"]] == [f"{k} AP" for k in range(1, 7)]
    assert [round(s["meters"], 6) for s in mine["steps"]] == [3.0 * k for k in range(1, 7)]
    assert mine["adjacent"] == 1.5
    assert mine["weapons"] == [{"name": "bow", "close": 10, "far": 30, "equipped": True}]
    theirs = movement(enc, 1)  # the orc, on Aria's turn: RP 2 buy one AP's worth (R32)
    assert theirs is not None
    assert (theirs["points"], theirs["unit"], theirs["range"]) == (1, "RP", 2.0)
    assert [s["cost"] for s in theirs["steps"]] == ["2 RP"]
    assert theirs["weapons"] == []


def test_no_off_turn_move_when_only_reactions_are_taken_off_turn() -> None:
    base = definition(ap_creature("aria"), ap_npc("orc", at=(20, 0)))
    only = replace(base, ruleset=replace(base.ruleset, off_turn_actions=OffTurn.REACTIONS))
    theirs = movement(_begin(only), 1)
    assert theirs is not None
    assert (theirs["points"], theirs["steps"], theirs["range"]) == (0, [], 0.0)


def test_grappled_it_cannot_move_and_its_grappler_goes_half_as_far() -> None:
    """R42 with a grapple won by the test's dice: the grappled creature's speed is 0."""
    aria = ap_creature("aria", speed=4, aspects={"Strength": 8})
    orc = ap_npc("orc", at=(1, 0), speed=4, aspects={"Strength": 1, "Agility": 1})
    enc = _begin(definition(aria, orc))
    run(enc, "aria: grapple orc", "roll 4,4,4,4,4,4,4,4", "roll 1")
    held = movement(enc, 1)
    grappler = movement(enc, 0)
    assert held is not None
    assert grappler is not None
    assert (held["speed"], held["steps"]) == (0.0, [])
    assert grappler["speed"] == 2.0


def test_only_who_sees_its_stat_block_and_points_gets_it() -> None:
    enc = _begin(definition(ap_creature("aria"), ap_npc("orc", at=(20, 0))))
    gm = {c["id"]: c for c in view(enc, "gm").as_dict()["creatures"]}
    player = {c["id"]: c for c in view(enc, "aria").as_dict()["creatures"]}
    assert "movement" in gm["orc"]
    assert "movement" in gm["aria"]
    assert "movement" in player["aria"]
    assert "movement" not in player["orc"]  # an NPC's numbers are hidden by default
