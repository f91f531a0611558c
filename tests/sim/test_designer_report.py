"""The designer's report reads at a glance (issue 25): exact differences beside the sampled
ones, plots that carry their own caveats, intervals that cannot be overconfident."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from matplotlib.container import BarContainer

from caltrop.content import encounter_policies, load_encounter
from caltrop.core.model import Side
from caltrop.sim.best_response import best_response
from caltrop.sim.overrides import parse_variant
from caltrop.sim.registry import make_policy
from tests.sim.cli import run_json

VARIANTS = ("revision=current", "revision=legacy")


def _graph_value(variant: str) -> float:
    """P(PC wins) of the bundled duel under its own policies, from the best-response graph
    (value iteration over every state, :mod:`caltrop.sim.best_response`): an oracle
    independent of the exact solver's chain and its fractions."""
    definition = parse_variant(variant).apply(load_encounter("duel"))
    names = encounter_policies("duel")
    policies = {s: make_policy(names[s], np.random.default_rng(0)) for s in ("pc", "npc")}
    return best_response(definition, Side.PC, policies).policy


@pytest.fixture(scope="module")
def exact_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    where = tmp_path_factory.mktemp("exact-report")
    summary = run_json(
        "sim", "duel", "--exact", "--variant", VARIANTS[0], "--variant", VARIANTS[1],
        "--n", "60", "--seed", "3", "--workers", "1", "--policies", "none",
        "--report", str(where),
    )  # fmt: skip
    return summary, where


def test_exact_differences_are_the_oracles_difference(
    exact_run: tuple[dict[str, Any], Path],
) -> None:
    """Issue 25 item 1: "with --exact and two or more variants, the exact difference of each
    variant from the baseline (as a fraction and in pp)" — checked against the best-response
    graph's values, not against the exact solver that produced them."""
    summary, _ = exact_run
    oracle = _graph_value(VARIANTS[1]) - _graph_value(VARIANTS[0])
    rows = {d["side"]: d for d in summary["differences"] if d["measure"] == "win_rate"}
    pc = rows["pc"]["exact"]
    assert abs(pc["diff"] - oracle) < 1e-9
    assert float(Fraction(pc["fraction"])) == pytest.approx(pc["diff"], abs=1e-15)
    # the exact fractions of the variants, subtracted: what the reader had to do by hand
    a, b = (Fraction(v["exact"]["win_rate"]["pc"]["exact"]) for v in summary["variants"])
    assert Fraction(pc["fraction"]) == b - a
    npc = [Fraction(v["exact"]["win_rate"]["npc"]["exact"]) for v in summary["variants"]]
    assert Fraction(rows["npc"]["exact"]["fraction"]) == npc[1] - npc[0]
    assert pc["within_interval"] == (rows["pc"]["lo"] <= pc["diff"] <= rows["pc"]["hi"])


