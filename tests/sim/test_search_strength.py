"""The strong player's improvement, head to head on paired seeds, with a proper test (issue 13),
one encounter per module.

Encounter *i* is played twice on the same engine seed: once with the base policy on the PC side,
once with ``search`` built on that base (its candidates weighed by playouts under ``tactical``);
the NPCs play the same policy both times. The outcomes are paired, so the exact McNemar test of
the discordant pairs says whether the search wins more often than its base, at 1%. The seeds
and sample sizes are fixed in each test (stated there), not chosen after looking.
"""

from __future__ import annotations

import numpy as np

from caltrop.content import load_encounter
from caltrop.core.model import CreatureDef, Economy, EncounterDef, Ruleset, Side, Weapon
from caltrop.dice import parse
from caltrop.encounter import CHANCE, TERMINAL, Encounter, RollDice
from caltrop.sim.points_tactics import AttackWeakestPointsPolicy
from caltrop.sim.policies import AttackWeakestPolicy, Policy
from caltrop.sim.search import SearchPolicy
from caltrop.sim.stats import mcnemar_exact
from caltrop.sim.tactics import TacticalPolicy

_ROLL = RollDice()


def _pc_wins(definition: EncounterDef, seed: int, pc: Policy, npc: Policy) -> float:
    enc = Encounter.begin(definition, seed, record=False)
    while (who := enc.current()) != TERMINAL:
        if who == CHANCE:
            enc.apply(_ROLL)
        else:
            chooser = pc if enc.creature(who).side is Side.PC else npc
            enc.apply(chooser.choose(enc, who))
    return 1.0 if enc.winner is Side.PC else 0.0


def test_search_beats_its_base_significantly_on_orc_bridge() -> None:
    """Action Load. Attack-weakest as the PCs' base (it never reacts: Bron never parries, Aria
    never helps) against tactical NPCs; the search on it wins more often, McNemar p < 0.01.
    Seeds 0 … 47, fixed before the test was first run."""
    definition = load_encounter("orc-bridge")
    n = 48
    base = [_pc_wins(definition, s, AttackWeakestPolicy(), TacticalPolicy()) for s in range(n)]
    strong = [
        _pc_wins(
            definition,
            s,
            SearchPolicy(np.random.default_rng(s), budget=48, base=AttackWeakestPolicy()),
            TacticalPolicy(),
        )
        for s in range(n)
    ]
    assert sum(strong) > sum(base)
    assert mcnemar_exact(base, strong) < 0.01, (sum(base), sum(strong))


def test_search_beats_tactical_itself_on_orc_bridge() -> None:
    """Action Load, the issue's own test: the PCs played by the search (its playouts in the
    compiled kernel) against tactical orcs win more often than tactical PCs, McNemar p < 0.01.
    Seeds 5000 … 5199, fixed before this test was run on them. Pilots, all reported: the
    benchmark's 200 seeds from 13,000,039 (60 % → 79 %, 48 pairs won, 10 lost), 80 from
    14,000,042 (16/3) and this test on seeds 0 … 79 (18/11, p = 0.26: the pairs that diverge
    after one different choice are noisy); n = 200 gives a 1 % test ample power at 48/10's
    rate. On these seeds: 107 → 146 won, 54 pairs won, 15 lost, p = 2.6e-6. About a minute."""
    definition = load_encounter("orc-bridge")
    seeds = range(5000, 5200)
    base = [_pc_wins(definition, s, TacticalPolicy(), TacticalPolicy()) for s in seeds]
    strong = [
        _pc_wins(definition, s, SearchPolicy(np.random.default_rng(s)), TacticalPolicy())
        for s in seeds
    ]
    assert sum(strong) > sum(base)
    assert mcnemar_exact(base, strong) < 0.01, (sum(base), sum(strong))


RULES = Ruleset(name="ap", economy=Economy.ACTION_POINTS)  # GM order: as listed


def _fighter(
    cid: str, side: Side, x: int, weapon: Weapon, health: int, **stats: int
) -> CreatureDef:
    base = {"ap": 6, "rp": 2, "stamina": 6, "travel_speed": 2, "resistance": 0, "x": x, "y": 0}
    base.update(stats)
    return CreatureDef(
        id=cid,
        name=cid.capitalize(),
        side=side,
        aspects={"Dexterity": 3, "Strength": 3, "Agility": 3, "Perception": 2},
        health=health,
        weapons=(weapon,),
        stats=base,
    )


#: A duelist (Dodge 4 dice, Block 1) against a tougher brute, adjacent from the start.
SMALL_DUEL = EncounterDef(
    "small duel",
    RULES,
    (
        _fighter(
            "duelist",
            Side.PC,
            0,
            Weapon("axe", parse("1d8"), ap=2),
            14,
            block_rating=1,
            dodge_rating=4,
        ),
        _fighter(
            "brute",
            Side.NPC,
            1,
            Weapon("cleaver", parse("2d6"), ap=3),
            20,
            block_rating=2,
            dodge_rating=1,
        ),
    ),
)


def test_search_beats_its_base_significantly_in_an_action_point_duel() -> None:
    """Action Points. The simple rules as the duelist's base (R40: it Blocks whenever it can,
    with its 1 Block die, never Dodges with its 4) against the same simple brute; the search on
    it (16 playouts a decision, cut after a round, its defence windows searched too) wins more
    often, McNemar p < 0.01. Seeds 1000 … 1019, fixed before the test was first run (a pilot on
    seeds 0 … 19 chose n and the brute's Health: 35% → 100%, 13 pairs won, none lost)."""
    n = 20
    seeds = range(1000, 1000 + n)
    simple = AttackWeakestPointsPolicy()
    base = [_pc_wins(SMALL_DUEL, s, simple, simple) for s in seeds]
    strong = [
        _pc_wins(
            SMALL_DUEL,
            s,
            SearchPolicy(
                np.random.default_rng(s), budget=16, horizon=1.0, windows=True, base=simple
            ),
            simple,
        )
        for s in seeds
    ]
    assert sum(strong) > sum(base)
    assert mcnemar_exact(base, strong) < 0.01, (sum(base), sum(strong))
