"""``caltrop sim --fast`` and ``caltrop sweep --fast``: the fast path behind the simulator's CLI
(:mod:`caltrop.sim.fast.records`), checked against :func:`caltrop.sim.fast.simulate` itself; and
``--fast --policy tactical``: the compiled tactical kernel (:mod:`caltrop.sim.fast.tactical`),
checked against the library, the reference engine (in distribution) and the exact answer, with
its fallback to the reference engine said in one line."""

from __future__ import annotations

import json
import math
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
import pytest

from caltrop.cli import sim_commands
from caltrop.content import load_encounter
from caltrop.core.model import Side
from caltrop.sim.fast import FastResult, simulate
from caltrop.sim.fast.records import simulate_fast, to_records
from caltrop.sim.fast.tactical import simulate_tactical
from caltrop.sim.overrides import Variant, parse_variant
from caltrop.sim.runner import DRAW, NPC_WINS, PC_WINS, SimulationError
from tests.sim.cli import run, run_json

VARIANTS = ("load_reset=turn", "load_reset=round")


def sim_args(n: int, seed: int) -> list[str]:
    args = ["sim", "goblin-ambush", "--fast"]
    for v in VARIANTS:
        args += ["--variant", v]
    # the comparison under the engine's tactics is test_across.py's: only the fast path here
    return [*args, "--n", str(n), "--seed", str(seed), "--policies", "fast"]


# -- the command ----------------------------------------------------------------------------------


def test_sim_fast_json_is_the_library_s_result() -> None:
    data = run_json(*sim_args(4000, 7))
    assert data["policies"] == {"pc": "fast", "npc": "fast"}
    assert data["engine"] == "fast"
    assert data["seed"] == 7
    assert [v["name"] for v in data["variants"]] == list(VARIANTS)
    definition = load_encounter("goblin-ambush")
    for entry, text in zip(data["variants"], VARIANTS, strict=True):
        assert entry["n"] == 4000
        lib = simulate(parse_variant(text).apply(definition), 4000, 7)
        for side in ("pc", "npc"):
            w = entry["win_rate"][side]
            assert w["p"] == lib.win_rate(side)
            assert w["lo"] <= w["p"] <= w["hi"]
        assert {"mean", "median", "p90"} <= set(entry["rounds"])
        assert entry["rounds"]["mean"] == pytest.approx(float(lib.rounds.mean()), abs=1e-12)
        assert entry["rounds"]["median"] == float(np.median(lib.rounds))
    # the variants differ (round reset helps the PCs here), so the pairing is visible
    pc = [v["win_rate"]["pc"]["p"] for v in data["variants"]]
    assert pc[0] != pc[1]
    wins = [d for d in data["differences"] if d["measure"] == "win_rate"]
    assert {(d["a"], d["b"], d["side"]) for d in wins} == {
        (VARIANTS[0], VARIANTS[1], "pc"),
        (VARIANTS[0], VARIANTS[1], "npc"),
    }
    for d in wins:
        assert {"diff", "lo", "hi"} <= set(d)
        rates = [v["win_rate"][d["side"]]["p"] for v in data["variants"]]
        assert d["diff"] == pytest.approx(rates[1] - rates[0], abs=1e-12)
        assert d["lo"] <= d["diff"] <= d["hi"]


def test_sim_fast_json_does_not_depend_on_workers() -> None:
    # 20,000 per variant: several kernel calls (first=…) per variant, on 1 or 2 numba threads
    one = run_json(*sim_args(20_000, 11), "--workers", "1")
    two = run_json(*sim_args(20_000, 11), "--workers", "2")
    assert one == two
    definition = load_encounter("goblin-ambush")
    for entry, text in zip(one["variants"], VARIANTS, strict=True):
        lib = simulate(parse_variant(text).apply(definition), 20_000, 11)
        assert entry["win_rate"]["pc"]["p"] == lib.win_rate("pc")
    other_seed = run_json(*sim_args(20_000, 12), "--workers", "1")
    assert other_seed["variants"] != one["variants"]


