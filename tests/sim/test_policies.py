"""The simple policies of :mod:`caltrop.sim.policies` and :func:`play_out`."""

from __future__ import annotations

import numpy as np
import pytest

from caltrop.content import load_encounter, load_encounter_text
from caltrop.core.commands import Act, Command, EndTurn, Pass, parse_command
from caltrop.core.model import EncounterDef
from caltrop.encounter import CHANCE, Encounter
from caltrop.errors import SimulationError
from caltrop.sim.policies import AttackWeakestPolicy, Policy, RandomPolicy, play_out

EXAMPLES = ("goblin-ambush", "orc-bridge")


class LegalOnly:
    """Wraps a policy and checks that each of its choices is one of the legal actions."""

    def __init__(self, inner: Policy) -> None:
        self.inner = inner
        self.asked = 0

    def choose(self, encounter: Encounter, actor: str) -> Command:
        command = self.inner.choose(encounter, actor)
        assert command in encounter.legal_actions(actor), (actor, str(command))
        self.asked += 1
        return command


def random_policies(seed: int) -> dict[str, Policy]:
    return {
        "pc": LegalOnly(RandomPolicy(np.random.default_rng(seed))),
        "npc": LegalOnly(RandomPolicy(np.random.default_rng(seed + 1_000))),
    }


def _brawl(hero_actions: str = "") -> EncounterDef:
    return load_encounter_text(
        f"""
kind: encounter
name: Brawl
ruleset: current
participants:
  - id: hero
    name: Hero
    side: pc
    aspects: {{Might: 2, Finesse: 5}}
    health: 10
    actions: {hero_actions or "[]"}
  - {{id: rat, name: Rat, side: npc, aspects: {{Might: 1}}, health: 3}}
  - {{id: boar, name: Boar, side: npc, aspects: {{Might: 1}}, health: 6}}
"""
    )


# -- play_out ends every example encounter ------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("name", EXAMPLES)
def test_random_play_out_terminates(name: str, seed: int) -> None:
    encounter = Encounter.begin(load_encounter(name), seed)
    policies = random_policies(seed)
    steps = play_out(encounter, policies, max_steps=10_000)
    assert encounter.is_terminal()
    assert steps == len(encounter.commands)
    assert sum(p.asked for p in policies.values() if isinstance(p, LegalOnly)) > 0
    assert sum(encounter.returns().values()) == 1
    assert encounter.winner is not None  # nobody ends it early: one side is down


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("name", EXAMPLES)
def test_attack_weakest_play_out_terminates(name: str, seed: int) -> None:
    encounter = Encounter.begin(load_encounter(name), seed, record=False)  # as simulations run
    weakest = LegalOnly(AttackWeakestPolicy())
    steps = play_out(encounter, {"pc": weakest, "npc": weakest}, max_steps=10_000)
    assert encounter.is_terminal()
    assert steps == len(encounter.commands)
    assert encounter.winner is not None
    loser = [i for i, c in enumerate(encounter.creatures) if c.side is not encounter.winner]
    assert all(encounter.down[i] and encounter.health[i] == 0 for i in loser)


@pytest.mark.parametrize("name", EXAMPLES)
def test_random_play_out_is_reproducible(name: str) -> None:
    logs = []
    for _ in range(2):
        encounter = Encounter.begin(load_encounter(name), 7)
        play_out(encounter, random_policies(7))
        logs.append(encounter.log_lines())
    assert logs[0] == logs[1]


def test_play_out_takes_a_policy_per_side_as_a_function() -> None:
    encounter = Encounter.begin(load_encounter("orc-bridge"), 3)
    seen: list[str] = []

    def by_side(side: str) -> Policy:
        seen.append(side)
        return AttackWeakestPolicy()

    play_out(encounter, by_side)
    assert encounter.is_terminal()
    assert set(seen) == {"pc", "npc"}


def test_play_out_of_a_finished_encounter_does_nothing() -> None:
    encounter = Encounter.begin(load_encounter("orc-bridge"), 3)
    play_out(encounter, {"pc": AttackWeakestPolicy(), "npc": AttackWeakestPolicy()})
    assert play_out(encounter, {"pc": AttackWeakestPolicy(), "npc": AttackWeakestPolicy()}) == 0


