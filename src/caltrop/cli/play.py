"""``caltrop play`` (an encounter at the terminal) and ``caltrop replay`` (re-run a log)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from caltrop.cli.encounter_view import command_story, legal_lines, screen, table_view
from caltrop.cli.line_editing import Prompt
from caltrop.content import (
    bundled_encounters,
    default_encounter_path,
    encounter_to_dict,
    load_encounter,
    resolve_creature,
)
from caltrop.content.logfile import read_log_events, remove_stale_temporaries
from caltrop.content.logfile import write_log as write_log_file
from caltrop.content.paths import MISSING, path_problem
from caltrop.content.serialize import log_definition
from caltrop.core.commands import GM, AddCreature, Command, parse_command
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.errors import CaltropError

HELP = """\
Commands (one per line):
  aria: strike goblin-1 with dagger +adv:torch  an action, advantage from torch
  aria: pick-lock dc 12                 a check against a DC
  bron: hinder                          a team action on the pending roll (R15)
  bron: pass                            decline to react to the pending roll
  roll                                  roll the pending roll (the seeded RNG)
  roll 3,1,4,4,2,7                      enter physical dice instead
  aria: end turn                        end the turn (early is fine, R18)
GM (R17, R48):
  gm: call aria Finesse dc 12 [+count-load]    a GM-called roll
  gm: damage aria 3 | gm: heal aria 3          change Health
  gm: set aria load 2 | gm: set aria prone on  set a number or a condition
  gm: add goblin [as ID] [after ID | by initiative]   reinforcements
  gm: remove ID | gm: order ID,ID,… | gm: pass all | gm: end encounter
Session: help, legal [ID], undo [N], save [FILE], json, quit (or end of input)
  save FILE --replace                   replace a file holding another (or a longer) log
