"""One entry point to the compiled tactical policy playing fights on from the engine's state,
for either module (issues 13 and 23): the strong player's playouts (:mod:`caltrop.sim.search`)
and the live chance of winning ask here, and need not know which kernel plays.

:data:`RESUMES` is the table from a module (the ruleset's economy) to what builds its
``Resume``: the Action Load one (:mod:`caltrop.sim.fast.tactical.resume`, at an attack roll)
or the Action Point one (:mod:`caltrop.sim.fast.points_tactical.resume`, at any stage). Both
have the same two calls — ``snapshot(encounter)`` (None where the kernel cannot hold the
state) and ``play(snap, totals, seed, first)`` (each fight lands the snapshot's roll with its
total and plays to the end: winners 0 PCs, 1 NPCs, −1 none, and rounds) — the
:class:`Playouts` protocol. :func:`resume_for` builds one, or None where the kernel cannot
play the encounter (:class:`~caltrop.sim.fast.compile.FastPathError`: the engine plays on).

:func:`win_chance` is P(PC win) from an engine state: ``tactical`` on both sides from there,
``n`` fights in the kernel, the pending roll's total drawn by its exact odds (stratified: fight
``k`` takes the total at quantile ``(k + ½) / n``), each fight then on its own stream of
``seed``. Where the kernel cannot take the state as it stands, the engine plays ``tactical``'s
decisions on (they roll no dice, so this is the same fight) up to a state it can; None if a roll
comes first that the kernel cannot land (an Action Load initiative roll or a reaction's), or
the encounter's module has no kernel.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate
from typing import Any, Final, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from caltrop.core.commands import Command
from caltrop.core.model import EncounterDef, Side
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.sim.fast.compile import FastPathError

I64 = npt.NDArray[np.int64]
S = TypeVar("S")


class Playouts(Protocol[S]):
    """What each module's ``Resume`` offers (see the module docs)."""

    def snapshot(self, encounter: Encounter) -> S | None: ...

    def play(
        self, snap: S, totals: npt.ArrayLike, seed: int, first: int = 0
    ) -> tuple[I64, I64]: ...


def _action_load(definition: EncounterDef) -> Playouts[Any]:
    from caltrop.sim.fast.tactical.compile import compile_tactical
    from caltrop.sim.fast.tactical.resume import Resume

    return Resume(compile_tactical(definition))


def _action_points(definition: EncounterDef) -> Playouts[Any]:
    from caltrop.sim.fast.points_tactical.compile import compile_points_tactical
    from caltrop.sim.fast.points_tactical.resume import Resume

    return Resume(compile_points_tactical(definition))


#: The kernel that plays each module's fights on from a snapshot, by the ruleset's economy.
RESUMES: Final[dict[str, Callable[[EncounterDef], Playouts[Any]]]] = {
    "action_load": _action_load,
    "action_points": _action_points,
}

#: Resumes kept in this process, by their definition (the newest last): the live chance asks
#: after every event of the same encounter. Kept by the definition itself, not an equal one:
#: the Action Load kernel takes an encounter of the very definition it compiled.
_KEPT: dict[int, tuple[EncounterDef, Playouts[Any] | None]] = {}
KEEP: Final = 8


def resume_for(definition: EncounterDef) -> Playouts[Any] | None:
    """The compiled tactical policy of ``definition``'s module, ready to play on from its
    snapshots, or None where no kernel can play it (the engine plays on)."""
    build = RESUMES.get(definition.ruleset.economy.value)
    if build is None:
        return None
    kept = _KEPT.pop(id(definition), None)
    if kept is not None and kept[0] is definition:
        found = kept[1]
    else:
        try:
            found = build(definition)
        except FastPathError:
            found = None
    _KEPT[id(definition)] = (definition, found)
    while len(_KEPT) > KEEP:
        del _KEPT[next(iter(_KEPT))]
    return found


@dataclass(frozen=True, slots=True)
class Chance:
    """``n`` fights played on from one state: how many each side won (the rest undecided at
    the round limit)."""

    n: int
    pc: int
    npc: int

    @property
    def draws(self) -> int:
        return self.n - self.pc - self.npc

    @property
    def p(self) -> float:
        """P(PC win), an undecided fight counting half (as the search counts it)."""
        return (self.pc + 0.5 * self.draws) / self.n

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """The Wilson interval of :attr:`p` at ``z`` standard errors."""
        n, p = self.n, self.p
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return (max(0.0, centre - half), min(1.0, centre + half))


def win_chance(encounter: Encounter, n: int, seed: int) -> Chance | None:
    """P(PC win) from ``encounter``'s state with ``tactical`` on both sides, over ``n`` kernel
    fights (see the module docs); None where no kernel can play it on. ``encounter`` is not
    changed."""
    from caltrop.sim.tactics import TacticalPolicy

    if n < 1:
        raise FastPathError(f"n must be at least 1, not {n}")
    if encounter.over:
        winner = encounter.winner
        return Chance(n, n if winner is Side.PC else 0, n if winner is Side.NPC else 0)
    resume = resume_for(encounter.definition)
    if resume is None:
        return None
    state = encounter
    policy = TacticalPolicy()
    while (snap := resume.snapshot(state)) is None:
        who = state.current()
        if who in (CHANCE, TERMINAL):
            if who == TERMINAL:
                return win_chance(state, n, seed)
            return None
        if state is encounter:
            state = encounter.clone()
        command: Command = policy.choose(state, who)
        state.apply(command)
    totals = np.zeros(n, np.int64)
    if snap.roll:
        pairs = state.chance_outcomes()
        cdf = [float(c) for c in accumulate((p for _, p in pairs), initial=Fraction(0))][1:]
        for k in range(n):
            at = min(bisect_left(cdf, (k + 0.5) / n), len(pairs) - 1)
            totals[k] = pairs[at][0].total
    winners, _ = resume.play(snap, totals, seed)
    return Chance(n, int((winners == 0).sum()), int((winners == 1).sum()))


__all__ = ["RESUMES", "Chance", "Playouts", "resume_for", "win_chance"]
