"""``caltrop sim --fast`` and ``caltrop sweep --fast``: the fast path behind the simulator's CLI
(:mod:`caltrop.sim.fast.records`), checked against :func:`caltrop.sim.fast.simulate` itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from caltrop.content import load_encounter
from caltrop.core.model import Side
from caltrop.sim.fast import FastResult, simulate
from caltrop.sim.fast.records import simulate_fast, to_records
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
        ("sim", ["--policy", "tactical"], "one fixed tactic"),
        ("sim", ["--policy", "pc=random"], "one fixed tactic"),
        ("sim", ["--dask", "tcp://x:1"], "does not use --dask"),
        ("sim", ["--exact"], "--exact solves the reference engine's tactics"),
        ("sweep", ["--param", "load_reset=turn,round", "--policy", "tactical"], "one fixed tactic"),
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
