"""``caltrop difficulty`` (issue 23): the figures are ``caltrop sim``'s on the same seeds (both
commands called), the exact figure is the exact solver's, the bands' boundaries are the table's,
and every bundled encounter gets a consistent answer within a small budget."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from caltrop.content import load_encounter
from caltrop.sim.difficulty import (
    BANDS,
    COMPILED,
    REFERENCE,
    DifficultyError,
    assess,
    band_for,
)
from caltrop.sim.exact import solve
from tests.sim import tiny
from tests.sim.cli import run, run_json

BUNDLED = ("duel", "orc-bridge", "goblin-ambush", "bridge-duel-ap", "warband-ap")
TACTICAL = {"pc": "tactical", "npc": "tactical"}


def _same_as_sim(sample: dict[str, Any], sim: dict[str, Any]) -> None:
    """Every figure both commands report is the same number."""
    (variant,) = sim["variants"]
    assert sample["n"] == variant["n"]
    assert sample["pc_win"] == variant["win_rate"]["pc"]
    assert sample["npc_win"] == variant["win_rate"]["npc"]
    assert sample["draw"] == variant["draw_rate"]
    for key in ("mean", "median", "p90"):
        assert sample["rounds"][key] == variant["rounds"][key]
    for side in ("pc", "npc"):
        assert sample["sides"][side]["damage_per_round"] == variant["damage_per_round"][side]
        assert sample["sides"][side]["down"] == variant["down_per_encounter"][side]
        dealt = sum(c["damage_dealt"] for c in variant["creatures"] if c["side"] == side)
        assert sample["sides"][side]["damage_dealt"] == pytest.approx(dealt, abs=1e-9)
    assert [c["id"] for c in sample["creatures"]] == [c["id"] for c in variant["creatures"]]
    for mine, theirs in zip(sample["creatures"], variant["creatures"], strict=True):
        assert mine["down"]["p"] == pytest.approx(theirs["down_rate"], abs=1e-12)
        assert mine["damage_dealt"] == theirs["damage_dealt"]
        assert mine["health_left"] == pytest.approx(
            mine["health"] - theirs["health_lost"], abs=1e-9
        )


@pytest.mark.parametrize(
    ("name", "n", "seed"), [("orc-bridge", 3000, 5), ("goblin-ambush", 2500, 8)]
)
def test_tactical_figures_are_caltrop_sim_s_on_the_same_seed(name: str, n: int, seed: int) -> None:
    """Issue 23: "the difficulty figures agree with `caltrop sim` (the same numbers on the same
    seeds)": the compiled tactical sample against ``caltrop sim --fast --policy tactical``."""
    mine = run_json(
        "difficulty", name, "--n", str(n), "--seed", str(seed), "--search-n", "0", "--no-exact"
    )
    sim = run_json(
        "sim", name, "--fast", "--policy", "tactical", "--n", str(n), "--seed", str(seed)
    )
    assert mine["tactical"]["engine"] == sim["engine"] == COMPILED
    _same_as_sim(mine["tactical"], sim)
    assert mine["search"] is None
    assert mine["search_note"] == "not asked for"


def test_the_budget_s_sample_is_the_first_n_encounters_of_the_seed() -> None:
    """Within the budget the sample's size is the time's, but its figures are those of
    encounters 0 … n−1: the same as asking for that n, and as ``caltrop sim`` with it."""
    definition = load_encounter("orc-bridge")
    timed = assess(definition, seed=4, seconds=0.3, search_n=0, exact=False)
    n = timed.tactical.n
    assert n >= 2000
    assert n % 2000 == 0
    fixed = assess(definition, seed=4, n=n, search_n=0, exact=False)
    assert timed.tactical.as_dict() | {"seconds": 0} == fixed.tactical.as_dict() | {"seconds": 0}
    sim = run_json(
        "sim", "orc-bridge", "--fast", "--policy", "tactical", "--n", str(n), "--seed", "4"
    )
    _same_as_sim(timed.tactical.as_dict(), sim)


