"""Rich tables for the terminal: one expression's odds, and the GM's pool × DC / Evasion grids."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np
from rich import box
from rich.table import Table
from rich.text import Text

from caltrop.cli.common import fraction_text, percent
from caltrop.dice.ast import Expr
from caltrop.dice.distribution import Distribution


def _exact_cells(dist: Distribution, rows: range) -> dict[int, tuple[str, str, str]]:
    """Exact P(=t), P(≥t) and P(≤t) of the shown rows: running sums of the integer counts (not
    of fractions, whose every sum reduces by a gcd of thousands of bits), a fraction only for
    each shown cell (at most :data:`MAX_ROWS` of 20,001 totals)."""
    counts, denominator = dist.exact_counts()
    at_most = list(itertools.accumulate(counts))
    total = at_most[-1]
    cells: dict[int, tuple[str, str, str]] = {}
    for i in rows:
        below = at_most[i - 1] if i else 0
        cells[i] = (
            str(Fraction(counts[i], denominator)),
            str(Fraction(total - below, denominator)),
            str(Fraction(at_most[i], denominator)),
        )
    return cells


#: Odds tables longer than this drop totals rarer than :data:`NEGLIGIBLE` at either end …
ALL_ROWS = 60
NEGLIGIBLE = 1e-6
#: … and never print more rows than this (``--json`` has them all).
MAX_ROWS = 400


def shown_rows(dist: Distribution, focus: int | None) -> range:
    """Indices of the totals worth a row: all of a short table; the body of a long one.

    A long table keeps the totals with P(≥t) and P(≤t) both at least one in a million, widened
    to include ``focus`` (the DC, or the first damaging total), then at most :data:`MAX_ROWS`
    rows centred on the focus (or the median).
    """
    n = len(dist.probabilities)
    if n <= ALL_ROWS:
        return range(n)
    ge = dist.at_least()
    le = np.cumsum(dist.probabilities)
    body = np.flatnonzero((ge >= NEGLIGIBLE) & (le >= NEGLIGIBLE))
    lo, hi = int(body[0]), int(body[-1])
    f = None if focus is None else min(max(focus - dist.min, 0), n - 1)
    if f is not None:
        lo, hi = min(lo, f), max(hi, f)
    if hi - lo + 1 > MAX_ROWS:
        centre = f if f is not None else int(np.searchsorted(le, 0.5))
        lo = max(lo, min(centre - MAX_ROWS // 2, hi - MAX_ROWS + 1))
        hi = lo + MAX_ROWS - 1
    return range(lo, hi + 1)


def odds_table(
    dist: Distribution, *, dc: int | None, evasion: int | None, exact: bool
) -> tuple[Table, str | None]:
    """One row per total: P(=t), P(≥t), P(≤t) (and the damage against ``evasion``).

    With ``dc`` the rows that succeed are green and the DC row is bold. Long tables show the
    rows of :func:`shown_rows`; the note that comes with the table says what they left out.
    """
    focus = dc if dc is not None else (evasion + 1 if evasion is not None else None)
    rows = shown_rows(dist, focus)
    note = None
    if len(rows) < len(dist.probabilities):
        first, last = dist.min + rows.start, dist.min + rows.stop - 1
        note = (
            f"showing totals {first}–{last} of {dist.min}–{dist.max}; the others are rarer than"
            f" 1 in {round(1 / NEGLIGIBLE):,} or too many to list (--json lists every total)"
        )
    table = Table(title=dist.label, box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("total", justify="right")
    for head in ("P(=t)", "P(≥t)", "P(≤t)"):
        table.add_column(head, justify="right")
    if evasion is not None:
        table.add_column(f"damage vs E{evasion}", justify="right")
    outcomes = dist.outcomes
    last = len(dist.probabilities) - 1
    if exact:
        cells = _exact_cells(dist, rows)
    else:
        probs = dist.probabilities
        ge_f = dist.at_least()
        le_f = np.cumsum(probs)
        cells = {
            i: (
                percent(float(probs[i]), certain=last == 0),
                percent(float(ge_f[i]), certain=i == 0),
                percent(float(le_f[i]), certain=i == last),
            )
            for i in rows
        }
    for i in rows:
        t = outcomes[i]
        extra = [str(max(0, t - evasion))] if evasion is not None else []
        style = ""
        if dc is not None and t >= dc:
            style = "bold green" if t == dc else "green"
        elif evasion is not None and t > evasion:
            style = "green"
        table.add_row(str(t), *cells[i], *extra, style=style)
    return table, note


def exact_is_cheap(dist: Distribution, expr: Expr) -> bool:
    """Whether exact fractions cost well under a second (the text form then shows them unasked).

    The exact backend's work grows with outcomes × bits per count (the bits of ∏ sides).
    """
    bits = sum(d.count * math.log2(max(d.sides, 2)) for d in expr.dice())
    return len(dist.probabilities) * bits <= 2e6


def odds_summary(
    dist: Distribution, *, dc: int | None, evasion: int | None, exact: bool, show_exact: bool
) -> list[str]:
    """Mean, stdev and range; then the answer to ``--dc`` or ``--evasion``.

    ``exact`` adds the exact mean and variance; ``show_exact`` adds the exact fraction to the
    answers (computed in float otherwise, for expressions too big to do exactly in a blink).
    """
    lines = [
        f"{dist.label}: totals {dist.min}–{dist.max}, mean {dist.mean:.4g}, stdev {dist.stdev:.4g}"
    ]
    if exact:
        lines.append(
            f"exact: mean {dist.mean_exact}, variance {dist.variance_exact} (stdev = √variance)"
        )
    if dc is not None:
        if show_exact:
            p = dist.p_at_least_exact(dc)
            shown = percent(float(p), certain=p == 1, impossible=p == 0)
            lines.append(f"P(total ≥ DC {dc}) = {shown} = {fraction_text(p)}")
        else:
            q = dist.p_at_least(dc)
            shown = percent(q, certain=dc <= dist.min, impossible=dc > dist.max)
            lines.append(f"P(total ≥ DC {dc}) = {shown}")
    if evasion is not None:
        hit = percent(
            dist.p_at_least(evasion + 1),
            certain=evasion + 1 <= dist.min,
            impossible=evasion + 1 > dist.max,
        )
        if show_exact:
            d = dist.expected_damage_exact(evasion)
            value = f"{float(d):.4g} = {fraction_text(d)}"
        else:
            value = f"{dist.expected_damage(evasion):.4g}"
        lines.append(f"expected damage vs Evasion {evasion} = {value}; P(damage > 0) = {hit}")
    return lines


# -- the GM's grids ----------------------------------------------------------------------------

Cell = tuple[str, str]  # text, style
CellFn = Callable[[int, int], Cell]  # (row index, column index) -> cell


def grid_tables(
    *,
    title: str,
    row_head: str,
    column_name: str,
    rows: Sequence[int],
    columns: Sequence[int],
    cell: CellFn,
    width: int,
) -> list[Table]:
    """A rows × columns grid split into column blocks that each fit ``width`` terminal columns.

    One block per slice of columns, every block repeating the row labels, so a wide DC range
    reads as two short tables rather than one wrapped mess.
    """
    texts = [[cell(i, j) for j in range(len(columns))] for i in range(len(rows))]
    cell_w = max([len(str(c)) for c in columns] + [len(t) for row in texts for t, _ in row] + [1])
    label_w = max([len(row_head)] + [len(str(r)) for r in rows])
    # No padding: SIMPLE_HEAD separates columns with one space, so a column takes cell_w + 1.
    per_block = max(1, (width - label_w) // (cell_w + 1))
    blocks: list[Table] = []
    for start in range(0, len(columns), per_block):
        stop = min(start + per_block, len(columns))
        table = Table(
            title=f"{title}, {column_name} {columns[start]}–{columns[stop - 1]}",
            title_justify="left",
            box=box.SIMPLE_HEAD,
            padding=0,
            pad_edge=False,
            show_edge=False,
        )
        table.add_column(row_head, justify="right", style="bold", no_wrap=True, min_width=label_w)
        for j in range(start, stop):
            table.add_column(str(columns[j]), justify="right", no_wrap=True, min_width=cell_w)
        for i, r in enumerate(rows):
            row = texts[i][start:stop]
            table.add_row(str(r), *[Text(t, style=style) for t, style in row])
        blocks.append(table)
    return blocks
