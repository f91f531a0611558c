"""``caltrop roll`` and ``caltrop odds``: one expression, rolled or analysed exactly."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from caltrop.cli.common import (
    exclusive,
    fraction_text,
    out,
    parse_expr,
    print_json,
    saved,
    user_errors,
)
from caltrop.cli.inputs import MAX_SEED, MAX_TOTAL, entered_faces, plot_target
from caltrop.cli.render import exact_is_cheap, odds_summary, odds_table
from caltrop.dice.distribution import distribution
from caltrop.dice.render import render_d4_math, render_json, render_plain
from caltrop.dice.roll import roll as roll_expr

ExprArg = Annotated[
    str, typer.Argument(help="Dice expression: 5d4+1d8, 3d4-2, 2d8/2+3 (/2 halves rounding up).")
]
DcOpt = Annotated[
    int | None,
    typer.Option(
        "--dc",
        min=-MAX_TOTAL,
        max=MAX_TOTAL,
        help="Difficulty: success iff total ≥ DC (R16).",
    ),
]
EvasionOpt = Annotated[
    int | None,
    typer.Option(
        "--evasion",
        min=-MAX_TOTAL,
        max=MAX_TOTAL,
        help="Target's Evasion: damage = max(0, total − Evasion) (R16).",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]

_SEED_BITS = 32  # short enough to type back in, plenty for a table roll


def roll(
    expression: ExprArg,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            min=0,
            max=MAX_SEED,
            help="Seed for numpy's default_rng; without it a fresh seed is shown.",
        ),
    ] = None,
    dice: Annotated[
        str | None,
        typer.Option(
            "--dice",
            help="Faces of physical dice, in expression order: 3,1,4,4,2,7 (R5).",
        ),
    ] = None,
    dc: DcOpt = None,
    evasion: EvasionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Roll an expression — seeded RNG or entered physical dice — showing every die and D4 math."""
    exclusive(dc=dc, evasion=evasion)
    exclusive(seed=seed, dice=dice)
    expr = parse_expr(expression)
    used_seed: int | None = None
    with user_errors():
        if dice is not None:
            result = roll_expr(expr, entered=entered_faces(dice))
        else:
            used_seed = seed if seed is not None else secrets.randbits(_SEED_BITS)
            result = roll_expr(expr, np.random.default_rng(used_seed))
    total = result.total
    success = None if dc is None else total >= dc
    damage = None if evasion is None else max(0, total - evasion)
    plain, d4_math = render_plain(result), render_d4_math(result)

    if as_json:
        data: dict[str, Any] = render_json(result)
        data.update(
            text=plain,
            d4_math=d4_math,
            seed=used_seed,
            dc=dc,
            success=success,
            evasion=evasion,
            damage=damage,
        )
        print_json(data)
        return

    console = out()
    console.print(plain, style="bold", soft_wrap=True)
    if d4_math != plain:
        console.print(f"D4 math: {d4_math}", soft_wrap=True)
    if dc is not None:
        verdict, sign, style = ("success", "≥", "green") if success else ("failure", "<", "red")
        console.print(f"DC {dc}: {verdict} ({total} {sign} {dc})", style=f"bold {style}")
    if evasion is not None:
        console.print(
            f"Evasion {evasion}: damage max(0, {total} − {evasion}) = {damage}", style="bold"
        )
    if dice is not None:
        console.print("dice entered at the table", style="dim")
    else:
        how = "given" if seed is not None else "fresh"
        console.print(
            f"seed {used_seed} ({how}; `caltrop roll {expr} --seed {used_seed}` repeats this roll)",
            style="dim",
            soft_wrap=True,
        )


def odds(
    expression: ExprArg,
    dc: DcOpt = None,
    evasion: EvasionOpt = None,
    exact: Annotated[
        bool, typer.Option("--exact", help="Show exact fractions instead of percentages.")
    ] = False,
    plot: Annotated[
        Path | None,
        typer.Option("--plot", help="Save a bar chart of P(=t) and P(≥t) to this PNG file."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Exact odds of an expression: P(=t), P(≥t), P(≤t) per total, mean and stdev."""
    exclusive(dc=dc, evasion=evasion)
    expr = parse_expr(expression)
    dist = distribution(expr)
    plot = plot_target(plot) if plot is not None else None

    if plot is not None:
        from caltrop.cli.plots import odds_figure, save  # matplotlib loads only when asked

        save(odds_figure(dist, dc=dc, evasion=evasion), plot)

    if as_json:
        data: dict[str, Any] = {
            "expression": str(expr),
            "min": dist.min,
            "max": dist.max,
            "pmf": {str(t): p for t, p in dist.pmf().items()},
            "mean": dist.mean,
            "stdev": dist.stdev,
        }
        if exact:
            data["pmf_exact"] = {str(t): fraction_text(p) for t, p in dist.pmf_exact().items()}
            data["mean_exact"] = fraction_text(dist.mean_exact)
            data["variance_exact"] = fraction_text(dist.variance_exact)
        if dc is not None:
            data["dc"] = dc
            data["p_at_least"] = dist.p_at_least(dc)
            data["p_at_least_exact"] = fraction_text(dist.p_at_least_exact(dc))
        if evasion is not None:
            data["evasion"] = evasion
            data["expected_damage"] = dist.expected_damage(evasion)
            data["expected_damage_exact"] = fraction_text(dist.expected_damage_exact(evasion))
        print_json(data)
    else:
        console = out()
        table, note = odds_table(dist, dc=dc, evasion=evasion, exact=exact)
        console.print(table)
        if note:
            console.print(note, style="dim")
        show_exact = exact or exact_is_cheap(dist, expr)
        for line in odds_summary(dist, dc=dc, evasion=evasion, exact=exact, show_exact=show_exact):
            console.print(line, soft_wrap=True)
    if plot is not None:
        saved(plot, as_json)
