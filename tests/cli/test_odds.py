"""``caltrop odds``: the PMF, at-least and at-most tables, mean, stdev, DC and Evasion answers.

Values are checked against :mod:`caltrop.dice.distribution` and, for small expressions, against
brute-force enumeration of every face (no hard-coded floats).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from caltrop.cli.common import percent
from caltrop.dice import distribution
from tests.cli.conftest import Invoke
from tests.cli.helpers import assert_user_error, brute_force

JsonInvoke = Callable[..., dict[str, Any]]


def test_json_pmf_mean_stdev_match_the_distribution(invoke_json: JsonInvoke) -> None:
    data = invoke_json("odds", "5d4+1d8")
    dist = distribution("5d4+1d8")
    assert data["expression"] == "5d4+1d8"
    assert data["pmf"] == {str(t): p for t, p in dist.pmf().items()}
    assert all(isinstance(k, str) for k in data["pmf"])
    assert math.fsum(data["pmf"].values()) == pytest.approx(1.0, abs=1e-12)
    assert data["mean"] == pytest.approx(float(dist.mean_exact), abs=1e-12)
    assert data["stdev"] == pytest.approx(math.sqrt(dist.variance_exact), abs=1e-12)
    assert "p_at_least" not in data
    assert "expected_damage" not in data


def test_json_pmf_against_brute_force(invoke_json: JsonInvoke) -> None:
    counts = brute_force(4, 4, 4, 8)
    data = invoke_json("odds", "3d4+1d8", "--exact")
    total = sum(counts.values())
    assert {int(t): Fraction(p) for t, p in data["pmf_exact"].items()} == {
        t: Fraction(c, total) for t, c in counts.items()
    }
    for t, c in counts.items():
        assert data["pmf"][str(t)] == pytest.approx(c / total, abs=1e-15)
    mean = Fraction(sum(t * c for t, c in counts.items()), total)
    assert Fraction(data["mean_exact"]) == mean


def test_dc_json_exact_and_float(invoke_json: JsonInvoke) -> None:
    # 3d4 totals ≥ 10: (4,4,4), (4,4,3)×3, (4,4,2)×3, (4,3,3)×3 → 10 of 64.
    counts = brute_force(4, 4, 4)
    expected = Fraction(sum(c for t, c in counts.items() if t >= 10), 64)
    assert expected == Fraction(10, 64)
    data = invoke_json("odds", "3d4", "--dc", "10")
    assert data["dc"] == 10
    assert data["p_at_least_exact"] == "5/32"
    assert Fraction(data["p_at_least_exact"]) == expected
    assert data["p_at_least"] == pytest.approx(float(expected), abs=1e-15)


def test_evasion_json_is_the_dagger_example(invoke_json: JsonInvoke) -> None:
    """Seed 000: "You roll 6 − 2 = 4d4 + 1d4 (damage). … The GM subtracts the target's Evasion
    (e.g. 11). The remainder is damage dealt." Expected damage by enumerating all 4^5 rolls."""
    counts = brute_force(4, 4, 4, 4, 4)
    expected = Fraction(sum(max(0, t - 11) * c for t, c in counts.items()), 4**5)
    data = invoke_json("odds", "4d4+1d4", "--evasion", "11")
    assert Fraction(data["expected_damage_exact"]) == expected
    assert data["expected_damage_exact"] == f"{expected.numerator}/{expected.denominator}"
    assert data["expected_damage"] == pytest.approx(float(expected), abs=1e-12)
    assert data["evasion"] == 11


def test_certain_dc_gives_one_over_one(invoke_json: JsonInvoke) -> None:
    data = invoke_json("odds", "2d4", "--dc", "2")
    assert data["p_at_least_exact"] == "1/1"
    assert data["p_at_least"] == 1.0


def test_text_table_has_a_row_per_total(invoke: Invoke) -> None:
    dist = distribution("5d4+1d8")
    result = invoke("odds", "5d4+1d8", "--dc", "14")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    for head in ("total", "P(=t)", "P(≥t)", "P(≤t)"):
        assert head in out
    rows = {int(line.split()[0]): line.split()[1:] for line in out.splitlines() if _is_row(line)}
    assert sorted(rows) == list(dist.outcomes)
    # The DC row: P(≥14) as a percentage, and the answer line with the exact fraction.
    p14 = dist.p_at_least_exact(14)
    assert rows[14][1] == f"{float(p14) * 100:.2f}%"
    assert f"P(total ≥ DC 14) = {float(p14) * 100:.2f}% = {p14.numerator}/{p14.denominator}" in out
    # P(≥min) is certain and says so; P(=min) is every die showing 1: 1 in 4^5 × 8.
    assert rows[dist.min][1] == "100%"
    assert rows[dist.min][0] == f"{100 / (4**5 * 8):.2f}%" == "0.01%"
    assert rows[dist.max][2] == "100%"
    assert f"mean {dist.mean:.4g}, stdev {dist.stdev:.4g}" in out


