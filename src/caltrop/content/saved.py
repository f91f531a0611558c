"""A save log's encounter definition checked exactly as an encounter file is (issue 10).

A log's header carries the whole definition it replays (:mod:`caltrop.content.serialize`), and a
``gm: add`` event the creature it adds (R48). Anyone may upload a log, so neither is trusted: the
dict is validated by the content schemas (:class:`~caltrop.content.schema.SavedEncounter`,
:class:`~caltrop.content.schema.CreatureSpec`: the same types, limits and printable names) and
then by the loader's rules between fields (a team action's grant, ``max_health ≥ health``,
equipped weapons, the Action Point stat block and weapon ranges, the initiative Aspect). A Cost
of −1 or an Evasion of 10^30 is refused here as it is in a YAML file.

Problems are reported as ``saved encounter: encounter.participants[2].evasion: expected …``:
the dict has no lines, so the field path says where.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from caltrop.content.loader import _Doc, _Library, _Loader
from caltrop.content.problems import Loc, Problem, validation_problems
from caltrop.content.schema import CreatureDocument, CreatureSpec, SavedEncounter
from caltrop.content.source import TextSource
from caltrop.core.model import CreatureDef, Economy
from caltrop.economy.pools import creature_pool_problems
from caltrop.errors import ContentError

#: The label of a saved definition in messages.
SAVED_LABEL = "saved encounter"


def check_saved_encounter(data: Mapping[str, Any]) -> None:
    """Refuse a saved definition that no encounter file could declare (ContentError, one line:
    the first problem and how many more there are)."""
    _raise(saved_encounter_problems(data))


def check_saved_creature(data: Mapping[str, Any], economy: Economy, where: str) -> None:
    """Refuse a creature (a ``gm: add`` event's, R48) that no creature file could declare, in
    an encounter of ``economy``; ``where`` names it in the message (``log event 7``)."""
    _raise(saved_creature_problems(data, economy, where))


def saved_encounter_problems(data: Mapping[str, Any]) -> list[Problem]:
    """What is wrong with the saved definition ``data`` as content; empty if nothing."""
    loader = _Loader()
    try:
        model = SavedEncounter.model_validate(data)
    except ValidationError as exc:
        return validation_problems(exc, SavedEncounter, None, SAVED_LABEL, "encounter")
    doc = _Doc(TextSource("", SAVED_LABEL), None, model)
    ruleset = loader.ruleset(model.ruleset, doc, ("ruleset",))
    loader.economy = ruleset.economy
    loader.encounter_name = model.name
    participants: list[CreatureDef] = []
    reserves: list[CreatureDef] = []
    first_at: dict[str, int] = {}
    for key, specs in (("participants", model.participants), ("reserves", model.reserves)):
        for i, spec in enumerate(specs):
            creature = loader.creature(spec, doc, (key, i), _Library())
            if creature is not None and key == "participants":
                first_at.setdefault(creature.id, i)
                participants.append(creature)
            elif creature is not None:
                reserves.append(creature)
    loader.check_initiative(ruleset, participants, first_at, doc)
    # issue 21 item 4: each pool within the dice limits, as in an encounter file
    loader.check_pools(ruleset, participants, reserves, first_at, doc)
    return list(dict.fromkeys(loader.problems))


def saved_creature_problems(data: Mapping[str, Any], economy: Economy, where: str) -> list[Problem]:
    """What is wrong with the saved creature ``data`` as content; empty if nothing."""
    label = f"{where}: saved creature"
    try:
        spec = CreatureSpec.model_validate(data)
    except ValidationError as exc:
        return validation_problems(exc, CreatureSpec, None, label, "creature")
    loader = _Loader()
    loader.economy = economy
    doc = _Doc(TextSource("", label), None, _creature_document(spec))
    loc: Loc = ()
    creature = loader.creature(spec, doc, loc, _Library())
    if creature is not None:  # issue 21 item 4: as a creature file is checked
        for problem in creature_pool_problems(creature):
            loader.problems.append(doc.at(("actions",), problem.message))
    return list(dict.fromkeys(loader.problems))


def _creature_document(spec: CreatureSpec) -> CreatureDocument:
    """A stand-in document of kind ``creature``, for naming a lone creature's fields."""
    return CreatureDocument.model_construct(**dict(spec), kind="creature")


def _raise(problems: Sequence[Problem]) -> None:
    if not problems:
        return
    first = problems[0]
    where = f"{first.file}: {first.field}" if first.field else first.file
    more = len(problems) - 1
    tail = f" (and {more} more problem{'s' if more != 1 else ''})" if more else ""
    raise ContentError(f"{where}: {first.message}{tail}")