def test_exact_differences_in_the_table_report_and_plot(
    exact_run: tuple[dict[str, Any], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    from caltrop.cli.sim_commands import _print_sim
    from caltrop.sim.report import difference_figure

    summary, where = exact_run
    pc = next(d for d in summary["differences"] if d["side"] == "pc")
    shown = f"{100 * pc['exact']['diff']:+.3f} pp"
    _print_sim(summary)
    assert shown in capsys.readouterr().out
    page = (where / "report.md").read_text("utf-8")
    assert "| exact |" in page
    assert shown in page
    assert (where / "difference.png").stat().st_size > 0
    (ax,) = difference_figure(summary).axes
    markers = [line for line in ax.get_lines() if line.get_label() == "exact"]
    assert len(markers) == 1
    assert markers[0].get_xdata()[0] == pytest.approx(100 * pc["exact"]["diff"])


def test_no_bare_zero_interval_when_every_pair_is_the_same() -> None:
    """Issue 25 item 3: "no bare [0, 0] — when no pair is discordant say 'identical in every
    pair' and give the Newcombe (or exact) interval"."""
    from caltrop.sim.overrides import Variant
    from caltrop.sim.report import diff_text
    from caltrop.sim.runner import simulate
    from caltrop.sim.summary import differences
    from tests.sim.tiny import duel

    tactical = {"pc": "tactical", "npc": "tactical"}
    result = simulate(duel(), [Variant("a"), Variant("b")], tactical, n=40, seed=1)
    rows = differences(result.runs)
    for d in rows:
        assert d["identical"], d
        assert "identical in every pair" in diff_text(d)
    for d in (d for d in rows if d["measure"] == "win_rate"):
        assert d["discordant"] == 0
        assert d["lo"] < 0 < d["hi"], d  # Newcombe's interval: 40 pairs do not prove "no effect"
        assert (d["lo"], d["hi"]) == (d["newcombe"]["lo"], d["newcombe"]["hi"])


@given(st.integers(0, 300), st.integers(0, 300))
def test_newcombes_interval_of_concordant_pairs_is_never_a_point(wins: int, losses: int) -> None:
    """Whatever the sample, pairs that all agree give an interval of positive width around 0."""
    from caltrop.sim.stats import newcombe_paired

    assume(wins + losses > 0)
    outcomes = np.array([1] * wins + [0] * losses)
    iv = newcombe_paired(outcomes, outcomes)
    assert iv.estimate == 0
    assert iv.lo < 0 < iv.hi


def _tested(policy: str, diff: float, half: float, p: float, b: str = "round") -> dict[str, Any]:
    return {
        "policy": policy, "a": "turn", "b": b, "diff": diff, "lo": diff - half,
        "hi": diff + half, "p_value": p,
    }  # fmt: skip


def test_a_verdict_over_several_tactics_says_what_survives_holm() -> None:
    """Issue 25 item 3: "a note on multiplicity when several policies are tested (Holm or
    similar), in the verdict's wording". Three tactics, one nominally significant (p = 0.03):
    Holm multiplies the smallest of 3 p-values by 3 → 0.09, not significant."""
    from caltrop.sim.across import verdicts

    rows = [
        _tested("tactical", 0.04, 0.035, 0.03),
        _tested("attack-weakest", 0.01, 0.03, 0.5),
        _tested("random", 0.0, 0.03, 0.9),
    ]
    (v,) = verdicts(rows)
    assert v["kind"] == "significance"
    assert "none is significant once corrected for the 3 tests (Holm" in v["text"]
    assert v["p_holm"] == pytest.approx({"tactical": 0.09, "attack-weakest": 1.0, "random": 1.0})


def test_holm_keeps_a_strong_effect_and_counts_every_row_of_the_family() -> None:
    """Two variants under two tactics: four tests. Sorted p = 0.001, 0.004, 0.03, 0.6 → Holm
    0.004, 0.012, 0.06, 0.6: the first two stay significant, the third does not."""
    from caltrop.sim.across import verdicts

    rows = [
        _tested("tactical", 0.1, 0.05, 0.001),
        _tested("fast", 0.05, 0.04, 0.03),
        _tested("tactical", 0.08, 0.05, 0.004, b="scene"),
        _tested("fast", 0.01, 0.05, 0.6, b="scene"),
    ]
    first, second = verdicts(rows)
    assert first["p_holm"] == pytest.approx({"tactical": 0.004, "fast": 0.06})
    assert second["p_holm"] == pytest.approx({"tactical": 0.012, "fast": 0.6})
    assert first["text"].endswith(
        "once corrected for the 4 tests (Holm, family-wise 5%): significant under tactical"
    )
    assert second["text"].endswith("significant under tactical")


def test_one_tactic_needs_no_correction_and_identical_pairs_are_said() -> None:
    from caltrop.sim.across import verdicts

    (v,) = verdicts([{**_tested("tactical", 0.0, 0.02, 1.0), "identical": True}])
    assert "Holm" not in v["text"]
    assert "identical in every pair under tactical" in v["text"]


@pytest.fixture(scope="module")
def orc_bridge() -> dict[str, Any]:
    return run_json(
        "sim", "orc-bridge", "--variant", "load_reset=turn", "--variant", "load_reset=round",
        "--n", "40", "--seed", "2", "--workers", "1", "--policies", "attack-weakest,tactical",
    )  # fmt: skip


def _titles(fig: Any) -> str:
    parts = [ax.get_title() for ax in fig.axes]
    if fig._suptitle is not None:
        parts.append(fig._suptitle.get_text())
    return "\n".join(parts)


def test_every_plot_names_the_encounter_the_engine_and_the_policies(
    orc_bridge: dict[str, Any],
) -> None:
    """Issue 25 item 2: "every plot's title names the encounter, the engine (compiled /
    reference) and the policies"."""
    from caltrop.sim import report

    figures = {
        "difference": (report.difference_figure, "attack-weakest, tactical"),
        "win_rates": (report.win_rate_figure, "tactical"),
        "rounds": (report.rounds_figure, "tactical"),
        "per_side": (report.per_round_figure, "tactical"),
        "creatures": (report.creatures_figure, "tactical"),
    }
    for name, (draw, policies) in figures.items():
        for engine, said in (("reference", "reference engine"), ("compiled-tactical", "compiled")):
            titles = _titles(draw({**orc_bridge, "engine": engine}))
            assert "Orc Bridge" in titles, name
            assert said in titles, (name, titles)
            assert policies in titles, (name, titles)


def test_per_side_and_creature_plots_draw_their_intervals(orc_bridge: dict[str, Any]) -> None:
    """Issue 25 item 2: "per_side.png and creatures.png get intervals" — every bar has an
    error bar, from the summary's intervals, which hold the mean."""
    from caltrop.sim.report import creatures_figure, per_round_figure

    for fig in (per_round_figure(orc_bridge), creatures_figure(orc_bridge)):
        for ax in fig.axes:
            bars = [c for c in ax.containers if isinstance(c, BarContainer)]
            assert bars, ax.get_ylabel()
            for group in bars:
                assert group.errorbar is not None, ax.get_title() or ax.get_ylabel()
    for v in orc_bridge["variants"]:
        for measure, sides in v["per_side_interval"].items():
            for side, iv in sides.items():
                assert iv["lo"] <= v[measure][side] <= iv["hi"]
        for c in v["creatures"]:
            for key, iv in c["interval"].items():
                assert iv["lo"] <= c[key] <= iv["hi"], (c["id"], key)
            if 0 < c["down_rate"] < 1:
                assert c["interval"]["down_rate"]["lo"] < c["interval"]["down_rate"]["hi"]


def test_the_rounds_axis_stops_near_the_longest_fight(orc_bridge: dict[str, Any]) -> None:
    from caltrop.sim.report import rounds_figure

    longest = max(v["rounds"]["max"] for v in orc_bridge["variants"])
    (ax,) = rounds_figure(orc_bridge).axes
    assert longest < ax.get_xlim()[1] <= longest + 1
    assert "Orc Bridge" in ax.get_title()


def test_the_headline_shows_n_per_row_significance_and_the_verdict() -> None:
    """Issue 25 item 2: "difference.png shows n per row (search played 53 encounters while the
    others played 2,000, and nothing said so), marks which rows are significant and the
    verdict"."""
    from caltrop.sim.across import verdicts
    from caltrop.sim.report import difference_figure

    rows = [
        {**_tested("tactical", 0.06, 0.02, 1e-6), "n": 2000},
        {**_tested("search", 0.05, 0.08, 0.2), "n": 53},
    ]
    said = verdicts(rows)
    summary = {
        "encounter": "Goblin Ambush", "engine": "reference", "n": 2000,
        "policies": {"pc": "tactical", "npc": "tactical"},
        "across_tactics": {"rows": rows, "verdicts": said, "policies": ["tactical", "search"]},
    }  # fmt: skip
    fig = difference_figure(summary)
    (ax,) = fig.axes
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["tactical (n = 2,000) *", "search (n = 53)"]
    faces = [line.get_markerfacecolor() for line in ax.get_lines() if line.get_marker() == "o"]
    assert faces[0] != "white"
    assert faces[1] == "white"
    verdict = fig.get_supxlabel().replace("\n", " ")
    assert "significant under tactical but not under search" in verdict
    assert "Holm" in verdict


def test_best_response_beside_the_policy_agrees_with_the_exact_solver(tmp_path: Path) -> None:
    """Issue 25 item 5: "caltrop sim ENCOUNTER --best-response pc|npc exposes the exact best
    response ... beside tactical's value". The policy's own value, from the best-response
    graph, is the exact solver's P(win) (a different model of the same game: chance states
    only, fractions); the best play can only do as well or better."""
    summary = run_json(
        "sim", "duel", "--policy", "tactical", "--best-response", "npc", "--exact",
        "--n", "40", "--seed", "1", "--workers", "1", "--report", str(tmp_path),
    )  # fmt: skip
    (v,) = summary["variants"]
    found = v["best_response"]
    assert (found["side"], found["against"], found["policy_name"]) == (
        "npc",
        "tactical",
        "tactical",
    )
    exact = float(Fraction(v["exact"]["win_rate"]["npc"]["exact"]))
    assert found["policy"] == pytest.approx(exact, abs=1e-12)
    assert found["best"] >= found["policy"] - 1e-12
    assert found["gain"] == pytest.approx(found["best"] - found["policy"])
    assert "How much better could anyone play?" in (tmp_path / "report.md").read_text("utf-8")


def test_best_response_finds_what_a_weak_policy_leaves_on_the_table() -> None:
    """A PC side that never reacts (attack-weakest) against tactical ogres: the best play wins
    more often, and the summary says by how much and where."""
    from caltrop.sim.best_response import best_response_summary, best_response_text
    from tests.sim.tiny import skirmish

    found = best_response_summary(skirmish(), "pc", {"pc": "attack-weakest", "npc": "tactical"})
    assert found["gain"] > 0.01
    assert found["worse_on_path"] > 0
    text = best_response_text("baseline", found)
    assert f"{100 * found['gain']:+.3f} pp to gain" in text
    assert "playing attack-weakest" in text


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (("--best-response", "both"), 2, "--best-response is pc or npc"),
        (("--best-response", "pc", "--policy", "random"), 2, "the pc policy 'random' is random"),
        (("--best-response", "pc", "--fast"), 2, "not the fast path's"),
    ],
)
def test_best_response_refusals_say_why(args: tuple[str, ...], code: int, said: str) -> None:
    from tests.sim.cli import run

    result = run("sim", "duel", "--n", "10", "--seed", "1", "--workers", "1", *args)
    assert result.exit_code == code, result.output
    assert said in result.stderr
    assert "Traceback" not in result.output


