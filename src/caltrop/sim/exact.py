"""Exact win probabilities of small encounters under deterministic tactics (no sampling error).

Decisions are made by the policies (which must be deterministic: the same state always gets the
same choice); at every chance point the solver branches over each total of the pending roll with
its exact probability (:meth:`Encounter.chance_outcomes`) and sums. Chance states are memoised by
:meth:`Encounter.key`, so a state reached along many paths is solved once. The state space is
capped: past ``max_states`` distinct chance states the solver stops with
:class:`StateSpaceTooLargeError` rather than run for hours. Encounters still going after
``max_rounds`` rounds count as draws, exactly as in sampled runs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from caltrop.core.model import EncounterDef, Side
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.errors import CaltropError
from caltrop.sim.policies import Policy
from caltrop.sim.registry import make_policy, policy_entry
from caltrop.sim.runner import DEFAULT_MAX_ROUNDS

#: Distinct chance states the solver visits before it refuses.
DEFAULT_MAX_STATES = 100_000
#: States solved between two calls of a ``progress`` callback.
PROGRESS_EVERY = 500

_ZERO = Fraction(0)
_ONE = Fraction(1)


class StateSpaceTooLargeError(CaltropError):
    """The encounter has more chance states than the cap allows: sample it instead."""


class NotDeterministicError(CaltropError, ValueError):
    """An exact answer needs policies that always make the same choice in the same state."""


@dataclass(frozen=True, slots=True)
class ExactResult:
    """Exact probabilities that each side wins (or neither: a draw or the round cap), the exact
    expected number of rounds, and how many chance states were solved."""

    pc: Fraction
    npc: Fraction
    draw: Fraction
    rounds: Fraction
    states: int

    def win_rate(self, side: str) -> Fraction:
        return self.pc if side == Side.PC.value else self.npc

    def as_dict(self) -> dict[str, Any]:
        return {
            "win_rate": {
                "pc": _fraction_json(self.pc),
                "npc": _fraction_json(self.npc),
                "draw": _fraction_json(self.draw),
            },
            "rounds_mean": float(self.rounds),
            "states": self.states,
        }


def _fraction_json(value: Fraction) -> dict[str, Any]:
    return {"p": float(value), "exact": f"{value.numerator}/{value.denominator}"}


_Value = tuple[Fraction, Fraction, Fraction, Fraction]  # pc, npc, draw, E[rounds]


def solve(
    definition: EncounterDef,
    policies: Mapping[str, str],
    *,
    max_states: int = DEFAULT_MAX_STATES,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    progress: Callable[[int], None] | None = None,
) -> ExactResult:
    """The exact outcome distribution of ``definition`` with the named policies per side.
    ``progress(k)`` is called as states are solved (``k`` more since the last call)."""
    for side, name in policies.items():
        if not policy_entry(name).deterministic:
            raise NotDeterministicError(
                f"--exact needs deterministic tactics; the {side} policy {name!r} is random"
            )
    import numpy as np

    rng = np.random.default_rng(0)  # never drawn from: the policies are deterministic
    chosen = {side: make_policy(name, rng) for side, name in policies.items()}
    return solve_with(
        definition, chosen, max_states=max_states, max_rounds=max_rounds, progress=progress
    )


def solve_with(
    definition: EncounterDef,
    policies: Mapping[str, Policy],
    *,
    max_states: int = DEFAULT_MAX_STATES,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    progress: Callable[[int], None] | None = None,
) -> ExactResult:
    """:func:`solve` with policy objects (which must be deterministic)."""
    side_of = {c.id: c.side.value for c in definition.participants}
    memo: dict[Any, _Value] = {}
    open_keys: set[Any] = set()

    def value(encounter: Encounter) -> _Value:
        # decisions are deterministic: follow them to the next chance point or the end
        while True:
            who = encounter.current()
            if who == TERMINAL:
                rounds = Fraction(encounter.round)
                if encounter.winner is Side.PC:
                    return (_ONE, _ZERO, _ZERO, rounds)
                if encounter.winner is Side.NPC:
                    return (_ZERO, _ONE, _ZERO, rounds)
                return (_ZERO, _ZERO, _ONE, rounds)
            if encounter.round > max_rounds:  # a draw that lasted the rounds allowed
                return (_ZERO, _ZERO, _ONE, Fraction(max_rounds))
            if who == CHANCE:
                break
            encounter.apply(policies[side_of[who]].choose(encounter, who))
        key = encounter.key()
        found = memo.get(key)
        if found is not None:
            return found
        if key in open_keys:
            raise StateSpaceTooLargeError(
                "the encounter can return to a state it is still solving (a loop): "
                "it has no finite exact answer"
            )
        if len(memo) >= max_states:
            raise StateSpaceTooLargeError(
                f"more than {max_states:,} chance states: too large to solve exactly; "
                "sample it instead (drop --exact), or raise --max-states"
            )
        open_keys.add(key)
        pc = npc = draw = rounds = _ZERO
        for total, p in encounter.chance_outcomes():
            child = encounter.clone()
            child.apply(total)
            a, b, c, r = value(child)
            pc += p * a
            npc += p * b
            draw += p * c
            rounds += p * r
        open_keys.discard(key)
        result = (pc, npc, draw, rounds)
        memo[key] = result
        if progress is not None and len(memo) % PROGRESS_EVERY == 0:
            progress(PROGRESS_EVERY)
        return result

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        start = Encounter.begin(definition, 0, record=False)
        pc, npc, draw, rounds = value(start)
    finally:
        sys.setrecursionlimit(limit)
    return ExactResult(pc, npc, draw, rounds, len(memo))
