"""The example content shipped inside the package (``caltrop/examples``), found with
:mod:`importlib.resources` so it works from a wheel, a zip or a source checkout."""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable

from caltrop.content.source import ResourceSource

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


def bundled_file_source(name: str, folder: str) -> ResourceSource | None:
    """The bundled ``folder/name.yaml`` as a source, or None if there is no such file."""
    for stem, entry in _yaml_files(folder).items():
        if stem == name:
            return bundled_source(folder, entry.name)
    return None
