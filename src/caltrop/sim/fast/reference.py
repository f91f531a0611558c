"""The fast tactic as a plain :class:`~caltrop.sim.policies.Policy` that drives the real engine.

:class:`FastTacticPolicy` makes exactly the decisions the numba kernel makes (the tactic is
stated in :mod:`caltrop.sim.fast`), but reads everything — gates, pools, Health, the pending
roll's dice — from :class:`~caltrop.encounter.Encounter` and its economy, and every command it
returns is validated by the engine. :func:`play_reference` plays encounters with it, and
:func:`replay_fast_dice` replays one fast-path encounter in the engine on the kernel's own dice,
checking every decision, roll by roll.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from caltrop.core.commands import Act, Command, EndEncounter, EndTurn, Pass, RollDice, RollTotal
from caltrop.core.model import ActionDef, ActionKind, CreatureDef, EncounterDef, LoadReset, Side
from caltrop.core.pool import Revision, net_advantage
from caltrop.dice.ast import Const, Dice, Div, Expr, Group, Node
from caltrop.encounter import CHANCE, TERMINAL, Encounter, RollKind
from caltrop.errors import ReplayMismatchError as ReplayMismatchError
from caltrop.errors import SimulationError
from caltrop.sim.fast.compile import (
    AttackOption,
    CompiledEncounter,
    attack_options,
    bonus_terms,
    hinder_actions,
    with_options,
)
from caltrop.sim.fast.results import DEFAULT_MAX_ROUNDS

#: Rounds after which an encounter is stopped undecided (a draw), in both paths.


def expr_max(expr: Expr) -> int:
    """The largest total ``expr`` can roll."""
    return sum(_node_max(t.node, t.sign) for t in expr.terms)


def _node_max(node: Node, sign: int) -> int:
    match node:
        case Dice(count=count, sides=sides):
            return count * sides if sign > 0 else -count
        case Const(value=value):
            return sign * value
        case Group(expr=inner):
            return sign * (expr_max(inner) if sign > 0 else _expr_min(inner))
        case Div(operand=operand, divisor=divisor):
            top = _node_max(operand, 1) if sign > 0 else _node_min(operand, 1)
            return sign * -(-top // divisor)
    raise TypeError(node)  # pragma: no cover


def _expr_min(expr: Expr) -> int:
    return sum(_node_min(t.node, t.sign) for t in expr.terms)


def _node_min(node: Node, sign: int) -> int:
    match node:
        case Dice(count=count, sides=sides):
            return count if sign > 0 else -count * sides
        case Const(value=value):
            return sign * value
        case Group(expr=inner):
            return sign * (_expr_min(inner) if sign > 0 else expr_max(inner))
        case Div(operand=operand, divisor=divisor):
            low = _node_min(operand, 1) if sign > 0 else _node_max(operand, 1)
            return sign * -(-low // divisor)
    raise TypeError(node)  # pragma: no cover


@dataclass(frozen=True, slots=True)
class _Kit:
    options: tuple[tuple[AttackOption, int], ...]  # with twice the mean of the extra dice
    hinders: tuple[ActionDef, ...]


class FastTacticPolicy:
    """The fast path's tactic (see :mod:`caltrop.sim.fast`), one decision at a time.

    On its turn: attack with the option of the largest expected total among those the gate
    allows, the standing enemy with the least Health (ties: first in turn order); end the turn
    when no attack is allowed. In a reaction window on an enemy's attack that could down its
    target (the pending dice's largest total − the target's Evasion ≥ its Health): take the
    first listed hinder-type team action whose gate allows it and whose source key is not yet
    on the roll, at most one per roll; otherwise pass.
    """

    def __init__(self) -> None:
        self._kits: dict[str, _Kit] = {}

    def _kit(self, creature: CreatureDef) -> _Kit:
        kit = self._kits.get(creature.id)
        if kit is None:
            options = tuple(
                (o, sum(_mean2(*t) for t in bonus_terms(o, creature)))
                for o in attack_options(creature, 0)
            )
            kit = _Kit(options, tuple(hinder_actions(creature)))
            self._kits[creature.id] = kit
        return kit

    def choose(self, encounter: Encounter, actor: str) -> Command:
        i = encounter.index(actor)
        if encounter.pending:
            return self._react(encounter, i)
        return self._attack(encounter, i)

    def _attack(self, encounter: Encounter, i: int) -> Command:
        creature = encounter.creatures[i]
        economy = encounter.economy
        resources = encounter.resources[i]
        net = net_advantage(encounter.boons[i])
        best: AttackOption | None = None
        best_value = 0
        for option, mean2 in self._kit(creature).options:
            if not economy.gate(creature, resources, option.action, on_turn=True):
                continue
            value = 5 * economy.pool(creature, resources, option.action, net) + mean2
            if best is None or value > best_value:
                best, best_value = option, value
        if best is None:
            return EndTurn(creature.id)
        target = min(
            (
                j
                for j, other in enumerate(encounter.creatures)
                if not encounter.down[j] and other.side is not creature.side
            ),
            key=lambda j: (encounter.health[j], j),
        )
        weapons = (best.weapon.name,) if best.weapon is not None else ()
        return Act(creature.id, best.action.name, (encounter.creatures[target].id,), weapons)

    def _react(self, encounter: Encounter, i: int) -> Command:
        creature = encounter.creatures[i]
        top = encounter.pending[-1]
        if (
            top.kind is not RollKind.ACTION
            or top.action is None
            or top.action.kind is not ActionKind.ATTACK
            or top.target is None
            or encounter.creatures[top.roller].side is creature.side
            or any(helper == i for helper, _ in top.helpers)
        ):
            return Pass(creature.id)
        target = top.target
        most = expr_max(encounter.pending_expression())
        if encounter.health[target] > most - encounter.creatures[target].evasion:
            return Pass(creature.id)
        applied = {(a.kind, a.source) for a in top.advantages}
        resources = encounter.resources[i]
        for action in self._kit(creature).hinders:
            if ("dis", action.source_key) in applied:
                continue
            if encounter.economy.gate(creature, resources, action, on_turn=False):
                return Act(creature.id, action.name)
        return Pass(creature.id)


def _mean2(count: int, sides: int, sign: int) -> int:
    return sign * (2 * count if sides == 0 else count * (sides + 1))


@dataclass(frozen=True, slots=True)
class ReferenceResult:
    """Encounters played by the engine: ``winner`` (0 PC, 1 NPC, −1 draw) and ``rounds``."""

    winner: npt.NDArray[np.int8]
    rounds: npt.NDArray[np.int32]
    decisions: int


def encounter_seed(seed: int, index: int) -> int:
    """The engine seed of reference encounter ``index`` of a run seeded ``seed``."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1, np.uint64)[0])


