"""``caltrop validate`` (every problem of content files at once), ``caltrop new`` (a commented
template that validates) and ``caltrop examples`` (what is bundled). Thin: the work is in
:mod:`caltrop.content`.

Exit codes: 0 when all is well, 1 when a file has problems (``validate``) or cannot be written
(``new``), 2 for a usage error (no such file, a bad name or option).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer

from caltrop.cli.common import err, fail, out, print_json
from caltrop.content import (
    BUNDLED_PREFIX,
    BundledFile,
    ContentFileError,
    Problem,
    bundled_catalogue,
    bundled_files,
    check_file,
)
from caltrop.content.catalogue import unknown_bundled
from caltrop.content.paths import MISSING, path_problem
from caltrop.content.schema import CreatureDocument, Document, EncounterDocument
from caltrop.content.templates import (
    Module,
    creature_template,
    display_name,
    encounter_template,
    template_id,
)
from caltrop.content.yamlfile import parse_text, read_file_text
from caltrop.errors import CaltropError, ContentError

#: Exit code of ``validate`` when some file has problems, and of ``new`` when it cannot write.
PROBLEMS = 1

JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]


# -- validate -------------------------------------------------------------------------------------


def validate(
    files: Annotated[
        list[str],
        typer.Argument(
            help="Content files of any kind (encounter, creature, actions, weapons, ruleset), "
            "or bundled files by name (caltrop:monsters/goblin).",
            metavar="FILE...",
            show_default=False,
        ),
    ],
    as_json: JsonOpt = False,
) -> None:
    """Check content files with all they include: every problem at once, as file:line:field."""
    for name in files:
        _check_exists(name)
    results = [_validate_one(name) for name in files]
    problems = [p for _, _, found in results for p in found]
    if as_json:
        print_json(
            {
                "ok": not problems,
                "files": [
                    {
                        "file": name,
                        "kind": kind,
                        "ok": not found,
                        "problems": [_problem_json(p) for p in found],
                    }
                    for name, (_, kind, found) in zip(files, results, strict=True)
                ],
            }
        )
    else:
        for name, (summary, _, found) in zip(files, results, strict=True):
            if found:
                for problem in found:
                    typer.echo(str(problem))
            else:
                typer.echo(f"{name}: ok ({summary})")
        if problems:
            bad = sum(1 for _, _, found in results if found)
            err().print(
                f"{_count(len(problems), 'problem')} in {bad} of {_count(len(files), 'file')}",
                style="red",
                soft_wrap=True,
            )
    if problems:
        raise typer.Exit(PROBLEMS)


def _check_exists(name: str) -> None:
    """A file that is not there (or a ``caltrop:`` name that names nothing) is a usage error."""
    if name.startswith(BUNDLED_PREFIX) and not Path(name).exists():
        if name[len(BUNDLED_PREFIX) :] not in bundled_files():
            fail(unknown_bundled(name))
        return
    path = Path(name)
    if path.is_dir():
        fail(f"{name} is a folder; give the YAML files in it (like {name}/*.yaml)")
    why = path_problem(path)  # one wording: a looping link is not "no such file" (issue 21)
    if why == MISSING:
        fail(f"no such file: {name}")
    if why is not None:
        fail(f"{name}: {why}")


def _validate_one(name: str) -> tuple[str, str | None, list[Problem]]:
    """A one-line summary, the file's kind (if it could be read) and its problems."""
    try:
        document = check_file(name)
    except ContentFileError as exc:
        # The file's own problems first, then those of the files it includes; each by line.
        own = os.path.normpath(name)
        ordered = sorted(
            exc.problems, key=lambda p: (os.path.normpath(p.file) != own, p.file, p.line)
        )
        return "", _kind_of(name), ordered
    except ContentError as exc:
        return "", _kind_of(name), [Problem(name, 1, "", str(exc))]
    return _summary(document), document.kind, []


def _kind_of(name: str) -> str | None:
    """The ``kind:`` a file declares, if it can be read at all (for ``--json``)."""
    if name.startswith(BUNDLED_PREFIX):
        return None
    try:  # the content reader's own bounds: no hang on a FIFO, no crash on deep YAML (issue 21)
        _, data = parse_text(read_file_text(Path(name), name), name)
    except (OSError, CaltropError):
        return None
    kind = data.get("kind") if isinstance(data, dict) else None
    return kind if isinstance(kind, str) else None


def _summary(document: Document) -> str:
    if isinstance(document, EncounterDocument):
        return f"encounter {document.name!r}, {_count(len(document.participants), 'participant')}"
    if isinstance(document, CreatureDocument):
        return f"creature {document.id!r}"
    items = getattr(document, document.kind, None)
    if isinstance(items, list):
        return f"{document.kind} library, {_count(len(items), document.kind.rstrip('s'))}"
    return document.kind


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _problem_json(problem: Problem) -> dict[str, Any]:
    return {
        "file": problem.file,
        "line": problem.line,
        "field": problem.field,
        "message": problem.message,
    }


# -- new ------------------------------------------------------------------------------------------


