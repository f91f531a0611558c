"""``caltrop difficulty --target T --vary STAT,…`` (issue 23, "what would change it"): the
search finds the value a full sweep finds where the win rate is monotone, the names are checked
before anything is played, and the command's ``--json`` has the documented shape."""

from __future__ import annotations

import dataclasses
import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from caltrop.core.model import EncounterDef
from caltrop.sim.overrides import Override, Variant
from caltrop.sim.runner import simulate
from caltrop.sim.stats import Interval, wilson
from caltrop.sim.vary import VaryError, find_value, resolve_stat, variable_stats, vary
from tests.sim import tiny
from tests.sim.cli import run, run_json

TACTICAL = {"pc": "tactical", "npc": "tactical"}


def _exactly(p: float) -> Interval:
    return Interval(p, p, p)


# -- the search on curves known beforehand --------------------------------------------------------


@given(
    st.integers(-50, 50),
    st.integers(-60, 60),
    st.floats(0.02, 0.98),
    st.sampled_from([1, -1]),
)
def test_a_monotone_curve_is_bracketed_by_neighbours(
    middle: int, current: int, target: float, direction: int
) -> None:
    """On any strictly monotone curve (a logistic in either direction) the answer is two
    neighbours with the target between their rates, whatever the starting value."""

    def f(v: int) -> Interval:
        return _exactly(1 / (1 + math.exp(direction * (v - middle) / 3)))

    points, around = find_value(f, lambda v: -200 <= v <= 200, current, target)
    assert around is not None
    a, b = around
    assert b - a in (0, 1)
    lo, hi = sorted((points[a].estimate, points[b].estimate))
    assert lo <= target <= hi
    assert all(points[v] == f(v) for v in points)  # every value played is a real point


def test_a_target_out_of_reach_stops_at_the_content_limit() -> None:
    """Health from 1 up: a win rate that never falls to the target ends the downward
    direction at the last value the content rules take, without a bracket."""
    points, around = find_value(lambda v: _exactly(0.9 - 0.01 * v), lambda v: 1 <= v <= 40, 10, 0.1)
    assert around is None
    assert max(points) == 40  # the limit itself was played
    assert min(points) == 9  # the other way led away from the target and was dropped


# -- a hand-made fight where a full sweep knows the answer ----------------------------------------


def _rate(definition: EncounterDef, path: tuple[str, ...], v: int, n: int, seed: int) -> float:
    result = simulate(
        definition,
        [Variant(f"v={v}", (Override(path, str(v)),))],
        TACTICAL,
        n=n,
        seed=seed,
        engine="compiled",
    )
    return float(result.runs[0].records.wins("pc").mean())


def test_vary_finds_the_value_a_full_sweep_finds_on_a_monotone_curve() -> None:
    """The goblin's Health from 1 to 16 in the hand-made duel: more Health never helps the
    hero (checked on the sweep: paired seeds, a monotone curve), so the value nearest the
    target is the sweep's, and the search finds it playing fewer values."""
    definition = tiny.duel()
    n, seed, target = 2000, 9, 0.5
    path = ("goblin", "health")
    sweep = {v: _rate(definition, path, v, n, seed) for v in range(1, 17)}
    rates = [sweep[v] for v in sorted(sweep)]
    assert all(a >= b for a, b in itertools.pairwise(rates))  # monotone here
    assert rates[0] > target > rates[-1]
    expected = min(sweep, key=lambda v: (abs(sweep[v] - target), abs(v - 5)))
    (found,) = vary(definition, ["goblin.health"], target, n=n, seed=seed)
    assert found.current == 5
    assert found.value == expected
    assert found.pc_win == wilson(sweep[expected] * n, n)
    assert len(found.points) < len(sweep)
    for p in found.points:  # the same numbers as the sweep: paired seeds
        assert p.pc_win.estimate == pytest.approx(sweep[p.value], abs=1e-12)
    assert found.crossing is not None
    assert abs(found.crossing - found.value) <= 1
    assert found.lo is None or found.lo <= found.crossing
    assert found.hi is None or found.crossing <= found.hi
    assert found.note is None


def test_the_hero_s_own_stat_goes_the_other_way() -> None:
    """The hero's Health raises the PC win rate: asked for a higher target, the value rises."""
    definition = tiny.duel()
    (found,) = vary(definition, ["hero.health"], 0.9, n=2000, seed=1)
    assert found.current == 4
    assert found.value > 4
    assert found.pc_win.estimate == pytest.approx(0.9, abs=0.1)


# -- names -----------------------------------------------------------------------------------------


def test_the_names_that_may_be_varied() -> None:
    definition = tiny.skirmish()
    names = variable_stats(definition)
    assert "ogre.health" in names
    assert "sage.actions.hinder.cost" in names
    assert "hero.aspects.Finesse" in names
    assert "hero.evasion" in names
    assert not any(n.startswith("load_reset") for n in names)
    assert resolve_stat(definition, "ogre.evasion") == (("ogre", "evasion"), 1)


