"""A strong player: Monte-Carlo search over the decision-point interface (issue 13).

At a decision with more than one legal command, :class:`SearchPolicy` tries each candidate on a
copy of the encounter (:meth:`Encounter.clone`) and plays the rest of the fight out several
times with the ``tactical`` policy on every creature, on dice of its own (the copy's generator
is reseeded, so the real encounter's future dice are never seen); the candidate whose playouts
the actor's side wins most is taken. Every candidate is played out on the same dice seeds
(common random numbers), so each comparison with ``tactical``'s choice is paired. This is one
step of policy improvement over ``tactical``, guarded against the winner's curse (the best of
several noisy estimates looks better than it is): another command replaces ``tactical``'s only
if its paired playouts beat it clearly (``SCREEN_Z`` standard errors), then again on fresh dice
(``CONFIRM_FACTOR`` times the playouts, ``CONFIRM_Z``).

A budget bounds the work: ``playouts`` per candidate, fewer when ``budget`` playouts shared
among the candidates allow fewer (never under ``MIN_PLAYOUTS``), at most ``candidates``
commands tried (``tactical``'s choice always among them), playouts cut at ``horizon`` rounds (a
cut fight counts as half a win). Choices depend on the policy's own seeded RNG, so the policy is not
deterministic (no ``--exact``) but is reproducible: the runner seeds it per encounter.
"""

from __future__ import annotations

import numpy as np

from caltrop.core.commands import Command, RollDice
from caltrop.core.model import Side
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.sim.policies import Policy
from caltrop.sim.tactics import TacticalPolicy

#: Playouts per candidate command (at most; see DEFAULT_BUDGET).
DEFAULT_PLAYOUTS = 12
#: Screening playouts per decision, shared among the candidates (at least MIN_PLAYOUTS each):
#: a decision among many commands gets fewer playouts per command.
DEFAULT_BUDGET = 48
MIN_PLAYOUTS = 6
#: Commands tried at one decision (tactical's choice first, then the others in legal order).
DEFAULT_CANDIDATES = 8
#: Rounds a playout may run past the decision before it is cut (half a win each).
DEFAULT_HORIZON = 30
#: Another command replaces tactical's only if its paired playouts beat tactical's by this
#: many standard errors, then again on ``CONFIRM_FACTOR`` times as many fresh playouts by
#: ``CONFIRM_Z``: the best of several noisy estimates is biased upward (the winner's curse),
#: and without the test the search leaves a good default for noise.
SCREEN_Z = 1.0
CONFIRM_Z = 2.0
CONFIRM_FACTOR = 4

_ROLL = RollDice()


class SearchPolicy:
    """Choose by playouts of each candidate command under ``tactical`` (see the module docs)."""

    def __init__(
        self,
        rng: np.random.Generator,
        *,
        playouts: int = DEFAULT_PLAYOUTS,
        candidates: int = DEFAULT_CANDIDATES,
        horizon: int = DEFAULT_HORIZON,
        budget: int = DEFAULT_BUDGET,
        base: Policy | None = None,
    ) -> None:
        self.rng = rng
        self.budget = budget
        self.playouts = playouts
        self.candidates = candidates
        self.horizon = horizon
        self.base: Policy = base if base is not None else TacticalPolicy()
        #: the policy every creature plays in the playouts
        self.rollout: Policy = TacticalPolicy()
        #: decisions searched and playouts played (for the speed figures)
        self.searched = 0
        self.played = 0

    def choose(self, encounter: Encounter, actor: str) -> Command:
        legal = list(encounter.legal_actions(actor))
        default = self.base.choose(encounter, actor)
        if len(legal) <= 1:
            return default
        others = [c for c in legal if c != default][: max(0, self.candidates - 1)]
        side = encounter.creature(actor).side
        per = max(MIN_PLAYOUTS, min(self.playouts, self.budget // (len(others) + 1)))
        seeds = [int(x) for x in self.rng.integers(0, 2**63 - 1, size=per)]
        base = [self._after(encounter, default, seed, side) for seed in seeds]
        best, best_gain = default, 0.0
        more: list[int] = []
        base_more: list[float] = []
        for command in others:
            got = [self._after(encounter, command, seed, side) for seed in seeds]
            if not _clearly_better(got, base, SCREEN_Z):
                continue
            if not more:  # a contender: confirm on fresh dice (shared by every contender)
                count = per * CONFIRM_FACTOR
                more = [int(x) for x in self.rng.integers(0, 2**63 - 1, size=count)]
                base_more = [self._after(encounter, default, seed, side) for seed in more]
            got_more = [self._after(encounter, command, seed, side) for seed in more]
            if not _clearly_better(got_more, base_more, CONFIRM_Z):
                continue
            gain = (sum(got_more) - sum(base_more)) / len(more)
            if gain > best_gain:
                best, best_gain = command, gain
        self.searched += 1
        return best

    def _after(self, encounter: Encounter, command: Command, seed: int, side: Side) -> float:
        trial = encounter.clone()
        trial.apply(command)
        self.played += 1
        return self._play(trial, seed, side)

    def _play(self, encounter: Encounter, seed: int, side: Side) -> float:
        """Play ``encounter`` out on dice from ``seed``: 1 if ``side`` wins, 0.5 if undecided."""
        encounter.rng.bit_generator.state = np.random.PCG64(seed).state
        limit = encounter.round + self.horizon
        rollout = self.rollout
        while True:
            who = encounter.current()
            if who == TERMINAL:
                if encounter.winner is None:
                    return 0.5
                return 1.0 if encounter.winner is side else 0.0
            if encounter.round > limit:
                return 0.5
            if who == CHANCE:
                encounter.apply(_ROLL)
            else:
                encounter.apply(rollout.choose(encounter, who))


def _clearly_better(got: list[float], base: list[float], z: float) -> bool:
    """Whether the paired differences ``got − base`` are positive by ``z`` standard errors
    (their sum against the root of their summed squares: a sign test with ties dropped)."""
    diffs = [g - b for g, b in zip(got, base, strict=True)]
    total = sum(diffs)
    spread = sum(d * d for d in diffs)
    return total > 0 and total * total >= z * z * spread


__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_CANDIDATES",
    "DEFAULT_HORIZON",
    "DEFAULT_PLAYOUTS",
    "SearchPolicy",
]
