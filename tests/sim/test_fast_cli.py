"""The fast path as a simulator run (:mod:`caltrop.sim.fast.records`), checked against
:func:`caltrop.sim.fast.simulate` itself."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from caltrop.content import load_encounter
from caltrop.core.model import Side
from caltrop.sim.fast import FastPathError, FastResult, simulate
from caltrop.sim.fast.records import simulate_fast, to_records
from caltrop.sim.overrides import Variant, parse_variant
from caltrop.sim.runner import DRAW, NPC_WINS, PC_WINS, SimulationError

VARIANTS = ("load_reset=turn", "load_reset=round")


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
    with pytest.raises(FastPathError, match="Action Load economy only"):
        simulate_fast(load_encounter("bridge-duel-ap"), [], n=5, seed=1)
    baseline = simulate_fast(definition, [], n=5, seed=1)
    assert [r.name for r in baseline.runs] == ["baseline"]
