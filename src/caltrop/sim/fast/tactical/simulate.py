"""Typed entry points of the compiled tactical policy: :func:`play_tactical`,
:func:`trace_tactical` and :func:`simulate_tactical` (a whole run, as the runner returns it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Final

import numpy as np

from caltrop.core.model import EncounterDef
from caltrop.errors import SimulationError
from caltrop.sim.fast.compile import FastPathError
from caltrop.sim.fast.points.compile import is_points
from caltrop.sim.fast.points_tactical.compile import (
    CompiledPointsTactical,
    compile_points_tactical,
)
from caltrop.sim.fast.points_tactical.simulate import play_points_tactical
from caltrop.sim.fast.results import _KERNEL_LOCK, CHUNK, DEFAULT_MAX_ROUNDS, _keys
from caltrop.sim.fast.tactical.compile import CompiledTactical, compile_tactical
from caltrop.sim.fast.tactical.tables import Knobs, TacticalTrace, _tab, steps_of
from caltrop.sim.overrides import Variant
from caltrop.sim.results import (
    DRAW,
    NPC_WINS,
    PC_WINS,
    Records,
    SimResult,
    VariantRun,
    check_run,
    interruption,
)

#: What :attr:`SimResult.extra` records of a run played by the compiled tactical policy.
COMPILED_EXTRA: Final = {"engine": "compiled-tactical"}

#: Encounters per kernel call at least (the progress bar moves per call).
MIN_CHUNK: Final = 2048

#: Kernel calls per variant at most (about: the steps of the progress bar).
STEPS: Final = 50


#: An encounter compiled for a tactical kernel: Action Load's or Action Points'.
AnyCompiled = CompiledTactical | CompiledPointsTactical


def compile_any(definition: EncounterDef) -> AnyCompiled:
    """``definition`` compiled for the tactical kernel of its economy: Action Points'
    (:mod:`caltrop.sim.fast.points_tactical`, issue 23) or Action Load's (issue 13); raises
    :class:`FastPathError` for what neither can play."""
    if is_points(definition):
        return compile_points_tactical(definition)
    return compile_tactical(definition)


def play_tactical(
    compiled: AnyCompiled,
    n: int,
    seed: int,
    *,
    first: int = 0,
    threads: int | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    knobs: Knobs | None = None,
) -> Records:
    """Encounters ``first .. first + n − 1`` of ``compiled``, both sides playing tactical, as
    the runner's :class:`Records` (the same columns as :func:`caltrop.sim.runner.play_recorded`
    counts: ``dealt`` is damage over Evasion, uncapped; ``steps`` decisions and rolls).
    Encounter ``i`` rolls from a stream derived from ``seed`` and ``i`` alone, so a result
    depends neither on ``threads`` (numba threads, default numba's) nor on how a run is split."""
    import numba

    from caltrop.sim.fast.tactical import kernel

    if isinstance(compiled, CompiledPointsTactical):
        if knobs is not None and knobs != Knobs():
            raise FastPathError("the Action Point kernel plays the tactical policy's defaults")
        return play_points_tactical(
            compiled, n, seed, first=first, threads=threads, max_rounds=max_rounds
        )
    knobs = knobs or Knobs()
    if n < 0 or first < 0:
        raise FastPathError(f"n and first must be 0 or more, not {n} and {first}")
    if max_rounds < 1:
        raise FastPathError(f"max_rounds must be at least 1, not {max_rounds}")
    if threads is not None and threads < 1:
        raise FastPathError(f"threads must be at least 1, not {threads}")
    size = compiled.size
    winner = np.empty(n, np.int64)
    rounds = np.empty(n, np.int64)
    steps = np.empty(n, np.int64)
    out = np.zeros((n, kernel.S_COLUMNS, size), np.int64)
    key0, key1 = _keys(seed)
    args: tuple[Any, ...] = (
        key0,
        key1,
        first,
        CHUNK,
        _tab(compiled, knobs),
        max_rounds,
        True,
        winner,
        rounds,
        (steps, out),
    )
    with _KERNEL_LOCK:
        before = numba.get_num_threads()
        if threads is not None:
            most: int = getattr(numba.config, "NUMBA_NUM_THREADS", before)
            numba.set_num_threads(min(threads, most))
        try:
            kernel.play_many(*args)
        finally:
            numba.set_num_threads(before)
    codes = np.full(n, DRAW, np.int8)
    codes[winner == 0] = PC_WINS
    codes[winner == 1] = NPC_WINS

    def column(col: int) -> np.ndarray:
        return out[:, col, :].astype(np.int32)

    return Records(
        winner=codes,
        timeout=(winner == kernel.DRAW) & (rounds == max_rounds),  # not a fight nobody began
        rounds=rounds.astype(np.int32),
        steps=steps.astype(np.int32),
        cost=column(kernel.S_COST),
        dealt=column(kernel.S_DEALT),
        reactions=column(kernel.S_REACTIONS),
        helps=column(kernel.S_HELPS),
        hinders=column(kernel.S_HINDERS),
        down=out[:, kernel.S_DOWN, :] != 0,
        health=column(kernel.S_HEALTH),
    )


def trace_tactical(
    compiled: CompiledTactical,
    seed: int,
    index: int,
    *,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    knobs: Knobs | None = None,
) -> TacticalTrace:
    """Encounter ``index`` of :func:`play_tactical` ``(…, seed)`` with every decision and roll."""
    from caltrop.sim.fast.tactical import kernel

    knobs = knobs or Knobs()
    capacity = 256
    while True:
        trace = np.zeros((capacity, kernel.X_COLUMNS), np.int64)
        key0, key1 = _keys(seed)
        winner, rounds, written = kernel.play_traced(
            key0, key1, index, _tab(compiled, knobs), max_rounds, trace
        )
        if written <= capacity:
            break
        capacity = int(written) + 1
    return TacticalTrace(int(winner), int(rounds), steps_of(trace[:written]))


def chunk_size(n: int) -> int:
    """Encounters per kernel call for a run of ``n`` per variant (results do not depend on it)."""
    return max(1, min(n, max(MIN_CHUNK, -(-n // STEPS))))


def compile_variants(definition: EncounterDef, variants: Sequence[Variant]) -> list[AnyCompiled]:
    """Every variant of ``definition`` compiled (:func:`compile_any`), or :class:`FastPathError`
    naming the first that cannot be (and why)."""
    out: list[AnyCompiled] = []
    for variant in variants:
        try:
            out.append(compile_any(variant.apply(definition)))
        except FastPathError as exc:
            if not variant.overrides:
                raise
            raise FastPathError(f"variant {variant.name}: {exc}") from exc
    return out


def simulate_tactical(
    definition: EncounterDef,
    variants: Sequence[Variant],
    *,
    n: int,
    seed: int,
    threads: int | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    chunk: int | None = None,
    progress: Callable[[int], None] | None = None,
    encounter_name: str | None = None,
    compiled: Sequence[AnyCompiled] | None = None,
) -> SimResult:
    """:func:`caltrop.sim.runner.simulate` with ``tactical`` on both sides, played by the
    compiled kernel: the same choices as the Python policy (tested command by command), on
    the kernel's own paired dice streams (encounter *i* of every variant rolls from the stream
    of ``seed`` and *i*), so the figures match the Python path's in distribution, not roll for
    roll. Raises :class:`FastPathError` for an encounter or variant the kernel cannot play."""
    variants = check_run(n, seed, variants)
    if chunk is not None and chunk < 1:
        raise SimulationError(f"chunk must be at least 1, not {chunk}")
    tables = list(compiled) if compiled is not None else compile_variants(definition, variants)
    size = chunk or chunk_size(n)
    parts: list[list[Records]] = [[] for _ in variants]
    base = SimResult(
        encounter_name or definition.name,
        seed,
        n,
        {"pc": "tactical", "npc": "tactical"},
        (),
        max_rounds,
        dict(COMPILED_EXTRA),
    )
    try:
        for start in range(0, n, size):
            count = min(size, n - start)
            for v, c in enumerate(tables):
                parts[v].append(
                    play_tactical(
                        c, count, seed, first=start, threads=threads, max_rounds=max_rounds
                    )
                )
                if progress is not None:
                    progress(count)
    except KeyboardInterrupt:  # Ctrl-C: what finished (issue 21 item 7)
        raise interruption(base, variants, [c.definition for c in tables], parts) from None
    runs = tuple(
        VariantRun(variant, c.definition, Records.concat(p))
        for variant, c, p in zip(variants, tables, parts, strict=True)
    )
    return replace(base, runs=runs)