At a terminal: arrows edit, Up/Down recall earlier lines, TAB completes."""


def write_log(
    path: Path, encounter: Encounter, *, replace_game: bool = False, override: str = "--force"
) -> None:
    """Save the log durably (:func:`caltrop.content.logfile.write_log`): atomic, fsynced, and
    never over a file it would lose something of (another game, a longer log of this one: the
    rule of :func:`~caltrop.content.logfile.replace_refusal`) unless ``replace_game``; the
    refusal names ``override``, how the user says so."""
    write_log_file(path, encounter.log_lines(), replace_game=replace_game, override=override)


def read_log(path: Path, warn: Callable[[str], None] | None = None) -> Encounter:
    """Rebuild an encounter from a JSON-lines log whose first event carries the encounter; a
    last line cut mid-write is dropped (``warn`` is told)."""
    events, warnings = read_log_events(path)
    for warning in warnings:
        if warn is not None:
            warn(f"{path}: {warning}")
    header = events[0].get("header")
    if not isinstance(header, dict) or "definition" not in header:
        raise CaltropError(
            f"{path}:1: the first line must be a 'begin' event carrying the encounter"
        )
    try:
        definition = log_definition(events)  # checked as content, reinforcements too
        return Encounter.replay(definition, events)
    except CaltropError as exc:
        raise CaltropError(f"{path}: refused, this log does not replay: {exc}") from exc
    except (KeyError, TypeError, ValueError, RecursionError) as exc:
        raise CaltropError(f"{path}: refused, not a Caltrop log ({type(exc).__name__})") from exc


def begin(path: Path | None, seed: int | None) -> Encounter:
    """Start the encounter of ``path`` (a file or a bundled name; None: the default example)."""
    source = path if path is not None else default_encounter_path()
    try:
        definition = load_encounter(source)
    except CaltropError as exc:
        if path is not None and path_problem(path) == MISSING:  # not a looping link
            names = ", ".join(bundled_encounters())
            raise CaltropError(f"{exc}\n(not a file, nor a bundled encounter: {names})") from exc
        raise
    header = {"definition": encounter_to_dict(definition)}
    return Encounter.begin(definition, seed, header=header)


def _error(console: Console, message: object) -> None:
    """A refusal in red; the message is text, never rich markup (``'roll [faces]'`` stays)."""
    console.print(f"[red]✗ {escape(str(message))}[/red]", highlight=False)


def _save(
    console: Console,
    path: Path,
    encounter: Encounter,
    *,
    replace_game: bool = False,
    override: str | None = None,
) -> bool:
    """Save, or say why not (red) and return False; ``override`` (default: the session's
    ``save FILE --replace``) is what the refusal tells the user to type to replace the file."""
    if override is None:
        override = f"'save {path} --replace'"
    try:
        write_log(path, encounter, replace_game=replace_game, override=override)
    except CaltropError as exc:
        _error(console, exc)
        return False
    except (OSError, ValueError) as exc:  # e.g. a NUL byte in the name
        _error(console, f"cannot save to {path!r}: {getattr(exc, 'strerror', None) or exc}")
        return False
    return True


def _command(line: str, encounter: Encounter, base: Path | None) -> Command:
    """The command a line says; ``gm: add`` of a creature the encounter does not hold in
    reserve is looked up as a bundled creature or a creature file (R48)."""
    command = parse_command(line)
    if isinstance(command, AddCreature) and command.creature is None:
        reserves = {c.id for c in encounter.definition.reserves}
        if command.source not in reserves:
            command = replace(command, creature=resolve_creature(command.source, base=base))
    return command


def _session(
    encounter: Encounter, console: Console, log: Path | None, base: Path | None = None
) -> None:
    with Prompt(console, lambda: encounter) as prompt:
        _loop(encounter, console, log, prompt, base)
    if log is not None and _save(console, log, encounter):
        console.print(f"log saved to {log}", markup=False, highlight=False)


def _loop(
    encounter: Encounter, console: Console, log: Path | None, prompt: Prompt, base: Path | None
) -> None:
    console.print(screen(encounter))
    while True:
        try:
            line = prompt.read().strip()
        except (EOFError, KeyboardInterrupt):
            console.print()
            break
        except UnicodeDecodeError:
            _error(console, "that line was not UTF-8 text; it was skipped")
            continue
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
            if who is not None and who != "gm":
                try:
                    encounter.index(who)
                except CaltropError as exc:
                    _error(console, exc)
                    continue
            if who is None:
                who = encounter.current()
                who = GM if who in (CHANCE, TERMINAL) else who
            console.print("\n".join(legal_lines(table_view(encounter), who)), markup=False)
            continue
        if word == "save":
            words = rest.split()
            replace_file = "--replace" in words
            words = [w for w in words if w != "--replace"]
            if len(words) > 1:
                _error(console, f"'save [FILE] [--replace]', not {line[:60]!r}")
                continue
            target = Path(words[0]) if words else log
            if target is None:
                _error(console, "save where? 'save FILE.jsonl' (or start with --log FILE)")
                continue
            if _save(console, target, encounter, replace_game=replace_file):
                console.print(
                    f"saved {len(encounter.commands)} commands to {target}",
                    markup=False,
                    highlight=False,
                )
            continue
        if word == "undo":
            count = rest.strip() or "1"
            if not re.fullmatch(r"[0-9]{1,7}", count) or int(count) < 1:
                _error(console, f"'undo' or 'undo N' (N commands back), not {line[:40]!r}")
                continue
            if int(count) > len(encounter.commands):
                _error(console, f"nothing to undo: {len(encounter.commands)} commands so far")
                continue
            for _ in range(int(count)):
                console.print(f"undone: {encounter.undo()}", markup=False, highlight=False)
        else:
            try:
                command = _command(line, encounter, base)
                outcome = encounter.apply(command)
            except CaltropError as exc:
                _error(console, exc)
                continue
            console.print(command_story(encounter, command, outcome), markup=False, highlight=False)
            for settled in encounter.settle():  # a roll with no dice (a declined defence)
                story = command_story(encounter, encounter.commands[-1], settled)
                console.print(story, markup=False, highlight=False)
        if log is not None:
            _save(console, log, encounter)
        console.print(screen(encounter))
        if encounter.current() == TERMINAL:
            console.print("('undo' takes the last command back; 'quit' ends the session)")


def play(
    encounter_file: Annotated[
        Path | None,
        typer.Argument(
            help="An encounter YAML file, or a bundled example by name: goblin-ambush (the "
            "default), orc-bridge (Action Load); bridge-duel-ap, warband-ap (Action Points)",
            metavar="ENCOUNTER",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the dice (recorded in the log)")] = None,
    log: Annotated[Path | None, typer.Option(help="Save the log here after every command")] = None,
    resume: Annotated[
        Path | None,
        typer.Option(
            help="Go on with a saved log (its encounter and seed); it is saved to as play goes "
            "on, unless --log names another file",
            show_default=False,
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Let --log replace a file this game's log would lose something of: another "
            "game, a longer log of this one, a file that is not a log",
        ),
    ] = False,
) -> None:
    """Run an encounter at the terminal: declare, react, roll (or type physical dice), undo, save."""
    console = Console()
    errors = Console(stderr=True)
    try:
        if resume is not None:
            if encounter_file is not None or seed is not None:
                raise CaltropError(
                    "--resume takes the encounter and the seed from the log: "
                    "give no encounter file and no --seed"
                )
            encounter = read_log(resume, warn=lambda w: errors.print(w, markup=False))
            log = log if log is not None else resume
        else:
            encounter = begin(encounter_file, seed)
    except OSError as exc:
        errors.print(f"[red]{escape(f'{resume}: {exc.strerror or exc}')}[/red]", highlight=False)
        raise typer.Exit(2) from None
    except CaltropError as exc:
        errors.print(f"[red]{escape(str(exc))}[/red]", highlight=False)
        raise typer.Exit(2) from None
    if log is not None:
        for stale in remove_stale_temporaries(log):
            errors.print(
                f"removed {stale}: a temporary file an interrupted save left",
                markup=False,
                highlight=False,
            )
        if not _save(errors, log, encounter, replace_game=force, override="--force"):
            raise typer.Exit(2)
    resumed = f", resumed after {len(encounter.commands)} commands" if resume else ""
    console.print(
        f"[bold]{escape(encounter.definition.name)}[/bold] — seed {encounter.seed}{resumed}; "
        "type 'help'"
    )
    base = encounter_file.parent if encounter_file is not None and encounter_file.exists() else None
    _session(encounter, console, log, base)


def replay(
    log_file: Annotated[Path, typer.Argument(help="A log written by 'caltrop play --log'")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the final state as JSON")] = False,
) -> None:
    """Re-run a log: print the story and the final state."""
    console = Console()
    try:
        encounter = read_log(log_file, warn=lambda w: Console(stderr=True).print(w, markup=False))
    except OSError as exc:
        Console(stderr=True).print(
            f"[red]{escape(f'{log_file}: {exc.strerror or exc}')}[/red]", highlight=False
        )
        raise typer.Exit(2) from None
    except CaltropError as exc:
        Console(stderr=True).print(f"[red]{escape(str(exc))}[/red]", highlight=False)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(encounter.to_json())
        return
    story = Encounter.begin(encounter.initial, encounter.seed, header=encounter.header)
    for n, command in enumerate(encounter.commands, start=1):
        outcome = story.apply(command)
        console.print(
            f"{n:>4}. {command}  —  {command_story(story, command, outcome)}", markup=False
        )
    console.print(screen(encounter))
