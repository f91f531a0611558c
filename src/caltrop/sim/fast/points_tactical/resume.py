"""Play an Action Point fight on from where the engine stands, with the compiled tactical
policy (issue 23 item 5): what :mod:`caltrop.sim.fast.tactical.resume` does for Action Load.

:meth:`Resume.snapshot` takes a running :class:`Encounter` into the kernel's arrays at any
stage the tactical policy reaches: an initiative roll (R30, some Speed checks rolled), a
declared attack's hit or damage roll, its defence window — the defender choosing (after Take
Cover or not), an ally asked for Defense Assist, the defence roll (R40, R45) — or the turn
owner's next decision, with its AP and everyone's RP as spent (R31–R33), Aim stacks (R39),
cover (R40), weapons in hand (R44) and positions (R34). :meth:`Resume.play` lands a pending
roll with each of a batch of totals (a snapshot at a decision ignores them) and plays each
fight to its end in the kernel, making exactly the Python policy's choices: tested by
replaying, from snapshots taken at every stage of engine play-outs, the kernel's fight in the
engine command by command and die by die (``tests/sim/test_fast_points_resume.py``).

A state the kernel cannot hold gives None (the caller plays on in the engine): another
definition than the one compiled (a reinforcement, a GM change, R48), the encounter over, a
turn order that is not every participant once, a creature prone, grappled, scaling, unaware,
out of sight (R41–R43) or beyond the kernel's Health, a stack of pending rolls, a roll the
policy does not make (a check, a contest), an attack by another than the turn owner, or a
reaction asked where the policy asks none.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from caltrop.economy.pending import RollKind
from caltrop.economy.points.rolls import Damage, Defence, Hit
from caltrop.economy.points.state import PointsState
from caltrop.encounter import CHANCE, Encounter
from caltrop.sim.fast.compile import FastPathError
from caltrop.sim.fast.points_tactical import kernel
from caltrop.sim.fast.points_tactical.compile import CompiledPointsTactical
from caltrop.sim.fast.points_tactical.simulate import (
    MAX_FILLS,
    PointsTacticalTrace,
    _tab,
    playouts_first,
)
from caltrop.sim.fast.results import DEFAULT_MAX_ROUNDS, _keys

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

#: the kernel's defence mode of the engine's (R40)
_MODES = {None: -1, "block": kernel.V_BLOCK, "dodge": kernel.V_DODGE}
#: the kernel's verb of the engine's attack verbs (R38, R39)
_VERBS = {"attack": kernel.V_ATTACK, "shoot": kernel.V_SHOOT}


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A fight stopped at a roll or a decision, as the kernel's arrays
    (``kernel.play_resumed``): per creature its state (``kernel.S_*``), position, turn order
    and initiative total, and ``pending`` (``kernel.P_*``) what waits."""

    state: I64
    positions: F64
    order: I64
    initiative: I64
    pending: I64

    @property
    def roll(self) -> bool:
        """Whether a roll waits (its total is landed by :meth:`Resume.play`), not a decision."""
        return int(self.pending[kernel.P_STAGE]) < kernel.W_TURN

    def arrays(self) -> tuple[I64, F64, I64, I64]:
        return (self.state, self.positions, self.order, self.initiative)


