"""A simple greedy driver for Action Point encounters (seed 004), to show the example encounters
play to the end: attack when adjacent, shoot within close range, otherwise move toward the
nearest enemy (a creature with a ranged weapon in hand stops at its close range), else shoot at
far range, else end the turn. In a defence window the defender blocks (or dodges); everyone
else passes."""

from __future__ import annotations

import math
from dataclasses import dataclass

from caltrop.core.model import EncounterDef, WeaponKind
from caltrop.economy.points.state import PointsState, points, stat
from caltrop.encounter import CHANCE, TERMINAL, Act, Command, Encounter, EndTurn, Pass, RollDice


def _state(enc: Encounter, creature_id: str) -> PointsState:
    return points(enc.resources[enc.index(creature_id)])


def _enemies(enc: Encounter, creature_id: str) -> list[str]:
    me = enc.creature(creature_id)
    return [c.id for i, c in enumerate(enc.creatures) if not enc.down[i] and c.side is not me.side]


def _distance(enc: Encounter, a: str, b: str) -> float:
    sa, sb = _state(enc, a), _state(enc, b)
    return math.hypot(sa.x - sb.x, sa.y - sb.y)


def _first_legal(enc: Encounter, commands: list[Command]) -> Command | None:
    return next((c for c in commands if enc.is_legal(c)), None)


def greedy_command(enc: Encounter) -> Command:
    """The greedy driver's command for whoever decides now."""
    who = enc.current()
    if who == CHANCE:
        return RollDice()
    if enc.pending_roll is not None:
        chosen = _first_legal(enc, [Act(who, "block"), Act(who, "dodge"), Pass(who)])
        if chosen is not None:
            return chosen
        return next(iter(enc.legal_actions(who)))
    creature = enc.creature(who)
    me = _state(enc, who)
    enemies = sorted(_enemies(enc, who), key=lambda e: _distance(enc, who, e))
    melee = tuple(
        w.name for w in creature.weapons if w.kind is WeaponKind.MELEE and w.name in me.equipped
    )
    ranged = [w for w in creature.weapons if w.kind is WeaponKind.RANGED and w.name in me.equipped]
    # 1. Melee: every melee weapon in hand at once (R38), or unarmed.
    attack = _first_legal(enc, [Act(who, "attack", (e,), melee) for e in enemies])
    if attack is not None:
        return attack
    # 2. Shoot within close range (Favor, R39).
    shots: list[Command] = [
        Act(who, "shoot", (e,), (w.name,))
        for e in enemies
        for w in ranged
        if math.ceil(_distance(enc, who, e) - 1e-9) <= (w.close or 0)
    ]
    shot = _first_legal(enc, shots)
    if shot is not None:
        return shot
    # 3. Move toward the nearest enemy: to 1 m of it, or to close range with a ranged weapon.
    if enemies and me.ap >= 1:
        target = _state(enc, enemies[0])
        d = _distance(enc, who, enemies[0])
        stop = max((w.close or 0) - 1 for w in ranged) if ranged else 1.0
        # A little short of the full reach, so rounding the destination never costs 1 AP more.
        reach = min(d - stop, stat(creature, "travel_speed") * me.ap - 0.02)
        if reach > 0.05:
            f = reach / d
            to = (round(me.x + (target.x - me.x) * f, 2), round(me.y + (target.y - me.y) * f, 2))
            move = Act(who, "move", to=to)
            if enc.is_legal(move):
                return move
    # 4. Shoot at far range (Disfavor), if anything is in reach.
    far_shots: list[Command] = [Act(who, "shoot", (e,), (w.name,)) for e in enemies for w in ranged]
    shot = _first_legal(enc, far_shots)
    if shot is not None:
        return shot
    return EndTurn(who)


@dataclass
class Played:
    winner: str | None
    rounds: int
    steps: int


def play_greedy(definition: EncounterDef, seed: int, max_steps: int = 5000) -> Played:
    """Play ``definition`` to the end with :func:`greedy_command`; fails past ``max_steps``."""
    enc = Encounter.begin(definition, seed, record=False)
    steps = 0
    while enc.current() != TERMINAL:
        enc.apply(greedy_command(enc))
        steps += 1
        assert steps < max_steps, (
            f"{definition.name} (seed {seed}) did not end in {max_steps} steps"
        )
    winner = None if enc.winner is None else str(enc.winner)
    return Played(winner, enc.round, steps)