def play_one_reference(
    encounter: Encounter,
    policy: FastTacticPolicy,
    *,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
) -> int:
    """Play ``encounter`` to its end (a draw after ``max_rounds``); returns the decisions."""
    steps = 0
    for command in _commands(encounter, policy, max_rounds):
        encounter.apply(command)
        steps += 1
    return steps


#: Decisions after which a play-out is taken to be stuck (no round limit can stop a turn that
#: never ends); the fast path refuses what could cause it (attacks of Cost 0).
MAX_STEPS = 1_000_000


def _commands(encounter: Encounter, policy: FastTacticPolicy, max_rounds: int) -> Iterator[Command]:
    for _ in range(MAX_STEPS):
        who = encounter.current()
        if who == TERMINAL:
            return
        if encounter.round > max_rounds:
            yield EndEncounter()
            return
        yield RollDice() if who == CHANCE else policy.choose(encounter, who)
    raise SimulationError(f"the encounter did not end within {MAX_STEPS} decisions")


def _winner(encounter: Encounter) -> int:
    if encounter.winner is Side.PC:
        return 0
    if encounter.winner is Side.NPC:
        return 1
    return -1


def play_reference(
    definition: EncounterDef,
    n: int,
    seed: int,
    *,
    load_reset: LoadReset | str | None = None,
    revision: Revision | str | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    first: int = 0,
    workers: int = 1,
) -> ReferenceResult:
    """Play encounters ``first .. first + n − 1`` in the engine (``record=False``) with
    :class:`FastTacticPolicy` on every creature; encounter ``i`` is seeded
    :func:`encounter_seed` ``(seed, i)``, so the result does not depend on ``workers`` (worker
    processes, started with ``spawn``)."""
    definition = with_options(definition, load_reset=load_reset, revision=revision)
    if workers > 1 and n > 1:
        return play_reference_batch(
            [(definition, n)], seed, max_rounds=max_rounds, first=first, workers=workers
        )[0]
    policy = FastTacticPolicy()
    winner = np.empty(n, np.int8)
    rounds = np.empty(n, np.int32)
    decisions = 0
    for k in range(n):
        encounter = Encounter.begin(definition, encounter_seed(seed, first + k), record=False)
        decisions += play_one_reference(encounter, policy, max_rounds=max_rounds)
        winner[k] = _winner(encounter)
        rounds[k] = min(encounter.round, max_rounds)
    return ReferenceResult(winner, rounds, decisions)


