"""Line editing, history and TAB completion at the ``caltrop play`` prompt (GNU readline).

Only when stdin is a terminal and the stdlib ``readline`` imports: arrows and the usual Emacs
keys edit the line, Up/Down walk the history (kept across sessions in :func:`history_path`),
TAB completes (:mod:`caltrop.cli.completion`). Elsewhere (pipes, tests, no readline) the prompt
reads lines exactly as before.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType, TracebackType

import platformdirs
from rich.console import Console

from caltrop.cli.completion import candidates
from caltrop.encounter import Encounter

#: The environment variable that moves the history file (tests use it).
HISTORY_ENV = "CALTROP_HISTORY"
#: How many lines the history file keeps.
HISTORY_LENGTH = 1000


def history_path() -> Path:
    """``$CALTROP_HISTORY``, or ``play_history`` in the user's data directory for caltrop."""
    override = os.environ.get(HISTORY_ENV)
    if override:
        return Path(override).expanduser()
    return platformdirs.user_data_path("caltrop", appauthor=False) / "play_history"


def _readline() -> ModuleType | None:
    """The stdlib ``readline``, or None where it does not import (Windows, some builds)."""
    try:
        import readline
    except ImportError:
        return None
    return readline


class Completer:
    """The readline completer: the candidates for the line up to the cursor, one by one.

    ``line_before`` gives the text before the cursor (readline's buffer up to its end index).
    """

    def __init__(self, encounter: Callable[[], Encounter], line_before: Callable[[], str]) -> None:
        self._encounter = encounter
        self._line_before = line_before
        self._matches: list[str] = []

    def __call__(self, text: str, state: int) -> str | None:
        if state == 0:
            try:
                words = candidates(self._encounter(), self._line_before())
            except Exception:  # a completion must never end the session
                words = []
            # Python's readline appends nothing to a completed word: the space is ours.
            self._matches = [w if w.endswith(",") else f"{w} " for w in words]
        return self._matches[state] if state < len(self._matches) else None


class Prompt:
    """Reads the session's lines: with readline on a terminal, plainly otherwise.

    Use as a context manager: entering loads the history and installs the completer,
    leaving saves the history (a failed save is one warning line, never a traceback).
    """

    def __init__(
        self,
        console: Console,
        encounter: Callable[[], Encounter],
        *,
        interactive: bool | None = None,
        history: Path | None = None,
    ) -> None:
        self.console = console
        is_tty = sys.stdin.isatty() if interactive is None else interactive
        self.readline = _readline() if is_tty else None
        self.history = history if history is not None else history_path()
        self._encounter = encounter

    def __enter__(self) -> Prompt:
        rl = self.readline
        if rl is None:
            return self
        with contextlib.suppress(OSError):  # no history yet (or unreadable): start afresh
            rl.read_history_file(self.history)
        rl.set_history_length(HISTORY_LENGTH)
        rl.set_completer_delims(" ")
        rl.set_completer(
            Completer(self._encounter, lambda: rl.get_line_buffer()[: rl.get_endidx()])
        )
        if "libedit" in (rl.__doc__ or ""):
            rl.parse_and_bind("bind ^I rl_complete")
        else:
            rl.parse_and_bind("tab: complete")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        rl = self.readline
        if rl is None:
            return
        rl.set_completer(None)
        try:
            self.history.parent.mkdir(parents=True, exist_ok=True)
            rl.write_history_file(self.history)
        except OSError as err:
            self.console.print(
                f"(history not saved to {self.history}: {err.strerror or err})",
                markup=False,
                highlight=False,
            )

    def read(self) -> str:
        """One line from the user; EOFError / KeyboardInterrupt as :func:`input` raises them."""
        if self.readline is None:
            return self.console.input("[bold]> [/bold]")
        # The prompt goes to input() so readline knows its width (redraws, history); the
        # \001…\002 marks tell readline the bold codes take no room.
        bold = self.console.color_system is not None
        return input("\001\033[1m\002> \001\033[0m\002" if bold else "> ")
