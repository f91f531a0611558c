"""What a batch of played encounters produced: the winner codes, one :class:`Records` row per
encounter, each variant's run and the whole :class:`SimResult`, and the check of a run's
options. The reference runner (:mod:`caltrop.sim.runner`) and the compiled kernels
(:mod:`caltrop.sim.fast`) both return these, so they live below both: the runner dispatches to
the compiled tactical kernel, which imports them from here, not from the runner (issue 24 item
6: no import circle ``runner`` → ``fast.tactical`` → ``runner``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from caltrop.core.model import EncounterDef, Side
from caltrop.errors import SimulationError
from caltrop.sim.overrides import Variant

#: Winner codes in :attr:`Records.winner`.
DRAW: Final = 0
PC_WINS: Final = 1
NPC_WINS: Final = 2
SIDES: Final = (Side.PC.value, Side.NPC.value)


#: Rounds after which an encounter is stopped and counted as a draw (a fight nobody can win).
DEFAULT_MAX_ROUNDS: Final = 100


@dataclass(slots=True)
class Records:
    """What happened in a batch of encounters: one row per encounter, one column per creature.

    ``cost`` is the Cost of every action a creature took (its Load gained under Action Load;
    points paid under another economy), counted when the action resolves; ``reactions`` counts
    the actions it took on other creatures' rolls, ``team`` the team actions among them
    (``helps`` giving advantage to an ally, ``hinders`` disadvantage to a foe); ``dealt`` the
    damage its attacks did.
    """

    winner: npt.NDArray[np.int8]
    timeout: npt.NDArray[np.bool_]
    rounds: npt.NDArray[np.int32]
    steps: npt.NDArray[np.int32]
    cost: npt.NDArray[np.int32]
    dealt: npt.NDArray[np.int32]
    reactions: npt.NDArray[np.int32]
    helps: npt.NDArray[np.int32]
    hinders: npt.NDArray[np.int32]
    down: npt.NDArray[np.bool_]
    health: npt.NDArray[np.int32]

    @property
    def n(self) -> int:
        return int(self.winner.size)

    @property
    def team(self) -> npt.NDArray[np.int32]:
        return self.helps + self.hinders

    @classmethod
    def empty(cls, m: int, k: int) -> Records:
        def table() -> npt.NDArray[np.int32]:
            return np.zeros((m, k), dtype=np.int32)

        return cls(
            np.zeros(m, dtype=np.int8),
            np.zeros(m, dtype=np.bool_),
            np.zeros(m, dtype=np.int32),
            np.zeros(m, dtype=np.int32),
            table(),
            table(),
            table(),
            table(),
            table(),
            np.zeros((m, k), dtype=np.bool_),
            table(),
        )

    @classmethod
    def concat(cls, parts: Sequence[Records]) -> Records:
        names = [f for f in cls.__dataclass_fields__]
        return cls(*(np.concatenate([getattr(p, name) for p in parts]) for name in names))

    def wins(self, side: str) -> npt.NDArray[np.float64]:
        """1.0 where ``side`` won, else 0.0 (a draw is a win for neither)."""
        code = PC_WINS if side == Side.PC.value else NPC_WINS
        wins: npt.NDArray[np.float64] = (self.winner == code).astype(np.float64)
        return wins


@dataclass(frozen=True, slots=True)
class VariantRun:
    """The results of one variant: its name, its overrides, the definition played, the rows."""

    variant: Variant
    definition: EncounterDef
    records: Records

    @property
    def name(self) -> str:
        return self.variant.name


@dataclass(frozen=True, slots=True)
class SimResult:
    """A run: every variant's records, and how they were made."""

    encounter: str
    seed: int
    n: int
    policies: dict[str, str]
    runs: tuple[VariantRun, ...]
    max_rounds: int = DEFAULT_MAX_ROUNDS
    extra: dict[str, Any] = field(default_factory=dict)


def check_run(n: int, seed: int, variants: Sequence[Variant]) -> list[Variant]:
    """The variants of a run (``baseline`` if none), once its options are checked: at least one
    encounter, a seed of 0 or more, variant names that differ."""
    if n < 1:
        raise SimulationError("--n must be at least 1")
    if seed < 0:
        raise SimulationError("--seed must be 0 or more")
    checked = list(variants) or [Variant("baseline")]
    names = [v.name for v in checked]
    if len(set(names)) != len(names):
        raise SimulationError(f"variant names must differ: {', '.join(names)}")
    return checked


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run (issue 21 item 7): a :class:`KeyboardInterrupt` that carries what
    had finished — ``partial``, the run cut to the encounters every variant has played (the
    first ``partial.n`` of each, so the variants stay paired), or None when none had — and
    ``done`` / ``total``, the encounters played and asked for over all variants. The workers
    are stopped before it is raised."""

    def __init__(self, partial: SimResult | None, done: int, total: int) -> None:
        super().__init__(f"interrupted after {done:,} of {total:,} encounters")
        self.partial = partial
        self.done = done
        self.total = total


def interruption(
    base: SimResult,
    variants: Sequence[Variant],
    definitions: Sequence[EncounterDef],
    parts: Sequence[Mapping[int, Records] | Sequence[Records]],
) -> RunInterrupted:
    """The :class:`RunInterrupted` of a run stopped by Ctrl-C: ``base`` names the run (its
    ``n`` the encounters asked for per variant, its runs ignored), ``parts`` each variant's
    finished chunks — by first encounter, or a list in encounter order (the fast paths)."""
    by_start: list[Mapping[int, Records]] = []
    for p in parts:
        if isinstance(p, Mapping):
            by_start.append(p)
        else:
            starts, at = {}, 0
            for r in p:
                starts[at] = r
                at += r.n
            by_start.append(starts)
    done = sum(r.n for p in by_start for r in p.values())
    finished = _finished(variants, definitions, by_start)
    partial = None
    if finished is not None:
        k, runs = finished
        partial = SimResult(
            base.encounter, base.seed, k, base.policies, runs, base.max_rounds, dict(base.extra)
        )
    return RunInterrupted(partial, done, base.n * len(variants))


def _finished(
    variants: Sequence[Variant],
    definitions: Sequence[EncounterDef],
    parts: Sequence[Mapping[int, Records]],
) -> tuple[int, tuple[VariantRun, ...]] | None:
    """The encounters 0 … k − 1 that every variant has finished (chunks finish out of order:
    only an unbroken run of chunks from encounter 0 counts), as runs cut to that k; None if
    k is 0. The variants stay paired: encounter i of each used the same streams."""
    prefixes: list[list[Records]] = []
    for p in parts:
        chunks, at = [], 0
        while at in p:
            chunks.append(p[at])
            at += p[at].n
        prefixes.append(chunks)
    k = min(sum(r.n for r in c) for c in prefixes)
    if k == 0:
        return None
    runs = []
    for variant, d, chunks in zip(variants, definitions, prefixes, strict=True):
        whole = Records.concat(chunks)
        cut = Records(*(getattr(whole, f)[:k] for f in Records.__dataclass_fields__))
        runs.append(VariantRun(variant, d, cut))
    return k, tuple(runs)
