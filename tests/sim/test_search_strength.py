"""The strong player's improvement, head to head on paired seeds, with a proper test (issue 13).

Encounter *i* is played twice on the same engine seed: once with the base policy on the PC side,
once with ``search`` built on that base (its candidates weighed by playouts under ``tactical``);
the NPCs play ``tactical`` both times. The outcomes are paired, so the exact McNemar test of the
discordant pairs says whether the search wins more often than its base, at 1%.
"""

from __future__ import annotations

import numpy as np

from caltrop.content import load_encounter
from caltrop.core.model import Side
from caltrop.encounter import CHANCE, TERMINAL, Encounter, RollDice
from caltrop.sim.policies import AttackWeakestPolicy, Policy
from caltrop.sim.search import SearchPolicy
from caltrop.sim.stats import mcnemar_exact
from caltrop.sim.tactics import TacticalPolicy

_ROLL = RollDice()


def _pc_wins(name: str, seed: int, pc: Policy) -> float:
    enc = Encounter.begin(load_encounter(name), seed, record=False)
    npc = TacticalPolicy()
    while (who := enc.current()) != TERMINAL:
        if who == CHANCE:
            enc.apply(_ROLL)
        else:
            chooser = pc if enc.creature(who).side is Side.PC else npc
            enc.apply(chooser.choose(enc, who))
    return 1.0 if enc.winner is Side.PC else 0.0


def test_search_beats_its_base_significantly_on_orc_bridge() -> None:
    """Attack-weakest as the PCs' base (it never reacts: Bron never parries, Aria never helps)
    against tactical NPCs; the search on it wins more often, McNemar p < 0.01."""
    n = 48
    base = [_pc_wins("orc-bridge", s, AttackWeakestPolicy()) for s in range(n)]
    strong = [
        _pc_wins(
            "orc-bridge",
            s,
            SearchPolicy(np.random.default_rng(s), budget=48, base=AttackWeakestPolicy()),
        )
        for s in range(n)
    ]
    assert sum(strong) > sum(base)
    assert mcnemar_exact(base, strong) < 0.01, (sum(base), sum(strong))
