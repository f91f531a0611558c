"""How hard is this fight? One answer a GM reads at a glance, from the rules themselves (issue 23).

:func:`assess` plays the encounter under ``tactical`` on both sides (the compiled kernel of
its module — :mod:`caltrop.sim.fast.tactical` for Action Load, :mod:`caltrop.sim.fast.
points_tactical` for Action Points — where it can play; the reference engine otherwise, and
:attr:`Sample.engine_note` says so), under ``search`` (the
strong player, :mod:`caltrop.sim.search`) on a smaller sample, and solves it exactly
(:mod:`caltrop.sim.exact`) when its size estimate says it is small. It returns a frozen
:class:`Difficulty`: the PC win probability with its Wilson interval, exact when solved; rounds
(mean and 90th percentile); per creature the chance it goes down and its expected Health left;
damage dealt per side; and a one-word :class:`Band` (:data:`BANDS`, defined in
``docs/difficulty.md``).

**The same numbers as ``caltrop sim``.** A sample of ``n`` encounters with seed ``S`` is
encounters ``0 … n−1`` of ``caltrop sim ENCOUNTER --fast --policy tactical --n n --seed S``
(``--policy search`` for the search sample): encounter *i* is a pure function of the
definition, the policies, ``S`` and *i* (:mod:`caltrop.sim.runner`), whatever the chunks or
threads, and the figures are :func:`caltrop.sim.summary.variant_summary`'s. A fixed default
seed (:data:`DEFAULT_SEED`) makes the same question give the same answer, and two versions of
an encounter (a builder's edits, ``--vary``) paired samples.

**A time budget.** Without ``n`` the samples are as large as fit ``seconds`` (default
:data:`DEFAULT_SECONDS`): the tactical sample plays chunks of encounters in order until
:data:`TACTICAL_SHARE` of the budget has gone (at least :data:`MIN_N`, at most
:data:`BUDGET_MAX_N` of its engine), the exact solver runs if its estimated time fits what is
left, and search plays encounters until the budget ends (left out, saying why, when one is
estimated to take longer than what is left). The answer says how many encounters each sample
holds; ``n``, ``search_n`` and ``exact=True`` ask for more, past the budget.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final, Literal

import numpy as np

from caltrop.core.model import EncounterDef, Side
from caltrop.errors import DifficultyError
from caltrop.sim.exact import ExactResult, StateSpaceTooLargeError, estimate_states, reads_round
from caltrop.sim.overrides import Variant
from caltrop.sim.runner import (
    DEFAULT_MAX_ROUNDS,
    Records,
    Task,
    VariantRun,
    default_workers,
    run_task,
    simulate,
)
from caltrop.sim.stats import Interval, wilson
from caltrop.sim.summary import variant_summary

#: The two tactics a difficulty is measured under (both sides the same).
TACTICAL: Final = "tactical"
SEARCH: Final = "search"
#: ``Sample.engine`` of a sample the compiled tactical kernel played (as ``caltrop sim`` names it).
COMPILED: Final = "compiled-tactical"
REFERENCE: Final = "reference"
Engine = Literal["compiled-tactical", "reference"]

#: The seed of every sample unless one is given: the same question, the same answer.
DEFAULT_SEED: Final = 0
#: Seconds the default answer may take (issue 23: "≤ 2 s on this machine").
DEFAULT_SECONDS: Final = 2.0
#: The tactical sample plays until this share of the budget has gone, per engine; the exact
#: solver and then search share the rest. On the reference engine a search fight costs some
#: hundreds of tactical ones (measured: 190× Orc Bridge, 200–220× the Action Point examples),
#: so search never fits what a budget leaves there, and the tactical sample takes more of it.
#: The Action Point kernel (:mod:`caltrop.sim.fast.points_tactical`) is the compiled engine too,
#: with a budget of its own: some 20 times slower than Action Load's per fight, and slower still
#: while its table of the policy's numbers fills (the first fights of a process).
COMPILED_POINTS: Final = "compiled-tactical-points"
TACTICAL_SHARE: Final[Mapping[str, float]] = {
    COMPILED: 0.6,
    COMPILED_POINTS: 0.7,
    REFERENCE: 0.8,
}
#: The tactical sample within the budget, per engine: at least / at most this many encounters,
#: in chunks of this many (so the default ``n`` is a round number, the same on most runs).
MIN_N: Final[Mapping[str, int]] = {COMPILED: 2_000, COMPILED_POINTS: 50, REFERENCE: 1}
BUDGET_MAX_N: Final[Mapping[str, int]] = {
    COMPILED: 20_000,
    COMPILED_POINTS: 20_000,
    REFERENCE: 2_000,
}
CHUNK: Final[Mapping[str, int]] = {COMPILED: 2_000, COMPILED_POINTS: 50, REFERENCE: 1}
#: A sample within the budget plays its next chunk only if this many times the longest time per
#: encounter of a chunk so far still fits: one search fight, or one Action Point fight on the
#: reference engine, takes up to twice another.
MARGIN: Final = 2.0
#: The search sample within the budget: at most this many encounters.
BUDGET_MAX_SEARCH_N: Final = 1_000
#: The exact solver within the budget: at most this many chance states (its size estimate
#: decides before any solving), and at most this long spent estimating.
BUDGET_MAX_STATES: Final = 20_000
ESTIMATE_SECONDS: Final = 0.2

#: ``progress(stage, done, total)``: ``total`` 0 while a sample's size is the budget's.
Progress = Callable[[str, int, int], None]


# -- the bands ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Band:
    """A one-word difficulty: an encounter is in the first band (easiest first) whose both
    conditions it meets — the PCs win at least ``min_pc_win`` of the time, and some PC goes
    down in at most ``max_any_pc_down`` of the fights."""

    name: str
    min_pc_win: float
    max_any_pc_down: float
    meaning: str


#: The bands, easiest first; the last holds everything (``docs/difficulty.md`` has this table).
BANDS: Final = (
    Band("trivial", 0.98, 0.05, "the PCs all but always win, and almost never does one go down"),
    Band("easy", 0.90, 0.25, "the PCs win nine times in ten or more; a PC goes down now and then"),
    Band("fair", 0.65, 1.0, "the PCs usually win, at a cost"),
    Band("hard", 0.35, 1.0, "a coin toss, give or take: the PCs lose a good share of the time"),
    Band("deadly", 0.0, 1.0, "the PCs lose more often than not"),
)


def band_for(pc_win: float, any_pc_down: float) -> Band:
    """The first of :data:`BANDS` whose conditions hold (boundaries belong to the easier band)."""
    for band in BANDS:
        if pc_win >= band.min_pc_win and any_pc_down <= band.max_any_pc_down:
            return band
    return BANDS[-1]


# -- what a sample measured -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CreatureFigures:
    """One creature over a sample: how often it went down, its Health left on average (0 when
    down: Health below 0 counts as 0, as in ``caltrop sim``'s Health lost), the damage it dealt."""

    id: str
    name: str
    side: str
    health: int
    down: Interval
    health_left: float
    damage_dealt: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "side": self.side,
            "health": self.health,
            "down": self.down.as_dict(),
            "health_left": self.health_left,
            "damage_dealt": self.damage_dealt,
        }


