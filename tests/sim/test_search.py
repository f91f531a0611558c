"""The strong player (issue 13): expectimax over the next roll, playouts under ``tactical``."""

from __future__ import annotations

import numpy as np

from caltrop.content import load_encounter
from caltrop.core.commands import Command, EndTurn, Pass
from caltrop.encounter import CHANCE, TERMINAL, Encounter, RollDice
from caltrop.sim.registry import make_policy, policy_entry
from caltrop.sim.search import SearchPolicy
from caltrop.sim.tactics import TacticalPolicy


class _Idle:
    """A poor base: always ends its turn (or passes)."""

    def choose(self, encounter: Encounter, actor: str) -> Command:
        return Pass(actor) if encounter.pending else EndTurn(actor)


def _first_decision(name: str, seed: int) -> tuple[Encounter, str]:
    enc = Encounter.begin(load_encounter(name), seed, record=False)
    while enc.current() == CHANCE:
        enc.apply(RollDice())
    return enc, enc.current()


def test_it_chooses_a_legal_command_without_seeing_the_real_dice() -> None:
    enc, who = _first_decision("orc-bridge", 3)
    state = enc.rng.bit_generator.state
    before = enc.key()
    policy = SearchPolicy(np.random.default_rng(1), budget=12, first=3, candidates=3)
    command = policy.choose(enc, who)
    assert command in list(enc.legal_actions(who))
    assert enc.rng.bit_generator.state == state  # the encounter's own dice are untouched
    assert enc.key() == before
    assert policy.searched == 1
    assert policy.played >= 3 * min(3, len(list(enc.legal_actions(who))))
    assert policy.overruled <= policy.searched


def test_it_is_reproducible_from_its_seed() -> None:
    enc, who = _first_decision("goblin-ambush", 5)
    a = SearchPolicy(np.random.default_rng(9), budget=8, first=2).choose(enc, who)
    b = SearchPolicy(np.random.default_rng(9), budget=8, first=2).choose(enc, who)
    assert a == b


def test_search_improves_on_a_poor_base() -> None:
    """With a base that only ends its turn, the playouts show that striking wins more."""
    enc, who = _first_decision("duel", 0)
    assert who == "sellsword"
    policy = SearchPolicy(np.random.default_rng(0), budget=48, first=24, base=_Idle())
    command = policy.choose(enc, who)
    assert command != EndTurn(who)
    assert "strike" in str(command)


def test_it_plays_whole_encounters_per_side() -> None:
    entry = policy_entry("search")
    assert not entry.deterministic  # its own seeded RNG: no --exact
    enc = Encounter.begin(load_encounter("duel"), 4, record=False)
    strong = make_policy("search", np.random.default_rng(2))
    tactical = TacticalPolicy()
    steps = 0
    while (who := enc.current()) != TERMINAL:
        if who == CHANCE:
            enc.apply(RollDice())
        else:
            chooser = strong if enc.creature(who).side.value == "pc" else tactical
            enc.apply(chooser.choose(enc, who))
        steps += 1
        assert steps < 500
    assert enc.winner is not None


def test_every_prefix_of_the_quantiles_spreads_the_roll_evenly() -> None:
    """Playout k's quantile of the next roll: any 2^m playouts from the first fall one in each
    2^-m of [0, 1), so an estimate from any number of playouts is stratified, not lopsided."""
    from caltrop.sim.search import _van_der_corput

    for m in range(5):
        points = sorted(_van_der_corput(k) for k in range(2**m))
        assert [int(u * 2**m) for u in points] == list(range(2**m))


def test_a_cut_playout_is_worth_the_share_of_health_standing() -> None:
    from caltrop.core.model import Side
    from caltrop.sim.search import standing

    enc, _ = _first_decision("duel", 0)
    assert standing(enc, Side.PC) == 0.5  # both unhurt
    enc.health[1] = 0  # the brigand down: all that stands is the sellsword's
    assert standing(enc, Side.PC) == 1.0
    assert standing(enc, Side.NPC) == 0.0
