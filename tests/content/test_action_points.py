"""Content for the Action Point module (seed 004, issue 4 "Stat blocks" and "Example content"):
weapons with attack AP and ranges, equipped weapons, positions, stat names checked against the
module's stat block, the bundled ``action-points`` ruleset (R30), and the example encounters
played to the end."""

from __future__ import annotations

import collections
import math
from pathlib import Path

import pytest

from caltrop.content import (
    ContentFileError,
    check_file,
    encounter_from_dict,
    encounter_to_dict,
    examples_root,
    load_creature,
    load_document,
    load_encounter,
    load_encounter_text,
    load_ruleset,
    load_weapons,
)
from caltrop.core.model import Economy, Initiative, Side, WeaponKind
from caltrop.dice import parse
from caltrop.economy.points.state import STAT_DEFAULTS
from tests.content.greedy_points import play_greedy
from tests.content.test_errors import error_of, has, write

AP_ENCOUNTERS = ("bridge-duel-ap", "warband-ap")
#: The pool stats of this module's stat block, rolled as d4 pools (seed 004, "Stat blocks").
POOL_STATS = (
    "Speed",
    "Power",
    "Strength",
    "Dexterity",
    "Agility",
    "Poise",
    "Perception",
    "Analysis",
)
AP_FOLDER = examples_root() / "action-points"


# -- the bundled content ---------------------------------------------------------------------------


def test_action_points_ruleset() -> None:
    """R30: initiative by a Speed check; R31–R33 live in the action_points economy."""
    ruleset = load_ruleset("action-points")
    assert ruleset.name == "action-points"
    assert ruleset.economy is Economy.ACTION_POINTS
    assert ruleset.initiative is Initiative.CHECK
    assert ruleset.initiative_aspect == "Speed"


def test_action_point_weapons() -> None:
    weapons = {w.name: w for w in load_weapons(AP_FOLDER / "weapons.yaml")}
    longsword, dagger, spear = weapons["longsword"], weapons["dagger"], weapons["spear"]
    assert (longsword.ap, longsword.dice, longsword.kind) == (3, parse("2d8"), WeaponKind.MELEE)
    assert (dagger.ap, dagger.dice) == (2, parse("1d6"))
    assert (spear.ap, spear.dice) == (3, parse("1d10"))
    bow, crossbow = weapons["shortbow"], weapons["crossbow"]
    assert (bow.kind, bow.ap, bow.dice, bow.close, bow.far) == (
        WeaponKind.RANGED,
        2,
        parse("1d8"),
        10,
        30,
    )
    assert (crossbow.ap, crossbow.dice, crossbow.close, crossbow.far) == (3, parse("1d10"), 15, 40)
    for w in weapons.values():
        assert w.ap is not None
        assert w.ap >= 1
        if w.kind is WeaponKind.RANGED:
            assert w.close is not None
            assert w.far is not None
            assert w.close <= w.far
        else:
            assert w.close is None
            assert w.far is None


AP_CREATURES = sorted(
    (f"{folder}/{entry.name}", entry)
    for folder in ("party", "monsters")
    for entry in (AP_FOLDER / folder).iterdir()
    if entry.name.endswith(".yaml")
)


@pytest.mark.parametrize(("name", "entry"), AP_CREATURES, ids=[n for n, _ in AP_CREATURES])
def test_action_point_stat_blocks(name: str, entry: Path) -> None:
    """Every example stat block has the eight pool stats as Aspects and only the module's stat
    names, with sane values; no actions list (the module's actions are built in)."""
    creature = load_creature(entry)
    assert set(POOL_STATS) <= set(creature.aspects), name
    assert set(creature.stats) <= set(STAT_DEFAULTS), name
    assert creature.stats["ap"] == 6
    assert creature.stats["rp"] == 2
    assert 6 <= creature.stats["stamina"] <= 10
    assert 0 <= creature.stats["resistance"] <= 2
    assert 2 <= creature.stats["travel_speed"] <= 3
    assert creature.actions == ()
    for weapon in creature.weapons:
        assert weapon.ap is not None
    if creature.equipped is not None:
        assert set(creature.equipped) <= {w.name for w in creature.weapons}


