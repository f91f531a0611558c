"""Where no better choice exists: the exact best response equals ``tactical`` (issue 13).

The strong player cannot beat ``tactical`` on the bundled duel, and this shows why instead of
claiming a win: every play of a side against ``tactical`` on the other, solved exactly, wins no
more often than ``tactical`` itself, and ``tactical``'s choice is the best one at every decision
any play reaches.
"""

from __future__ import annotations

import pytest

from caltrop.content import load_encounter
from caltrop.core.model import Side
from caltrop.sim.best_response import best_response
from caltrop.sim.exact import solve
from caltrop.sim.overrides import parse_variant
from caltrop.sim.policies import AttackWeakestPolicy
from caltrop.sim.tactics import TacticalPolicy
from tests.sim.tiny import skirmish


@pytest.mark.parametrize("side", [Side.PC, Side.NPC])
def test_tactical_is_the_best_response_in_the_duel(side: Side) -> None:
    definition = load_encounter("duel")
    tactical = TacticalPolicy()
    got = best_response(definition, side, {"pc": tactical, "npc": tactical})
    exact = solve(definition, {"pc": "tactical", "npc": "tactical"})
    # the same model as the exact solver: tactical's own figure is its P(win) (≈ 0.85944 for
    # the sellsword under the current revision)
    assert got.policy == pytest.approx(float(exact.win_rate(side.value)), abs=1e-12)
    assert got.best == pytest.approx(got.policy, abs=1e-12)
    assert got.decisions > 100  # strike or end the turn, at every Load and Health reached
    assert got.worse == 0


def test_the_legacy_duel_has_no_better_choice_either() -> None:
    definition = parse_variant("revision=legacy").apply(load_encounter("duel"))
    tactical = TacticalPolicy()
    got = best_response(definition, Side.PC, {"pc": tactical, "npc": tactical})
    assert got.best == pytest.approx(0.71368, abs=5e-6)
    assert got.best == pytest.approx(got.policy, abs=1e-12)
    assert got.worse == 0


def test_it_finds_a_better_choice_when_one_exists() -> None:
    """A policy that never reacts leaves choices on the table where reactions exist: the best
    response beats it, and counts the decisions it gets wrong."""
    definition = skirmish()
    weak = AttackWeakestPolicy()
    got = best_response(definition, Side.PC, {"pc": weak, "npc": TacticalPolicy()})
    assert got.best > got.policy + 0.01
    assert got.worse_on_path > 0
