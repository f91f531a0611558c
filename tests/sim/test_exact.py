"""Exact win probabilities (every chance point summed, states memoised) against sampling."""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np
import pytest

from caltrop.content import load_encounter
from caltrop.sim.exact import NotDeterministicError, StateSpaceTooLargeError, solve
from caltrop.sim.overrides import parse_variant
from caltrop.sim.policies import Policy
from caltrop.sim.registry import make_policy
from caltrop.sim.runner import simulate
from caltrop.sim.stats import wilson
from tests.sim.tiny import duel, skirmish


def _policies(name: str) -> dict[str, Policy]:
    rng = np.random.default_rng(0)
    return {side: make_policy(name, rng) for side in ("pc", "npc")}


@pytest.mark.parametrize(
    ("build", "policy"),
    [(duel, "tactical"), (duel, "attack-weakest"), (skirmish, "tactical")],
)
def test_the_sampled_interval_contains_the_exact_value(build, policy: str) -> None:  # type: ignore[no-untyped-def]
    definition = build()
    exact = solve(definition, {"pc": policy, "npc": policy})
    sampled = simulate(
        definition, [parse_variant("baseline")], {"pc": policy, "npc": policy}, n=1500, seed=4
    )
    rec = sampled.runs[0].records
    # 99.9%: a fixed seed either passes or fails for ever, so leave chance very little room
    for side, value in (("pc", exact.pc), ("npc", exact.npc)):
        iv = wilson(float(rec.wins(side).sum()), rec.n, confidence=0.999)
        assert iv.contains(float(value)), (side, float(value), iv)
    assert abs(float(exact.rounds) - rec.rounds.mean()) < 0.15


def test_exact_probabilities_are_fractions_that_sum_to_one() -> None:
    for definition in (duel(), skirmish()):
        r = solve(definition, {"pc": "tactical", "npc": "tactical"})
        assert all(isinstance(x, Fraction) for x in (r.pc, r.npc, r.draw, r.rounds))
        assert r.pc + r.npc + r.draw == 1
        assert 0 < r.pc < 1
        assert r.states > 0
        assert r.as_dict()["win_rate"]["pc"]["exact"] == f"{r.pc.numerator}/{r.pc.denominator}"


def test_exact_is_reproducible_and_sees_rule_changes() -> None:
    d = skirmish()
    a = solve(d, {"pc": "tactical", "npc": "tactical"})
    assert solve(d, {"pc": "tactical", "npc": "tactical"}) == a
    stronger = solve(
        parse_variant("hero.aspects.Finesse=3").apply(d), {"pc": "tactical", "npc": "tactical"}
    )
    assert stronger.pc > a.pc


@pytest.mark.parametrize("name", ["goblin-ambush", "orc-bridge", "bridge-duel-ap"])
def test_too_large_is_refused_up_front_in_seconds(name: str) -> None:
    """Refused from the estimate, before the chain is explored: Orc Bridge used to run 7½
    minutes before it was refused (issue 13)."""
    began = time.monotonic()
    with pytest.raises(StateSpaceTooLargeError, match=r"chance states \(.* Health combinations"):
        solve(load_encounter(name), {"pc": "tactical", "npc": "tactical"})
    assert time.monotonic() - began < 30


@pytest.mark.parametrize(("build", "policy"), [(duel, "tactical"), (skirmish, "tactical")])
def test_the_estimate_is_the_right_order_of_magnitude(build, policy: str) -> None:  # type: ignore[no-untyped-def]
    from caltrop.sim.exact import Estimate

    got: list[Estimate] = []
    r = solve(build(), {"pc": policy, "npc": policy}, estimated=got.append)
    assert got[0].complete
    assert r.states / 4 <= got[0].states <= 4 * r.states


def test_random_tactics_have_no_exact_answer() -> None:
    with pytest.raises(NotDeterministicError, match="deterministic"):
        solve(duel(), {"pc": "random", "npc": "tactical"})


