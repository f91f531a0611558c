"""``caltrop sim`` (rule variants compared on paired encounters) and ``caltrop sweep`` (one stat
or option stepped through values). Thin: parse, call :mod:`caltrop.sim`, render.

Three engines play, named in the headline and in ``--json`` (``engine``):

* ``reference`` (the default): :func:`caltrop.sim.runner.simulate`, any policies, dice rolled as
  ``caltrop play`` rolls them;
* ``fast`` (``--fast``): the numba fast path (:func:`caltrop.sim.fast.records.simulate_fast`),
  one fixed tactic on every creature (Action Load: attack the weakest, hinder to save an ally;
  Action Points: the engine's ``attack-weakest``);
* ``compiled-tactical`` (``--fast --policy tactical``): ``tactical`` on both sides played by the
  compiled kernel (``simulate(…, engine="compiled")``): the same choices as the Python policy on
  the kernel's own dice streams. An encounter or variant the kernel cannot play is played by the
  reference engine instead, and one line says why (the runner's ``engine_note``).

The summary, tables, ``--json`` and ``--report`` are the same, built from the same
:class:`~caltrop.sim.runner.SimResult`."""

from __future__ import annotations

import math
import os
import re
import secrets
import socket
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from caltrop.cli.common import err, fail, out, print_json
from caltrop.cli.sim_interrupt import ProgressLines, expect, reached, stops_cleanly
from caltrop.content import encounter_policies, load_encounter
from caltrop.content.paths import path_problem
from caltrop.core.model import EncounterDef
from caltrop.errors import CaltropError

if TYPE_CHECKING:
    from caltrop.sim.overrides import Variant
    from caltrop.sim.runner import SimResult

EncounterArg = Annotated[
    str,
    typer.Argument(
        help="An encounter file, or a bundled example by name (goblin-ambush, orc-bridge).",
        show_default=False,
    ),
]
VariantOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--variant",
        help="A rule variant: KEY=VALUE[,KEY=VALUE…], e.g. load_reset=round, revision=legacy, "
        "goblin.aspects.Finesse=6; NAME:… names it. Repeat to compare; the first is the baseline.",
    ),
]
#: Encounters per variant, and in a whole run (every variant or sweep value): the records of a
#: run are held in memory (~30 bytes per creature per encounter).
MAX_N = 1_000_000
MAX_ENCOUNTERS = 2_000_000
#: Local workers (or numba threads) per CPU: more only queue up, each process costs memory.
WORKERS_PER_CPU = 4
MAX_SEED = 2**64 - 1
MAX_ROUNDS = 10_000
#: --exact's state cap: each state kept costs memory, whatever the cap says.
MAX_STATES = 2_000_000
#: Seconds to reach a --dask scheduler before giving up.
DASK_CONNECT_SECONDS = 5.0

