"""Policies: who does what when the engine asks. Plain objects behind one protocol.

A policy is asked only at a creature's decision point (``Encounter.current()`` names a creature)
and returns one of ``encounter.legal_actions()``. Chance points are rolled by :func:`play_out`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

import numpy as np

from caltrop.core.commands import Act, Command, EndTurn, Pass, RollDice
from caltrop.core.model import ActionDef, ActionKind, CreatureDef
from caltrop.encounter import CHANCE, TERMINAL, Encounter


class Policy(Protocol):
    """Chooses a command for the creature that must decide now."""

    def choose(self, encounter: Encounter, actor: str) -> Command: ...


class RandomPolicy:
    """Uniformly random among the legal commands (from its own seeded RNG)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def choose(self, encounter: Encounter, actor: str) -> Command:
        legal = list(encounter.legal_actions(actor))
        return legal[int(self.rng.integers(len(legal)))]


class AttackWeakestPolicy:
    """The simple baseline: on its turn, attack the enemy with the least Health with the
    attack of the largest pool; end the turn when no attack is possible; never react."""

    def choose(self, encounter: Encounter, actor: str) -> Command:
        if encounter.pending:
            return Pass(actor)
        best: Act | None = None
        best_key: tuple[int, int] | None = None
        creature: CreatureDef | None = None
        name: str | None = None  # the action of the last command looked at (they come grouped)
        action: ActionDef | None = None
        for command in encounter.legal_actions(actor):
            if not isinstance(command, Act) or not command.targets:
                continue
            if creature is None:
                creature = encounter.creature(actor)
            if command.action != name:
                name, action = command.action, creature.action(command.action)
            if action is None or action.kind is not ActionKind.ATTACK:
                continue
            target = encounter.index(command.targets[0])
            key = (encounter.health[target], -creature.aspects[action.aspect])
            if best_key is None or key < best_key:
                best, best_key = command, key
        return best if best is not None else EndTurn(actor)


def play_out(
    encounter: Encounter,
    policies: Mapping[str, Policy] | Callable[[str], Policy],
    *,
    max_steps: int = 100_000,
) -> int:
    """Drive ``encounter`` to its end: policies decide (by side: ``{"pc": …, "npc": …}``) and
    chance points roll the engine's seeded dice. Returns the number of decisions applied."""
    steps = 0
    side_of = {c.id: c.side.value for c in encounter.creatures}
    pick = policies if callable(policies) else (lambda side: policies[side])
    # with a mapping, each creature's policy is looked up once
    policy_of: dict[str, Policy] = (
        {}
        if callable(policies)
        else {who: policies[side] for who, side in side_of.items() if side in policies}
    )
    roll = RollDice()
    while steps < max_steps:
        who = encounter.current()
        if who == TERMINAL:
            return steps
        if who == CHANCE:
            encounter.apply(roll)
        else:
            policy = policy_of.get(who)
            if policy is None:
                policy = pick(side_of[who])
            encounter.apply(policy.choose(encounter, who))
        steps += 1
    raise RuntimeError(f"the encounter did not end within {max_steps} decisions")
