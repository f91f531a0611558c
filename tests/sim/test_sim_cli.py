"""``caltrop sim`` and ``caltrop sweep`` end to end, at small n."""

from __future__ import annotations

from pathlib import Path

from tests.sim.cli import run, run_json


def test_sim_json_has_the_documented_shape() -> None:
    data = run_json(
        "sim",
        "orc-bridge",
        "--variant",
        "load_reset=turn",
        "--variant",
        "load_reset=round",
        "--n",
        "24",
        "--seed",
        "3",
        "--workers",
        "1",
    )
    assert [v["name"] for v in data["variants"]] == ["load_reset=turn", "load_reset=round"]
    for v in data["variants"]:
        assert v["n"] == 24
        for side in ("pc", "npc"):
            w = v["win_rate"][side]
            assert 0 <= w["lo"] <= w["p"] <= w["hi"] <= 1
        assert {"mean", "median", "p90"} <= set(v["rounds"])
    wins = [d for d in data["differences"] if d["measure"] == "win_rate"]
    assert {(d["a"], d["b"], d["side"]) for d in wins} == {
        ("load_reset=turn", "load_reset=round", "pc"),
        ("load_reset=turn", "load_reset=round", "npc"),
    }
    assert all({"diff", "lo", "hi"} <= set(d) for d in wins)
    assert data["seed"] == 3
    assert data["policies"] == {"pc": "tactical", "npc": "tactical"}  # the file says greedy
    # without --fast the reference engine plays, even tactical against tactical (issue 13)
    assert data["engine"] == "reference"
    assert "engine_note" not in data


def test_sim_results_do_not_depend_on_workers() -> None:
    args = ("sim", "orc-bridge", "--variant", "load_reset=round", "--n", "16", "--seed", "8")
    one = run_json(*args, "--workers", "1")
    two = run_json(*args, "--workers", "2")
    assert one == two


def test_sim_text_and_report(tmp_path: Path) -> None:
    report = tmp_path / "report"
    result = run(
        "sim",
        "orc-bridge",
        "--variant",
        "turn:load_reset=turn",
        "--variant",
        "round:load_reset=round",
        "--n",
        "12",
        "--seed",
        "1",
        "--workers",
        "1",
        "--policy",
        "pc=attack-weakest",
        "--policies",
        "tactical,attack-weakest",
        "--report",
        str(report),
    )
    assert result.exit_code == 0, result.output
    assert "Win rate (Wilson 95%)" in result.stdout
    assert "Paired differences" in result.stdout
    assert "policies pc=attack-weakest npc=tactical (reference engine)" in result.stdout
    for name in ("win_rates.png", "rounds.png", "per_side.png", "report.md"):
        assert (report / name).stat().st_size > 0
    page = (report / "report.md").read_text(encoding="utf-8")
    assert "| turn |" in page
    assert "![win_rates.png](win_rates.png)" in page


def test_sim_exact_on_a_small_file(tmp_path: Path) -> None:
    encounter = tmp_path / "duel.yaml"
    encounter.write_text(
        """\
kind: encounter
name: Duel
ruleset: current
participants:
  - id: hero
    name: Hero
    side: pc
    aspects: {Finesse: 2}
    health: 4
    evasion: 1
    actions:
      - {name: stab, kind: attack, aspect: Finesse, cost: 1}
  - id: imp
    name: Imp
    side: npc
    aspects: {Finesse: 2}
    health: 5
    evasion: 1
    actions:
      - {name: stab, kind: attack, aspect: Finesse, cost: 1}
policies: {pc: attack-weakest, npc: tactical}
""",
        encoding="utf-8",
    )
    data = run_json("sim", str(encounter), "--n", "400", "--seed", "2", "--exact", "--workers", "1")
    exact = data["variants"][0]["exact"]
    p = exact["win_rate"]["pc"]["p"]
    assert exact["win_rate"]["pc"]["exact"].count("/") == 1
    assert abs(p + exact["win_rate"]["npc"]["p"] + exact["win_rate"]["draw"]["p"] - 1) < 1e-12
    assert exact["within_interval"] == {"pc": True, "npc": True}


