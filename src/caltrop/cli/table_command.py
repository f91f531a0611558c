"""``caltrop table``: the odds reference a GM keeps beside the screen.

P(success) by pool size × DC and expected damage by pool size × Evasion, from
:func:`caltrop.dice.tables.success_table` and :func:`~caltrop.dice.tables.damage_table`.

Default column ranges follow the pools asked for: DCs run from the first DC the smallest pool
can miss (below it every pool is certain) to the median total of the largest pool (above it
even the largest pool fails more often than not); Evasions run one lower, because damage is
dealt iff total ≥ Evasion + 1, so the Evasion column E lines up with the DC column E + 1.
Wide ranges are split into blocks that fit the terminal.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import numpy.typing as npt
import typer
from rich import box
from rich.table import Table

from caltrop.cli.common import (
    fail,
    fraction_text,
    out,
    parse_expr,
    percent,
    print_json,
    saved,
    user_errors,
)
from caltrop.cli.inputs import MAX_TOTAL, column_span, plot_target
from caltrop.cli.render import Cell, grid_tables
from caltrop.dice.ast import Dice, Expr, Term
from caltrop.dice.distribution import Distribution, distribution
from caltrop.dice.tables import OddsTable, damage_table, success_table

MAX_POOL = 200


def _pool_dist(n: int, extra: Expr | None) -> Distribution:
    terms = (Term(1, Dice(n, 4)), *(extra.terms if extra is not None else ()))
    return distribution(Expr(terms))


def _median_top(dist: Distribution) -> int:
    """The largest t with P(total ≥ t) ≥ 1/2 (exact, so ties at exactly 1/2 are kept)."""
    t = dist.max
    while t > dist.min and dist.p_at_least_exact(t) < Fraction(1, 2):
        t -= 1
    return t


def _span(lo: int | None, hi: int | None, default: tuple[int, int], what: str) -> range:
    hi_ = hi if hi is not None else max(default[1], lo if lo is not None else default[1])
    lo_ = lo if lo is not None else min(default[0], hi_)
    return column_span(lo_, hi_, what)


def _as_float(t: OddsTable) -> npt.NDArray[np.float64]:
    if isinstance(t.values, np.ndarray):
        return t.values
    return np.array([[float(v) for v in row] for row in t.values], dtype=np.float64)


def _success_cell(p: float, certain: bool, impossible: bool) -> Cell:
    if certain:
        return "100", "dim"
    if impossible:
        return "·", "dim"
    r = round(p * 100)
    text = "<1" if r < 1 else ">99" if r > 99 else str(r)
    style = "bold green" if p >= 0.75 else "green" if p >= 0.5 else "yellow" if p >= 0.25 else "red"
    return text, style


def _damage_cell(v: float, impossible: bool) -> Cell:
    if impossible:
        return "·", "dim"
    return ("<0.1" if v < 0.05 else f"{v:.1f}"), ""


def table(
    max_pool: Annotated[
        int, typer.Option("--max-pool", min=1, max=MAX_POOL, help="Largest pool (d4s).")
    ] = 12,
    min_pool: Annotated[
        int, typer.Option("--min-pool", min=1, max=MAX_POOL, help="Smallest pool (d4s).")
    ] = 1,
    extra: Annotated[
        str | None,
        typer.Option("--extra", help="Extra dice on every roll, e.g. a weapon's 1d8."),
    ] = None,
    min_dc: Annotated[
        int | None,
        typer.Option("--min-dc", min=-MAX_TOTAL, max=MAX_TOTAL, help="First DC column."),
    ] = None,
    max_dc: Annotated[
        int | None,
        typer.Option("--max-dc", min=-MAX_TOTAL, max=MAX_TOTAL, help="Last DC column."),
    ] = None,
    min_evasion: Annotated[
        int | None,
        typer.Option("--min-evasion", min=0, max=MAX_TOTAL, help="First Evasion column."),
    ] = None,
    max_evasion: Annotated[
        int | None,
        typer.Option("--max-evasion", min=0, max=MAX_TOTAL, help="Last Evasion column."),
    ] = None,
    exact: Annotated[
        bool, typer.Option("--exact", help="Exact fractions, one line per pool and column.")
    ] = False,
    plot: Annotated[
        Path | None,
        typer.Option("--plot", help="Also save the tables as heatmaps to this PNG file."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")] = False,
) -> None:
    """The GM's odds reference: P(success) by pool × DC, expected damage by pool × Evasion."""
    if min_pool > max_pool:
        fail(f"--min-pool {min_pool} is above --max-pool {max_pool}")
    extra_expr = parse_expr(extra, "--extra") if extra is not None else None
    plot = plot_target(plot) if plot is not None else None
    pools = range(min_pool, max_pool + 1)
    with user_errors():  # the largest pool and --extra together may pass the dice limit
        smallest, largest = _pool_dist(min_pool, extra_expr), _pool_dist(max_pool, extra_expr)
    default_dc = (smallest.min + 1, _median_top(largest))
    dcs = _span(min_dc, max_dc, default_dc, "dc")
    evasions = _span(
        min_evasion, max_evasion, (max(0, default_dc[0] - 1), max(0, default_dc[1] - 1)), "evasion"
    )
    success = success_table(pools, dcs, extra_expr, exact=exact)
    damage = damage_table(pools, evasions, extra_expr, exact=exact)
    lows = [_pool_dist(n, extra_expr).min for n in pools]
    highs = [_pool_dist(n, extra_expr).max for n in pools]
    pool_label = f"{min_pool}–{max_pool} d4" + (f" + {extra_expr}" if extra_expr else "")

    success_f, damage_f = _as_float(success), _as_float(damage)
    success_cells = [
        [
            _success_cell(float(success_f[i, j]), dc <= lows[i], dc > highs[i])
            for j, dc in enumerate(dcs)
        ]
        for i in range(len(pools))
    ]
    damage_cells = [
        [_damage_cell(float(damage_f[i, j]), ev >= highs[i]) for j, ev in enumerate(evasions)]
        for i in range(len(pools))
    ]

    if plot is not None:
        from caltrop.cli.plots import save, table_figure  # matplotlib loads only when asked

        fig = table_figure(
            success=success_f,
            success_labels=[[t for t, _ in row] for row in success_cells],
            damage=damage_f,
            damage_labels=[[t for t, _ in row] for row in damage_cells],
            pools=pools,
            dcs=dcs,
            evasions=evasions,
            pool_label=pool_label,
        )
        save(fig, plot)

    if as_json:
        data: dict[str, Any] = {
            "extra": str(extra_expr) if extra_expr else None,
            "pools": list(pools),
            "dcs": list(dcs),
            "evasions": list(evasions),
            "success": success_f.tolist(),
            "expected_damage": damage_f.tolist(),
        }
        if exact:
            data["success_exact"] = _exact_rows(success)
            data["expected_damage_exact"] = _exact_rows(damage)
        print_json(data)
    else:
        console = out()
        console.print(
            f"Odds for pools of {pool_label} (players typically roll 3–7 d4s).", style="bold"
        )
        if exact:
            console.print(_long_table(success, "P(total ≥ DC)", "DC", lows, highs, percent_=True))
            console.print(_long_table(damage, "expected damage", "Evasion", lows, highs))
        else:
            for t in grid_tables(
                title="P(success) in %: total ≥ DC",
                row_head="d4",
                column_name="DC",
                rows=pools,
                columns=dcs,
                cell=lambda i, j: success_cells[i][j],
                width=console.width,
            ):
                console.print(t)
            for t in grid_tables(
                title="Expected damage: max(0, total − Evasion)",
                row_head="d4",
                column_name="Evasion",
                rows=pools,
                columns=evasions,
                cell=lambda i, j: damage_cells[i][j],
                width=console.width,
            ):
                console.print(t)
            console.print(
                "100 = certain, · = impossible; <1 and >99 are near but not at 0% and 100%;"
                " <0.1 is a small but possible damage. Exact fractions: --exact.",
                style="dim",
            )
    if plot is not None:
        saved(plot, as_json)


def _exact_rows(t: OddsTable) -> list[list[str]]:
    assert not isinstance(t.values, np.ndarray)
    return [[fraction_text(v) for v in row] for row in t.values]


def _long_table(
    t: OddsTable,
    what: str,
    column_name: str,
    lows: list[int],
    highs: list[int],
    *,
    percent_: bool = False,
) -> Table:
    """One line per pool and column: the exact fraction and its decimal."""
    table = Table(title=f"{what}, exact", title_justify="left", box=box.SIMPLE_HEAD)
    table.add_column("d4", justify="right")
    table.add_column(column_name, justify="right")
    table.add_column(what, justify="right")
    table.add_column("≈", justify="right")
    assert not isinstance(t.values, np.ndarray)
    for i, (n, row) in enumerate(zip(t.pools, t.values, strict=True)):
        for j, (c, v) in enumerate(zip(t.columns, row, strict=True)):
            if percent_:
                approx = percent(float(v), certain=c <= lows[i], impossible=c > highs[i])
            else:
                approx = f"{float(v):.4f}"
            table.add_row(str(n), str(c), str(v), approx, end_section=j == len(row) - 1)
    return table
