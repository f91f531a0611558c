"""The live chance of winning: P(PC win) from where an encounter stands now (issue 23 item 4).

:func:`chance_at` answers "if both sides play ``tactical`` from here, how often do the PCs
win?" for a running :class:`~caltrop.encounter.Encounter` (a table's state after any event),
with its Wilson 95% interval; :func:`turning_points` reads the biggest swings off a series of
such answers. Pure and seeded: the same state and seed give the same answer, in any process
(:func:`live_seed` derives a table's seed from its id and the event's seq).

Three ways, by where the encounter stands:

* **over**: exactly 1 if the PCs won, else 0 (a draw or the GM's end is no PC win);
* **at the start** (no command applied yet, the definition it began with) and the compiled
  tactical kernel can play it: encounters ``0 … n−1`` of the kernel with the seed — exactly
  the fights ``caltrop sim ENCOUNTER --fast --policy tactical --n n --seed SEED`` plays, so the
  same wins, and the first ``n`` of ``caltrop difficulty``'s tactical sample;
* **anywhere else**: ``n`` fights played on from a copy of the state (:func:`play_on`).
  ``tactical`` is deterministic, so fights differ only at the rolls: the copy is played under
  the Python policy up to the next roll, the ``n`` fights there are shared among the roll's
  totals by a multinomial draw on their exact probabilities (each fight's total is then an
  independent draw, so the ``n`` fights are ``n`` independent play-outs and the Wilson
  interval is honest), and each group goes on alike — until a roll where the compiled kernel
  can take over (Action Load: at the turn owner's attack roll, R15's window answered; Action
  Points: at any stage, R30–R45), which lands each fight's total and plays it to the end
  (:func:`resume_for`: the module's ``Resume``, the same choices as the Python policy).
  An encounter no kernel can play is played in the engine, with a smaller sample
  (:data:`ENGINE_N`) and its wider interval.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Final, Literal

import numpy as np

from caltrop.core.model import EncounterDef, Side
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.errors import CaltropError
from caltrop.sim.results import DEFAULT_MAX_ROUNDS, PC_WINS
from caltrop.sim.stats import Interval, wilson
from caltrop.sim.tactics import TacticalPolicy

#: fights per answer where the compiled kernel plays them (Action Load; any encounter at its
#: start): ±3 percentage points at worst (Wilson 95%, p = ½)
LOAD_N: Final = 1_000
#: fights per answer played in the engine (an encounter no kernel can play, e.g. Action Load
#: with ``initiative: check``: tens of ms a fight; ±17 points at worst)
ENGINE_N: Final = 32
#: how many turning points :func:`turning_points` names by default
TURNS: Final = 3

How = Literal["over", "start", "resume", "engine"]


@dataclass(frozen=True, slots=True)
class Chance:
    """P(PC win) under ``tactical`` from one state: the estimate with its Wilson 95% interval
    (exact, ``lo == hi``, when the encounter is over), the fights it was read from (0 when
    over), the PC wins among them, the seed, and how it was played (``how``: ``over``,
    ``start`` — the compiled kernel from the beginning, ``resume`` — the engine to a roll then
    the kernel, ``engine`` — the engine all the way)."""

    pc_win: Interval
    n: int
    wins: int
    seed: int
    how: How

    @property
    def exact(self) -> bool:
        return self.how == "over"

    def as_dict(self) -> dict[str, Any]:
        return {
            "p": self.pc_win.estimate,
            "lo": self.pc_win.lo,
            "hi": self.pc_win.hi,
            "n": self.n,
            "wins": self.wins,
            "seed": self.seed,
            "how": self.how,
            "exact": self.exact,
        }


def live_seed(table_id: str, seq: int) -> int:
    """The seed of a table's answer after event ``seq``: the first 63 bits of
    SHA-256(``table_id:seq``) — reproducible anywhere from the table's id and the log."""
    digest = hashlib.sha256(f"{table_id}:{seq}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def chance_at(
    encounter: Encounter,
    *,
    seed: int,
    n: int | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
) -> Chance:
    """P(PC win) from ``encounter`` as it stands (module docs); ``encounter`` is not changed.
    ``n``: fights to play (None: :data:`LOAD_N` where the kernel plays, :data:`ENGINE_N` in
    the engine)."""
    if n is not None and n < 1:
        raise CaltropError(f"the chance of winning needs at least 1 fight, not {n}")
    if seed < 0:
        raise CaltropError(f"the seed must be 0 or more, not {seed}")
    if encounter.over:
        won = int(encounter.winner is Side.PC)
        return Chance(Interval(float(won), float(won), float(won)), 0, won, seed, "over")
    if at_start(encounter):
        compiled = _compiled(encounter.definition)
        if compiled is not None:
            from caltrop.sim.fast.tactical import play_tactical

            size = n or LOAD_N
            records = play_tactical(compiled, size, seed, threads=1, max_rounds=max_rounds)
            wins = int((records.winner == PC_WINS).sum())
            return Chance(wilson(wins, size), size, wins, seed, "start")
    resume = resume_for(encounter.definition)
    size = n or (LOAD_N if resume is not None else ENGINE_N)
    wins, resumed = play_on(encounter, size, seed, resume=resume, max_rounds=max_rounds)
    return Chance(wilson(wins, size), size, wins, seed, "resume" if resumed else "engine")


