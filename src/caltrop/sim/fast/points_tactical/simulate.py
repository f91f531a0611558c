"""Typed entry points of the compiled tactical policy for Action Point encounters:
:func:`play_points_tactical` (a run as the runner's :class:`~caltrop.sim.runner.Records`) and
:func:`trace_points_tactical` (one encounter with every decision and roll).

The kernel looks the policy's numbers up in the compiled encounter's
:class:`~caltrop.sim.fast.points_tactical.compile.Numbers` table; an encounter that asked for a
number not there yet is played again, from its own stream, once this module has had the Python
policy's functions work the missing numbers out. Only encounters that found every number they
asked for are kept, so every result is the one the Python policy's choices give. The first
encounters of a cold table fill it; batches then grow fourfold (a warm table replays next to
nothing)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from caltrop.sim.fast.compile import FastPathError
from caltrop.sim.fast.points_tactical.compile import (
    SHOOTER_TURNS,
    SIDESTEPS,
    CompiledPointsTactical,
    rotations,
)
from caltrop.sim.fast.results import _KERNEL_LOCK, DEFAULT_MAX_ROUNDS, _keys
from caltrop.sim.results import DRAW, NPC_WINS, PC_WINS, Records

#: Encounters of the first batch on a table (it grows fourfold while encounters replay).
FIRST_BATCH: Final = 16
#: Fill rounds at most before giving up (each adds every number a batch asked for).
MAX_FILLS: Final = 10_000

_SHOOTER = rotations(SHOOTER_TURNS)
_SIDESTEPS = rotations(SIDESTEPS)


def _tab(compiled: CompiledPointsTactical, max_rounds: int) -> tuple[Any, ...]:
    """The kernel's ``tab``, with the numbers table as it stands."""
    c = compiled
    k = c.knobs
    safety = np.asarray(
        [
            k.safety * 0.5 ** (max(0, r - k.patience) / k.patience_halflife)
            for r in range(max_rounds + 2)
        ],
        np.float64,
    )
    knobs = np.asarray([k.hold, k.equip, k.assist_gain, k.min_harm], np.float64)
    numbers = c.numbers
    return (
        c.creatures,
        c.places,
        c.weapons,
        c.options,
        c.option_span,
        c.option_mean,
        c.terms,
        c.check_initiative,
        c.spacing,
        numbers.keys,
        numbers.values,
        numbers.bits,
        safety,
        _SHOOTER,
        _SIDESTEPS,
        knobs,
        c.anytime,
    )


@dataclass(frozen=True, slots=True)
class _Run:
    winner: npt.NDArray[np.int64]
    rounds: npt.NDArray[np.int64]
    steps: npt.NDArray[np.int64]
    stats: npt.NDArray[np.int64]


#: whether :func:`playouts_first` made this process's playouts kernel ready
_PLAYOUTS_READY: list[bool] = [False]


def playouts_first(compiled: CompiledPointsTactical, max_rounds: int) -> None:
    """Compile (or load from numba's cache) the playouts' kernel, ``kernel.play_listed``,
    before any other entry of the kernel runs in this process; once a process.

    Why: numba types a call whose arguments are constants (``_strike(…, R_HIT, …)``) against
    the overloads the callee already has, and an ``int64`` one fits a constant as well as a
    constant-folded one does. The resume path (:class:`~caltrop.sim.fast.points_tactical.
    resume.Resume`) calls the same functions with variables; where it ran first, a later
    compile of ``play_listed`` took its general overloads, and numba's cache then kept that
    kernel for every later process: Warband 1,719 → 257 fights a second (load 0.6, after
    ``tests/sim/test_fast_points_resume.py`` compiled the cache). Calling ``play_listed`` on
    no fights first gives it the constant-folded callees whatever runs next."""
    if _PLAYOUTS_READY[0]:
        return
    import numba

    from caltrop.sim.fast.points_tactical import kernel

    size = compiled.size
    none = np.zeros(0, np.int64)
    key0, key1 = _keys(0)
    with _KERNEL_LOCK:
        kernel.play_listed(
            key0, key1, none, max(16, numba.get_num_threads()), _tab(compiled, max_rounds),
            max_rounds, np.zeros(0, np.int64), np.zeros(0, np.int64),
            (
                np.zeros(0, np.int64),
                np.zeros((0, kernel.OUT_COLUMNS, size), np.int64),
                np.zeros((0, kernel.MISS_CAP + 1), np.int64),
            ),
        )  # fmt: skip
    _PLAYOUTS_READY[0] = True