def test_sim_duel_exact_needs_no_round_cap() -> None:
    """Issue 13: the bundled duel, exactly, with no --max-rounds, both revisions."""
    data = run_json(
        "sim", "duel", "--exact", "--variant", "revision=current", "--variant",
        "revision=legacy", "--n", "200", "--seed", "3", "--workers", "1",
    )  # fmt: skip
    exact = [v["exact"] for v in data["variants"]]
    assert [round(e["win_rate"]["pc"]["p"], 5) for e in exact] == [0.85944, 0.71368]
    assert [e["max_rounds"] for e in exact] == [None, None]
    shown = run("sim", "duel", "--exact", "--n", "50", "--seed", "3", "--workers", "1")
    assert "exact, baseline: P(PC wins) = 0.85944" in shown.stdout
    assert "no round cap" in shown.stdout


def test_sim_exact_refuses_a_large_encounter() -> None:
    result = run("sim", "goblin-ambush", "--n", "2", "--seed", "1", "--exact", "--max-states", "20")
    assert result.exit_code == 2  # a limit met: exit 2 (docs/limits.md; issue 21 found 1)
    assert "too large to solve exactly" in result.stderr


def test_sim_user_errors() -> None:
    bad = run("sim", "orc-bridge", "--variant", "load_reset=sometimes", "--n", "2")
    assert bad.exit_code == 2
    assert "expected one of turn, round" in bad.stderr
    unknown = run("sim", "orc-bridge", "--policy", "clever", "--n", "2")
    assert unknown.exit_code == 2
    assert "no policy named 'clever'" in unknown.stderr
    missing = run("sim", "no-such-encounter", "--n", "2")
    assert missing.exit_code == 2
    assert "Traceback" not in missing.output


def test_sweep_json_text_and_report(tmp_path: Path) -> None:
    args = ("sweep", "orc-bridge", "--param", "orc-brute.aspects.Might=2..4", "--n", "20")
    data = run_json(*args, "--seed", "5", "--workers", "1")
    assert [p["value"] for p in data["points"]] == ["2", "3", "4"]
    assert data["param"] == "orc-brute.aspects.Might"
    assert "best" not in data
    assert "crossing" not in data  # only with --target
    assert data["engine"] == "reference"
    result = run(
        *args, "--seed", "5", "--workers", "1", "--target", "0.5", "--report", str(tmp_path)
    )
    assert result.exit_code == 0, result.output
    assert "The PC win rate crosses 50.0%" in result.stdout
    assert "policies pc=tactical npc=tactical (reference engine)" in result.stdout
    assert (tmp_path / "sweep.png").stat().st_size > 0
    assert "sweep of `orc-brute.aspects.Might`" in (tmp_path / "report.md").read_text("utf-8")


def test_sweep_of_an_option() -> None:
    data = run_json(
        "sweep",
        "orc-bridge",
        "--param",
        "load_reset=turn,round",
        "--n",
        "8",
        "--seed",
        "1",
        "--workers",
        "1",
    )
    assert [p["value"] for p in data["points"]] == ["turn", "round"]


def test_a_refused_exact_run_keeps_its_sampled_results() -> None:
    """Issue 10: "``sim --exact`` that refuses keeps and prints the sampled results it already
    has": Orc Bridge is too large for a small state cap; the sampled table is still printed, the
    refusal says why, and the exit code is 2 (a limit met: docs/limits.md's rule; issue 21 found
    it exiting 1), with no traceback."""
    from typer.testing import CliRunner

    from caltrop.cli import app

    result = CliRunner().invoke(
        app,
        [
            "sim",
            "orc-bridge",
            "--n",
            "40",
            "--seed",
            "1",
            "--workers",
            "1",
            "--exact",
            "--max-states",
            "50",
            "--policies",
            "none",
        ],
    )
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert "--exact refused (the sampled results are shown)" in result.stderr
    assert "PC win" in result.stdout
