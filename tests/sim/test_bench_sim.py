"""The simulator's benchmark section runs at a tiny size (nothing is timed against a target here)."""

from __future__ import annotations

import io

import pytest
from benchmarks.run import SECTIONS
from rich.console import Console

from benchmarks import sim


def test_sim_section_runs_and_reports_its_target() -> None:
    out = io.StringIO()
    calls: list[int] = []

    def fake_fast(n: int) -> float:
        calls.append(n)
        return 0.5

    sim.COMPARISONS["stub engine"] = ("simple", fake_fast)
    try:
        targets = sim.run(
            Console(file=out, width=160), quick=True, sizes={"tactical": 2, "simple": 2}
        )
    finally:
        del sim.COMPARISONS["stub engine"]
    text = out.getvalue()
    assert "goblin-ambush" in text
    assert "stub engine" in text
    assert calls
    assert [t.required for t in targets] == ["≥ 2,000 encounters/s", "≥ 1,000 encounters/s"]
    assert "tactical / simple on" in text  # the ratio, from the same run, with the load
    assert "load average before" in text
    assert "simple policy" in targets[0].name
    assert "tactical policy" in targets[0].measured
    assert all(t.verdict in {"PASS", "MISS"} for t in targets)
    assert "sim" in SECTIONS


def test_the_head_to_head_benchmark_reports_paired_figures() -> None:
    from benchmarks.search import head_to_head

    r = head_to_head("duel", "pc", 4, 1, 1, 8)
    assert 0.0 <= r["tactical"] <= 1.0
    assert r["diff"] == pytest.approx(r["search"] - r["tactical"])
    assert 0.0 <= r["p"] <= 1.0
    assert r["searched"] >= r["overruled"] >= 0
