"""Line editing, history and TAB completion of ``caltrop play`` (:mod:`caltrop.cli.line_editing`).

The glue is tested in-process; one test runs the real session on a pseudo-terminal and types
keys (TAB, the Up arrow) to see readline at work, as a user does.
"""

from __future__ import annotations

import os
import pty
import readline
import select
import signal
import sys
import time
from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import platformdirs
import pytest
from rich.console import Console

from caltrop.cli.line_editing import HISTORY_ENV, Completer, Prompt, history_path
from caltrop.content import load_encounter
from caltrop.encounter import Encounter


@pytest.fixture
def clean_history() -> Iterator[None]:
    readline.clear_history()
    yield
    readline.clear_history()
    readline.set_completer(None)


def test_the_history_file_is_in_the_user_data_dir_unless_caltrop_history_says(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(HISTORY_ENV, raising=False)
    assert (
        history_path() == platformdirs.user_data_path("caltrop", appauthor=False) / "play_history"
    )
    monkeypatch.setenv(HISTORY_ENV, str(tmp_path / "h"))
    assert history_path() == tmp_path / "h"


def test_the_completer_hands_out_the_candidates_one_by_one_with_a_space() -> None:
    encounter = Encounter.begin(load_encounter("goblin-ambush"), 1)
    line = "gm: end en"
    completer = Completer(lambda: encounter, lambda: line)
    assert completer("en", 0) == "encounter "
    assert completer("en", 1) is None
    line = "gm: order aria,"
    assert (completer("aria,", 0) or "").endswith(",")  # the order goes on: no space


def test_a_failing_completion_offers_nothing_and_raises_nothing() -> None:
    def broken() -> Encounter:
        raise RuntimeError("boom")

    assert Completer(broken, lambda: "ar")("ar", 0) is None


def test_not_a_terminal_reads_plain_lines_and_leaves_no_history(tmp_path: Path) -> None:
    """Non-TTY stdin (pipes, tests) behaves as before: no readline, no history file."""
    console = Console(file=StringIO())
    encounter = Encounter.begin(load_encounter("goblin-ambush"), 1)
    prompt = Prompt(console, lambda: encounter, interactive=False, history=tmp_path / "h")
    with prompt:
        assert prompt.readline is None
    assert not (tmp_path / "h").exists()


def test_a_terminal_session_loads_and_saves_the_history(
    tmp_path: Path, clean_history: None
) -> None:
    history = tmp_path / "deep" / "h"
    encounter = Encounter.begin(load_encounter("goblin-ambush"), 1)
    console = Console(file=StringIO())
    with Prompt(console, lambda: encounter, interactive=True, history=history):
        readline.add_history("aria: end turn")
    assert history.read_text(encoding="utf-8").splitlines()[-1] == "aria: end turn"
    readline.clear_history()
    with Prompt(console, lambda: encounter, interactive=True, history=history):
        n = readline.get_current_history_length()
        assert readline.get_history_item(n) == "aria: end turn"
        assert readline.get_completer() is not None
    assert readline.get_completer() is None


def test_an_unwritable_history_is_one_line_not_a_traceback(
    tmp_path: Path, clean_history: None
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    out = StringIO()
    encounter = Encounter.begin(load_encounter("goblin-ambush"), 1)
    with Prompt(
        Console(file=out, width=300), lambda: encounter, interactive=True, history=blocker / "h"
    ):
        pass
    assert out.getvalue().startswith(f"(history not saved to {blocker / 'h'}")


def _read(fd: int, until: bytes, timeout: float = 60.0) -> bytes:
    """Read the terminal until ``until`` shows up (or the time is out)."""
    got = b""
    end = time.monotonic() + timeout
    while until not in got and time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            got += chunk
    return got


def _after_prompt(fd: int, marker: bytes) -> bytes:
    """Read past ``marker`` up to the next prompt (keys typed before it would reach the
    terminal's line discipline, not readline)."""
    got = _read(fd, marker)
    at = got.find(marker)
    while at != -1 and b"> " not in got[at:]:
        more = _read(fd, b"> ", 60)
        if not more:
            break
        got += more
    return got


def _finish(pid: int, fd: int) -> int:
    """Read the session to its end and reap it: its exit status (killed if it hangs on)."""
    _read(fd, b"\x00 never", 60)  # until the terminal closes (or a minute passes)
    done, status = os.waitpid(pid, os.WNOHANG)
    if not done:
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status)


def test_at_a_terminal_tab_completes_and_up_recalls_across_sessions(tmp_path: Path) -> None:
    history = tmp_path / "history"
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = {**os.environ, HISTORY_ENV: str(history), "PYTHONPATH": src, "COLUMNS": "200"}
    env.pop("NO_COLOR", None)
    code = "from caltrop.cli import app; app(['play', 'goblin-ambush', '--seed', '1'])"

    def session() -> tuple[int, int]:
        pid, fd = pty.fork()
        if pid == 0:  # pragma: no cover - the child
            os.execve(sys.executable, [sys.executable, "-c", code], env)
        _read(fd, b"> ", 180)
        return pid, fd

    pid, fd = session()
    os.write(fd, b"ari\t")
    assert _read(fd, b"aria: ", 10).endswith(b"aria: ")
    os.write(fd, b"en\t")
    assert b"end " in _read(fd, b"end ", 10)
    os.write(fd, b"\x15help\r")  # Ctrl-U clears the line
    assert b"TAB completes" in _after_prompt(fd, b"TAB completes.")
    os.write(fd, b"quit\r")
    assert _finish(pid, fd) == 0
    assert history.read_text(encoding="utf-8").splitlines()[-2:] == ["help", "quit"]

    pid, fd = session()
    os.write(fd, b"\x1b[A\x1b[A")  # Up, Up: 'quit', then 'help'
    echoed = _read(fd, b"help", 10)
    assert b"^[[A" not in echoed
    assert b"help" in echoed
    os.write(fd, b"\r")
    assert b"TAB completes" in _after_prompt(fd, b"TAB completes.")
    os.write(fd, b"\x04")  # end of input (at the prompt, where readline reads it)
    assert _finish(pid, fd) == 0
