"""A strong player: expectimax over the next roll, Monte-Carlo playouts after it (issue 13).

At a decision with more than one legal command, :class:`SearchPolicy` weighs each candidate by
the chance that the actor's side wins if it issues the candidate now and every creature plays
``tactical`` from then on (one step of policy improvement over ``tactical``; against an opponent
that plays ``tactical`` it is a best response at this decision). Each estimate is:

* **exact over the next roll**: the candidate is applied on a copy (:meth:`Encounter.clone`),
  ``tactical`` answers the reaction windows up to the next chance point, and that roll's totals
  are taken from :meth:`Encounter.chance_outcomes` with their exact probabilities — playout *k*
  takes the total at the quantile ``u_k``, the *k*-th point of the van der Corput sequence
  shifted by a random offset drawn once per decision (every prefix of playouts spreads the
  roll's luck evenly over its range, each ``u_k`` is uniform, so the estimate is unbiased, and
  playout *k* of every candidate is equally lucky, so the comparison is paired);
* **sampled after it**: the rest of the fight is played out under ``tactical`` on dice of the
  copy's own (reseeded per playout: the real encounter's future dice are never seen), cut at
  ``horizon`` rounds (half a win).

Candidates are cut by **successive halving**: every candidate gets a first share of playouts,
then the better half (``tactical``'s choice always kept) twice as many, and so on within
``budget`` playouts per decision. A command replaces ``tactical``'s only when its paired
playouts beat it by ``margin`` standard errors (the best of several noisy estimates looks better
than it is: without the margin the search would leave a good default for noise).

The policy draws its playout seeds from its own seeded RNG, so it is not deterministic (no
``--exact``) but is reproducible: the runner seeds it per encounter.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from fractions import Fraction
from itertools import accumulate

import numpy as np

from caltrop.core.commands import Command, RollDice, RollTotal
from caltrop.core.model import Side
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.sim.policies import Policy
from caltrop.sim.tactics import TacticalPolicy

#: Playouts per decision, shared among the candidates by successive halving.
DEFAULT_BUDGET = 160
#: Playouts each candidate gets in the first round of halving (at least).
FIRST_SHARE = 8
#: Commands weighed at one decision (tactical's choice first, then the others in legal order).
DEFAULT_CANDIDATES = 8
#: Rounds a playout may run past the decision before it is cut (half a win each).
DEFAULT_HORIZON = 30
#: Another command replaces tactical's only if its paired playouts win more by this many
#: standard errors of the paired difference.
DEFAULT_MARGIN = 1.5

_ROLL = RollDice()


class SearchPolicy:
    """Choose by expectimax over the next roll and playouts under ``tactical`` (module docs)."""

    def __init__(
        self,
        rng: np.random.Generator,
        *,
        budget: int = DEFAULT_BUDGET,
        candidates: int = DEFAULT_CANDIDATES,
        horizon: int = DEFAULT_HORIZON,
        margin: float = DEFAULT_MARGIN,
        first: int = FIRST_SHARE,
        base: Policy | None = None,
    ) -> None:
        self.rng = rng
        self.budget = budget
        self.candidates = candidates
        self.horizon = horizon
        self.margin = margin
        self.first = first
        self.base: Policy = base if base is not None else TacticalPolicy()
        #: the policy every creature plays in the playouts
        self.rollout: Policy = TacticalPolicy()
        #: decisions searched, playouts played, and decisions where the search overruled the base
        self.searched = 0
        self.played = 0
        self.overruled = 0
        self._shift = 0.0

    def choose(self, encounter: Encounter, actor: str) -> Command:
        default = self.base.choose(encounter, actor)
        legal = [c for c in encounter.legal_actions(actor) if c != default]
        if not legal:
            return default
        pool = [default, *legal[: max(0, self.candidates - 1)]]
        side = encounter.creature(actor).side
        self.searched += 1
        results: dict[int, list[float]] = {k: [] for k in range(len(pool))}
        alive = list(range(len(pool)))
        share = max(
            self.first, self.budget // (len(pool) * max(1, math.ceil(math.log2(len(pool)))))
        )
        spent = 0
        self._shift = float(self.rng.random())
        seeds: list[int] = []
        while True:
            want = len(results[0]) + share
            while len(seeds) < want:
                seeds.append(int(self.rng.integers(0, 2**63 - 1)))
            for k in alive:
                done = len(results[k])
                results[k].extend(self._estimate(encounter, pool[k], side, seeds, done, want))
                spent += want - done
            if len(alive) <= 2 or spent >= self.budget:
                break
            alive.sort(key=lambda k: -sum(results[k]) / len(results[k]))
            keep = alive[: max(2, len(alive) // 2)]
            if 0 not in keep:
                keep = [*keep[:-1], 0]
            alive = keep
            share *= 2
        best = max(alive, key=lambda k: (sum(results[k]) / len(results[k]), k == 0))
        if best == 0 or not _clearly_better(results[best], results[0], self.margin):
            return default
        self.overruled += 1
        return pool[best]

    def _estimate(
        self,
        encounter: Encounter,
        command: Command,
        side: Side,
        seeds: list[int],
        start: int,
        stop: int,
    ) -> list[float]:
        """Playouts ``start … stop − 1`` of ``command`` (see the module docs): playout k rolls
        the next roll's total at quantile ``u_k`` exactly, then the rest on dice from
        ``seeds[k]``; 1 for each won by ``side``, 0 lost, ½ undecided."""
        trial = encounter.clone()
        trial.apply(command)
        outcome = self._to_chance(trial, side)
        got: list[float] = []
        if outcome is not None:  # the fight ended before any roll
            return [outcome] * (stop - start)
        totals, cdf = _outcomes(trial)
        for k in range(start, stop):
            play = trial.clone()
            play.rng.bit_generator.state = np.random.PCG64(seeds[k]).state
            u = (_van_der_corput(k) + self._shift) % 1.0
            play.apply(totals[min(bisect_left(cdf, u), len(totals) - 1)])
            self.played += 1
            got.append(self._play(play, side))
        return got

    def _to_chance(self, encounter: Encounter, side: Side) -> float | None:
        """Let ``tactical`` answer every window up to the next chance point; the fight's result
        for the searching side if it ends first (else None)."""
        rollout = self.rollout
        while True:
            who = encounter.current()
            if who == CHANCE:
                return None
            if who == TERMINAL:
                return _result(encounter, side)
            encounter.apply(rollout.choose(encounter, who))

    def _play(self, encounter: Encounter, side: Side) -> float:
        """Play ``encounter`` out: 1 if ``side`` wins, 0.5 if undecided or cut, else 0."""
        limit = encounter.round + self.horizon
        rollout = self.rollout
        while True:
            who = encounter.current()
            if who == TERMINAL:
                return _result(encounter, side)
            if encounter.round > limit:
                return standing(encounter, side)
            if who == CHANCE:
                encounter.apply(_ROLL)
            else:
                encounter.apply(rollout.choose(encounter, who))


def _result(encounter: Encounter, side: Side) -> float:
    """1 if ``side`` won the ended ``encounter``, 0 if it lost, 0.5 if it ended undecided."""
    if encounter.winner is None:
        return 0.5
    return 1.0 if encounter.winner is side else 0.0


def standing(encounter: Encounter, side: Side) -> float:
    """What a playout cut at its horizon is worth to ``side``: its share of the Health still
    standing, each creature's counted as a fraction of its own (½ when both sides stand alike)."""
    own = foe = 0.0
    for creature, health in zip(encounter.creatures, encounter.health, strict=True):
        share = max(0, health) / (creature.max_health or creature.health)
        if creature.side is side:
            own += share
        else:
            foe += share
    return 0.5 if own + foe == 0 else own / (own + foe)


