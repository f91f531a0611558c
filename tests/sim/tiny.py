"""Small encounters built by hand for the simulator's tests (no YAML, so content edits don't move them)."""

from __future__ import annotations

from caltrop.core.model import (
    ActionDef,
    ActionKind,
    CreatureDef,
    EncounterDef,
    Grant,
    Ruleset,
    Side,
    Weapon,
)
from caltrop.dice import parse

STAB = ActionDef("stab", "Finesse", 1, ActionKind.ATTACK)
SWING = ActionDef("swing", "Finesse", 2, ActionKind.ATTACK, uses_weapon=True)
HINDER = ActionDef(
    "hinder", "Insight", 1, ActionKind.TEAM, reaction=True, grant=Grant("dis", "enemy")
)
HELP = ActionDef("help", "Insight", 1, ActionKind.TEAM, reaction=True, grant=Grant("adv", "ally"))
CLUB = Weapon("club", parse("1d6"))


def fighter(
    cid: str,
    side: Side,
    *,
    finesse: int = 2,
    insight: int = 0,
    health: int = 4,
    evasion: int = 2,
    actions: tuple[ActionDef, ...] = (STAB,),
    weapons: tuple[Weapon, ...] = (),
) -> CreatureDef:
    return CreatureDef(
        id=cid,
        name=cid.capitalize(),
        side=side,
        aspects={"Finesse": finesse, "Insight": insight},
        health=health,
        evasion=evasion,
        actions=actions,
        weapons=weapons,
    )


def duel(ruleset: Ruleset | None = None) -> EncounterDef:
    """A hero and a goblin with 2d4 stabs: a few hundred states, solvable exactly."""
    return EncounterDef(
        "duel",
        ruleset or Ruleset(),
        (
            fighter("hero", Side.PC, health=4, evasion=1),
            fighter("goblin", Side.NPC, health=5, evasion=1),
        ),
    )


def skirmish(ruleset: Ruleset | None = None) -> EncounterDef:
    """Two heroes (one can hinder) against an ogre: reactions matter."""
    return EncounterDef(
        "skirmish",
        ruleset or Ruleset(),
        (
            CreatureDef(
                "ogre",
                "Ogre",
                Side.NPC,
                {"Finesse": 3, "Insight": 0},
                health=6,
                evasion=1,
                actions=(SWING,),
                weapons=(CLUB,),
            ),
            fighter("hero", Side.PC, finesse=2, health=5, evasion=3),
            fighter(
                "sage",
                Side.PC,
                finesse=1,
                insight=3,
                health=4,
                evasion=2,
                actions=(STAB, HINDER, HELP),
            ),
        ),
    )
