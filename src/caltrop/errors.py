"""The narrow errors Caltrop raises. Each says why, in the game's own words."""

from __future__ import annotations


class CaltropError(Exception):
    """Base class of every error Caltrop raises on purpose."""


class DiceSyntaxError(CaltropError, ValueError):
    """A dice expression that does not parse; the message points at the offending character."""

    def __init__(self, text: str, column: int, expected: str) -> None:
        self.text = text
        self.column = column  # 1-based
        self.expected = expected
        caret = " " * (column - 1) + "^"
        shown = "".join(_shown(ch) for ch in text)
        super().__init__(
            f"bad dice expression at column {column}: {expected}\n  {shown}\n  {caret}"
        )


def _shown(ch: str) -> str:
    """``ch`` as an error message may print it: a control, format or unpaired surrogate
    character (an escape sequence, a bidi override) becomes ``?``, one column wide, so the caret
    stays under its column and nothing reaches the terminal raw. A tab is kept."""
    if ch == "\t" or ch.isprintable() or ch == " ":
        return ch
    return "?"


class DiceTypeError(CaltropError, TypeError):
    """Something that is not text given where a dice expression belongs (``parse(None)``)."""


class DiceLimitError(CaltropError, ValueError):
    """A dice expression larger than Caltrop will evaluate (too many dice or sides)."""


class InvalidActionError(CaltropError, ValueError):
    """A command that is malformed: unknown creature or action, bad syntax, wrong arguments."""


class DiceInputError(InvalidActionError):
    """Entered physical dice that do not fit the expression (wrong count or a face out of range).

    A malformed ``roll 3,1,9`` command, so an :class:`InvalidActionError` (R5: the count and
    every face are checked before anything changes).
    """


class IllegalActionError(CaltropError, ValueError):
    """A well-formed command that the rules forbid right now; the message gives the arithmetic."""


class ContentError(CaltropError, ValueError):
    """A content file (creature, action, weapon, ruleset, encounter) that is malformed.

    The message names the file, the line and the field, and what was expected.
    """