@dataclass(frozen=True, slots=True)
class SideFigures:
    """One side over a sample: damage dealt per encounter and per round (``caltrop sim``'s
    ``damage_per_round``), and creatures of the side down per encounter."""

    damage_dealt: float
    damage_per_round: float
    down: float

    def as_dict(self) -> dict[str, float]:
        return {
            "damage_dealt": self.damage_dealt,
            "damage_per_round": self.damage_per_round,
            "down": self.down,
        }


@dataclass(frozen=True, slots=True)
class Sample:
    """Encounters ``0 … n−1`` of seed ``seed`` with ``policy`` on both sides, as measured."""

    policy: str
    engine: Engine
    n: int
    seed: int
    max_rounds: int
    pc_win: Interval
    npc_win: Interval
    draw: Interval
    any_pc_down: Interval
    rounds_mean: float
    rounds_median: float
    rounds_p90: float
    sides: Mapping[str, SideFigures]
    creatures: tuple[CreatureFigures, ...]
    seconds: float
    engine_note: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "engine": self.engine,
            "engine_note": self.engine_note,
            "n": self.n,
            "seed": self.seed,
            "max_rounds": self.max_rounds,
            "pc_win": self.pc_win.as_dict(),
            "npc_win": self.npc_win.as_dict(),
            "draw": self.draw.as_dict(),
            "any_pc_down": self.any_pc_down.as_dict(),
            "rounds": {
                "mean": self.rounds_mean,
                "median": self.rounds_median,
                "p90": self.rounds_p90,
            },
            "sides": {side: figures.as_dict() for side, figures in self.sides.items()},
            "creatures": [c.as_dict() for c in self.creatures],
            "seconds": round(self.seconds, 3),
        }


