"""``caltrop difficulty ENCOUNTER``: how hard is this fight (issue 23). Thin: parse, call
:func:`caltrop.sim.difficulty.assess` (and :func:`caltrop.sim.vary.vary` for ``--target``
with ``--vary``), render. The bands are defined in ``docs/difficulty.md``.

A progress bar (stderr, a terminal only) appears once the answer has taken longer than its
budget: a default answer never shows one; ``--n``, ``--search-n``, ``--exact`` and ``--vary``
may."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn
from rich.table import Table

from caltrop.cli.common import err, fail, out, print_json
from caltrop.cli.sim_commands import MAX_N, MAX_ROUNDS, MAX_SEED, MAX_STATES, WORKERS_PER_CPU
from caltrop.errors import CaltropError

if TYPE_CHECKING:
    from caltrop.sim.difficulty import Difficulty, Sample
    from caltrop.sim.stats import Interval
    from caltrop.sim.vary import Suggestion

#: The longest --seconds budget taken: past it, give --n and --search-n.
MAX_SECONDS = 600.0


class _LazyBar:
    """A rich progress bar that shows itself only once ``after`` seconds have gone."""

    def __init__(self, after: float, quiet: bool) -> None:
        self.began = time.monotonic()
        self.after = after
        self.console = Console(stderr=True)
        self.quiet = quiet or not self.console.is_terminal
        self.bar: Progress | None = None
        self.tasks: dict[str, TaskID] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self.quiet or time.monotonic() - self.began < self.after:
            return
        if self.bar is None:
            self.bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                console=self.console,
                transient=True,
            )
            self.bar.start()
        if stage not in self.tasks:
            self.tasks[stage] = self.bar.add_task(stage, total=total or None)
        self.bar.update(self.tasks[stage], completed=done, total=total or None)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


@contextmanager
def _bar(after: float, quiet: bool) -> Iterator[_LazyBar]:
    bar = _LazyBar(after, quiet)
    try:
        yield bar
    finally:
        bar.close()


def difficulty(
    encounter: Annotated[
        str,
        typer.Argument(
            help="An encounter file, or a bundled example by name (duel, goblin-ambush, "
            "orc-bridge, bridge-duel-ap, warband-ap).",
            show_default=False,
        ),
    ],
    n: Annotated[
        int | None,
        typer.Option(
            "--n",
            min=1,
            max=MAX_N,
            help="Encounters of the tactical sample (default: as many as fit --seconds).",
            show_default=False,
        ),
    ] = None,
    search_n: Annotated[
        int | None,
        typer.Option(
            "--search-n",
            min=0,
            max=MAX_N,
            help="Encounters of the search sample (default: as many as fit --seconds; 0: none).",
            show_default=False,
        ),
    ] = None,
    exact: Annotated[
        bool | None,
        typer.Option(
            "--exact/--no-exact",
            help="Solve it exactly under tactical within --max-states whatever the time "
            "(default: when the size estimate fits the budget).",
            show_default=False,
        ),
    ] = None,
    max_states: Annotated[
        int | None,
        typer.Option(
            "--max-states",
            min=1,
            max=MAX_STATES,
            help="State cap of the exact solver (default 20,000 within the budget, 100,000 "
            "with --exact).",
            show_default=False,
        ),
    ] = None,
    seconds: Annotated[
        float,
        typer.Option(
            "--seconds", min=0.1, max=MAX_SECONDS, help="Time budget of the default answer."
        ),
    ] = 2.0,
    seed: Annotated[
        int,
        typer.Option(
            "--seed", min=0, max=MAX_SEED, help="Seed of every sample (the same answer each time)."
        ),
    ] = 0,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            help="Numba threads of the compiled kernel; worker processes of the reference "
            "engine for a sample size given.",
            show_default=False,
        ),
    ] = None,
    max_rounds: Annotated[
        int,
        typer.Option(
            "--max-rounds", min=1, max=MAX_ROUNDS, help="A sampled fight still going is a draw."
        ),
    ] = 100,
    target: Annotated[
        float | None,
        typer.Option(
            "--target",
            min=0.0,
            max=1.0,
            help="With --vary: the PC win probability to bring each stat's value to.",
            show_default=False,
        ),
    ] = None,
    vary: Annotated[
        str | None,
        typer.Option(
            "--vary",
            metavar="STAT,…",
            help="With --target: the stats to vary, e.g. goblin.evasion,orc-brute.health.",
            show_default=False,
        ),
    ] = None,
    vary_n: Annotated[
        int | None,
        typer.Option(
            "--vary-n",
            min=1,
            max=MAX_N,
            help="Encounters per value played by --vary (default 5,000 compiled, 100 on the "
            "reference engine).",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the answer as JSON.")] = False,
) -> None:
    """How hard is this fight: the PC win probability under good play, with its band."""
    from caltrop.content import load_encounter
    from caltrop.sim.difficulty import BUDGET_MAX_STATES, assess
    from caltrop.sim.exact import DEFAULT_MAX_STATES

    if (target is None) != (vary is None):
        fail("--target and --vary go together: --target 0.6 --vary goblin.evasion,aria.health")
    if target is not None and math.isnan(target):
        fail("--target is a PC win probability from 0 to 1, not nan")
    _check_workers(workers)
    try:
        definition = load_encounter(encounter)
    except (CaltropError, OSError) as exc:
        fail(str(exc))
    names = [v.strip() for v in (vary or "").split(",") if v.strip()]
    if vary is not None:
        from caltrop.sim.vary import resolve_stat

        if not names:
            fail("--vary names no stat: write --vary goblin.evasion,aria.health")
        try:
            for name in names:  # every name checked before anything is played
                resolve_stat(definition, name)
        except CaltropError as exc:
            fail(str(exc))
    cap = max_states or (DEFAULT_MAX_STATES if exact else BUDGET_MAX_STATES)
    with _bar(seconds, as_json) as bar:
        try:
            answer = assess(
                definition,
                seed=seed,
                n=n,
                search_n=search_n,
                exact=exact,
                max_states=cap,
                seconds=seconds,
                max_rounds=max_rounds,
                workers=workers,
                progress=bar,
            )
            if not as_json and answer.tactical.engine_note:
                err().print(answer.tactical.engine_note, soft_wrap=True)
            suggestions: tuple[Suggestion, ...] = ()
            if target is not None:
                from caltrop.sim.vary import vary as find

                suggestions = find(
                    definition,
                    names,
                    target,
                    n=vary_n,
                    seed=seed,
                    max_rounds=max_rounds,
                    workers=workers,
                    progress=lambda stat, k: bar(f"--vary {stat}: values played", k, 0),
                )
        except CaltropError as exc:
            fail(str(exc))
    data = answer.as_dict()
    if target is not None:
        data["vary"] = [s.as_dict() for s in suggestions]
    if as_json:
        print_json(data)
    else:
        _print(answer, suggestions)
    if exact and answer.exact is None:
        err().print(
            f"Error: --exact refused (the sampled answer is shown): {answer.exact_note}",
            style="bold red",
            soft_wrap=True,
        )
        raise typer.Exit(1)


def _check_workers(workers: int | None) -> None:
    import os

    cpus = os.cpu_count() or 1
    if workers is not None and workers > cpus * WORKERS_PER_CPU:
        fail(
            f"--workers {workers}: at most {cpus * WORKERS_PER_CPU} on this machine "
            f"({WORKERS_PER_CPU} per CPU, {cpus} CPUs)"
        )


def _pct(p: float) -> str:
    return f"{100 * p:.1f}%"


def _iv(i: Interval) -> str:
    return f"{_pct(i.estimate)} [{_pct(i.lo)}, {_pct(i.hi)}]"


def _engine(sample: Sample) -> str:
    return "compiled" if sample.engine == "compiled-tactical" else "reference engine"


def _print(answer: Difficulty, suggestions: tuple[Suggestion, ...]) -> None:
    console = out()
    if not console.is_terminal:
        console.width = max(console.width, 120)
    t = answer.tactical
    v = answer.verdict
    console.print(
        f"{answer.encounter}: {v.band.name.upper()} — {v.band.meaning}",
        style="bold",
        soft_wrap=True,
    )
    spread = (
        ""
        if v.hardest == v.easiest == v.band
        else f"; within the intervals {v.hardest.name} to {v.easiest.name}"
    )
    console.print(
        f"band from P(PC wins) {_pct(v.pc_win)} ({v.pc_win_source}) and P(any PC goes down) "
        f"{_pct(v.any_pc_down)}{spread} (docs/difficulty.md)",
        style="dim",
        soft_wrap=True,
    )
    table = Table(title="P(PC wins), Wilson 95%", title_justify="left")
    for c in ("tactics", "engine", "encounters", "PC win", "any PC down", "rounds mean", "p90"):
        table.add_column(c, justify="left" if c in ("tactics", "engine") else "right")
    table.add_row(
        "tactical",
        _engine(t),
        f"{t.n:,}",
        _iv(t.pc_win),
        _iv(t.any_pc_down),
        f"{t.rounds_mean:.2f}",
        f"{t.rounds_p90:g}",
    )
    if answer.exact is not None:
        e = answer.exact
        table.add_row(
            "tactical",
            "exact",
            f"{e.states:,} states",
            f"{100 * float(e.pc_win):.3f}% (exact)",
            "",
            f"{float(e.rounds_mean):.2f}",
            "",
        )
    s = answer.search
    if s is not None:
        table.add_row(
            "search",
            _engine(s),
            f"{s.n:,}",
            _iv(s.pc_win),
            _iv(s.any_pc_down),
            f"{s.rounds_mean:.2f}",
            f"{s.rounds_p90:g}",
        )
    console.print(table)
    if answer.exact is None:
        console.print(f"exact: {answer.exact_note}", style="dim", soft_wrap=True)
    if s is None:
        console.print(f"search: {answer.search_note}", style="dim", soft_wrap=True)
    creatures = Table(title="Per creature, under tactical", title_justify="left")
    for column in ("creature", "side", "down", "Health left (of)", "damage dealt"):
        creatures.add_column(column, justify="left" if column in ("creature", "side") else "right")
    for one in t.creatures:
        creatures.add_row(
            one.name,
            one.side,
            _iv(one.down),
            f"{one.health_left:.1f} ({one.health})",
            f"{one.damage_dealt:.1f}",
        )
    console.print(creatures)
    sides = Table(title="Per side, per encounter, under tactical", title_justify="left")
    for column in ("side", "damage dealt", "damage/round", "creatures down"):
        sides.add_column(column, justify="left" if column == "side" else "right")
    for name, f in t.sides.items():
        sides.add_row(name, f"{f.damage_dealt:.1f}", f"{f.damage_per_round:.2f}", f"{f.down:.2f}")
    console.print(sides)
    console.print(
        f"seed {answer.seed}; answered in {answer.seconds:.1f} s (budget {answer.budget:g} s); "
        f"a fight still going after {t.max_rounds} rounds is a draw in the samples",
        style="dim",
        soft_wrap=True,
    )
    if suggestions:
        _print_vary(console, suggestions)


def _print_vary(console: Console, suggestions: tuple[Suggestion, ...]) -> None:
    first = suggestions[0]
    table = Table(
        title=f"The value of each stat that brings P(PC wins) nearest {first.target:g} "
        f"(tactical, {first.n:,} paired encounters a value, seed {first.seed})",
        title_justify="left",
    )
    for c in ("stat", "now", "value", "PC win there", "crossing [95%]", "values played"):
        table.add_column(c, justify="left" if c == "stat" else "right")
    for s in suggestions:
        table.add_row(
            s.stat,
            str(s.current),
            str(s.value),
            _iv(s.pc_win),
            _crossing(s),
            str(len(s.points)),
        )
    console.print(table)
    for s in suggestions:
        if s.note:
            console.print(f"{s.stat}: {s.note}", style="yellow", soft_wrap=True)


def _crossing(s: Suggestion) -> str:
    if s.crossing is None:
        return "—"

    def edge(x: Any) -> str:
        return "…" if x is None else f"{x:.2f}"

    return f"{s.crossing:.2f} [{edge(s.lo)}, {edge(s.hi)}]"


__all__ = ["difficulty"]