def test_play_out_raises_when_max_steps_is_exceeded() -> None:
    encounter = Encounter.begin(load_encounter("goblin-ambush"), 1)
    with pytest.raises(SimulationError, match="did not end within 5 decisions"):
        play_out(
            encounter, {"pc": AttackWeakestPolicy(), "npc": AttackWeakestPolicy()}, max_steps=5
        )
    assert len(encounter.commands) == 5  # the decisions taken so far stay applied


def test_play_out_raises_on_a_stalemate() -> None:
    """Nobody has an attack: every turn ends at once and the encounter never ends."""
    encounter = Encounter.begin(_brawl(), 1)
    with pytest.raises(SimulationError, match="within 300 decisions"):
        play_out(
            encounter, {"pc": AttackWeakestPolicy(), "npc": AttackWeakestPolicy()}, max_steps=300
        )
    assert all(isinstance(c, EndTurn) for c in encounter.commands)
    assert encounter.round > 50


# -- AttackWeakestPolicy --------------------------------------------------------------------------


def test_attack_weakest_picks_the_enemy_with_the_least_health() -> None:
    encounter = Encounter.begin(load_encounter("orc-bridge"), 1)
    policy = AttackWeakestPolicy()
    # Orc Brute 22, Goblin Archer 9: the archer
    assert policy.choose(encounter, "bron") == Act("bron", "strike", ("goblin-archer",), ("sword",))
    # now the brute takes 5d4 (4,4,4,4,4) + 1d8 (8) = 28 − Evasion 10 = 18 and is left with 4
    for line in ("bron: strike orc-brute", "roll 4,4,4,4,4,8"):
        encounter.apply(parse_command(line))
    assert encounter.health[encounter.index("orc-brute")] == 4
    assert policy.choose(encounter, "bron") == Act("bron", "strike", ("orc-brute",), ("sword",))


def test_attack_weakest_never_attacks_an_ally_or_a_downed_enemy() -> None:
    encounter = Encounter.begin(load_encounter("orc-bridge"), 1)
    for line in ("bron: strike goblin-archer", "roll 4,4,4,4,4,8"):  # 28 − 10 = 18 ≥ 9: down
        encounter.apply(parse_command(line))
    assert encounter.down[encounter.index("goblin-archer")]
    choice = AttackWeakestPolicy().choose(encounter, "bron")
    assert isinstance(choice, Act)
    assert choice.targets == ("orc-brute",)


def test_attack_weakest_prefers_the_larger_pool() -> None:
    encounter = Encounter.begin(
        _brawl(
            "[{name: punch, kind: attack, aspect: Might, cost: 1},"
            " {name: kick, kind: attack, aspect: Finesse, cost: 1}]"
        ),
        1,
    )
    assert AttackWeakestPolicy().choose(encounter, "hero") == Act("hero", "kick", ("rat",))


def test_attack_weakest_ends_the_turn_when_no_attack_is_left() -> None:
    encounter = Encounter.begin(load_encounter("orc-bridge"), 1)
    for line in ("bron: strike orc-brute", "roll 1,1,1,1,1,1", "bron: strike orc-brute", "roll"):
        encounter.apply(parse_command(line))
    # Might 5 − Load 5 = 0 < cost 3: no attack is legal (R11)
    assert AttackWeakestPolicy().choose(encounter, "bron") == EndTurn("bron")


def test_attack_weakest_never_reacts() -> None:
    encounter = Encounter.begin(load_encounter("orc-bridge"), 1)
    encounter.apply(parse_command("bron: strike orc-brute"))
    decider = encounter.current()
    assert decider not in ("bron", CHANCE)  # someone may react in the window (R15)
    assert AttackWeakestPolicy().choose(encounter, decider) == Pass(decider)


def test_random_policy_chooses_among_the_legal_actions() -> None:
    encounter = Encounter.begin(load_encounter("orc-bridge"), 1)
    policy = RandomPolicy(np.random.default_rng(0))
    legal = {str(c) for c in encounter.legal_actions("bron")}
    chosen = {str(policy.choose(encounter, "bron")) for _ in range(200)}
    assert chosen == legal  # every legal action comes up, nothing else
