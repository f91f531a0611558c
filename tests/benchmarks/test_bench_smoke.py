"""The benchmarks run and their engines agree, at a tiny size. Nothing here times anything.

Speed is measured only by ``python benchmarks/run.py``; a test that asserted wall-clock times
would fail on a busy machine and prove nothing.
"""

from __future__ import annotations

import io

import numpy as np
from benchmarks.harness import Case, measure
from benchmarks.run import SECTIONS, main
from rich.console import Console

from benchmarks import dice

TINY = dice.TableSpec(success_pools=range(1, 4), damage_pools=range(1, 3), evasions=range(0, 6))


def test_tiny_tables_agree_with_icepool() -> None:
    agreement = dice.check_agreement(TINY)
    assert agreement.float_ok
    assert agreement.exact_equal
    assert agreement.idiomatic_equal
    # 3 pools × DC 2–21 and 2 pools × Evasion 0–5
    assert agreement.cells == 3 * 20 + 2 * 6


def test_every_dc_of_the_default_table() -> None:
    spec = dice.TableSpec()
    assert spec.dcs == range(2, 250)  # 1d4+1d8 starts at 2; 60d4+1d8 ends at 248
    assert spec.extra == "1d8"


def test_rollers_roll_five_d4() -> None:
    errors = dice.check_rollers(4000)
    assert set(errors) == {"caltrop", "int64", "int8", "popcount", "lookup"}
    assert all(e <= dice.roll_tolerance(4000) for e in errors.values())
    assert len(dice.random_bits_only(np.random.default_rng(0), 10)) == 20


def test_measure_runs_setup_before_every_repetition() -> None:
    calls: list[str] = []
    timings = measure(
        [
            Case("a", lambda: calls.append("run"), 2, lambda: calls.append("setup"), prime=True),
            Case("b", lambda: None, 1),
        ]
    )
    assert calls == ["setup", "run", "setup", "run"] * 2
    assert timings["a"].repeats == 2
    assert timings["b"].repeats == 1


def test_dice_section_runs_at_a_tiny_size() -> None:
    out = io.StringIO()
    console = Console(file=out, width=160)
    targets = dice.run(console, quick=True, spec=TINY, batches=(2000,))
    text = out.getvalue()
    assert "Odds table" in text
    assert "Rolling 5d4 pools" in text
    names = [t.name for t in targets]
    assert len(names) == 6
    # correctness checks must pass; the speed targets are reported, never asserted
    assert all(t.passed for t in targets if t.check)
    assert all(t.verdict in {"PASS", "MISS"} for t in targets if not t.check)


def test_runner_knows_the_dice_section() -> None:
    assert "dice" in SECTIONS
    assert callable(main)


def test_difficulty_section_runs_at_a_tiny_size() -> None:
    """The difficulty section answers, and its correctness check (the compiled kernel and the
    reference engine estimate the same probability) passes; its time target is only reported."""
    from benchmarks import difficulty

    out = io.StringIO()
    targets = difficulty.run(Console(file=out, width=200), quick=True, names=("duel",))
    text = out.getvalue()
    assert "caltrop difficulty, default" in text
    assert "compiled" in text
    assert [t.check for t in targets] == [False, True]
    assert all(t.passed for t in targets if t.check)
    assert "difficulty" in SECTIONS


def test_points_section_runs_at_a_tiny_size() -> None:
    """The Action Point section plays both engines on both examples and its correctness check
    (the kernel's PC win rate inside the engine's interval) passes; its speed is only
    reported."""
    from benchmarks import points

    out = io.StringIO()
    sizes = points.Sizes(reference=4, cold=20, warm=40)
    targets = points.run(Console(file=out, width=220), sizes=sizes, names=("bridge-duel-ap",))
    text = out.getvalue()
    assert "Bridge Duel" in text
    assert "kernel warm" in text
    assert [t.check for t in targets] == [True, False]
    assert targets[0].passed, targets[0].measured
    assert "points" in SECTIONS
