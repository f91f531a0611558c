"""The ``caltrop`` command (typer + rich): ``roll``, ``odds``, ``pool``, ``table``, ``play``, ``replay``,
``sim``, ``sweep``, ``difficulty``, ``serve`` (the table server), and for content ``validate``, ``new`` and ``examples``.

One small module per command group; this package only assembles them. User errors (a bad
expression, bad entered dice, a bad option) print in red on stderr and exit with code 2.
"""

from __future__ import annotations

from typing import Annotated

import typer

from caltrop import __version__
from caltrop.cli import (
    content_commands,
    dice_commands,
    difficulty_command,
    play,
    pool_command,
    serve,
    sim_commands,
    table_command,
)

app = typer.Typer(
    name="caltrop",
    help="Exact odds, rolls and encounters for a d4 dice-pool tabletop RPG.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)

# Arguments may start with a minus sign without `--`: an expression (-1d4+2d4) or a negative
# Aspect (R17: "even with a negative Aspect"). Caltrop defines no short options to clash with.
_NEGATIVE_OK = {"ignore_unknown_options": True}
app.command("roll", context_settings=_NEGATIVE_OK)(dice_commands.roll)
app.command("odds", context_settings=_NEGATIVE_OK)(dice_commands.odds)
app.command("pool", context_settings=_NEGATIVE_OK)(pool_command.pool)
app.command("table")(table_command.table)
app.command("play")(play.play)
app.command("replay")(play.replay)
app.command("sim")(sim_commands.sim)
app.command("sweep")(sim_commands.sweep)
app.command("difficulty")(difficulty_command.difficulty)
app.command("validate")(content_commands.validate)
app.command("new")(content_commands.new)
app.command("examples")(content_commands.examples)
app.command("serve")(serve.serve)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"caltrop {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Exact odds, rolls and the Action Load gate for a d4 dice-pool tabletop RPG."""


def main() -> None:
    """Console-script entry point."""
    app()


__all__ = ["app", "main"]
