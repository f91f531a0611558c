"""A variant's effect under every tactic, and the words that say when tactics disagree
(issue 13: round reset moved Goblin Ambush one way under tactical, the other under fast)."""

from __future__ import annotations

from typing import Any

import pytest

from caltrop.content import load_encounter
from caltrop.sim.across import FAST, across_tactics, playable_policies, verdicts
from caltrop.sim.overrides import parse_variant
from tests.sim.cli import run, run_json
from tests.sim.tiny import skirmish


def _row(policy: str, diff: float, lo: float, hi: float) -> dict[str, Any]:
    return {"policy": policy, "a": "turn", "b": "round", "diff": diff, "lo": lo, "hi": hi}


def test_a_sign_disagreement_is_said_in_words() -> None:
    (v,) = verdicts([_row("tactical", -0.08, -0.11, -0.05), _row("fast", 0.48, 0.45, 0.51)])
    assert v["kind"] == "sign"
    assert v["text"] == (
        "the effect of round (against turn) on the PC win rate depends on tactics: "
        "−8.0 pp under tactical, +48.0 pp under fast"
    )


def test_a_significance_disagreement_names_both_groups() -> None:
    (v,) = verdicts(
        [_row("tactical", -0.08, -0.11, -0.05), _row("attack-weakest", 0.01, -0.01, 0.03)]
    )
    assert v["kind"] == "significance"
    assert "significant under tactical but not under attack-weakest" in v["text"]


@pytest.mark.parametrize(
    ("rows", "phrase"),
    [
        ([_row("a", 0.1, 0.05, 0.15), _row("b", 0.2, 0.1, 0.3)], "same sign under every"),
        ([_row("a", 0.0, -0.1, 0.1), _row("b", 0.01, -0.02, 0.04)], "not significant under any"),
    ],
)
def test_agreement(rows: list[dict[str, Any]], phrase: str) -> None:
    (v,) = verdicts(rows)
    assert v["kind"] == "agree"
    assert phrase in v["text"]


def test_every_bundled_policy_that_can_play() -> None:
    variants = [parse_variant("baseline"), parse_variant("load_reset=round")]
    names = playable_policies(load_encounter("orc-bridge"), variants)
    assert {"tactical", "attack-weakest", "random", FAST} <= set(names)
    # the fast path refuses initiative by check: not offered there
    checked = parse_variant("initiative=check,initiative_aspect=Finesse")
    assert FAST not in playable_policies(load_encounter("orc-bridge"), [checked])


def test_each_tactic_plays_its_own_paired_comparison() -> None:
    variants = [parse_variant("baseline"), parse_variant("ogre.health=3")]
    out = across_tactics(skirmish(), variants, ["tactical", "attack-weakest"], n=300, seed=5)
    assert [r["policy"] for r in out["rows"]] == ["tactical", "attack-weakest"]
    for r in out["rows"]:
        assert r["lo"] <= r["diff"] <= r["hi"]
        assert r["diff"] > 0  # a weaker ogre loses more under any tactic
    assert out["verdicts"][0]["kind"] in ("agree", "significance")


def test_the_cli_compares_under_the_tactics_named() -> None:
    args = ("sim", "orc-bridge", "--variant", "load_reset=turn", "--variant", "load_reset=round")
    data = run_json(*args, "--n", "60", "--seed", "3", "--workers", "1",
                    "--policies", "attack-weakest,fast")  # fmt: skip
    across = data["across_tactics"]
    assert across["policies"] == ["attack-weakest", "fast"]
    assert [r["policy"] for r in across["rows"]] == ["attack-weakest", "fast"]
    assert len(across["verdicts"]) == 1
    shown = run(*args, "--n", "40", "--seed", "3", "--workers", "1", "--policies", "fast,random")
    assert "The same comparison under each tactic" in shown.stdout
    assert "The effect of load_reset=round" in shown.stdout
    none = run_json(*args, "--n", "10", "--seed", "3", "--workers", "1", "--policies", "none")
    assert "across_tactics" not in none
    bad = run(*args, "--n", "10", "--policies", "clever")
    assert bad.exit_code == 2
    assert "no policy named 'clever'" in bad.stderr


def test_fast_output_names_its_tactic_in_the_headline() -> None:
    shown = run("sim", "orc-bridge", "--fast", "--n", "200", "--seed", "1", "--policies", "none")
    first = shown.stdout.splitlines()[0]
    assert "tactic: the fast path's (attack the weakest, hinder to save an ally)" in first


def test_search_is_in_the_default_list_where_it_fits_its_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The strong player plays a comparison by default only where its encounters fit the stated
    budget (ACROSS_SEARCH_N encounters per variant in ACROSS_SEARCH_SECONDS); elsewhere the
    output says it was left out, with the estimate."""
    import caltrop.sim.across as across

    args = ("sim", "duel", "--variant", "revision=current", "--variant", "revision=legacy")
    monkeypatch.setattr(across, "search_seconds", lambda definition: 0.01)
    data = run_json(*args, "--n", "30", "--seed", "3", "--workers", "1")
    assert "search" in data["across_tactics"]["policies"]
    rows = [r for r in data["across_tactics"]["rows"] if r["policy"] == "search"]
    assert [r["n"] for r in rows] == [min(30, across.ACROSS_SEARCH_N)]
    monkeypatch.setattr(across, "search_seconds", lambda definition: 1e6)
    shown = run(*args, "--n", "30", "--seed", "3", "--workers", "1")
    assert "Search left out: 30 encounters per variant would take about" in shown.stdout
    assert (
        "search" not in run_json(*args, "--n", "30", "--workers", "1")["across_tactics"]["policies"]
    )
    # named, it plays whatever the estimate
    named = run_json(*args, "--n", "4", "--seed", "3", "--workers", "1", "--policies", "search")
    assert named["across_tactics"]["policies"] == ["search"]


def test_the_strong_player_plays_as_many_encounters_as_fit_its_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """By default ``search`` plays where ACROSS_SEARCH_N encounters per variant fit
    ACROSS_SEARCH_SECONDS, and then as many of the run's as fit that time."""
    import caltrop.sim.across as across
    from caltrop.content import load_encounter

    duel = load_encounter("duel")
    variants = [parse_variant("revision=current"), parse_variant("revision=legacy")]
    monkeypatch.setattr(across, "search_seconds", lambda definition: 2.0)
    # 2 s × 2 variants on 1 worker: 4 s per encounter; 40 take 160 s; 300 s hold 75
    assert across.search_plan(duel, variants, 1000, 1) == (True, 75, 160.0)
    assert across.search_plan(duel, variants, 50, 1) == (True, 50, 160.0)
    assert across.search_plan(duel, variants, 1000, 2) == (True, 150, 80.0)
    monkeypatch.setattr(across, "search_seconds", lambda definition: 10.0)
    fits, count, seconds = across.search_plan(duel, variants, 1000, 1)
    assert (fits, count, seconds) == (False, 40, 800.0)
