"""``caltrop play`` (an encounter at the terminal) and ``caltrop replay`` (re-run a log)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from caltrop.cli.encounter_view import command_story, screen
from caltrop.content import (
    default_encounter_path,
    encounter_from_dict,
    encounter_to_dict,
    load_encounter,
)
from caltrop.core.commands import parse_command
from caltrop.encounter import Encounter
from caltrop.errors import CaltropError

HELP = """\
Commands (one per line):
  aria: strike goblin with dagger +adv:torch   declare an action (advantage with a source key)
  aria: pick-lock dc 12                        a check against a DC
  bron: hinder                                 a team action on the pending roll (R15)
  bron: pass                                   decline to react to the pending roll
  roll                                         roll the pending roll with the seeded RNG
  roll 3,1,4,4,2,7                             enter physical dice instead
  aria: end turn                               end the turn (early is fine, R18)
  gm: call aria Finesse dc 12 [+count-load]    a GM-called roll (R17)
  gm: end encounter                            stop here
Session: help, legal [ID], undo, save [FILE], json, quit"""


def write_log(path: Path, encounter: Encounter) -> None:
    """Write the log atomically: a failed write never leaves half a save behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write("\n".join(encounter.log_lines()) + "\n")
    os.replace(tmp, path)


def read_log(path: Path) -> Encounter:
    """Rebuild an encounter from a JSON-lines log whose first event carries the encounter."""
    events: list[dict[str, Any]] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise CaltropError(f"{path}:{n}: not a JSON line ({exc.msg})") from None
    if not events or "header" not in events[0] or "definition" not in events[0]["header"]:
        raise CaltropError(
            f"{path}:1: the first line must be a 'begin' event carrying the encounter"
        )
    definition = encounter_from_dict(events[0]["header"]["definition"])
    try:
        return Encounter.replay(definition, events)
    except CaltropError as exc:
        raise CaltropError(f"{path}: {exc}") from exc


def begin(path: Path | None, seed: int | None) -> Encounter:
    source = path if path is not None else default_encounter_path()
    definition = load_encounter(source)
    header = {"definition": encounter_to_dict(definition)}
    return Encounter.begin(definition, seed, header=header)


def _session(encounter: Encounter, console: Console, log: Path | None) -> None:
    console.print(screen(encounter))
    while True:
        try:
            line = console.input("[bold]> [/bold]").strip()
        except EOFError:
            break
        if not line:
            continue
        word, _, rest = line.partition(" ")
        if word in ("quit", "exit"):
            break
        if word == "help":
            console.print(HELP, markup=False, highlight=False)
            continue
        if word == "json":
            console.print_json(encounter.to_json())
            continue
        if word == "legal":
            who = rest.strip() or None
            legal = [str(c) for c in encounter.legal_actions(who)]
            console.print("\n".join(legal) if legal else "nothing", markup=False)
            continue
        if word == "save":
            target = Path(rest.strip()) if rest.strip() else log
            if target is None:
                console.print("[red]save where? 'save FILE.jsonl' (or start with --log FILE)[/red]")
                continue
            write_log(target, encounter)
            console.print(f"saved {len(encounter.commands)} commands to {target}")
            continue
        if word == "undo":
            try:
                undone = encounter.undo()
            except CaltropError as exc:
                console.print(f"[red]{exc}[/red]")
                continue
            console.print(f"undone: {undone}", markup=False)
        else:
            try:
                command = parse_command(line)
                outcome = encounter.apply(command)
            except CaltropError as exc:
                console.print(f"[red]✗ {exc}[/red]", highlight=False)
                continue
            console.print(command_story(encounter, command, outcome), markup=False, highlight=False)
        if log is not None:
            write_log(log, encounter)
        console.print(screen(encounter))
    if log is not None:
        write_log(log, encounter)
        console.print(f"log saved to {log}")


def play(
    encounter_file: Annotated[
        Path | None, typer.Argument(help="Encounter YAML (default: the bundled example)")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the dice (recorded in the log)")] = None,
    log: Annotated[Path | None, typer.Option(help="Save the log here after every command")] = None,
) -> None:
    """Run an encounter at the terminal: declare, react, roll (or type physical dice), undo, save."""
    console = Console()
    try:
        encounter = begin(encounter_file, seed)
    except CaltropError as exc:
        console.print(f"[red]{exc}[/red]", highlight=False)
        raise typer.Exit(2) from None
    console.print(f"[bold]{encounter.definition.name}[/bold] — seed {encounter.seed}; type 'help'")
    _session(encounter, console, log)


def replay(
    log_file: Annotated[Path, typer.Argument(help="A log written by 'caltrop play --log'")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the final state as JSON")] = False,
) -> None:
    """Re-run a log: print the story and the final state."""
    console = Console()
    try:
        encounter = read_log(log_file)
    except (CaltropError, OSError) as exc:
        Console(stderr=True).print(f"[red]{exc}[/red]", highlight=False)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(encounter.to_json())
        return
    story = Encounter.begin(encounter.definition, encounter.seed, header=encounter.header)
    for n, command in enumerate(encounter.commands, start=1):
        outcome = story.apply(command)
        console.print(
            f"{n:>4}. {command}  —  {command_story(story, command, outcome)}", markup=False
        )
    console.print(screen(encounter))
