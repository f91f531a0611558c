"""The live chance of winning (issue 23 item 4): P(PC win) under ``tactical`` from any state of
a running encounter, seeded, with its Wilson interval; exact once it is over; the same fights
as ``caltrop sim`` at the start; turning points are the largest swings."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from caltrop.content import load_encounter
from caltrop.core.commands import RollDice, parse_command
from caltrop.core.model import Initiative, Side
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.sim.difficulty import assess
from caltrop.sim.live import (
    ENGINE_N,
    at_start,
    chance_at,
    live_seed,
    play_on,
    resume_for,
    turning_points,
)
from caltrop.sim.overrides import Variant
from caltrop.sim.results import PC_WINS
from caltrop.sim.runner import simulate
from caltrop.sim.stats import wilson
from caltrop.sim.tactics import TacticalPolicy


def played(name: str, steps: int, seed: int = 5) -> Encounter:
    """``name`` begun with ``seed`` and ``steps`` commands of ``tactical`` and its dice in."""
    encounter = Encounter.begin(load_encounter(name), seed)
    policy = TacticalPolicy()
    for _ in range(steps):
        who = encounter.current()
        if who == TERMINAL:
            break
        encounter.apply(RollDice() if who == CHANCE else policy.choose(encounter, who))
    return encounter


def test_at_the_start_the_same_fights_as_caltrop_sim_on_the_same_seed() -> None:
    """``caltrop sim ENCOUNTER --fast --policy tactical --n 600 --seed 11`` plays encounters
    0 … 599 of the kernel; the live answer at the start is those fights: the same wins."""
    for name in ("goblin-ambush", "warband-ap"):
        definition = load_encounter(name)
        live = chance_at(Encounter.begin(definition, 99), seed=11, n=600)
        assert live.how == "start"
        sim = simulate(
            definition,
            [Variant("baseline")],
            {"pc": "tactical", "npc": "tactical"},
            n=600,
            seed=11,
            engine="compiled",
        )
        assert live.wins == int((sim.runs[0].records.winner == PC_WINS).sum()), name
        assert live.n == 600


def test_at_the_start_it_agrees_with_caltrop_difficulty_within_its_interval() -> None:
    definition = load_encounter("orc-bridge")
    difficulty = assess(definition, seed=0, n=4000, search_n=0, exact=False)
    live = chance_at(Encounter.begin(definition, 1), seed=0)
    assert difficulty.tactical.pc_win.contains(live.pc_win.estimate)
    assert live.pc_win.contains(difficulty.tactical.pc_win.estimate)


def test_a_finished_encounter_gives_exactly_one_or_zero() -> None:
    won = Encounter.begin(load_encounter("duel"), 1)
    won.apply(parse_command("gm: damage brigand 99"))
    assert won.over
    assert won.winner is Side.PC
    answer = chance_at(won, seed=3)
    assert (answer.pc_win.estimate, answer.pc_win.lo, answer.pc_win.hi) == (1.0, 1.0, 1.0)
    assert answer.exact
    assert answer.n == 0
    lost = Encounter.begin(load_encounter("duel"), 1)
    lost.apply(parse_command("gm: damage sellsword 99"))
    assert lost.winner is Side.NPC
    assert chance_at(lost, seed=3).pc_win == chance_at(lost, seed=4).pc_win
    assert chance_at(lost, seed=3).pc_win.hi == 0.0
    ended = Encounter.begin(load_encounter("duel"), 1)
    ended.apply(parse_command("gm: end encounter"))  # no winner: no PC win
    assert chance_at(ended, seed=3).pc_win.estimate == 0.0


def test_mid_fight_it_is_seeded_and_leaves_the_state_alone() -> None:
    state = played("goblin-ambush", 12)
    assert not at_start(state)
    before = (state.key(), len(state.events))
    first = chance_at(state, seed=live_seed("t1", 12), n=400)
    assert (state.key(), len(state.events)) == before
    assert chance_at(state, seed=live_seed("t1", 12), n=400) == first
    assert 0 < first.pc_win.lo <= first.pc_win.estimate <= first.pc_win.hi < 1


def test_the_kernel_resume_agrees_with_the_engine_from_the_same_state() -> None:
    """The kernel takes over at an attack roll with the Python policy's choices; from the same
    mid-fight states the engine alone, on other seeds, gives a figure in the same place."""
    for name, steps in (("goblin-ambush", 9), ("orc-bridge", 7)):
        state = played(name, steps)
        kernel = chance_at(state, seed=21, n=2000)
        assert kernel.how == "resume", name
        wins, resumed = play_on(state, 400, 22, resume=None)
        assert not resumed
        engine = wilson(wins, 400)
        assert engine.lo <= kernel.pc_win.hi, (name, kernel, engine)
        assert kernel.pc_win.lo <= engine.hi, (name, kernel, engine)


def test_an_action_point_fight_is_resumed_by_its_kernel_and_agrees_with_the_engine() -> None:
    """Action Point encounters resume in their own kernel at any stage (R30 initiative, R31-R33
    decisions, R38-R40 and R45 attack and defence stages): from mid-fight states of Bridge
    Duel and Warband the kernel's figure and the engine's alone, on other seeds, overlap."""
    for name, steps in (("bridge-duel-ap", 6), ("warband-ap", 9)):
        state = played(name, steps, seed=3)
        assert not at_start(state)
        kernel = chance_at(state, seed=1, n=1000)
        assert kernel.how == "resume", name
        wins, resumed = play_on(state, 48, 2, resume=None)
        assert not resumed
        engine = wilson(wins, 48)
        assert engine.lo <= kernel.pc_win.hi, (name, kernel, engine)
        assert kernel.pc_win.lo <= engine.hi, (name, kernel, engine)


def test_an_encounter_no_kernel_plays_is_played_in_the_engine_with_its_honest_interval() -> None:
    """Action Load with initiative by check (R21) has no kernel: the engine plays
    :data:`ENGINE_N` fights, and the interval is the Wilson interval of that few."""
    base = load_encounter("orc-bridge")
    ruleset = replace(base.ruleset, initiative=Initiative.CHECK, initiative_aspect="Finesse")
    definition = replace(base, ruleset=ruleset)
    assert resume_for(definition) is None
    state = Encounter.begin(definition, 2)
    state.apply(RollDice())
    answer = chance_at(state, seed=1)
    assert answer.how == "engine"
    assert answer.n == ENGINE_N
    assert answer.pc_win == wilson(answer.wins, ENGINE_N)


def test_the_seed_comes_from_the_table_and_the_seq() -> None:
    assert live_seed("abc", 3) == live_seed("abc", 3)
    assert len({live_seed("abc", s) for s in range(50)} | {live_seed("abd", 3)}) == 51
    assert all(0 <= live_seed(str(t), s) < 2**63 for t in range(5) for s in range(5))


def test_turning_points_name_the_events_of_the_largest_swings() -> None:
    series = [(0, 0.6), (1, 0.6), (2, 0.9), (3, 0.85), (4, 0.3), (5, 0.35)]
    turns = turning_points(series, 2)
    assert [(t.seq, round(t.delta, 2)) for t in turns] == [(4, -0.55), (2, 0.3)]
    assert (turns[0].before, turns[0].after) == (0.85, 0.3)


@given(
    st.lists(st.floats(0, 1), min_size=0, max_size=30),
    st.integers(1, 5),
)
def test_turning_points_are_the_largest_steps(values: list[float], most: int) -> None:
    series = list(enumerate(values))
    turns = turning_points(series, most)
    steps = {seq: values[seq] - values[seq - 1] for seq in range(1, len(values))}
    assert len(turns) == min(most, sum(1 for d in steps.values() if d != 0))
    for turn in turns:
        assert turn.delta == steps[turn.seq] != 0
        assert (turn.before, turn.after) == (values[turn.seq - 1], values[turn.seq])
    chosen = {t.seq for t in turns}
    smallest = min((abs(t.delta) for t in turns), default=0.0)
    assert all(abs(d) <= smallest for seq, d in steps.items() if seq not in chosen)
