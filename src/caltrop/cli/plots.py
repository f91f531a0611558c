"""Figures saved to files with matplotlib's Agg canvas: never a window, never pyplot's global state.

Imported only when a command is given ``--plot``, so the other commands start fast.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import matplotlib
import numpy as np
import numpy.typing as npt
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from caltrop.cli.common import fail
from caltrop.dice.distribution import Distribution

_BASE = "#8da0cb"  # outcomes that fail / deal no damage
_GOOD = "#1b9e77"  # outcomes that succeed / deal damage
_MARK = "#d95f02"  # the DC / Evasion line
_IMPOSSIBLE = "#eeeeee"  # heatmap cells that cannot happen ("·" in the terminal table)


def _new_figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)  # Agg: renders to files only
    return fig


def save(fig: Figure, path: Path) -> None:
    """Write ``fig`` (format from the suffix, PNG by default); a bad path is a user error."""
    try:
        fig.savefig(path, dpi=120)
    except (OSError, ValueError) as exc:
        fail(f"cannot save the plot to {path}: {exc}")


def odds_figure(dist: Distribution, *, dc: int | None, evasion: int | None) -> Figure:
    """Bars of P(total = t) above bars of P(total ≥ t), the DC or Evasion marked."""
    totals = np.arange(dist.min, dist.max + 1)
    eq = dist.probabilities * 100
    ge = dist.at_least() * 100
    colors: list[str] | str = _BASE
    if dc is not None:
        colors = [_GOOD if t >= dc else _BASE for t in totals]
    elif evasion is not None:
        colors = [_GOOD if t > evasion else _BASE for t in totals]

    fig = _new_figure(max(7.0, min(16.0, 2.0 + 0.25 * len(totals))), 6.5)
    top, bottom = fig.subplots(2, 1, sharex=True)
    title = f"{dist.label}: mean {dist.mean:.2f}, stdev {dist.stdev:.2f}"
    if dc is not None:
        title += f"\nP(total ≥ DC {dc}) = {dist.p_at_least(dc) * 100:.2f}%"
    if evasion is not None:
        title += f"\nexpected damage vs Evasion {evasion} = {dist.expected_damage(evasion):.2f}"
    fig.suptitle(title)
    top.bar(totals, eq, color=colors, width=0.85)
    top.set_ylabel("P(total = t), %")
    bottom.bar(totals, ge, color=colors, width=0.85)
    bottom.set_ylabel("P(total ≥ t), %")
    bottom.set_ylim(0, 105)
    bottom.set_xlabel("total t")
    for ax in (top, bottom):
        ax.grid(axis="y", alpha=0.3)
        if dc is not None:
            ax.axvline(dc - 0.5, color=_MARK, linestyle="--", label=f"DC {dc}")
        if evasion is not None:
            ax.axvline(evasion + 0.5, color=_MARK, linestyle="--", label=f"Evasion {evasion}")
    if dc is not None or evasion is not None:
        top.legend(loc="upper right")
    if len(totals) > 40:  # a big pool: show where the mass is, not the far tails
        visible = totals[eq >= eq.max() * 1e-4]
        marks = [m for m in (dc, None if evasion is None else evasion + 1) if m is not None]
        lo, hi = min([int(visible[0]), *marks]), max([int(visible[-1]), *marks])
        bottom.set_xlim(lo - 1, hi + 1)
    else:
        bottom.set_xticks(totals)
        bottom.tick_params(axis="x", labelsize=8 if len(totals) > 25 else 10)
    return fig


def _heatmap(
    fig: Figure,
    ax: Axes,
    values: npt.NDArray[np.float64],
    labels: list[list[str]],
    *,
    rows: range,
    columns: range,
    cmap: str,
    vmax: float,
    title: str,
    xlabel: str,
    bar_label: str,
    white_text: Callable[[float], bool],
) -> None:
    """``values`` as coloured cells, each labelled with its table text."""
    impossible = np.array([[text == "·" for text in row] for row in labels], dtype=bool)
    colormap = matplotlib.colormaps[cmap].with_extremes(bad=_IMPOSSIBLE)
    shown = np.ma.masked_array(values, mask=impossible)
    image = ax.imshow(shown, cmap=colormap, vmin=0, vmax=vmax, aspect="auto")
    ax.set_title(title, loc="left")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("d4 in the pool")
    for axis_ticks, values_ in ((ax.set_xticks, columns), (ax.set_yticks, rows)):
        step = -(-len(values_) // 40)  # at most 40 labels per axis
        axis_ticks(range(0, len(values_), step), [str(v) for v in values_[::step]])
    ax.tick_params(labelsize=8)
    fig.colorbar(image, ax=ax, label=bar_label, fraction=0.03, pad=0.01)
    if len(rows) * len(columns) <= 2500:
        size = 7 if len(columns) > 20 else 8
        for i in range(len(rows)):
            for j in range(len(columns)):
                shade = values[i, j] / vmax if vmax else 0.0
                light = not impossible[i, j] and white_text(shade)
                color = "white" if light else "black"
                ax.text(j, i, labels[i][j], ha="center", va="center", fontsize=size, color=color)


def table_figure(
    *,
    success: npt.NDArray[np.float64],
    success_labels: list[list[str]],
    damage: npt.NDArray[np.float64],
    damage_labels: list[list[str]],
    pools: range,
    dcs: range,
    evasions: range,
    pool_label: str,
) -> Figure:
    """The GM screen as a picture: P(success) heatmap (pool × DC) above expected damage."""
    width = max(8.0, min(22.0, 2.5 + 0.42 * max(len(dcs), len(evasions))))
    height_each = max(2.5, min(9.0, 1.2 + 0.32 * len(pools)))
    fig = _new_figure(width, 2 * height_each + 0.6)
    top, bottom = fig.subplots(2, 1)
    fig.suptitle(f"Caltrop odds: pools of {pool_label}")
    _heatmap(
        fig,
        top,
        success * 100,
        success_labels,
        rows=pools,
        columns=dcs,
        cmap="RdYlGn",
        vmax=100.0,
        title="P(success) = P(total ≥ DC), %",
        xlabel="DC",
        bar_label="%",
        white_text=lambda shade: shade < 0.2 or shade > 0.85,  # dark red and dark green ends
    )
    _heatmap(
        fig,
        bottom,
        damage,
        damage_labels,
        rows=pools,
        columns=evasions,
        cmap="viridis",
        vmax=float(damage.max()) if damage.size else 1.0,
        title="expected damage = E[max(0, total − Evasion)]",
        xlabel="Evasion",
        bar_label="damage",
        white_text=lambda shade: shade < 0.55,  # viridis is dark at the low end
    )
    return fig