def test_the_examples_have_melee_and_ranged_weapons() -> None:
    kinds = collections.Counter(
        w.kind for _, entry in AP_CREATURES for w in load_creature(entry).weapons
    )
    assert kinds[WeaponKind.MELEE] >= 3
    assert kinds[WeaponKind.RANGED] >= 3
    wolf = load_creature(AP_FOLDER / "monsters" / "wolf.yaml")
    assert wolf.weapons == ()  # bites unarmed (R38)
    torvald = load_creature(AP_FOLDER / "party" / "torvald.yaml")
    assert torvald.equipped == ("longsword",)  # the dagger is carried, not in hand


@pytest.mark.parametrize("name", AP_ENCOUNTERS)
def test_action_point_encounters_load(name: str) -> None:
    encounter = load_encounter(name)
    assert encounter.ruleset.economy is Economy.ACTION_POINTS
    assert encounter.ruleset.initiative_aspect == "Speed"
    sides = collections.Counter(c.side for c in encounter.participants)
    assert sides[Side.PC] == sides[Side.NPC] >= 2
    positions = [(c.stats["x"], c.stats["y"]) for c in encounter.participants]
    assert len(set(positions)) == len(positions)  # everyone has a place of their own
    kinds = {w.kind for c in encounter.participants for w in c.weapons}
    assert kinds == {WeaponKind.MELEE, WeaponKind.RANGED}
    check_file(examples_root() / "encounters" / f"{name}.yaml")


def test_warband_positions_put_melee_out_of_reach_and_archers_at_range() -> None:
    """In the 3v3 the melee fighters must move to engage (R35); the archers start beyond close
    range but within far range of someone (R39)."""
    encounter = load_encounter("warband-ap")
    by_id = {c.id: c for c in encounter.participants}

    def distance(a: str, b: str) -> float:
        ca, cb = by_id[a], by_id[b]
        return math.hypot(ca.stats["x"] - cb.stats["x"], ca.stats["y"] - cb.stats["y"])

    pcs = [c.id for c in encounter.participants if c.side is Side.PC]
    npcs = [c.id for c in encounter.participants if c.side is Side.NPC]
    assert min(distance(a, b) for a in pcs for b in npcs) > 1.5
    for archer in ("kestrel", "bandit-archer"):
        creature = by_id[archer]
        (bow,) = [w for w in creature.weapons if w.kind is WeaponKind.RANGED]
        foes = npcs if creature.side is Side.PC else pcs
        nearest = min(distance(archer, f) for f in foes)
        assert bow.close is not None
        assert bow.far is not None
        assert bow.close < nearest <= bow.far


@pytest.mark.parametrize("name", AP_ENCOUNTERS)
def test_action_point_encounters_round_trip(name: str) -> None:
    encounter = load_encounter(name)
    data = encounter_to_dict(encounter)
    assert encounter_from_dict(data) == encounter
    torvald = next(p for p in data["participants"] if p["id"] == "torvald")
    assert torvald["equipped"] == ["longsword"]
    assert torvald["weapons"][0] == {"name": "longsword", "dice": "2d8", "kind": "melee", "ap": 3}
    assert torvald["stats"]["x"] == 0


@pytest.mark.parametrize("name", AP_ENCOUNTERS)
def test_action_point_encounters_play_to_the_end(name: str) -> None:
    """Issue 4: the example encounters can be played to the end. A greedy driver (attack when
    adjacent, shoot within close range, else move toward the nearest enemy; block when attacked)
    finishes every seed with a winner, and each side wins some."""
    definition = load_encounter(name)
    results = [play_greedy(definition, seed) for seed in range(16)]
    winners = collections.Counter(r.winner for r in results)
    assert None not in winners
    assert set(winners) == {"pc", "npc"}, winners
    assert all(r.rounds <= 25 for r in results)


