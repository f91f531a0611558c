"""Ctrl-C during ``caltrop sim`` / ``caltrop sweep`` (issue 21 item 7, issue 25 item 4): the
workers are stopped at once (:mod:`caltrop.sim.runner` terminates its pool), what had finished
is printed — the tables of the encounters every variant had played, or the whole main run when
the comparison under each tactic or the exact solve was interrupted — and the command exits 130
(128 + SIGINT, the shell's convention), leaving no process behind.

A command wrapped by :func:`stops_cleanly` says what it can show as it goes: :func:`expect`
before a run (how to build a summary from a cut run), :func:`reached` once the main summary is
built (and which stage comes next).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, ParamSpec, TypeVar

import typer

from caltrop.cli.common import err, print_json
from caltrop.sim.estimate import duration

if TYPE_CHECKING:
    from caltrop.sim.runner import SimResult

#: The exit status of a run stopped by Ctrl-C: 128 + SIGINT (2).
INTERRUPTED_EXIT = 130

P = ParamSpec("P")
R = TypeVar("R")


@dataclass(slots=True)
class _Run:
    """What an interrupted command can show: a summary of a cut run, or the one it reached."""

    rebuild: Callable[[SimResult], dict[str, Any]] | None = None
    show: Callable[[dict[str, Any]], None] | None = None
    as_json: bool = False
    summary: dict[str, Any] | None = None
    stage: str = "the run"


_RUNS: list[_Run] = []


def expect(
    rebuild: Callable[[SimResult], dict[str, Any]],
    show: Callable[[dict[str, Any]], None],
    *,
    as_json: bool,
) -> None:
    """The main run is about to start: on Ctrl-C, ``rebuild`` turns the encounters that
    finished into a summary, which ``show`` prints (or ``--json`` prints as JSON)."""
    if _RUNS:
        run = _RUNS[-1]
        run.rebuild, run.show, run.as_json = rebuild, show, as_json


def reached(summary: dict[str, Any], stage: str) -> None:
    """The main run's ``summary`` is complete; ``stage`` (e.g. "the comparison under each
    tactic") is what runs next, named if Ctrl-C stops it."""
    if _RUNS:
        _RUNS[-1].summary, _RUNS[-1].stage = summary, stage


def stops_cleanly(command: Callable[P, R]) -> Callable[P, R]:
    """``command`` with Ctrl-C turned into: what finished, printed; exit 130."""

    @functools.wraps(command)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        _RUNS.append(_Run())
        try:
            return command(*args, **kwargs)
        except KeyboardInterrupt as exc:
            _report(_RUNS[-1], exc)
            raise typer.Exit(INTERRUPTED_EXIT) from None
        finally:
            _RUNS.pop()

    return wrapped


def _report(run: _Run, exc: KeyboardInterrupt) -> None:
    from caltrop.sim.runner import RunInterrupted

    console = err()
    summary = run.summary
    if summary is not None:
        note = f"Interrupted (Ctrl-C) during {run.stage}: the main run, which finished, is shown."
    elif isinstance(exc, RunInterrupted) and exc.partial is not None and run.rebuild:
        summary = run.rebuild(exc.partial)
        note = (
            f"Interrupted (Ctrl-C) after {exc.done:,} of {exc.total:,} encounters: shown are "
            f"the first {exc.partial.n:,} of each variant, the ones every variant finished "
            "(still paired)."
        )
    elif isinstance(exc, RunInterrupted):
        note = (
            f"Interrupted (Ctrl-C) after {exc.done:,} of {exc.total:,} encounters: no "
            "encounter had finished in every variant, nothing to show."
        )
    else:
        note = "Interrupted (Ctrl-C) before any encounter finished: nothing to show."
    if summary is not None and run.show is not None:
        if run.as_json:
            print_json({**summary, "interrupted": note})
        else:
            run.show(summary)
    console.print(note, style="bold yellow", soft_wrap=True)


#: A piped run's first progress line comes this many seconds in (a short run prints none)...
PROGRESS_FIRST_SECONDS = 2.0
#: ...and the next ones at most this often.
PROGRESS_EVERY_SECONDS = 15.0


@dataclass(slots=True)
class ProgressLines:
    """Progress of a run whose stderr is a pipe or a file (no bar can be drawn there): one line
    — done of total, elapsed, the time left at the rate so far — after
    :data:`PROGRESS_FIRST_SECONDS`, then at most every :data:`PROGRESS_EVERY_SECONDS`. Called
    with the encounters just finished, as the bar's ``advance`` is."""

    total: int
    what: str
    stream: IO[str]
    clock: Callable[[], float] = time.monotonic
    done: int = 0
    began: float = field(default=-1.0)
    last: float = field(default=-1.0)

    def __post_init__(self) -> None:
        self.began = self.clock()

    def __call__(self, k: int) -> None:
        self.done += k
        now = self.clock()
        wait = PROGRESS_FIRST_SECONDS if self.last < 0 else PROGRESS_EVERY_SECONDS
        if now - max(self.began, self.last) < wait or self.done >= self.total:
            return
        self.last = now
        elapsed = now - self.began
        left = elapsed * (self.total - self.done) / max(1, self.done)
        self.stream.write(
            f"{self.what}: {self.done:,} of {self.total:,} ({100 * self.done / self.total:.0f}%), "
            f"{duration(elapsed)} elapsed, about {duration(left)} left\n"
        )
        self.stream.flush()


__all__ = [
    "INTERRUPTED_EXIT",
    "PROGRESS_EVERY_SECONDS",
    "PROGRESS_FIRST_SECONDS",
    "ProgressLines",
    "expect",
    "reached",
    "stops_cleanly",
]
