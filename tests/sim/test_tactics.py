"""The tactical policy: focus fire, help and hinder only when it pays, Load kept in reserve."""

from __future__ import annotations

import numpy as np
import pytest

from caltrop.core.commands import Act, EndTurn, Pass, RollDice
from caltrop.core.model import CreatureDef, EncounterDef, LoadReset, Ruleset, Side
from caltrop.dice import parse
from caltrop.encounter import CHANCE, Encounter
from caltrop.sim.registry import make_policy, policy_names
from caltrop.sim.tactics import (
    ActionLoadAdvisor,
    TacticalPolicy,
    attack_odds,
    harm,
    profile,
)
from tests.sim.tiny import CLUB, HINDER, STAB, SWING, fighter, skirmish


def test_attack_odds_are_exact() -> None:
    # 1d4 vs Evasion 2: damage 0,0,1,2 each 1/4; against Health 2: E[min(d, 2)] = 3/4, P(d ≥ 2) = 1/4
    capped, kill = attack_odds(parse("1d4"), 2, 2)
    assert capped == pytest.approx(0.75)
    assert kill == pytest.approx(0.25)
    assert harm(parse("1d4"), 2, 2, threat=2.0) == pytest.approx(2.0 * (0.75 / 2 + 0.25))
    assert harm(parse("1d4"), 9, 2, threat=2.0) == 0.0


def test_registry_names() -> None:
    assert {"random", "attack-weakest", "tactical", "greedy"} <= set(policy_names())
    assert isinstance(make_policy("greedy", np.random.default_rng(0)), TacticalPolicy)


def test_focus_the_weakest_enemy() -> None:
    d = EncounterDef(
        "focus",
        Ruleset(),
        (
            fighter("hero", Side.PC, finesse=3),
            fighter("fresh", Side.NPC, health=8),
            fighter("hurt", Side.NPC, health=2),
        ),
    )
    enc = Encounter.begin(d, 1, record=False)
    command = TacticalPolicy().choose(enc, "hero")
    assert isinstance(command, Act)
    assert command.targets == ("hurt",)


def test_end_the_turn_when_nothing_can_hurt() -> None:
    d = EncounterDef(
        "wall",
        Ruleset(),
        (fighter("hero", Side.PC), fighter("golem", Side.NPC, evasion=50)),
    )
    enc = Encounter.begin(d, 1, record=False)
    assert TacticalPolicy().choose(enc, "hero") == EndTurn("hero")


def _ogre_swings_at(target: str, definition: EncounterDef) -> Encounter:
    enc = Encounter.begin(definition, 3, record=False)
    enc.apply(Act("ogre", "swing", (target,), ("club",)))
    return enc


def test_hinder_when_it_changes_the_odds() -> None:
    enc = _ogre_swings_at("hero", skirmish())
    assert enc.current() == "hero" or enc.current() == "sage"
    policy = TacticalPolicy()
    while enc.current() != "sage":
        enc.apply(policy.choose(enc, enc.current()))
    assert policy.choose(enc, "sage") == Act("sage", "hinder")
    enc.apply(Act("sage", "hinder"))
    # R14: the same source again adds nothing, so it is never paid for twice
    assert policy.choose(enc, "sage") == Pass("sage")


def test_no_hinder_when_the_attack_cannot_hurt() -> None:
    d = skirmish()
    tough = d.participants[1]
    armoured = CreatureDef(**{**_fields(tough), "evasion": 60})
    d = EncounterDef(d.name, d.ruleset, (d.participants[0], armoured, d.participants[2]))
    enc = _ogre_swings_at("hero", d)
    policy = TacticalPolicy()
    while enc.current() != CHANCE:
        who = enc.current()
        command = policy.choose(enc, who)
        assert isinstance(command, Pass), command
        enc.apply(command)


def _fields(c: CreatureDef) -> dict[str, object]:
    return {name: getattr(c, name) for name in c.__dataclass_fields__}


def _guard_post(load_reset: LoadReset = LoadReset.TURN) -> EncounterDef:
    guard = fighter("guard", Side.PC, finesse=4, insight=2, health=12, actions=(STAB, HINDER))
    squire = fighter("squire", Side.PC, finesse=1, health=3, evasion=0)
    ogre = CreatureDef(
        "ogre",
        "Ogre",
        Side.NPC,
        {"Finesse": 3, "Insight": 0},
        health=30,
        evasion=5,
        actions=(SWING,),
        weapons=(CLUB,),
    )
    return EncounterDef("post", Ruleset(load_reset=load_reset), (guard, ogre, squire))


def _attacks_in_first_turn(policy: TacticalPolicy, definition: EncounterDef) -> Encounter:
    enc = Encounter.begin(definition, 1, record=False)
    while enc.turn_owner == "guard":
        who = enc.current()
        enc.apply(RollDice() if who == CHANCE else policy.choose(enc, who))
    return enc


def test_keep_load_in_reserve_when_an_ally_is_threatened() -> None:
    d = _guard_post()
    spent = _attacks_in_first_turn(TacticalPolicy(reserve=False), d)
    kept = _attacks_in_first_turn(TacticalPolicy(), d)
    load = {e: e.resources[0].as_dict()["load"] for e in (spent, kept)}
    assert load[spent] == 3  # stabs of 4d4, 3d4, 2d4 (1d4 cannot beat Evasion 5)
    assert load[kept] < load[spent]
    guard = d.participants[0]
    hinder = guard.action("hinder")
    assert hinder is not None
    assert kept.economy.gate(guard, kept.resources[0], hinder, on_turn=False)


def test_advisor_segments() -> None:
    d = _guard_post()
    enc = Encounter.begin(d, 1, record=False)
    advisor = ActionLoadAdvisor()
    # turn reset: on the guard's turn, every other creature acts before its reset
    assert advisor.segment(enc, 0) == [0, 1, 2]
    # for the ogre: the guard's turn now, then its own reset
    assert advisor.segment(enc, 1) == [0]
    round_reset = Encounter.begin(_guard_post(LoadReset.ROUND), 1, record=False)
    assert advisor.segment(round_reset, 1) == [0, 1, 2]


def test_threat_is_the_damage_of_a_fresh_turn() -> None:
    prof = profile(_guard_post())
    assert prof.threat[1] > prof.threat[2]  # the ogre is more dangerous than the squire
    assert min(prof.threat) >= 1.0
    assert prof.reaction[0] == HINDER
    assert prof.reaction[1] is None


def test_tactics_only_choose_legal_commands_and_finish() -> None:
    from caltrop.content import load_encounter

    d = load_encounter("goblin-ambush")
    for seed in range(3):
        enc = Encounter.begin(d, seed, record=False)
        policy = TacticalPolicy()
        steps = 0
        while enc.current() != "terminal":
            who = enc.current()
            if who == CHANCE:
                enc.apply(RollDice())
            else:
                command = policy.choose(enc, who)
                assert command in enc.legal_actions(who), (who, str(command))
                enc.apply(command)
            steps += 1
            assert steps < 5000


def test_tactics_beat_the_simple_baseline_exactly() -> None:
    """Exact answers, no sampling: the sage's hinders and the Load budget win fights."""
    from caltrop.sim.exact import solve

    d = skirmish()
    tactical = solve(d, {"pc": "tactical", "npc": "tactical"})
    simple = solve(d, {"pc": "attack-weakest", "npc": "tactical"})
    assert tactical.pc > simple.pc