def measure(
    run: VariantRun,
    *,
    policy: str,
    engine: Engine,
    seed: int,
    max_rounds: int,
    seconds: float = 0.0,
    engine_note: str | None = None,
) -> Sample:
    """The figures of one run's records: those ``caltrop sim`` reports are taken from
    :func:`~caltrop.sim.summary.variant_summary` itself (the same numbers), the rest —
    the chance that any PC goes down, Health left — from the same records."""
    summary = variant_summary(run)
    records = run.records
    creatures = run.definition.participants
    pcs = np.array([c.side is Side.PC for c in creatures], dtype=bool)
    n = records.n
    any_down = float(records.down[:, pcs].any(axis=1).sum()) if pcs.any() else 0.0
    per_creature = []
    for row, c in zip(summary["creatures"], creatures, strict=True):
        per_creature.append(
            CreatureFigures(
                id=c.id,
                name=c.name,
                side=c.side.value,
                health=c.health,
                down=wilson(row["down_rate"] * n, n),
                health_left=c.health - row["health_lost"],
                damage_dealt=row["damage_dealt"],
            )
        )
    sides = {
        side: SideFigures(
            damage_dealt=sum(c.damage_dealt for c in per_creature if c.side == side),
            damage_per_round=summary["damage_per_round"][side],
            down=summary["down_per_encounter"][side],
        )
        for side in (Side.PC.value, Side.NPC.value)
    }
    rates = summary["win_rate"]
    return Sample(
        policy=policy,
        engine=engine,
        n=n,
        seed=seed,
        max_rounds=max_rounds,
        pc_win=_interval(rates["pc"]),
        npc_win=_interval(rates["npc"]),
        draw=_interval(summary["draw_rate"]),
        any_pc_down=wilson(any_down, n),
        rounds_mean=summary["rounds"]["mean"],
        rounds_median=summary["rounds"]["median"],
        rounds_p90=summary["rounds"]["p90"],
        sides=sides,
        creatures=tuple(per_creature),
        seconds=seconds,
        engine_note=engine_note,
    )


def _interval(d: Mapping[str, float]) -> Interval:
    return Interval(d["p"], d["lo"], d["hi"])


# -- the exact answer -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExactFigures:
    """The exact solver's answer under ``tactical`` (no round cap: a fight goes on until it
    ends, where the samples call a fight still going after ``max_rounds`` rounds a draw)."""

    pc_win: Fraction
    npc_win: Fraction
    draw: Fraction
    rounds_mean: Fraction
    states: int
    seconds: float
    max_rounds: int | None

    @classmethod
    def of(cls, result: ExactResult) -> ExactFigures:
        return cls(
            result.pc,
            result.npc,
            result.draw,
            result.rounds,
            result.states,
            result.seconds,
            result.max_rounds,
        )

    def as_dict(self) -> dict[str, Any]:
        def exact(value: Fraction) -> dict[str, Any]:
            return {"p": float(value), "exact": f"{value.numerator}/{value.denominator}"}

        return {
            "pc_win": exact(self.pc_win),
            "npc_win": exact(self.npc_win),
            "draw": exact(self.draw),
            "rounds_mean": float(self.rounds_mean),
            "states": self.states,
            "seconds": round(self.seconds, 3),
            "max_rounds": self.max_rounds,
        }


