"""The one catalogue of the errors Caltrop raises. Each says why, in the game's own words.

Every error a player, a content file, a log or an option can cause is a :class:`CaltropError`
defined here (the modules that raise one import it from here, and some re-export it under their
own name too), so ``except CaltropError`` catches them all and a reader finds them in one place.
What is left are programming errors: a caller in code breaking a function's documented contract
(``roll()`` given both ``rng=`` and ``entered=``), or a case the types rule out
(``raise AssertionError(stage)``), raised as the built-in exception Python would use.
``tests/test_errors.py`` finds every ``raise`` in ``src/caltrop`` and fails on one that is
neither a :class:`CaltropError` nor a programming error listed there with its reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BusyError",
    "CaltropError",
    "ConflictError",
    "ContentError",
    "ContentFileError",
    "DiceInputError",
    "DiceLimitError",
    "DiceSyntaxError",
    "DiceTypeError",
    "DifficultyError",
    "FastPathError",
    "ForbiddenError",
    "FormError",
    "IllegalActionError",
    "InvalidActionError",
    "LogFileError",
    "NoSeatError",
    "NotDeterministicError",
    "NotFoundError",
    "OutOfStepError",
    "OverrideError",
    "PointsTacticalMismatchError",
    "Problem",
    "RefusalError",
    "RefusedError",
    "ReplayMismatchError",
    "SimulationError",
    "StateSpaceTooLargeError",
    "SupersededError",
    "TacticalMismatchError",
    "TooLargeError",
    "UnknownPolicyError",
    "VaryError",
]


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


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a content file (:class:`ContentFileError` lists them)."""

    file: str
    line: int  # 1-based
    field: str  # "creature.aspects.Finesse"; empty for the file as a whole
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}"
        return (
            f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"
        )


class ContentFileError(ContentError):
    """A content file that is malformed; ``problems`` lists each fault with its file and line.

    ``str(error)`` gives one line per problem: ``goblin.yaml:7: creature.aspects.Finesse:
    expected an integer, got 'high'``. (Made by :mod:`caltrop.content.problems`.)
    """

    def __init__(self, problems: Sequence[Problem]) -> None:
        if not problems:
            raise ValueError("a ContentFileError needs at least one problem")
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    @property
    def first(self) -> Problem:
        return self.problems[0]


class LogFileError(CaltropError, ValueError):
    """A log file that cannot be read or written; the message names the file and why."""


# -- simulation -----------------------------------------------------------------------------------


class SimulationError(CaltropError):
    """A simulation that cannot run as asked (bad options, an encounter that never ends)."""


class UnknownPolicyError(CaltropError, ValueError):
    """A policy name nobody registered."""


class OverrideError(CaltropError, ValueError):
    """A ``KEY=VALUE`` that does not fit the encounter: unknown field, creature or value."""


class StateSpaceTooLargeError(CaltropError):
    """The encounter has more chance states than the cap allows: sample it instead."""


class NotDeterministicError(CaltropError, ValueError):
    """An exact answer needs policies that always make the same choice in the same state."""


class FastPathError(CaltropError, ValueError):
    """An encounter (or an option) the fast path cannot play exactly; the message says why."""


class ReplayMismatchError(CaltropError):
    """The engine, driven by :class:`~caltrop.sim.fast.reference.FastTacticPolicy`, did not do
    what the kernel did (a cross-check's finding: a CaltropError, not an AssertionError, so that
    ``except CaltropError`` reports it and a test's failed ``assert`` is never taken for one)."""


class TacticalMismatchError(CaltropError):
    """The engine, driven by the Python tactical policy, did not do what the compiled tactical
    kernel did (as :class:`ReplayMismatchError`, for the tactical kernel)."""


class PointsTacticalMismatchError(CaltropError):
    """The engine, driven by the Python tactical policy, did not do what the compiled Action
    Point tactical kernel did (as :class:`TacticalMismatchError`, for Action Points)."""


class SupersededError(CaltropError):
    """A builder's difficulty computation that a newer change of the same draft replaced
    (issue 23 item 3): stopped at its next step, its answer never sent."""


class DifficultyError(CaltropError, ValueError):
    """A difficulty question that cannot be asked as put (a bad sample size, seed or budget)."""


class VaryError(OverrideError):
    """A ``--vary`` name that is not a whole-number stat of the encounter's creatures."""


# -- the table's store --------------------------------------------------------------------------


class ConflictError(CaltropError):
    """Another writer appended to the same log first (the unique seq): nothing was stored."""


class RefusalError(CaltropError):
    """A request the table refuses, saying why; nothing changed. Its kind says which (no seat,
    not allowed, out of step, too large, refused by a field or the rules, not found); the table
    server maps each kind to its HTTP status in one table (``caltrop.web.errors.STATUS``), so
    the service knows no HTTP (issue 24 item 3). ``extra``: fields a client may act on (the
    log's ``head`` with a stale ``expected_seq``)."""

    def __init__(self, reason: str, **extra: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        self.extra = extra


class NoSeatError(RefusalError):
    """No seat: no token, or an unknown or revoked one."""


class ForbiddenError(RefusalError):
    """The seat may not do this (a player's GM command, a player's export), or the request
    came from another site's page."""


class OutOfStepError(RefusalError):
    """The table is not where the request thought: a stale ``expected_seq``, a command id
    another seat used, a creature that does not play in the encounter now."""


class TooLargeError(RefusalError):
    """A body, an upload or a file larger than what the table takes."""


class RefusedError(RefusalError):
    """A field is wrong, or the game's rules refuse the command (with the rule's words)."""


class FormError(RefusedError):
    """A web form that does not make a command: the message says which field is wrong."""


class BusyError(RefusalError):
    """More computations asked of the server at once than it takes (the encounter builder's
    difficulty panel and suggestions, issue 23 item 3): try again in a moment."""


class NotFoundError(RefusalError):
    """No such table, encounter or log."""
