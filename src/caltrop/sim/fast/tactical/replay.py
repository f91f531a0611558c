"""The compiled tactical policy checked against the Python one: :func:`replay_tactical` replays
a kernel encounter in the engine with :class:`~caltrop.sim.tactics.TacticalPolicy`, command by
command and die by die."""

from __future__ import annotations

from dataclasses import dataclass

from caltrop.core.commands import Act, Command, EndEncounter, EndTurn, Pass, RollTotal
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.errors import TacticalMismatchError as TacticalMismatchError
from caltrop.sim.fast.results import DEFAULT_MAX_ROUNDS
from caltrop.sim.fast.tactical.compile import CompiledTactical
from caltrop.sim.fast.tactical.simulate import trace_tactical
from caltrop.sim.fast.tactical.tables import Knobs, TacticalStep, TacticalTrace
from caltrop.sim.tactics import TacticalPolicy


@dataclass(frozen=True, slots=True)
class TacticalReplay:
    """One kernel encounter replayed in the engine: both agreed on every step."""

    steps: int
    rolls: int
    reactions: int
    winner: int
    rounds: int


def _command(compiled: CompiledTactical, step: TacticalStep) -> Command:
    """The engine command of a kernel decision."""
    creatures = compiled.definition.participants
    actor = creatures[step.actor]
    if step.kind == "pass":
        return Pass(actor.id)
    if step.kind == "end":
        return EndTurn(actor.id)
    action = actor.actions[step.action]
    targets = () if step.target < 0 else (creatures[step.target].id,)
    weapons = () if step.weapon < 0 else (actor.weapons[step.weapon].name,)
    return Act(actor.id, action.name, targets, weapons)


def replay_tactical(
    compiled: CompiledTactical,
    seed: int,
    index: int,
    *,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    knobs: Knobs | None = None,
) -> TacticalReplay:
    """Replay kernel encounter ``index`` of ``seed`` in the engine with the Python tactical
    policy (the same ``knobs``), resolving each roll with the kernel's total (``RollTotal``).
    Every decision must be the kernel's — the same command from the same creature, passes and
    turn ends included — every roll the kernel's (same roller, target and d4 pool), and the
    winner and rounds the same. Raises :class:`TacticalMismatchError` at the first difference."""
    knobs = knobs or Knobs()
    trace = trace_tactical(compiled, seed, index, max_rounds=max_rounds, knobs=knobs)
    encounter = Encounter.begin(compiled.definition, 0, record=False)
    return follow(
        compiled, encounter, trace, f"encounter {index}", max_rounds=max_rounds, knobs=knobs
    )


def follow(
    compiled: CompiledTactical,
    encounter: Encounter,
    trace: TacticalTrace,
    label: str,
    *,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    knobs: Knobs | None = None,
) -> TacticalReplay:
    """Play ``encounter`` on in the engine with the Python tactical policy, each roll resolved
    with the kernel's total, checking every step against ``trace`` (the module docs); raises
    :class:`TacticalMismatchError` naming ``label`` and the step at the first difference."""
    knobs = knobs or Knobs()
    policy = TacticalPolicy(min_gain=knobs.min_gain, discount=knobs.discount, reserve=knobs.reserve)
    ids = compiled.ids
    k = 0
    rolls = reactions = 0
    rows = trace.steps
    while True:
        who = encounter.current()
        if who == TERMINAL:
            break
        if encounter.round > max_rounds:
            encounter.apply(EndEncounter())
            break
        if k >= len(rows):
            raise TacticalMismatchError(f"{label}: the engine goes on after the kernel")
        row = rows[k]
        if who == CHANCE:
            top = encounter.pending[-1]
            pool = str(encounter.pending_expression().terms[0].node)
            got = ("roll", ids[top.roller], top.target, pool, encounter.round)
            want = (row.kind, ids[row.actor], row.target, f"{row.d4}d4", row.round)
            if got != want:
                raise TacticalMismatchError(f"{label}, step {k + 1}: engine {got}, kernel {want}")
            encounter.apply(RollTotal(row.total))
            rolls += 1
        else:
            command = policy.choose(encounter, who)
            want_command = _command(compiled, row) if row.kind != "roll" else None
            if command != want_command or row.round != encounter.round:
                raise TacticalMismatchError(
                    f"{label}, step {k + 1} (round {encounter.round}): engine "
                    f"{command}, kernel {want_command} (round {row.round})"
                )
            if encounter.pending and isinstance(command, Act):
                reactions += 1
            encounter.apply(command)
        k += 1
    winner = -1 if encounter.winner is None else (0 if encounter.winner.value == "pc" else 1)
    got_end = (winner, min(encounter.round, max_rounds), k)
    want_end = (trace.winner, trace.rounds, len(rows))
    if got_end != want_end:
        raise TacticalMismatchError(
            f"{label}: engine (winner, rounds, steps) {got_end}, kernel {want_end}"
        )
    return TacticalReplay(k, rolls, reactions, trace.winner, trace.rounds)
