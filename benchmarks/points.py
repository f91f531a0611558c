"""The tactical policy on Action Point encounters: the reference engine vs the compiled kernel.

Issue 23 item 5: "compile ``tactical`` for the Action Point module … ≥ 3,000 encounters/s for
Warband on 2 threads". Both sides play ``tactical`` on the bundled Action Point encounters
(Warband, 3 v 3; Bridge Duel AP, 2 v 2), in the same run:

* the **reference engine**: :func:`caltrop.sim.runner.simulate` with the Python policy
  (:mod:`caltrop.sim.points_tactics`) on 2 worker processes, as ``caltrop sim --policy
  tactical`` plays;
* the **compiled kernel** (:mod:`caltrop.sim.fast.points_tactical`, the same choices, replayed
  command by command in the tests) on 2 numba threads: **cold** — a freshly compiled encounter,
  whose table of the policy's numbers fills as its first fights ask (what one ``caltrop
  difficulty`` call pays) — and **warm**, once that table holds what the fights ask for. Its CPU
  seconds are shown too: on a shared machine the wall-clock rate falls, the rate per CPU-second
  much less (× 2 estimates an idle machine's 2 threads).

The kernel is compiled (or loaded from numba's cache) before anything is timed. The check: the
kernel's PC win rate lies inside the reference engine's 99% interval.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table

from benchmarks.harness import Target, environment, ratio, seconds
from caltrop.content import load_encounter
from caltrop.core.model import EncounterDef, Side
from caltrop.sim.fast.points_tactical import compile_points_tactical, play_points_tactical
from caltrop.sim.overrides import Variant
from caltrop.sim.runner import simulate

SECTION = "points"
#: issue 23 item 5: Warband encounters/s on 2 threads, the compiled tactical policy
TARGET = 3_000.0
THREADS = 2
Z99 = 2.5758
NAMES = ("warband-ap", "bridge-duel-ap")


@dataclass(frozen=True)
class Sizes:
    """Encounters per timed run."""

    reference: int = 40
    cold: int = 2_000
    warm: int = 10_000


QUICK = Sizes(reference=6, cold=200, warm=1_000)


@dataclass(frozen=True)
class Row:
    name: str
    reference_rate: float
    reference_pc: float
    reference_interval: tuple[float, float]
    cold_rate: float
    cold_keys: int
    warm_rate: float
    warm_cpu_rate: float
    kernel_pc: float


def _wilson(k: int, n: int, z: float = Z99) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def _measure(definition: EncounterDef, sizes: Sizes) -> Row:
    tactical = {Side.PC.value: "tactical", Side.NPC.value: "tactical"}
    start = time.perf_counter()
    reference = simulate(
        definition, [Variant("baseline")], tactical, n=sizes.reference, seed=3, workers=THREADS
    )
    reference_s = time.perf_counter() - start
    k = int(reference.runs[0].records.wins(Side.PC.value).sum())
    compiled = compile_points_tactical(definition, cached=False)  # a fresh numbers table
    start = time.perf_counter()
    play_points_tactical(compiled, sizes.cold, 3, threads=THREADS)
    cold_s = time.perf_counter() - start
    keys = len(compiled.numbers.known)
    # warm: the table holds what the fights ask for (a second pass over new encounters fills
    # what little is left, untimed), then new encounters are timed
    play_points_tactical(compiled, sizes.warm, 3, first=sizes.cold, threads=THREADS)
    start, cpu = time.perf_counter(), time.process_time()
    warm = play_points_tactical(compiled, sizes.warm, 3, first=sizes.cold, threads=THREADS)
    warm_s, warm_cpu = time.perf_counter() - start, time.process_time() - cpu
    return Row(
        definition.name,
        sizes.reference / reference_s,
        k / sizes.reference,
        _wilson(k, sizes.reference),
        sizes.cold / cold_s,
        keys,
        sizes.warm / warm_s,
        sizes.warm / max(warm_cpu, 1e-9),
        float(warm.wins(Side.PC.value).mean()),
    )


def run(
    console: Console,
    *,
    quick: bool = False,
    sizes: Sizes | None = None,
    names: tuple[str, ...] = NAMES,
) -> list[Target]:
    """Time the reference engine and the compiled kernel on the Action Point examples."""
    sizes = sizes or (QUICK if quick else Sizes())
    console.rule("[bold]points[/]: tactical on Action Point encounters, engine vs compiled")
    console.print(environment())
    definitions = [load_encounter(name) for name in names]
    start = time.perf_counter()
    play_points_tactical(
        compile_points_tactical(definitions[0], cached=False), 2, 0, threads=THREADS
    )
    console.print(
        f"kernel first call (compile or load from numba's cache, and a fresh table) "
        f"{seconds(time.perf_counter() - start)}. Reference engine: {sizes.reference} "
        f"encounters on {THREADS} workers; kernel on {THREADS} threads: {sizes.cold:,} cold, "
        f"{sizes.warm:,} warm."
    )
    rows = [_measure(d, sizes) for d in definitions]
    table = Table(
        title="tactical on both sides: encounters/s (the kernel makes the Python policy's choices)",
        title_justify="left",
    )
    for col in (
        "encounter",
        f"engine, {THREADS} workers",
        f"kernel cold, {THREADS} threads [numbers asked]",
        f"kernel warm, {THREADS} threads",
        "warm / engine",
        "warm per CPU-second",
        "PC win rate: engine [99%]",
        "kernel",
    ):
        table.add_column(col, justify="right")
    for r in rows:
        lo, hi = r.reference_interval
        table.add_row(
            r.name,
            f"{r.reference_rate:,.1f}",
            f"{r.cold_rate:,.0f} [{r.cold_keys:,}]",
            f"{r.warm_rate:,.0f}",
            ratio(r.warm_rate / r.reference_rate),
            f"{r.warm_cpu_rate:,.0f}",
            f"{r.reference_pc:.3f} [{lo:.3f}, {hi:.3f}]",
            f"{r.kernel_pc:.3f}",
        )
    console.print(table)
    warband = next((r for r in rows if r.name == "Warband"), rows[0])
    inside = all(r.reference_interval[0] <= r.kernel_pc <= r.reference_interval[1] for r in rows)
    return [
        Target(
            SECTION,
            "kernel PC win rate inside the reference engine's 99% interval",
            ", ".join(r.name for r in rows),
            ", ".join(
                f"{r.name}: {r.kernel_pc:.3f} in [{r.reference_interval[0]:.3f}, "
                f"{r.reference_interval[1]:.3f}]"
                for r in rows
            ),
            inside,
            check=True,
        ),
        Target(
            SECTION,
            f"compiled tactical, {warband.name} encounters/s on {THREADS} threads (warm)",
            f"≥ {TARGET:,.0f}/s",
            f"{warband.warm_rate:,.0f}/s ({warband.warm_cpu_rate:,.0f} per CPU-second; cold "
            f"{warband.cold_rate:,.0f}/s; {ratio(warband.warm_rate / warband.reference_rate)} "
            "the engine)",
            warband.warm_rate >= TARGET,
        ),
    ]
