"""The strong player (issue 13): expectimax over the next roll, playouts under ``tactical``."""

from __future__ import annotations

import math

import numpy as np
import pytest

from caltrop.content import load_encounter
from caltrop.core.commands import Command, EndTurn, Pass
from caltrop.encounter import CHANCE, TERMINAL, Encounter, RollDice
from caltrop.sim.registry import make_policy, policy_entry
from caltrop.sim.search import ACTION_LOAD, SearchPolicy
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


def test_a_cut_playout_is_worth_its_side_s_odds_in_a_lanchester_race() -> None:
    """worth(s) = strength(s) / (strength(s) + strength(other)), strength = (Σ threat standing)
    × (Σ Health standing): 1 when only s stands, 0 when only the other does, the two sides'
    worths sum to 1, and a wound lowers the wounded side's worth."""
    from caltrop.core.model import Side
    from caltrop.sim.search import _Worth
    from caltrop.sim.tactics import profile

    enc, _ = _first_decision("duel", 0)
    worth = _Worth(enc)
    threat = profile(enc.definition).threat
    fresh = worth.value(enc, Side.PC)
    pc = threat[0] * enc.health[0]
    npc = threat[1] * enc.health[1]
    assert fresh == pytest.approx(pc / (pc + npc))
    assert fresh + worth.value(enc, Side.NPC) == pytest.approx(1.0)
    enc.health[0] -= 5
    assert worth.value(enc, Side.PC) < fresh
    enc.health[1] = 0  # the brigand down: only the sellsword stands
    assert worth.value(enc, Side.PC) == 1.0
    assert worth.value(enc, Side.NPC) == 0.0


def _scripted(monkeypatch: pytest.MonkeyPatch, worth: dict[int, float]) -> list[int]:
    """Make every playout of candidate k (by its place in the pool) worth ``worth[k]``
    (default 0.5); returns the log of how many playouts each call asked for."""
    asked: list[int] = []

    def estimate(
        self: SearchPolicy,
        encounter: Encounter,
        command: Command,
        side: object,
        seeds: list[int],
        start: int,
        stop: int,
    ) -> list[float]:
        pool = [self.base.choose(encounter, encounter.current())]
        pool += [c for c in encounter.legal_actions() if c != pool[0]]
        asked.append(stop - start)
        return [worth.get(pool.index(command), 0.5)] * (stop - start)

    monkeypatch.setattr(SearchPolicy, "_estimate", estimate)
    return asked


def test_a_decision_where_nothing_is_at_stake_is_left_to_the_base(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The screen: every first playout of every candidate came out the same, so the base's
    choice stands after ``first`` playouts each, and it counts as settled."""
    enc, who = _first_decision("orc-bridge", 3)
    asked = _scripted(monkeypatch, {})
    policy = SearchPolicy(np.random.default_rng(1), first=4, budget=64)
    assert policy.choose(enc, who) == TacticalPolicy().choose(enc, who)
    assert policy.settled == 1
    assert asked == [4] * len(asked)


def test_a_challenger_that_wins_every_fresh_playout_replaces_the_base(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    enc, who = _first_decision("orc-bridge", 3)
    _scripted(monkeypatch, {0: 0.25, 1: 0.75})
    policy = SearchPolicy(np.random.default_rng(1), first=4, budget=64)
    pool = [c for c in enc.legal_actions(who) if c != TacticalPolicy().choose(enc, who)]
    assert policy.choose(enc, who) == pool[0]
    assert (policy.overruled, policy.settled) == (1, 0)


def test_a_command_beyond_the_candidates_is_not_weighed(monkeypatch: pytest.MonkeyPatch) -> None:
    enc, who = _first_decision("orc-bridge", 3)
    _scripted(monkeypatch, {0: 0.25, 1: 0.25, 2: 0.75})
    policy = SearchPolicy(np.random.default_rng(1), first=4, budget=64, candidates=2)
    assert policy.choose(enc, who) == TacticalPolicy().choose(enc, who)  # 2 is not weighed
    assert (policy.overruled, policy.settled) == (0, 1)


def test_the_playouts_run_in_the_compiled_kernel_where_it_can_play_the_encounter() -> None:
    """Action Load: the compiled tactical policy plays the playouts on (``resume``), with the
    module's compiled settings; ``compiled=False`` and an Action Point encounter (no kernel)
    play them in the engine. Either way the encounter's own dice are untouched."""
    enc, who = _first_decision("goblin-ambush", 2)
    state = enc.rng.bit_generator.state
    fast = SearchPolicy(np.random.default_rng(3))
    assert fast.choose(enc, who) in list(enc.legal_actions(who))
    assert fast.resume is not None
    assert ACTION_LOAD.compiled is not None
    assert fast.budget == ACTION_LOAD.compiled.budget
    assert fast.played > 0
    assert fast.compiled_played == fast.played
    slow = SearchPolicy(np.random.default_rng(3), compiled=False, budget=16, first=2)
    slow.choose(enc, who)
    assert slow.resume is None
    assert slow.played > 0
    assert slow.compiled_played == 0
    assert enc.rng.bit_generator.state == state
    points, actor = _first_decision("bridge-duel-ap", 2)
    ap = SearchPolicy(np.random.default_rng(3), budget=4, first=1, candidates=2)
    ap.choose(points, actor)
    assert ap.resume is None
    assert ap.compiled_played == 0


def test_a_kernel_playout_and_an_engine_playout_agree_on_a_candidate_s_odds() -> None:
    """The same candidate's playouts, to the end, in the kernel and in the engine: the same
    win rate within a 99.9 % interval (3.29 standard errors of the difference)."""
    enc, who = _first_decision("orc-bridge", 6)
    command = TacticalPolicy().choose(enc, who)
    side = enc.creature(who).side
    n = 240
    rates = []
    for compiled in (True, False):
        policy = SearchPolicy(np.random.default_rng(8), compiled=compiled, horizon=math.inf)
        policy._resolve(enc)
        policy._shift = 0.25
        policy._key = 77
        seeds = [int(s) for s in np.random.default_rng(9).integers(0, 2**62, n)]
        rates.append(float(np.mean(policy._estimate(enc, command, side, seeds, 0, n))))
    a, b = rates
    se = math.sqrt((a * (1 - a) + b * (1 - b)) / n)
    assert abs(a - b) <= 3.29 * se + 1e-9, rates
