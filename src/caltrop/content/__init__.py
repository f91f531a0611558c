"""Content: rulesets, weapons, actions, creatures and encounters as YAML files.

Files are validated by pydantic schemas (:mod:`caltrop.content.schema`); a bad file raises a
:class:`~caltrop.errors.ContentError` naming the file, the line and the field, and what was
expected (``goblin.yaml:7: creature.aspects.Finesse: expected an integer, got 'high'``).
Loading builds the engine's plain model (:mod:`caltrop.core.model`).

>>> from caltrop.content import load_encounter
>>> encounter = load_encounter("goblin-ambush")  # a bundled example, or a path to a file
>>> [c.id for c in encounter.participants][:3]
['goblin-archer', 'goblin-1', 'aria']

Any bundled file can be named ``caltrop:`` and its path under ``caltrop/examples`` without the
extension, in ``include:``, ``creature:`` and ``ruleset:`` (``include: [caltrop:actions,
caltrop:weapons]``, ``creature: caltrop:monsters/goblin``); :func:`bundled_catalogue` lists them.
:func:`resolve_creature` finds the creature a GM names for ``gm: add`` (R48).
"""

from caltrop.content.bundled import (
    BUNDLED_PREFIX,
    bundled_encounters,
    bundled_files,
    bundled_rulesets,
    default_encounter_path,
    examples_root,
)
from caltrop.content.catalogue import BundledFile, bundled_catalogue, bundled_creatures
from caltrop.content.loader import (
    ContentPath,
    check_file,
    encounter_policies,
    load_actions,
    load_creature,
    load_document,
    load_encounter,
    load_encounter_files,
    load_encounter_text,
    load_ruleset,
    load_weapons,
)
from caltrop.content.problems import ContentFileError, Problem
from caltrop.content.resolve import resolve_creature
from caltrop.content.schema import Document
from caltrop.content.serialize import (
    ENCOUNTER_FORMAT,
    action_to_dict,
    creature_from_dict,
    creature_to_dict,
    encounter_from_dict,
    encounter_to_dict,
    log_definition,
    ruleset_from_dict,
    ruleset_to_dict,
    weapon_to_dict,
)
from caltrop.core.ids import RESERVED_WORDS  # the one id rule's (issue 21)

__all__ = [
    "BUNDLED_PREFIX",
    "ENCOUNTER_FORMAT",
    "RESERVED_WORDS",
    "BundledFile",
    "ContentFileError",
    "ContentPath",
    "Document",
    "Problem",
    "action_to_dict",
    "bundled_catalogue",
    "bundled_creatures",
    "bundled_encounters",
    "bundled_files",
    "bundled_rulesets",
    "check_file",
    "creature_from_dict",
    "creature_to_dict",
    "default_encounter_path",
    "encounter_from_dict",
    "encounter_policies",
    "encounter_to_dict",
    "examples_root",
    "load_actions",
    "load_creature",
    "load_document",
    "load_encounter",
    "load_encounter_files",
    "load_encounter_text",
    "load_ruleset",
    "load_weapons",
    "log_definition",
    "resolve_creature",
    "ruleset_from_dict",
    "ruleset_to_dict",
    "weapon_to_dict",
]