def _play(
    compiled: CompiledPointsTactical,
    indices: npt.NDArray[np.int64],
    seed: int,
    max_rounds: int,
    threads: int | None,
) -> _Run:
    """Encounters ``indices``, replayed until every one found all its numbers."""
    import numba

    from caltrop.sim.fast.points_tactical import kernel

    n = indices.shape[0]
    size = compiled.size
    winner = np.zeros(n, np.int64)
    rounds = np.zeros(n, np.int64)
    steps = np.zeros(n, np.int64)
    stats = np.zeros((n, kernel.OUT_COLUMNS, size), np.int64)
    key0, key1 = _keys(seed)
    todo = np.arange(n, dtype=np.int64)
    limit = FIRST_BATCH
    for _ in range(MAX_FILLS):
        if todo.size == 0:
            break
        batch = todo[:limit]
        m = batch.shape[0]
        w = np.zeros(m, np.int64)
        r = np.zeros(m, np.int64)
        k = np.zeros(m, np.int64)
        s = np.zeros((m, kernel.OUT_COLUMNS, size), np.int64)
        missing = np.zeros((m, kernel.MISS_CAP + 1), np.int64)
        tab = _tab(compiled, max_rounds)
        with _KERNEL_LOCK:
            before = numba.get_num_threads()
            if threads is not None:
                most: int = getattr(numba.config, "NUMBA_NUM_THREADS", before)
                numba.set_num_threads(min(threads, most))
            try:
                chunk = max(16, -(-m // (4 * numba.get_num_threads())))
                kernel.play_listed(
                    key0, key1, indices[batch], chunk, tab, max_rounds, w, r, (k, s, missing)
                )
            finally:
                numba.set_num_threads(before)
        bad = missing[:, 0] > 0
        good = ~bad
        winner[batch[good]] = w[good]
        rounds[batch[good]] = r[good]
        steps[batch[good]] = k[good]
        stats[batch[good]] = s[good]
        if bad.any():
            wanted = missing[bad, 1:]
            if (wanted == kernel.UNSUPPORTED).any():
                raise FastPathError(
                    f"{compiled.definition.name}: a fight reached a number the kernel's keys "
                    "cannot hold (more than 15 attacks or defences in one series)"
                )
            if compiled.numbers.fill(wanted) == 0:
                raise RuntimeError("the kernel asked again for numbers it was given")
            limit = max(FIRST_BATCH, limit)
        else:
            limit *= 4
        todo = np.concatenate([batch[bad], todo[m:]])
    else:
        raise RuntimeError(f"the numbers table did not settle within {MAX_FILLS} fills")
    return _Run(winner, rounds, steps, stats)


def play_points_tactical(
    compiled: CompiledPointsTactical,
    n: int,
    seed: int,
    *,
    first: int = 0,
    threads: int | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
) -> Records:
    """Encounters ``first .. first + n − 1`` of an Action Point encounter, both sides playing
    tactical, as the runner's :class:`Records` (the columns :func:`caltrop.sim.runner.
    play_recorded` counts: ``cost`` the AP and RP paid, ``dealt`` the damage through the
    defences, ``reactions`` the defences and assists, ``steps`` the decisions and rolls).
    Encounter ``i`` rolls from a stream of ``seed`` and ``i`` alone, so a result depends
    neither on ``threads`` nor on how a run is split."""
    from caltrop.sim.fast.points_tactical import kernel

    if n < 0 or first < 0:
        raise FastPathError(f"n and first must be 0 or more, not {n} and {first}")
    if max_rounds < 1:
        raise FastPathError(f"max_rounds must be at least 1, not {max_rounds}")
    if threads is not None and threads < 1:
        raise FastPathError(f"threads must be at least 1, not {threads}")
    run = _play(compiled, np.arange(first, first + n, dtype=np.int64), seed, max_rounds, threads)
    codes = np.full(n, DRAW, np.int8)
    codes[run.winner == 0] = PC_WINS
    codes[run.winner == 1] = NPC_WINS

    def column(col: int) -> npt.NDArray[np.int32]:
        return run.stats[:, col, :].astype(np.int32)

    zeros = np.zeros((n, compiled.size), np.int32)
    return Records(
        winner=codes,
        timeout=(run.winner == kernel.DRAW) & (run.rounds == max_rounds),
        rounds=run.rounds.astype(np.int32),
        steps=run.steps.astype(np.int32),
        cost=column(kernel.OUT_COST),
        dealt=column(kernel.OUT_DEALT),
        reactions=column(kernel.OUT_REACT),
        helps=zeros,
        hinders=zeros.copy(),
        down=run.stats[:, kernel.OUT_DOWN, :] != 0,
        health=column(kernel.OUT_HEALTH),
    )


@dataclass(frozen=True, slots=True)
class PointsTacticalTrace:
    """One kernel encounter: the winner (0, 1, −1), its rounds and every row of its trace
    (columns ``kernel.X_*``: a decision, a pass, a turn's end or a roll)."""

    winner: int
    rounds: int
    rows: npt.NDArray[np.int64]


def trace_points_tactical(
    compiled: CompiledPointsTactical,
    seed: int,
    index: int,
    *,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
) -> PointsTacticalTrace:
    """Encounter ``index`` of :func:`play_points_tactical` ``(…, seed)`` with its trace."""
    from caltrop.sim.fast.points_tactical import kernel

    _play(compiled, np.asarray([index], np.int64), seed, max_rounds, 1)  # fills the numbers
    capacity = 1024
    key0, key1 = _keys(seed)
    while True:
        trace = np.zeros((capacity, kernel.X_COLUMNS), np.int64)
        winner, rounds, written = kernel.play_traced(
            key0, key1, index, _tab(compiled, max_rounds), max_rounds, trace
        )
        if written <= capacity:
            break
        capacity = int(written) + 1
    return PointsTacticalTrace(int(winner), int(rounds), trace[:written].copy())