def test_action_point_encounters_are_played_by_their_compiled_kernel_as_sim_plays_them() -> None:
    """Issue 23 item 5: compile tactical for the Action Point module and "make `caltrop
    difficulty` use it for Action Point encounters"; the figures are `caltrop sim`'s on the same
    seeds, and no line says another engine played."""
    args = ["--n", "40", "--seed", "2", "--search-n", "0", "--no-exact"]
    mine = run_json("difficulty", "bridge-duel-ap", *args)
    sim = run_json(
        "sim", "bridge-duel-ap", "--fast", "--policy", "tactical", "--n", "40", "--seed", "2"
    )
    assert mine["tactical"]["engine"] == sim["engine"] == COMPILED
    assert mine["tactical"]["engine_note"] is None
    _same_as_sim(mine["tactical"], sim)
    shown = run("difficulty", "bridge-duel-ap", *args)
    assert shown.exit_code == 0, shown.output
    assert "reference engine" not in shown.stderr


def test_what_no_kernel_plays_is_played_by_the_reference_engine_and_says_so() -> None:
    """Issue 23: an encounter the compiled kernels refuse (here R38 ``multi_weapon_halving:
    each``, which the Action Point kernel does not halve) is played by the reference engine,
    and the answer says why in words."""
    from dataclasses import replace

    from caltrop.content import load_encounter
    from caltrop.core.model import Halving

    duel = load_encounter("bridge-duel-ap")
    each = replace(duel, ruleset=replace(duel.ruleset, multi_weapon_halving=Halving.EACH))
    answer = assess(each, n=2, seed=1, search_n=0, exact=False)
    assert answer.tactical.engine == REFERENCE
    note = answer.tactical.engine_note or ""
    assert "reference engine" in note
    assert "multi_weapon_halving: each" in note


def test_search_figures_are_caltrop_sim_s_with_search_on_the_same_seed() -> None:
    """The search sample is ``caltrop sim --policy search`` (both sides) on the same seed."""
    mine = run_json(
        "difficulty", "duel", "--n", "2000", "--search-n", "5", "--seed", "3", "--no-exact"
    )
    sim = run_json("sim", "duel", "--policy", "search", "--n", "5", "--seed", "3")
    assert sim["policies"] == {"pc": "search", "npc": "search"}
    assert mine["search"]["policy"] == "search"
    _same_as_sim(mine["search"], sim)


def test_the_exact_figure_of_duel_is_the_exact_solver_s() -> None:
    """Issue 23: "for `duel` … the same as the exact solver": asked for with --exact (the
    solver takes a few seconds there, past the default budget), the band is read from it."""
    definition = load_encounter("duel")
    answer = assess(definition, n=2000, search_n=0, exact=True, max_states=100_000)
    solved = solve(definition, TACTICAL)
    assert answer.exact is not None
    assert answer.exact.pc_win == solved.pc
    assert answer.exact.npc_win == solved.npc
    assert answer.exact.rounds_mean == solved.rounds
    assert answer.verdict.pc_win_source == "exact"
    assert answer.pc_win == float(solved.pc)
    data = answer.as_dict()
    assert Fraction(data["exact"]["pc_win"]["exact"]) == solved.pc
    # the sample estimates the same number (no round cap in the solver: no draws there)
    assert answer.tactical.pc_win.lo - 0.02 <= float(solved.pc) <= answer.tactical.pc_win.hi + 0.02


@pytest.mark.parametrize("make", [tiny.duel, tiny.skirmish])
def test_a_small_fight_is_solved_within_the_budget_and_marked_exact(make: Any) -> None:
    """A fight small enough is solved by default (its size estimate first), the figure the
    solver's own; a hand-made skirmish with reactions too."""
    definition = make()
    answer = assess(definition, n=2000, search_n=0, seconds=60.0)
    solved = solve(definition, TACTICAL)
    assert answer.exact is not None, answer.exact_note
    assert answer.exact.pc_win == solved.pc
    assert answer.exact.states == solved.states
    assert answer.verdict.pc_win_source == "exact"
    assert answer.verdict.band == band_for(float(solved.pc), answer.tactical.any_pc_down.estimate)


