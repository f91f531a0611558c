"""A log event as one viewer may see it: players get no definition (no stat block of an NPC),
no seed of the dice, and no number the GM hides in a GM command (issue 11: "never sends a
player what the GM hides")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from caltrop.core.commands import GM, ChangeHealth, SetStat, parse_command
from caltrop.core.model import Side
from caltrop.encounter import Encounter
from caltrop.errors import CaltropError
from caltrop.table.visibility import NPC_DEFAULT, HealthShown, Reveal

#: Keys of log events that carry whole definitions (the encounter in the 'begin' header, an
#: added creature's stat block): the GM's only.
GM_ONLY_EVENT_KEYS = frozenset({"header", "creature", "seed"})
#: How a hidden number reads in a GM command a player is shown.
HIDDEN = "(hidden)"


def npc_reveals(encounter: Encounter, shown: Mapping[str, Reveal] | None) -> dict[str, Reveal]:
    """What players see of each NPC of the encounter (the GM's choice, else the default)."""
    chosen = shown or {}
    return {c.id: chosen.get(c.id, NPC_DEFAULT) for c in encounter.creatures if c.side is Side.NPC}


def visible_event(
    event: Mapping[str, Any], viewer: str, reveals: Mapping[str, Reveal] | None = None
) -> dict[str, Any]:
    """``event`` for ``viewer``: the GM sees it whole; a player sees the command and its dice
    (rolls are made in the open, R5) but no stat block and not the seed of the dice; and in a
    GM command about an NPC (``reveals``: what players see of each, :func:`npc_reveals`), a
    Load, Exhaustion, Buffer or points the GM keeps hidden, or damage and healing of a Health
    shown only as a label, read ``(hidden)``: ``gm: set orc-brute load (hidden)``."""
    if viewer == GM:
        return dict(event)
    out = {k: v for k, v in event.items() if k not in GM_ONLY_EVENT_KEYS}
    text = out.get("command")
    if reveals and isinstance(text, str) and text.startswith(f"{GM}:"):
        out["command"] = _redacted(text, reveals)
    return out


def _redacted(text: str, reveals: Mapping[str, Reveal]) -> str:
    try:
        command = parse_command(text)
    except CaltropError:
        return text
    if isinstance(command, SetStat):
        reveal = reveals.get(command.target)
        if reveal is not None and not reveal.resources:
            return f"{GM}: set {command.target} {command.stat} {HIDDEN}"
    if isinstance(command, ChangeHealth):
        reveal = reveals.get(command.target)
        if reveal is not None and reveal.health is not HealthShown.EXACT:
            verb = "heal" if command.heal else "damage"
            return f"{GM}: {verb} {command.target} {HIDDEN}"
    return text
