"""The one table of the Action Point module's verbs (seed 004): each verb's planner (its
legality and price), its effect, when it may be taken, and who else handles it.

A new verb is one entry here plus its two functions in its phase's module; the dispatcher
(:mod:`.actions`) reads nothing but this table, and ``tests/economy/points/test_verbs.py`` fails
if an entry's flags disagree with the code that lists, chooses or compiles verbs.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from caltrop.economy.points import attacks, defence, grapple, misc, movement
from caltrop.economy.points.common import Effect, Planner


class Timing(Enum):
    """When a verb may be declared (R32, R45)."""

    #: on the creature's own turn with no roll pending; off it only under
    #: ``off_turn_actions: any`` (R32), paid in RP
    TURN = "turn"
    #: only in a reaction window, answering a roll stage (R40, R45)
    REACTION = "reaction"
    #: also off turn and in others' windows, whatever ``off_turn_actions`` says (R42, R43:
    #: breaking a hold is always open to the held)
    FREE = "free"


@dataclass(frozen=True, slots=True, kw_only=True)
class Verb:
    """One verb's parts.

    ``off_turn`` says whether ``off_turn_actions: any`` lets it be taken off the creature's turn
    (R32; Hold Action turns one's own AP into floating RP, R33, so it never is); ``keeps_aim``
    whether it leaves Aim stacks standing (R39: "any other action" loses them); ``run_up``
    whether it adds to a leap's run-up (R36: only moves do). ``listed``, ``tactics`` and
    ``kernel`` say who else handles it: the finite list of legal commands
    (:func:`caltrop.economy.points.actions.legal`), the engine's tactics
    (:mod:`caltrop.sim.points_tactics`) and the compiled fast path
    (:mod:`caltrop.sim.fast.points`, which plays ``simple_points_command``'s verbs only).
    """

    plan: Planner
    do: Effect
    rule: str
    timing: Timing
    off_turn: bool
    keeps_aim: bool
    run_up: bool
    listed: bool
    tactics: bool
    kernel: bool


#: Every verb, in the order the refusals and the completion list them.
TABLE: dict[str, Verb] = {
    "move": Verb(
        plan=movement.plan_move,
        do=movement.do_move,
        rule="R35",
        timing=Timing.TURN,
        off_turn=True,
        keeps_aim=False,
        run_up=True,
        listed=True,
        tactics=True,
        kernel=True,
    ),
    "leap": Verb(
        plan=movement.plan_leap,
        do=movement.do_leap,
        rule="R36",
        timing=Timing.TURN,
        off_turn=True,
        keeps_aim=False,
        run_up=False,
        listed=False,
        tactics=False,
        kernel=False,
    ),
    "hold": Verb(
        plan=misc.plan_hold,
        do=misc.do_hold,
        rule="R33",
        timing=Timing.TURN,
        off_turn=False,
        keeps_aim=False,
        run_up=False,
        listed=True,
        tactics=True,
        kernel=False,
    ),
    "aim": Verb(
        plan=attacks.plan_aim,
        do=attacks.do_aim,
        rule="R39",
        timing=Timing.TURN,
        off_turn=True,
        keeps_aim=True,
        run_up=False,
        listed=True,
        tactics=True,
        kernel=False,
    ),
    "equip": Verb(
        plan=misc.plan_equip,
        do=misc.do_equip,
        rule="R44",
        timing=Timing.TURN,
        off_turn=True,
        keeps_aim=False,
        run_up=False,
        listed=False,
        tactics=True,
        kernel=False,
    ),
    "stow": Verb(
        plan=misc.plan_stow,
        do=misc.do_stow,
        rule="R44",
        timing=Timing.TURN,
        off_turn=True,
        keeps_aim=False,
        run_up=False,
        listed=False,
        tactics=False,
        kernel=False,
    ),
    "stand": Verb(
        plan=misc.plan_stand,
        do=misc.do_stand,
        rule="R44",
        timing=Timing.TURN,
        off_turn=True,
        keeps_aim=False,
        run_up=False,
        listed=True,
        tactics=True,
        kernel=False,
    ),
    "breath": Verb(
        plan=misc.plan_breath,
        do=misc.do_breath,
        rule="R37",
        timing=Timing.TURN,
        off_turn=True,
        keeps_aim=False,
        run_up=False,
        listed=True,
        tactics=True,
        kernel=False,
    ),
    "martial": Verb(
        plan=misc.plan_martial,
        do=misc.do_martial,
        rule="R44",
        timing=Timing.TURN,
        off_turn=True,
        keeps_aim=False,
        run_up=False,
        listed=False,
        tactics=False,
        kernel=False,
    ),
    "attack": Verb(
        plan=attacks.plan_attack,
        do=attacks.do_attack,
        rule="R38",
        timing=Timing.TURN,
        off_turn=True,
        keeps_aim=False,
        run_up=False,
        listed=True,
        tactics=True,
        kernel=True,
    ),
    "shoot": Verb(
        plan=attacks.plan_shoot,
        do=attacks.do_shoot,
        rule="R39",
        timing=Timing.TURN,
        off_turn=True,
        keeps_aim=True,
        run_up=False,
        listed=True,
        tactics=True,
        kernel=True,
    ),
    "grapple": Verb(
        plan=grapple.plan_grapple,
        do=grapple.do_grapple,
        rule="R42",
        timing=Timing.TURN,
        off_turn=True,
        keeps_aim=False,
        run_up=False,
        listed=True,
        tactics=False,
        kernel=False,
    ),
    "escape": Verb(
        plan=grapple.plan_escape,
        do=grapple.do_escape,
        rule="R42",
        timing=Timing.FREE,
        off_turn=True,
        keeps_aim=False,
        run_up=False,
        listed=True,
        tactics=True,
        kernel=False,
    ),
    "scale": Verb(
        plan=grapple.plan_scale,
        do=grapple.do_scale,
        rule="R43",
        timing=Timing.TURN,
        off_turn=True,
        keeps_aim=False,
        run_up=False,
        listed=False,
        tactics=False,
        kernel=False,
    ),
    "shake": Verb(
        plan=grapple.plan_shake,
        do=grapple.do_shake,
        rule="R43",
        timing=Timing.FREE,
        off_turn=True,
        keeps_aim=False,
        run_up=False,
        listed=True,
        tactics=False,
        kernel=False,
    ),
    "block": Verb(
        plan=defence.plan_guard,
        do=defence.do_block,
        rule="R40",
        timing=Timing.REACTION,
        off_turn=True,
        keeps_aim=False,
        run_up=False,
        listed=True,
        tactics=True,
        kernel=True,
    ),
    "dodge": Verb(
        plan=defence.plan_guard,
        do=defence.do_dodge,
        rule="R40",
        timing=Timing.REACTION,
        off_turn=True,
        keeps_aim=False,
        run_up=False,
        listed=True,
        tactics=True,
        kernel=False,
    ),
    "cover": Verb(
        plan=defence.plan_cover,
        do=defence.do_cover,
        rule="R40",
        timing=Timing.REACTION,
        off_turn=True,
        keeps_aim=False,
        run_up=False,
        listed=True,
        tactics=True,
        kernel=False,
    ),
    "assist": Verb(
        plan=defence.plan_assist,
        do=defence.do_assist,
        rule="R40",
        timing=Timing.REACTION,
        off_turn=True,
        keeps_aim=False,
        run_up=False,
        listed=True,
        tactics=True,
        kernel=False,
    ),
    "oppose": Verb(
        plan=grapple.plan_oppose,
        do=grapple.do_oppose,
        rule="R42",
        timing=Timing.REACTION,
        off_turn=True,
        keeps_aim=False,
        run_up=False,
        listed=True,
        tactics=True,
        kernel=False,
    ),
}

VERBS: tuple[str, ...] = tuple(TABLE)
REACTIONS: tuple[str, ...] = tuple(v for v, e in TABLE.items() if e.timing is Timing.REACTION)

__all__ = ["REACTIONS", "TABLE", "VERBS", "Timing", "Verb"]