def at_start(encounter: Encounter) -> bool:
    """No command applied yet (or all undone) and the definition it began with: the state of
    :meth:`Encounter.begin`, whatever its seed."""
    return not encounter.commands and encounter.definition is encounter.initial


def play_on(
    encounter: Encounter,
    n: int,
    seed: int,
    *,
    resume: Any = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
) -> tuple[int, bool]:
    """``n`` fights played on from a copy of ``encounter`` under ``tactical`` (module docs):
    the PC wins, and whether the kernel (``resume``, a
    :class:`~caltrop.sim.fast.tactical.resume.Resume` of this definition) played any of them.
    The rolls' shares and the kernel's streams come from ``seed`` alone."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0]))
    key = int(np.random.SeedSequence([seed, 1]).generate_state(1, np.uint64)[0] >> np.uint64(1))
    policy = TacticalPolicy()
    wins = 0
    resumed = False
    stream = 0  # the kernel's next stream: fight k of the kernel plays on stream k
    stack: list[tuple[Encounter, int]] = [(encounter.clone(), n)]
    while stack:
        state, count = stack.pop()
        while True:  # the group of ``count`` fights, alike up to the next roll
            who = state.current()
            if who == TERMINAL or state.round > max_rounds:
                wins += count if state.over and state.winner is Side.PC else 0
                break
            if who != CHANCE:
                state.apply(policy.choose(state, who))
                continue
            outcomes = state.chance_outcomes()
            probs = np.array([float(p) for _, p in outcomes])
            shares = rng.multinomial(count, probs / probs.sum())
            snap = None if resume is None else resume.snapshot(state)
            if snap is not None:  # the kernel lands each fight's total and plays it out
                totals = np.repeat([t.total for t, _ in outcomes], shares)
                winners, _ = resume.play(snap, totals, key, stream)
                stream += count
                wins += int((winners == 0).sum())
                resumed = True
                break
            groups = [(t, int(k)) for (t, _), k in zip(outcomes, shares, strict=True) if k]
            for total, k in groups[1:]:
                branch = state.clone()
                branch.apply(total)
                stack.append((branch, k))
            total, count = groups[0]
            state.apply(total)
    return wins, resumed


def resume_for(definition: EncounterDef) -> Any:
    """The compiled kernel that plays fights on from a snapshot of ``definition``'s running
    encounters, for either module (:func:`caltrop.sim.fast.resume.resume_for`: Action Load at
    an attack roll, Action Point at any stage), or None: the engine plays them (an encounter
    the kernel cannot play)."""
    from caltrop.sim.fast.resume import resume_for as compiled_resume

    return compiled_resume(definition)


def _compiled(definition: EncounterDef) -> Any:
    """``definition`` compiled for its module's tactical kernel, or None if it cannot be."""
    known = _COMPILED.get(id(definition))
    if known is not None and known[0] is definition:
        return known[1]
    from caltrop.sim.fast.compile import FastPathError
    from caltrop.sim.fast.tactical import compile_any

    try:
        compiled: Any = compile_any(definition)
    except FastPathError:
        compiled = None
    _remember(_COMPILED, definition, compiled)
    return compiled


#: the definitions compiled lately (by identity, each with its definition so the id is its own)
_COMPILED: dict[int, tuple[EncounterDef, Any]] = {}
#: definitions remembered at most (a worker serves a few tables at once)
_REMEMBERED: Final = 16


def _remember(
    memo: dict[int, tuple[EncounterDef, Any]], definition: EncounterDef, value: Any
) -> None:
    if len(memo) >= _REMEMBERED:
        memo.pop(next(iter(memo)))
    memo[id(definition)] = (definition, value)


@dataclass(frozen=True, slots=True)
class Turn:
    """A turning point: the event at ``seq`` moved P(PC win) from ``before`` to ``after``."""

    seq: int
    before: float
    after: float

    @property
    def delta(self) -> float:
        return self.after - self.before


def turning_points(series: Sequence[tuple[int, float]], most: int = TURNS) -> list[Turn]:
    """The ``most`` largest swings of a series of (seq, P(PC win)) in seq order, each the step
    from one answer to the next (the event at the later seq made it), largest |Δ| first (ties:
    the earlier first); steps of 0 are no turning point."""
    ordered = sorted(series)
    steps = [
        Turn(seq, before, after)
        for (_, before), (seq, after) in pairwise(ordered)
        if after != before
    ]
    steps.sort(key=lambda t: (-abs(t.delta), t.seq))
    return steps[:most]


__all__ = [
    "ENGINE_N",
    "LOAD_N",
    "Chance",
    "Turn",
    "at_start",
    "chance_at",
    "live_seed",
    "play_on",
    "resume_for",
    "turning_points",
]