def new(
    what: Annotated[
        str,
        typer.Argument(help="What to write: encounter or creature.", metavar="encounter|creature"),
    ],
    name: Annotated[
        str,
        typer.Argument(
            help="Its name: the creature's id and name, or the encounter's name (also the file's "
            "name: 'Cave Troll' writes cave-troll.yaml).",
            show_default=False,
        ),
    ],
    out_path: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Where to write it: a file, or a folder for NAME.yaml (default: ./NAME.yaml).",
            show_default=False,
        ),
    ] = None,
    module: Annotated[
        Module,
        typer.Option(
            "--module",
            help="The rules module: action-load (seeds 000, 001) or action-points (seed 004).",
        ),
    ] = Module.ACTION_LOAD,
) -> None:
    """Write a commented template of an encounter or a creature that validates as it is."""
    if what not in ("encounter", "creature"):
        fail(f"expected encounter or creature, got {what!r}")
    try:
        file_id = template_id(name)
    except ValueError as exc:
        fail(str(exc))
    target = _target(out_path, file_id)
    maker = encounter_template if what == "encounter" else creature_template
    text = maker(name, module, target.name)
    try:
        with target.open("x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        _stop(f"{target} exists; not overwritten (remove it, or choose another --out)")
    except OSError as exc:
        _stop(f"cannot write {target}: {exc.strerror or exc}")
    shown = display_name(name)
    if what == "encounter":
        typer.echo(f"wrote {target}: encounter {shown!r} with bundled creatures")
        then = f"play it with: caltrop play {target}"
    else:
        typer.echo(f"wrote {target}: creature {file_id!r} ({shown})")
        then = f"use it in an encounter with: include: [{target.name}]"
    typer.echo(
        f"Edit it (its comments explain each field), check it with: caltrop validate {target}; "
        f"{then}"
    )


def _target(out_path: Path | None, file_id: str) -> Path:
    if out_path is None:
        return Path(f"{file_id}.yaml")
    if out_path.is_dir():
        return out_path / f"{file_id}.yaml"
    return out_path


def _stop(message: str) -> None:
    err().print(f"Error: {message}", style="bold red", soft_wrap=True)
    raise typer.Exit(PROBLEMS)


# -- examples -------------------------------------------------------------------------------------

_MODULES = {"action_load": "Action Load", "action_points": "Action Points"}


def _use(entry: BundledFile) -> str:
    """How to use a bundled file, as a user types it."""
    if entry.kind == "encounter":
        return f"caltrop play {entry.short_name}"
    if entry.kind == "ruleset":
        return f"ruleset: {entry.short_name}"
    if entry.kind == "creature":
        return f"include: [{entry.reference}]; gm: add {entry.creature_id}"
    return f"include: [{entry.reference}]"


def _groups() -> list[tuple[str, list[BundledFile]]]:
    """The catalogue in the order a new user wants it, each group with how its files are used."""
    catalogue = bundled_catalogue()
    groups: list[tuple[str, list[BundledFile]]] = []
    for kind, plural, use in (
        ("encounter", "Encounters", "caltrop play NAME"),
        ("creature", "Creatures", "include: [caltrop:NAME]; gm: add ID"),
        ("ruleset", "Rulesets", "ruleset: NAME in an encounter"),
        ("library", "Libraries", "include: [caltrop:NAME] in a creature"),
    ):
        for economy, label in _MODULES.items():
            kinds = ("actions", "weapons") if kind == "library" else (kind,)
            found = [e for e in catalogue if e.kind in kinds and e.economy == economy]
            if found:
                groups.append((f"{plural} ({label}) — {use}", found))
    return groups


def _listed_name(entry: BundledFile) -> str:
    if entry.kind in ("encounter", "ruleset"):
        return entry.short_name
    return entry.reference


def _entry_json(entry: BundledFile) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": entry.name,
        "reference": entry.reference,
        "kind": entry.kind,
        "module": entry.economy,
        "title": entry.title,
        "description": entry.description,
        "use": _use(entry),
    }
    if entry.creature_id is not None:
        data["id"] = entry.creature_id
    return data


def examples(as_json: JsonOpt = False) -> None:
    """List the bundled content (example content, not official rules) and how to use each file."""
    if as_json:
        print_json({"examples": [_entry_json(e) for e in bundled_catalogue()]})
        return
    console = out()
    width = max(40, console.width)
    lines = [
        "Bundled with Caltrop (example content, not official rules). Your own files may",
        "name any of them caltrop:NAME (format: src/caltrop/examples/README.md).",
    ]
    for title, entries in _groups():
        lines += ["", title]
        column = max(len(_listed_name(e)) for e in entries)
        for entry in entries:
            lines.append(_line(entry, column, width))
    for line in lines:
        console.print(line, soft_wrap=True)


def _line(entry: BundledFile, column: int, width: int) -> str:
    """``  NAME  Title: description`` cut to ``width`` with an ellipsis."""
    about = entry.description
    if entry.kind in ("encounter", "creature") and entry.title:
        about = f"{entry.title}: {about}"
    line = f"  {_listed_name(entry):<{column}}  {about}"
    return line if len(line) <= width else line[: width - 1].rstrip() + "…"


__all__ = ["examples", "new", "validate"]
