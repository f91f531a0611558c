"""The batch runner: thousands of encounters per variant, on paired random streams.

**Paired seeds.** Encounter *i* of a run with seed *S* takes its dice from
``SeedSequence([S, i, 0])`` and gives each side's policy its own RNG from
``SeedSequence([S, i, 1, side])`` — the same in every variant. So variant differences are measured
on paired runs (common random numbers), and the results do not depend on how encounters are
split into chunks or on how many workers run them: the outcome of encounter *i* is a pure
function of (definition, policies, S, i).

**Execution.** The encounters of each variant are cut into chunks (:class:`Task`); chunks run in
this process (``workers=1``), in local worker processes (:class:`~concurrent.futures.
ProcessPoolExecutor`, the default), or on a Dask cluster (``dask="tcp://scheduler:8786"``, the
optional ``caltrop[dask]`` extra). Every chunk returns compact numpy arrays
(:class:`Records`), which are put back in encounter order.
"""

from __future__ import annotations

import math
import multiprocessing
import multiprocessing.context
import os
import signal
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from caltrop.core.commands import Act, EndTurn, RollDice
from caltrop.core.model import ActionDef, ActionKind, Economy, EncounterDef, Side
from caltrop.encounter import CHANCE, TERMINAL, Encounter, RollKind
from caltrop.errors import SimulationError as SimulationError
from caltrop.sim.overrides import Variant
from caltrop.sim.policies import Policy
from caltrop.sim.registry import make_policy, policy_entry
from caltrop.sim.results import DEFAULT_MAX_ROUNDS as DEFAULT_MAX_ROUNDS
from caltrop.sim.results import DRAW as DRAW
from caltrop.sim.results import NPC_WINS as NPC_WINS
from caltrop.sim.results import PC_WINS as PC_WINS
from caltrop.sim.results import SIDES as SIDES
from caltrop.sim.results import Records as Records
from caltrop.sim.results import RunInterrupted as RunInterrupted
from caltrop.sim.results import SimResult as SimResult
from caltrop.sim.results import VariantRun as VariantRun
from caltrop.sim.results import check_run as check_run
from caltrop.sim.results import interruption


def engine_stream(seed: int, i: int) -> int:
    """The engine's seed for encounter ``i`` (its dice)."""
    return int(np.random.SeedSequence([seed, i, 0]).generate_state(1, np.uint64)[0])


def encounter_streams(seed: int, i: int) -> tuple[int, np.random.Generator, np.random.Generator]:
    """The random streams of encounter ``i``: the engine's seed, then the PC and NPC policy RNGs."""
    engine = engine_stream(seed, i)
    pc = np.random.default_rng(np.random.SeedSequence([seed, i, 1, 0]))
    npc = np.random.default_rng(np.random.SeedSequence([seed, i, 1, 1]))
    return engine, pc, npc


def _points(encounter: Encounter, j: int) -> int:
    """AP + RP + floating RP of creature ``j`` in an Action Point encounter."""
    res = encounter.resources[j].as_dict()
    return int(res["ap"]) + int(res["rp"]) + int(res["floating_rp"])


def _actions_by_name(definition: EncounterDef) -> list[dict[str, ActionDef]]:
    """Each creature's actions by name (the first of a name, as ``CreatureDef.action``)."""
    known = _ACTIONS.get(id(definition))
    if known is None or known[0] is not definition:
        table = [{a.name: a for a in reversed(c.actions)} for c in definition.participants]
        _ACTIONS.clear()  # one definition at a time: a task plays one
        known = _ACTIONS[id(definition)] = (definition, table)
    return known[1]


_ACTIONS: dict[int, tuple[EncounterDef, list[dict[str, ActionDef]]]] = {}


