"""How long a run will take, told before it starts (issue 25 item 4: the default goblin-ambush
comparison across five policies printed nothing for 42.5 minutes under load).

A short pilot plays a few encounters of the first variant in this process, on the engine and
policies the run will use (after one that warms the caches), and times them on the wall clock,
so the machine's load at that moment is in the figure. The run's estimate is that rate times
its encounters, shared by its workers; the comparison under each tactic is piloted the same way
per tactic (the strong player by :func:`caltrop.sim.across.search_plan`'s own estimate, of CPU
time, stretched by the pilot's wall-over-CPU ratio: on a loaded machine a process gets less than
a core). Where
the reference engine plays ``tactical`` on both sides and the compiled kernel can play the
encounter, the estimate also says how long ``--fast --policy tactical`` (the same choices, its
own dice) would take to answer the same question.

An estimate, not a promise: the pilot's encounters may be shorter or longer than the average,
and the load changes; it says so by saying "about".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from caltrop.core.model import EncounterDef
from caltrop.sim.overrides import Variant

#: Encounters the pilot times per policy (after one more that warms the caches).
PILOT_ENCOUNTERS = 6
#: A run of fewer encounters than this (over all variants) is not piloted: it is short anyway.
PILOT_MIN_RUN = 200
#: An estimate shorter than this is not printed (a short run needs no warning).
ANNOUNCE_SECONDS = 10.0
#: The pilot's seed: its encounters are thrown away, the run's own seeds are untouched.
PILOT_SEED = 0x5EED


def duration(seconds: float) -> str:
    """Seconds in the unit a person reads at a glance: 40 s, 12 min, 2.5 h."""
    if seconds < 90:
        return f"{max(1.0, seconds):.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


@dataclass(frozen=True, slots=True)
class Pilot:
    """Seconds per encounter of a pilot, on the wall clock and of this process's CPU."""

    seconds: float
    cpu_seconds: float

    @property
    def slowdown(self) -> float:
        """Wall over CPU time, at least 1: how much the machine's load stretches a CPU-time
        estimate (the strong player's is one), measured now."""
        return max(1.0, self.seconds / max(self.cpu_seconds, 1e-9))


def pilot_seconds(
    definition: EncounterDef,
    variant: Variant,
    policies: Mapping[str, str],
    *,
    engine: str = "reference",
    max_rounds: int,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Wall-clock seconds per encounter of ``variant`` under ``policies`` on ``engine``, from
    :data:`PILOT_ENCOUNTERS` encounters in this process (one more first, untimed)."""
    return pilot(
        definition, variant, policies, engine=engine, max_rounds=max_rounds, clock=clock
    ).seconds


def pilot(
    definition: EncounterDef,
    variant: Variant,
    policies: Mapping[str, str],
    *,
    engine: str = "reference",
    max_rounds: int,
    clock: Callable[[], float] = time.perf_counter,
    cpu: Callable[[], float] = time.process_time,
) -> Pilot:
    """:func:`pilot_seconds`, with the CPU time of the same encounters."""
    from caltrop.sim.runner import simulate

    def play(n: int, seed: int) -> None:
        simulate(
            definition,
            [variant],
            policies,
            n=n,
            seed=seed,
            workers=1,
            max_rounds=max_rounds,
            engine=engine,
        )

    play(1, PILOT_SEED + 1)
    began, began_cpu = clock(), cpu()
    play(PILOT_ENCOUNTERS, PILOT_SEED)
    wall, used = max(clock() - began, 1e-6), max(cpu() - began_cpu, 1e-6)
    return Pilot(wall / PILOT_ENCOUNTERS, used / PILOT_ENCOUNTERS)


@dataclass(frozen=True, slots=True)
class Plan:
    """A run's estimate: ``parts`` (what, seconds on the run's workers), and the alternative
    ``(command, seconds)`` that answers the same question faster, if there is one."""

    workers: int
    parts: tuple[tuple[str, float], ...]
    faster: tuple[str, float] | None = None

    @property
    def seconds(self) -> float:
        return sum(s for _, s in self.parts)

    def text(self, what: str = "this comparison") -> str:
        """One line for stderr, e.g. "this comparison will take about 40 min on 2 workers
        (the main run 31 min, the tactics 9 min); --fast --policy tactical answers the same
        question in about 20 s"."""
        on = f"{self.workers} worker{'s' if self.workers != 1 else ''}"
        line = f"{what} will take about {duration(self.seconds)} on {on}"
        if len(self.parts) > 1:
            line += " (" + ", ".join(f"{p} {duration(s)}" for p, s in self.parts) + ")"
        if self.faster is not None:
            command, seconds = self.faster
            line += f"; {command} answers the same question in about {duration(seconds)}"
        return line


def shared(per_encounter: float, encounters: int, workers: int) -> float:
    """``encounters`` at ``per_encounter`` seconds each, spread over ``workers`` processes
    (chunks keep every worker busy until the last few)."""
    return per_encounter * encounters / max(1, workers)


def compiled_seconds(definition: EncounterDef, variants: Sequence[Variant], n: int) -> float | None:
    """Seconds of the same comparison played by the compiled tactical kernel (one thread), or
    None where the kernel cannot play every variant."""
    from caltrop.sim.across import _kernel_seconds
    from caltrop.sim.fast.compile import FastPathError
    from caltrop.sim.fast.tactical import compile_variants

    try:
        compile_variants(definition, list(variants))
    except FastPathError:
        return None
    each = _kernel_seconds(variants[0].apply(definition))
    return None if each is None else each * n * len(variants)


__all__ = [
    "ANNOUNCE_SECONDS",
    "PILOT_ENCOUNTERS",
    "PILOT_MIN_RUN",
    "PILOT_SEED",
    "Pilot",
    "Plan",
    "compiled_seconds",
    "duration",
    "pilot",
    "pilot_seconds",
    "shared",
]
