"""Typed entry points of the Action Point fast path: :func:`simulate_points` and
:func:`trace_points`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from caltrop.core.model import EncounterDef
from caltrop.sim.fast.compile import FastPathError
from caltrop.sim.fast.points.compile import CompiledPoints, compile_points
from caltrop.sim.fast.results import (
    _KERNEL_LOCK,
    CHUNK,
    DEFAULT_MAX_ROUNDS,
    FastResult,
    Outputs,
    _keys,
)

#: The stage names of a traced roll (the engine's ``PendingRoll.stage``; "initiative" is R30's
#: Speed check).
STAGES = ("initiative", "hit", "damage", "defence")


@dataclass(frozen=True, slots=True)
class PointsRoll:
    """One roll of a traced Action Point encounter (creatures by index, participant order).

    ``stage`` is one of :data:`STAGES`; ``other`` the target of a hit or damage roll, the
    attacker of a defence roll (−1 for initiative); ``expression`` the dice rolled, as the engine
    writes them (``"3d4"``; a defence without Block rolls ``"0"``); ``result`` 1/0 for a hit or a
    miss, the damage let through for a defence roll, else the total.
    """

    round: int
    roller: int
    stage: str
    other: int
    expression: str
    total: int
    result: int


@dataclass(frozen=True, slots=True)
class PointsTrace:
    winner: int
    rounds: int
    rolls: tuple[PointsRoll, ...]


def _prepare(definition: EncounterDef | CompiledPoints, max_rounds: int) -> CompiledPoints:
    if max_rounds < 1:
        raise FastPathError(f"max_rounds must be at least 1, not {max_rounds}")
    if isinstance(definition, CompiledPoints):
        return definition
    return compile_points(definition)


def simulate_points(
    definition: EncounterDef | CompiledPoints,
    n: int,
    seed: int | None = None,
    *,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    details: bool = False,
    first: int = 0,
    threads: int | None = None,
) -> FastResult:
    """Play ``n`` encounters of an Action Point encounter with ``attack-weakest`` (see
    :mod:`caltrop.sim.fast.points`); the same seeds, pairing and threads contract as
    :func:`caltrop.sim.fast.simulate`, which calls this for an Action Point definition.

    With ``details``: ``damage_dealt`` is the damage each creature's attacks did after the
    defence (as the engine's records count it: not capped at the Health left), ``team_actions``
    the Blocks it took (R40), ``load_spent`` the AP and RP it paid (R31–R33).
    """
    if n < 0:
        raise FastPathError(f"n must be 0 or more, not {n}")
    if first < 0:
        raise FastPathError(f"first must be 0 or more, not {first}")
    compiled = _prepare(definition, max_rounds)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]
    from caltrop.sim.fast.points import kernel

    out = Outputs.empty(n, compiled.size, details)
    key0, key1 = _keys(seed)
    winner, rounds, *per_creature = out.arrays()  # team: the Blocks taken
    _run_parallel(
        kernel.play_many,
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


def _kernel_tables(compiled: CompiledPoints) -> tuple[Any, ...]:
    """The kernel's ``tab``: creatures, places, ranged weapons, dice terms, the initiative."""
    return (
        compiled.creatures,
        compiled.places,
        compiled.ranged,
        compiled.terms,
        compiled.check_initiative,
    )


def _run_parallel(play: Callable[..., None], threads: int | None, *args: Any) -> None:
    """``play(*args)`` on ``threads`` numba threads (default: numba's), one kernel at a time
    (the lock of :mod:`caltrop.sim.fast.simulate`: the fork-safe threading layer is not thread
    safe)."""
    import numba

    if threads is not None and threads < 1:
        raise FastPathError(f"threads must be at least 1, not {threads}")
    with _KERNEL_LOCK:
        if threads is None:
            play(*args)
            return
        before = numba.get_num_threads()
        most: int = getattr(numba.config, "NUMBA_NUM_THREADS", before)
        numba.set_num_threads(min(threads, most))
        try:
            play(*args)
        finally:
            numba.set_num_threads(before)


def trace_points(
    definition: EncounterDef | CompiledPoints,
    seed: int,
    index: int,
    *,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
) -> PointsTrace:
    """Encounter ``index`` of :func:`simulate_points` ``(…, seed)``, with every roll it made."""
    from caltrop.sim.fast.points import kernel

    compiled = _prepare(definition, max_rounds)
    capacity = 256
    while True:
        out = np.zeros((capacity, kernel.R_COLUMNS), np.int64)
        key0, key1 = _keys(seed)
        winner, rounds, written = kernel.play_traced(
            key0, key1, index, _kernel_tables(compiled), max_rounds, out
        )
        if written <= capacity:
            break
        capacity = written
    rolls = tuple(_roll(compiled, r) for r in out[:written])
    return PointsTrace(int(winner), int(rounds), rolls)


def _roll(compiled: CompiledPoints, r: np.ndarray) -> PointsRoll:
    from caltrop.sim.fast.points import kernel

    stage = int(r[kernel.R_STAGE])
    pool = int(r[kernel.R_POOL])
    weapon = int(r[kernel.R_WEAPON])
    roller = int(r[kernel.R_ROLLER])
    if stage == kernel.S_DAMAGE:
        text = compiled.melee_text[roller] if weapon < 0 else compiled.ranged_text[weapon]
    else:
        text = f"{pool}d4" if pool > 0 else "0"
    return PointsRoll(
        round=int(r[kernel.R_ROUND]),
        roller=roller,
        stage=STAGES[stage],
        other=int(r[kernel.R_OTHER]),
        expression=text,
        total=int(r[kernel.R_TOTAL]),
        result=int(r[kernel.R_RESULT]),
    )
