"""Replay an Action Point fast-path encounter in the engine, roll by roll.

:func:`replay_points` traces encounter ``index`` of a seed in the kernel
(:func:`~caltrop.sim.fast.points.simulate.trace_points`), then plays the same encounter in the
engine (:class:`~caltrop.encounter.Encounter`) with the ``attack-weakest`` policy
(:class:`~caltrop.sim.points_tactics.AttackWeakestPointsPolicy`) deciding for every creature,
resolving each chance point with the kernel's total (``RollTotal``). Every roll the engine makes
must be the kernel's — same round, roller, stage, target (or attacker) and dice — with the same
result (hit or miss, damage through the defence), and the winner, the rounds and the number of
rolls must match; the first difference raises
:class:`~caltrop.sim.fast.reference.ReplayMismatchError`.
"""

from __future__ import annotations

from dataclasses import dataclass

from caltrop.core.commands import Act, EndTurn, RollTotal
from caltrop.encounter import CHANCE, TERMINAL, Encounter, RollKind
from caltrop.errors import IllegalActionError, SimulationError
from caltrop.sim.fast.points.compile import CompiledPoints, compile_points
from caltrop.sim.fast.points.simulate import trace_points
from caltrop.sim.fast.reference import MAX_STEPS, ReplayMismatchError, _winner
from caltrop.sim.fast.results import DEFAULT_MAX_ROUNDS
from caltrop.sim.points_tactics import AttackWeakestPointsPolicy
from caltrop.sim.runner import _points


@dataclass(frozen=True, slots=True)
class PointsReplay:
    """One kernel encounter replayed in the engine: both agreed on every roll."""

    rolls: int
    decisions: int
    winner: int
    rounds: int
    #: per creature, counted in the engine: damage its attacks did after the defence, Blocks
    #: (reactions) it took, AP and RP its actions paid, Health at the end
    dealt: tuple[int, ...]
    blocks: tuple[int, ...]
    spent: tuple[int, ...]
    health: tuple[int, ...]


def replay_points(
    compiled: CompiledPoints,
    seed: int,
    index: int,
    *,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
) -> PointsReplay:
    """Replay kernel encounter ``index`` of ``seed`` in the engine on the kernel's totals."""
    if not isinstance(compiled, CompiledPoints):
        compiled = compile_points(compiled)
    result = trace_points(compiled, seed, index, max_rounds=max_rounds)
    encounter = Encounter.begin(compiled.definition, 0, record=False)
    policy = AttackWeakestPointsPolicy()
    ids = compiled.ids
    k = 0
    decisions = 0
    size = len(ids)
    dealt, blocks, spent = [0] * size, [0] * size, [0] * size
    for _ in range(MAX_STEPS):
        who = encounter.current()
        if who == TERMINAL or encounter.round > max_rounds:
            break
        if who != CHANCE:
            j = encounter.index(who)
            reacting = bool(encounter.pending)
            before = _points(encounter, j)
            command = policy.choose(encounter, who)
            encounter.apply(command)
            if not isinstance(command, EndTurn):
                # what the action paid (the runner's records also count, at an EndTurn, the
                # AP lost beyond the RP the next turn sets: not points spent)
                spent[j] += max(0, before - _points(encounter, j))
            if reacting and isinstance(command, Act):
                blocks[j] += 1
            decisions += 1
            continue
        top = encounter.pending[-1]
        if k >= len(result.rolls):
            raise ReplayMismatchError(f"encounter {index}: the engine rolls more than the kernel")
        row = result.rolls[k]
        if top.kind is RollKind.INITIATIVE:
            stage, other = "initiative", -1
        else:
            stage = str(top.stage)
            key = "attacker" if stage == "defence" else "target"
            other = int(top.context[key])
        text = str(encounter.pending_expression())
        got = (encounter.round, ids[top.roller], stage, _id(ids, other), text)
        want = (row.round, ids[row.roller], row.stage, _id(ids, row.other), row.expression)
        if got != want:
            raise ReplayMismatchError(
                f"encounter {index}, roll {k + 1}: engine {got}, kernel {want}"
            )
        try:
            outcome = encounter.apply(RollTotal(row.total))
        except IllegalActionError as exc:
            raise ReplayMismatchError(f"encounter {index}, roll {k + 1}: {exc}") from exc
        if stage == "defence" and outcome is not None and outcome.damage:
            dealt[other] += outcome.damage
        if stage == "hit":
            seen = int(bool(outcome is not None and outcome.success))
        elif stage == "defence":
            seen = -1 if outcome is None or outcome.damage is None else outcome.damage
        else:
            seen = row.total
        if seen != row.result:
            raise ReplayMismatchError(
                f"encounter {index}, roll {k + 1} ({stage}): engine {seen}, kernel {row.result}"
            )
        k += 1
    else:
        raise SimulationError(f"the encounter did not end within {MAX_STEPS} decisions")
    got_end = (_winner(encounter), min(encounter.round, max_rounds), k)
    want_end = (result.winner, result.rounds, len(result.rolls))
    if got_end != want_end:
        raise ReplayMismatchError(
            f"encounter {index}: engine (winner, rounds, rolls) {got_end}, kernel {want_end}"
        )
    return PointsReplay(
        k,
        decisions,
        result.winner,
        result.rounds,
        tuple(dealt),
        tuple(blocks),
        tuple(spent),
        tuple(encounter.health),
    )


def _id(ids: tuple[str, ...], i: int) -> str | None:
    return ids[i] if i >= 0 else None
