"""A strong player: Monte-Carlo search over the decision-point interface (issue 13).

At a decision with more than one legal command, :class:`SearchPolicy` tries each candidate on a
copy of the encounter (:meth:`Encounter.clone`) and plays the rest of the fight out several
times with the ``tactical`` policy on every creature, on dice of its own (the copy's generator
is reseeded, so the real encounter's future dice are never seen); the candidate whose playouts
the actor's side wins most often is taken. Every candidate is played out on the same dice seeds
(common random numbers), so their comparison is paired and a few playouts tell them apart.
This is one step of policy improvement over ``tactical``: it keeps ``tactical``'s choice unless
the playouts say another command does better (ties go to ``tactical``'s).

A budget bounds the work: ``playouts`` per candidate, at most ``candidates`` commands tried
(``tactical``'s choice always among them), playouts cut at ``horizon`` rounds (a cut fight
counts as half a win). Choices depend on the policy's own seeded RNG, so the policy is not
deterministic (no ``--exact``) but is reproducible: the runner seeds it per encounter.
"""

from __future__ import annotations

import numpy as np

from caltrop.core.commands import Command, RollDice
from caltrop.core.model import Side
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.sim.policies import Policy
from caltrop.sim.tactics import TacticalPolicy

#: Playouts per candidate command.
DEFAULT_PLAYOUTS = 16
#: Commands tried at one decision (tactical's choice first, then the others in legal order).
DEFAULT_CANDIDATES = 8
#: Rounds a playout may run past the decision before it is cut (half a win each).
DEFAULT_HORIZON = 30
#: Another command replaces tactical's only if it wins this share of the playouts more (so
#: that noise in a few playouts does not pull the choice away from a good default).
DEFAULT_MARGIN = 0.15

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
        margin: float = DEFAULT_MARGIN,
        base: Policy | None = None,
    ) -> None:
        self.rng = rng
        self.margin = margin
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
        others = [c for c in legal if c != default]
        tried = [default, *others[: max(0, self.candidates - 1)]]
        side = encounter.creature(actor).side
        seeds = self.rng.integers(0, 2**63 - 1, size=self.playouts)
        best, best_score = default, -1.0
        bar = 0.0
        for k, command in enumerate(tried):
            score = 0.0
            for seed in seeds:
                trial = encounter.clone()
                trial.apply(command)
                score += self._play(trial, int(seed), side)
            if k == 0:
                best_score = score
                bar = score + self.margin * self.playouts
            elif score >= bar and score > best_score:
                best, best_score = command, score
        self.searched += 1
        self.played += len(tried) * self.playouts
        return best

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


__all__ = [
    "DEFAULT_CANDIDATES",
    "DEFAULT_HORIZON",
    "DEFAULT_MARGIN",
    "DEFAULT_PLAYOUTS",
    "SearchPolicy",
]
