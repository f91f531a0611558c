"""Shared helpers for the CLI tests: run ``caltrop`` in-process with typer's CliRunner."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from caltrop.cli import app

Invoke = Callable[..., Result]


@pytest.fixture
def invoke() -> Invoke:
    """``invoke("roll", "5d4", columns=80)`` → the Result (stdout and stderr kept apart)."""

    def run(*args: str, columns: int = 80) -> Result:
        runner = CliRunner(env={"COLUMNS": str(columns), "NO_COLOR": "1"})
        return runner.invoke(app, list(args))

    return run


@pytest.fixture
def invoke_json(invoke: Invoke) -> Callable[..., dict[str, Any]]:
    """Run with ``--json`` appended, check exit code 0, and parse stdout."""

    def run(*args: str) -> dict[str, Any]:
        result = invoke(*args, "--json")
        assert result.exit_code == 0, result.stderr
        data: dict[str, Any] = json.loads(result.stdout)
        return data

    return run
