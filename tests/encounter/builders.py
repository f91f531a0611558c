"""Encounters built by hand from :mod:`caltrop.core.model` dataclasses, for the engine's tests.

Nothing here reads YAML content: every creature, action and weapon is written out below, so the
engine's tests do not move when the example content does. Each seed example has its own
definition (``trap_example``, ``dagger_example`` …); ``skirmish`` and ``duel`` are small mixed
encounters for random walks and the economy conformance suite.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from dataclasses import replace

from caltrop.core.commands import Command, RollDice, parse_command
from caltrop.core.model import (
    ActionDef,
    ActionKind,
    CreatureDef,
    EncounterDef,
    Grant,
    Initiative,
    LoadReset,
    Ruleset,
    Side,
    Weapon,
)
from caltrop.core.pool import Revision
from caltrop.dice import parse
from caltrop.encounter import CHANCE, Encounter, Outcome

# -- weapons -----------------------------------------------------------------------------------

DAGGER = Weapon("dagger", parse("1d4"))  # seed 000: "a dagger (1d4 damage)"
SWORD = Weapon("sword", parse("1d8"))  # seed 000: "a weapon's 1d8"

# -- actions -----------------------------------------------------------------------------------

#: An attack against Evasion with a weapon's extra dice (R16, R3).
STRIKE = ActionDef("strike", "Finesse", 1, ActionKind.ATTACK, uses_weapon=True)
#: A costlier attack, for gate arithmetic ("< cost 2").
HEAVY = ActionDef("heavy-blow", "Finesse", 2, ActionKind.ATTACK, uses_weapon=True)
#: An attack that may also be taken on another creature's turn (seed 000 "Acting on Other Turns").
RIPOSTE = ActionDef("riposte", "Finesse", 1, ActionKind.ATTACK, reaction=True)
#: Team actions (R15): advantage to an ally's pending roll, disadvantage to an opponent's.
HELP = ActionDef("help", "Control", 1, ActionKind.TEAM, reaction=True, grant=Grant("adv", "ally"))
HINDER = ActionDef(
    "hinder", "Control", 1, ActionKind.TEAM, reaction=True, grant=Grant("dis", "enemy")
)
#: Seed 000 trap example: "holding a torch, giving Advantage" and "giving advice" (two keys, R14).
HOLD_TORCH = ActionDef(
    "hold-torch",
    "Control",
    1,
    ActionKind.TEAM,
    reaction=True,
    grant=Grant("adv", "ally"),
    source="torch",
)
ADVISE = ActionDef(
    "advise",
    "Control",
    1,
    ActionKind.TEAM,
    reaction=True,
    grant=Grant("adv", "ally"),
    source="advice",
)
#: Seed 000: the "Watch My Back" feature: advantage on an ally's next roll (R14: one key).
WATCH_MY_BACK = ActionDef(
    "watch-my-back",
    "Control",
    1,
    ActionKind.EFFECT,
    grant=Grant("adv", "ally"),
    source="watch-my-back",
)
#: The same feature used as a team action on a pending roll (R14: "whoever applies it").
WATCH_MY_BACK_TEAM = replace(WATCH_MY_BACK, name="cover-me", kind=ActionKind.TEAM, reaction=True)
#: A reaction attack on another Aspect (a spell), with no weapon.
HEX = ActionDef("hex", "Control", 1, ActionKind.ATTACK, reaction=True)
#: A plain effect with no roll and Cost 1: a deterministic way to raise Load by 1.
PREPARE = ActionDef("prepare", "Finesse", 1, ActionKind.EFFECT)
#: Seed 000: "Some abilities have a Cost of 0 or 1"; a 0-cost plain effect.
STEADY = ActionDef("steady", "Control", 0, ActionKind.EFFECT)
#: Checks against a DC (R16): one with its own DC, one whose DC the command names.
PICK_LOCK = ActionDef("pick-lock", "Finesse", 1, ActionKind.CHECK, dc=10)
DISABLE_TRAP = ActionDef("disable-trap", "Finesse", 1, ActionKind.CHECK)
#: Seed 001: abilities that "use only 1d4" (R20 fixed pool).
JAB = ActionDef("jab", "Finesse", 1, ActionKind.ATTACK, fixed_pool=1)

# -- creatures ---------------------------------------------------------------------------------


def creature(
    cid: str,
    side: Side = Side.PC,
    *,
    name: str | None = None,
    finesse: int = 4,
    control: int = 3,
    health: int = 10,
    evasion: int = 0,
    load_buffer: int = 0,
    exhaustion: int = 0,
    actions: Iterable[ActionDef] = (STRIKE, PREPARE),
    weapons: Iterable[Weapon] = (DAGGER,),
    aspects: dict[str, int] | None = None,
) -> CreatureDef:
    """A stat block; ``aspects`` replaces the default Finesse/Control pair when given."""
    return CreatureDef(
        id=cid,
        name=name or cid.capitalize(),
        side=side,
        aspects=dict(aspects) if aspects is not None else {"Finesse": finesse, "Control": control},
        health=health,
        evasion=evasion,
        load_buffer=load_buffer,
        exhaustion=exhaustion,
        actions=tuple(actions),
        weapons=tuple(weapons),
    )


def npc(cid: str, **kwargs: object) -> CreatureDef:
    return creature(cid, Side.NPC, **kwargs)  # type: ignore[arg-type]


def definition(
    *participants: CreatureDef, ruleset: Ruleset | None = None, name: str = "test"
) -> EncounterDef:
    return EncounterDef(name, ruleset or Ruleset(), tuple(participants))


def begin(
    *participants: CreatureDef, ruleset: Ruleset | None = None, seed: int = 0, name: str = "test"
) -> Encounter:
    return Encounter.begin(definition(*participants, ruleset=ruleset, name=name), seed)


def run(encounter: Encounter, *lines: str) -> list[Outcome | None]:
    """Apply commands written in the shared text notation, in order."""
    return [encounter.apply(parse_command(line)) for line in lines]


def load(encounter: Encounter, cid: str) -> int:
    return encounter.resources[encounter.index(cid)].as_dict()["load"]


def health(encounter: Encounter, cid: str) -> int:
    return encounter.health[encounter.index(cid)]


def pending_expr(encounter: Encounter) -> str:
    return str(encounter.pending_expression())


def ruleset(
    revision: Revision = Revision.CURRENT,
    load_reset: LoadReset = LoadReset.TURN,
    *,
    initiative: Initiative = Initiative.GM,
    gm_roll_counts_load: bool = False,
) -> Ruleset:
    return Ruleset(
        name=f"{revision.value}-{load_reset.value}",
        revision=revision,
        load_reset=load_reset,
        initiative=initiative,
        initiative_aspect="Finesse" if initiative is Initiative.CHECK else None,
        gm_roll_counts_load=gm_roll_counts_load,
    )


#: Every option combination of the Action Load module (R19 × R20), for parametrised tests.
ACTION_LOAD_RULESETS = {
    f"{rev.value}-{reset.value}": ruleset(rev, reset) for rev in Revision for reset in LoadReset
}

# -- the seed examples -------------------------------------------------------------------------


def trap_example() -> EncounterDef:
    """Seed 000: a Finesse 4 rogue with Load Buffer 1, a torchbearer, an adviser, and the trap."""
    rogue = creature("rogue", finesse=4, load_buffer=1, actions=(PREPARE, DISABLE_TRAP), weapons=())
    torch = creature("torchbearer", actions=(HOLD_TORCH,), weapons=())
    sage = creature("sage", actions=(ADVISE,), weapons=())
    trap = creature("trap", Side.NPC, aspects={}, actions=(), weapons=(), health=1)
    return definition(rogue, torch, sage, trap, name="seed-000-trap")


def dagger_example(revision: Revision = Revision.CURRENT) -> EncounterDef:
    """Seed 000/001: Finesse 6 with a dagger (1d4) against Evasion 11."""
    rogue = creature("rogue", finesse=6, actions=(PREPARE, STRIKE), weapons=(DAGGER,))
    goblin = creature("goblin", Side.NPC, health=10, evasion=11, actions=(STRIKE,))
    return definition(
        rogue, goblin, ruleset=ruleset(revision), name=f"seed-dagger-{revision.value}"
    )


def goblin_team_example(revision: Revision = Revision.CURRENT) -> EncounterDef:
    """Seed 000/001: "A goblin attacks your ally." You (Control 3) hinder the goblin's attack."""
    you = creature("you", control=3, actions=(PREPARE, STRIKE, HINDER), evasion=5)
    ally = creature("ally", evasion=5, actions=(STRIKE,))
    goblin = creature("goblin", Side.NPC, finesse=4, evasion=5, actions=(STRIKE,))
    return definition(
        you, ally, goblin, ruleset=ruleset(revision), name=f"seed-goblin-{revision.value}"
    )


