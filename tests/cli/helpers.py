"""Assertions shared by the CLI tests."""

from __future__ import annotations

from itertools import product

from typer.testing import Result


def assert_user_error(result: Result, *fragments: str) -> None:
    """Exit code 2, every fragment in the red message on stderr, no traceback anywhere."""
    assert result.exit_code == 2, (result.stdout, result.stderr)
    for fragment in fragments:
        assert fragment in result.stderr
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def brute_force(*sides: int) -> dict[int, int]:
    """Count every total of the given dice by enumerating all faces (the independent oracle)."""
    counts: dict[int, int] = {}
    for faces in product(*(range(1, s + 1) for s in sides)):
        counts[sum(faces)] = counts.get(sum(faces), 0) + 1
    return counts
