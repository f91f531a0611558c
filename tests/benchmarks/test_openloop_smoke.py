"""The open-loop load test runs at a tiny size, the server with the chance of winning on beside
the one without it (issue 23 item 4; nothing here times anything)."""

from __future__ import annotations

import pytest

from benchmarks import openloop


def test_the_open_loop_test_runs_the_chance_variant(capsys: pytest.CaptureFixture[str]) -> None:
    openloop.main(["--tables", "1", "--sockets", "2", "--rates", "4", "--seconds", "1"])
    out = capsys.readouterr().out
    assert "  caltrop " in out
    assert "  chance " in out
    assert "the server's without it" in out
    assert "  echo " in out
