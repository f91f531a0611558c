"""The encounter engine: one state machine, any action economy, an append-only event log.

>>> from caltrop.encounter import Encounter, CHANCE, TERMINAL
"""

from caltrop.core.commands import (
    Act,
    CallRoll,
    Command,
    EndEncounter,
    EndTurn,
    Pass,
    RollDice,
    RollTotal,
    parse_command,
)
from caltrop.economy.outcome import Outcome
from caltrop.economy.pending import PendingRoll, RollKind
from caltrop.encounter.legal import LegalActions
from caltrop.encounter.state import CHANCE, TERMINAL, Encounter

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Act",
    "CallRoll",
    "Command",
    "Encounter",
    "EndEncounter",
    "EndTurn",
    "LegalActions",
    "Outcome",
    "Pass",
    "PendingRoll",
    "RollDice",
    "RollKind",
    "RollTotal",
    "parse_command",
]
