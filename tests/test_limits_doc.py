"""``docs/limits.md`` lists every input limit (issue 10): its numbers are the code's."""

from __future__ import annotations

from pathlib import Path

import pytest

from caltrop.cli import inputs, serve, sim_commands
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
from caltrop.store import service
from caltrop.web import builder_runs, limits, memory, protocol, ratelimit, settings
from caltrop.web.routes import builder

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
        (limits.DEFAULT_BODY_BYTES, "| 16 KiB (16,384 bytes) |"),
        (limits.UPLOAD_BODY_BYTES, "| 8,454,144 bytes (8 MiB of files, 64 KiB"),
        (limits.PAGE_UPLOAD_BODY_BYTES, "| 21,037,056 bytes (the log limit and 64 KiB"),
        (limits.UPLOAD_SLACK_BYTES // 1024, "64 KiB of multipart framing"),
        (limits.BUILDER_BODY_BYTES, "| 2,097,152 bytes (a content file's limit"),
        (builder_runs.MAX_WAITING, "4 waiting or running at most"),
        (builder.MAX_FORM_FIELDS, "| fields in one builder form | 20,000 |"),
        (service.MAX_UPLOAD_BYTES // 2**20, "(8 MiB of files"),
        (protocol.HEADER_SECONDS, "| 10 s | `408`"),
        (protocol.MAX_HEADER_BYTES, "| 64 KiB (65,536 bytes) | `431`"),
        (protocol.BODY_SECONDS, "| 60 s | closed (the route"),
        (serve.KEEP_ALIVE_SECONDS, "| an idle kept-alive connection | 30 s |"),
        (settings.NEW_TABLES_BURST, "| 20 at once, then 6 a minute"),
        (settings.NEW_TABLES_PER_MINUTE, "then 6 a minute (`caltrop serve"),
        (ratelimit.MAX_ADDRESSES, "| 10,000 (the least recently seen"),
        (service.MAX_CACHED_ENCOUNTERS, "| 500, the least recently used"),
        (memory.TRIM_SECONDS, "| given back to the system 3 s after"),
        (memory.FULL_PASS_SOCKETS, "the full pass once 100 sockets"),
    ],
)
def test_each_limit_is_written_as_the_code_has_it(value: float, written: str) -> None:
    assert written in LIMITS
    number = f"{value:,}" if isinstance(value, int) else f"{value:g}"
    assert number in written, f"{written!r} does not say {number}"


def test_the_seed_limits_are_two_to_the_64_minus_one() -> None:
    assert inputs.MAX_SEED == sim_commands.MAX_SEED == 2**64 - 1
    assert LIMITS.count("0 to 2⁶⁴ − 1") == 2


def test_the_log_route_takes_the_log_limit() -> None:
    assert limits.route_of("POST", "/api/tables/import").body_bytes == logfile.MAX_LOG_BYTES
    assert "`POST /api/tables/import` (an exported log) | the log limit, 20,971,520 bytes" in LIMITS
