"""The server's loopback load test runs at a tiny size (nothing here times anything)."""

from __future__ import annotations

import pytest

from benchmarks import server


def test_the_load_test_runs_both_servers(capsys: pytest.CaptureFixture[str]) -> None:
    server.main(["--tables", "2", "--commands", "3"])
    out = capsys.readouterr().out
    assert "2 tables × 5 sockets, sqlite" in out
    assert "caltrop: 6 commands in" in out
    assert "baseline (FastAPI WebSocket echo ×5): 6 commands in" in out