def test_sim_fast_text_and_report(tmp_path: Path) -> None:
    result = run(*sim_args(500, 3), "--report", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "tactic: the fast path's (attack the weakest, hinder to save an ally)" in result.stdout
    assert "Win rate (Wilson 95%)" in result.stdout
    assert "Paired differences" in result.stdout
    assert (tmp_path / "report.md").stat().st_size > 0


def test_sweep_fast_points_are_the_library_s() -> None:
    data = run_json(
        "sweep",
        "goblin-ambush",
        "--fast",
        "--param",
        "goblin.aspects.Finesse=2..4",
        "--n",
        "2000",
        "--seed",
        "1",
    )
    assert data["policies"] == {"pc": "fast", "npc": "fast"}
    assert data["engine"] == "fast"
    assert [p["value"] for p in data["points"]] == ["2", "3", "4"]
    definition = load_encounter("goblin-ambush")
    rates = []
    for point in data["points"]:
        changed = parse_variant(f"goblin.aspects.Finesse={point['value']}").apply(definition)
        goblins = [c for c in changed.participants if c.id in ("goblin-1", "goblin-2")]
        assert [c.aspects["Finesse"] for c in goblins] == [int(point["value"])] * 2
        lib = simulate(changed, 2000, 1)
        assert point["n"] == 2000
        for side in ("pc", "npc"):
            assert point["win_rate"][side]["p"] == lib.win_rate(side)
        rates.append(lib.win_rate("pc"))
    assert len(set(rates)) > 1  # the parameter reached the fast path
    assert "best" not in data


def test_fast_plays_an_action_point_encounter() -> None:
    data = run_json("sim", "bridge-duel-ap", "--fast", "--n", "3000", "--seed", "1")
    assert data["engine"] == "fast"
    lib = simulate(load_encounter("bridge-duel-ap"), 3000, 1)
    (entry,) = data["variants"]
    for side in ("pc", "npc"):
        assert entry["win_rate"][side]["p"] == lib.win_rate(side)
    assert entry["rounds"]["mean"] == pytest.approx(float(lib.rounds.mean()), abs=1e-12)


def test_fast_names_the_variant_it_cannot_play() -> None:
    result = run(
        "sim",
        "goblin-ambush",
        "--fast",
        "--variant",
        "chk:initiative=check,initiative_aspect=Finesse",
        "--n",
        "5",
    )
    assert result.exit_code == 2
    assert "variant chk:" in result.stderr
    assert "initiative" in result.stderr
    assert "drop --fast" in result.stderr
    assert "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit)


@pytest.mark.parametrize(
    ("command", "extra", "message"),
    [
        ("sim", ["--policy", "pc=random"], "not pc=random npc=tactical"),
        ("sim", ["--policy", "attack-weakest"], "plays tactical on both sides"),
        ("sim", ["--policy", "search"], "drop --fast to play those on the reference engine"),
        ("sim", ["--policy", "clever"], "no policy named 'clever'"),
        ("sim", ["--dask", "tcp://x:1"], "does not use --dask"),
        ("sim", ["--policy", "tactical", "--dask", "tcp://x:1"], "does not use --dask"),
        ("sim", ["--exact"], "--exact solves the reference engine's tactics"),
        ("sweep", ["--param", "load_reset=turn,round", "--policy", "npc=random"], "npc=random"),
        ("sweep", ["--param", "load_reset=turn,round", "--dask", "tcp://x:1"], "--dask"),
    ],
)
def test_fast_refuses_options_it_cannot_honour(
    command: str, extra: list[str], message: str
) -> None:
    result = run(command, "goblin-ambush", "--fast", "--n", "5", "--seed", "1", *extra)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output


# -- --fast --policy tactical: the compiled tactical kernel -----------------------------------------

#: Two-sample z of the compiled-against-reference checks: 99.9% two-sided.
Z_999 = NormalDist().inv_cdf(0.9995)


def compiled_args(encounter: str, n: int, seed: int, *extra: str) -> list[str]:
    return ["sim", encounter, "--fast", "--policy", "tactical", "--n", str(n), "--seed", str(seed),
            *extra]  # fmt: skip


def test_fast_policy_tactical_plays_the_compiled_kernel() -> None:
    data = run_json(*compiled_args("goblin-ambush", 3000, 5))
    assert data["engine"] == "compiled-tactical"
    assert "engine_note" not in data
    assert data["policies"] == {"pc": "tactical", "npc": "tactical"}
    (entry,) = data["variants"]
    # the library's compiled run with the same seed, encounter for encounter
    lib = simulate_tactical(load_encounter("goblin-ambush"), [Variant("baseline")], n=3000, seed=5)
    records = lib.runs[0].records
    for side in ("pc", "npc"):
        assert entry["win_rate"][side]["p"] == float(records.wins(side).mean())
    assert entry["rounds"]["mean"] == pytest.approx(float(records.rounds.mean()), abs=1e-12)
    text = run(*compiled_args("goblin-ambush", 200, 5))
    assert text.exit_code == 0, text.output
    assert "seed 5, tactic: tactical (compiled)" in text.stdout
    assert "reference engine" not in text.output


def test_fast_policy_tactical_reproduces_its_figures() -> None:
    # the same seed gives the same figures, whatever --workers (numba threads) says
    one = run_json(*compiled_args("goblin-ambush", 6000, 21, "--workers", "1"))
    again = run_json(*compiled_args("goblin-ambush", 6000, 21, "--workers", "1"))
    two = run_json(*compiled_args("goblin-ambush", 6000, 21, "--workers", "2"))
    assert one == again == two
    other = run_json(*compiled_args("goblin-ambush", 6000, 22))
    assert other["variants"][0]["win_rate"] != one["variants"][0]["win_rate"]


def _z(a: dict[str, Any], b: dict[str, Any], side: str) -> float:
    """Two-sample z of the two runs' win rates of ``side`` (each with its own variance)."""
    pa, pb = a["win_rate"][side]["p"], b["win_rate"][side]["p"]
    se = math.sqrt(pa * (1 - pa) / a["n"] + pb * (1 - pb) / b["n"])
    return abs(pa - pb) / se


def _z_rounds(a: dict[str, Any], b: dict[str, Any]) -> float:
    """Two-sample z of the mean rounds; each SE read back from the run's normal 95% interval."""
    z95 = NormalDist().inv_cdf(0.975)

    def mean_se(v: dict[str, Any]) -> tuple[float, float]:
        iv = v["rounds_mean_interval"]
        return iv["mean"], (iv["hi"] - iv["lo"]) / (2 * z95)

    (ma, sa), (mb, sb) = mean_se(a), mean_se(b)
    return abs(ma - mb) / math.hypot(sa, sb)


def test_fast_policy_tactical_agrees_with_the_reference_engine() -> None:
    # the same choices on other dice streams: the same distribution. 300 reference encounters
    # (~2 s) against 20,000 compiled ones, two-sample z at 99.9% (|z| < 3.29) on each side's win
    # rate and the mean rounds; the fight is contested, so a wrong policy would show
    reference = run_json("sim", "goblin-ambush", "--policy", "tactical", "--n", "300",
                         "--seed", "5")  # fmt: skip
    compiled = run_json(*compiled_args("goblin-ambush", 20_000, 5))
    assert (reference["engine"], compiled["engine"]) == ("reference", "compiled-tactical")
    (ref,) = reference["variants"]
    (fast,) = compiled["variants"]
    for side in ("pc", "npc"):
        assert _z(ref, fast, side) < Z_999, (side, ref["win_rate"], fast["win_rate"])
    assert _z_rounds(ref, fast) < Z_999, (ref["rounds_mean_interval"], fast["rounds_mean_interval"])
    assert 0.05 < fast["win_rate"]["pc"]["lo"] < fast["win_rate"]["pc"]["hi"] < 0.95


def test_fast_policy_tactical_against_the_exact_answer() -> None:
    # the duel solved exactly under tactical (--exact) and sampled by the kernel: the exact
    # P(PC wins) lies within 3.29 standard errors of 40,000 compiled encounters
    data = run_json(*compiled_args("duel", 40_000, 3, "--exact"))
    assert data["engine"] == "compiled-tactical"
    (entry,) = data["variants"]
    exact = entry["exact"]["win_rate"]["pc"]["p"]
    p = entry["win_rate"]["pc"]["p"]
    assert abs(p - exact) < Z_999 * math.sqrt(exact * (1 - exact) / 40_000), (p, exact)


def test_fast_policy_tactical_plays_an_action_point_encounter_compiled() -> None:
    # issue 23 item 5: the Action Point kernel plays it (no line says another engine did), its
    # figures the library's own on the same seed
    args = ["--n", "30", "--seed", "2", "--workers", "1"]
    result = run("sim", "bridge-duel-ap", "--fast", "--policy", "tactical", *args, "--json")
    assert result.exit_code == 0, result.output
    assert "reference engine" not in result.stderr
    data = json.loads(result.stdout)
    assert data["engine"] == "compiled-tactical"
    lib = simulate_tactical(load_encounter("bridge-duel-ap"), [Variant("baseline")], n=30, seed=2)
    (entry,) = data["variants"]
    assert entry["win_rate"]["pc"]["p"] == float(lib.runs[0].records.wins("pc").mean())


def test_fast_policy_tactical_falls_back_on_an_action_point_rule_it_cannot_play() -> None:
    # R38 multi_weapon_halving: each is not the Action Point kernel's: the reference engine
    # plays, and one line says why; its figures are the reference engine's own, roll for roll
    args = ["--n", "3", "--seed", "2", "--workers", "1", "--variant", "e:multi_weapon_halving=each"]
    result = run("sim", "bridge-duel-ap", "--fast", "--policy", "tactical", *args, "--json")
    assert result.exit_code == 0, result.output
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("--fast --policy tactical: played by the reference engine (slower)")
    assert "multi_weapon_halving: each" in line
    data = json.loads(result.stdout)
    assert data["engine"] == "reference"
    assert "multi_weapon_halving: each" in data.pop("engine_note")
    reference = run_json("sim", "bridge-duel-ap", "--policy", "tactical", *args)
    assert data == reference


def test_fast_policy_tactical_falls_back_on_an_option_it_cannot_play() -> None:
    result = run(*compiled_args("orc-bridge", 4, 1, "--workers", "1", "--variant",
                                "chk:initiative=check,initiative_aspect=Finesse", "--json"))  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "variant chk: " in result.stderr
    assert "initiative: gm" in result.stderr
    assert "reference engine" in json.loads(result.stdout)["engine_note"]
    assert "Traceback" not in result.output


def test_sweep_fast_policy_tactical_is_compiled() -> None:
    data = run_json("sweep", "goblin-ambush", "--fast", "--policy", "tactical", "--param",
                    "load_reset=turn,round", "--n", "2000", "--seed", "4")  # fmt: skip
    assert data["engine"] == "compiled-tactical"
    definition = load_encounter("goblin-ambush")
    variants = [parse_variant(f"load_reset={v}") for v in ("turn", "round")]
    lib = simulate_tactical(definition, variants, n=2000, seed=4)
    for point, run_ in zip(data["points"], lib.runs, strict=True):
        assert point["win_rate"]["pc"]["p"] == float(run_.records.wins("pc").mean())


def test_fast_policy_tactical_reuses_its_run_across_tactics(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the tactical row is the compiled run itself (its n); the engine's other tactics play at
    # most ACROSS_ENGINE_N encounters per variant, as after --fast alone
    monkeypatch.setattr(sim_commands, "ACROSS_ENGINE_N", 40)
    data = run_json("sim", "goblin-ambush", "--fast", "--policy", "tactical", "--variant",
                    "load_reset=turn", "--variant", "load_reset=round", "--n", "3000", "--seed",
                    "6", "--policies", "tactical,attack-weakest")  # fmt: skip
    assert data["engine"] == "compiled-tactical"
    rows = {r["policy"]: r for r in data["across_tactics"]["rows"]}
    assert (rows["tactical"]["n"], rows["attack-weakest"]["n"]) == (3000, 40)
    (mine,) = [d for d in data["differences"] if d["measure"] == "win_rate" and d["side"] == "pc"]
    assert rows["tactical"]["diff"] == mine["diff"]


# -- the conversion -------------------------------------------------------------------------------


def test_to_records_maps_every_field() -> None:
    def table(*rows: list[int]) -> np.ndarray[Any, np.dtype[np.int32]]:
        return np.array(rows, dtype=np.int32)

    fast = FastResult(
        seed=1,
        first=0,
        ids=("a", "b"),
        sides=(Side.PC, Side.NPC),
        winner=np.array([0, 1, -1], np.int8),
        rounds=np.array([3, 5, 100], np.int32),
        damage_dealt=table([7, 2], [1, 9], [4, 4]),
        team_actions=table([0, 1], [2, 0], [3, 3]),
        load_spent=table([5, 6], [7, 8], [9, 10]),
        down=np.array([[False, True], [True, False], [False, False]]),
        health=table([8, 0], [0, 3], [6, 2]),
    )
    rec = to_records(fast)
    assert rec.winner.tolist() == [PC_WINS, NPC_WINS, DRAW]
    assert rec.winner.dtype == np.int8
    assert rec.timeout.tolist() == [False, False, True]
    assert rec.rounds.tolist() == [3, 5, 100]
    assert rec.steps.tolist() == [0, 0, 0]
    assert rec.cost.tolist() == [[5, 6], [7, 8], [9, 10]]
    assert rec.dealt.tolist() == [[7, 2], [1, 9], [4, 4]]
    assert rec.reactions.tolist() == rec.hinders.tolist() == [[0, 1], [2, 0], [3, 3]]
    assert rec.helps.tolist() == [[0, 0], [0, 0], [0, 0]]
    assert rec.team.tolist() == [[0, 1], [2, 0], [3, 3]]
    assert rec.down.tolist() == [[False, True], [True, False], [False, False]]
    assert rec.health.tolist() == [[8, 0], [0, 3], [6, 2]]
    assert rec.wins("pc").tolist() == [1.0, 0.0, 0.0]
    assert rec.wins("npc").tolist() == [0.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="details=True"):
        to_records(simulate(load_encounter("orc-bridge"), 3, 1))
    with pytest.raises(ValueError, match="participants"):
        to_records(fast, load_encounter("orc-bridge"))


def test_to_records_of_a_real_run_adds_up() -> None:
    definition = load_encounter("goblin-ambush")
    # few rounds: some fights are undecided (draws, timeouts) beside wins for both sides
    fast = simulate(definition, 3000, 5, max_rounds=3, details=True)
    rec = to_records(fast, definition)
    assert rec.n == 3000
    assert set(rec.winner.tolist()) == {DRAW, PC_WINS, NPC_WINS}
    assert np.array_equal(rec.winner == PC_WINS, fast.winner == 0)
    assert np.array_equal(rec.winner == NPC_WINS, fast.winner == 1)
    assert np.array_equal(rec.timeout, rec.winner == DRAW)
    assert np.array_equal(rec.rounds, fast.rounds)
    assert rec.rounds.max() == 3
    pcs = np.array([c.side is Side.PC for c in definition.participants])
    start = np.array([c.health for c in definition.participants])
    lost = start[None, :] - rec.health
    assert np.array_equal(lost[:, ~pcs].sum(axis=1), rec.dealt[:, pcs].sum(axis=1))
    assert np.array_equal(lost[:, pcs].sum(axis=1), rec.dealt[:, ~pcs].sum(axis=1))
    assert np.array_equal(rec.down, rec.health <= 0)
    assert rec.down[rec.winner == PC_WINS][:, ~pcs].all()
    assert rec.down[rec.winner == NPC_WINS][:, pcs].all()
    assert fast.load_spent is not None
    assert np.array_equal(rec.cost, fast.load_spent)
    assert rec.hinders.sum() > 0
    assert (rec.cost >= rec.hinders).all()


# -- simulate_fast --------------------------------------------------------------------------------


def test_simulate_fast_is_split_independent_and_paired() -> None:
    definition = load_encounter("orc-bridge")
    variants = [parse_variant(v) for v in VARIANTS]
    seen: list[int] = []
    whole = simulate_fast(definition, variants, n=1000, seed=4, progress=seen.append)
    assert sum(seen) == 2000
    split = simulate_fast(definition, variants, n=1000, seed=4, chunk=300, threads=1)
    assert whole.policies == {"pc": "fast", "npc": "fast"}
    assert whole.extra == {"engine": "fast"}
    assert whole.encounter == definition.name
    for a, b, variant in zip(whole.runs, split.runs, variants, strict=True):
        assert a.name == variant.name
        assert a.definition.ruleset.load_reset.value == variant.overrides[0].value
        for field in a.records.__dataclass_fields__:
            assert np.array_equal(getattr(a.records, field), getattr(b.records, field)), field
        lib = simulate(variant.apply(definition), 1000, 4, details=True)
        assert np.array_equal(a.records.dealt, lib.damage_dealt)
    # progress in chunks of 300: each variant advances in turn, 300, 300, 300 then 100
    chunks: list[int] = []
    simulate_fast(definition, variants, n=1000, seed=4, chunk=300, progress=chunks.append)
    assert chunks == [300, 300, 300, 300, 300, 300, 100, 100]


def test_simulate_fast_checks_its_arguments() -> None:
    definition = load_encounter("orc-bridge")
    with pytest.raises(SimulationError, match="--n"):
        simulate_fast(definition, [], n=0, seed=1)
    with pytest.raises(SimulationError, match="--seed"):
        simulate_fast(definition, [], n=5, seed=-1)
    with pytest.raises(SimulationError, match="must differ"):
        simulate_fast(definition, [Variant("x"), Variant("x")], n=5, seed=1)
    points = simulate_fast(load_encounter("bridge-duel-ap"), [], n=5, seed=1)
    records = points.runs[0].records
    assert records.hinders.sum() == 0  # seed 004's Blocks are reactions, not hinders
    assert np.array_equal(
        records.reactions,
        simulate(load_encounter("bridge-duel-ap"), 5, 1, details=True).team_actions,
    )
    baseline = simulate_fast(definition, [], n=5, seed=1)
    assert [r.name for r in baseline.runs] == ["baseline"]
