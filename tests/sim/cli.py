"""Running ``caltrop sim`` / ``caltrop sweep`` in-process for the tests."""

from __future__ import annotations

import json
from typing import Any

from typer.testing import CliRunner, Result

from caltrop.cli import app


def run(*args: str) -> Result:
    """The CLI with ``args``, on a wide, colourless terminal."""
    return CliRunner(env={"COLUMNS": "160", "NO_COLOR": "1"}).invoke(app, list(args))


def run_json(*args: str) -> dict[str, Any]:
    """The CLI's ``--json`` output of a run that must succeed."""
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data