def test_progress_counts_the_states_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """``progress`` hears of the states found as they add up (every PROGRESS_EVERY), so a
    progress bar up to --max-states shows how far a large fight is from being refused."""
    from caltrop.sim import exact

    every = 50
    monkeypatch.setattr(exact, "PROGRESS_EVERY", every)
    steps: list[int] = []
    r = solve(skirmish(), {"pc": "tactical", "npc": "tactical"}, progress=steps.append)
    assert r.states >= every  # else this test would check nothing
    assert set(steps) == {every}
    assert sum(steps) == r.states // every * every
    seen: list[int] = []
    with pytest.raises(StateSpaceTooLargeError, match="more than 100 chance states"):
        exact.explore(
            load_encounter("orc-bridge"),
            _policies("tactical"),
            max_states=2 * every,
            progress=seen.append,
        )
    assert sum(seen) == 2 * every  # it got to the cap, reporting on the way


def test_a_draw_at_the_round_cap_lasted_max_rounds() -> None:
    from caltrop.sim.overrides import apply_overrides, parse_override

    stalemate = apply_overrides(
        duel(), [parse_override("pc.evasion=99"), parse_override("npc.evasion=99")]
    )
    r = solve(stalemate, {"pc": "tactical", "npc": "tactical"}, max_rounds=3)
    assert r.draw == 1
    assert r.rounds == 3


def test_a_fight_that_can_never_end_is_an_endless_draw() -> None:
    """With no round cap, a fight nobody can hit in is a draw for ever (not a refusal)."""
    from caltrop.sim.overrides import apply_overrides, parse_override

    stalemate = apply_overrides(
        duel(), [parse_override("pc.evasion=99"), parse_override("npc.evasion=99")]
    )
    r = solve(stalemate, {"pc": "tactical", "npc": "tactical"})
    assert (r.pc, r.npc, r.draw, r.endless) == (0, 0, 1, 1)


def test_cycles_are_solved_not_unrolled() -> None:
    """Misses return the duel to a state it was in (only the round differs): with the round
    left out of the key the chain has cycles, solved exactly. The capped answer (round in the
    key, no cycles) falls short of it by no more than its own draws, and less as the cap grows."""
    d = parse_variant("hero.evasion=5,goblin.evasion=5").apply(duel())
    policies = {"pc": "attack-weakest", "npc": "attack-weakest"}
    free = solve(d, policies)
    assert free.draw == 0
    assert free.max_rounds is None
    gaps = []
    for cap in (3, 6):
        capped = solve(d, policies, max_rounds=cap)
        assert capped.draw > 0
        assert capped.pc <= free.pc <= capped.pc + capped.draw
        assert capped.npc <= free.npc <= capped.npc + capped.draw
        gaps.append(free.pc - capped.pc)
        assert capped.states > free.states  # the round multiplies the states
    assert gaps[1] < gaps[0]


DUEL_CHECK = {"current": 0.85944, "legacy": 0.71368}


@pytest.mark.parametrize("revision", ["current", "legacy"])
def test_the_bundled_duel_exactly_in_seconds(revision: str) -> None:
    """Issue 13's check: a (aspect 5, cost 2, +1d4, Evasion 8, Health 12, Load Buffer 1)
    against b (aspect 4, cost 1, +1d6, Evasion 7, Health 14), both attacking while the gate
    allows (R11), a first: P(a wins) ≈ 0.85944 under the current revision (R10-R12) and
    ≈ 0.71368 under the legacy one (R20), with no round cap."""
    d = parse_variant(f"revision={revision}").apply(load_encounter("duel"))
    r = solve(d, {"pc": "attack-weakest", "npc": "attack-weakest"})
    assert round(float(r.pc), 5) == DUEL_CHECK[revision]
    assert r.pc + r.npc == 1
    assert r.endless == 0
    assert isinstance(r.pc, Fraction)
    assert r.pc.denominator > 1
    assert r.seconds < 60
    # the tactics play this duel the same way: nothing to react with, so attack while allowed
    assert solve(d, {"pc": "tactical", "npc": "tactical"}).pc == r.pc