def _outcomes(encounter: Encounter) -> tuple[list[RollTotal], list[float]]:
    """The pending roll's totals and their cumulative probabilities (the last is 1)."""
    pairs = encounter.chance_outcomes()
    totals = [t for t, _ in pairs]
    cdf = [float(c) for c in accumulate((p for _, p in pairs), initial=Fraction(0))][1:]
    return totals, cdf


def _van_der_corput(k: int) -> float:
    """The ``k``-th point of the base-2 van der Corput sequence (0, ½, ¼, ¾, ⅛, …): any ``2^m``
    consecutive points from 0 fall one in each ``1/2^m`` of [0, 1)."""
    u, scale = 0.0, 0.5
    while k:
        if k & 1:
            u += scale
        k >>= 1
        scale /= 2
    return u


def _clearly_better(got: list[float], base: list[float], z: float) -> bool:
    """Whether the paired differences ``got − base`` are positive by ``z`` standard errors."""
    n = min(len(got), len(base))
    diffs = [g - b for g, b in zip(got[:n], base[:n], strict=True)]
    total = sum(diffs)
    if total <= 0:
        return False
    mean = total / n
    var = sum((d - mean) ** 2 for d in diffs) / max(1, n - 1)
    return mean * mean * n >= z * z * var


__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_CANDIDATES",
    "DEFAULT_HORIZON",
    "DEFAULT_MARGIN",
    "SearchPolicy",
]
