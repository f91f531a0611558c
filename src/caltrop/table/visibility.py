"""What the players may see of each NPC: the GM's choice per creature (issue 11).

Health is shown exactly, as a label (``"wounded"``) or not at all; Aspects and resources
(Load, or AP/RP) are hidden unless the GM reveals them; the odds of the players' actions against
it are shown unless the GM hides them (they tell its defences roughly). A player always sees the player
characters in full: they are the party's own sheets at the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class HealthShown(StrEnum):
    """How much of an NPC's Health the players see."""

    EXACT = "exact"
    LABEL = "label"
    HIDDEN = "hidden"


@dataclass(frozen=True, slots=True)
class Reveal:
    """What players see of one NPC; the default shows a Health label and nothing else."""

    health: HealthShown = HealthShown.LABEL
    aspects: bool = False
    resources: bool = False
    #: whether players' options against it carry odds (a chance to hit reveals its Evasion
    #: roughly, expected damage its Resistance); ``against`` names its Evasion only with
    #: ``aspects`` as well
    odds: bool = True


#: What a player sees of an NPC the GM said nothing about.
NPC_DEFAULT = Reveal()


def health_label(health: int, max_health: int, *, down: bool) -> str:
    """A word for Health without the number: ``unhurt``, ``wounded`` (more than half left),
    ``badly wounded`` (half or less) or ``down`` (0 Health is down, R16)."""
    if down or health <= 0:
        return "down"
    if health >= max_health:
        return "unhurt"
    if 2 * health > max_health:
        return "wounded"
    return "badly wounded"
