"""The compiled tactical policy's typed tables and traces, shared by the whole-run entry points
(:mod:`.simulate`) and the playouts from the middle of a fight (:mod:`.resume`), which the strong
player imports: nothing here imports the runner."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np

import caltrop.sim.fast.tactical.kernel as kernel
from caltrop.sim.fast.tactical.compile import CompiledTactical


@dataclass(frozen=True, slots=True)
class Knobs:
    """:class:`~caltrop.sim.tactics.TacticalPolicy`'s weights (its defaults here)."""

    min_gain: float = 0.05
    discount: float = 0.6
    reserve: bool = True


def _tab(compiled: CompiledTactical, knobs: Knobs) -> tuple[Any, ...]:
    """The kernel's ``tab``: the tables, the ruleset's options and the policy's knobs."""
    c = compiled
    return (
        c.creatures,
        c.threat,
        c.turn,
        c.weapon_rolls,
        c.rolls,
        c.terms,
        c.profile_rolls,
        c.team,
        c.harm,
        c.legacy,
        c.round_reset,
        float(knobs.min_gain),
        float(knobs.discount),
        bool(knobs.reserve),
        c.scored_capacity,
    )


@dataclass(frozen=True, slots=True)
class TacticalStep:
    """One row of a traced encounter: a decision (``act``, ``pass``, ``end``) or a ``roll``.
    ``action`` and ``weapon`` index the actor's stat block (−1: none); ``target`` is a creature
    index (−1: none); a roll has its d4 pool and total."""

    kind: str
    actor: int
    action: int
    target: int
    weapon: int
    d4: int
    total: int
    round: int


@dataclass(frozen=True, slots=True)
class TacticalTrace:
    winner: int
    rounds: int
    steps: tuple[TacticalStep, ...]


_KINDS: Final = ("act", "pass", "end", "roll")


def steps_of(trace: np.ndarray) -> tuple[TacticalStep, ...]:
    """The kernel's trace rows as steps."""
    return tuple(
        TacticalStep(
            _KINDS[int(r[kernel.X_KIND])],
            int(r[kernel.X_ACTOR]),
            int(r[kernel.X_ACTION]),
            int(r[kernel.X_TARGET]),
            int(r[kernel.X_WEAPON]),
            int(r[kernel.X_D4]),
            int(r[kernel.X_TOTAL]),
            int(r[kernel.X_ROUND]),
        )
        for r in trace
    )