class Resume:
    """The compiled Action Point tactical policy of one encounter, ready to play fights on
    from snapshots."""

    __slots__ = ("compiled", "max_rounds")

    def __init__(
        self, compiled: CompiledPointsTactical, *, max_rounds: int = DEFAULT_MAX_ROUNDS
    ) -> None:
        if max_rounds < 1:
            raise FastPathError(f"max_rounds must be at least 1, not {max_rounds}")
        self.compiled = compiled
        self.max_rounds = max_rounds
        playouts_first(compiled, max_rounds)  # before play_resumed compiles: see its docs

    def snapshot(self, encounter: Encounter) -> Snapshot | None:
        """``encounter`` as the kernel's arrays, or None where the kernel cannot hold it (the
        module docs)."""
        compiled = self.compiled
        n = compiled.size
        definition = encounter.definition
        if (
            (definition is not compiled.definition and definition != compiled.definition)
            or encounter.over
            or sorted(encounter.order) != list(range(n))
            or any(encounter.gone)
            or any(encounter.conditions)
            or (
                len(encounter.pending) > 1
                and any(p.kind is not RollKind.INITIATIVE for p in encounter.pending)
            )
        ):
            return None
        state = np.zeros((n, kernel.S_COLUMNS), np.int64)
        positions = np.zeros((n, 2), np.float64)
        ids = {c: k for k, c in enumerate(compiled.ids)}
        for c, creature in enumerate(compiled.definition.participants):
            body = encounter.resources[c]
            if not isinstance(body, PointsState) or not self._plain(body):
                return None
            if not 0 <= encounter.health[c] <= 255:
                return None
            state[c, kernel.S_HEALTH] = encounter.health[c]
            state[c, kernel.S_DOWN] = int(encounter.down[c])
            state[c, kernel.S_AP] = body.ap
            state[c, kernel.S_RP] = body.rp
            state[c, kernel.S_FLOAT] = body.floating
            names = [w.name for w in creature.weapons]
            if any(name not in names for name in body.equipped):
                return None
            state[c, kernel.S_EQ] = sum(1 << names.index(name) for name in set(body.equipped))
            state[c, kernel.S_AIM] = body.aim
            state[c, kernel.S_COVER] = sum(1 << ids[source] for source in set(body.cover_from))
            positions[c] = (body.x, body.y)
        order = np.asarray(encounter.order, np.int64)
        initiative = np.asarray([t or 0 for t in encounter.initiative], np.int64)
        pending = self._pending(encounter, state)
        if pending is None:
            return None
        return Snapshot(state, positions, order, initiative, pending)

    @staticmethod
    def _plain(body: PointsState) -> bool:
        """No state the tactical policy never brings about (R41–R43)."""
        return not (
            body.prone or body.grappled_by or body.scaling or body.unaware_of or body.no_sight
        )

    def _pending(self, encounter: Encounter, state: I64) -> I64 | None:
        """What waits, as ``kernel.P_*`` (None: nothing the kernel plays from)."""
        p = np.full(kernel.P_COLUMNS, -1, np.int64)
        p[kernel.P_ASSISTS] = p[kernel.P_COVER] = 0
        who = encounter.current()
        if encounter.pending and encounter.pending[-1].kind is RollKind.INITIATIVE:
            k = encounter.pending[-1].roller
            rolled = [t is not None for t in encounter.initiative]
            if rolled != [j < k for j in range(len(rolled))]:
                return None  # R30: the kernel rolls them in participant order
            p[kernel.P_STAGE] = kernel.R_INITIATIVE
            p[kernel.P_ROLLER] = k
            p[kernel.P_OWNER] = p[kernel.P_ROUND] = p[kernel.P_POS] = 0
            return p
        if encounter.round < 1 or encounter.round > self.max_rounds:
            return None
        owner = encounter.order[encounter.turn_pos]
        p[kernel.P_OWNER] = owner
        p[kernel.P_ROUND] = encounter.round
        p[kernel.P_POS] = encounter.turn_pos
        if not encounter.pending:
            if who != self.compiled.ids[owner]:
                return None
            p[kernel.P_STAGE] = kernel.W_TURN
            return p
        top = encounter.pending[0]
        if top.kind is not RollKind.STAGE:
            return None
        if top.stage in (Hit.name, Damage.name):
            record: Hit | Damage = (Hit if top.stage == Hit.name else Damage).of(top.context)
            if who != CHANCE or record.attacker != owner or record.verb not in _VERBS:
                return None
            verb = _VERBS[record.verb]
            arg = self._option(owner, int(state[owner, kernel.S_EQ]), verb, record.weapons)
            if arg < 0:
                return None
            p[kernel.P_STAGE] = kernel.R_HIT if top.stage == Hit.name else kernel.R_DAMAGE
            p[kernel.P_TARGET] = record.target
            p[kernel.P_VERB] = verb
            p[kernel.P_ARG] = arg
            if isinstance(record, Hit):
                p[kernel.P_DC] = record.dc
            return p
        if top.stage != Defence.name:
            return None
        window = Defence.of(top.context)
        if window.attacker != owner or window.verb not in _VERBS or window.mode not in _MODES:
            return None
        p[kernel.P_TARGET] = top.roller
        p[kernel.P_VERB] = _VERBS[window.verb]
        p[kernel.P_INCOMING] = window.incoming
        p[kernel.P_MODE] = _MODES[window.mode]
        p[kernel.P_ASSISTS] = window.assists
        p[kernel.P_COVER] = int(window.cover)
        if who == CHANCE:
            p[kernel.P_STAGE] = kernel.R_DEFENCE
            return p
        asked = self.compiled.ids.index(who)
        if window.mode is None:
            if asked != top.roller:
                return None
            p[kernel.P_STAGE] = kernel.W_DEFEND
            return p
        order = encounter.order
        p[kernel.P_STAGE] = kernel.W_ASSIST
        p[kernel.P_ASKED] = (order.index(asked) - order.index(top.roller)) % len(order)
        return p if p[kernel.P_ASKED] > 0 else None

    def _option(self, c: int, mask: int, verb: int, weapons: str) -> int:
        """The kernel's attack option of ``c`` holding ``mask`` with these weapons, or -1."""
        compiled = self.compiled
        start, stop = compiled.option_span[c, mask]
        for o in range(int(start), int(stop)):
            option = compiled.options_py[o]
            if option.ranged == (verb == kernel.V_SHOOT) and weapons == "+".join(
                w.name for w in option.weapons
            ):
                return o
        return -1

    def _run(
        self, snap: Snapshot, values: I64, seed: int, streams: I64, trace: I64
    ) -> tuple[I64, I64, I64, int]:
        """Fights on streams ``streams``, replayed until each found every number it asked
        for (as :func:`caltrop.sim.fast.points_tactical.simulate._play`): (winner, rounds,
        steps, the rows the last traced)."""
        compiled = self.compiled
        m = values.shape[0]
        winner = np.zeros(m, np.int64)
        rounds = np.zeros(m, np.int64)
        steps = np.zeros(m, np.int64)
        key0, key1 = _keys(seed)
        todo = np.arange(m, dtype=np.int64)
        written = 0
        for _ in range(MAX_FILLS):
            if todo.size == 0:
                return winner, rounds, steps, written
            k = todo.shape[0]
            w = np.zeros(k, np.int64)
            r = np.zeros(k, np.int64)
            st = np.zeros(k, np.int64)
            stats = np.zeros((k, kernel.OUT_COLUMNS, compiled.size), np.int64)
            missing = np.zeros((k, kernel.MISS_CAP + 1), np.int64)
            written = int(
                kernel.play_resumed(
                    key0, key1, streams[todo], _tab(compiled, self.max_rounds), snap.arrays(),
                    snap.pending, values[todo], self.max_rounds, w, r, (st, stats, missing),
                    trace,
                )
            )  # fmt: skip
            bad = missing[:, 0] > 0
            good = todo[~bad]
            winner[good], rounds[good], steps[good] = w[~bad], r[~bad], st[~bad]
            if bad.any():
                wanted = missing[bad, 1:]
                if (wanted == kernel.UNSUPPORTED).any():
                    raise FastPathError(
                        f"{compiled.definition.name}: a fight reached a number the kernel's "
                        "keys cannot hold (more than 15 attacks or defences in one series)"
                    )
                if compiled.numbers.fill(wanted) == 0:
                    raise RuntimeError("the kernel asked again for numbers it was given")
            todo = todo[bad]
        raise RuntimeError(f"the numbers table did not settle within {MAX_FILLS} fills")

    def play(
        self, snap: Snapshot, totals: npt.ArrayLike, seed: int, first: int = 0
    ) -> tuple[I64, I64]:
        """Fight ``i`` lands the snapshot's roll with ``totals[i]`` (at a decision, only how
        many totals there are counts) and plays to the end on the kernel's stream ``first +
        i`` of ``seed``: (winner: 0 PCs, 1 NPCs, −1 none; rounds)."""
        values = np.ascontiguousarray(np.asarray(totals, np.int64).reshape(-1))
        streams = np.arange(first, first + values.shape[0], dtype=np.int64)
        empty = np.empty((0, kernel.X_COLUMNS), np.int64)
        winner, rounds, _, _ = self._run(snap, values, seed, streams, empty)
        return winner, rounds

    def trace(self, snap: Snapshot, total: int, seed: int, index: int = 0) -> PointsTacticalTrace:
        """One fight of :meth:`play` (stream ``index``) with every decision and roll after the
        landed roll (or from the decision)."""
        values = np.asarray([total], np.int64)
        streams = np.asarray([index], np.int64)
        capacity = 1024
        while True:
            trace = np.zeros((capacity, kernel.X_COLUMNS), np.int64)
            winner, rounds, _, written = self._run(snap, values, seed, streams, trace)
            if written <= capacity:
                break
            capacity = written + 1
        return PointsTacticalTrace(int(winner[0]), int(rounds[0]), trace[:written].copy())


__all__ = ["Resume", "Snapshot"]
