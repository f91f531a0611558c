"""The designer's charts (issue 13): the headline is the paired difference per tactic; the
sweep draws its target band; every creature gets its chart; rounds are whole numbers."""

from __future__ import annotations

from pathlib import Path

from caltrop.sim.report import difference_figure, rounds_figure, write_sim_report
from tests.sim.cli import run_json


def _summary() -> dict:  # type: ignore[type-arg]
    return run_json(
        "sim", "orc-bridge", "--variant", "load_reset=turn", "--variant", "load_reset=round",
        "--n", "40", "--seed", "2", "--workers", "1", "--policies", "attack-weakest,fast",
    )  # fmt: skip


def test_the_headline_chart_is_the_difference_per_tactic(tmp_path: Path) -> None:
    summary = _summary()
    fig = difference_figure(summary)
    (ax,) = fig.axes
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert [label.split(" (n = ")[0] for label in labels] == ["attack-weakest", "fast"]
    written = [p.name for p in write_sim_report(summary, tmp_path)]
    assert written[0] == "difference.png"
    assert "creatures.png" in written
    page = (tmp_path / "report.md").read_text("utf-8")
    assert "under each tactic" in page
    assert "| Health lost |" in page or "Health lost" in page


def test_rounds_ticks_are_whole_rounds() -> None:
    fig = rounds_figure(_summary())
    ticks = fig.axes[0].get_xticks()
    assert len(ticks) > 1
    assert all(float(t).is_integer() for t in ticks)


def test_no_npc_bars_that_only_mirror_the_pc_ones() -> None:
    from caltrop.sim.report import win_rate_figure

    fig = win_rate_figure(_summary())
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert labels == ["PC win"]  # no draws in these fights: nothing else to show


def test_the_report_names_the_engine_that_played() -> None:
    """Issue 13: a designer reading report.md must know whether the compiled tactical (its own
    dice streams) or the reference engine played."""
    from caltrop.sim.report import sim_markdown

    summary = _summary()
    assert "engine: the reference engine" in sim_markdown(summary)
    compiled = {**summary, "engine": "compiled-tactical"}
    assert "engine: the compiled tactical" in sim_markdown(compiled)
