"""``caltrop difficulty``: the default answer's time for every bundled encounter, and the
compiled kernel against the reference engine for the same difficulty question (issue 23).

**Per bundled encounter** the default answer (:func:`caltrop.sim.difficulty.assess`, a 2 s
budget) is timed in this process after one untimed answer (the kernel loaded, as in a running
table server), with the encounters each sample got and the PC win interval that gives; and the
whole command (``caltrop difficulty NAME --json`` in a fresh process: Python, Caltrop and numba
start-up included) for the wall-clock a GM at a terminal waits. Target: every default answer
≤ 2 s in the process.

**The baseline** in the same run: the same question — P(PC wins) under ``tactical`` on both
sides, Goblin Ambush, the same seed — answered from ``n`` encounters by the compiled kernel
(``assess(…, n=n)``) and by the reference engine (the same encounters' records through
:func:`caltrop.sim.runner.simulate` with ``engine="reference"``, one process each: the ratio is
per CPU). The compiled kernel's figures must be within the reference engine's interval reach
(a correctness check: both estimate the same probability).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from rich.console import Console
from rich.table import Table

from benchmarks.harness import Target, environment, ratio
from caltrop.content import load_encounter
from caltrop.sim.difficulty import assess, measure
from caltrop.sim.overrides import Variant
from caltrop.sim.runner import simulate

SECTION = "difficulty"
BUNDLED = ("duel", "orc-bridge", "goblin-ambush", "bridge-duel-ap", "warband-ap")
BUDGET = 2.0
BASELINE_ENCOUNTER = "goblin-ambush"


def _cold(name: str) -> float:
    """Wall-clock seconds of ``caltrop difficulty NAME --json`` in a fresh process."""
    began = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from caltrop.cli import main; main()",
            "difficulty",
            name,
            "--json",
        ],
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - began


def run(console: Console, *, quick: bool = False, names: tuple[str, ...] = BUNDLED) -> list[Target]:
    console.rule(
        "[bold]difficulty[/]: the default answer per bundled encounter; compiled vs engine"
    )
    console.print(environment())
    load = os.getloadavg()
    table = Table(title=f"caltrop difficulty, default ({BUDGET:g} s budget)", title_justify="left")
    for col in (
        "encounter",
        "engine",
        "n",
        "PC win [95%]",
        "search n",
        "exact",
        "band",
        "answer (warm)",
        "command (cold)",
    ):
        table.add_column(col, justify="left" if col in ("encounter", "engine", "band") else "right")
    worst = 0.0
    for name in names:
        definition = load_encounter(name)
        assess(definition, seconds=0.3)  # loads the kernel and warms the tactics' caches
        began = time.perf_counter()
        answer = assess(definition, seconds=BUDGET)
        took = time.perf_counter() - began
        worst = max(worst, took)
        cold = "" if quick else f"{_cold(name):.2f} s"
        t = answer.tactical
        table.add_row(
            name,
            t.engine,
            f"{t.n:,}",
            f"{100 * t.pc_win.estimate:.1f}% [{100 * t.pc_win.lo:.1f}, {100 * t.pc_win.hi:.1f}]",
            "—" if answer.search is None else f"{answer.search.n:,}",
            "yes" if answer.exact is not None else "no",
            answer.band,
            f"{took:.2f} s",
            cold,
        )
    console.print(table)

    # the baseline: the same question answered from n encounters by each engine
    definition = load_encounter(BASELINE_ENCOUNTER)
    n_ref = 20 if quick else 200
    n_fast = 2_000 if quick else 20_000
    began = time.process_time()
    fast = assess(definition, n=n_fast, search_n=0, exact=False, workers=1, seed=3)
    fast_cpu = time.process_time() - began
    began = time.process_time()
    result = simulate(
        definition,
        [Variant("baseline")],
        {"pc": "tactical", "npc": "tactical"},
        n=n_ref,
        seed=3,
        workers=1,
        engine="reference",
    )
    ref_cpu = time.process_time() - began
    reference = measure(
        result.runs[0], policy="tactical", engine="reference", seed=3, max_rounds=100
    )
    fast_rate, ref_rate = n_fast / fast_cpu, n_ref / ref_cpu
    agree = (
        reference.pc_win.lo - 0.05 <= fast.tactical.pc_win.estimate <= reference.pc_win.hi + 0.05
    )
    console.print(
        f"{BASELINE_ENCOUNTER}, P(PC wins) under tactical, 1 thread / 1 process: compiled "
        f"{n_fast:,} encounters in {fast_cpu:.2f} CPU-s ({fast_rate:,.0f}/s), "
        f"{100 * fast.tactical.pc_win.estimate:.1f}%; reference engine {n_ref:,} in "
        f"{ref_cpu:.2f} CPU-s ({ref_rate:,.0f}/s), {100 * reference.pc_win.estimate:.1f}% "
        f"[{100 * reference.pc_win.lo:.1f}, {100 * reference.pc_win.hi:.1f}]: "
        f"{ratio(fast_rate / ref_rate)}; load average before {load[0]:.2f}, after "
        f"{os.getloadavg()[0]:.2f}\ncommand: python benchmarks/run.py difficulty",
        soft_wrap=True,
    )
    return [
        Target(
            SECTION,
            f"default answer of every bundled encounter ({len(names)}), in process",
            f"≤ {BUDGET:g} s",
            f"{worst:.2f} s at most",
            worst <= BUDGET,
        ),
        Target(
            SECTION,
            "compiled vs reference engine, the same question (per CPU)",
            "the same probability (within the engine's interval ± 5 pp)",
            f"{ratio(fast_rate / ref_rate)}, {100 * fast.tactical.pc_win.estimate:.1f}% vs "
            f"{100 * reference.pc_win.estimate:.1f}%",
            agree,
            check=True,
        ),
    ]
