"""The strong player (issue 13): expectimax over the next roll, playouts under ``tactical``."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from caltrop.content import load_encounter
from caltrop.core.commands import Act, Command, EndTurn, Pass
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


# -- Action Points ----------------------------------------------------------------------------------


def _ap_decision(
    seed: int, want: Callable[[Encounter, str, Command], bool]
) -> tuple[Encounter, str]:
    """Bridge Duel AP under ``tactical`` up to the first decision where ``want`` holds."""
    enc = Encounter.begin(load_encounter("bridge-duel-ap"), seed, record=False)
    tactical = TacticalPolicy()
    while (who := enc.current()) != TERMINAL:
        if who == CHANCE:
            enc.apply(RollDice())
            continue
        command = tactical.choose(enc, who)
        if want(enc, who, command):
            return enc, who
        enc.apply(command)
    raise AssertionError("no such decision")


def _own_step(enc: Encounter, who: str, command: Command) -> bool:
    """The turn owner deciding its own step, with more than one thing it could do."""
    return (
        not enc.pending
        and enc.turn_owner == who
        and getattr(command, "actor", None) == who
        and len(list(enc.legal_actions(who))) > 2
    )


def test_remembered_tactical_makes_the_same_choices_and_remembers_them() -> None:
    """The rollouts' memo (keyed by Encounter.key and the one deciding) changes no choice of
    ``tactical`` over a whole Action Point fight; the same fight again is all remembered."""
    from caltrop.sim.search import _Remembered

    remembered = _Remembered(TacticalPolicy())
    for attempt in range(2):
        enc = Encounter.begin(load_encounter("bridge-duel-ap"), 7, record=False)
        plain = TacticalPolicy()
        before = len(remembered.memo)
        while (who := enc.current()) != TERMINAL:
            if who == CHANCE:
                enc.apply(RollDice())
                continue
            command = remembered.choose(enc, who)
            assert command == plain.choose(enc, who)
            enc.apply(command)
        if attempt == 0:
            assert len(remembered.memo) > 0
        else:
            assert len(remembered.memo) == before  # nothing new: every state was remembered


def test_action_point_candidates_are_tactical_s_plans_and_hold() -> None:
    """The base's step first, then the first steps of tactical's next-best plans, then Hold
    Action (R33); all legal, one of each kind, no more than asked for."""
    from caltrop.sim.knobs import PointsKnobs
    from caltrop.sim.points_tactics import Planner, turn_plans
    from caltrop.sim.search import _kind, points_candidates

    enc, who = _ap_decision(3, _own_step)
    default = TacticalPolicy().choose(enc, who)
    pool = points_candidates(enc, who, default, 4, PointsKnobs())
    assert pool[0] == default
    assert 2 <= len(pool) <= 4
    assert all(enc.is_legal(c) for c in pool)
    assert len({_kind(c) for c in pool}) == len(pool)
    steps = [p.step.command(enc) for p in turn_plans(Planner(enc, PointsKnobs()), enc.index(who))]
    others = [c for c in steps if _kind(c) != _kind(default) and enc.is_legal(c)]
    assert others
    assert others[0] in pool
    hold = Act(who, "hold")
    assert enc.is_legal(hold)
    assert len(pool) == 4
    assert hold in pool
    assert len(points_candidates(enc, who, default, 2, PointsKnobs())) == 2


def _no_playouts(monkeypatch: pytest.MonkeyPatch) -> None:
    def estimate(*args: object) -> list[float]:
        raise AssertionError("no playout should be played here")

    monkeypatch.setattr(SearchPolicy, "_estimate", estimate)


def test_action_point_windows_and_allies_off_turn_steps_are_the_base_s(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Defence windows (R45: the tactics weigh them exactly) and an ally's off-turn step that
    the base proposes (R32 ``any``) are left to the base: nothing searched, no playout."""
    _no_playouts(monkeypatch)
    window, defender = _ap_decision(5, lambda e, w, c: bool(e.pending))
    policy = SearchPolicy(np.random.default_rng(0))
    assert policy.choose(window, defender) == TacticalPolicy().choose(window, defender)
    ally, who = _ap_decision(5, lambda e, w, c: not e.pending and getattr(c, "actor", w) != w)
    assert policy.choose(ally, who) == TacticalPolicy().choose(ally, who)
    assert policy.searched == 0


def test_an_action_point_challenger_that_wins_every_playout_replaces_the_base(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from caltrop.sim.knobs import PointsKnobs
    from caltrop.sim.search import points_candidates

    enc, who = _ap_decision(3, _own_step)
    default = TacticalPolicy().choose(enc, who)
    pool = points_candidates(enc, who, default, 4, PointsKnobs())
    winner = pool[-1]

    def estimate(
        self: SearchPolicy,
        encounter: Encounter,
        command: Command,
        side: object,
        seeds: list[int],
        start: int,
        stop: int,
    ) -> list[float]:
        assert command in pool
        return [0.75 if command == winner else 0.25] * (stop - start)

    monkeypatch.setattr(SearchPolicy, "_estimate", estimate)
    policy = SearchPolicy(np.random.default_rng(1))
    assert policy.choose(enc, who) == winner
    assert (policy.searched, policy.overruled) == (1, 1)


def test_each_module_has_its_own_fresh_test_length_unless_one_is_asked_for() -> None:
    from caltrop.sim.search import ACTION_LOAD, ACTION_POINTS

    enc, who = _ap_decision(3, _own_step)
    policy = SearchPolicy(np.random.default_rng(0), budget=1, candidates=1)
    policy.choose(enc, who)
    assert policy.extra == ACTION_POINTS.extra
    asked = SearchPolicy(np.random.default_rng(0), extra=7, budget=1, candidates=1)
    asked.choose(enc, who)
    assert asked.extra == 7
    duel, sellsword = _first_decision("duel", 0)
    load = SearchPolicy(np.random.default_rng(0), budget=2, first=1, candidates=2)
    load.choose(duel, sellsword)
    assert load.extra == ACTION_LOAD.extra != ACTION_POINTS.extra


def test_one_candidate_leaves_every_decision_to_the_base() -> None:
    """``candidates=1`` weighs only the base's choice: nothing to search, no playouts."""
    enc, who = _first_decision("goblin-ambush", 3)
    policy = SearchPolicy(np.random.default_rng(1), candidates=1)
    assert policy.choose(enc, who) == TacticalPolicy().choose(enc, who)
    assert policy.searched == 0
    assert policy.played == 0
