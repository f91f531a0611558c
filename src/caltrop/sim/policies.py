"""Policies: who does what when the engine asks. Plain objects behind one protocol.

A policy is asked only at a creature's decision point (``Encounter.current()`` names a creature)
and returns one of ``encounter.legal_actions()``. Chance points are rolled by :func:`play_out`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import ClassVar, Protocol

import numpy as np

from caltrop.core.commands import Act, Command, EndTurn, Pass, RollDice
from caltrop.core.model import ActionKind
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.errors import SimulationError


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

    #: what never changes about a command the engine offers (its tables give the same command
    #: objects every time): id → (the command, its target's index or −1 if it is no attack with
    #: a target, minus its pool's Aspect). Holding the command keeps its id from being reused.
    _static: ClassVar[dict[int, tuple[Command, int, int]]] = {}
    _STATIC_KEPT: ClassVar[int] = 4096

    def __init__(self) -> None:
        self._passes: dict[str, Pass] = {}

    def choose(self, encounter: Encounter, actor: str) -> Command:
        if encounter.pending:
            passing = self._passes.get(actor)
            if passing is None:
                passing = self._passes[actor] = Pass(actor)
            return passing
        static = self._static
        health = encounter.health
        best: Command | None = None
        best_key: tuple[int, int] | None = None
        for command in encounter.legal_actions(actor):
            entry = static.get(id(command))
            if entry is None or entry[0] is not command:
                entry = self._describe(encounter, actor, command)
            target = entry[1]
            if target < 0:
                continue
            key = (health[target], entry[2])
            if best_key is None or key < best_key:
                best, best_key = command, key
        return best if best is not None else EndTurn(actor)

    @classmethod
    def _describe(
        cls, encounter: Encounter, actor: str, command: Command
    ) -> tuple[Command, int, int]:
        entry: tuple[Command, int, int] = (command, -1, 0)
        if isinstance(command, Act) and command.targets:
            creature = encounter.creature(actor)
            action = creature.action(command.action)
            if action is not None and action.kind is ActionKind.ATTACK:
                target = encounter.index(command.targets[0])
                entry = (command, target, -creature.aspects[action.aspect])
        if len(cls._static) >= cls._STATIC_KEPT:
            cls._static.clear()
        cls._static[id(command)] = entry
        return entry


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
    raise SimulationError(f"the encounter did not end within {max_steps} decisions")
