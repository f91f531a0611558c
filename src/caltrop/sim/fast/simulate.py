"""Typed entry points of the fast path: :func:`simulate` and :func:`trace`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from caltrop.core.model import EncounterDef, LoadReset
from caltrop.core.pool import Revision
from caltrop.sim.fast.compile import CompiledEncounter, FastPathError, compile_encounter
from caltrop.sim.fast.results import (
    _KERNEL_LOCK,
    CHUNK,
    DEFAULT_MAX_ROUNDS,
    FastResult,
    Outputs,
    _keys,
)

if TYPE_CHECKING:
    from caltrop.sim.fast.points.compile import CompiledPoints


@dataclass(frozen=True, slots=True)
class TraceRow:
    """One attack roll of a traced encounter (creature and option indices, as compiled;
    ``d4`` is the size of its d4 pool, the weapon's and the action's dice come on top)."""

    round: int
    roller: int
    option: int
    target: int
    helpers: tuple[int, ...]
    d4: int
    total: int
    damage: int


@dataclass(frozen=True, slots=True)
class TraceResult:
    winner: int
    rounds: int
    rows: tuple[TraceRow, ...]


def _tables(
    compiled: CompiledEncounter,
) -> tuple[
    npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]
]:
    c = compiled

    def table(columns: list[npt.NDArray[np.int64]], width: int) -> npt.NDArray[np.int64]:
        if not columns or columns[0].shape[0] == 0:
            return np.zeros((0, width), np.int64)
        return np.ascontiguousarray(np.stack(columns, axis=1), dtype=np.int64)

    creatures = table(
        [
            c.side,
            c.health,
            c.evasion,
            c.reset_load,
            c.attack_start,
            c.attack_end,
            c.team_start,
            c.team_end,
        ],
        8,
    )
    attacks = table(
        [
            c.attack_aspect,
            c.attack_cost,
            c.attack_fixed,
            c.attack_bonus_max,
            c.attack_bonus_mean2,
            c.term_start,
            c.term_end,
        ],
        7,
    )
    terms = table([c.term_count, c.term_sides, c.term_sign], 3)
    team = table([c.team_aspect, c.team_cost, c.team_source], 3)
    return creatures, attacks, terms, team


def _prepare(
    definition: EncounterDef | CompiledEncounter,
    load_reset: LoadReset | str | None,
    revision: Revision | str | None,
    max_rounds: int,
) -> CompiledEncounter:
    if max_rounds < 1:
        raise FastPathError(f"max_rounds must be at least 1, not {max_rounds}")
    if isinstance(definition, CompiledEncounter):
        if load_reset is None and revision is None:
            return definition
        definition = definition.definition
    return compile_encounter(definition, load_reset=load_reset, revision=revision)


def simulate(
    definition: EncounterDef | CompiledEncounter | CompiledPoints,
    n: int,
    seed: int | None = None,
    *,
    load_reset: LoadReset | str | None = None,
    revision: Revision | str | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    details: bool = False,
    first: int = 0,
    threads: int | None = None,
) -> FastResult:
    """Play ``n`` encounters of ``definition`` with the fast tactic, compiled with numba.

    Encounter ``first + i`` (``i < n``) rolls from a random stream derived from ``seed`` and
    ``first + i`` alone: the same seed gives the same results whatever ``threads`` (default:
    numba's, one per core) and however a run is split with ``first`` — ``simulate(d, 50, s)``
    equals ``simulate(d, 20, s)`` followed by ``simulate(d, 30, s, first=20)`` — and variants
    (``load_reset="turn"`` / ``"round"``, ``revision="current"`` / ``"legacy"``, overriding
    the encounter's ruleset) run on paired streams. ``seed=None`` draws fresh entropy; the
    seed used is in the result.

    An Action Point encounter (seed 004) is played by
    :func:`caltrop.sim.fast.points.simulate_points` with ``attack-weakest``
    (``load_reset`` and ``revision`` do not apply to it, as in the engine).

    Raises :class:`~caltrop.sim.fast.compile.FastPathError` for an encounter the fast path
    cannot play (``initiative: check``, halved dice, more than 64 creatures in Action Load).
    The first call in a fresh environment compiles the kernel (some seconds; cached on disk).
    Calls from several Python threads are serialised, and a process forked after a call can
    call it too: unless ``NUMBA_THREADING_LAYER`` is set, numba's fork-safe threading layer is
    chosen (``workqueue`` without TBB), not GNU OpenMP.
    """
    from caltrop.sim.fast.points.compile import CompiledPoints, is_points

    if isinstance(definition, CompiledPoints) or (
        isinstance(definition, EncounterDef) and is_points(definition)
    ):
        from caltrop.sim.fast.points.simulate import simulate_points

        return simulate_points(
            definition,
            n,
            seed,
            max_rounds=max_rounds,
            details=details,
            first=first,
            threads=threads,
        )
    if n < 0:
        raise FastPathError(f"n must be 0 or more, not {n}")
    if first < 0:
        raise FastPathError(f"first must be 0 or more, not {first}")
    compiled = _prepare(definition, load_reset, revision, max_rounds)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]
    out = Outputs.empty(n, compiled.size, details)
    key0, key1 = _keys(seed)
    winner, rounds, *per_creature = out.arrays()
    _run_parallel(
        threads,
        key0,
        key1,
        first,
        CHUNK,
        _kernel_tables(compiled),
        max_rounds,
        details,
        winner,
        rounds,
        tuple(per_creature),
    )
    return out.result(seed, first, compiled.ids, compiled.definition)


def _kernel_tables(compiled: CompiledEncounter) -> tuple[Any, ...]:
    """The kernel's ``tab``: the tables, the gates' Load limits, and the ruleset's options."""
    from caltrop.sim.fast import kernel

    creatures, attacks, terms, team = _tables(compiled)
    limits = kernel.load_limits(creatures, attacks, team, compiled.legacy)
    return (creatures, attacks, terms, team, *limits, compiled.legacy, compiled.round_reset)


def _run_parallel(threads: int | None, *args: Any) -> None:
    import numba

    from caltrop.sim.fast import kernel

    if threads is not None and threads < 1:
        raise FastPathError(f"threads must be at least 1, not {threads}")
    with _KERNEL_LOCK:
        if threads is None:
            kernel.play_many(*args)
            return
        before = numba.get_num_threads()
        most: int = getattr(numba.config, "NUMBA_NUM_THREADS", before)
        numba.set_num_threads(min(threads, most))
        try:
            kernel.play_many(*args)
        finally:
            numba.set_num_threads(before)


def trace(
    definition: EncounterDef | CompiledEncounter,
    seed: int,
    index: int,
    *,
    load_reset: LoadReset | str | None = None,
    revision: Revision | str | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
) -> TraceResult:
    """Encounter ``index`` of :func:`simulate` ``(…, seed)``, with every attack roll it made."""
    from caltrop.sim.fast import kernel

    compiled = _prepare(definition, load_reset, revision, max_rounds)
    tables = _kernel_tables(compiled)
    # every turn either attacks (at least one unit of Load) or ends, so rolls are bounded
    capacity = 64
    while True:
        out = np.zeros((capacity, kernel.R_COLUMNS), np.int64)
        key0, key1 = _keys(seed)
        winner, rounds, written = kernel.play_traced(key0, key1, index, tables, max_rounds, out)
        if written < capacity:
            break
        capacity *= 4
    rows = tuple(
        TraceRow(
            round=int(r[kernel.R_ROUND]),
            roller=int(r[kernel.R_ROLLER]),
            option=int(r[kernel.R_OPTION]),
            target=int(r[kernel.R_TARGET]),
            helpers=tuple(j for j in range(compiled.size) if int(r[kernel.R_HELPERS]) >> j & 1),
            d4=int(r[kernel.R_D4]),
            total=int(r[kernel.R_TOTAL]),
            damage=int(r[kernel.R_DAMAGE]),
        )
        for r in out[:written]
    )
    return TraceResult(int(winner), int(rounds), rows)
