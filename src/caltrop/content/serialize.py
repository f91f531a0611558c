"""Encounter definitions as plain JSON-able dicts, for the header of a save log.

:func:`encounter_to_dict` writes a fully resolved definition (no includes, no references; dice as
text such as ``"1d8"``) with a fixed key order, so the same definition always gives the same
bytes; :func:`encounter_from_dict` reads it back: ``encounter_from_dict(encounter_to_dict(e)) ==
e``. The parts (rulesets, weapons, actions, creatures) are :mod:`caltrop.core.codec`'s.

A log is uploaded by anyone, so the reader does not trust it (issue 10): after the codec's shape
check the definition is validated exactly as an encounter file is
(:mod:`caltrop.content.saved`: the same schemas, limits and rules), so a Cost of −1 or an Evasion
of 10^30 is refused; an unknown ``format`` is refused. A definition built in code that no content
file could declare cannot be saved and read back. :func:`log_definition` reads a whole log's:
the header's, and the creature of every ``gm: add`` event (R48) checked the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from caltrop.content.saved import check_saved_creature, check_saved_encounter
from caltrop.core.codec import (
    Reader,
    action_to_dict,
    creature_from_dict,
    creature_to_dict,
    read_creature,
    read_ruleset,
    ruleset_from_dict,
    ruleset_to_dict,
    weapon_to_dict,
)
from caltrop.core.model import EncounterDef
from caltrop.errors import ContentError

#: The value of the ``format`` key, for readers that meet a dict of unknown origin.
ENCOUNTER_FORMAT = "caltrop-encounter/1"


def encounter_to_dict(encounter: EncounterDef) -> dict[str, Any]:
    """The whole definition as JSON-able data with a deterministic key order. ``reserves`` (the
    creatures the GM may add by id, R48) is written only when there are some, so a definition
    without them is written as before."""
    out: dict[str, Any] = {
        "format": ENCOUNTER_FORMAT,
        "name": encounter.name,
        "description": encounter.description,
        "ruleset": ruleset_to_dict(encounter.ruleset),
        "participants": [creature_to_dict(c) for c in encounter.participants],
    }
    if encounter.reserves:
        out["reserves"] = [creature_to_dict(c) for c in encounter.reserves]
    return out


def encounter_from_dict(data: Mapping[str, Any]) -> EncounterDef:
    """The definition :func:`encounter_to_dict` wrote; raises ContentError on a wrong shape."""
    r = Reader(data, "encounter")
    fmt = r.opt_text("format")
    if fmt is not None and fmt != ENCOUNTER_FORMAT:
        r.fail(f"unknown format {fmt!r}; this Caltrop reads {ENCOUNTER_FORMAT!r}", "format")
    ruleset = r.child("ruleset")
    assert ruleset is not None
    participants = tuple(read_creature(c) for c in r.items("participants"))
    # A log written before reserves existed (R48) has none.
    reserves = tuple(read_creature(c) for c in r.items("reserves")) if "reserves" in r.data else ()
    try:
        encounter = EncounterDef(
            name=r.text("name"),
            ruleset=read_ruleset(ruleset),
            participants=participants,
            description=r.text("description", required=False),
            reserves=reserves,
        )
    except ValueError as exc:
        if isinstance(exc, ContentError):
            raise
        r.fail(str(exc), "participants")
    check_saved_encounter(data)
    return encounter


#: The fields of a log's header: the encounter's definition, nothing else.
_HEADER_KEYS: frozenset[str] = frozenset({"definition"})


def log_definition(events: Sequence[Mapping[str, Any]]) -> EncounterDef:
    """The encounter a log replays: its first event's ``header.definition``, checked as
    :func:`encounter_from_dict` does, and the creature of every ``gm: add`` event (R48) checked
    as a creature file is, in the header's economy. Raises ContentError naming what is wrong;
    hand the result and the events to :meth:`caltrop.encounter.Encounter.replay`."""
    if not events or not isinstance(events[0], Mapping):
        raise ContentError("log: the first event is the 'begin' event carrying the encounter")
    header = events[0].get("header")
    if not isinstance(header, Mapping) or not isinstance(header.get("definition"), Mapping):
        raise ContentError("log event 1: the 'begin' event carries no encounter definition")
    unknown = sorted(str(k)[:40] for k in header if k not in _HEADER_KEYS)
    if unknown:  # strict, as every other field of a log (issue 21)
        raise ContentError(
            f"log event 1: the header has no field {unknown[0]!r}; it has: "
            + ", ".join(sorted(_HEADER_KEYS))
        )
    definition = encounter_from_dict(header["definition"])
    named = events[0].get("encounter")
    if named != definition.name:  # a renamed or edited 'encounter' field (issue 21)
        said = "names no encounter" if named is None else f"names {str(named)[:60]!r}"
        raise ContentError(
            f"log event 1: the 'begin' event {said}, but its definition is {definition.name[:60]!r}"
        )
    for number, event in enumerate(events[1:], start=2):
        creature = event.get("creature") if isinstance(event, Mapping) else None
        if isinstance(creature, Mapping):
            check_saved_creature(creature, definition.ruleset.economy, f"log event {number}")
    return definition


__all__ = [
    "ENCOUNTER_FORMAT",
    "action_to_dict",
    "creature_from_dict",
    "creature_to_dict",
    "encounter_from_dict",
    "encounter_to_dict",
    "log_definition",
    "ruleset_from_dict",
    "ruleset_to_dict",
    "weapon_to_dict",
]
