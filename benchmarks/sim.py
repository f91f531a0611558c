"""The simulator: encounters per second of the 4-versus-4 example with the reference engine.

The encounter is the bundled goblin-ambush (four heroes against four goblins), played to its end
with the full rules and the event log off (``record=False``), through the simulator's own code
path (:func:`caltrop.sim.runner.run_task`: paired seeds, policies by name, per-encounter records).
Two policies: the built-in **tactical** policy (focus fire, Load budget, exact help/hinder odds)
and the **simple** attack-weakest baseline. Each is measured in one process (per core) and
through the runner with one local worker process per CPU (what ``caltrop sim`` does).

Target (issue #5, this 2-core machine): reference engine ≥ 2,000 encounters/s.

Measured with ``python benchmarks/run.py sim`` on 2026-11-30 (AMD EPYC × 2 CPUs, load average
2.8 from other work on the machine): tactical 77 encounters/s in one process, 62/s with 2
workers; simple (attack-weakest) 296/s in one process, 567/s with 2 workers. Both **MISS** the
2,000/s target: the reference engine is the full rules in plain Python (every decision point,
reaction window and exact-odds lookup); the numba fast path is the answer to that target.

Other engines (the numba fast path of :mod:`caltrop.sim.fast`) compare themselves here by adding
a function to :data:`COMPARISONS`; the table then shows their rate and their ratio to the
reference engine with the same policy name.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from rich.console import Console
from rich.table import Table

from benchmarks.harness import Target, environment, ratio
from caltrop.content import load_encounter
from caltrop.sim.overrides import Variant
from caltrop.sim.runner import Task, run_task, simulate

SECTION = "sim"
ENCOUNTER = "goblin-ambush"
TARGET = 2000.0  # encounters per second, reference engine (issue #5)
POLICIES = {"tactical": "tactical", "simple": "attack-weakest"}

#: Engines compared with the reference: label → (policy label, ``fn(n) -> seconds`` for ``n``
#: encounters of the 4-versus-4 example). The fast path registers itself here.
COMPARISONS: dict[str, tuple[str, Callable[[int], float]]] = {}


def _one_process(policy: str, n: int, seed: int = 1) -> float:
    """Seconds for ``n`` encounters in this process (the definition loaded outside the timing)."""
    definition = load_encounter(ENCOUNTER)
    task = Task(0, definition, (("npc", policy), ("pc", policy)), seed, 0, n)
    start = time.perf_counter()
    run_task(task)
    return time.perf_counter() - start


def _all_workers(policy: str, n: int, workers: int) -> float:
    """Seconds for ``n`` encounters through the runner with ``workers`` local processes."""
    definition = load_encounter(ENCOUNTER)
    start = time.perf_counter()
    simulate(
        definition,
        [Variant("baseline")],
        {"pc": policy, "npc": policy},
        n=n,
        seed=2,
        workers=workers,
    )
    return time.perf_counter() - start


def run(
    console: Console, *, quick: bool = False, sizes: dict[str, int] | None = None
) -> list[Target]:
    """Time the reference engine under both policies; returns this section's targets.
    ``sizes`` (encounters per process and policy label) overrides the defaults, for tests."""
    console.rule("[bold]sim[/]: encounters per second, 4 v 4 (goblin-ambush), logs off")
    console.print(environment())
    workers = max(1, os.cpu_count() or 1)
    sizes = sizes or {"tactical": 30 if quick else 300, "simple": 60 if quick else 1000}
    for policy in POLICIES.values():
        _one_process(policy, 5)  # warm-up: imports, distribution caches, tactics profile
    rates: dict[str, float] = {}
    table = Table(
        title=f"{ENCOUNTER}: full rules, record=False, {workers} CPU(s)", title_justify="left"
    )
    for col in ("engine", "policy", "encounters", "time", "encounters/s", "vs reference"):
        table.add_column(col, justify="right")
    for label, policy in POLICIES.items():
        n = sizes[label]
        t1 = _one_process(policy, n)
        tw = _all_workers(policy, n * workers, workers)
        rates[label] = n * workers / tw
        table.add_row("reference, 1 process", label, f"{n:,}", f"{t1:.2f} s", f"{n / t1:,.0f}", "")
        table.add_row(
            f"reference, {workers} workers",
            label,
            f"{n * workers:,}",
            f"{tw:.2f} s",
            f"{rates[label]:,.0f}",
            "1.0×",
        )
    for engine, (label, fn) in COMPARISONS.items():
        n = 20_000 if quick else 200_000
        t = fn(n)
        base = rates.get(label)
        table.add_row(
            engine,
            label,
            f"{n:,}",
            f"{t:.2f} s",
            f"{n / t:,.0f}",
            ratio(n / t / base) if base else "",
        )
    console.print(table)
    console.print(
        "command: python benchmarks/run.py sim   (caltrop sim runs the same code path)",
        style="dim",
    )
    return [
        Target(
            SECTION,
            f"reference engine, {label} policy, {workers} workers",
            f"≥ {TARGET:,.0f} encounters/s",
            f"{rate:,.0f} encounters/s",
            rate >= TARGET,
        )
        for label, rate in rates.items()
    ]
