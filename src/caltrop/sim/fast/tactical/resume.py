"""Play a fight on from where the engine stands, with the compiled tactical policy (issue 13).

The strong player (:mod:`caltrop.sim.search`) weighs a candidate command by playing the fight
on under ``tactical`` many times. :func:`snapshot` takes a running :class:`Encounter` stopped at
an attack roll (a chance point: the attack declared, its reaction window answered) into the
kernel's tables; :func:`play_from` lands that roll with each of a batch of totals and plays
each fight to its end in the kernel, with exactly the Python policy's choices (tested by
replaying kernel fights in the engine from the same state, command by command and die by
die: ``tests/sim/test_fast_resume.py``), about a hundred times faster than the engine.

A state the kernel cannot hold gives None (the caller plays on in the engine): another
definition than the one compiled (a reinforcement, a GM change, R48), a turn order other than
the listed one, a condition or a creature taken out (R48), a pending roll that is not the turn
owner's attack, or a boon whose source the kernel does not know.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

import caltrop.sim.fast.tactical.kernel as kernel
from caltrop.economy.pending import RollKind
from caltrop.encounter import CHANCE, Encounter
from caltrop.sim.fast.results import DEFAULT_MAX_ROUNDS, _keys
from caltrop.sim.fast.tactical.compile import CompiledTactical
from caltrop.sim.fast.tactical.tables import Knobs, TacticalTrace, _tab, steps_of

I64 = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A fight stopped at an attack roll, as the kernel's arrays (``kernel.restore``)."""

    state: I64
    boon_adv: npt.NDArray[np.uint64]
    boon_dis: npt.NDArray[np.uint64]
    #: the pending attack: roller, roll id, target, round, the roller's turn position
    pending: I64

    @property
    def roll(self) -> bool:
        """Always: the fight waits on its attack roll (as an Action Point snapshot may)."""
        return True

    def arrays(self) -> tuple[I64, npt.NDArray[np.uint64], npt.NDArray[np.uint64], I64]:
        return (self.state, self.boon_adv, self.boon_dis, self.pending)


class Resume:
    """The compiled tactical policy of one encounter, ready to play fights on from snapshots."""

    __slots__ = ("_bits", "_order", "compiled", "max_rounds", "tab")

    def __init__(
        self,
        compiled: CompiledTactical,
        *,
        knobs: Knobs | None = None,
        max_rounds: int = DEFAULT_MAX_ROUNDS,
    ) -> None:
        self.compiled = compiled
        self.tab = _tab(compiled, knobs or Knobs())
        self.max_rounds = max_rounds
        self._bits = {key: np.uint64(1) << np.uint64(k) for k, key in enumerate(compiled.sources)}
        self._order = list(range(compiled.size))

    def snapshot(self, encounter: Encounter) -> Snapshot | None:
        """``encounter`` (stopped at its turn owner's attack roll) as the kernel's arrays, or
        None where the kernel cannot hold it (the module docs)."""
        compiled = self.compiled
        if (
            encounter.definition is not compiled.definition
            or encounter.over
            or len(encounter.pending) != 1
            or encounter.order != self._order
            or any(encounter.gone)
            or any(encounter.conditions)
            or encounter.current() != CHANCE  # its reaction window not yet answered
        ):
            return None
        roll = encounter.pending[0]
        owner = encounter.order[encounter.turn_pos]
        if (
            roll.kind is not RollKind.ACTION
            or roll.roller != owner
            or roll.target is None
            or roll.action is None
        ):
            return None
        creature = encounter.creatures[owner]
        w = -1 if roll.weapon is None else creature.weapons.index(roll.weapon)
        roll_id = compiled.roll_ids.get((owner, creature.actions.index(roll.action), w))
        if roll_id is None:
            return None
        n = compiled.size
        state = np.zeros((n, kernel.S_COLUMNS), np.int64)
        adv = np.zeros(n, np.uint64)
        dis = np.zeros(n, np.uint64)
        for c in range(n):
            state[c, kernel.S_HEALTH] = encounter.health[c]
            state[c, kernel.S_LOAD] = encounter.resources[c].load  # type: ignore[attr-defined]
            state[c, kernel.S_DOWN] = int(encounter.down[c])
            for boon in encounter.boons[c]:
                bit = self._bits.get(boon.source)
                if bit is None:
                    return None
                if boon.kind == "adv":
                    adv[c] |= bit
                else:
                    dis[c] |= bit
        pending = np.array(
            [owner, roll_id, roll.target, encounter.round, encounter.turn_pos], np.int64
        )
        return Snapshot(state, adv, dis, pending)

    def play(
        self, snap: Snapshot, totals: npt.ArrayLike, seed: int, first: int = 0
    ) -> tuple[I64, I64]:
        """Fight ``i`` lands the snapshot's roll with ``totals[i]`` and plays to the end on the
        kernel's stream ``first + i`` of ``seed``: (winner: 0 PCs, 1 NPCs, −1 none; rounds)."""
        values = np.ascontiguousarray(np.asarray(totals, np.int64).reshape(-1))
        winner = np.empty(values.shape[0], np.int64)
        rounds = np.empty(values.shape[0], np.int64)
        key0, key1 = _keys(seed)
        trace = np.empty((0, kernel.X_COLUMNS), np.int64)
        kernel.play_from(
            key0, key1, first, self.tab, snap.arrays(), values, self.max_rounds, winner, rounds,
            trace,
        )  # fmt: skip
        return winner, rounds

    def trace(self, snap: Snapshot, total: int, seed: int, index: int = 0) -> TacticalTrace:
        """One fight of :meth:`play` (stream ``index``) with every decision and roll after the
        landed roll."""
        capacity = 256
        key0, key1 = _keys(seed)
        values = np.array([total], np.int64)
        while True:
            winner = np.empty(1, np.int64)
            rounds = np.empty(1, np.int64)
            trace = np.zeros((capacity, kernel.X_COLUMNS), np.int64)
            args = (key0, key1, index, self.tab, snap.arrays(), values, self.max_rounds)
            written = int(kernel.play_from(*args, winner, rounds, trace))
            if written <= capacity:
                break
            capacity = written + 1
        return TacticalTrace(int(winner[0]), int(rounds[0]), steps_of(trace[:written]))


__all__ = ["Resume", "Snapshot"]
