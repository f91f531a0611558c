"""``docs/limits.md`` lists every input limit (issue 10): its numbers are the code's."""

from __future__ import annotations

from pathlib import Path

import pytest

from caltrop.cli import inputs, sim_commands
from caltrop.content import logfile
from caltrop.dice.faces import MAX_FACE_DIGITS
from caltrop.dice.parse import (
    MAX_DEPTH,
    MAX_DICE,
    MAX_LENGTH,
    MAX_NUMBER,
    MAX_SIDES,
    MAX_SPAN,
    MAX_TERMS,
)
from caltrop.sim import overrides

LIMITS = (Path(__file__).resolve().parents[1] / "docs" / "limits.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (MAX_LENGTH, "| 1,000 characters |"),
        (MAX_DEPTH, "| 16 deep |"),
        (MAX_TERMS, "| 100 |"),
        (MAX_DICE, "| dice in an expression | 1,000 |"),
        (MAX_SIDES, "| 1 to 1,000 |"),
        (MAX_SPAN + 1, "| 20,001 |"),
        (MAX_NUMBER, "| 0 to 1,000,000 |"),
        (MAX_FACE_DIGITS, "| digits of a face | 4 |"),
        (inputs.MAX_TOTAL, "±1,000,000,000"),
        (inputs.MAX_POOL_NUMBER, "±1,000 (cost 0 to 1,000)"),
        (inputs.MAX_NAME, "1 to 40 printable characters"),
        (inputs.MAX_COLUMNS, "| 1,000 columns"),
        (logfile.MAX_LOG_BYTES, "20,971,520 bytes"),
        (logfile.MAX_JSON_DEPTH, "| 64 deep |"),
        (logfile.MAX_INT_DIGITS, "| 40 digits |"),
        (sim_commands.MAX_N, "| 1 to 1,000,000 |"),
        (sim_commands.MAX_ENCOUNTERS, "| 2,000,000 |"),
        (sim_commands.WORKERS_PER_CPU, "| 4 per CPU |"),
        (sim_commands.MAX_ROUNDS, "| 1 to 10,000 |"),
        (sim_commands.MAX_STATES, "| 1 to 2,000,000 |"),
        (sim_commands.DASK_CONNECT_SECONDS, "reachable in 5 s"),
        (overrides.MAX_VALUE, "ASCII digits, ±1,000,000"),
        (overrides.MAX_SWEEP_VALUES, "| 1,000, counted before"),
    ],
)
def test_each_limit_is_written_as_the_code_has_it(value: float, written: str) -> None:
    assert written in LIMITS
    number = f"{value:,}" if isinstance(value, int) else f"{value:g}"
    assert number in written, f"{written!r} does not say {number}"


def test_the_seed_limits_are_two_to_the_64_minus_one() -> None:
    assert inputs.MAX_SEED == sim_commands.MAX_SEED == 2**64 - 1
    assert LIMITS.count("0 to 2⁶⁴ − 1") == 2