# -- new fields and their errors -------------------------------------------------------------------

RANGED_LIBRARY = """
    kind: weapons
    weapons:
      - {name: dagger, dice: 1d6, ap: 2}
      - name: bow
        dice: 1d8
        kind: ranged
        ap: 2
        close: CLOSE
        far: FAR
"""


def ranged_library(close: int, far: int) -> str:
    return RANGED_LIBRARY.replace("CLOSE", str(close)).replace("FAR", str(far))


def test_weapon_close_beyond_far(tmp_path: Path) -> None:
    path = write(tmp_path, "weapons.yaml", ranged_library(30, 10))
    has(error_of(load_weapons, path), "weapons.yaml", 9, "weapons[2].far", "far ≥ close (30 m)")
    has(error_of(load_document, path), "weapons.yaml", 9, "weapons[2].far", "got 10")


def test_weapon_negative_range_and_zero_ap(tmp_path: Path) -> None:
    text = ranged_library(-1, 10).replace("ap: 2\n        close", "ap: 0\n        close")
    path = write(tmp_path, "weapons.yaml", text)
    error = error_of(load_weapons, path)
    has(error, "weapons.yaml", 7, "weapons[2].ap", "expected a number ≥ 1, got 0")
    has(error, "weapons.yaml", 8, "weapons[2].close", "expected a number ≥ 0, got -1")


def test_weapon_range_needs_both_and_a_ranged_kind(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "weapons.yaml",
        """
        kind: weapons
        weapons:
          - {name: sling, dice: 1d6, kind: ranged, close: 8}
          - {name: sword, dice: 2d8, ap: 3, close: 1, far: 2}
        """,
    )
    error = error_of(load_weapons, path)
    has(error, "weapons.yaml", 3, "weapons[1].close", "both close and far", "no far")
    has(error, "weapons.yaml", 4, "weapons[2].close", "only ranged weapons", "melee")


def _creature_text(
    stats: tuple[str, ...] = (), extra: str = "", weapons: str = "[bow, dagger]"
) -> str:
    """A scout's file: line 11 is the first of ``stats`` (or ``weapons:``), then ``extra``."""
    lines = [
        "kind: creature",
        "include: [weapons.yaml]",
        "id: scout",
        "name: Scout",
        "side: pc",
        "aspects: {Speed: 3, Dexterity: 4}",
        "health: 10",
        "stats:",
        "  ap: 6",
        "  stamina: 6",
        *(f"  {line}" for line in stats),
        f"weapons: {weapons}",
        *([extra] if extra else []),
    ]
    return "\n".join(lines) + "\n"


def _ap_encounter(tmp_path: Path, ruleset: str = "action-points", participant: str = "") -> Path:
    return write(
        tmp_path,
        "fight.yaml",
        f"""
        kind: encounter
        name: Fight
        ruleset: {ruleset}
        include: [scout.yaml]
        participants:
          - {participant or "{creature: scout, position: [0, 0]}"}
          - {{id: wolf, name: Wolf, side: npc, aspects: {{Speed: 4}}, health: 6, position: [5, 0]}}
        """,
    )


def test_unknown_stat_in_an_action_point_encounter(tmp_path: Path) -> None:
    write(tmp_path, "weapons.yaml", ranged_library(10, 30))
    write(tmp_path, "scout.yaml", _creature_text(("dodge_ratng: 3",)))
    error = error_of(load_encounter, _ap_encounter(tmp_path))
    has(
        error,
        "scout.yaml",
        11,
        "creature.stats.dodge_ratng",
        "unknown stat 'dodge_ratng' in the Action Point module",
        "did you mean 'dodge_rating'?",
        "block_rating",
    )
    # The same stat block in an Action Load encounter: stats are free there.
    load_encounter(_ap_encounter(tmp_path, ruleset="current"))


