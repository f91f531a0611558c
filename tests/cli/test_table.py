"""``caltrop table``: the GM's odds reference, P(success) by pool × DC and damage by pool × Evasion.

Every value is checked against :func:`caltrop.dice.distribution` — a separate code path from
:mod:`caltrop.dice.tables`, which the command uses.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from caltrop.dice import distribution
from tests.cli.conftest import Invoke
from tests.cli.helpers import assert_user_error

JsonInvoke = Callable[..., dict[str, Any]]


def _median_top(expr: str) -> int:
    """The largest t with P(total ≥ t) ≥ 1/2, found by walking down from the maximum."""
    d = distribution(expr)
    return max(t for t in d.outcomes if d.p_at_least_exact(t) >= Fraction(1, 2))


def test_default_ranges_follow_the_pools(invoke_json: JsonInvoke) -> None:
    """DCs from the first DC 1d4 can miss (2) to 12d4's median; Evasions one lower."""
    data = invoke_json("table")
    assert data["pools"] == list(range(1, 13))
    top = _median_top("12d4")
    assert top == 30  # 12d4 is symmetric about 30: P(≥30) > 1/2 > P(≥31)
    assert data["dcs"] == list(range(2, top + 1))
    assert data["evasions"] == list(range(1, top))
    assert data["extra"] is None


def test_json_values_match_the_distributions(invoke_json: JsonInvoke) -> None:
    data = invoke_json("table", "--max-pool", "8", "--extra", "1d8")
    assert data["extra"] == "1d8"
    assert data["dcs"][0] == distribution("1d4+1d8").min + 1
    assert data["dcs"][-1] == _median_top("8d4+1d8")
    for i, n in enumerate(data["pools"]):
        d = distribution(f"{n}d4+1d8")
        for j, dc in enumerate(data["dcs"]):
            assert data["success"][i][j] == pytest.approx(float(d.p_at_least_exact(dc)), abs=1e-12)
        for j, ev in enumerate(data["evasions"]):
            expected = float(d.expected_damage_exact(ev))
            assert data["expected_damage"][i][j] == pytest.approx(expected, abs=1e-12)


def test_exact_json(invoke_json: JsonInvoke) -> None:
    data = invoke_json(
        "table", "--max-pool", "4", "--max-dc", "12", "--max-evasion", "6", "--exact"
    )
    for i, n in enumerate(data["pools"]):
        d = distribution(f"{n}d4")
        for j, dc in enumerate(data["dcs"]):
            assert Fraction(data["success_exact"][i][j]) == d.p_at_least_exact(dc)
        for j, ev in enumerate(data["evasions"]):
            assert Fraction(data["expected_damage_exact"][i][j]) == d.expected_damage_exact(ev)


def _grid(out: str, title: str) -> dict[tuple[int, int], str]:
    """Parse the rich grid blocks whose title starts with ``title`` into {(pool, column): cell}."""
    cells: dict[tuple[int, int], str] = {}
    columns: list[int] = []
    inside = False
    for line in out.splitlines():
        parts = line.split()
        if line.startswith(title):
            inside, columns = True, []
        elif inside and parts and parts[0] == "d4":
            columns = [int(c) for c in parts[1:]]
        elif inside and columns and parts and parts[0].isdigit() and len(parts) == len(columns) + 1:
            for c, text in zip(columns, parts[1:], strict=True):
                cells[int(parts[0]), c] = text
        elif parts and not set(line.strip()) <= {"─"}:
            inside, columns = False, []
    return cells


def test_text_grid_cells(invoke: Invoke) -> None:
    result = invoke("table")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    success = _grid(out, "P(success)")
    damage = _grid(out, "Expected damage")
    assert len(success) == 12 * 29
    assert len(damage) == 12 * 29
    # 3d4 against DC 10: 10 of 64 rolls (brute force in tests/dice) → 16 %.
    assert success[3, 10] == str(round(100 * float(distribution("3d4").p_at_least_exact(10))))
    assert success[3, 10] == "16"
    assert success[1, 2] == "75"
    assert success[5, 5] == "100"  # certain: every 5d4 total is at least 5
    assert success[1, 5] == "·"  # impossible: 1d4 never reaches 5
    assert success[4, 16] == "<1"  # possible (1/256) but rounds to 0: never shown as 0
    assert success[5, 6] == ">99"  # 1 − 1/1024: never shown as 100
    e5 = distribution("5d4").expected_damage_exact(11)
    assert damage[5, 11] == f"{float(e5):.1f}"
    assert damage[2, 8] == "·"  # 2d4 never beats Evasion 8
    assert damage[3, 11] == "<0.1"  # only 3d4 = 12 deals 1: 1/64


@pytest.mark.parametrize("columns", [80, 100])
def test_fits_the_terminal(invoke: Invoke, columns: int) -> None:
    for args in ([], ["--extra", "1d8"], ["--max-pool", "20"]):
        result = invoke("table", *args, columns=columns)
        assert result.exit_code == 0, result.stderr
        widest = max(len(line) for line in result.stdout.splitlines())
        assert widest <= columns, (args, widest)


def test_exact_text_lists_fractions(invoke: Invoke) -> None:
    result = invoke("table", "--max-pool", "3", "--max-dc", "12", "--exact")
    assert result.exit_code == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()]
    # 3d4 against DC 10 is 5/32 (tests/dice derives it by enumeration).
    assert ["3", "10", "5/32", f"{100 * 5 / 32:.2f}%"] in rows


def test_plot_writes_a_png(invoke: Invoke, tmp_path: Path) -> None:
    """README: `caltrop table --plot odds.png` prints the table and writes the picture."""
    target = tmp_path / "odds.png"
    result = invoke("table", "--plot", str(target))
    assert result.exit_code == 0, result.stderr
    assert "P(success) in %" in result.stdout
    assert f"plot saved to {target}" in result.stdout
    assert target.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert target.stat().st_size > 50_000


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--min-dc", "9", "--max-dc", "5"], "--min-dc 9 is above --max-dc 5"),
        (["--min-pool", "5", "--max-pool", "4"], "--min-pool 5 is above --max-pool 4"),
        (["--extra", "1d8+"], "--extra: bad dice expression at column 5"),
    ],
)
def test_table_user_errors(invoke: Invoke, args: list[str], message: str) -> None:
    assert_user_error(invoke("table", *args), message)


def test_one_sided_ranges(invoke_json: JsonInvoke) -> None:
    data = invoke_json("table", "--max-dc", "5", "--min-evasion", "10")
    assert data["dcs"] == [2, 3, 4, 5]
    assert data["evasions"] == list(range(10, 30))
