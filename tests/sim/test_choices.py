"""The share of each action the tactics chose (``sim/choices.py``, issue 25 item 6): what a
sweep against its trend shows of play, counted again in the reference engine on the sweep's
seeds."""

from __future__ import annotations

import dataclasses
import math

from caltrop.core.model import EncounterDef
from caltrop.sim.choices import action_shares, share_changes, with_shares
from tests.sim.tiny import STAB, duel, skirmish

TACTICAL = {"pc": "tactical", "npc": "tactical"}


def _without_hinder(definition: EncounterDef) -> EncounterDef:
    creatures = tuple(
        dataclasses.replace(c, actions=tuple(a for a in c.actions if a.name != "hinder") or (STAB,))
        for c in definition.participants
    )
    return dataclasses.replace(definition, participants=creatures)


def test_each_side_s_shares_sum_to_one_over_its_own_actions() -> None:
    found = action_shares(skirmish(), TACTICAL, seed=3, n=20)
    assert found.n == 20
    for side, shares in found.shares.items():
        assert math.isclose(sum(shares.values()), 1.0)
        assert all(0 < share <= 1 for share in shares.values())
        assert found.decisions[side] > 0
    own = {a.name for c in skirmish().participants for a in c.actions}
    assert set(found.shares["pc"]) <= own | {"end turn", "pass"}
    assert "swing" not in found.shares["pc"]  # the ogre's action, not a PC's


def test_the_same_seed_counts_the_same_and_another_seed_differs() -> None:
    """Seeded and reproducible: encounter i of a seed is the same fight every time."""
    assert action_shares(duel(), TACTICAL, seed=5, n=15) == action_shares(
        duel(), TACTICAL, seed=5, n=15
    )
    others = {
        tuple(action_shares(skirmish(), TACTICAL, seed=s, n=6).decisions.items()) for s in range(4)
    }
    assert len(others) > 1


def test_an_action_taken_away_shows_as_the_move_that_changed_most() -> None:
    """A sweep value that removes the sage's hinder: its share falls to none, and the changes
    name it (a change in how the tactics play, which the report says points to a quirk)."""
    before = action_shares(skirmish(), TACTICAL, seed=2, n=30)
    after = action_shares(_without_hinder(skirmish()), TACTICAL, seed=2, n=30)
    assert before.shares["pc"].get("hinder", 0) > 0
    assert "hinder" not in after.shares["pc"]
    moves = share_changes(before, after, shown=10)
    assert {
        "side": "pc",
        "action": "hinder",
        "from": before.shares["pc"]["hinder"],
        "to": 0.0,
    } in moves
    sizes = [abs(m["to"] - m["from"]) for m in moves]
    assert sizes == sorted(sizes, reverse=True)


def test_with_shares_adds_both_values_shares_to_each_step() -> None:
    step = {"from": "a", "to": "b", "diff": 0.1, "lo": 0.05, "hi": 0.15, "trend": -1}
    (out,) = with_shares(
        [step], {"a": skirmish(), "b": _without_hinder(skirmish())}, TACTICAL, 2, n=30
    )
    assert out["shares"]["n"] == 30
    assert out["shares"]["from"] == action_shares(skirmish(), TACTICAL, 2, 30).shares
    assert any(m["action"] == "hinder" for m in out["shares"]["changed"])
    assert {k: out[k] for k in step} == step