def play_recorded(
    definition: EncounterDef,
    policies: Mapping[str, Policy],
    engine_seed: int,
    out: Records,
    row: int,
    *,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
) -> None:
    """Play one encounter to its end (logs off) and write its row of ``out``.

    The counters are kept in plain lists while the encounter runs and written to ``out`` once
    at the end (a numpy element update costs more than the engine's step it counts)."""
    encounter = Encounter.begin(definition, engine_seed, record=False)
    creatures = encounter.creatures
    k = len(creatures)
    by_id = {c.id: j for j, c in enumerate(creatures)}
    policy_of = {c.id: policies[c.side.value] for c in creatures}
    actions = _actions_by_name(definition)
    points = encounter.definition.ruleset.economy is Economy.ACTION_POINTS
    cost, dealt = [0] * k, [0] * k
    reactions, helps, hinders = [0] * k, [0] * k, [0] * k
    steps = 0
    timeout = False
    current, apply, pending = encounter.current, encounter.apply, encounter.pending
    roll_dice = RollDice()
    while True:
        who = current()
        if who == TERMINAL:
            break
        if encounter.round > max_rounds:
            timeout = True
            break
        if who == CHANCE:
            top = encounter.pending[-1]
            outcome = apply(roll_dice)
            if outcome is not None:
                if top.kind is RollKind.ACTION and top.action is not None:
                    cost[top.roller] += top.action.cost
                    if outcome.damage:
                        dealt[top.roller] += outcome.damage
                elif top.kind is RollKind.STAGE and outcome.damage:
                    dealt[int(top.context["attacker"])] += outcome.damage  # seed 004: attacker's
        else:
            command = policy_of[who].choose(encounter, who)
            pending = encounter.pending
            reacting = bool(pending)
            # whose command it is: under R32 `off_turn_actions: any` the side deciding now may
            # have an ally act off its turn, and the ally pays
            j = by_id.get(getattr(command, "actor", who), by_id[who])
            if points and type(command) is not EndTurn:
                before = _points(encounter, j)
                apply(command)
                cost[j] += max(0, before - _points(encounter, j))  # AP + RP spent
            else:  # (AP left at the end of a turn are lost, not spent: R31)
                apply(command)
            if type(command) is Act:
                action = actions[j].get(command.action)  # None: an economy's own action
                if action is not None and action.kind in (ActionKind.TEAM, ActionKind.EFFECT):
                    cost[j] += action.cost  # paid at once (no roll to resolve)
                if reacting:
                    reactions[j] += 1
                    if (
                        action is not None
                        and action.kind is ActionKind.TEAM
                        and action.grant is not None
                    ):
                        if action.grant.kind == "adv":
                            helps[j] += 1
                        else:
                            hinders[j] += 1
        steps += 1
    if encounter.winner is Side.PC:
        out.winner[row] = PC_WINS
    elif encounter.winner is Side.NPC:
        out.winner[row] = NPC_WINS
    out.timeout[row] = timeout
    # a draw at the cap lasted ``max_rounds`` rounds (the next had only just begun)
    out.rounds[row] = min(encounter.round, max_rounds)
    out.steps[row] = steps
    out.cost[row] = cost
    out.dealt[row] = dealt
    out.reactions[row] = reactions
    out.helps[row] = helps
    out.hinders[row] = hinders
    out.down[row] = encounter.down
    out.health[row] = encounter.health


@dataclass(frozen=True, slots=True)
class Task:
    """A chunk of work: encounters ``start`` … ``stop − 1`` of one variant."""

    variant: int
    definition: EncounterDef
    policies: tuple[tuple[str, str], ...]
    seed: int
    start: int
    stop: int
    max_rounds: int = DEFAULT_MAX_ROUNDS


def run_task(task: Task) -> tuple[int, int, Records]:
    """Run one chunk (in any process or on any Dask worker): ``(variant, start, records)``."""
    names = dict(task.policies)
    records = Records.empty(task.stop - task.start, len(task.definition.participants))
    # A deterministic policy never draws from its RNG (the same state always gets the same
    # choice): it gets one unused generator instead of its own stream, which would cost a
    # SeedSequence per encounter. A random policy's stream is ``encounter_streams``'s.
    random_sides = [s for s in SIDES if not policy_entry(names[s]).deterministic]
    unused = np.random.default_rng(0)
    for row, i in enumerate(range(task.start, task.stop)):
        if random_sides:
            engine_seed, pc_rng, npc_rng = encounter_streams(task.seed, i)
            rngs = {Side.PC.value: pc_rng, Side.NPC.value: npc_rng}
        else:
            engine_seed, rngs = engine_stream(task.seed, i), {}
        policies = {side: make_policy(names[side], rngs.get(side, unused)) for side in SIDES}
        play_recorded(
            task.definition, policies, engine_seed, records, row, max_rounds=task.max_rounds
        )
    return task.variant, task.start, records