# -- the answer -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Verdict:
    """The band and what it was read from: the PC win probability (exact when solved, else
    the tactical sample's) and the chance that any PC goes down (the tactical sample's); and
    the bands at the ends of their intervals (``hardest``: the lowest win with the most PCs
    down; ``easiest``: the other way), which differ from ``band`` when a sample is too small
    to tell."""

    band: Band
    pc_win: float
    pc_win_source: Literal["exact", "tactical"]
    any_pc_down: float
    hardest: Band
    easiest: Band

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.band.name,
            "meaning": self.band.meaning,
            "pc_win": self.pc_win,
            "pc_win_source": self.pc_win_source,
            "any_pc_down": self.any_pc_down,
            "within_intervals": {"hardest": self.hardest.name, "easiest": self.easiest.name},
        }


@dataclass(frozen=True, slots=True)
class Difficulty:
    """The whole answer of :func:`assess`; ``*_note`` say why a part is missing, in words."""

    encounter: str
    economy: str
    seed: int
    budget: float
    tactical: Sample
    verdict: Verdict
    search: Sample | None
    search_note: str | None
    exact: ExactFigures | None
    exact_note: str | None
    seconds: float

    @property
    def band(self) -> str:
        return self.verdict.band.name

    @property
    def pc_win(self) -> float:
        """The PC win probability the band was read from (exact where solved)."""
        return self.verdict.pc_win

    def as_dict(self) -> dict[str, Any]:
        return {
            "encounter": self.encounter,
            "economy": self.economy,
            "seed": self.seed,
            "budget_seconds": self.budget,
            "seconds": round(self.seconds, 3),
            "band": self.verdict.as_dict(),
            "tactical": self.tactical.as_dict(),
            "exact": None if self.exact is None else self.exact.as_dict(),
            "exact_note": self.exact_note,
            "search": None if self.search is None else self.search.as_dict(),
            "search_note": self.search_note,
        }


def verdict(tactical: Sample, exact: ExactFigures | None) -> Verdict:
    """The band of an encounter from its tactical sample and, where solved, its exact answer."""
    down = tactical.any_pc_down
    if exact is not None:
        win = float(exact.pc_win)
        win_lo = win_hi = win
        source: Literal["exact", "tactical"] = "exact"
    else:
        win, win_lo, win_hi = tactical.pc_win.estimate, tactical.pc_win.lo, tactical.pc_win.hi
        source = "tactical"
    return Verdict(
        band=band_for(win, down.estimate),
        pc_win=win,
        pc_win_source=source,
        any_pc_down=down.estimate,
        hardest=band_for(win_lo, down.hi),
        easiest=band_for(win_hi, down.lo),
    )


# -- playing a sample -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Player:
    """Plays encounters ``start … stop−1`` of one question (a policy on both sides, a seed)."""

    definition: EncounterDef
    policy: str
    engine: Engine
    seed: int
    max_rounds: int
    threads: int | None
    compiled: Any = None
    note: str | None = None
    #: the key of its budget (TACTICAL_SHARE, MIN_N, …): its engine's, or COMPILED_POINTS
    budget: str = ""

    @property
    def budget_key(self) -> str:
        return self.budget or self.engine

    def play(self, start: int, stop: int) -> Records:
        if self.compiled is not None:
            from caltrop.sim.fast.tactical import play_tactical

            return play_tactical(
                self.compiled,
                stop - start,
                self.seed,
                first=start,
                threads=self.threads,
                max_rounds=self.max_rounds,
            )
        policies = ((Side.NPC.value, self.policy), (Side.PC.value, self.policy))
        task = Task(0, self.definition, policies, self.seed, start, stop, self.max_rounds)
        return run_task(task)[2]


