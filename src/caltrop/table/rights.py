"""Who may issue a command at a table (issue 11, "Who may do what"): checked on the server
before the engine sees the command.

* The GM may issue every command: the GM commands (R48, R17), any roll, and the commands of any
  creature (the GM runs the NPCs and may stand in for an absent player).
* A player may issue its own creature's commands (``Act``, ``EndTurn``, ``Pass``) only.
* ``roll``: a player may roll (seeded, or its physical dice, R5) a pending roll its own creature
  declared, once nobody is left to answer it (the engine's pointer is *chance*, R15); the GM
  may roll any pending roll at any time. ``total N`` (an exact solver's move) is the GM's only.
"""

from __future__ import annotations

from caltrop.core.commands import GM, GM_COMMANDS, Command, RollDice, command_actor
from caltrop.encounter import CHANCE, Encounter


def refusal(encounter: Encounter, seat_creature: str | None, command: Command) -> str | None:
    """None if the seat (``seat_creature`` None: the GM; else the player's creature id) may
    issue ``command`` now, else the reason in words."""
    if seat_creature is None:
        return None
    if isinstance(command, GM_COMMANDS):
        return f"'{command}' is a GM command (R48): only the GM may give it"
    if isinstance(command, RollDice):
        top = encounter.pending_roll
        if top is None:
            return None  # the engine says why: no roll is pending
        roller = encounter.creatures[top.roller].id
        if roller != seat_creature:
            return f"the pending roll is {roller}'s: only its player or the GM may roll it"
        if encounter.current() != CHANCE:
            return (
                f"{encounter.current()} may still react to the roll (R15): the GM may roll now, "
                "its player once nobody is left to answer"
            )
        return None
    actor = command_actor(command)
    if actor == GM:
        return f"'{command}' is the GM's to give"
    if actor != seat_creature:
        return f"this seat plays {seat_creature}, not {actor}"
    return None
