"""The compiled Action Point tactical policy checked against the Python one:
:func:`replay_points_tactical` replays a kernel encounter in the engine with
:class:`~caltrop.sim.tactics.TacticalPolicy`, command by command and die by die."""

from __future__ import annotations

from dataclasses import dataclass

from caltrop.core.commands import Act, Command, EndEncounter, EndTurn, Pass, RollTotal
from caltrop.encounter import CHANCE, TERMINAL, Encounter, RollKind
from caltrop.errors import PointsTacticalMismatchError as PointsTacticalMismatchError
from caltrop.sim.fast.points_tactical import kernel as k
from caltrop.sim.fast.points_tactical.compile import CompiledPointsTactical
from caltrop.sim.fast.points_tactical.simulate import PointsTacticalTrace, trace_points_tactical
from caltrop.sim.fast.results import DEFAULT_MAX_ROUNDS
from caltrop.sim.runner import _points
from caltrop.sim.tactics import TacticalPolicy

#: the engine's stage of each traced roll
_STAGES = {
    k.R_INITIATIVE: "initiative",
    k.R_HIT: "hit",
    k.R_DAMAGE: "damage",
    k.R_DEFENCE: "defence",
}
_VERBS = {
    k.V_EQUIP: "equip",
    k.V_MOVE: "move",
    k.V_AIM: "aim",
    k.V_ATTACK: "attack",
    k.V_SHOOT: "shoot",
    k.V_HOLD: "hold",
    k.V_BLOCK: "block",
    k.V_DODGE: "dodge",
    k.V_COVER: "cover",
    k.V_ASSIST: "assist",
}


@dataclass(frozen=True, slots=True)
class PointsTacticalReplay:
    """One kernel encounter replayed in the engine: both agreed on every step."""

    steps: int
    rolls: int
    reactions: int
    winner: int
    rounds: int
    #: the engine's command of every decision, in order (what the kernel chose, checked)
    commands: tuple[Command, ...]
    #: per creature, counted in the engine as the runner counts them: AP and RP paid, damage
    #: its attacks did through the defences, its reactions (defences and assists)
    cost: tuple[int, ...]
    dealt: tuple[int, ...]
    reacted: tuple[int, ...]


def command_of(compiled: CompiledPointsTactical, row: list[int]) -> Command:
    """The engine command of a kernel decision row."""
    creatures = compiled.definition.participants
    actor = creatures[row[k.X_ACTOR]]
    kind = row[k.X_KIND]
    if kind == k.K_PASS:
        return Pass(actor.id)
    if kind == k.K_END:
        return EndTurn(actor.id)
    verb = row[k.X_VERB]
    target = row[k.X_TARGET]
    if verb == k.V_EQUIP:
        return Act(actor.id, "equip", (actor.weapons[row[k.X_ARG]].name,))
    if verb == k.V_MOVE:
        return Act(actor.id, "move", to=(row[k.X_KX] / 100, row[k.X_KY] / 100))
    if verb == k.V_AIM:
        return Act(actor.id, "aim", (creatures[target].id,))
    if verb in (k.V_ATTACK, k.V_SHOOT):
        option = compiled.options_py[row[k.X_ARG]]
        return Act(actor.id, _VERBS[verb], (creatures[target].id,), option.names)
    return Act(actor.id, _VERBS[verb])


def replay_points_tactical(
    compiled: CompiledPointsTactical,
    seed: int,
    index: int,
    *,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
) -> PointsTacticalReplay:
    """Replay kernel encounter ``index`` of ``seed`` in the engine with the Python tactical
    policy, resolving each roll with the kernel's total (``RollTotal``). Every decision must be
    the kernel's (the same command from the same creature, passes and turn ends included),
    every roll the kernel's (the same roller, stage, other party and d4 pool, the same hit or
    damage through the defence), and the winner and rounds the same; raises
    :class:`PointsTacticalMismatchError` at the first difference."""
    trace = trace_points_tactical(compiled, seed, index, max_rounds=max_rounds)
    encounter = Encounter.begin(compiled.definition, 0, record=False)
    return follow(compiled, encounter, trace, f"encounter {index}", max_rounds=max_rounds)


