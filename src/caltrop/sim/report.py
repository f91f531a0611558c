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
    """A paired difference in words: where no pair differs, "identical in every pair" with
    Newcombe's interval (win rates) — never a bare [0, 0], which reads as certainty (issue 25
    item 3)."""
    if d["measure"] == "win_rate":
        iv = f"[{100 * d['lo']:+.1f}, {100 * d['hi']:+.1f}]"
        if d.get("identical"):
            return f"identical in every pair, Newcombe 95% {iv} pp"
        return f"{100 * d['diff']:+.1f} pp {iv}"
    if d.get("identical"):
        return "identical in every pair"
    return f"{d['diff']:+.2f} [{d['lo']:+.2f}, {d['hi']:+.2f}]"


def exact_diff_text(d: Mapping[str, Any]) -> str:
    """The exact difference of a win-rate row (``--exact``): pp and the fraction."""
    e = d.get("exact")
    if not e:
        return ""
    fraction = e["fraction"]
    if len(fraction) > EXACT_FRACTION_CHARS:  # no round cap: denominators of hundreds of digits
        fraction = f"{len(fraction) - 1}-digit fraction: --json"
    return f"{100 * e['diff']:+.3f} pp ({fraction})"


#: An exact difference's fraction is printed in tables up to this long (else only in --json).
EXACT_FRACTION_CHARS = 24


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return [*lines, ""]


# -- caltrop sim -----------------------------------------------------------------------------------


