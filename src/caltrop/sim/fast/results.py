"""What the fast path's kernels return, and what their entry points share (no kernel here).

:class:`FastResult` is a run's per-encounter results; :class:`Outputs` the arrays a kernel
fills; both kernels' entry points (:mod:`.simulate`, :mod:`.points.simulate`) and the reference
engine (:mod:`.reference`) take their constants from here, so none of them imports another.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from caltrop.core.model import EncounterDef, Side

#: The round cap of a fast-path encounter (a draw once it is reached).
DEFAULT_MAX_ROUNDS = 100

#: Encounters per work item of the parallel loop (results do not depend on it).
CHUNK = 256


@dataclass(frozen=True, slots=True)
class FastResult:
    """What :func:`simulate` returns: one entry per encounter, creatures in turn order.

    ``winner[i]`` is 0 (the PCs won), 1 (the NPCs won) or −1 (a draw: still undecided after
    ``max_rounds``); ``rounds[i]`` is the round in which it ended. With ``details=True``:
    ``damage_dealt[i, c]`` (Health removed by creature ``c``'s attacks), ``team_actions[i, c]``
    (hinders it took), ``load_spent[i, c]`` (Cost added to its Load in all), ``down[i, c]``
    (down at the end) and ``health[i, c]`` (its Health at the end); otherwise these are None.
    """

    seed: int
    first: int
    ids: tuple[str, ...]
    sides: tuple[Side, ...]
    winner: npt.NDArray[np.int8]
    rounds: npt.NDArray[np.int32]
    damage_dealt: npt.NDArray[np.int32] | None = None
    team_actions: npt.NDArray[np.int32] | None = None
    load_spent: npt.NDArray[np.int32] | None = None
    down: npt.NDArray[np.bool_] | None = None
    health: npt.NDArray[np.int32] | None = None

    @property
    def n(self) -> int:
        return int(self.winner.shape[0])

    def wins(self, side: Side | str) -> int:
        """How many encounters ``side`` (``"pc"`` or ``"npc"``) won."""
        code = 0 if Side(side) is Side.PC else 1
        return int(np.count_nonzero(self.winner == code))

    def win_rate(self, side: Side | str) -> float:
        return self.wins(side) / self.n if self.n else float("nan")


@dataclass(frozen=True, slots=True)
class Outputs:
    """The arrays a kernel's ``play_many`` fills: per encounter ``winner`` and ``rounds``; per
    encounter and creature (rows only with ``details``) damage dealt, its team actions (hinders
    in Action Load, Blocks in Action Points), what it spent, down and Health at the end."""

    details: bool
    winner: npt.NDArray[np.int8]
    rounds: npt.NDArray[np.int32]
    dealt: npt.NDArray[np.int32]
    team: npt.NDArray[np.int32]
    spent: npt.NDArray[np.int32]
    down: npt.NDArray[np.bool_]
    health: npt.NDArray[np.int32]

    @classmethod
    def empty(cls, n: int, size: int, details: bool) -> Outputs:
        rows = n if details else 0

        def table() -> npt.NDArray[np.int32]:
            return np.zeros((rows, size), np.int32)

        return cls(
            details,
            np.empty(n, np.int8),
            np.empty(n, np.int32),
            table(),
            table(),
            table(),
            np.zeros((rows, size), np.bool_),
            table(),
        )

    def arrays(self) -> tuple[npt.NDArray[Any], ...]:
        """In the order ``play_many`` takes them, after its ``details`` flag."""
        return (
            self.winner,
            self.rounds,
            self.dealt,
            self.team,
            self.spent,
            self.down,
            self.health,
        )

    def result(
        self, seed: int, first: int, ids: tuple[str, ...], definition: EncounterDef
    ) -> FastResult:
        sides = tuple(c.side for c in definition.participants)
        if not self.details:
            return FastResult(seed, first, ids, sides, self.winner, self.rounds)
        return FastResult(seed, first, ids, sides, *self.arrays())


#: One parallel kernel at a time per process: the fork-safe threading layer (numba's
#: ``workqueue`` when TBB is absent) aborts on concurrent launches from several Python threads.
_KERNEL_LOCK = threading.Lock()


def _keys(seed: int) -> tuple[np.uint64, np.uint64]:
    state = np.random.SeedSequence(seed).generate_state(2, np.uint64)
    return np.uint64(state[0]), np.uint64(state[1])