def _player(
    definition: EncounterDef, policy: str, *, seed: int, max_rounds: int, threads: int | None
) -> _Player:
    """``tactical`` in the compiled kernel where it can play the encounter; else (and for
    ``search``, whose playouts the kernel runs inside) the reference engine, with a note."""
    if policy == TACTICAL:
        from caltrop.sim.fast.compile import FastPathError
        from caltrop.sim.fast.tactical import compile_any

        try:
            compiled = compile_any(definition)
        except FastPathError as exc:
            note = (
                "tactical played by the reference engine (slower): the compiled kernel cannot "
                f"play it ({exc})"
            )
            return _Player(definition, policy, REFERENCE, seed, max_rounds, threads, note=note)
        from caltrop.sim.fast.points_tactical import CompiledPointsTactical

        budget = COMPILED_POINTS if isinstance(compiled, CompiledPointsTactical) else COMPILED
        return _Player(
            definition, policy, COMPILED, seed, max_rounds, threads, compiled, budget=budget
        )
    return _Player(definition, policy, REFERENCE, seed, max_rounds, threads)


def _fixed(
    player: _Player, n: int, *, workers: int | None, progress: Progress | None, stage: str
) -> Records:
    """``n`` encounters through :func:`caltrop.sim.runner.simulate` itself (the call ``caltrop
    sim`` makes), on ``workers`` numba threads or processes. The runner compiles the encounter
    as :func:`_player` did, so it plays on the same engine."""
    done = 0

    def advance(k: int) -> None:
        nonlocal done
        done += k
        if progress is not None:
            progress(stage, done, n)

    result = simulate(
        player.definition,
        [Variant("baseline")],
        {Side.PC.value: player.policy, Side.NPC.value: player.policy},
        n=n,
        seed=player.seed,
        workers=default_workers() if workers is None else workers,
        max_rounds=player.max_rounds,
        progress=advance,
        engine="compiled" if player.policy == TACTICAL else "reference",
    )
    return result.runs[0].records


def _until(
    player: _Player,
    deadline: float,
    *,
    least: int,
    most: int,
    chunk: int,
    progress: Progress | None,
    stage: str,
) -> Records:
    """Encounters 0, 1, 2 … in chunks of ``chunk`` while the next chunk is expected to end by
    ``deadline`` — :data:`MARGIN` times the longest time per encounter of a chunk so far (one
    search fight may take twice another) —, at least ``least``, at most ``most``."""
    parts: list[Records] = []
    done = 0
    per = 0.0
    while done < most:
        count = min(chunk, most - done)
        if done >= least and time.monotonic() + MARGIN * per * count > deadline:
            break
        began = time.monotonic()
        parts.append(player.play(done, done + count))
        per = max(per, (time.monotonic() - began) / count)
        done += count
        if progress is not None:
            progress(stage, done, 0)
    return Records.concat(parts)


def _warm(player: _Player) -> None:
    """Load the compiled kernel (from numba's cache, or compile it) before anything is timed."""
    if player.compiled is not None:
        # Action Points: also the first numbers of the kernel's table (its first fights)
        player.play(0, 16 if player.budget_key == COMPILED_POINTS else 1)


# -- the entry point ------------------------------------------------------------------------------


