"""Exact win probabilities (every chance point summed, states memoised) against sampling."""

from __future__ import annotations

from fractions import Fraction

import pytest

from caltrop.content import load_encounter
from caltrop.sim.exact import NotDeterministicError, StateSpaceTooLargeError, solve
from caltrop.sim.overrides import parse_variant
from caltrop.sim.runner import simulate
from caltrop.sim.stats import wilson
from tests.sim.tiny import duel, skirmish


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


def test_too_large_is_refused_clearly() -> None:
    with pytest.raises(StateSpaceTooLargeError, match="too large to solve exactly"):
        solve(load_encounter("goblin-ambush"), {"pc": "tactical", "npc": "tactical"}, max_states=50)


def test_random_tactics_have_no_exact_answer() -> None:
    with pytest.raises(NotDeterministicError, match="deterministic"):
        solve(duel(), {"pc": "random", "npc": "tactical"})


def test_progress_counts_the_states_solved(monkeypatch: pytest.MonkeyPatch) -> None:
    """``progress`` hears of the solved states as they add up (every PROGRESS_EVERY), so a
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
    with pytest.raises(StateSpaceTooLargeError):
        solve(
            load_encounter("goblin-ambush"),
            {"pc": "tactical", "npc": "tactical"},
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