def test_stat_values_in_an_action_point_encounter(tmp_path: Path) -> None:
    write(tmp_path, "weapons.yaml", ranged_library(10, 30))
    write(tmp_path, "scout.yaml", _creature_text(("travel_speed: -2", "gifted_perception: 2")))
    error = error_of(load_encounter, _ap_encounter(tmp_path))
    has(error, "scout.yaml", 11, "creature.stats.travel_speed", "expected a number ≥ 0, got -2")
    has(error, "scout.yaml", 12, "creature.stats.gifted_perception", "expected 1", "got 2")


def test_inline_participant_stats_are_checked(tmp_path: Path) -> None:
    text = """
        kind: encounter
        name: Fight
        ruleset: action-points
        participants:
          - id: scout
            name: Scout
            side: pc
            aspects: {Speed: 3}
            health: 8
            stats: {ap: 6, sped: 2}
          - {id: wolf, name: Wolf, side: npc, aspects: {Speed: 4}, health: 6}
    """
    error = error_of(load_encounter, write(tmp_path, "fight.yaml", text))
    has(error, "fight.yaml", 10, "encounter.participants[1].stats.sped", "unknown stat 'sped'")


def test_ranged_weapon_without_ranges_in_an_action_point_encounter(tmp_path: Path) -> None:
    write(
        tmp_path,
        "weapons.yaml",
        """
        kind: weapons
        weapons:
          - {name: dagger, dice: 1d6, ap: 2}
          - {name: bow, dice: 1d8, kind: ranged, ap: 2}
        """,
    )
    write(tmp_path, "scout.yaml", _creature_text())
    error = error_of(load_encounter, _ap_encounter(tmp_path))
    has(
        error,
        "weapons.yaml",
        4,
        "weapons[2].close",
        "ranged weapon 'bow' (of scout) needs close and far ranges",
        "R39",
        "'Fight'",
    )
    load_encounter(_ap_encounter(tmp_path, ruleset="current"))  # Action Load needs no ranges


def test_inline_ranged_weapon_without_far_range(tmp_path: Path) -> None:
    write(tmp_path, "weapons.yaml", ranged_library(10, 30))
    write(
        tmp_path, "scout.yaml", _creature_text(weapons="[{name: sling, dice: 1d6, kind: ranged}]")
    )
    error = error_of(load_encounter, _ap_encounter(tmp_path))
    has(error, "scout.yaml", 11, "creature.weapons[1].close", "ranged weapon 'sling'")


def test_equipped_weapon_not_owned(tmp_path: Path) -> None:
    write(tmp_path, "weapons.yaml", ranged_library(10, 30))
    path = write(tmp_path, "scout.yaml", _creature_text(extra="equipped: [bow, daggr, bow]"))
    error = error_of(load_creature, path)
    has(
        error,
        "scout.yaml",
        12,
        "creature.equipped[2]",
        "equipped weapon 'daggr' is not one of scout's weapons",
        "did you mean 'dagger'?",
        "has: bow, dagger",
    )
    has(error, "scout.yaml", 12, "creature.equipped[3]", "'bow' is listed twice")
    error = error_of(load_encounter, _ap_encounter(tmp_path))
    has(error, "scout.yaml", 12, "creature.equipped[2]", "'daggr'")


def test_equipped_loads(tmp_path: Path) -> None:
    write(tmp_path, "weapons.yaml", ranged_library(10, 30))
    path = write(tmp_path, "scout.yaml", _creature_text(extra="equipped: [bow]"))
    assert load_creature(path).equipped == ("bow",)
    path = write(tmp_path, "scout.yaml", _creature_text(extra="equipped: []"))
    assert load_creature(path).equipped == ()
    path = write(tmp_path, "scout.yaml", _creature_text())
    assert load_creature(path).equipped is None  # all weapons in hand


