"""The state of play: everything a command changes in a running encounter, as one object.

Its fields are the slots of :class:`~caltrop.encounter.state.Encounter` that play changes (the
others hold what is fixed: the definition, the seed, the log). ``Encounter.state`` gathers them
in one :class:`PlayState`, as python-chess gathers a board's position in a ``_BoardState``; a
clone copies it with :meth:`PlayState.copy`, the one place that says how each field is copied,
and sets it with ``Encounter._restore``. So a field added later is copied everywhere or nowhere:
the constructor takes every field by name, with no defaults, so neither :meth:`copy` nor
``Encounter.state`` can leave one out, and ``tests/encounter/test_play_state.py`` fails if one
is not a slot of the encounter, is not restored, or is shared between a state and its copy.
"""

from __future__ import annotations

from dataclasses import dataclass

from caltrop.core.model import Side
from caltrop.core.pool import Advantage
from caltrop.economy.base import Resources
from caltrop.economy.outcome import Outcome
from caltrop.economy.pending import PendingRoll
from caltrop.encounter.windows import TurnWindows


@dataclass(slots=True)
class PlayState:
    """What a command changes. Lists are per creature, in the definition's order."""

    health: list[int]
    #: at 0 Health, or taken out by the GM (R16, R48)
    down: list[bool]
    #: each creature's economy state: Load (R10-R13) or AP, RP and Stamina (R31-R37)
    resources: list[Resources]
    #: "next roll" effects held for each creature's next roll of any kind (R15)
    boons: list[tuple[Advantage, ...]]
    #: per creature: the conditions the GM has set (R48), besides an economy's own facts
    conditions: list[tuple[str, ...]]
    #: per creature: taken out of the encounter by the GM (R48): out of the turn order, down
    gone: list[bool]
    #: the turn order, as creature indices (R21, R30, R48)
    order: list[int]
    #: per roller: the others in turn order starting after it (who is asked in its window);
    #: made from ``order`` by :meth:`~caltrop.encounter.state.Encounter.set_order`
    windows: TurnWindows
    #: each creature's initiative total, once rolled (R30)
    initiative: list[int | None]
    #: the position in ``order`` of the creature whose turn it is
    turn_pos: int
    #: 0 before the first round starts (initiative is being rolled)
    round: int
    #: the stack of declared rolls; the top one resolves first (R15)
    pending: list[PendingRoll]
    over: bool
    winner: Side | None
    last_outcome: Outcome | None

    def copy(self) -> PlayState:
        """An independent copy: every list is new, every mutable element too (the economy's
        resources, the pending rolls); immutable values (tuples, a frozen outcome) are shared."""
        return PlayState(
            health=self.health.copy(),
            down=self.down.copy(),
            resources=[r.copy() for r in self.resources],
            boons=self.boons.copy(),
            conditions=self.conditions.copy(),
            gone=self.gone.copy(),
            order=self.order.copy(),
            windows=self.windows,  # replaced whole by set_order; a window built once is the same
            initiative=self.initiative.copy(),
            turn_pos=self.turn_pos,
            round=self.round,
            pending=[p.copy() for p in self.pending],
            over=self.over,
            winner=self.winner,
            last_outcome=self.last_outcome,
        )