def assess(
    definition: EncounterDef,
    *,
    seed: int = DEFAULT_SEED,
    n: int | None = None,
    search_n: int | None = None,
    exact: bool | None = None,
    max_states: int = BUDGET_MAX_STATES,
    seconds: float = DEFAULT_SECONDS,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    workers: int | None = None,
    progress: Progress | None = None,
    encounter_name: str | None = None,
) -> Difficulty:
    """How hard ``definition`` is for its PCs (module docstring).

    ``n`` / ``search_n``: the samples' sizes (None: as many as fit ``seconds``; ``search_n=0``:
    no search). ``exact``: None solves it when the estimate fits the cap ``max_states`` and the
    time left; True solves it within ``max_states`` whatever the time (a refusal is a note);
    False never. ``workers``: numba threads for the compiled kernel (default numba's), worker
    processes for the reference engine when a sample's size is given (default one per CPU, as
    ``caltrop sim``; within the budget it plays in this process).
    """
    _check(seed=seed, n=n, search_n=search_n, seconds=seconds, max_rounds=max_rounds)
    began = time.monotonic()
    deadline = began + seconds
    name = encounter_name or definition.name

    tactical = _player(definition, TACTICAL, seed=seed, max_rounds=max_rounds, threads=workers)
    _warm(tactical)
    stage_began = time.monotonic()
    if n is not None:
        records = _fixed(tactical, n, workers=workers, progress=progress, stage="tactical")
    else:
        records = _until(
            tactical,
            began + TACTICAL_SHARE[tactical.budget_key] * seconds,
            least=MIN_N[tactical.budget_key],
            most=BUDGET_MAX_N[tactical.budget_key],
            chunk=CHUNK[tactical.budget_key],
            progress=progress,
            stage="tactical",
        )
    tactical_sample = measure(
        VariantRun(Variant("baseline"), definition, records),
        policy=TACTICAL,
        engine=tactical.engine,
        seed=seed,
        max_rounds=max_rounds,
        seconds=time.monotonic() - stage_began,
        engine_note=tactical.note,
    )

    exact_figures, exact_note = _exact(
        definition, exact, max_states=max_states, deadline=deadline, progress=progress
    )
    search_sample, search_note = _search(
        definition,
        search_n,
        seed=seed,
        max_rounds=max_rounds,
        deadline=deadline,
        workers=workers,
        progress=progress,
        tactical=tactical_sample,
    )
    return Difficulty(
        encounter=name,
        economy=definition.ruleset.economy.value,
        seed=seed,
        budget=seconds,
        tactical=tactical_sample,
        verdict=verdict(tactical_sample, exact_figures),
        search=search_sample,
        search_note=search_note,
        exact=exact_figures,
        exact_note=exact_note,
        seconds=time.monotonic() - began,
    )


def _check(
    *, seed: int, n: int | None, search_n: int | None, seconds: float, max_rounds: int
) -> None:
    if seed < 0:
        raise DifficultyError(f"the seed must be 0 or more, not {seed}")
    if n is not None and n < 1:
        raise DifficultyError(f"the tactical sample needs at least 1 encounter, not {n}")
    if search_n is not None and search_n < 0:
        raise DifficultyError(f"the search sample is 0 encounters or more, not {search_n}")
    if not seconds > 0:
        raise DifficultyError(f"the time budget is more than 0 seconds, not {seconds}")
    if max_rounds < 1:
        raise DifficultyError(f"a fight lasts at least 1 round, not {max_rounds}")


