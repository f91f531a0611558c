"""Bounds and readers for what the dice commands (``roll``, ``odds``, ``pool``, ``table``) take
from the command line, so every bad value is refused with one line and exit code 2.

Each integer option has a range (click refuses one outside it, and one too long to convert,
before the command runs): nothing reaches numpy or ``str()`` as a 5,000-digit number. Texts that
are echoed back (an Aspect's name, an advantage's source) must be short and printable, so no
escape sequence reaches the terminal. ``docs/limits.md`` lists every limit and its message.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from caltrop.cli.common import fail
from caltrop.dice.faces import parse_faces
from caltrop.dice.parse import MAX_DICE
from caltrop.errors import DiceInputError

#: ``--seed``: numpy takes any size, but a seed is printed to be typed back in.
MAX_SEED: Final = 2**64 - 1
#: ``--dc`` / ``--evasion`` and the table's DC and Evasion columns: past any total an
#: expression can reach (100 terms of at most 1,000,000), within a float's exact integers.
MAX_TOTAL: Final = 10**9
#: An Aspect, a Load, a Cost or a fixed pool: a pool never holds more than MAX_DICE dice.
MAX_POOL_NUMBER: Final = MAX_DICE
#: Columns of ``caltrop table`` (DCs, Evasions): a screen's reference, not a data dump.
MAX_COLUMNS: Final = 1000
#: A name or source key echoed back in the output.
MAX_NAME: Final = 40


def entered_faces(text: str) -> list[int]:
    """``--dice 3,1,4,4,2,7`` → faces (R5); a bad list is a user error naming the bad item."""
    try:
        return list(parse_faces(text))
    except DiceInputError as exc:
        fail(f"--dice: {exc}")


def printable_name(text: str, option: str) -> str:
    """``text`` if it is a short name of printable characters; else a user error."""
    if not text or len(text) > MAX_NAME or not text.isprintable():
        shown = repr(text if len(text) <= MAX_NAME else text[:MAX_NAME] + "...")
        fail(f"{option} {shown}: a name of 1 to {MAX_NAME} printable characters")
    return text


def column_span(lo: int, hi: int, what: str) -> range:
    """The columns ``lo..hi`` of a table; more than :data:`MAX_COLUMNS` is a user error."""
    if lo > hi:
        fail(f"--min-{what} {lo} is above --max-{what} {hi}")
    if hi - lo + 1 > MAX_COLUMNS:
        label = "DC" if what == "dc" else what.capitalize()
        fail(
            f"{label} columns {lo} to {hi} are {hi - lo + 1:,} columns; at most {MAX_COLUMNS:,} "
            f"(choose them with --min-{what} and --max-{what})"
        )
    return range(lo, hi + 1)


def plot_target(path: Path) -> Path:
    """Where ``--plot PATH`` really writes: PATH itself, or ``PATH.png`` when PATH has no
    suffix (matplotlib appends it); a directory or a device is a user error, before any work."""
    if "\x00" in str(path):
        fail(f"--plot {str(path)!r}: a file name has no NUL character")
    try:
        if path.is_dir() or not path.name:
            fail(f"--plot {path}: is a directory; give a file name such as odds.png")
        target = path if path.suffix else path.with_name(path.name + ".png")
        if target.is_dir():
            fail(f"--plot {path}: {target} is a directory; give a file name such as odds.png")
        if target.exists() and not target.is_file():
            fail(f"--plot {path}: {target} is not a regular file")
    except OSError as exc:
        fail(f"--plot {path}: {exc.strerror or exc}")
    return target
