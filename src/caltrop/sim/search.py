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
* **sampled after it**: the fight goes on under ``tactical`` on dice of the copy's own
  (reseeded per playout, the same seed for playout *k* of every candidate: the real
  encounter's future dice are never seen), cut after ``horizon`` rounds' worth of turns, where
  the state is valued as a Lanchester race (:class:`_Worth`: each side's damage per turn times
  its Health) — a smoother, cheaper answer than playing every fight out;
* **in the compiled kernel, to the end** (Action Load, :data:`ACTION_LOAD`'s ``compiled``
  settings): where :mod:`caltrop.sim.fast.tactical` can play the encounter, the copy stopped
  at the roll is handed to the kernel (:class:`~caltrop.sim.fast.tactical.resume.Resume`),
  which lands each playout's total and plays the fight out on stream *k* of a key drawn once
  per decision (paired again), with exactly ``tactical``'s choices, about a hundred times
  faster than the engine; a state the kernel cannot hold (a GM's change, R48) is played on in
  the engine up to the next roll it can.

Where it spends (:class:`Settings`, per module: :data:`ACTION_LOAD`, :data:`ACTION_POINTS`):

* **a screen**: every candidate gets ``first`` playouts; if each of them comes out the same for
  every candidate, nothing is at stake here and the base's choice stands;
* **successive halving**: then the better half (the base's choice always kept) twice as many,
  and so on within ``budget`` playouts;
* **a fresh test**: the best-looking challenger is played again on fresh playouts only (the
  ones that chose it flatter it: the best of several noisy estimates looks better than it is),
  doubled while it leads but not clearly, within ``extra`` × the budget; it replaces the base's
  command only if it leads by ``margin`` standard errors of the paired difference.

**Action Points** (:meth:`SearchPolicy._choose_points`, :data:`ACTION_POINTS`): a playout
costs about ten times an Action Load one (positions and plans, R34-R39), so the search spends
where a choice is real:

* only on the actor's own turn, outside the windows: the defence windows are left to the
  tactics, which weigh Block, Dodge and Take Cover exactly on the damage already rolled (R45),
  and so is an ally's off-turn step (R32 ``off_turn_actions: any``) that the base proposes;
* the candidates (:func:`points_candidates`) are the base's step, the first steps of
  ``tactical``'s own next-best plans (another target, another spot), Hold Action (R33: the AP
  kept as floating RP for the defences of the enemies' turns) and then the legal commands, one
  of each kind — not the first legal commands in legal order;
* the playouts' ``tactical`` choices are remembered by state (:class:`_Remembered`: the
  tactics are deterministic, and playouts pass the same states again: the same roll total, the
  same windows, the real fight's next states): about a third of the calls in Bridge Duel AP;
* the cut stays at one round: half a round was measured far weaker (Bridge Duel AP NPCs,
  20 paired encounters: 25% against 55% at one round), the enemies' answer is what a
  step is weighed by.

The policy draws its playout seeds from its own seeded RNG, so it is not deterministic (no
``--exact``) but is reproducible: the runner seeds it per encounter.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate
from typing import TYPE_CHECKING, Any

import numpy as np

from caltrop.core.commands import Act, Command, EndTurn, RollDice, RollTotal
from caltrop.core.model import Side
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.sim.knobs import PointsKnobs
from caltrop.sim.points_tactics import Planner, turn_plans
from caltrop.sim.points_tactics import book as points_book
from caltrop.sim.policies import Policy
from caltrop.sim.tactics import TacticalPolicy, profile

if TYPE_CHECKING:
    from caltrop.sim.fast.resume import Playouts


@dataclass(frozen=True, slots=True)
class Settings:
    """How much the search spends at a decision."""

    #: playouts per decision, shared among the candidates by successive halving
    budget: int
    #: playouts each candidate gets in the first round (the screen: if every one of them comes
    #: out the same, nothing is at stake and the base's choice stands)
    first: int
    #: commands weighed at one decision (the base's choice first, then the others in legal order)
    candidates: int
    #: rounds' worth of turns a playout runs past the decision before it is cut and its state
    #: valued (:class:`_Worth`); ``math.inf`` plays every playout to the end
    horizon: float
    #: whether decisions in a reaction window are searched too (else the base answers them)
    windows: bool = True
    #: the same, where the playouts run in the compiled tactical policy's kernel
    #: (:mod:`caltrop.sim.fast.tactical.resume`: about a hundred times cheaper than the engine,
    #: and played to the end, not cut at ``horizon``); None: this module has no kernel
    compiled: Settings | None = None
    #: how far the last challenger's fresh playouts may grow while it leads the base's choice
    #: but not clearly: up to this many times the budget in all
    extra: int = 4


#: An Action Load playout is cheap (a few ms to the end of Goblin Ambush): many of them; in
#: the compiled kernel (~80 µs to the end of Goblin Ambush), many more, played to the end.
#: Measured 2026-12-02 (``python -m benchmarks.search NAME --sides S``, search on one side
#: against tactical on both): Goblin Ambush PCs 88% → 99.5% (n=200, pairs 24/1), NPCs 12% →
#: 46.5% (78/9); Orc Bridge PCs 60% → 79% (48/10), NPCs, where tactical leaves about 2 pp of
#: one-step gains, 38.6% → 39.9% (n=6000, --seed 41, 399/325, p = 0.0066).
ACTION_LOAD = Settings(
    budget=160,
    first=8,
    candidates=8,
    horizon=2.0,
    compiled=Settings(budget=1024, first=32, candidates=12, horizon=math.inf),
)
#: An Action Point playout costs about ten times as much (positions and plans, R34-R39; a
#: round of Bridge Duel is ~5 ms of ``tactical``): fewer, shorter ones, better candidates, a
#: short fresh test (module docs, "Action Points"). Measured 2026-12-02 (``python -m
#: benchmarks.search NAME --sides S --workers 1``, --seed 13, search on one side against
#: tactical on both): Bridge Duel AP NPCs 20% → 55% (n=60, pairs 23/2, p = 2e-5, 4.1 CPU-s an
#: encounter), PCs 80% → 97% (n=200, 39/5, p = 1e-7, 4.9 s); Warband AP PCs 24% → 56% (n=50,
#: 20/4, p = 0.0015, 21 s), NPCs 76% → 92% (n=50, 11/3, p = 0.057, 14 s), on fresh seeds
#: (--seed 14) 80% → 92% (n=100, 18/6, p = 0.023, 15 s) and, measured 2026-12-02 on fresh
#: seeds again (--seed 15, --workers 2, load 2), 74.7% → 97.3% (n=150, 36/2, p = 5e-9, 11 s).
#: Since then :meth:`Resources.key` made the memo's key cheap: Bridge Duel AP NPCs (n=20)
#: 3.66 → 2.91 CPU-s an encounter, the same 8/1 pairs and 163 of 1,074 decisions overruled.
ACTION_POINTS = Settings(budget=12, first=3, candidates=4, horizon=1.0, windows=False, extra=2)

#: The most states whose rollout choices the Action Point search remembers (then it starts
#: afresh): the real fight's next decisions pass through states its playouts have seen.
REMEMBERED = 50_000

DEFAULT_BUDGET = ACTION_LOAD.budget
FIRST_SHARE = ACTION_LOAD.first
DEFAULT_CANDIDATES = ACTION_LOAD.candidates
DEFAULT_HORIZON = ACTION_LOAD.horizon
#: How far the last challenger's fresh playouts may grow while it leads the default but not
#: clearly: up to this many times the budget in all.
DEFAULT_EXTRA = ACTION_LOAD.extra
#: Another command replaces the base's only if its paired fresh playouts win more by this many
#: standard errors of the paired difference.
DEFAULT_MARGIN = 2.0


def settings_for(encounter: Encounter) -> Settings:
    """The search's default spending for the encounter's module."""
    return ACTION_POINTS if encounter.economy.name == "action_points" else ACTION_LOAD


_ROLL = RollDice()


class SearchPolicy:
    """Choose by expectimax over the next roll and playouts under ``tactical`` (module docs)."""

    def __init__(
        self,
        rng: np.random.Generator,
        *,
        budget: int | None = None,
        candidates: int | None = None,
        horizon: float | None = None,
        margin: float = DEFAULT_MARGIN,
        first: int | None = None,
        extra: int | None = None,
        windows: bool | None = None,
        base: Policy | None = None,
        compiled: bool = True,
    ) -> None:
        """Each of ``budget``, ``candidates``, ``horizon``, ``first`` and ``windows`` left None
        takes the module's default (:func:`settings_for`: :data:`ACTION_LOAD` or
        :data:`ACTION_POINTS`, or its ``compiled`` settings where the kernel can play the
        encounter and ``compiled`` is true) at the first decision."""
        self.rng = rng
        self._compiled = compiled
        #: the kernel that plays the playouts on (None: the engine plays them)
        self.resume: Playouts[Any] | None = None
        self._asked = (budget, first, candidates, horizon, windows)
        self._asked_extra = extra
        self.budget = self.first = self.candidates = 0
        self.horizon = 0.0
        self.windows = True
        self._resolved = False
        self.margin = margin
        self.extra = DEFAULT_EXTRA
        self.base: Policy = base if base is not None else TacticalPolicy()
        #: the policy every creature plays in the playouts
        self.rollout: Policy = TacticalPolicy()
        #: decisions searched, playouts played, and decisions where the search overruled the base
        self.searched = 0
        self.played = 0
        self.overruled = 0
        #: decisions left to the base because every first playout came out the same
        self.settled = 0
        #: playouts cut at the horizon (valued, not played to the end)
        self.cut = 0
        #: playouts the kernel played (of :attr:`played`)
        self.compiled_played = 0
        self._shift = 0.0
        self._seeds: list[int] = []
        self._key = 0
        self._worth: _Worth | None = None
        self._points = False

    def _resolve(self, encounter: Encounter) -> None:
        if encounter.economy.name == "action_points":
            self._points = True
            self.rollout = _Remembered(self.rollout)
        module = settings_for(encounter)
        if self._compiled and module.compiled is not None:
            self.resume = _resume_for(encounter)
            if self.resume is not None:
                module = module.compiled
        budget, first, candidates, horizon, windows = self._asked
        self.budget = module.budget if budget is None else budget
        self.first = module.first if first is None else first
        self.candidates = module.candidates if candidates is None else candidates
        self.horizon = module.horizon if horizon is None else horizon
        self.windows = module.windows if windows is None else windows
        self.extra = module.extra if self._asked_extra is None else self._asked_extra
        self._resolved = True

    def choose(self, encounter: Encounter, actor: str) -> Command:
        if not self._resolved:
            self._resolve(encounter)
        if self._points:
            return self._choose_points(encounter, actor)
        default = self.base.choose(encounter, actor)
        if encounter.pending and not self.windows:
            return default
        legal = [c for c in encounter.legal_actions(actor) if c != default]
        pool = [default, *legal[: max(0, self.candidates - 1)]]
        if len(pool) < 2:  # nothing else legal, or only the base's choice weighed
            return default
        return self._weigh(encounter, pool, encounter.creature(actor).side)

    def _weigh(
        self, encounter: Encounter, pool: list[Command], side: Side, share: int | None = None
    ) -> Command:
        """The search proper over ``pool`` (the base's choice first; module docs): the screen,
        successive halving from ``share`` playouts a candidate (None: the budget's share), the
        fresh test of the best-looking challenger."""
        default = pool[0]
        self.searched += 1
        self._shift = float(self.rng.random())
        self._seeds = []
        if not self._points:  # the kernel's streams (no kernel in the Action Point module)
            self._key = int(self.rng.integers(0, 2**63 - 1))
        self._worth = _Worth(encounter)
        results: dict[int, list[float]] = {k: [] for k in range(len(pool))}
        spent = self._extend(encounter, pool, results, range(len(pool)), side, self.first)
        if _flat(results):  # every candidate gave the same result on every playout
            self.settled += 1
            return default
        alive = list(range(len(pool)))
        if share is None:
            rounds = max(1, math.ceil(math.log2(len(pool))))
            share = max(self.first, self.budget // (len(pool) * rounds))
        while len(alive) > 2 and spent < self.budget:
            want = len(results[0]) + share
            spent += self._extend(encounter, pool, results, alive, side, want)
            alive.sort(key=lambda k: -_mean(results[k]))
            keep = alive[: max(2, len(alive) // 2)]
            if 0 not in keep:
                keep = [*keep[:-1], 0]
            alive = keep
            share *= 2
        best = max((k for k in alive if k != 0), key=lambda k: _mean(results[k]))
        if _mean(results[best]) <= _mean(results[0]):
            return default
        # the challenger that looks best is tested again on fresh playouts only (the ones that
        # chose it flatter it), more of them while it leads but not clearly, within ``extra`` ×
        # the budget; it replaces the default only if it leads by ``margin`` standard errors
        fresh = len(results[0])
        chunk = max(self.first, fresh)
        cap = self.budget * self.extra
        verdict: bool | None = None
        while verdict is None and spent < cap:
            spent += self._extend(encounter, pool, results, [0, best], side, fresh + chunk)
            verdict = _verdict(results[best][fresh:], results[0][fresh:], self.margin)
            chunk *= 2
        if not verdict:
            return default
        self.overruled += 1
        return pool[best]

    def _choose_points(self, encounter: Encounter, actor: str) -> Command:
        """The Action Point search (module docs, "Action Points"): on its own turn the actor
        weighs the base's step against the first steps of ``tactical``'s next-best plans and a
        Hold Action; an ally's off-turn step (R32) and the defence windows stay the base's."""
        default = self.base.choose(encounter, actor)
        if encounter.pending:
            if not self.windows:
                return default
            legal = [c for c in encounter.legal_actions(actor) if c != default]
            pool = [default, *legal[: max(0, self.candidates - 1)]]
        elif encounter.turn_owner != actor or getattr(default, "actor", actor) != actor:
            return default
        else:
            knobs = getattr(self.base, "points_knobs", None) or PointsKnobs()
            pool = points_candidates(encounter, actor, default, self.candidates, knobs)
        if len(pool) < 2:
            return default
        return self._weigh(encounter, pool, encounter.creature(actor).side, self.first)

    def _extend(
        self,
        encounter: Encounter,
        pool: list[Command],
        results: dict[int, list[float]],
        which: Iterable[int],
        side: Side,
        want: int,
    ) -> int:
        """Bring each candidate in ``which`` to ``want`` playouts; the playouts played."""
        while len(self._seeds) < want:
            self._seeds.append(int(self.rng.integers(0, 2**63 - 1)))
        spent = 0
        for k in which:
            done = len(results[k])
            if done < want:
                results[k].extend(self._estimate(encounter, pool[k], side, self._seeds, done, want))
                spent += want - done
        return spent

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
        quantiles = [(_van_der_corput(k) + self._shift) % 1.0 for k in range(start, stop)]
        picks = [totals[min(bisect_left(cdf, u), len(totals) - 1)] for u in quantiles]
        snap = None if self.resume is None else self.resume.snapshot(trial)
        if snap is not None:  # the kernel plays them all on (playout k on its stream k)
            assert self.resume is not None
            winners, _ = self.resume.play(snap, [t.total for t in picks], self._key, start)
            self.played += stop - start
            self.compiled_played += stop - start
            mine = _SIDE_CODE[side]
            return [1.0 if w == mine else 0.0 if w >= 0 else 0.5 for w in winners.tolist()]
        for k, pick in zip(range(start, stop), picks, strict=True):
            play = trial.clone()
            play.rng.bit_generator.state = np.random.PCG64(seeds[k]).state
            play.apply(pick)
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
        """Play ``encounter`` out under the rollout policy: 1 if ``side`` wins, 0 if it loses,
        0.5 if it ends undecided; cut after ``horizon`` rounds' worth of turns (a turn per
        creature standing at the cut's start), where the cut state is worth :class:`_Worth`."""
        rollout = self.rollout
        turns = 0
        limit = (
            None
            if math.isinf(self.horizon)
            else max(1, round(self.horizon * (len(encounter.down) - sum(encounter.down))))
        )
        owner = encounter.turn_owner
        while True:
            who = encounter.current()
            if who == TERMINAL:
                return _result(encounter, side)
            if who == CHANCE:
                snap = None if self.resume is None else self.resume.snapshot(encounter)
                if snap is None:
                    encounter.apply(_ROLL)
                    continue
                # the kernel plays on from here: this roll's total by its exact odds, then
                # the fight on a stream of the encounter's own dice
                assert self.resume is not None
                totals, cdf = _outcomes(encounter)
                u = float(encounter.rng.random())
                total = totals[min(bisect_left(cdf, u), len(totals) - 1)].total
                key = int(encounter.rng.integers(0, 2**63 - 1))
                winners, _ = self.resume.play(snap, [total], key)
                self.compiled_played += 1
                w = int(winners[0])
                return 0.5 if w < 0 else 1.0 if w == _SIDE_CODE[side] else 0.0
            if limit is not None and not encounter.pending and encounter.turn_owner != owner:
                owner = encounter.turn_owner
                turns += 1
                if turns >= limit:
                    self.cut += 1
                    assert self._worth is not None
                    return self._worth.value(encounter, side)
            encounter.apply(rollout.choose(encounter, who))


#: the kernel's code of each side's win (:mod:`caltrop.sim.fast.tactical.kernel`)
_SIDE_CODE = {Side.PC: 0, Side.NPC: 1}


def _resume_for(encounter: Encounter) -> Playouts[Any] | None:
    """The compiled tactical policy for ``encounter``'s definition, whichever its module
    (:func:`caltrop.sim.fast.resume.resume_for`), or None if no kernel can play it (the
    engine plays the playouts)."""
    from caltrop.sim.fast.resume import resume_for

    return resume_for(encounter.definition)


class _Remembered:
    """A deterministic policy with its choices remembered by state (:meth:`Encounter.key` and
    the one deciding): ``tactical`` gets the same choice from the same state (the Action Point
    tactics' module docs), and a decision's playouts pass through the same states often (the
    same roll total at the same point, the same windows)."""

    __slots__ = ("inner", "memo")

    def __init__(self, inner: Policy) -> None:
        self.inner = inner
        self.memo: dict[tuple[str, tuple[object, ...]], Command] = {}

    def choose(self, encounter: Encounter, actor: str) -> Command:
        key = (actor, encounter.key())
        found = self.memo.get(key)
        if found is None:
            if len(self.memo) >= REMEMBERED:
                self.memo.clear()
            found = self.memo[key] = self.inner.choose(encounter, actor)
        return found


def _kind(command: Command) -> tuple[object, ...]:
    """What two commands share when they are the same step: an attack, shot, aim or grapple on
    the same targets (whatever weapons), a move to the same spot, or the same command."""
    if isinstance(command, Act) and command.action in ("attack", "shoot", "aim", "grapple"):
        return (command.actor, command.action, command.targets)
    return (command,)


def points_candidates(
    encounter: Encounter, actor: str, default: Command, most: int, knobs: PointsKnobs
) -> list[Command]:
    """The steps the Action Point search weighs on ``actor``'s turn, at most ``most``: the
    base's ``default`` first, then the first steps of ``tactical``'s next-best plans
    (:func:`~caltrop.sim.points_tactics.turn_plans`: another target, another spot, another
    weapon), then Hold Action (R33: the AP kept as floating RP for the defences to come), then
    the other legal commands in legal order; one of each kind (:func:`_kind`), legal now."""
    out = [default]
    kinds = {_kind(default)}

    def add(command: Command) -> None:
        if len(out) < most and _kind(command) not in kinds and encounter.is_legal(command):
            out.append(command)
            kinds.add(_kind(command))

    plans = turn_plans(Planner(encounter, knobs), encounter.index(actor))
    for plan in plans:
        if len(out) >= most - 1:
            break
        add(plan.step.command(encounter))
    add(Act(actor, "hold"))
    for command in encounter.legal_actions(actor):
        if not isinstance(command, EndTurn):
            add(command)
    return out


def _result(encounter: Encounter, side: Side) -> float:
    """1 if ``side`` won the ended ``encounter``, 0 if it lost, 0.5 if it ended undecided."""
    if encounter.winner is None:
        return 0.5
    return 1.0 if encounter.winner is side else 0.0


class _Worth:
    """What a playout cut before the end is worth to a side: its odds in a Lanchester race
    (aimed fire: a side's strength is its damage per turn times the Health it has to lose), each
    creature's damage per turn its ``threat`` from the tactics' exact dice distributions
    (:func:`caltrop.sim.tactics.profile`, or the Action Point tactics' :func:`book`)::

        strength(s) = (Σ threat of s's creatures standing) × (Σ Health of s's creatures)
        worth(s) = strength(s) / (strength(s) + strength(other))

    1 when only ``s`` stands, 0 when only the other does, ½ for a mirror."""

    __slots__ = ("threat",)

    def __init__(self, encounter: Encounter) -> None:
        if encounter.economy.name == "action_points":
            self.threat: tuple[float, ...] = points_book(encounter.definition).threat
        else:
            self.threat = profile(encounter.definition).threat

    def value(self, encounter: Encounter, side: Side) -> float:
        own_rate = own_health = foe_rate = foe_health = 0.0
        for creature, health, down, threat in zip(
            encounter.creatures, encounter.health, encounter.down, self.threat, strict=True
        ):
            if down or health <= 0:
                continue
            if creature.side is side:
                own_rate += threat
                own_health += health
            else:
                foe_rate += threat
                foe_health += health
        own, foe = own_rate * own_health, foe_rate * foe_health
        return 0.5 if own + foe == 0 else own / (own + foe)


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def _flat(results: dict[int, list[float]]) -> bool:
    """Whether every playout of every candidate came out the same (nothing here is at stake)."""
    first = results[0][0]
    return all(x == first for got in results.values() for x in got)


def _verdict(got: list[float], base: list[float], z: float) -> bool | None:
    """Paired differences ``got − base``: True if positive by ``z`` standard errors, False if
    not positive at all, None while undecided (ahead, but within ``z`` standard errors)."""
    n = min(len(got), len(base))
    diffs = [g - b for g, b in zip(got[:n], base[:n], strict=True)]
    total = sum(diffs)
    if total <= 0:
        return False
    mean = total / n
    var = sum((d - mean) ** 2 for d in diffs) / max(1, n - 1)
    return True if mean * mean * n >= z * z * var else None


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


__all__ = [
    "ACTION_LOAD",
    "ACTION_POINTS",
    "DEFAULT_BUDGET",
    "DEFAULT_CANDIDATES",
    "DEFAULT_HORIZON",
    "DEFAULT_MARGIN",
    "SearchPolicy",
    "Settings",
    "settings_for",
]