def test_exact_text_shows_fractions(invoke: Invoke) -> None:
    result = invoke("odds", "3d4", "--exact", "--evasion", "5")
    assert result.exit_code == 0, result.stderr
    rows = {int(ln.split()[0]): ln.split()[1:] for ln in result.stdout.splitlines() if _is_row(ln)}
    dist = distribution("3d4")
    for t, p in dist.pmf_exact().items():
        assert rows[t][0] == str(p)
        assert rows[t][1] == str(dist.p_at_least_exact(t))
        assert rows[t][3] == str(max(0, t - 5))  # the damage column
    d = dist.expected_damage_exact(5)
    assert f"= {d.numerator}/{d.denominator}" in result.stdout
    assert f"variance {dist.variance_exact}" in result.stdout


def test_plot_writes_a_png(invoke: Invoke, tmp_path: Path) -> None:
    target = tmp_path / "odds.png"
    result = invoke("odds", "5d4+1d8", "--dc", "14", "--plot", str(target))
    assert result.exit_code == 0, result.stderr
    assert target.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert target.stat().st_size > 10_000
    assert f"plot saved to {target}" in result.stdout


def test_plot_with_json_keeps_stdout_parseable(invoke: Invoke, tmp_path: Path) -> None:
    import json

    target = tmp_path / "big.png"
    result = invoke("odds", "60d4+1d8", "--evasion", "150", "--plot", str(target), "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["expression"] == "60d4+1d8"
    assert target.stat().st_size > 0
    assert "plot saved" in result.stderr


def test_unwritable_plot_path_is_a_user_error(invoke: Invoke, tmp_path: Path) -> None:
    result = invoke("odds", "3d4", "--plot", str(tmp_path / "missing" / "odds.png"))
    assert_user_error(result, "cannot save the plot to")


def test_bad_expression(invoke: Invoke) -> None:
    assert_user_error(invoke("odds", "5d"), "bad dice expression at column 3", "  5d\n    ^")


def test_dc_and_evasion_are_exclusive(invoke: Invoke) -> None:
    assert_user_error(invoke("odds", "3d4", "--dc", "3", "--evasion", "3"), "cannot be used")


@pytest.mark.parametrize(
    ("p", "kwargs", "text"),
    [
        (1.0 - 1e-17, {"certain": True}, "100%"),
        (1.0 - 1e-9, {}, ">99.99%"),
        (1e-9, {}, "<0.01%"),
        (0.0, {"impossible": True}, "0%"),
        (0.5, {}, "50.00%"),
        (0.99994, {}, "99.99%"),
        (0.99996, {}, ">99.99%"),
        (0.00004, {}, "<0.01%"),
        (0.00006, {}, "0.01%"),
    ],
)
def test_percent_never_invents_certainty(p: float, kwargs: dict[str, bool], text: str) -> None:
    assert percent(p, **kwargs) == text


def _is_row(line: str) -> bool:
    parts = line.split()
    return bool(parts) and parts[0].lstrip("-").isdigit()


def test_long_tables_keep_the_body_and_say_so(invoke: Invoke) -> None:
    dist = distribution("1000d4")
    result = invoke("odds", "1000d4", "--dc", "2400")
    assert result.exit_code == 0, result.stderr
    rows = [int(ln.split()[0]) for ln in result.stdout.splitlines() if _is_row(ln)]
    assert rows == list(range(rows[0], rows[-1] + 1))
    assert 2400 in rows
    assert dist.p_at_least(rows[0]) > 1 - 1e-5  # nothing likely is left out below …
    assert dist.p_at_least(rows[-1] + 1) < 1e-5  # … or above
    assert len(rows) < len(dist.outcomes)
    assert f"showing totals {rows[0]}–{rows[-1]} of 1000–4000" in result.stdout


def test_an_expression_may_start_with_a_minus(invoke_json: JsonInvoke) -> None:
    assert invoke_json("odds", "-1d4", "--dc", "-2")["p_at_least_exact"] == "1/2"
    assert invoke_json("roll", "-1d4+2d4", "--dice", "1,4,2")["total"] == 5
