"""Action Point encounters (seed 004) built by hand from :mod:`caltrop.core.model`, for the tests.

Nothing here reads YAML content, so the rules tests do not move when the example content does.
``ap_creature`` writes a whole stat block of this module (Speed, Power, Strength, Dexterity,
Agility, Poise, Perception, Analysis; Stamina, Resistance, Block and Dodge Rating, travel speed,
size, weight, position) with round numbers that make the arithmetic of each test easy to follow;
``begin`` starts an encounter in the listed turn order (R21's GM order) so that no initiative
roll is needed unless a test asks for it (R30).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

import pytest

from caltrop.core.commands import parse_command
from caltrop.core.model import (
    CreatureDef,
    Economy,
    EncounterDef,
    Initiative,
    Ruleset,
    Side,
    Weapon,
    WeaponKind,
)
from caltrop.dice import parse
from caltrop.economy.points.state import PointsState, points
from caltrop.encounter import Encounter, Outcome
from caltrop.errors import CaltropError

# -- weapons -----------------------------------------------------------------------------------

#: R38: "In case of melee weapons, the number of AP and damage are determined by the weapon itself."
SWORD = Weapon("sword", parse("2d8"), WeaponKind.MELEE, ap=3)
DAGGER = Weapon("dagger", parse("1d4"), WeaponKind.MELEE, ap=2)
#: A weapon with a modifier: its dice are halved, the +2 is not (R38).
MACE = Weapon("mace", parse("1d6+2"), WeaponKind.MELEE, ap=4)
#: R39: "Ranged weapons have range metrics for close and far range."
BOW = Weapon("bow", parse("1d8"), WeaponKind.RANGED, ap=2, close=10, far=30)
SLING = Weapon("sling", parse("1d4"), WeaponKind.RANGED, ap=1, close=5, far=10)

#: A stat block's Aspects (R1: a stat's value is its pool size).
ASPECTS: dict[str, int] = {
    "Speed": 3,
    "Power": 3,
    "Strength": 4,
    "Dexterity": 4,
    "Agility": 3,
    "Poise": 3,
    "Perception": 3,
    "Analysis": 2,
}


def ap_ruleset(initiative: Initiative = Initiative.GM) -> Ruleset:
    """The Action Point module; initiative by the GM's order (the listed order) unless asked."""
    return Ruleset(
        name="action-points",
        economy=Economy.ACTION_POINTS,
        initiative=initiative,
        initiative_aspect="Speed" if initiative is Initiative.CHECK else None,
    )


def ap_creature(
    cid: str,
    side: Side = Side.PC,
    *,
    at: tuple[float, float] = (0, 0),
    health: int = 20,
    weapons: Iterable[Weapon] = (SWORD,),
    equipped: tuple[str, ...] | None = None,
    aspects: dict[str, int] | None = None,
    stamina: int = 6,
    resistance: int = 1,
    block: int = 3,
    dodge: int = 3,
    speed: int = 2,
    **stats: int,
) -> CreatureDef:
    """A stat block of seed 004. ``aspects`` override single Aspects; ``stats`` add stats such as
    ``power_mod``, ``size``, ``weight``, ``gifted_perception``, ``ap`` or ``rp``."""
    block_stats = {
        "stamina": stamina,
        "resistance": resistance,
        "block_rating": block,
        "dodge_rating": dodge,
        "travel_speed": speed,
        "x": int(at[0]) if float(at[0]).is_integer() else at[0],
        "y": int(at[1]) if float(at[1]).is_integer() else at[1],
        **stats,
    }
    return CreatureDef(
        id=cid,
        name=cid.capitalize(),
        side=side,
        aspects={**ASPECTS, **(aspects or {})},
        health=health,
        weapons=tuple(weapons),
        stats=block_stats,  # type: ignore[arg-type]
        equipped=equipped,
    )


def ap_npc(cid: str, **kwargs: object) -> CreatureDef:
    return ap_creature(cid, Side.NPC, **kwargs)  # type: ignore[arg-type]