# -- a whole run ----------------------------------------------------------------------------------


def resolve_policies(
    from_file: Mapping[str, str], given: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Each side's policy name: the given one, else the encounter file's, else ``tactical``.
    Unknown names fail here, before any work starts."""
    out: dict[str, str] = {}
    for side in SIDES:
        name = (given or {}).get(side) or from_file.get(side) or "tactical"
        out[side] = policy_entry(name).name  # aliases ("greedy") by their canonical name
    return out


def default_workers() -> int:
    return max(1, os.cpu_count() or 1)


def plan_tasks(
    definitions: Sequence[EncounterDef],
    policies: Mapping[str, str],
    *,
    n: int,
    seed: int,
    chunk: int,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
) -> list[Task]:
    """Chunks of ``chunk`` encounters for every variant, interleaved so that every variant
    advances together (a progress bar then shows them all moving)."""
    pol = tuple(sorted(policies.items()))
    tasks: list[Task] = []
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        for v, definition in enumerate(definitions):
            tasks.append(Task(v, definition, pol, seed, start, stop, max_rounds))
    return tasks


def chunk_size(n: int, variants: int, workers: int) -> int:
    """About eight chunks per worker, each of 20 to 500 encounters."""
    per = math.ceil(n * variants / max(1, workers * 8))
    return max(1, min(n, max(20, min(500, per))))


def _execute(tasks: Sequence[Task], workers: int, dask: Any) -> Iterator[tuple[int, int, Records]]:
    if dask is not None:
        yield from _execute_dask(tasks, dask)
        return
    if workers <= 1:
        for task in tasks:
            yield run_task(task)
        return
    pool = ProcessPoolExecutor(
        max_workers=workers, mp_context=_process_context(), initializer=_ignore_interrupts
    )
    try:
        futures: list[Future[tuple[int, int, Records]]] = [
            pool.submit(run_task, task) for task in tasks
        ]
        for future in as_completed(futures):
            yield future.result()
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown()


def _ignore_interrupts() -> None:
    """A worker leaves Ctrl-C to the main process (issue 21 item 7): the terminal sends SIGINT
    to the whole process group, and a worker that died of it mid-chunk broke the pool, whose
    shutdown then waited on the chunks still queued. The main process stops the workers."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a pool at once: queued chunks cancelled, running workers terminated (a chunk can
    take minutes) and reaped, so nothing is left running when the run is interrupted."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=5)
        if process.is_alive():
            process.kill()
            process.join(timeout=5)


