"""The view model every screen renders: ``view(encounter, viewer)`` for the GM or a player.

Pure and free of I/O: it reads an :class:`~caltrop.encounter.Encounter` and decides what one
viewer may see of it (hidden information, issue 11) and what that viewer may do right now.
The terminal and the web layer render it and hold no rules of their own.

>>> from caltrop.table import view, Reveal, HealthShown, GM
"""

from caltrop.core.commands import GM
from caltrop.table.events import npc_reveals, visible_event
from caltrop.table.log import log_entries, pair_fives
from caltrop.table.odds import Odds, option_odds, pending_odds
from caltrop.table.pool import pool_text
from caltrop.table.view import (
    SCREEN,
    ActionOption,
    CreatureView,
    PendingView,
    TableView,
    view,
    views,
)
from caltrop.table.visibility import HealthShown, Reveal, health_label

__all__ = [
    "GM",
    "SCREEN",
    "ActionOption",
    "CreatureView",
    "HealthShown",
    "Odds",
    "PendingView",
    "Reveal",
    "TableView",
    "health_label",
    "log_entries",
    "npc_reveals",
    "option_odds",
    "pair_fives",
    "pending_odds",
    "pool_text",
    "view",
    "views",
    "visible_event",
]
