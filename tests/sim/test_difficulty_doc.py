"""``docs/difficulty.md`` defines the bands (issue 23: "a one-word band … defined in docs"): its
table is the code's :data:`~caltrop.sim.difficulty.BANDS`, row for row, and the numbers it gives
for the budget are the code's."""

from __future__ import annotations

import re
from pathlib import Path

from caltrop.sim import difficulty, vary

DOC = (Path(__file__).resolve().parents[2] / "docs" / "difficulty.md").read_text(encoding="utf-8")


def _percent(text: str) -> float:
    return float(text.rstrip("%")) / 100


def test_the_documented_band_table_is_the_code_s() -> None:
    rows = re.findall(r"^\| (\w+) \| (\d+)% \| (\d+)% \| (.+?) \|$", DOC, re.MULTILINE)
    assert [r[0] for r in rows] == [b.name for b in difficulty.BANDS]
    for (name, win, down, meaning), band in zip(rows, difficulty.BANDS, strict=True):
        assert _percent(win) == band.min_pc_win, name
        assert _percent(down) == band.max_any_pc_down, name
        assert meaning == band.meaning, name


def test_the_documented_budget_is_the_code_s() -> None:
    assert f"default {difficulty.DEFAULT_SECONDS:g} s" in DOC
    assert f"at most {difficulty.BUDGET_MAX_STATES:,} chance states" in DOC
    compiled, reference = difficulty.COMPILED, difficulty.REFERENCE
    assert f"plays {difficulty.CHUNK[compiled]:,} encounters at a time" in DOC
    assert f"until {difficulty.TACTICAL_SHARE[compiled]:.0%} of the budget" in DOC
    assert f"({difficulty.TACTICAL_SHARE[reference]:.0%} on the reference engine" in DOC
    assert f"at least {difficulty.MIN_N[compiled]:,}" in DOC
    assert f"({difficulty.MIN_N[reference]})" in DOC
    assert (
        f"at most {difficulty.BUDGET_MAX_N[compiled]:,} ({difficulty.BUDGET_MAX_N[reference]:,})"
        in DOC
    )
    points = difficulty.COMPILED_POINTS
    assert f"plays {difficulty.CHUNK[points]:,} at a time" in DOC
    assert f"until {difficulty.TACTICAL_SHARE[points]:.0%} of the budget has gone, at least" in DOC
    assert f"at least {difficulty.MIN_N[points]:,};" in DOC
    assert f"{vary.DEFAULT_POINTS_N:,} on the compiled Action Point kernel" in DOC
    assert f"{difficulty.MARGIN:g} times the longest time" in DOC
    assert f"default {vary.DEFAULT_N[compiled]:,} compiled" in DOC
    assert f"{vary.DEFAULT_N[reference]} on the reference engine" in DOC
    assert f"at most {2**vary.MAX_DOUBLINGS:,} away" in DOC


def test_the_limits_doc_gives_the_command_s_limits() -> None:
    """docs/limits.md lists every input limit (issue 10), ``difficulty``'s too."""
    from caltrop.cli import difficulty_command

    limits = (Path(__file__).resolve().parents[2] / "docs" / "limits.md").read_text("utf-8")
    assert f"| `--seconds` | 0.1 to {difficulty_command.MAX_SECONDS:g} |" in limits
    assert f"at most {2**vary.MAX_DOUBLINGS:,} from the current value" in limits