def definition(
    *participants: CreatureDef,
    initiative: Initiative = Initiative.GM,
    name: str = "points-test",
) -> EncounterDef:
    return EncounterDef(name, ap_ruleset(initiative), tuple(participants))


def begin(
    *participants: CreatureDef,
    seed: int = 0,
    initiative: Initiative = Initiative.GM,
    record: bool = True,
) -> Encounter:
    return Encounter.begin(definition(*participants, initiative=initiative), seed, record=record)


def run(encounter: Encounter, *lines: str) -> list[Outcome | None]:
    """Apply commands written in the shared text notation, in order."""
    return [encounter.apply(parse_command(line)) for line in lines]


def last(encounter: Encounter, *lines: str) -> Outcome:
    """Apply the commands; the outcome of the last (which must be a roll)."""
    outcome = run(encounter, *lines)[-1]
    assert outcome is not None
    return outcome


def st(encounter: Encounter, cid: str) -> PointsState:
    """A participant's Action Point state (AP, RP, floating RP, Stamina, position, …)."""
    return points(encounter.resources[encounter.index(cid)])


def hp(encounter: Encounter, cid: str) -> int:
    return encounter.health[encounter.index(cid)]


def pts(encounter: Encounter, cid: str) -> tuple[int, int, int]:
    """(AP, RP, floating RP): what the state shows for each participant (issue 4)."""
    s = st(encounter, cid)
    return s.ap, s.rp, s.floating


def end_turns_until(encounter: Encounter, cid: str) -> None:
    """End turns until it is ``cid``'s turn."""
    for _ in range(len(encounter.creatures) * 2):
        if encounter.turn_owner == cid:
            return
        owner = encounter.turn_owner
        assert owner is not None
        run(encounter, f"{owner}: end turn")
    raise AssertionError(f"never {cid}'s turn")


def refused(encounter: Encounter, line: str, *fragments: str) -> str:
    """``line`` is refused with a message holding every fragment; state and log unchanged."""
    before = (encounter.to_json(), encounter.log_lines(), encounter.key())
    with pytest.raises(CaltropError) as info:
        encounter.apply(parse_command(line))
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    assert (encounter.to_json(), encounter.log_lines(), encounter.key()) == before
    assert not encounter.is_legal(parse_command(line))
    return message


def replayed(encounter: Encounter) -> Encounter:
    """The encounter rebuilt from its own log, through JSON text, as a saved file would be."""
    events = [json.loads(line) for line in encounter.log_lines()]
    return Encounter.replay(encounter.initial, events)


# -- small mixed encounters for random play and the conformance suite ----------------------------


def skirmish(rs: Ruleset | None = None) -> EncounterDef:
    """Two PCs against two NPCs with melee and ranged weapons, close enough to fight soon: every
    kind of action of the module is reachable by random play (moves, attacks with and without
    defences and assists, shooting and aiming, holding, grapples and escapes, deep breaths)."""
    ruleset = rs if rs is not None else ap_ruleset()
    aria = ap_creature(
        "aria", at=(0, 0), health=9, weapons=(SWORD, DAGGER, BOW), equipped=("sword", "bow")
    )
    bron = ap_creature("bron", at=(0, 1), health=10, weapons=(MACE,), resistance=2, block=4)
    orc = ap_npc("orc", at=(4, 0), health=10, weapons=(SWORD,), aspects={"Strength": 5})
    archer = ap_npc("archer", at=(6, 2), health=7, weapons=(DAGGER, SLING), dodge=4, resistance=0)
    return EncounterDef("points-skirmish", ruleset, (aria, bron, orc, archer))


def duel(rs: Ruleset | None = None) -> EncounterDef:
    """One against one, adjacent, quick to finish."""
    ruleset = rs if rs is not None else ap_ruleset()
    brakka = ap_creature(
        "brakka", at=(0, 0), health=8, weapons=(SWORD, BOW), resistance=0, block=1, dodge=1
    )
    orc = ap_npc("orc", at=(1, 0), health=8, weapons=(SWORD,), resistance=0, block=2, dodge=1)
    return EncounterDef("points-duel", ruleset, (brakka, orc))