def _play_chunk(args: tuple[EncounterDef, int, int, int, int]) -> ReferenceResult:
    definition, n, seed, max_rounds, first = args
    return play_reference(definition, n, seed, max_rounds=max_rounds, first=first)


def play_reference_batch(
    runs: Sequence[tuple[EncounterDef, int]],
    seed: int,
    *,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    first: int = 0,
    workers: int = 2,
) -> list[ReferenceResult]:
    """:func:`play_reference` ``(definition, n, seed)`` for each ``(definition, n)`` of ``runs``
    (options already applied, e.g. by :func:`~caltrop.sim.fast.compile.with_options`), shared
    among ``workers`` processes started with ``spawn``; the same results as one by one."""
    size = max(1, -(-sum(n for _, n in runs) // (6 * max(1, workers))))
    chunks: list[tuple[EncounterDef, int, int, int, int]] = []
    owners: list[int] = []
    for r, (definition, n) in enumerate(runs):
        for k in range(0, n, size):
            chunks.append((definition, min(size, n - k), seed, max_rounds, first + k))
            owners.append(r)
    if workers <= 1:
        parts = [_play_chunk(c) for c in chunks]
    else:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            parts = list(pool.map(_play_chunk, chunks))
    out: list[ReferenceResult] = []
    for r in range(len(runs)):
        mine = [p for p, o in zip(parts, owners, strict=True) if o == r]
        if not mine:
            out.append(ReferenceResult(np.empty(0, np.int8), np.empty(0, np.int32), 0))
            continue
        out.append(
            ReferenceResult(
                np.concatenate([p.winner for p in mine]),
                np.concatenate([p.rounds for p in mine]),
                sum(p.decisions for p in mine),
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class Replay:
    """One fast-path encounter replayed in the engine: both agreed on every roll."""

    rolls: int
    hinders: int
    winner: int
    rounds: int


def replay_fast_dice(
    compiled: CompiledEncounter,
    seed: int,
    index: int,
    *,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
) -> Replay:
    """Replay fast-path encounter ``index`` of ``seed`` in the engine, on the kernel's totals.

    The kernel plays the encounter and records each attack roll (round, roller, attack option,
    target, who hindered it, d4 pool, total). The engine then plays it with
    :class:`FastTacticPolicy`, resolving each chance point with the recorded total
    (``RollTotal``); every pending roll must be the recorded one — same round, roller, action,
    weapon, target, hinderers and d4 pool — with the same damage, and the winner and the rounds
    must match. Raises :class:`ReplayMismatchError` at the first difference.
    """
    from caltrop.sim.fast.simulate import trace

    result = trace(compiled, seed, index, max_rounds=max_rounds)
    encounter = Encounter.begin(compiled.definition, 0, record=False)
    policy = FastTacticPolicy()
    ids = compiled.ids
    k = 0
    hinders = 0
    for command in _commands(encounter, policy, max_rounds):
        if isinstance(command, RollDice):
            top = encounter.pending[-1]
            if k >= len(result.rows):
                raise ReplayMismatchError(
                    f"encounter {index}: the engine rolls more than the kernel"
                )
            row = result.rows[k]
            option = compiled.options[row.option]
            pool = encounter.pending_expression().terms[0].node
            got = (
                encounter.round,
                ids[top.roller],
                top.action.name if top.action else None,
                top.weapon.name if top.weapon else None,
                ids[top.target] if top.target is not None else None,
                sorted(ids[h] for h, _ in top.helpers),
                str(pool),
            )
            want = (
                row.round,
                ids[row.roller],
                option.action.name,
                option.weapon.name if option.weapon else None,
                ids[row.target],
                sorted(ids[h] for h in row.helpers),
                f"{row.d4}d4",
            )
            if got != want:
                raise ReplayMismatchError(
                    f"encounter {index}, roll {k + 1}: engine {got}, kernel {want}"
                )
            hinders += len(top.helpers)
            outcome = encounter.apply(RollTotal(row.total))
            if outcome is None or outcome.damage != row.damage:
                raise ReplayMismatchError(
                    f"encounter {index}, roll {k + 1}: damage {outcome and outcome.damage}, "
                    f"kernel {row.damage}"
                )
            k += 1
            continue
        encounter.apply(command)
    got_end = (_winner(encounter), min(encounter.round, max_rounds), k)
    want_end = (result.winner, result.rounds, len(result.rows))
    if got_end != want_end:
        raise ReplayMismatchError(
            f"encounter {index}: engine (winner, rounds, rolls) {got_end}, kernel {want_end}"
        )
    return Replay(k, hinders, result.winner, result.rounds)