def test_a_best_response_too_large_keeps_the_sampled_results() -> None:
    from tests.sim.cli import run

    result = run(
        "sim", "duel", "--n", "10", "--seed", "1", "--workers", "1", "--policy", "tactical",
        "--best-response", "pc", "--max-states", "20",
    )  # fmt: skip
    assert result.exit_code == 2  # a limit met: exit 2, as docs/limits.md says of every limit
    assert "--best-response refused (the sampled results are shown)" in result.stderr
    assert "too large for a best response" in result.stderr
    assert "Win rate" in result.stdout


def test_the_estimate_in_words() -> None:
    """Issue 25 item 4: "this comparison will take about 40 min on 2 workers; --fast --policy
    tactical answers the same question in about 20 s"."""
    from caltrop.sim.estimate import Plan, duration, shared

    assert shared(0.6, 4000, 2) == pytest.approx(1200.0)
    plan = Plan(
        2,
        (("the main run", shared(0.6, 3000, 2)), ("the tactics", shared(0.3, 2000, 2))),
        ("--fast --policy tactical", 20.0),
    )
    assert plan.seconds == pytest.approx(900.0 + 300.0)
    assert plan.text() == (
        "this comparison will take about 20 min on 2 workers (the main run 15 min, the "
        "tactics 5 min); --fast --policy tactical answers the same question in about 20 s"
    )
    assert [duration(s) for s in (0.2, 40, 89, 90, 2400, 5400, 9000)] == [
        "1 s", "40 s", "89 s", "2 min", "40 min", "1.5 h", "2.5 h",
    ]  # fmt: skip


