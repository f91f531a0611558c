"""The exact solver leaves the round number out of its state key (issue 13): sound only if
nothing that decides the future reads it. In the Action Load module neither the rules nor the
bundled tactics do, so two states that differ only in their round must offer the same legal
actions and get the same choices (and the same chance outcomes)."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from caltrop.content import load_encounter
from caltrop.core.model import Economy
from caltrop.encounter import CHANCE, TERMINAL, Encounter, RollDice
from caltrop.sim.exact import reads_round
from caltrop.sim.policies import RandomPolicy
from caltrop.sim.registry import make_policy

ACTION_LOAD = ("duel", "orc-bridge", "goblin-ambush")
DETERMINISTIC = ("tactical", "attack-weakest")


def _shifted(encounter: Encounter, rounds: int) -> Encounter:
    other = encounter.clone()
    other.round += rounds
    return other


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(ACTION_LOAD),
    seed=st.integers(0, 2**16),
    shift=st.integers(1, 60),
    revision=st.sampled_from(("current", "legacy")),
    reset=st.sampled_from(("turn", "round")),
)
def test_states_that_differ_only_in_round_have_the_same_future(
    name: str, seed: int, shift: int, revision: str, reset: str
) -> None:
    from caltrop.sim.overrides import parse_variant

    definition = parse_variant(f"revision={revision},load_reset={reset}").apply(
        load_encounter(name)
    )
    assert not any(reads_round(definition, {"pc": p, "npc": p}) for p in DETERMINISTIC)
    encounter = Encounter.begin(definition, seed, record=False)
    wander = RandomPolicy(np.random.default_rng(seed))
    checked = 0
    for _ in range(60):
        who = encounter.current()
        if who == TERMINAL:
            break
        later = _shifted(encounter, shift)
        assert later.current() == who
        if who == CHANCE:
            assert later.chance_outcomes() == encounter.chance_outcomes()
            encounter.apply(RollDice())
            continue
        assert list(map(str, later.legal_actions(who))) == list(
            map(str, encounter.legal_actions(who))
        )
        for policy in DETERMINISTIC:
            now = make_policy(policy, np.random.default_rng(0)).choose(encounter, who)
            then = make_policy(policy, np.random.default_rng(0)).choose(later, who)
            assert str(then) == str(now), (policy, who)
        checked += 1
        encounter.apply(wander.choose(encounter, who))
    assert checked > 0


def test_only_the_action_point_tactics_read_the_round() -> None:
    """The Action Point ``tactical`` loses patience after 12 rounds (PointsKnobs.patience), so
    the solver keeps the round there; ``attack-weakest`` never reads it."""
    ap = load_encounter("bridge-duel-ap")
    assert ap.ruleset.economy is Economy.ACTION_POINTS
    assert reads_round(ap, {"pc": "tactical", "npc": "attack-weakest"})
    assert not reads_round(ap, {"pc": "attack-weakest", "npc": "attack-weakest"})
