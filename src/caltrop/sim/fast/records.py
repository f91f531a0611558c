"""The fast path as a batch run of the simulator: :func:`simulate_fast` plays every variant with
:func:`caltrop.sim.fast.simulate` and returns the runner's :class:`~caltrop.sim.runner.SimResult`,
so ``caltrop sim --fast`` and ``caltrop sweep --fast`` summarise, print and report it unchanged.

The conversion (:func:`to_records`), per encounter and per creature (participant order):

============  ===========================================================================
``winner``    0 (the PCs won) → ``PC_WINS``, 1 (the NPCs won) → ``NPC_WINS``, −1 → ``DRAW``
``timeout``   a draw: the fast path draws only when a fight is undecided after ``max_rounds``
``rounds``    the round it ended in; a draw counts ``max_rounds`` (as the reference runner does)
``steps``     **not counted**: the kernel makes no engine decisions to count, so it is 0
              everywhere (nothing in the summary reads it)
``cost``      ``load_spent``: the Cost of every action taken (Load gained, R10–R11)
``dealt``     ``damage_dealt``
``reactions`` ``team_actions``: the fast tactic's only reactions are its hinders
``helps``     0: the fast tactic never helps
``hinders``   ``team_actions``
``down``      ``down``
``health``    ``health`` (Health at the end)
============  ===========================================================================

An Action Point encounter (seed 004, played by :mod:`caltrop.sim.fast.points` with
``attack-weakest``) maps as the engine's runner counts it: ``cost`` is the AP and RP spent,
``dealt`` the damage through the defence, ``reactions`` the Blocks (``team_actions``) and
``hinders`` 0 (a Block is not a team action).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Final

import numpy as np

from caltrop.core.model import EncounterDef
from caltrop.errors import SimulationError
from caltrop.sim.fast.compile import CompiledEncounter, FastPathError, compile_encounter
from caltrop.sim.fast.points.compile import CompiledPoints, compile_points, is_points
from caltrop.sim.fast.results import DEFAULT_MAX_ROUNDS, FastResult
from caltrop.sim.fast.simulate import simulate
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

#: The policy name of both sides in a fast-path :class:`SimResult` (printed in the header).
FAST_POLICY: Final = "fast"

#: What :attr:`SimResult.extra` records (``caltrop sim --json`` prints it).
FAST_EXTRA: Final = {"engine": "fast"}

#: Encounters per kernel call at least (a call has a fixed cost; the progress bar moves per call).
MIN_CHUNK: Final = 8192

#: Kernel calls per variant at most (about: the steps of the progress bar).
STEPS: Final = 50


def to_records(result: FastResult, definition: EncounterDef | None = None) -> Records:
    """The runner's :class:`Records` of a fast-path result played with ``details=True`` (see the
    module's table). With ``definition``, checks that the creatures are its participants, in
    order."""
    if (
        result.damage_dealt is None
        or result.team_actions is None
        or result.load_spent is None
        or result.down is None
        or result.health is None
    ):
        raise ValueError("to_records needs a fast-path result played with details=True")
    if definition is not None:
        ids = tuple(c.id for c in definition.participants)
        if ids != result.ids:
            raise ValueError(f"creatures {result.ids} are not the participants {ids}")
    winner = np.full(result.n, DRAW, dtype=np.int8)
    winner[result.winner == 0] = PC_WINS
    winner[result.winner == 1] = NPC_WINS
    hinders = result.team_actions.astype(np.int32, copy=True)
    reactions = hinders.copy()
    if definition is not None and is_points(definition):
        hinders = np.zeros_like(reactions)  # the Blocks of seed 004 are reactions, not hinders
    return Records(
        winner=winner,
        timeout=result.winner == -1,
        rounds=result.rounds.astype(np.int32, copy=True),
        steps=np.zeros(result.n, dtype=np.int32),
        cost=result.load_spent.astype(np.int32, copy=True),
        dealt=result.damage_dealt.astype(np.int32, copy=True),
        reactions=reactions,
        helps=np.zeros_like(hinders),
        hinders=hinders,
        down=result.down.astype(np.bool_, copy=True),
        health=result.health.astype(np.int32, copy=True),
    )


def chunk_size(n: int) -> int:
    """Encounters per kernel call for a run of ``n`` per variant (results do not depend on it)."""
    return max(1, min(n, max(MIN_CHUNK, -(-n // STEPS))))


def simulate_fast(
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
) -> SimResult:
    """Play ``n`` encounters of every variant of ``definition`` with the fast path.

    The counterpart of :func:`caltrop.sim.runner.simulate` for the fast path's one fixed tactic
    on every creature ("attack the weakest, hinder to save an ally" in Action Load; the engine's
    ``attack-weakest`` in an Action Point encounter, :mod:`caltrop.sim.fast.points`): each
    variant's definition (:meth:`Variant.apply`) is compiled before any encounter is played —
    an encounter the fast path cannot play raises
    :class:`~caltrop.sim.fast.compile.FastPathError` saying why — and played on the same seed,
    so encounter *i* rolls from the same stream (derived from ``seed`` and *i*) in every
    variant: differences are paired. Results do not depend on ``threads`` (numba threads;
    default: numba's, one per core) nor on ``chunk`` (encounters per kernel call); the variants
    advance together, one chunk each in turn, and ``progress(k)`` is called after each call
    with the ``k`` encounters just played.

    The result's ``policies`` are ``{"pc": "fast", "npc": "fast"}`` and its ``extra`` is
    ``{"engine": "fast"}``; its records are :func:`to_records`'s (decisions are not counted:
    ``steps`` is 0).
    """
    variants = check_run(n, seed, variants)
    if chunk is not None and chunk < 1:
        raise SimulationError(f"chunk must be at least 1, not {chunk}")
    definitions = [v.apply(definition) for v in variants]
    compiled: list[CompiledEncounter | CompiledPoints] = []
    for variant, d in zip(variants, definitions, strict=True):
        try:
            compiled.append(compile_points(d) if is_points(d) else compile_encounter(d))
        except FastPathError as exc:
            if not variant.overrides:
                raise
            raise FastPathError(f"variant {variant.name}: {exc}") from exc
    size = chunk or chunk_size(n)
    parts: list[list[Records]] = [[] for _ in variants]
    base = SimResult(
        encounter_name or definition.name,
        seed,
        n,
        {"pc": FAST_POLICY, "npc": FAST_POLICY},
        (),
        max_rounds,
        dict(FAST_EXTRA),
    )
    try:
        for start in range(0, n, size):
            count = min(size, n - start)
            for v, c in enumerate(compiled):
                result = simulate(
                    c,
                    count,
                    seed,
                    max_rounds=max_rounds,
                    details=True,
                    first=start,
                    threads=threads,
                )
                parts[v].append(to_records(result, c.definition))
                if progress is not None:
                    progress(count)
    except KeyboardInterrupt:  # Ctrl-C: what finished (issue 21 item 7)
        raise interruption(base, variants, definitions, parts) from None
    runs = tuple(
        VariantRun(variant, d, Records.concat(p))
        for variant, d, p in zip(variants, definitions, parts, strict=True)
    )
    return replace(base, runs=runs)


__all__ = ["FAST_EXTRA", "FAST_POLICY", "chunk_size", "simulate_fast", "to_records"]