def test_copies_are_varied_together_and_may_be_named_one_by_one() -> None:
    base = tiny.duel()
    goblin = base.participants[1]
    copies = (
        dataclasses.replace(goblin, id="goblin-1"),
        dataclasses.replace(goblin, id="goblin-2", evasion=3),
    )
    definition = dataclasses.replace(base, participants=(base.participants[0], *copies))
    names = variable_stats(definition)
    assert "goblin.health" in names  # the copies agree on it
    assert "goblin.evasion" not in names
    assert "goblin-2.evasion" in names
    assert resolve_stat(definition, "goblin.health") == (("goblin", "health"), 5)
    with pytest.raises(VaryError, match="the copies differ"):
        resolve_stat(definition, "goblin.evasion")


@pytest.mark.parametrize(
    "name",
    ["goblin.speed", "dragon.health", "load_reset", "hero.aspects.Might", "hero.name", "hero."],
)
def test_unknown_names_are_refused_with_what_may_be_varied(name: str) -> None:
    with pytest.raises(VaryError) as caught:
        resolve_stat(tiny.duel(), name)
    assert "what may be varied in duel: hero.{health, evasion" in str(caught.value)


# -- the command ------------------------------------------------------------------------------------


def test_the_command_s_json_shape() -> None:
    data = run_json(
        "difficulty",
        "orc-bridge",
        "--n",
        "2000",
        "--search-n",
        "0",
        "--target",
        "0.5",
        "--vary",
        "orc-brute.health",
        "--vary-n",
        "1000",
    )
    assert set(data) == {
        "encounter",
        "economy",
        "seed",
        "budget_seconds",
        "seconds",
        "band",
        "tactical",
        "exact",
        "exact_note",
        "search",
        "search_note",
        "vary",
    }
    assert data["encounter"] == "Orc Bridge"
    assert data["economy"] == "action_load"
    assert set(data["band"]) == {
        "name",
        "meaning",
        "pc_win",
        "pc_win_source",
        "any_pc_down",
        "within_intervals",
    }
    t = data["tactical"]
    assert t["n"] == 2000
    assert t["seed"] == 0
    assert t["policy"] == "tactical"
    assert set(t["pc_win"]) == {"p", "lo", "hi"}
    assert set(t["rounds"]) == {"mean", "median", "p90"}
    assert set(t["sides"]) == {"pc", "npc"}
    assert set(t["creatures"][0]) == {
        "id",
        "name",
        "side",
        "health",
        "down",
        "health_left",
        "damage_dealt",
    }
    (s,) = data["vary"]
    assert s["stat"] == "orc-brute.health"
    assert s["current"] == 22
    assert s["n"] == 1000
    assert set(s["crossing"]) == {"value", "lo", "hi"}
    assert s["pc_win"]["lo"] <= s["pc_win"]["p"] <= s["pc_win"]["hi"]
    assert [p["value"] for p in s["points"]] == sorted(p["value"] for p in s["points"])


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--vary", "goblin.speed", "--target", "0.5"], "what may be varied in Goblin Ambush"),
        (["--vary", "goblin.evasion"], "--target and --vary go together"),
        (["--target", "0.5"], "--target and --vary go together"),
        (["--vary", " , ", "--target", "0.5"], "--vary names no stat"),
        (["--vary", "load_reset", "--target", "0.5"], "write CREATURE.STAT"),
        (["--workers", "999"], "at most"),
    ],
)
def test_refusals_say_why_and_play_nothing(args: list[str], says: str) -> None:
    result = run("difficulty", "goblin-ambush", *args)
    assert result.exit_code == 2
    assert says in result.stderr
    assert result.stdout == ""


def test_a_refused_exact_shows_the_sample_and_exits_1() -> None:
    result = run("difficulty", "goblin-ambush", "--exact", "--n", "2000", "--search-n", "0")
    assert result.exit_code == 1
    assert "Error: --exact refused" in result.stderr
    assert "chance states" in result.stderr
    assert "Goblin Ambush: " in result.stdout


def test_an_unknown_encounter_is_refused() -> None:
    result = run("difficulty", "no-such-fight")
    assert result.exit_code == 2
    assert "Error:" in result.stderr


def test_an_action_point_stat_is_varied_on_the_compiled_kernel() -> None:
    """An Action Point encounter, played by its compiled kernel (issue 23 item 5; a handful of
    encounters a value here, so only the search's bookkeeping is checked)."""
    from caltrop.content import load_encounter

    definition = load_encounter("bridge-duel-ap")
    assert "brakka.stats.resistance" in variable_stats(definition)
    assert "brakka.evasion" not in variable_stats(definition)  # the module does not read it
    (found,) = vary(definition, ["brakka.health"], 0.5, n=2, seed=0, workers=1)
    assert found.engine == "compiled-tactical"
    assert found.n == 2
    assert found.current == 14
    assert found.value in {p.value for p in found.points}
    assert all(p.value >= 1 for p in found.points)  # Health 0 is refused by the content rules


def test_the_progress_bar_shows_only_past_the_budget() -> None:
    import io

    from rich.console import Console

    from caltrop.cli.difficulty_command import _LazyBar

    def bar(after: float) -> _LazyBar:
        made = _LazyBar(after, quiet=False)
        made.console = Console(file=io.StringIO(), force_terminal=True)
        made.quiet = False
        return made

    patient = bar(3600.0)
    patient("tactical", 10, 100)
    assert patient.bar is None
    late = bar(0.0)
    late("tactical", 10, 100)
    late("search", 1, 0)
    assert late.bar is not None
    assert [t.description for t in late.bar.tasks] == ["tactical", "search"]
    assert late.bar.tasks[0].completed == 10
    late.close()