def test_a_large_fight_is_not_solved_and_says_why_with_the_estimate() -> None:
    answer = assess(load_encounter("goblin-ambush"), n=2000, search_n=0)
    assert answer.exact is None
    assert answer.exact_note is not None
    assert "chance states" in answer.exact_note
    assert "more than 20,000" in answer.exact_note
    assert answer.verdict.pc_win_source == "tactical"


# -- bands ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("k", range(len(BANDS) - 1))
def test_band_boundaries_belong_to_the_easier_band(k: int) -> None:
    """docs/difficulty.md: "an encounter is in the first band (easiest first) whose two
    conditions it meets"; a boundary value meets it."""
    band = BANDS[k]
    assert band_for(band.min_pc_win, band.max_any_pc_down) is band
    below = band.min_pc_win - 1e-9
    assert band_for(below, band.max_any_pc_down) is not band
    if band.max_any_pc_down < 1.0:
        assert band_for(band.min_pc_win, band.max_any_pc_down + 1e-9) is not band
        assert band_for(1.0, band.max_any_pc_down + 1e-9) is not band


def test_the_named_boundaries() -> None:
    assert [b.name for b in BANDS] == ["trivial", "easy", "fair", "hard", "deadly"]
    assert band_for(1.0, 0.0).name == "trivial"
    assert band_for(0.98, 0.05).name == "trivial"
    assert band_for(0.979, 0.0).name == "easy"
    assert band_for(0.99, 0.06).name == "easy"
    assert band_for(0.90, 0.25).name == "easy"
    assert band_for(0.95, 0.26).name == "fair"
    assert band_for(0.65, 1.0).name == "fair"
    assert band_for(0.6499, 0.0).name == "hard"
    assert band_for(0.35, 1.0).name == "hard"
    assert band_for(0.3499, 0.0).name == "deadly"
    assert band_for(0.0, 1.0).name == "deadly"


@given(st.floats(0, 1), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1))
def test_more_wins_and_fewer_pcs_down_never_make_a_harder_band(
    w1: float, w2: float, d1: float, d2: float
) -> None:
    order = [b.name for b in BANDS]
    easy = band_for(max(w1, w2), min(d1, d2))
    hard = band_for(min(w1, w2), max(d1, d2))
    assert order.index(easy.name) <= order.index(hard.name)


# -- every bundled encounter ------------------------------------------------------------------------


@pytest.mark.parametrize("name", BUNDLED)
def test_every_bundled_encounter_gets_a_consistent_answer(name: str) -> None:
    definition = load_encounter(name)
    answer = assess(definition, seconds=0.4)
    t = answer.tactical
    assert t.n >= 1
    for interval in (t.pc_win, t.npc_win, t.draw, t.any_pc_down):
        assert 0.0 <= interval.lo <= interval.estimate <= interval.hi <= 1.0
    assert t.pc_win.estimate + t.npc_win.estimate + t.draw.estimate == pytest.approx(1.0)
    assert [c.id for c in t.creatures] == [c.id for c in definition.participants]
    for c in t.creatures:
        assert 0.0 <= c.health_left <= c.health
        if c.side == "pc":  # any PC down is at least as likely as this one
            assert t.any_pc_down.estimate >= c.down.estimate
    assert t.rounds_p90 >= t.rounds_median >= 1
    assert answer.band in [b.name for b in BANDS]
    assert (answer.exact is None) == (answer.exact_note is not None)
    assert (answer.search is None) == (answer.search_note is not None)
    assert t.engine == COMPILED  # both modules' kernels play every bundled encounter
    assert t.engine_note is None


def test_bad_questions_are_refused() -> None:
    definition = tiny.duel()
    for kwargs in ({"n": 0}, {"search_n": -1}, {"seconds": 0.0}, {"seed": -1}, {"max_rounds": 0}):
        with pytest.raises(DifficultyError):
            assess(definition, **kwargs)