def difference_rows(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The PC win-rate differences to chart: under every tactic if the run compared them, else
    the run's own."""
    across = summary.get("across_tactics")
    if across and across["rows"]:
        return list(across["rows"])
    policy = summary["policies"]["pc"]
    return [
        {"policy": policy, **d}
        for d in summary["differences"]
        if d["measure"] == "win_rate" and d["side"] == "pc"
    ]


def _engine_short(summary: Mapping[str, Any]) -> str:
    return {"fast": "fast path", "compiled-tactical": "compiled tactical"}.get(
        str(summary.get("engine", "reference")), "reference engine"
    )


def caption(summary: Mapping[str, Any], policies: Sequence[str] | None = None) -> str:
    """The line every plot's title carries (issue 25 item 2): the encounter, the engine that
    played and the policies — a PNG passed around alone still says what it shows."""
    if policies is None:
        pc, npc = summary["policies"]["pc"], summary["policies"]["npc"]
        who = pc if pc == npc else f"PCs {pc}, NPCs {npc}"
        if summary.get("engine") == "fast":
            who = "the fast path's tactic"
    else:
        who = ", ".join(policies)
    return f"{summary['encounter']} · {_engine_short(summary)} · {who}"


def _significant_rows(summary: Mapping[str, Any]) -> dict[tuple[str, str, str], bool]:
    """(a, b, policy) → whether that row's effect is significant: after Holm's correction where
    the verdicts give it (several tactics), else its interval clear of zero."""
    held: dict[tuple[str, str, str], bool] = {}
    across = summary.get("across_tactics") or {}
    for v in across.get("verdicts", []):
        for policy, p in v.get("p_holm", {}).items():
            held[(v["a"], v["b"], policy)] = p <= 0.05
    return held


def difference_figure(summary: Mapping[str, Any]) -> Figure:
    """The headline of a variant comparison: the paired PC win-rate difference b − a with its
    95% interval, one bar per tactic, grouped by variant. Each row names its n (the strong
    player may have played far fewer encounters than the others), a filled marker and ``*``
    mark the significant rows (after Holm's correction where several tactics were tested), and
    the verdicts are written under the chart (issue 25 item 2)."""
    import textwrap

    rows = difference_rows(summary)
    pairs = list(dict.fromkeys((r["a"], r["b"]) for r in rows))
    policies = list(dict.fromkeys(r["policy"] for r in rows))
    verdicts = [v["text"] for v in (summary.get("across_tactics") or {}).get("verdicts", [])]
    wrapped = [textwrap.fill(t[0].upper() + t[1:] + ".", 110) for t in verdicts]
    fig = _figure(
        9.0,
        1.6 + 0.45 * len(rows) + 0.3 * len(pairs) + 0.17 * sum(w.count("\n") + 1 for w in wrapped),
    )
    ax = fig.subplots()
    labels: list[str] = []
    y = 0.0
    ys: list[float] = []
    colours = [_POLICY_COLOURS[k % len(_POLICY_COLOURS)] for k in range(len(policies))]
    held = _significant_rows(summary)
    exact_shown = False
    for a, b in pairs:
        for r in (r for r in rows if (r["a"], r["b"]) == (a, b)):
            k = policies.index(r["policy"])
            significant = held.get((a, b, r["policy"]), r["lo"] > 0 or r["hi"] < 0)
            ax.errorbar(
                100 * r["diff"],
                y,
                xerr=[[100 * (r["diff"] - r["lo"])], [100 * (r["hi"] - r["diff"])]],
                fmt="o",
                color=colours[k],
                markerfacecolor=colours[k] if significant else "white",
                capsize=4,
                gid="significant" if significant else "not significant",
            )
            if "exact" in r:  # issue 25 item 1: the exact difference beside its interval
                ax.plot(
                    100 * r["exact"]["diff"],
                    y,
                    "D",
                    color="#000000",
                    markerfacecolor="none",
                    markersize=8,
                    label="exact" if not exact_shown else None,
                )
                exact_shown = True
            ys.append(y)
            n = r.get("n", summary["n"])
            name = f"{b}  ·  {r['policy']}" if len(pairs) > 1 else r["policy"]
            labels.append(f"{name} (n = {n:,}){' *' if significant else ''}")
            y += 1
        y += 0.6
    ax.axvline(0, color="#333333", linewidth=1)
    if exact_shown:
        ax.legend(loc="best", fontsize=8)
    ax.set_yticks(ys, labels)
    ax.invert_yaxis()
    several = len(policies) > 1 and bool(held)
    ax.set_xlabel(
        "PC win rate, b − a (percentage points), paired 95% interval; * filled: significant"
        + (" after Holm's correction" if several else "")
    )
    against = pairs[0][0] if pairs else ""
    title = f"Effect on the PC win rate against {against}"
    if len(pairs) == 1:
        title = f"{pairs[0][1]} against {against}, PC win rate"
    ax.set_title(f"{title}\n{caption(summary, policies)}", fontsize=10)
    if wrapped:
        fig.supxlabel("\n".join(wrapped), fontsize=8, ha="left", x=0.01)
    return fig


_POLICY_COLOURS = ("#1b9e77", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d")


def win_rate_figure(summary: Mapping[str, Any]) -> Figure:
    """The PC win rate per variant with its interval (the NPCs' is 100 less it and the draws,
    drawn only where there are draws)."""
    variants = summary["variants"]
    fig = _figure(max(6.0, 1.3 * len(variants) + 2), 4.5)
    ax = fig.subplots()
    xs = list(range(len(variants)))
    win = [v["win_rate"]["pc"] for v in variants]
    ax.bar(
        xs,
        [100 * w["p"] for w in win],
        0.6,
        yerr=[[100 * (w["p"] - w["lo"]) for w in win], [100 * (w["hi"] - w["p"]) for w in win]],
        capsize=4,
        color=_SIDE_COLOURS["pc"],
        label="PC win",
    )
    if any(v["draw_rate"]["p"] > 0 for v in variants):
        ax.plot(
            xs,
            [100 * v["draw_rate"]["p"] for v in variants],
            "kx",
            markersize=8,
            label="draws (round cap)",
        )
    ax.set_xticks(xs, [v["name"] for v in variants])
    ax.set_ylabel("PC win rate (%), Wilson 95% interval")
    ax.set_ylim(0, 100)
    ax.legend()
    ax.set_title(
        f"PC win rate by variant (n = {summary['n']:,} each)\n{caption(summary)}", fontsize=10
    )
    return fig


def rounds_figure(summary: Mapping[str, Any]) -> Figure:
    variants = summary["variants"]
    fig = _figure(7.0, 4.5)
    ax = fig.subplots()
    k = len(variants)
    width = 0.8 / max(1, k)
    top = 1
    for j, v in enumerate(variants):
        hist = {int(r): c for r, c in v["rounds"]["histogram"].items()}
        top = max(top, *hist) if hist else top
        xs = [r + (j - (k - 1) / 2) * width for r in sorted(hist)]
        ys = [100 * hist[r] / v["n"] for r in sorted(hist)]
        ax.bar(xs, ys, width, label=f"{v['name']} (mean {v['rounds']['mean']:.2f})")
    step = max(1, -(-top // 20))  # whole rounds, at most about 20 ticks
    ax.set_xticks(range(0, top + 1, step))
    ax.set_xlim(0.5 - 0.5 * width * k, top + 0.5 + 0.5 * width * k)  # stops at the longest
    ax.set_xlabel("rounds until the fight ends")
    ax.set_ylabel("share of encounters (%)")
    ax.legend()
    ax.set_title(f"Fight length (longest: {top} rounds)\n{caption(summary)}", fontsize=10)
    return fig


def creatures_figure(summary: Mapping[str, Any]) -> Figure:
    """Per creature, per variant: how often it goes down, the damage it deals and takes."""
    variants = summary["variants"]
    measures = [
        ("down_rate", "down (% of encounters)", 100.0),
        ("damage_dealt", "damage dealt per encounter", 1.0),
        ("health_lost", "Health lost per encounter", 1.0),
    ]
    ids = [c["id"] for c in variants[0]["creatures"]]
    fig = _figure(max(8.0, 0.9 * len(ids) * max(1, len(variants)) + 3), 8.5)
    axes = fig.subplots(len(measures), 1, sharex=True)
    k = len(variants)
    width = 0.8 / max(1, k)
    for ax, (key, label, scale) in zip(axes, measures, strict=True):
        for j, v in enumerate(variants):
            xs = [i + (j - (k - 1) / 2) * width for i in range(len(ids))]
            ys = [scale * c.get(key, 0.0) for c in v["creatures"]]
            ax.bar(xs, ys, width, label=v["name"], yerr=_errors(v["creatures"], key, ys, scale))
        ax.set_ylabel(label, fontsize=8)
    sides = [c["side"] for c in variants[0]["creatures"]]
    axes[-1].set_xticks(range(len(ids)), [f"{i}\n({s})" for i, s in zip(ids, sides, strict=True)])
    axes[0].legend(fontsize=8)
    axes[0].set_title(
        f"Per creature (95% intervals: Wilson for down, of the mean for the others)\n"
        f"{caption(summary)}",
        fontsize=10,
    )
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
            ys = [v[key][side] for v in variants]
            bounds = [v.get("per_side_interval", {}).get(key, {}).get(side) for v in variants]
            ax.bar(
                xs,
                ys,
                width,
                color=_SIDE_COLOURS[side],
                label=_SIDE_NAMES[side],
                yerr=_interval_errors(ys, bounds, 1.0),
                capsize=3,
            )
        ax.set_xticks(range(len(variants)), [v["name"] for v in variants], fontsize=8)
        ax.set_title(label)
    axes.flat[0].legend()
    fig.suptitle(f"Per side, per encounter (95% intervals of the mean)\n{caption(summary)}")
    return fig


def _interval_errors(
    ys: Sequence[float], bounds: Sequence[Mapping[str, float] | None], scale: float
) -> list[list[float]] | None:
    """Matplotlib's ``yerr`` of bars at ``ys`` from their intervals (None: a summary saved
    before the intervals were measured draws no bars)."""
    if any(b is None for b in bounds):
        return None
    return [
        [max(0.0, y - scale * b["lo"]) for y, b in zip(ys, bounds, strict=True) if b],
        [max(0.0, scale * b["hi"] - y) for y, b in zip(ys, bounds, strict=True) if b],
    ]


def _errors(
    creatures: Sequence[Mapping[str, Any]], key: str, ys: Sequence[float], scale: float
) -> list[list[float]] | None:
    return _interval_errors(ys, [c.get("interval", {}).get(key) for c in creatures], scale)


def sim_markdown(summary: Mapping[str, Any], images: Sequence[str] = ()) -> str:
    """The tables of a ``caltrop sim`` summary as one Markdown page."""
    from caltrop.sim.best_response import best_response_text

    lines = [
        f"# {summary['encounter']}: {len(summary['variants'])} variant(s), "
        f"{summary['n']:,} encounters each",
        "",
        f"Seed {summary['seed']} (encounter *i* uses the same random streams in every variant); "
        f"policies: PCs `{summary['policies']['pc']}`, NPCs `{summary['policies']['npc']}`; "
        f"engine: {_engine(summary)}.",
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
    best = [
        best_response_text(v["name"], v["best_response"])
        for v in summary["variants"]
        if "best_response" in v
    ]
    if best:
        lines += ["## How much better could anyone play?", "", *[f"- {b}" for b in best], ""]
    if summary["differences"]:
        lines += ["## Paired differences (b − a)", "", summary.get("difference_method", ""), ""]
        with_exact = any("exact" in d for d in summary["differences"])
        lines += _table(
            ["a", "b", "measure", "difference (95%)", *(["exact"] if with_exact else [])],
            [
                [
                    d["a"],
                    d["b"],
                    f"{d['side']} win rate" if d["measure"] == "win_rate" else "mean rounds",
                    diff_text(d),
                    *([exact_diff_text(d)] if with_exact else []),
                ]
                for d in summary["differences"]
            ],
        )
    across = summary.get("across_tactics")
    if across and across["rows"]:
        lines += ["## The same comparison under each tactic (PC win rate, b − a, paired 95%)", ""]
        exact_col = any("exact" in r for r in across["rows"])
        lines += _table(
            ["tactic (both sides)", "n", "a", "b", "difference (95%)", *(["exact"] * exact_col)],
            [
                [
                    r["policy"],
                    f"{r['n']:,}",
                    r["a"],
                    r["b"],
                    diff_text(r),
                    *([exact_diff_text(r)] * exact_col),
                ]
                for r in across["rows"]
            ],
        )
        if "fast_tactic" in across:
            lines += [f"`fast` is the fast path's tactic: {across['fast_tactic']}.", ""]
        for v in across["verdicts"]:
            lines += [f"**{v['text'][0].upper() + v['text'][1:]}.**", ""]
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
                "Health lost",
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
                    f"{c.get('health_lost', 0.0):.2f}",
                    pct(c["down_rate"]),
                ]
                for c in v["creatures"]
            ],
        )
    for image in images:
        lines += [f"![{image}]({image})", ""]
    return "\n".join(lines)


def write_sim_report(summary: Mapping[str, Any], directory: Path) -> list[Path]:
    """Write ``difference.png`` (the headline, with two or more variants), ``win_rates.png``,
    ``rounds.png``, ``per_side.png``, ``creatures.png`` and ``report.md``."""
    directory.mkdir(parents=True, exist_ok=True)
    figures: dict[str, Figure] = {}
    if difference_rows(summary):
        figures["difference.png"] = difference_figure(summary)
    figures["win_rates.png"] = win_rate_figure(summary)
    figures["rounds.png"] = rounds_figure(summary)
    figures["per_side.png"] = per_round_figure(summary)
    figures["creatures.png"] = creatures_figure(summary)
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
    side = summary.get("side", "pc")  # one curve: the other side's is its mirror (less draws)
    p = [100 * pt["win_rate"][side]["p"] for pt in points]
    lo = [100 * pt["win_rate"][side]["lo"] for pt in points]
    hi = [100 * pt["win_rate"][side]["hi"] for pt in points]
    colour = _SIDE_COLOURS[side]
    ax.plot(xs, p, marker="o", color=colour, label=f"{_SIDE_NAMES[side]} win")
    ax.fill_between(xs, lo, hi, color=colour, alpha=0.2, label="Wilson 95% band")
    c = summary.get("crossing")
    if c is not None:
        ax.axhline(100 * c["target"], color="#555555", linestyle=":", linewidth=1)
        if c["value"] is not None:
            left = xs[0] if c["lo"] is None else c["lo"]
            right = xs[-1] if c["hi"] is None else c["hi"]
            ax.axvspan(left, right, color="#555555", alpha=0.12, label="crossing interval")
            ax.axvline(
                c["value"],
                color="#555555",
                linestyle="--",
                linewidth=1,
                label=f"crosses {pct(c['target'])} at {c['value']:.3g}",
            )
    if xs_num is None:
        ax.set_xticks(list(xs), values)
    ax.set_xlabel(summary["param"])
    ax.set_ylabel(f"{_SIDE_NAMES[side]} win rate (%)")
    ax.set_ylim(0, 100)
    ax.legend()
    ax.set_title(
        f"Sweep of {summary['param']} (n = {summary['n']:,} each)\n{caption(summary)}",
        fontsize=10,
    )
    return fig


def _engine(summary: Mapping[str, Any]) -> str:
    """Which engine played: the reference engine, the fast path's own tactic, or the compiled
    tactical (the same choices as the reference's tactical; its own dice streams)."""
    return {
        "fast": "the fast path (its own fixed tactic)",
        "compiled-tactical": "the compiled tactical (same choices, its own dice streams)",
    }.get(str(summary.get("engine", "reference")), "the reference engine")


def sweep_markdown(summary: Mapping[str, Any], images: Sequence[str] = ()) -> str:
    lines = [
        f"# {summary['encounter']}: sweep of `{summary['param']}`",
        "",
        f"{summary['n']:,} encounters per value, seed {summary['seed']} (paired across values); "
        f"policies: PCs `{summary['policies']['pc']}`, NPCs `{summary['policies']['npc']}`; "
        f"engine: {_engine(summary)}.",
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
    if summary.get("against_trend"):
        against = any(s.get("against_stat") for s in summary["against_trend"])
        lines += ["## Against the stat" if against else "## Not monotone", ""]
        lines += [against_trend_text(summary, step) for step in summary["against_trend"]]
        lines += [""]
    header, rows = play_table(summary)
    if rows:
        lines += ["## Play per value (per encounter)", ""]
        lines += _table(header, rows)
    if "crossing" in summary:
        lines += [
            "## Crossing the target",
            "",
            crossing_text(summary["param"], summary["crossing"]),
        ]
        lines += [""]
    for image in images:
        lines += [f"![{image}]({image})", ""]
    return "\n".join(lines)


def _change_text(c: Mapping[str, Any]) -> str:
    from caltrop.sim.summary import PLAY_MEASURES

    who = "" if c["side"] is None else f"{c['side'].upper()} "
    rel = "from none" if c["relative"] is None else f"{100 * c['relative']:+.0f}%"
    return f"{who}{PLAY_MEASURES[c['measure']]} {c['from']:.2f} → {c['to']:.2f} ({rel})"


def against_trend_text(summary: Mapping[str, Any], step: Mapping[str, Any]) -> str:
    """One sentence per step of a sweep against its trend (issue 25 item 6): the move, its
    paired interval, and what changed most in play between the two values."""
    side = str(summary.get("side", "pc"))
    points = {p["value"]: p for p in summary["points"]}
    a, b = points[step["from"]]["win_rate"][side]["p"], points[step["to"]]["win_rate"][side]["p"]
    trend = "falls" if step["trend"] < 0 else "rises"
    moves = "rises" if step["diff"] > 0 else "falls"
    figures = (
        f"{pct(a)} → {pct(b)}, {100 * step['diff']:+.1f} pp "
        f"[{100 * step['lo']:+.1f}, {100 * step['hi']:+.1f}] (paired 95%)"
    )
    if step.get("against_stat"):
        should = "lower" if step["trend"] < 0 else "raise"
        text = (
            f"Against the stat: raising {summary['param']} should {should} the "
            f"{side.upper()} win rate, but from {step['from']} to {step['to']} it {moves}: "
            f"{figures}"
        )
    else:
        text = (
            f"Not monotone: the {side.upper()} win rate {trend} with {summary['param']} at "
            f"most steps, but {moves} from {step['from']} to {step['to']}: {figures}"
        )
    if step["changed"]:
        text += "; what changed most in play: " + "; ".join(
            _change_text(c) for c in step["changed"]
        )
    shares = step.get("shares")
    if shares and shares["changed"]:
        text += (
            f"; the actions chosen that moved most (first {shares['n']:,} encounters of each "
            "value, played again): "
            + "; ".join(
                f"{m['side'].upper()} {m['action']} {pct(m['from'])} → {pct(m['to'])}"
                for m in shares["changed"]
            )
        )
    return (
        text + ". A change in how the tactics play points to a tactic's quirk; none, to the rule."
    )


def play_table(summary: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Play per value of a sweep (per encounter, each side): where a win rate moves against the
    stat, what the tactics did differently."""
    from caltrop.sim.summary import PLAY_MEASURES

    header = ["value", "side", *(PLAY_MEASURES[m] for m in PLAY_MEASURES if m != "rounds")]
    rows = []
    for p in summary["points"]:
        play = p.get("play")
        if not play:
            continue
        for side in ("pc", "npc"):
            rows.append(
                [
                    p["value"],
                    side,
                    *(f"{play[m][side]:.2f}" for m in PLAY_MEASURES if m != "rounds" and m in play),
                ]
            )
    return header, rows


def crossing_text(param: str, c: Mapping[str, Any]) -> str:
    """One sentence: where the win rate crosses the target, with its interval."""
    what = f"The {c['side'].upper()} win rate crosses {pct(c['target'])}"
    if c["value"] is None:
        return f"{what}: not found ({c['why']})."
    lo = "below the values swept" if c["lo"] is None else f"{c['lo']:.3g}"
    hi = "above the values swept" if c["hi"] is None else f"{c['hi']:.3g}"
    more = f" (it crosses {c['crossings']} times; the first is given)" if c["crossings"] > 1 else ""
    return (
        f"{what} at {param} ≈ {c['value']:.3g}, interval [{lo}, {hi}] (where the Wilson 95% "
        f"band holds the target, interpolated between the values swept){more}."
    )


def write_sweep_report(summary: Mapping[str, Any], directory: Path) -> list[Path]:
    """Write ``sweep.png`` (the curve with its band) and ``report.md``."""
    directory.mkdir(parents=True, exist_ok=True)
    fig = sweep_figure(summary)
    fig.savefig(directory / "sweep.png", dpi=110)
    page = directory / "report.md"
    page.write_text(sweep_markdown(summary, ["sweep.png"]) + "\n", encoding="utf-8")
    return [directory / "sweep.png", page]


# -- caltrop sweep --set A --set B -----------------------------------------------------------------


def grid_figure(summary: Mapping[str, Any]) -> Figure:
    """A heat map of ``side``'s win rate over two stats (issue 25 item 7), each cell written in,
    with the contour where it crosses the target (interpolated between cells)."""
    import numpy as np

    grid = summary["grid"]
    side = summary.get("side", "pc")
    rows, cols = grid["values"]
    z = np.array([[100 * c["win_rate"][side]["p"] for c in row] for row in grid["cells"]])
    fig = _figure(max(6.0, 0.8 * len(cols) + 3), max(4.5, 0.5 * len(rows) + 2.5))
    ax = fig.subplots()
    image = ax.imshow(z, origin="lower", cmap="viridis", vmin=0, vmax=100, aspect="auto")
    fig.colorbar(image, ax=ax, label=f"{_SIDE_NAMES[side]} win rate (%)")
    for i in range(len(rows)):
        for j in range(len(cols)):
            ink = "black" if z[i, j] > 60 else "white"  # viridis is light at the top
            ax.text(j, i, f"{z[i, j]:.0f}", ha="center", va="center", fontsize=8, color=ink)
    c = summary.get("contour")
    if c and len(rows) > 1 and len(cols) > 1 and z.min() <= 100 * c[0]["target"] <= z.max():
        level = 100 * c[0]["target"]
        ax.contour(z, levels=[level], colors="#ff3333", linewidths=2)
        ax.plot([], [], color="#ff3333", label=f"{pct(c[0]['target'])} contour")
        ax.legend(loc="upper right", fontsize=8)
    ax.set_xticks(range(len(cols)), cols)
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlabel(grid["params"][1])
    ax.set_ylabel(grid["params"][0])
    ax.set_title(
        f"{_SIDE_NAMES[side]} win rate over {grid['params'][0]} × {grid['params'][1]} "
        f"(n = {summary['n']:,} each)\n{caption(summary)}",
        fontsize=10,
    )
    return fig


def grid_rows(
    summary: Mapping[str, Any], *, compact: bool = False
) -> tuple[list[str], list[list[str]]]:
    """The grid as a table: a row per value of the first stat, a column per value of the
    second, each cell the win rate with its Wilson interval (``compact``: "93.7 (92–95)", in
    percent, for a terminal)."""
    grid = summary["grid"]
    side = summary.get("side", "pc")
    a, b = grid["params"]
    header = [f"{a} \\ {b}", *grid["values"][1]]
    rows = [
        [value, *((_compact if compact else interval_text)(c["win_rate"][side]) for c in row)]
        for value, row in zip(grid["values"][0], grid["cells"], strict=True)
    ]
    return header, rows


def _compact(d: Mapping[str, float]) -> str:
    return f"{100 * d['p']:.1f} ({100 * d['lo']:.0f}–{100 * d['hi']:.0f})"


def contour_text(summary: Mapping[str, Any]) -> list[str]:
    """Per value of the first stat, where the win rate crosses the target along the second."""
    a, b = summary["grid"]["params"]
    return [f"{a} = {c['row']}: {crossing_text(b, c)}" for c in summary.get("contour", [])]


def grid_markdown(summary: Mapping[str, Any], images: Sequence[str] = ()) -> str:
    a, b = summary["grid"]["params"]
    side = str(summary.get("side", "pc")).upper()
    lines = [
        f"# {summary['encounter']}: `{a}` × `{b}`",
        "",
        f"{summary['n']:,} encounters per cell, seed {summary['seed']} (paired across cells); "
        f"policies: PCs `{summary['policies']['pc']}`, NPCs `{summary['policies']['npc']}`; "
        f"engine: {_engine(summary)}. {side} win rate (Wilson 95%):",
        "",
    ]
    lines += _table(*grid_rows(summary))
    if summary.get("contour"):
        lines += ["## Where it crosses the target", ""]
        lines += [f"- {t}" for t in contour_text(summary)]
        lines += [""]
    for image in images:
        lines += [f"![{image}]({image})", ""]
    return "\n".join(lines)


def write_grid_report(summary: Mapping[str, Any], directory: Path) -> list[Path]:
    """Write ``grid.png`` (the heat map with its contour) and ``report.md``."""
    directory.mkdir(parents=True, exist_ok=True)
    grid_figure(summary).savefig(directory / "grid.png", dpi=110)
    page = directory / "report.md"
    page.write_text(grid_markdown(summary, ["grid.png"]) + "\n", encoding="utf-8")
    return [directory / "grid.png", page]
