"""A night, not one fight (issue 11): the next encounter of a table, with the player
characters' Health, Stamina and Exhaustion carried over from the one before.

Pure: it reads the finished (or abandoned) encounter and writes a new definition. The GM may
reset any of the three (the next encounter then starts them from its own stat blocks).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Final

from caltrop.core.model import CreatureDef, Economy, EncounterDef, Side
from caltrop.encounter import Encounter
from caltrop.errors import InvalidActionError

#: What a player character carries from one encounter into the next.
CARRIED: Final = ("health", "stamina", "exhaustion")


def carry_over(
    previous: Encounter, definition: EncounterDef, reset: Iterable[str] = ()
) -> EncounterDef:
    """``definition`` with each of its player characters who played in ``previous`` (by id)
    keeping the Health (at most its maximum), Exhaustion and — in the Action Point module —
    Stamina it had there, except what ``reset`` names."""
    resetting = set(reset)
    unknown = resetting - set(CARRIED)
    if unknown:
        raise InvalidActionError(
            f"cannot reset {', '.join(sorted(unknown))}: the carried stats are {', '.join(CARRIED)}"
        )
    known = {c.id: i for i, c in enumerate(previous.creatures) if c.side is Side.PC}
    participants: list[CreatureDef] = []
    for creature in definition.participants:
        i = known.get(creature.id)
        if creature.side is not Side.PC or i is None:
            participants.append(creature)
            continue
        before = previous.creatures[i]
        changes: dict[str, object] = {}
        if "health" not in resetting:
            top = creature.max_health if creature.max_health is not None else creature.health
            changes["health"] = max(0, min(previous.health[i], top))
            changes["max_health"] = top
        if "exhaustion" not in resetting:
            changes["exhaustion"] = before.exhaustion
        stamina = previous.resources[i].as_dict().get("stamina")
        points = definition.ruleset.economy is Economy.ACTION_POINTS
        if "stamina" not in resetting and points and isinstance(stamina, int):
            changes["stats"] = {**creature.stats, "stamina": stamina}
        participants.append(dataclasses.replace(creature, **changes))  # type: ignore[arg-type]
    return dataclasses.replace(definition, participants=tuple(participants))