def watch_my_back_example() -> EncounterDef:
    """Seed 000: two allies both use "Watch My Back" on the same friend."""
    bron = creature("bron", actions=(WATCH_MY_BACK, WATCH_MY_BACK_TEAM, HELP))
    cara = creature("cara", actions=(WATCH_MY_BACK, WATCH_MY_BACK_TEAM, HELP))
    aria = creature("aria", finesse=4, actions=(STRIKE,))
    goblin = creature("goblin", Side.NPC, health=30, evasion=4, actions=(STRIKE,))
    return definition(bron, cara, aria, goblin, name="seed-000-watch-my-back")


# -- small mixed encounters for random play ----------------------------------------------------


def skirmish(rs: Ruleset | None = None) -> EncounterDef:
    """Two PCs against two NPCs with every kind of action: attacks (on-turn and reactions), checks,
    team actions both ways, Watch My Back, 0-cost and fixed-pool actions, Load Buffer and
    Exhaustion, a negative Aspect."""
    aria = creature(
        "aria",
        name="Aria",
        finesse=5,
        control=2,
        health=9,
        evasion=9,
        load_buffer=1,
        actions=(STRIKE, HEAVY, RIPOSTE, HELP, PICK_LOCK, JAB),
        weapons=(DAGGER, SWORD),
    )
    bron = creature(
        "bron",
        name="Bron",
        finesse=3,
        control=4,
        health=10,
        evasion=8,
        exhaustion=1,
        actions=(STRIKE, HELP, HINDER, WATCH_MY_BACK, STEADY),
        weapons=(SWORD,),
    )
    goblin = creature(
        "goblin",
        Side.NPC,
        name="Goblin",
        finesse=4,
        control=2,
        health=7,
        evasion=8,
        load_buffer=2,
        actions=(STRIKE, RIPOSTE, HINDER),
        weapons=(DAGGER,),
    )
    shaman = creature(
        "shaman",
        Side.NPC,
        name="Shaman",
        aspects={"Finesse": -1, "Control": 5},
        health=6,
        evasion=7,
        actions=(HELP, HINDER, JAB, WATCH_MY_BACK, HEX),
        weapons=(),
    )
    return definition(aria, bron, goblin, shaman, ruleset=rs, name="skirmish")


def duel(rs: Ruleset | None = None) -> EncounterDef:
    """One against one, quick to finish."""
    a = creature("a", finesse=4, health=6, evasion=6, actions=(STRIKE, RIPOSTE, PREPARE))
    b = creature("b", Side.NPC, finesse=4, health=6, evasion=6, actions=(STRIKE, RIPOSTE, PREPARE))
    return definition(a, b, ruleset=rs, name="duel")


def random_playout(encounter: Encounter, rng: random.Random, max_steps: int = 5000) -> int:
    """Play to the end with a uniformly random policy; returns the steps taken (fails if more)."""
    for step in range(max_steps):
        who = encounter.current()
        if encounter.is_terminal():
            return step
        command: Command
        if who == CHANCE:
            command = RollDice()
        else:
            options = list(encounter.legal_actions())
            assert options, f"{who} must decide but has no legal action"
            command = rng.choice(options)
        encounter.apply(command)
    raise AssertionError(f"no end after {max_steps} steps")


def replayed(encounter: Encounter) -> Encounter:
    """The encounter rebuilt from its own log, through JSON text, as a saved file would be."""
    events = [json.loads(line) for line in encounter.log_lines()]
    return Encounter.replay(encounter.initial, events)