def _process_context() -> multiprocessing.context.BaseContext:
    """Workers start from a clean process, never a fork of this one (which may hold threads:
    a progress bar, a Dask client): ``forkserver`` where the platform has it, else ``spawn``."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["caltrop.sim.runner"])
        return ctx
    return multiprocessing.get_context("spawn")


def _execute_dask(tasks: Sequence[Task], dask: Any) -> Iterator[tuple[int, int, Records]]:
    """Run the chunks on a Dask cluster: ``dask`` is a scheduler address or a ``Client``."""
    try:
        from distributed import Client
        from distributed import as_completed as dask_completed
    except ImportError:  # pragma: no cover - the extra is in the dev dependencies
        raise SimulationError(
            "--dask needs the optional extra: pip install 'caltrop[dask]'"
        ) from None
    own = not isinstance(dask, Client)
    client = Client(dask) if own else dask  # type: ignore[no-untyped-call]
    try:
        futures = client.map(run_task, list(tasks), pure=False)
        for future in dask_completed(futures):  # type: ignore[no-untyped-call]
            yield future.result()
    finally:
        if own:
            client.close()


def simulate(
    definition: EncounterDef,
    variants: Sequence[Variant],
    policies: Mapping[str, str],
    *,
    n: int,
    seed: int,
    workers: int = 1,
    dask: Any = None,
    chunk: int | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    progress: Callable[[int], None] | None = None,
    encounter_name: str | None = None,
    engine: str = "reference",
) -> SimResult:
    """Play ``n`` encounters of every variant of ``definition`` on paired seeds.

    ``progress(k)`` is called as chunks finish with the number of encounters just done.

    ``engine="compiled"`` plays ``tactical`` against ``tactical`` with the compiled kernel
    (:mod:`caltrop.sim.fast.tactical`: the same choices, some 50 times faster) in this
    process on ``workers`` numba threads, when every variant can be compiled; otherwise —
    other policies, ``dask``, or an encounter the kernel cannot play — it plays here as
    ``engine="reference"`` does, and the result's ``extra["engine_note"]`` says why in words.
    The compiled kernel rolls its own paired streams: its figures match the reference
    engine's in distribution (tested), not roll for roll.
    """
    variants = check_run(n, seed, variants)
    if engine not in ENGINES:
        raise SimulationError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    definitions = [v.apply(definition) for v in variants]
    policies = resolve_policies(policies)
    note = None
    if engine == "compiled":
        compiled, note = _compiled_tactical(definition, variants, policies, dask)
        if compiled is not None:
            return _simulate_compiled(
                definition,
                variants,
                compiled,
                n=n,
                seed=seed,
                workers=workers,
                max_rounds=max_rounds,
                progress=progress,
                encounter_name=encounter_name,
            )
    size = chunk or chunk_size(n, len(variants), 1 if dask is None and workers <= 1 else workers)
    tasks = plan_tasks(definitions, policies, n=n, seed=seed, chunk=size, max_rounds=max_rounds)
    parts: list[dict[int, Records]] = [{} for _ in variants]
    extra: dict[str, Any] = {} if note is None else {"engine_note": note}
    name = encounter_name or definition.name
    try:
        for v, start, records in _execute(tasks, workers, dask):
            parts[v][start] = records
            if progress is not None:
                progress(records.n)
    except KeyboardInterrupt:
        base = SimResult(name, seed, n, dict(policies), (), max_rounds, extra)
        raise interruption(base, variants, definitions, parts) from None
    runs = tuple(
        VariantRun(variant, d, Records.concat([p[s] for s in sorted(p)]))
        for variant, d, p in zip(variants, definitions, parts, strict=True)
    )
    return SimResult(name, seed, n, dict(policies), runs, max_rounds, extra)


#: What ``simulate(engine=…)`` accepts.
ENGINES: Final = ("reference", "compiled")


def _compiled_tactical(
    definition: EncounterDef,
    variants: Sequence[Variant],
    policies: Mapping[str, str],
    dask: Any,
) -> tuple[list[Any] | None, str | None]:
    """The variants compiled for the tactical kernel, or None and why they are played by the
    reference engine instead."""
    if any(policies[side] != "tactical" for side in SIDES):
        named = ", ".join(f"{side}: {policies[side]}" for side in SIDES)
        return None, (
            f"played by the reference engine: the compiled kernel plays tactical on both "
            f"sides, not {named}"
        )
    if dask is not None:
        return None, "played by the reference engine: the compiled kernel does not run on Dask"
    from caltrop.sim.fast.compile import FastPathError
    from caltrop.sim.fast.tactical import compile_variants

    try:
        return list(compile_variants(definition, variants)), None
    except FastPathError as exc:
        return None, f"played by the reference engine: the compiled kernel cannot play it ({exc})"


def _simulate_compiled(
    definition: EncounterDef,
    variants: Sequence[Variant],
    compiled: list[Any],
    *,
    n: int,
    seed: int,
    workers: int,
    max_rounds: int,
    progress: Callable[[int], None] | None,
    encounter_name: str | None,
) -> SimResult:
    from caltrop.sim.fast.tactical import simulate_tactical

    return simulate_tactical(
        definition,
        variants,
        n=n,
        seed=seed,
        threads=max(1, workers),
        max_rounds=max_rounds,
        progress=progress,
        encounter_name=encounter_name,
        compiled=compiled,
    )
