"""Issue 10 ("the CLI entry points through CliRunner"): a session of ``caltrop play`` fed hostile
lines — session words with odd arguments, commands with every verb, control characters, non-ASCII
digits, huge numbers — never reaches a traceback, ends normally and refuses in words."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from caltrop.cli import app
from tests.fuzzing import fuzz, within

LINES = st.one_of(
    st.sampled_from(
        [
            "undo",
            "undo ²",
            "undo 99999999999999",
            "legal",
            "legal nobody",
            "save",
            "save /dev/null",
            "json",
            "help",
            "roll",
            "roll ,",
            "roll ٣,1",
            "bron: strike orc-brute",
            "bron: end turn",
            "aria: help",
            "gm: pass all",
            "gm: heal bron 3",
            "gm: add goblin",
            "gm: add ../../../etc/passwd",
            "gm: order bron",
            "gm: set bron at 1e308,0",
        ]
    ),
    st.text(max_size=40),
)


@fuzz(40)
@given(lines=st.lists(LINES, max_size=12))
def test_play_survives_any_lines(lines: list[str]) -> None:
    stdin = "\n".join(line.replace("\n", " ") for line in lines) + "\nquit\n"
    runner = CliRunner()
    result = within(
        60, lambda: runner.invoke(app, ["play", "orc-bridge", "--seed", "1"], input=stdin)
    )
    assert "Traceback" not in result.output
    assert result.exit_code == 0, result.output[-2000:]