def _exact(
    definition: EncounterDef,
    wanted: bool | None,
    *,
    max_states: int,
    deadline: float,
    progress: Progress | None,
) -> tuple[ExactFigures | None, str | None]:
    """The exact answer under ``tactical``, or None and why not. Within the budget it is tried
    only when the size estimate is at most ``max_states`` and its time (the estimate's own time
    per state found, times the states) fits what is left."""
    from caltrop.sim.exact import solve, solve_with
    from caltrop.sim.registry import make_policy

    if wanted is False:
        return None, "not asked for"
    policies = {Side.PC.value: TACTICAL, Side.NPC.value: TACTICAL}

    found = [0]

    def states(k: int) -> None:
        found[0] += k
        if progress is not None:
            progress("exact", found[0], max_states)

    if wanted:
        try:
            return ExactFigures.of(
                solve(definition, policies, max_states=max_states, progress=states)
            ), None
        except StateSpaceTooLargeError as exc:
            return None, str(exc)
    left = deadline - time.monotonic()
    if left <= 0:
        return None, "no time left in the budget (ask for it: --exact)"
    rng = np.random.default_rng(0)  # never drawn from: tactical is deterministic
    chosen = {side: make_policy(TACTICAL, rng) for side in policies}
    cap = DEFAULT_MAX_ROUNDS if reads_round(definition, policies) else None
    began = time.monotonic()
    estimate = estimate_states(
        definition,
        chosen,
        limit=max_states,
        seconds=min(ESTIMATE_SECONDS, left / 4),
        max_rounds=cap,
    )
    per_state = (time.monotonic() - began) / max(1, estimate.unhurt)
    about = "about" if estimate.complete else "at least"
    if estimate.states > max_states:
        return None, (
            f"too large to solve: {about} {estimate.states:,} chance states "
            f"({estimate.unhurt:,} before anyone is hurt × {estimate.combinations:,} Health "
            f"combinations), more than {max_states:,}"
        )
    forecast = per_state * estimate.states
    left = deadline - time.monotonic()
    if forecast > left:
        return None, (
            f"not solved within the budget: {about} {estimate.states:,} chance states, about "
            f"{forecast:.1f} s to solve, {max(0.0, left):.1f} s left (ask for it: --exact)"
        )
    result = solve_with(definition, chosen, max_states=max_states, max_rounds=cap, progress=states)
    return ExactFigures.of(result), None


def _search(
    definition: EncounterDef,
    wanted: int | None,
    *,
    seed: int,
    max_rounds: int,
    deadline: float,
    workers: int | None,
    progress: Progress | None,
    tactical: Sample,
) -> tuple[Sample | None, str | None]:
    """The search sample, or None and why not. Within the budget: left out when one encounter
    is estimated (:func:`caltrop.sim.across.search_seconds`) to take longer than what is left —
    or when even estimating would (it plays two tactical fights in the engine) — else
    encounters in order until the budget ends."""
    if wanted == 0:
        return None, "not asked for"
    player = _player(definition, SEARCH, seed=seed, max_rounds=max_rounds, threads=workers)
    began = time.monotonic()
    if wanted is not None:
        records = _fixed(player, wanted, workers=workers, progress=progress, stage="search")
    else:
        left = deadline - time.monotonic()
        if tactical.engine == REFERENCE:
            per_tactical = tactical.seconds / tactical.n
            if 2 * per_tactical > left:
                return None, (
                    f"left out: no time left to estimate it ({_seconds(max(0.0, left))} left of "
                    f"the budget, a tactical fight takes {_seconds(per_tactical)} in the engine); "
                    "ask for it: --search-n N"
                )
        from caltrop.sim.across import search_seconds

        each = search_seconds(definition)
        left = deadline - time.monotonic()
        if each > left:
            return None, (
                f"left out: about {_seconds(each)} an encounter, {_seconds(max(0.0, left))} "
                "left of the budget; ask for it: --search-n N"
            )
        began = time.monotonic()
        records = _until(
            player,
            deadline,
            least=1,
            most=BUDGET_MAX_SEARCH_N,
            chunk=1,
            progress=progress,
            stage="search",
        )
    sample = measure(
        VariantRun(Variant("baseline"), definition, records),
        policy=SEARCH,
        engine=REFERENCE,
        seed=seed,
        max_rounds=max_rounds,
        seconds=time.monotonic() - began,
    )
    return sample, None


def _seconds(x: float) -> str:
    """``0.02 s``, ``1.4 s``, ``74 s``: two significant figures, never rounded to nothing."""
    return f"{x:.2f} s" if x < 1 else f"{x:.1f} s" if x < 10 else f"{x:,.0f} s"


__all__ = [
    "BANDS",
    "COMPILED",
    "DEFAULT_SECONDS",
    "DEFAULT_SEED",
    "REFERENCE",
    "Band",
    "CreatureFigures",
    "Difficulty",
    "DifficultyError",
    "ExactFigures",
    "Sample",
    "SideFigures",
    "Verdict",
    "assess",
    "band_for",
    "measure",
    "verdict",
]
