"""Reports of simulations: PNG plots (matplotlib's Agg canvas, never a window) and a Markdown page
with the tables, written into one directory.

``write_sim_report(summary, dir)`` for ``caltrop sim``; ``write_sweep_report(summary, dir)`` for
``caltrop sweep``. Both take the JSON-ready summaries of :mod:`caltrop.sim.summary`, so a report
can be rebuilt from a saved ``--json`` output.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

_SIDE_COLOURS = {"pc": "#1b9e77", "npc": "#d95f02"}
_SIDE_NAMES = {"pc": "PCs", "npc": "NPCs"}


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def pct(p: float) -> str:
    return f"{100 * p:.1f}%"


def interval_text(d: Mapping[str, float], key: str = "p") -> str:
    return f"{pct(d[key])} [{pct(d['lo'])}, {pct(d['hi'])}]"


def side_cells(variant: Mapping[str, Any], side: str) -> list[str]:
    """One row of the per-side table (the CLI's and the report's): variant, side, damage per
    round, Load or points used, reactions, team actions and creatures down per encounter."""
    v = variant
    return [
        v["name"],
        side,
        f"{v['damage_per_round'][side]:.2f}",
        f"{v['cost_per_encounter'][side]:.2f}",
        f"{v['reactions_per_encounter'][side]:.2f}",
        f"{v['team_actions_per_encounter'][side]:.2f}",
        f"{v['down_per_encounter'][side]:.2f}",
    ]


def diff_text(d: Mapping[str, Any]) -> str:
    if d["measure"] == "win_rate":
        return f"{100 * d['diff']:+.1f} pp [{100 * d['lo']:+.1f}, {100 * d['hi']:+.1f}]"
    return f"{d['diff']:+.2f} [{d['lo']:+.2f}, {d['hi']:+.2f}]"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return [*lines, ""]


# -- caltrop sim -----------------------------------------------------------------------------------


def win_rate_figure(summary: Mapping[str, Any]) -> Figure:
    variants = summary["variants"]
    fig = _figure(max(6.0, 1.6 * len(variants) + 2), 4.5)
    ax = fig.subplots()
    width = 0.38
    for k, side in enumerate(("pc", "npc")):
        xs = [v + (k - 0.5) * width for v in range(len(variants))]
        ps = [100 * v["win_rate"][side]["p"] for v in variants]
        lo = [100 * (v["win_rate"][side]["p"] - v["win_rate"][side]["lo"]) for v in variants]
        hi = [100 * (v["win_rate"][side]["hi"] - v["win_rate"][side]["p"]) for v in variants]
        ax.bar(
            xs,
            ps,
            width,
            yerr=[lo, hi],
            capsize=4,
            color=_SIDE_COLOURS[side],
            label=f"{_SIDE_NAMES[side]} win",
        )
    ax.set_xticks(range(len(variants)), [v["name"] for v in variants])
    ax.set_ylabel("win rate (%) with Wilson 95% interval")
    ax.set_ylim(0, 100)
    ax.legend()
    ax.set_title(f"{summary['encounter']}: win rate by variant (n = {summary['n']:,} each)")
    return fig


def rounds_figure(summary: Mapping[str, Any]) -> Figure:
    variants = summary["variants"]
    fig = _figure(7.0, 4.5)
    ax = fig.subplots()
    k = len(variants)
    width = 0.8 / max(1, k)
    for j, v in enumerate(variants):
        hist = {int(r): c for r, c in v["rounds"]["histogram"].items()}
        xs = [r + (j - (k - 1) / 2) * width for r in sorted(hist)]
        ys = [100 * hist[r] / v["n"] for r in sorted(hist)]
        ax.bar(xs, ys, width, label=f"{v['name']} (mean {v['rounds']['mean']:.2f})")
    ax.set_xlabel("rounds until the fight ends")
    ax.set_ylabel("share of encounters (%)")
    ax.legend()
    ax.set_title("Fight length")
    return fig


def per_round_figure(summary: Mapping[str, Any]) -> Figure:
    variants = summary["variants"]
    measures = [
        ("damage_per_round", "damage per round"),
        ("cost_per_encounter", "Load / points used per encounter"),
        ("reactions_per_encounter", "reactions per encounter"),
        ("down_per_encounter", "creatures down per encounter"),
    ]
    fig = _figure(11.0, 7.0)
    axes = fig.subplots(2, 2)
    width = 0.38
    for ax, (key, label) in zip(axes.flat, measures, strict=True):
        for k, side in enumerate(("pc", "npc")):
            xs = [v + (k - 0.5) * width for v in range(len(variants))]
            ax.bar(
                xs,
                [v[key][side] for v in variants],
                width,
                color=_SIDE_COLOURS[side],
                label=_SIDE_NAMES[side],
            )
        ax.set_xticks(range(len(variants)), [v["name"] for v in variants], fontsize=8)
        ax.set_title(label)
    axes.flat[0].legend()
    return fig


def sim_markdown(summary: Mapping[str, Any], images: Sequence[str] = ()) -> str:
    """The tables of a ``caltrop sim`` summary as one Markdown page."""
    lines = [
        f"# {summary['encounter']}: {len(summary['variants'])} variant(s), "
        f"{summary['n']:,} encounters each",
        "",
        f"Seed {summary['seed']} (encounter *i* uses the same random streams in every variant); "
        f"policies: PCs `{summary['policies']['pc']}`, NPCs `{summary['policies']['npc']}`.",
        "",
        "## Win rates and fight length",
        "",
    ]
    rows = []
    for v in summary["variants"]:
        row = [
            v["name"],
            f"{v['n']:,}",
            interval_text(v["win_rate"]["pc"]),
            interval_text(v["win_rate"]["npc"]),
            f"{v['rounds']['mean']:.2f}",
            f"{v['rounds']['median']:g}",
            f"{v['rounds']['p90']:g}",
        ]
        if "exact" in v:
            row.append(pct(v["exact"]["win_rate"]["pc"]["p"]))
        rows.append(row)
    header = ["variant", "n", "PC win (95%)", "NPC win (95%)", "rounds mean", "median", "p90"]
    if any("exact" in v for v in summary["variants"]):
        header.append("PC win, exact")
    lines += _table(header, rows)
    if summary["differences"]:
        lines += ["## Paired differences (b − a)", "", summary.get("difference_method", ""), ""]
        lines += _table(
            ["a", "b", "measure", "difference (95%)"],
            [
                [
                    d["a"],
                    d["b"],
                    f"{d['side']} win rate" if d["measure"] == "win_rate" else "mean rounds",
                    diff_text(d),
                ]
                for d in summary["differences"]
            ],
        )
    lines += ["## Per side", ""]
    lines += _table(
        [
            "variant",
            "side",
            "damage / round",
            "Load or points used / enc.",
            "reactions / enc.",
            "team actions / enc.",
            "down / enc.",
        ],
        [side_cells(v, side) for v in summary["variants"] for side in ("pc", "npc")],
    )
    lines += ["## Per creature (means per encounter)", ""]
    for v in summary["variants"]:
        lines += [f"### {v['name']}", ""]
        lines += _table(
            [
                "creature",
                "side",
                "Load/points used",
                "damage dealt",
                "reactions",
                "helps",
                "hinders",
                "down",
            ],
            [
                [
                    c["id"],
                    c["side"],
                    f"{c['cost_per_encounter']:.2f}",
                    f"{c['damage_dealt']:.2f}",
                    f"{c['reactions']:.2f}",
                    f"{c['helps']:.2f}",
                    f"{c['hinders']:.2f}",
                    pct(c["down_rate"]),
                ]
                for c in v["creatures"]
            ],
        )
    for image in images:
        lines += [f"![{image}]({image})", ""]
    return "\n".join(lines)


def write_sim_report(summary: Mapping[str, Any], directory: Path) -> list[Path]:
    """Write ``win_rates.png``, ``rounds.png``, ``per_side.png`` and ``report.md``."""
    directory.mkdir(parents=True, exist_ok=True)
    figures = {
        "win_rates.png": win_rate_figure(summary),
        "rounds.png": rounds_figure(summary),
        "per_side.png": per_round_figure(summary),
    }
    written = []
    for name, fig in figures.items():
        fig.savefig(directory / name, dpi=110)
        written.append(directory / name)
    page = directory / "report.md"
    page.write_text(sim_markdown(summary, list(figures)) + "\n", encoding="utf-8")
    written.append(page)
    return written


# -- caltrop sweep ---------------------------------------------------------------------------------


def _numeric(values: Sequence[str]) -> list[float] | None:
    try:
        return [float(v) for v in values]
    except ValueError:
        return None


def sweep_figure(summary: Mapping[str, Any]) -> Figure:
    points = summary["points"]
    values = [p["value"] for p in points]
    xs_num = _numeric(values)
    xs: Sequence[float] = xs_num if xs_num is not None else list(range(len(values)))
    fig = _figure(7.5, 4.8)
    ax = fig.subplots()
    for side in ("pc", "npc"):
        p = [100 * pt["win_rate"][side]["p"] for pt in points]
        lo = [100 * pt["win_rate"][side]["lo"] for pt in points]
        hi = [100 * pt["win_rate"][side]["hi"] for pt in points]
        ax.plot(xs, p, marker="o", color=_SIDE_COLOURS[side], label=f"{_SIDE_NAMES[side]} win")
        ax.fill_between(xs, lo, hi, color=_SIDE_COLOURS[side], alpha=0.2)
    best = summary["best"]
    bx = xs[values.index(best["value"])]
    ax.axvline(bx, color="#555555", linestyle="--", linewidth=1, label=f"best: {best['value']}")
    if xs_num is None:
        ax.set_xticks(list(xs), values)
    ax.set_xlabel(summary["param"])
    ax.set_ylabel("win rate (%), Wilson 95% band")
    ax.set_ylim(0, 100)
    ax.legend()
    ax.set_title(f"{summary['encounter']}: sweep of {summary['param']} (n = {summary['n']:,} each)")
    return fig


def sweep_markdown(summary: Mapping[str, Any], images: Sequence[str] = ()) -> str:
    best = summary["best"]
    lines = [
        f"# {summary['encounter']}: sweep of `{summary['param']}`",
        "",
        f"{summary['n']:,} encounters per value, seed {summary['seed']} (paired across values); "
        f"policies: PCs `{summary['policies']['pc']}`, NPCs `{summary['policies']['npc']}`.",
        "",
    ]
    lines += _table(
        ["value", "PC win (95%)", "NPC win (95%)", "rounds mean", "median", "p90"],
        [
            [
                p["value"],
                interval_text(p["win_rate"]["pc"]),
                interval_text(p["win_rate"]["npc"]),
                f"{p['rounds']['mean']:.2f}",
                f"{p['rounds']['median']:g}",
                f"{p['rounds']['p90']:g}",
            ]
            for p in summary["points"]
        ],
    )
    lines += [f"## Best value: {best['value']} ({best['objective']})", "", best_text(best), ""]
    for image in images:
        lines += [f"![{image}]({image})", ""]
    return "\n".join(lines)


def best_text(best: Mapping[str, Any]) -> str:
    """One sentence on the best value and how sure the data are (Holm-corrected)."""
    if "consistent" in best:
        consistent = ", ".join(best["consistent"]) or "none"
        return (
            f"{best['value']} is closest ({pct(best['p'])}); values whose win rate is consistent "
            f"with the target ({best['correction']}): {consistent}."
        )
    if best["clear"]:
        return (
            f"{best['value']} ({pct(best['p'])}) is better than every other value "
            f"({best['correction']})."
        )
    return (
        f"{best['value']} has the highest rate ({pct(best['p'])}), but "
        f"{', '.join(best['not_distinguishable'])} cannot be told apart from it "
        f"({best['correction']})."
    )


def write_sweep_report(summary: Mapping[str, Any], directory: Path) -> list[Path]:
    """Write ``sweep.png`` (the curve with its band) and ``report.md``."""
    directory.mkdir(parents=True, exist_ok=True)
    fig = sweep_figure(summary)
    fig.savefig(directory / "sweep.png", dpi=110)
    page = directory / "report.md"
    page.write_text(sweep_markdown(summary, ["sweep.png"]) + "\n", encoding="utf-8")
    return [directory / "sweep.png", page]
