"""A log event as one viewer may see it: players get no definition (Aspects of NPCs)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from caltrop.core.commands import GM

#: Keys of log events that carry whole definitions (the encounter in the 'begin' header, an
#: added creature's stat block): the GM's only.
GM_ONLY_EVENT_KEYS = frozenset({"header", "creature", "seed"})


def visible_event(event: Mapping[str, Any], viewer: str) -> dict[str, Any]:
    """``event`` for ``viewer``: the GM sees it whole; a player sees the command and its dice
    (rolls are made in the open, R5) but no stat block and not the seed of the dice."""
    if viewer == GM:
        return dict(event)
    return {k: v for k, v in event.items() if k not in GM_ONLY_EVENT_KEYS}
