"""The in-process command benchmark runs at a tiny size, against a baseline too (nothing here
times anything: it checks that every figure is printed and the commands reached the sockets)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import command_cpu

SRC = Path(__file__).resolve().parents[2] / "src"


def test_the_command_benchmark_prints_both_and_their_ratio(
    capsys: pytest.CaptureFixture[str],
) -> None:
    command_cpu.main(["--commands", "3", "--rounds", "1", "--baseline", str(SRC)])
    out = capsys.readouterr().out
    assert "one table of goblin-ambush, 5 subscribers, 3 commands a run" in out
    this = next(line for line in out.splitlines() if line.strip().startswith("this"))
    # each command: its answer, then an events message and a view on each of the 5 sockets
    assert "(11.0 messages)" in this
    assert "gm: add at N creatures (ms): 10:" in this
    assert "baseline / this: commit" in out