def follow(
    compiled: CompiledPointsTactical,
    encounter: Encounter,
    trace: PointsTacticalTrace,
    label: str,
    *,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
) -> PointsTacticalReplay:
    """Play ``encounter`` on in the engine with the Python tactical policy along a kernel
    ``trace`` from the same state (a whole encounter's, or one resumed from a snapshot, its
    landed roll applied): every decision and roll checked as :func:`replay_points_tactical`
    says; raises :class:`PointsTacticalMismatchError` at the first difference."""
    policy = TacticalPolicy()
    ids = compiled.ids
    rows = [list(map(int, r)) for r in trace.rows]
    commands: list[Command] = []
    step = rolls = reactions = 0
    size = len(ids)
    cost, dealt, reacted = [0] * size, [0] * size, [0] * size
    while True:
        who = encounter.current()
        if who == TERMINAL:
            break
        if encounter.round > max_rounds:
            encounter.apply(EndEncounter())
            break
        if step >= len(rows):
            raise PointsTacticalMismatchError(f"{label}: the engine goes on after the kernel")
        row = rows[step]
        where = f"{label}, step {step + 1} (round {encounter.round})"
        if who == CHANCE:
            top = encounter.pending[-1]
            if row[k.X_KIND] != k.K_ROLL:
                raise PointsTacticalMismatchError(
                    f"{where}: the engine rolls, the kernel decides {command_of(compiled, row)}"
                )
            stage = "initiative" if top.kind is RollKind.INITIATIVE else str(top.stage)
            other = -1
            if stage in ("hit", "damage"):
                other = int(top.context["target"])
            elif stage == "defence":
                other = int(top.context["attacker"])
            expr = encounter.pending_expression()
            node = expr.terms[0].node
            pool = getattr(node, "count", 0) if stage != "damage" else -1
            got = (ids[top.roller], stage, other, pool)
            want = (ids[row[k.X_ACTOR]], _STAGES[row[k.X_VERB]], row[k.X_TARGET], row[k.X_D4])
            if got != want:
                raise PointsTacticalMismatchError(f"{where}: engine roll {got}, kernel {want}")
            outcome = encounter.apply(RollTotal(row[k.X_TOTAL]))
            if stage == "defence" and outcome is not None and outcome.damage:
                dealt[other] += outcome.damage
            if stage == "hit":
                seen = int(bool(outcome is not None and outcome.success))
                if seen != row[k.X_ARG]:
                    raise PointsTacticalMismatchError(f"{where}: hit {seen}, kernel {row[k.X_ARG]}")
            if stage == "defence":
                seen = -1 if outcome is None or outcome.damage is None else outcome.damage
                if seen != row[k.X_ARG]:
                    raise PointsTacticalMismatchError(
                        f"{where}: {seen} damage through the defence, kernel {row[k.X_ARG]}"
                    )
            rolls += 1
        else:
            command = policy.choose(encounter, who)
            want_command = None if row[k.X_KIND] == k.K_ROLL else command_of(compiled, row)
            if command != want_command or (row[k.X_ROUND] != encounter.round):
                raise PointsTacticalMismatchError(
                    f"{where}: engine {command}, kernel {want_command} (round {row[k.X_ROUND]})"
                )
            j = encounter.index(getattr(command, "actor", who))
            if encounter.pending and isinstance(command, Act):
                reactions += 1
                reacted[j] += 1
            commands.append(command)
            before = _points(encounter, j)
            encounter.apply(command)
            if not isinstance(command, EndTurn):
                cost[j] += max(0, before - _points(encounter, j))
        step += 1
    winner = -1 if encounter.winner is None else (0 if encounter.winner.value == "pc" else 1)
    got_end = (winner, min(encounter.round, max_rounds), step)
    want_end = (trace.winner, trace.rounds, len(rows))
    if got_end != want_end:
        raise PointsTacticalMismatchError(
            f"{label}: engine (winner, rounds, steps) {got_end}, kernel {want_end}"
        )
    return PointsTacticalReplay(
        step,
        rolls,
        reactions,
        trace.winner,
        trace.rounds,
        tuple(commands),
        tuple(cost),
        tuple(dealt),
        tuple(reacted),
    )