def test_the_pilot_times_its_encounters_after_a_warm_up() -> None:
    from caltrop.sim.estimate import PILOT_ENCOUNTERS, pilot_seconds
    from caltrop.sim.overrides import Variant
    from tests.sim.tiny import duel

    ticks = iter([10.0, 10.0 + 3.0 * PILOT_ENCOUNTERS])
    each = pilot_seconds(
        duel(), Variant("baseline"), {"pc": "tactical", "npc": "tactical"}, max_rounds=100,
        clock=lambda: next(ticks),
    )  # fmt: skip
    assert each == pytest.approx(3.0)


def test_a_long_run_says_how_long_before_it_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The line comes on stderr before the run (no wall-clock assert: the threshold is set to
    0 so the duel's few seconds are announced); a short run and --json say nothing."""
    from caltrop.sim import estimate
    from tests.sim.cli import run

    monkeypatch.setattr(estimate, "ANNOUNCE_SECONDS", 0.0)
    args = ["sim", "duel", "--policy", "tactical", "--seed", "1", "--workers", "1"]
    long = run(*args, "--n", str(estimate.PILOT_MIN_RUN))
    assert long.exit_code == 0, long.output
    line = long.stderr.splitlines()[0]
    assert line.startswith("This comparison will take about "), long.stderr
    assert "on 1 worker" in line
    assert "; --fast --policy tactical answers the same question in about " in line
    short = run(*args, "--n", str(estimate.PILOT_MIN_RUN // 4))
    assert "will take about" not in short.stderr
    quiet = run(*args, "--n", str(estimate.PILOT_MIN_RUN), "--json")
    assert "will take about" not in quiet.stderr
    sweep = run(
        "sweep", "duel", "--param", "sellsword.health=10,12", "--policy", "tactical",
        "--seed", "1", "--workers", "1", "--n", str(estimate.PILOT_MIN_RUN),
    )  # fmt: skip
    assert sweep.exit_code == 0, sweep.output
    assert sweep.stderr.startswith("This sweep will take about ")


def _point(value: str, p: float) -> dict[str, Any]:
    play = {"rounds": {"pc": 4.0, "npc": 4.0}, "reactions_per_encounter": {"pc": 2.0, "npc": 1.0}}
    return {"value": value, "win_rate": {"pc": {"p": p}}, "play": play}


def _step(a: str, b: str, diff: float, half: float) -> dict[str, Any]:
    return {"from": a, "to": b, "diff": diff, "lo": diff - half, "hi": diff + half}


def test_a_step_against_the_others_is_flagged_and_noise_is_not() -> None:
    """Issue 25 item 6: "when a sweep's win rate moves against the stat ..., say so". Only
    significant steps count: a wiggle inside its interval is not a reversal."""
    from caltrop.sim.summary import against_trend

    points = [_point(str(v), p) for v, p in ((10, 0.9), (11, 0.85), (12, 0.8), (13, 0.88))]
    steps = [
        _step("10", "11", -0.05, 0.01),
        _step("11", "12", -0.05, 0.01),
        _step("12", "13", +0.08, 0.01),
    ]
    (flagged,) = against_trend(points, steps, side="pc")
    assert (flagged["from"], flagged["to"], flagged["trend"]) == ("12", "13", -1)
    wiggle = [*steps[:2], _step("12", "13", +0.01, 0.02)]
    assert against_trend(points, wiggle, side="pc") == []
    assert against_trend(points, [*steps[:2], _step("12", "13", -0.1, 0.01)], side="pc") == []
    # not numbers, or not increasing: no trend to speak of
    words = [{**p, "value": w} for p, w in zip(points, "abcd", strict=True)]
    assert against_trend(words, steps, side="pc") == []


def test_a_real_sweep_that_is_not_monotone_says_so_and_shows_play() -> None:
    """Goblin Ambush, tactical (compiled): goblin Evasion 12 → 13 raises the PC win rate that
    Evasion 10 → 11 and 13 → 14 lower (the issue's example, 82.6% → 88.7% there)."""
    from caltrop.sim.report import sweep_markdown
    from tests.sim.cli import run

    args = [
        "sweep", "goblin-ambush", "--param", "goblin.evasion=10..14", "--policy", "tactical",
        "--fast", "--n", "2000", "--seed", "1",
    ]  # fmt: skip
    summary = run_json(*args)
    (flagged,) = summary["against_trend"]
    assert (flagged["from"], flagged["to"]) == ("12", "13")
    assert flagged["lo"] > 0
    assert len(summary["steps"]) == 4
    assert flagged["changed"]
    # the share of each action chosen at both values, played again on the sweep's seeds
    shares = flagged["shares"]
    assert shares["n"] == 200
    for value in ("from", "to"):
        assert math.isclose(sum(shares[value]["pc"].values()), 1.0)
    assert shares["changed"]
    assert shares["from"] != shares["to"]
    for point in summary["points"]:
        assert set(point["play"]) >= {"reactions_per_encounter", "hinders_per_encounter"}
    shown = run(*args).stdout
    assert (
        "Against the stat: raising goblin.evasion should lower the PC win rate, but from 12 to "
        "13 it rises" in shown
    )
    assert summary["expected"] == -1  # the goblins are NPCs: their Evasion is against the PCs
    assert "Play per value" in shown
    assert "the actions chosen that moved most (first 200 encounters" in shown
    page = sweep_markdown(summary)
    assert "## Against the stat" in page
    first = shares["changed"][0]
    assert f"{first['side'].upper()} {first['action']} " in page
    assert "## Play per value (per encounter)" in page


GRID = ("--set", "goblin.health=4..5", "--set", "goblin.evasion=10..12")
GRID_RUN = ("--policy", "tactical", "--fast", "--n", "400", "--seed", "4")


def test_two_stats_at_once_give_every_pair_on_paired_seeds(tmp_path: Path) -> None:
    """Issue 25 item 7: "caltrop sweep ENCOUNTER --set A=lo..hi --set B=lo..hi gives a grid
    with a heat map of the PC win rate and the contour at the target". Each row of the grid is
    the one-stat sweep of B with A fixed by --variant (the same seeds, so the same fights)."""
    from caltrop.sim.report import grid_figure

    summary = run_json(
        "sweep", "goblin-ambush", *GRID, *GRID_RUN, "--target", "0.85", "--report", str(tmp_path)
    )
    grid = summary["grid"]
    assert grid["params"] == ["goblin.health", "goblin.evasion"]
    assert grid["values"] == [["4", "5"], ["10", "11", "12"]]
    for health, row in zip(grid["values"][0], grid["cells"], strict=True):
        alone = run_json(
            "sweep", "goblin-ambush", "--param", "goblin.evasion=10..12",
            "--variant", f"goblin.health={health}", *GRID_RUN,
        )  # fmt: skip
        assert [c["win_rate"] for c in row] == [p["win_rate"] for p in alone["points"]]
    assert [c["row"] for c in summary["contour"]] == ["4", "5"]
    assert all(c["target"] == 0.85 for c in summary["contour"])
    fig = grid_figure(summary)
    ax = fig.axes[0]
    (image,) = ax.get_images()
    expected = [[100 * c["win_rate"]["pc"]["p"] for c in row] for row in grid["cells"]]
    assert np.allclose(np.asarray(image.get_array()), expected)
    assert "Goblin Ambush" in ax.get_title()
    page = (tmp_path / "report.md").read_text("utf-8")
    assert "![grid.png](grid.png)" in page
    for c in summary["contour"]:
        assert f"- goblin.health = {c['row']}: The PC win rate crosses 85.0%" in page


def test_the_contour_is_drawn_where_the_grid_crosses_the_target() -> None:
    from caltrop.sim.report import grid_figure

    def cell(p: float) -> dict[str, Any]:
        return {"win_rate": {"pc": {"p": p, "lo": p - 0.02, "hi": p + 0.02}}}

    summary = {
        "encounter": "Goblin Ambush", "engine": "reference", "n": 100, "side": "pc",
        "policies": {"pc": "tactical", "npc": "tactical"},
        "grid": {
            "params": ["a", "b"], "values": [["1", "2"], ["1", "2"]],
            "cells": [[cell(0.9), cell(0.6)], [cell(0.7), cell(0.3)]],
        },
        "contour": [{"row": "1", "target": 0.5}],
    }  # fmt: skip
    ax = grid_figure(summary).axes[0]
    assert "50.0% contour" in ax.get_legend_handles_labels()[1]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--set", "goblin.health=4..5"), "--set is given twice"),
        (
            ("--set", "goblin.health=4..5", "--set", "goblin.health=6..7"),
            "names goblin.health twice",
        ),
        ((*GRID, "--param", "goblin.health=4..5"), "give one or the other"),
        (
            ("--set", "goblin.health=1..100", "--set", "goblin.evasion=0..10"),
            "100 × 11 values = 1,100 cells; a grid takes at most 1,000",
        ),
        ((), "give --param PATH=VALUES"),
    ],
)
def test_a_grid_refuses_what_it_cannot_draw(args: tuple[str, ...], said: str) -> None:
    from tests.sim.cli import run

    result = run("sweep", "goblin-ambush", *args, *GRID_RUN)
    assert result.exit_code == 2, result.output
    assert said in result.stderr
    assert "Traceback" not in result.output


@given(st.lists(st.tuples(st.floats(-0.2, 0.2), st.floats(0.001, 0.1)), min_size=2, max_size=8))
def test_what_is_flagged_goes_against_a_majority(moves: list[tuple[float, float]]) -> None:
    """Any sweep: a flagged step is significant and opposite to the trend; the flagged steps
    are never more than the significant steps that follow the trend; a sweep whose significant
    steps all go one way is monotone (nothing flagged)."""
    from caltrop.sim.summary import against_trend

    values = [str(v) for v in range(len(moves) + 1)]
    steps = [_step(values[k], values[k + 1], diff, half) for k, (diff, half) in enumerate(moves)]
    points = [_point(v, 0.5) for v in values]
    flagged = against_trend(points, steps, side="pc")
    signs = [1 if s["lo"] > 0 else -1 if s["hi"] < 0 else 0 for s in steps]
    if not (1 in signs and -1 in signs):
        assert flagged == []
        return
    trend = flagged[0]["trend"]
    for f in flagged:
        sign = 1 if f["lo"] > 0 else -1
        assert sign == -trend
    assert len(flagged) <= signs.count(trend)
    assert len(flagged) == signs.count(-trend)


def test_the_pilot_measures_how_much_the_load_stretches_cpu_time() -> None:
    """The strong player's estimate is CPU time; on a loaded machine (7 runs on 2 cores) a
    process gets a fraction of a core: wall over CPU of the pilot says how much."""
    from caltrop.sim.estimate import PILOT_ENCOUNTERS, Pilot, pilot
    from caltrop.sim.overrides import Variant
    from tests.sim.tiny import duel

    wall = iter([0.0, 4.0 * PILOT_ENCOUNTERS])
    cpu = iter([1.0, 1.0 + PILOT_ENCOUNTERS])
    found = pilot(
        duel(), Variant("baseline"), {"pc": "tactical", "npc": "tactical"}, max_rounds=100,
        clock=lambda: next(wall), cpu=lambda: next(cpu),
    )  # fmt: skip
    assert (found.seconds, found.cpu_seconds) == pytest.approx((4.0, 1.0))
    assert found.slowdown == pytest.approx(4.0)
    assert Pilot(1.0, 2.0).slowdown == 1.0  # never below 1: threads do not make it faster


def test_the_strong_player_is_estimated_not_piloted(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pilot of --policy search would itself take seconds to minutes: its own estimate
    (:func:`caltrop.sim.across.search_seconds`) is used instead."""
    from caltrop.sim import estimate
    from tests.sim.cli import run

    def no_pilot(*args: object, **kwargs: object) -> estimate.Pilot:
        raise AssertionError("search was piloted")

    monkeypatch.setattr(estimate, "ANNOUNCE_SECONDS", 0.0)
    monkeypatch.setattr(estimate, "pilot", no_pilot)
    result = run(
        "sim", "duel", "--policy", "search", "--n", str(estimate.PILOT_MIN_RUN), "--seed", "1",
        "--workers", "1",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("This comparison will take about ")


def test_each_tactic_has_its_own_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 25 item 4, never blind: one count over every tactic said "about 2 min left" when
    the strong player, a thousand times slower than the rest, still had 25 min to play; each
    tactic now has its own progress, and its own rate for the time left."""
    from caltrop.cli import sim_interrupt
    from tests.sim.cli import run

    monkeypatch.setattr(sim_interrupt, "PROGRESS_FIRST_SECONDS", 0.0)  # a line at once
    result = run(
        "sim", "orc-bridge", "--variant", "load_reset=turn", "--variant", "load_reset=round",
        "--n", "60", "--seed", "2", "--workers", "1", "--policies", "attack-weakest,random",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    for tactic in ("attack-weakest", "random"):  # 60 encounters of each of the two variants
        mine = [line for line in lines if line.startswith(f"tactics ({tactic}): ")]
        assert mine, lines
        assert all(" of 120 (" in line for line in mine), mine


@pytest.mark.parametrize(
    ("encounter", "path", "side", "expected"),
    [
        ("goblin-ambush", "goblin.evasion", "pc", -1),  # the NPCs' goblins
        ("goblin-ambush", "goblin.evasion", "npc", 1),
        ("goblin-ambush", "aria.aspects.Finesse", "pc", 1),
        ("goblin-ambush", "pc.health", "pc", 1),  # a whole side
        ("goblin-ambush", "aria.exhaustion", "pc", None),  # a Load to start with: not listed
        ("goblin-ambush", "load_reset", "pc", None),  # an option
        ("warband-ap", "torvald.stats.block_rating", "pc", 1),
        ("warband-ap", "wolf.stats.x", "pc", None),  # a position says nothing
    ],
)
def test_what_a_stat_should_do_to_the_win_rate(
    encounter: str, path: str, side: str, expected: int | None
) -> None:
    from caltrop.content import load_encounter
    from caltrop.sim.summary import expected_direction

    assert expected_direction(load_encounter(encounter), path, side) == expected


def test_a_step_against_the_stat_is_flagged_even_when_it_is_half_the_steps() -> None:
    """Two significant steps, one each way: the majority cannot tell which is odd (a tie once
    flagged the step that went the right way); what the stat means can."""
    from caltrop.sim.summary import against_trend

    points = [{"value": str(v), "play": {"rounds": {"pc": 5.0, "npc": 5.0}}} for v in (11, 12, 13)]
    steps = [
        {"from": "11", "to": "12", "diff": 0.07, "lo": 0.05, "hi": 0.09},  # up: against
        {"from": "12", "to": "13", "diff": -0.02, "lo": -0.03, "hi": -0.01},  # down: as expected
    ]
    flagged = against_trend(points, steps, side="pc", expected=-1)
    assert [(f["from"], f["to"], f["against_stat"]) for f in flagged] == [("11", "12", True)]
    by_majority = against_trend(points, steps, side="pc")
    assert [(f["from"], f["to"]) for f in by_majority] == [("12", "13")]
    # every step against the stat: monotone, and still flagged, each of them
    all_up = [{**steps[0]}, {**steps[0], "from": "12", "to": "13"}]
    assert len(against_trend(points, all_up, side="pc", expected=-1)) == 2
    assert against_trend(points, all_up, side="pc") == []