@pytest.mark.parametrize(
    ("position", "words"),
    [
        ("[2.5, 0]", ["expected whole meters, got 2.5", "integer stats x and y"]),
        ("[1, 2, 3]", ["expected a position [x, y] in meters", "a list of 3"]),
        ("[one, 2]", ["of integers", "'one'"]),
        ("'3,4'", ["expected a position [x, y]", "'3,4'"]),
        ("[true, 0]", ["of integers", "true"]),
    ],
)
def test_bad_position(tmp_path: Path, position: str, words: list[str]) -> None:
    write(tmp_path, "weapons.yaml", ranged_library(10, 30))
    write(tmp_path, "scout.yaml", _creature_text())
    path = _ap_encounter(tmp_path, participant=f"{{creature: scout, position: {position}}}")
    has(
        error_of(load_encounter, path),
        "fight.yaml",
        6,
        "encounter.participants[1].position",
        *words,
    )


def test_bad_inline_position(tmp_path: Path) -> None:
    text = """
        kind: encounter
        name: Fight
        ruleset: action-points
        participants:
          - {id: scout, name: Scout, side: pc, aspects: {Speed: 3}, health: 8, position: [0.5, 1]}
          - {id: wolf, name: Wolf, side: npc, aspects: {Speed: 4}, health: 6}
    """
    error = error_of(load_encounter, write(tmp_path, "fight.yaml", text))
    has(error, "fight.yaml", 5, "encounter.participants[1].position", "whole meters, got 0.5")


def test_position_overrides_the_stats(tmp_path: Path) -> None:
    write(tmp_path, "weapons.yaml", ranged_library(10, 30))
    write(tmp_path, "scout.yaml", _creature_text(("x: 7", "y: 7")))
    encounter = load_encounter(
        _ap_encounter(tmp_path, participant="{creature: scout, position: [-3, 4]}")
    )
    scout, wolf = encounter.participants
    assert (scout.stats["x"], scout.stats["y"]) == (-3, 4)
    assert (wolf.stats["x"], wolf.stats["y"]) == (5, 0)
    assert encounter_from_dict(encounter_to_dict(encounter)) == encounter
    # without a position the creature's own stats stand
    encounter = load_encounter(_ap_encounter(tmp_path, participant="scout"))
    assert (encounter.participants[0].stats["x"], encounter.participants[0].stats["y"]) == (7, 7)


def test_participant_typo_suggests_position(tmp_path: Path) -> None:
    write(tmp_path, "weapons.yaml", ranged_library(10, 30))
    write(tmp_path, "scout.yaml", _creature_text())
    path = _ap_encounter(tmp_path, participant="{creature: scout, positon: [1, 1]}")
    has(
        error_of(load_encounter, path),
        "fight.yaml",
        6,
        "encounter.participants[1].positon",
        "did you mean 'position'?",
    )


def test_action_point_encounter_from_text() -> None:
    encounter = load_encounter_text(
        """
        kind: encounter
        name: Duel
        ruleset: action-points
        participants:
          - id: a
            name: A
            side: pc
            aspects: {Speed: 3}
            health: 6
            weapons: [{name: bow, dice: 1d8, kind: ranged, ap: 2, close: 10, far: 30}]
            equipped: [bow]
            position: [0, 0]
          - {id: b, name: B, side: npc, aspects: {Speed: 3}, health: 6, position: [12, 5]}
        """
    )
    a, b = encounter.participants
    assert a.weapons[0].close == 10
    assert a.equipped == ("bow",)
    assert (b.stats["x"], b.stats["y"]) == (12, 5)
    assert encounter_from_dict(encounter_to_dict(encounter)) == encounter


def test_errors_are_content_file_errors(tmp_path: Path) -> None:
    path = write(tmp_path, "weapons.yaml", ranged_library(30, 10))
    with pytest.raises(ContentFileError) as info:
        check_file(path)
    assert str(info.value).startswith(f"{path}:9: weapons[2].far: ")
