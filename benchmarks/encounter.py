"""The encounter engine: decisions applied per second and the cost of ``clone()``.

Baselines, measured in the same run: ``copy.deepcopy`` of the same state (what ``clone()``
replaces), and the same play-outs with the event log on (``record=True``) beside logs off.
The encounter is the bundled 4-versus-4 example (goblin-ambush) played to its end by the simple
:class:`~caltrop.sim.policies.AttackWeakestPolicy` on both sides; chance points roll seeded dice.
"""

from __future__ import annotations

import copy
import time

from rich.console import Console
from rich.table import Table

from benchmarks.harness import Target, environment, ratio
from caltrop.content import default_encounter_path, load_encounter
from caltrop.core.commands import RollDice
from caltrop.encounter import CHANCE, Encounter
from caltrop.sim.policies import AttackWeakestPolicy, play_out

SECTION = "encounter"


def _play(n: int, *, record: bool) -> tuple[float, int]:
    definition = load_encounter(default_encounter_path())  # outside the timed region
    policy = AttackWeakestPolicy()
    policies = {"pc": policy, "npc": policy}
    decisions = 0
    start = time.perf_counter()
    for seed in range(n):
        encounter = Encounter.begin(definition, seed, record=record)
        decisions += play_out(encounter, policies)
    return time.perf_counter() - start, decisions


def _mid_encounter() -> Encounter:
    definition = load_encounter(default_encounter_path())
    policy = AttackWeakestPolicy()
    encounter = Encounter.begin(definition, 1)
    for _ in range(20):
        who = encounter.current()
        encounter.apply(RollDice() if who == CHANCE else policy.choose(encounter, who))
    return encounter


def _per_call(fn: object, n: int) -> float:
    assert callable(fn)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - start) / n)
    return best


def run(console: Console, *, quick: bool = False) -> list[Target]:
    """Time play-outs and clones of the 4-versus-4 example; returns this section's targets."""
    console.rule("[bold]encounter[/]: decisions per second, clone() vs deepcopy")
    console.print(environment())
    n = 40 if quick else 300
    _play(10, record=False)  # warm-up: imports, caches of distributions and parsers
    t_off, d_off = _play(n, record=False)
    t_on, d_on = _play(n, record=True)
    state = _mid_encounter()
    clone_s = _per_call(state.clone, 200 if quick else 2000)
    deep_s = _per_call(lambda: copy.deepcopy(state), 20 if quick else 200)
    same = state.clone().to_json() == state.to_json() == copy.deepcopy(state).to_json()

    table = Table(title=f"goblin-ambush (4 v 4), {n} encounters, AttackWeakestPolicy both sides")
    for col in ("case", "time", "decisions", "decisions/s", "encounters/s", "vs baseline"):
        table.add_column(col, justify="right")
    table.add_row(
        "log off",
        f"{t_off:.2f} s",
        f"{d_off:,}",
        f"{d_off / t_off:,.0f}",
        f"{n / t_off:,.0f}",
        ratio(t_on / t_off),
    )
    table.add_row(
        "log on (baseline)",
        f"{t_on:.2f} s",
        f"{d_on:,}",
        f"{d_on / t_on:,.0f}",
        f"{n / t_on:,.0f}",
        "1.0×",
    )
    table.add_row("clone()", f"{clone_s * 1e6:.1f} µs", "", "", "", ratio(deep_s / clone_s))
    table.add_row("copy.deepcopy (baseline)", f"{deep_s * 1e6:.1f} µs", "", "", "", "1.0×")
    console.print(table)
    return [
        Target(
            SECTION,
            "clone() equals the state it copies",
            "same to_json()",
            str(same),
            same,
            check=True,
        ),
        Target(
            SECTION,
            "clone() cheaper than deepcopy",
            "≥ 10×",
            ratio(deep_s / clone_s),
            deep_s / clone_s >= 10,
        ),
        Target(
            SECTION,
            "decisions applied per second (log off)",
            "measured base for the simulator",
            f"{d_off / t_off:,.0f}/s ({n / t_off:,.0f} encounters/s)",
            True,
        ),
    ]
