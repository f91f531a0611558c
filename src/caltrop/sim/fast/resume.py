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

:func:`caltrop.sim.live.chance_at` (P(PC win) from any engine state, the live chance of
winning) plays the engine's ``tactical`` decisions up to a roll and asks here for the kernel
that lands it; there is no second estimate of it here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from caltrop.core.model import EncounterDef
from caltrop.encounter import Encounter
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


__all__ = ["RESUMES", "Playouts", "resume_for"]
