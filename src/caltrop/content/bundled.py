"""The example content shipped inside the package (``caltrop/examples``), found with
:mod:`importlib.resources` so it works from a wheel, a zip or a source checkout."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable

from caltrop.content.source import ResourceSource

#: The prefix of a bundled file's name in content references: ``include: [caltrop:actions]``.
BUNDLED_PREFIX = "caltrop:"
EXAMPLES_PACKAGE = "caltrop.examples"
EXAMPLES_LABEL = "caltrop/examples"
RULESETS_DIR = "rulesets"
ENCOUNTERS_DIR = "encounters"
#: The encounter ``caltrop play`` opens when given no file: the 4-versus-4 goblin ambush.
DEFAULT_ENCOUNTER = "goblin-ambush"


def examples_root() -> Traversable:
    """The folder of bundled example content."""
    return files(EXAMPLES_PACKAGE)


def bundled_source(*parts: str) -> ResourceSource:
    """A bundled file as a content source, for example ``bundled_source("actions.yaml")``."""
    return ResourceSource(examples_root(), tuple(parts), EXAMPLES_LABEL)


def _yaml_files(folder: str) -> dict[str, Traversable]:
    found: dict[str, Traversable] = {}
    for entry in examples_root().joinpath(folder).iterdir():
        name = entry.name
        if entry.is_file() and name.endswith((".yaml", ".yml")):
            found[name.rsplit(".", 1)[0]] = entry
    return dict(sorted(found.items()))


def bundled_rulesets() -> dict[str, Traversable]:
    """The bundled rulesets by name: ``action-points`` (seed 004), ``current``, ``legacy``,
    ``round-reset``."""
    return _yaml_files(RULESETS_DIR)


def bundled_encounters() -> dict[str, Traversable]:
    """The bundled example encounters by name: ``goblin-ambush``, ``orc-bridge`` (Action Load),
    ``bridge-duel-ap``, ``warband-ap`` (Action Points)."""
    return _yaml_files(ENCOUNTERS_DIR)


def default_encounter_path() -> Traversable:
    """The file of the default example encounter (the 4-versus-4 goblin ambush)."""
    return bundled_encounters()[DEFAULT_ENCOUNTER]


def bundled_files() -> dict[str, tuple[str, ...]]:
    """Every bundled YAML file by its name: its path under ``caltrop/examples`` without the
    extension (``actions``, ``monsters/goblin``, ``action-points/weapons``), sorted; the value is
    the file's path parts."""
    return dict(_bundled_files())


@cache
def _bundled_files() -> tuple[tuple[str, tuple[str, ...]], ...]:
    found: dict[str, tuple[str, ...]] = {}

    def walk(node: Traversable, parts: tuple[str, ...]) -> None:
        for entry in node.iterdir():
            name = entry.name
            if name.startswith((".", "_")):
                continue
            if entry.is_dir():
                walk(entry, (*parts, name))
            elif entry.is_file() and name.endswith((".yaml", ".yml")):
                stem = name.rsplit(".", 1)[0]
                found["/".join((*parts, stem))] = (*parts, name)

    walk(examples_root(), ())
    return tuple(sorted(found.items()))


def bundled_name_source(name: str) -> ResourceSource | None:
    """The bundled file called ``name`` (``monsters/goblin``; a leading ``caltrop:`` is allowed)
    as a source, or None if there is none."""
    if name.startswith(BUNDLED_PREFIX):
        name = name[len(BUNDLED_PREFIX) :]
    parts = bundled_files().get(name)
    return None if parts is None else bundled_source(*parts)


def bundled_file_source(name: str, folder: str) -> ResourceSource | None:
    """The bundled ``folder/name.yaml`` as a source, or None if there is no such file."""
    for stem, entry in _yaml_files(folder).items():
        if stem == name:
            return bundled_source(folder, entry.name)
    return None