NOpt = Annotated[
    int,
    typer.Option("--n", min=1, max=MAX_N, help="Encounters per variant (or per value)."),
]
SeedOpt = Annotated[
    int | None,
    typer.Option(
        "--seed", min=0, max=MAX_SEED, help="Seed of the whole run (default: fresh, and printed)."
    ),
]
WorkersOpt = Annotated[
    int | None,
    typer.Option(
        "--workers",
        min=1,
        help="Local worker processes (default: one per CPU, at most 4 per CPU); with --fast, "
        "numba threads.",
    ),
]
DaskOpt = Annotated[
    str | None,
    typer.Option(
        "--dask",
        metavar="ADDRESS",
        help="Run the chunks on a Dask cluster (tcp://scheduler:8786); needs the optional extra "
        "caltrop\\[dask].",
    ),
]
PolicyOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--policy",
        help="Tactics: NAME for both sides, or pc=NAME / npc=NAME (random, attack-weakest, "
        "tactical). Default: the encounter file's policies, else tactical. With --fast: "
        "tactical only, played compiled.",
    ),
]
ReportOpt = Annotated[
    Path | None,
    typer.Option("--report", metavar="DIR", help="Write PNG plots and report.md into DIR."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the results as JSON.")]
FastOpt = Annotated[
    bool,
    typer.Option(
        "--fast",
        help="Play with the numba fast path: one fixed tactic on every creature (Action Load: "
        "attack the weakest, hinder to save an ally; Action Points: attack-weakest); about a "
        "thousand times the reference engine. With --policy tactical: tactical on both sides, "
        "compiled (the same choices, its own dice; the reference engine where it cannot).",
    ),
]
MaxRoundsOpt = Annotated[
    int | None,
    typer.Option(
        "--max-rounds",
        min=1,
        max=MAX_ROUNDS,
        help="Stop a fight after this many rounds (a draw). Default: 100 when sampling; no cap "
        "for --exact.",
        show_default=False,
    ),
]


#: Who plays a run: the reference engine, the fast path's one tactic, or compiled tactical.
Engine = Literal["reference", "fast", "compiled"]


def _engine(fast: bool, policy: Sequence[str] | None) -> Engine:
    """``--fast`` alone is the fast path's tactic; ``--fast --policy tactical`` the compiled
    tactical kernel; without ``--fast`` the reference engine plays (its dice are the ones
    ``caltrop play`` rolls, so a seed replays there roll for roll)."""
    if not fast:
        return "reference"
    return "compiled" if policy else "fast"


def _load(encounter: str) -> tuple[EncounterDef, dict[str, str]]:
    try:
        definition = load_encounter(encounter)
        return definition, encounter_policies(encounter)
    except (CaltropError, OSError) as exc:
        fail(str(exc))


def _policies(given: Sequence[str] | None) -> dict[str, str]:
    out_: dict[str, str] = {}
    for text in given or []:
        side, eq, name = text.partition("=")
        if not eq:
            out_["pc"] = out_["npc"] = text.strip()
        elif side.strip() in ("pc", "npc"):
            out_[side.strip()] = name.strip()
        else:
            fail(f"--policy {text!r}: write NAME, pc=NAME or npc=NAME")
    return out_


@contextmanager
def _progress(total: int, what: str, quiet: bool) -> Iterator[Callable[[int], None]]:
    """A progress bar on a terminal; on a pipe or file, one line on stderr now and then
    (:class:`caltrop.cli.sim_interrupt.ProgressLines`: never blind, issue 25 item 4)."""
    console = Console(stderr=True)
    if not quiet and not console.is_terminal:
        yield ProgressLines(total, what, console.file)
        return
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=quiet or not console.is_terminal,
    ) as bar:
        task = bar.add_task(what, total=total)
        yield lambda k: bar.advance(task, k)


def _seed(seed: int | None) -> int:
    return secrets.randbits(32) if seed is None else seed


def _workers(workers: int | None) -> int:
    from caltrop.sim.runner import default_workers

    return default_workers() if workers is None else workers


def _check_workers(workers: int | None) -> None:
    """At most WORKERS_PER_CPU workers per CPU (1000 spawned 121 processes and 5 GB)."""
    cpus = os.cpu_count() or 1
    if workers is not None and workers > cpus * WORKERS_PER_CPU:
        fail(
            f"--workers {workers}: at most {cpus * WORKERS_PER_CPU} on this machine "
            f"({WORKERS_PER_CPU} per CPU, {cpus} CPUs)"
        )


def _check_size(n: int, variants: int) -> None:
    """A whole run is at most MAX_ENCOUNTERS encounters, checked before any is played."""
    if n * variants > MAX_ENCOUNTERS:
        fail(
            f"--n {n:,} × {variants:,} variants = {n * variants:,} encounters; at most "
            f"{MAX_ENCOUNTERS:,} in a run (lower --n or run fewer variants)"
        )


_DASK_SCHEMES = ("tcp", "tls", "ws", "wss", "inproc")
_HOST_PORT = re.compile(r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(?P<port>[0-9]{1,5})")


@contextmanager
def _dask_client(address: str | None) -> Iterator[Any]:
    """None, or a Dask client connected to ``address`` — checked first, so a malformed or dead
    address fails in seconds with one line, not after dask's retries with a traceback. The
    client is closed when the run ends."""
    if address is None:
        yield None
        return
    text = address.strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    if scheme not in _DASK_SCHEMES:
        fail(
            f"--dask {address!r}: the scheme is one of {', '.join(_DASK_SCHEMES)}, e.g. tcp://host:8786"
        )
    if scheme != "inproc":
        m = _HOST_PORT.fullmatch(rest)
        if m is None or not 1 <= int(m.group("port")) <= 65535:
            fail(
                f"--dask {address!r}: write the scheduler as tcp://HOST:PORT (e.g. tcp://10.0.0.5:8786)"
            )
        host = m.group("host").strip("[]")
        try:
            socket.create_connection(
                (host, int(m.group("port"))), timeout=DASK_CONNECT_SECONDS
            ).close()
        except OSError as exc:
            fail(f"--dask {address}: cannot reach a scheduler there ({_os_reason(exc)})")
    try:
        from distributed import Client
    except ImportError:
        fail("--dask needs the optional extra: pip install 'caltrop[dask]'")
    try:
        client = Client(text, timeout=f"{DASK_CONNECT_SECONDS}s")  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        fail(f"--dask {address}: cannot connect to a Dask scheduler ({str(exc).splitlines()[0]})")
    try:
        yield client
    finally:
        client.close()  # type: ignore[no-untyped-call]


def _os_reason(exc: OSError) -> str:
    if isinstance(exc, socket.gaierror):
        return "unknown host"
    if isinstance(exc, TimeoutError | socket.timeout):
        return f"no answer in {DASK_CONNECT_SECONDS:g} s"
    return (exc.strerror or str(exc)).lower()


@stops_cleanly
def sim(
    encounter: EncounterArg,
    variant: VariantOpt = None,
    n: NOpt = 2000,
    seed: SeedOpt = None,
    workers: WorkersOpt = None,
    dask: DaskOpt = None,
    policy: PolicyOpt = None,
    exact: Annotated[
        bool,
        typer.Option(
            "--exact",
            help="Also compute the exact win probability under the (deterministic) tactics, "
            "for small encounters.",
        ),
    ] = False,
    max_states: Annotated[
        int, typer.Option("--max-states", min=1, max=MAX_STATES, help="State cap of --exact.")
    ] = 100_000,
    max_rounds: MaxRoundsOpt = None,
    fast: FastOpt = False,
    tactics: Annotated[
        str | None,
        typer.Option(
            "--policies",
            metavar="A,B,…",
            help="With two or more variants, the tactics to compare their effect under (both "
            "sides; 'fast' is the fast path's tactic; 'search' the strong player, about a "
            "second per encounter; 'none' for none). Default: every bundled policy that can "
            "play the encounter, except search.",
        ),
    ] = None,
    best: Annotated[
        str | None,
        typer.Option(
            "--best-response",
            metavar="pc|npc",
            help="Also solve exactly how often that side wins with its best play against the "
            "other side's tactics, beside its own tactic's rate (small encounters; states "
            "capped by --max-states).",
        ),
    ] = None,
    report: ReportOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Play an encounter N times under each rule variant, on paired seeds, and compare them."""
    from caltrop.sim.overrides import parse_variant
    from caltrop.sim.summary import exact_differences, summarise

    engine = _engine(fast, policy)
    if best is not None and best not in ("pc", "npc"):
        fail(f"--best-response is pc or npc (the side that plays its best), not {best!r}")
    if best is not None and engine == "fast":
        fail(
            "--best-response solves against the reference engine's tactics, not the fast "
            "path's; drop --fast (or add --policy tactical)"
        )
    if fast:
        _refuse_with_fast(dask=dask, engine=engine, exact=exact)
    _check_workers(workers)
    _check_report(report)
    _check_size(n, len(variant or ["baseline"]))
    definition, from_file = _load(encounter)
    if engine == "compiled":
        _check_compiled_policies(from_file, policy)
    run_seed = _seed(seed)
    try:
        _check_tactics(tactics)
        variants = [parse_variant(v) for v in (variant or ["baseline"])]
        expect(lambda cut: _named_engine(summarise(cut)), _print_sim, as_json=as_json)
        if not as_json:
            _announce(
                definition,
                variants,
                from_file,
                policy,
                n=n,
                workers=workers,
                engine=engine,
                max_rounds=_sampled_rounds(max_rounds),
                tactics=tactics if len(variants) > 1 else "none",
            )
        with _dask_client(dask) as cluster:
            result = _run(
                definition,
                variants,
                from_file,
                policy,
                n=n,
                seed=run_seed,
                workers=workers,
                dask=cluster,
                max_rounds=_sampled_rounds(max_rounds),
                as_json=as_json,
                engine=engine,
            )
        summary = _named_engine(summarise(result))
        if engine == "fast":
            from caltrop.sim.across import fast_tactic

            summary["fast_tactic"] = fast_tactic(definition)
        reached(summary, "the comparison under each tactic")
        if len(variants) > 1 and (tactics or "").strip() != "none":
            summary["across_tactics"] = _across(
                definition,
                variants,
                result,
                tactics,
                n=n,
                seed=run_seed,
                workers=workers,
                max_rounds=_sampled_rounds(max_rounds),
                quiet=as_json,
                capped=summary["engine"] != "reference",
            )
        refused: CaltropError | None = None
        exact_done = not exact
        reached(summary, "the exact solve")
        if exact:
            try:
                _add_exact(
                    summary, result, max_states=max_states, max_rounds=max_rounds, quiet=as_json
                )
            except CaltropError as exc:
                refused = exc  # issue 10: the sampled results are kept and shown all the same
            else:
                exact_done = True
                exact_differences(summary)  # issue 25 item 1: b − a, exactly, beside its interval
        reached(summary, "the best response")
        if best is not None and refused is None:
            try:
                _add_best_response(summary, result, best, max_nodes=max_states)
            except CaltropError as exc:
                refused = exc
    except CaltropError as exc:
        fail(str(exc))
    _emit(summary, as_json=as_json, show=_print_sim, report=report, kind="sim")
    if refused is not None:
        what = "--best-response" if exact_done else "--exact"
        err().print(
            f"Error: {what} refused (the sampled results are shown): {refused}",
            style="bold red",
            soft_wrap=True,
        )
        raise typer.Exit(2)  # a limit met: exit 2, as docs/limits.md says of every limit


def _check_tactics(tactics: str | None) -> None:
    """``--policies A,B,…``: every name a tactic (or ``none`` alone), whatever the number of
    variants (issue 21)."""
    from caltrop.sim.across import check_policy_names

    if tactics is None:
        return
    names = [t.strip() for t in tactics.split(",")]
    if names == ["none"]:
        return
    if any(not name for name in names):
        raise CaltropError(f"--policies {tactics[:60]!r}: an empty name between commas")
    if "none" in names:
        raise CaltropError("--policies none stands alone (no comparison across tactics)")
    check_policy_names(names)


#: With --fast (either kind) the engine's tactics play this many encounters per variant at most.
ACROSS_ENGINE_N = 2000


def _announce(
    definition: EncounterDef,
    variants: list[Variant],
    from_file: Mapping[str, str],
    policy: list[str] | None,
    *,
    n: int,
    workers: int | None,
    engine: Engine,
    max_rounds: int,
    tactics: str | None,
    what: str = "this comparison",
) -> None:
    """Before a run of at least PILOT_MIN_RUN encounters, one line on stderr: how long it will
    take, from a short pilot of each tactic it plays, and how long ``--fast --policy tactical``
    would take where that answers the same question (issue 25 item 4). A run estimated under
    ANNOUNCE_SECONDS says nothing. Bad options are left to the run, which names them."""
    from caltrop.sim import estimate
    from caltrop.sim.across import FAST, SEARCH, playable_policies, search_plan, search_seconds
    from caltrop.sim.runner import resolve_policies

    if engine == "fast" and (tactics or "").strip() == "none":
        return  # the fast path alone: seconds
    try:
        policies = resolve_policies(from_file, _policies(policy))
        for v in variants:
            v.apply(definition)
        count = _workers(workers)
        parts: list[tuple[str, float]] = []
        slowdown = 1.0
        if engine != "fast" and n * len(variants) >= estimate.PILOT_MIN_RUN:
            kernel = None
            if engine == "compiled":  # the kernel's own timing: a pilot's overhead dwarfs it
                kernel = estimate.compiled_seconds(definition, variants, n)
            if kernel is None and SEARCH in policies.values():  # seconds an encounter: no pilot
                each = search_seconds(variants[0].apply(definition))
                kernel = each * n * len(variants)
            if kernel is None:
                main_pilot = estimate.pilot(
                    definition, variants[0], policies, engine=engine, max_rounds=max_rounds
                )
                kernel, slowdown = main_pilot.seconds * n * len(variants), main_pilot.slowdown
            parts.append(("the main run", kernel / count))
        if (tactics or "").strip() != "none":
            wanted = [t.strip() for t in tactics.split(",") if t.strip()] if tactics else None
            main = policies["pc"] if policies["pc"] == policies["npc"] else None
            engine_n = min(n, ACROSS_ENGINE_N) if engine != "reference" else n
            seconds = 0.0
            for name in playable_policies(definition, variants, wanted):
                if name in (main, FAST):
                    continue  # reused from the main run / the fast path: seconds
                if name == SEARCH:
                    fits, played, took = search_plan(definition, variants, engine_n, count)
                    if fits or (wanted and SEARCH in wanted):  # CPU time: stretched by load
                        seconds += slowdown * took * played / max(1, min(engine_n, 40))
                    continue
                tactic = estimate.pilot(
                    definition, variants[0], {"pc": name, "npc": name}, max_rounds=max_rounds
                )
                slowdown = max(slowdown, tactic.slowdown)
                seconds += estimate.shared(tactic.seconds, engine_n * len(variants), count)
            if seconds:
                parts.append(("the comparison under each tactic", seconds))
        if not parts:
            return  # short: nothing piloted
        faster = None
        if engine == "reference" and policies == {"pc": "tactical", "npc": "tactical"}:
            compiled = estimate.compiled_seconds(definition, variants, n)
            if compiled is not None:
                faster = ("--fast --policy tactical", compiled)
    except CaltropError:
        return
    plan = estimate.Plan(count, tuple(parts), faster)
    if plan.seconds >= estimate.ANNOUNCE_SECONDS:
        line = plan.text(what)
        err().print(line[0].upper() + line[1:], style="dim", soft_wrap=True)


def _across(
    definition: EncounterDef,
    variants: list[Variant],
    result: SimResult,
    tactics: str | None,
    *,
    n: int,
    seed: int,
    workers: int | None,
    max_rounds: int,
    quiet: bool,
    capped: bool,
) -> dict[str, Any]:
    """The variants' effect under every tactic (or those of --policies), the main run reused
    for its own tactic; when ``capped`` (the main run was --fast, of either kind) the engine's
    tactics play at most ACROSS_ENGINE_N each."""
    from caltrop.sim.across import (
        ACROSS_SEARCH_N,
        FAST,
        SEARCH,
        across_tactics,
        playable_policies,
        search_plan,
    )

    wanted = [t.strip() for t in tactics.split(",") if t.strip()] if tactics else None
    names = playable_policies(definition, variants, wanted)
    main = result.policies["pc"] if result.policies["pc"] == result.policies["npc"] else None
    done = {main: result} if main is not None else {}
    out: dict[str, Any] = {"policies": names, "rows": [], "verdicts": []}
    engine_n = min(n, ACROSS_ENGINE_N) if capped else n
    search_n = engine_n  # named in --policies: the whole run
    if SEARCH in names and SEARCH not in done and not (wanted and SEARCH in wanted):
        fits, search_n, seconds = search_plan(definition, variants, engine_n, _workers(workers))
        if not fits:
            names.remove(SEARCH)
            out["search_left_out"] = (
                f"search left out: {min(engine_n, ACROSS_SEARCH_N)} encounters per variant "
                f"would take about {seconds / 60:,.0f} min (name it in --policies to run it "
                "anyway)"
            )

    def size(name: str) -> int:
        return n if name == FAST else search_n if name == SEARCH else engine_n

    for name in names:  # a bar (or progress lines) per tactic: their speeds differ a thousandfold
        todo = 0 if name in done else size(name) * len(variants)
        with _progress(max(1, todo), f"tactics ({name})", quiet or not todo) as advance:
            part = across_tactics(
                definition,
                variants,
                [name],
                n=size(name),
                seed=seed,
                workers=_workers(workers),
                max_rounds=max_rounds,
                progress=advance,
                done=done,
            )
            out["rows"] += [{**r, "n": part["n"] if name not in done else n} for r in part["rows"]]
            if "fast_tactic" in part:
                out["fast_tactic"] = part["fast_tactic"]
    from caltrop.sim.across import verdicts

    out["verdicts"] = verdicts(out["rows"])
    return out


def _sampled_rounds(max_rounds: int | None) -> int:
    from caltrop.sim.runner import DEFAULT_MAX_ROUNDS

    return DEFAULT_MAX_ROUNDS if max_rounds is None else max_rounds


def _add_exact(
    summary: dict[str, Any],
    result: Any,
    *,
    max_states: int,
    max_rounds: int | None,
    quiet: bool,
) -> None:
    """The exact answer of every variant (no round cap unless --max-rounds is given): refused
    from its size estimate within seconds, else a bar up to --max-states while it explores."""
    from caltrop.sim.exact import Estimate, solve

    console = Console(stderr=True)

    def tell(estimate: Estimate) -> None:
        if not quiet and estimate.states:
            console.print(
                f"exact: about {estimate.states:,} chance states (estimate), cap {max_states:,}",
                style="dim",
            )

    for entry, run in zip(summary["variants"], result.runs, strict=True):
        with _progress(max_states, f"exact: {run.name}, states", quiet) as advance:
            exact = solve(
                run.definition,
                result.policies,
                max_states=max_states,
                max_rounds=max_rounds,
                progress=advance,
                estimated=tell,
            )
        entry["exact"] = exact.as_dict()
        entry["exact"]["within_interval"] = {
            side: entry["win_rate"][side]["lo"]
            <= float(exact.win_rate(side))
            <= entry["win_rate"][side]["hi"]
            for side in ("pc", "npc")
        }


def _add_best_response(summary: dict[str, Any], result: Any, side: str, *, max_nodes: int) -> None:
    """Every variant's best response of ``side`` (issue 25 item 5), beside its policy's value."""
    from caltrop.sim.best_response import best_response_summary

    for entry, run in zip(summary["variants"], result.runs, strict=True):
        entry["best_response"] = best_response_summary(
            run.definition, side, result.policies, max_nodes=max_nodes
        )


def _tactics_text(summary: Mapping[str, Any]) -> str:
    """The tactics of a run and the engine that played them, in words (issue 13)."""
    pc, npc = summary["policies"]["pc"], summary["policies"]["npc"]
    engine = summary.get("engine")
    if engine == "fast":
        return f"tactic: the fast path's ({summary.get('fast_tactic', 'one fixed tactic')})"
    if engine == COMPILED:
        return "tactic: tactical (compiled)"
    return f"policies pc={pc} npc={npc} (reference engine)"


#: ``SimResult.extra["engine"]`` of a run the compiled tactical kernel played.
COMPILED = "compiled-tactical"


def _named_engine(summary: dict[str, Any]) -> dict[str, Any]:
    """``summary`` naming its engine: the fast path and the compiled kernel name themselves (in
    the result's ``extra``); a run without a name was the reference engine's."""
    summary.setdefault("engine", "reference")
    return summary


def _print_across(console: Console, across: Mapping[str, Any]) -> None:
    from caltrop.sim.across import ACROSS_SEARCH_N, ACROSS_SEARCH_SECONDS, SEARCH

    table = Table(
        title="The same comparison under each tactic: PC win rate, b − a (paired, 95%)",
        title_justify="left",
    )
    pairs = list(dict.fromkeys((r["a"], r["b"]) for r in across["rows"]))
    table.add_column("tactic (both sides)", justify="left")
    table.add_column("n", justify="right")
    for _a, b in pairs:
        table.add_column(b, justify="right")
    for policy in across["policies"]:
        mine = {(r["a"], r["b"]): r for r in across["rows"] if r["policy"] == policy}
        if not mine:
            continue
        n = next(iter(mine.values()))["n"]
        table.add_row(
            policy, f"{n:,}", *(_across_cell(mine[p]) if p in mine else "" for p in pairs)
        )
    console.print(table)
    if "fast_tactic" in across:
        console.print(f"fast = the fast path's tactic: {across['fast_tactic']}", style="dim")
    if SEARCH in across["policies"]:
        console.print(
            "search = the strong player: tactical's choices improved by playouts (by "
            f"default as many encounters per variant as fit {ACROSS_SEARCH_SECONDS / 60:.0f} "
            f"min, at least {ACROSS_SEARCH_N}; all of them when --policies names it)",
            style="dim",
        )
    if "search_left_out" in across:
        left = across["search_left_out"]
        console.print(left[0].upper() + left[1:] + ".", style="dim")
    for v in across["verdicts"]:
        style = "bold yellow" if v["kind"] in ("sign", "significance") else None
        console.print(v["text"][0].upper() + v["text"][1:] + ".", style=style, soft_wrap=True)


def _across_cell(row: Mapping[str, Any]) -> str:
    """One cell of the comparison under each tactic: the sampled difference, and the exact one
    beside it where ``--exact`` solved that tactic (issue 25 item 1)."""
    from caltrop.sim.report import diff_text, exact_diff_text

    exact = exact_diff_text(row)
    return diff_text(row) + (f"; exact {exact}" if exact else "")


def _exact_line(name: str, exact: dict[str, Any]) -> str:
    cap = exact["max_rounds"]
    rounds = "no round cap" if cap is None else f"draw after {cap} rounds"
    endless = f", never ends {exact['endless']:.5f}" if exact["endless"] else ""
    return (
        f"exact, {name}: P(PC wins) = {exact['win_rate']['pc']['p']:.5f}, P(NPC wins) = "
        f"{exact['win_rate']['npc']['p']:.5f}{endless}, mean rounds {exact['rounds_mean']:.3f} "
        f"({rounds}; {exact['states']:,} states solved in {exact['seconds']:.1f} s)"
    )


def _pct(p: float) -> str:
    return f"{100 * p:.1f}%"


def _iv(d: dict[str, float]) -> str:
    return f"{_pct(d['p'])} [{_pct(d['lo'])}, {_pct(d['hi'])}]"


def _console() -> Console:
    console = out()
    if not console.is_terminal:
        console.width = max(console.width, 120)  # a file or a pipe: room for the tables
    return console


def _print_sim(summary: dict[str, Any]) -> None:
    from caltrop.sim.best_response import best_response_text
    from caltrop.sim.report import diff_text, exact_diff_text, side_cells

    console = _console()
    console.print(
        f"{summary['encounter']}: {summary['n']:,} encounters per variant, seed {summary['seed']}, "
        f"{_tactics_text(summary)}",
        soft_wrap=True,
    )
    table = Table(title="Win rate (Wilson 95%) and fight length", title_justify="left")
    columns = ["variant", "PC win", "NPC win", "rounds mean", "median", "p90"]
    has_exact = any("exact" in v for v in summary["variants"])
    if has_exact:
        columns.append("PC win, exact")
    for c in columns:
        table.add_column(c, justify="left" if c == "variant" else "right")
    for v in summary["variants"]:
        row = [
            v["name"],
            _iv(v["win_rate"]["pc"]),
            _iv(v["win_rate"]["npc"]),
            f"{v['rounds']['mean']:.2f}",
            f"{v['rounds']['median']:g}",
            f"{v['rounds']['p90']:g}",
        ]
        if has_exact:
            row.append(f"{100 * v['exact']['win_rate']['pc']['p']:.3f}%")
        table.add_row(*row)
    console.print(table)
    for v in summary["variants"]:
        if "exact" in v:
            console.print(_exact_line(v["name"], v["exact"]), soft_wrap=True)
    for v in summary["variants"]:
        if "best_response" in v:
            console.print(best_response_text(v["name"], v["best_response"]), soft_wrap=True)
    side_table = Table(title="Per side, per encounter", title_justify="left")
    for c in (
        "variant",
        "side",
        "damage/round",
        "Load/points used",
        "reactions",
        "team actions",
        "down",
    ):
        side_table.add_column(c, justify="left" if c in ("variant", "side") else "right")
    for v in summary["variants"]:
        for side in ("pc", "npc"):
            side_table.add_row(*side_cells(v, side))
    console.print(side_table)
    if summary["differences"]:
        diffs = Table(title="Paired differences, b − a (95%)", title_justify="left")
        with_exact = any("exact" in d for d in summary["differences"])
        for c in ("a", "b", "measure", "difference", *(["exact"] if with_exact else [])):
            diffs.add_column(c, justify="left" if c in ("a", "b", "measure") else "right")
        for d in summary["differences"]:
            measure = f"{d['side']} win rate" if d["measure"] == "win_rate" else "mean rounds"
            cells = [d["a"], d["b"], measure, diff_text(d)]
            diffs.add_row(*cells, *([exact_diff_text(d)] if with_exact else []))
        console.print(diffs)
    if "across_tactics" in summary:
        _print_across(console, summary["across_tactics"])
    timeouts = sum(v["timeouts"] for v in summary["variants"])
    if timeouts:
        console.print(
            f"{timeouts} encounter(s) reached --max-rounds {summary['max_rounds']} and count as "
            "draws",
            style="yellow",
        )


@stops_cleanly
def sweep(
    encounter: EncounterArg,
    param: Annotated[
        str | None,
        typer.Option(
            "--param",
            help="What to step: PATH=VALUES, e.g. goblin.aspects.Finesse=2..8, "
            "load_reset=turn,round, aria.health=10..20..2.",
            show_default=False,
        ),
    ] = None,
    sets: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="PATH=VALUES",
            help="Two stats at once: give --set twice (e.g. --set goblin.health=4..8 --set "
            "goblin.evasion=10..14) for a grid of every pair, a heat map and, with --target, "
            "its contour. Instead of --param.",
            show_default=False,
        ),
    ] = None,
    variant: Annotated[
        list[str] | None,
        typer.Option("--variant", help="Overrides applied at every value (KEY=VALUE,…)."),
    ] = None,
    n: NOpt = 1000,
    seed: SeedOpt = None,
    workers: WorkersOpt = None,
    dask: DaskOpt = None,
    policy: PolicyOpt = None,
    side: Annotated[
        str, typer.Option("--side", help="Whose win rate --target is about: pc or npc.")
    ] = "pc",
    target: Annotated[
        float | None,
        typer.Option(
            "--target",
            min=0.0,
            max=1.0,
            help="Find where the win rate crosses this (e.g. 0.5 for a fair fight): the "
            "parameter value, interpolated, with an interval.",
        ),
    ] = None,
    max_rounds: MaxRoundsOpt = None,
    fast: FastOpt = False,
    report: ReportOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Step one stat or option through values (--param), or two at once (--set twice): one win
    rate per value or pair, with its interval."""
    from caltrop.sim.overrides import Variant, parse_override, parse_sweep, parse_variant
    from caltrop.sim.summary import sweep_summary

    if side not in ("pc", "npc"):
        fail(f"--side must be pc or npc, not {side!r}")
    if target is not None and math.isnan(target):
        fail("--target is a win rate from 0 to 1, not nan")
    engine = _engine(fast, policy)
    if fast:
        _refuse_with_fast(dask=dask, engine=engine, exact=False)
    _check_workers(workers)
    _check_report(report)
    definition, from_file = _load(encounter)
    if engine == "compiled":
        _check_compiled_policies(from_file, policy)
    run_seed = _seed(seed)
    if sets:
        if param is not None:
            fail("--param steps one stat, --set two at once: give one or the other")
        _sweep_grid(
            definition, from_file, sets, variant, policy, n=n, seed=run_seed, workers=workers,
            dask=dask, side=side, target=target, max_rounds=max_rounds, engine=engine,
            report=report, as_json=as_json,
        )  # fmt: skip
        return
    if param is None:
        fail("give --param PATH=VALUES (one stat), or --set twice (two stats at once)")
    try:
        path, values = parse_sweep(param)
        _check_size(n, len(values))
        base = [o for text in (variant or []) for o in parse_variant(text).overrides]
        key = ".".join(path)
        variants = [
            Variant(f"{key}={value}", (*base, parse_override(f"{key}={value}"))) for value in values
        ]
        expect(
            lambda cut: _named_engine(
                {
                    **sweep_summary(
                        cut, key, values, side=side, target=target, definition=definition
                    ),
                    **cut.extra,
                }
            ),
            _print_sweep,
            as_json=as_json,
        )
        if not as_json:
            _announce(
                definition,
                variants,
                from_file,
                policy,
                n=n,
                workers=workers,
                engine=engine,
                max_rounds=_sampled_rounds(max_rounds),
                tactics="none",
                what="this sweep",
            )
        with _dask_client(dask) as cluster:
            result = _run(
                definition,
                variants,
                from_file,
                policy,
                n=n,
                seed=run_seed,
                workers=workers,
                dask=cluster,
                max_rounds=_sampled_rounds(max_rounds),
                as_json=as_json,
                engine=engine,
            )
        summary = _named_engine(
            {
                **sweep_summary(
                    result, key, values, side=side, target=target, definition=definition
                ),
                **result.extra,
            }
        )
        if summary["against_trend"] and engine != "fast":
            from caltrop.sim.choices import with_shares

            summary["against_trend"] = with_shares(
                summary["against_trend"],
                {v: run.definition for v, run in zip(values, result.runs, strict=True)},
                result.policies,
                result.seed,
                max_rounds=result.max_rounds,
            )
        if engine == "fast":
            from caltrop.sim.across import fast_tactic

            summary["fast_tactic"] = fast_tactic(definition)
    except CaltropError as exc:
        fail(str(exc))
    _emit(summary, as_json=as_json, show=_print_sweep, report=report, kind="sweep")


#: ``--set`` steps exactly this many stats at once (a grid; one is --param).
GRID_STATS = 2


def _sweep_grid(
    definition: EncounterDef,
    from_file: Mapping[str, str],
    sets: list[str],
    variant: list[str] | None,
    policy: list[str] | None,
    *,
    n: int,
    seed: int,
    workers: int | None,
    dask: str | None,
    side: str,
    target: float | None,
    max_rounds: int | None,
    engine: Engine,
    report: Path | None,
    as_json: bool,
) -> None:
    """``sweep --set A=… --set B=…`` (issue 25 item 7): every pair of values played on paired
    seeds, the grid of win rates, its heat map and, with ``--target``, the contour."""
    from caltrop.sim.overrides import (
        MAX_SWEEP_VALUES,
        Variant,
        parse_override,
        parse_sweep,
        parse_variant,
    )
    from caltrop.sim.summary import grid_summary

    if len(sets) != GRID_STATS:
        fail(f"--set is given twice, for the two stats of a grid, not {len(sets)} times")
    try:
        (path_a, values_a), (path_b, values_b) = (parse_sweep(text) for text in sets)
        key_a, key_b = ".".join(path_a), ".".join(path_b)
        if key_a == key_b:
            fail(f"--set names {key_a} twice: a grid steps two different stats")
        cells = len(values_a) * len(values_b)
        if cells > MAX_SWEEP_VALUES:  # as many variants as a one-stat sweep, counted first
            fail(
                f"--set: {len(values_a):,} × {len(values_b):,} values = {cells:,} cells; a grid "
                f"takes at most {MAX_SWEEP_VALUES:,} (as a sweep takes at most {MAX_SWEEP_VALUES:,} "
                "values)"
            )
        _check_size(n, cells)
        base = [o for text in (variant or []) for o in parse_variant(text).overrides]
        variants = [
            Variant(
                f"{key_a}={a},{key_b}={b}",
                (*base, parse_override(f"{key_a}={a}"), parse_override(f"{key_b}={b}")),
            )
            for a in values_a
            for b in values_b
        ]
        keys, values = (key_a, key_b), (values_a, values_b)

        def summarise(result: SimResult) -> dict[str, Any]:
            summary = grid_summary(result, keys, values, side=side, target=target)
            return _named_engine({**summary, **result.extra})

        expect(summarise, _print_grid, as_json=as_json)
        if not as_json:
            _announce(
                definition, variants, from_file, policy, n=n, workers=workers, engine=engine,
                max_rounds=_sampled_rounds(max_rounds), tactics="none", what="this grid",
            )  # fmt: skip
        with _dask_client(dask) as cluster:
            result = _run(
                definition, variants, from_file, policy, n=n, seed=seed, workers=workers,
                dask=cluster, max_rounds=_sampled_rounds(max_rounds), as_json=as_json,
                engine=engine,
            )  # fmt: skip
        summary = summarise(result)
        if engine == "fast":
            from caltrop.sim.across import fast_tactic

            summary["fast_tactic"] = fast_tactic(definition)
    except CaltropError as exc:
        fail(str(exc))
    _emit(summary, as_json=as_json, show=_print_grid, report=report, kind="grid")


def _print_grid(summary: dict[str, Any]) -> None:
    from caltrop.sim.report import contour_text, grid_rows

    console = _console()
    a, b = summary["grid"]["params"]
    console.print(
        f"{summary['encounter']}: grid of {a} × {b}, {summary['n']:,} encounters per cell, "
        f"seed {summary['seed']}, {_tactics_text(summary)}",
        soft_wrap=True,
    )
    header, rows = grid_rows(summary, compact=True)
    table = Table(
        title=f"{summary.get('side', 'pc').upper()} win rate, % (Wilson 95%)",
        title_justify="left",
    )
    for c in header:
        table.add_column(c, justify="right")
    for row in rows:
        table.add_row(*row)
    console.print(table)
    for line in contour_text(summary):
        console.print(line, soft_wrap=True)


def _run(
    definition: EncounterDef,
    variants: list[Variant],
    from_file: Mapping[str, str],
    policy: list[str] | None,
    *,
    n: int,
    seed: int,
    workers: int | None,
    dask: Any,
    max_rounds: int,
    as_json: bool,
    engine: Engine = "reference",
) -> SimResult:
    """Check every override before any work starts, then play all variants with a progress bar
    (on the fast path: ``workers`` numba threads, default numba's; compiled tactical:
    ``workers`` numba threads, else as many worker processes where the reference engine plays
    instead)."""
    from caltrop.sim.runner import resolve_policies, simulate

    if engine == "fast":
        return _run_fast(
            definition,
            variants,
            n=n,
            seed=seed,
            threads=workers,
            max_rounds=max_rounds,
            as_json=as_json,
        )
    policies = resolve_policies(from_file, _policies(policy))
    for v in variants:
        v.apply(definition)
    what = "encounters"
    if engine == "compiled":
        what = _compiled_or_why(definition, variants)
    with _progress(n * len(variants), what, as_json) as advance:
        return simulate(
            definition,
            variants,
            policies,
            n=n,
            seed=seed,
            workers=_workers(workers),
            dask=dask,
            max_rounds=max_rounds,
            progress=advance,
            encounter_name=definition.name,
            engine=engine,
        )


def _compiled_or_why(definition: EncounterDef, variants: list[Variant]) -> str:
    """The progress bar's label of a --fast --policy tactical run; where the compiled kernel
    cannot play an encounter or variant, one line on stderr first says why the reference
    engine plays instead (it is slower: better told before the run than after). The runner
    decides the same way and records it as ``engine_note`` (in --json)."""
    from caltrop.sim.fast.compile import FastPathError
    from caltrop.sim.fast.tactical import compile_variants

    try:
        compile_variants(definition, variants)
    except FastPathError as exc:
        err().print(
            "--fast --policy tactical: played by the reference engine (slower): the compiled "
            f"kernel cannot play it ({exc})",
            soft_wrap=True,
        )
        return "encounters (reference engine)"
    return "encounters (compiled)"


def _refuse_with_fast(*, dask: str | None, engine: Engine, exact: bool) -> None:
    """The options ``--fast`` cannot honour, refused before any work starts. ``--exact`` goes
    with ``--fast --policy tactical``: the compiled kernel makes the Python policy's choices,
    so the exact answer under ``tactical`` is the one its samples estimate."""
    if dask is not None:
        fail("--fast runs in this process on numba threads (--workers); it does not use --dask")
    if exact and engine == "fast":
        fail(
            "--exact solves the reference engine's tactics, not the fast path's; drop --fast "
            "(or add --policy tactical) to compare the sampled win rates with the exact ones"
        )


def _check_compiled_policies(from_file: Mapping[str, str], policy: list[str] | None) -> None:
    """``--fast --policy …`` plays only ``tactical`` on both sides (the compiled kernel);
    other tactics are refused before any work starts (the reference engine plays them)."""
    from caltrop.sim.runner import resolve_policies

    try:
        chosen = resolve_policies(from_file, _policies(policy))
    except CaltropError as exc:
        fail(str(exc))
    if chosen["pc"] != "tactical" or chosen["npc"] != "tactical":
        fail(
            f"--fast --policy plays tactical on both sides (compiled), not pc={chosen['pc']} "
            f"npc={chosen['npc']}: drop --fast to play those on the reference engine, or "
            "--policy to play the fast path's one tactic"
        )


def _run_fast(
    definition: EncounterDef,
    variants: list[Variant],
    *,
    n: int,
    seed: int,
    threads: int | None,
    max_rounds: int,
    as_json: bool,
) -> SimResult:
    """Play all variants on the fast path; an encounter it cannot play fails with its reason."""
    from caltrop.sim.fast import FastPathError
    from caltrop.sim.fast.records import simulate_fast

    try:  # overrides are applied and every variant compiled before the first encounter
        with _progress(n * len(variants), "encounters (fast)", as_json) as advance:
            return simulate_fast(
                definition,
                variants,
                n=n,
                seed=seed,
                threads=threads,
                max_rounds=max_rounds,
                progress=advance,
                encounter_name=definition.name,
            )
    except FastPathError as exc:
        fail(f"{exc} (--fast cannot play it; drop --fast to use the reference engine)")


def _check_report(report: Path | None) -> None:
    """``--report DIR`` names a folder, made if missing: what is there instead (a file, a
    device, a looping link), or a file where a folder above it should be, is refused before the
    run, in words (issue 21: ``--report /dev/null`` said "[Errno 17] File exists")."""
    if report is None:
        return
    there = report  # the nearest path that exists: the report's folder, or one it is made in
    while not os.path.lexists(there) and there.parent != there:
        there = there.parent
    if there.is_dir():
        return
    why = path_problem(there) or "is a file"
    where = "" if there == report else f" ({there} {why})"
    fail(
        f"--report {report}: {why if there == report else 'cannot be made'}{where}; --report "
        "names a folder to write the report in (made if missing)"
    )


def _emit(
    summary: dict[str, Any],
    *,
    as_json: bool,
    show: Callable[[dict[str, Any]], None],
    report: Path | None,
    kind: Literal["sim", "sweep", "grid"],
) -> None:
    """Print the summary (JSON or tables) and write the report directory if asked (matplotlib
    is imported only then)."""
    if as_json:
        print_json(summary)
    else:
        show(summary)
    if report is not None:
        from caltrop.sim.report import write_grid_report, write_sim_report, write_sweep_report

        write = {"sim": write_sim_report, "sweep": write_sweep_report, "grid": write_grid_report}[
            kind
        ]
        try:
            written = write(summary, report)
        except OSError as exc:
            why = exc.strerror or str(exc)
            where = (
                f" ({exc.filename})" if exc.filename and str(exc.filename) != str(report) else ""
            )
            fail(f"cannot write the report to {report}: {why[:1].lower()}{why[1:]}{where}")
        console = Console(stderr=True) if as_json else out()
        console.print(f"report written to {written[-1]}", style="dim", soft_wrap=True)


def _print_sweep(summary: dict[str, Any]) -> None:
    from caltrop.sim.report import against_trend_text, crossing_text, play_table

    console = _console()
    console.print(
        f"{summary['encounter']}: sweep of {summary['param']}, {summary['n']:,} encounters per "
        f"value, seed {summary['seed']}, {_tactics_text(summary)}",
        soft_wrap=True,
    )
    table = Table(title="Win rate (Wilson 95%) per value", title_justify="left")
    for c in ("value", "PC win", "NPC win", "rounds mean", "p90"):
        table.add_column(c, justify="right")
    for p in summary["points"]:
        table.add_row(
            p["value"],
            _iv(p["win_rate"]["pc"]),
            _iv(p["win_rate"]["npc"]),
            f"{p['rounds']['mean']:.2f}",
            f"{p['rounds']['p90']:g}",
        )
    console.print(table)
    if summary.get("against_trend"):
        header, rows = play_table(summary)
        play = Table(title="Play per value (per encounter)", title_justify="left")
        for c in header:
            play.add_column(c, justify="left" if c in ("value", "side") else "right")
        for row in rows:
            play.add_row(*row)
        console.print(play)
        for step in summary["against_trend"]:
            console.print(against_trend_text(summary, step), style="bold yellow", soft_wrap=True)
    if "crossing" in summary:
        console.print(crossing_text(summary["param"], summary["crossing"]), soft_wrap=True)


__all__ = ["sim", "sweep"]
