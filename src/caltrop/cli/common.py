"""What every command shares: consoles, the one error path (red, stderr, exit 2), number formats.

Consoles are made per call, not at import, so they write to whatever ``sys.stdout`` /
``sys.stderr`` are at that moment (the test runner swaps them).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.console import Console

from caltrop.dice.ast import Expr
from caltrop.dice.parse import parse
from caltrop.errors import CaltropError

#: Exit code of every user error (bad expression, bad entered dice, bad option): click's usage code.
USAGE_ERROR = 2


def out() -> Console:
    """The console for results (stdout). Markup is off: dice text contains ``[`` and ``]``."""
    return Console(markup=False, highlight=False)


def err() -> Console:
    return Console(stderr=True, markup=False, highlight=False)


def fail(message: str) -> NoReturn:
    """Print ``Error: message`` in red to stderr and exit with code 2 — no traceback."""
    err().print(f"Error: {message}", style="bold red", soft_wrap=True)
    raise typer.Exit(USAGE_ERROR)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn Caltrop's own errors (syntax with its caret, limits, entered dice) into :func:`fail`."""
    try:
        yield
    except CaltropError as exc:
        fail(str(exc))


def parse_expr(text: str, what: str = "expression") -> Expr:
    """Parse a dice expression given on the command line; a bad one is a user error."""
    try:
        return parse(text)
    except CaltropError as exc:
        fail(f"{what}: {exc}" if what != "expression" else str(exc))


def exclusive(**options: object) -> None:
    """Fail unless at most one of ``options`` (name → value or None/False) is set."""
    given = [name for name, value in options.items() if value is not None and value is not False]
    if len(given) > 1:
        names = " and ".join(f"--{n.replace('_', '-')}" for n in given)
        fail(f"{names} cannot be used together")


def print_json(data: dict[str, Any]) -> None:
    """Write one JSON document to stdout (plain ``print``: no wrapping, no colour)."""
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))


def fraction_text(value: Fraction) -> str:
    """``"num/den"`` always (also ``"1/1"`` and ``"0/1"``), so ``Fraction(text)`` reads it back."""
    return f"{value.numerator}/{value.denominator}"


def percent(p: float, *, certain: bool = False, impossible: bool = False, digits: int = 2) -> str:
    """A probability as a percentage that never rounds a possibility away or invents certainty.

    ``certain``/``impossible`` come from the outcome range, not from the float (which may sit a
    rounding error away from 1): only those print as ``100%`` and ``0%``; anything else that
    would round to them prints as ``>99.99%`` / ``<0.01%``.
    """
    if certain:
        return "100%"
    if impossible or p <= 0.0:
        return "0%"
    text = f"{p * 100:.{digits}f}"
    if float(text) == 0.0:
        return f"<{10.0**-digits:.{digits}f}%"
    if float(text) >= 100.0:
        return f">{100 - 10.0**-digits:.{digits}f}%"
    return f"{text}%"


def saved(path: Path, as_json: bool) -> None:
    """Say where a plot went: on stdout after the text, on stderr when stdout carries JSON."""
    console = err() if as_json else out()
    console.print(f"plot saved to {path}", style="dim", soft_wrap=True)
