"""The simulator: encounters per second of the 4-versus-4 example with the reference engine.

The encounter is the bundled goblin-ambush (four heroes against four goblins), played to its end
with the full rules and the event log off (``record=False``), through the simulator's own code
path (:func:`caltrop.sim.runner.run_task`: paired seeds, policies by name, per-encounter records).
Two policies: the built-in **tactical** policy (focus fire, Load budget, exact help/hinder odds)
and the **simple** attack-weakest baseline. Each is measured in one process (per core) and
through the runner with one local worker process per CPU (what ``caltrop sim`` does).

Target (issue #5, this 2-core machine): reference engine ≥ 2,000 encounters/s.

Measured with ``python benchmarks/run.py`` (every section in one run) on 2026-11-30 04:09 UTC
(AMD EPYC × 2 CPUs, load average 0.7–1.0): simple (attack-weakest) 1,266 encounters/s in one
process and **2,422/s with 2 workers — PASS**; tactical 236/s in one process, 416/s with 2 workers
(the pool's start-up, 0.45 s, inside the worker rows). The way there, same machine, same tactics:
383/s and 615/s (simple) before the engine's first fast paths; 934/s and 1,773/s after them;
then the runner's counters in plain lists, no RNG streams for deterministic policies, validated
commands remembered by identity, the gate as a Load ceiling and one ``RngDice`` per encounter.
Counted by callgrind (``PYTHONHASHSEED=0``; n encounters minus none, deterministic whatever the
load), a simple encounter took 14.6 M instructions before the first fast paths (an earlier count),
6.99 M before the second round, 5.25 M now; a tactical one 73 M, 45.7 M, now 21.6 M (the tactics'
weighing of odds memoised by what it reads; the same choices, checked on recorded runs).

The **compiled tactical** row (issue 13: tactical ≥ 1,000 encounters/s on 2 workers) plays the
same tactical choices with the numba kernel of :mod:`caltrop.sim.fast.tactical`, through the same
runner call (``simulate(…, engine="compiled")``, ``workers`` numba threads); the target is judged
on it and printed beside the simple policy's rate from the same run. Measured 2026-12-02 01:16 UTC
(load average 1.9 → 3.7, other sessions busy on both cores, everything at ``nice -n 19``):
compiled tactical 8,202 encounters/s on 2 threads (12,371 per CPU-second), simple 544/s and
Python tactical 138/s on 2 workers: 15.1× simple — PASS. Before, the Python tactical policy's
~21 M instructions an encounter went ~63% to its own choosing (``_act``, ``_react``, budgets and
plans: many small memo look-ups, no single hot spot) and ~37% to the engine, so even free tactics
in Python could not pass the engine's own ~1,000/s.

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
TACTICAL_TARGET = 1000.0  # encounters per second, the tactical policy (issue 13)
POLICIES = {"tactical": "tactical", "simple": "attack-weakest"}
#: Encounters per worker through the pool, as a multiple of the one-process run's.
WORKER_SCALE = 4

#: Engines compared with the reference: label → (policy label, ``fn(n) -> seconds`` for ``n``
#: encounters of the 4-versus-4 example). The fast path registers itself here.
COMPARISONS: dict[str, tuple[str, Callable[[int], float]]] = {}


def _one_process(policy: str, n: int, seed: int = 1) -> tuple[float, float]:
    """Wall-clock and CPU seconds for ``n`` encounters in this process (the definition loaded
    outside the timing). On a shared machine the wall-clock rate falls; the rate per CPU-second
    much less."""
    definition = load_encounter(ENCOUNTER)
    task = Task(0, definition, (("npc", policy), ("pc", policy)), seed, 0, n)
    start, cpu = time.perf_counter(), time.process_time()
    run_task(task)
    return time.perf_counter() - start, time.process_time() - cpu


def _all_workers(policy: str, n: int, workers: int, engine: str = "reference") -> float:
    """Seconds for ``n`` encounters through the runner with ``workers`` local processes (the
    compiled engine: ``workers`` numba threads in this process)."""
    definition = load_encounter(ENCOUNTER)
    start = time.perf_counter()
    result = simulate(
        definition,
        [Variant("baseline")],
        {"pc": policy, "npc": policy},
        n=n,
        seed=2,
        workers=workers,
        engine=engine,
    )
    if engine == "compiled" and result.extra.get("engine") != "compiled-tactical":
        raise RuntimeError(f"the compiled engine did not play: {result.extra}")
    return time.perf_counter() - start


def run(
    console: Console, *, quick: bool = False, sizes: dict[str, int] | None = None
) -> list[Target]:
    """Time the reference engine under both policies; returns this section's targets.
    ``sizes`` (encounters per process and policy label) overrides the defaults, for tests."""
    console.rule("[bold]sim[/]: encounters per second, 4 v 4 (goblin-ambush), logs off")
    console.print(environment())
    workers = max(1, os.cpu_count() or 1)
    load_before = os.getloadavg()
    sizes = sizes or {"tactical": 30 if quick else 300, "simple": 60 if quick else 1000}
    for policy in POLICIES.values():
        _one_process(policy, 5)  # warm-up: imports, distribution caches, tactics profile
    # The pool's start-up (a forkserver, then each worker importing Caltrop) is paid once per
    # run: timed apart here, and the runs through the pool are made WORKER_SCALE times longer
    # than the one-process runs so that, as in a `caltrop sim` of thousands of encounters, it
    # does not pass for the engine's speed. It is still inside the timed runs.
    startup = _all_workers(POLICIES["simple"], workers, workers)
    rates: dict[str, float] = {}
    table = Table(
        title=f"{ENCOUNTER}: full rules, record=False, {workers} CPU(s)", title_justify="left"
    )
    for col in (
        "engine",
        "policy",
        "encounters",
        "time",
        "encounters/s",
        "per CPU-second",
        "vs reference",
    ):
        table.add_column(col, justify="right")
    for label, policy in POLICIES.items():
        n = sizes[label]
        t1, cpu1 = _one_process(policy, n)
        nw = n * workers * WORKER_SCALE
        tw = _all_workers(policy, nw, workers)
        rates[label] = nw / tw
        table.add_row(
            "reference, 1 process",
            label,
            f"{n:,}",
            f"{t1:.2f} s",
            f"{n / t1:,.0f}",
            f"{n / max(cpu1, 1e-9):,.0f}",
            "",
        )
        table.add_row(
            f"reference, {workers} workers",
            label,
            f"{nw:,}",
            f"{tw:.2f} s",
            f"{rates[label]:,.0f}",
            "",
            "1.0×",
        )
    # The compiled tactical policy (issue 13): the same choices as the Python one (tested
    # command by command), through the same runner call with engine="compiled".
    _all_workers(POLICIES["tactical"], 100, workers, "compiled")  # compile or load: untimed
    nc = sizes.get("compiled", 4_000 if quick else 40_000)
    cpu = time.process_time()
    tc = _all_workers(POLICIES["tactical"], nc, workers, "compiled")
    cpu = time.process_time() - cpu
    rates["compiled"] = nc / tc
    table.add_row(
        f"compiled, {workers} threads",
        "tactical",
        f"{nc:,}",
        f"{tc:.2f} s",
        f"{rates['compiled']:,.0f}",
        f"{nc / max(cpu, 1e-9):,.0f}",
        ratio(rates["compiled"] / rates["tactical"]),
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
            "",
            ratio(n / t / base) if base else "",
        )
    console.print(table)
    console.print(
        f"tactical / simple on {workers} workers, same run: reference engine "
        f"{rates['tactical']:,.0f} / {rates['simple']:,.0f} encounters/s = "
        f"{rates['tactical'] / rates['simple']:.2f}; compiled tactical "
        f"{rates['compiled']:,.0f} / {rates['simple']:,.0f} = "
        f"{rates['compiled'] / rates['simple']:.2f}; load average before {load_before[0]:.2f}, "
        f"after {os.getloadavg()[0]:.2f} (the machine's other work slows every row)"
    )
    console.print(
        f"A pool of {workers} worker processes starts in {startup:.2f} s (one encounter each), "
        "included in the worker rows.\n"
        "command: python benchmarks/run.py sim   (caltrop sim runs the same code path)",
        style="dim",
    )
    # The target is the engine's: full rules with the simple policy, whose own cost is a few
    # dictionary lookups per decision. The tactical policy's rate is shown beside it: most of
    # its time is its own weighing of exact odds, not the engine's.
    rate = rates["simple"]
    return [
        Target(
            SECTION,
            f"reference engine (full rules, logs off, simple policy), {workers} workers",
            f"≥ {TARGET:,.0f} encounters/s",
            f"{rate:,.0f} encounters/s (tactical policy: {rates['tactical']:,.0f}/s, "
            f"{rates['tactical'] / rate:.2f}×)",
            rate >= TARGET,
        ),
        Target(
            SECTION,
            f"tactical policy (full rules, compiled: the same choices), {workers} workers",
            f"≥ {TACTICAL_TARGET:,.0f} encounters/s",
            f"{rates['compiled']:,.0f} encounters/s ({rates['compiled'] / rate:.1f}× simple; "
            f"Python tactical {rates['tactical']:,.0f}/s)",
            rates["compiled"] >= TACTICAL_TARGET,
        ),
    ]
