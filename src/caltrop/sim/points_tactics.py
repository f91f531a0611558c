"""Tactics for the Action Point economy (seed 004): what the ``tactical`` policy does in an
Action Point encounter, and the simple rule set ``attack-weakest`` plays there.

Every number comes from the exact dice distributions of :mod:`caltrop.dice` (cached per encounter
definition), in the unit of :mod:`caltrop.sim.tactics`, **harm**: for a creature with Health
``h`` and threat ``T`` (the damage one of its fresh turns does), a total damage ``X`` is worth
``T × (E[min(X, h)] / h + P(X ≥ h))``. A defender weighs its own **loss**
``E[min(X, h)] + h × P(X ≥ h)``, which is the expected damage while a blow cannot down it.

**On its turn** a creature plans the rest of the turn and takes the plan's first step (it plans
again after every step, so a kill or a miss changes the plan). A plan is: optionally equip a
weapon (R44), move to a spot (R35), aim ``a`` times (R39), then ``n`` attacks of one kind on one
target — a melee attack with every equipped melee weapon that pays (R38), or a shot with one
ranged weapon (R39) — and with the AP left, Hold Action (R33). Its value is

* the harm of the ``n`` attacks on the target: each melee blow's damage distribution (dice halved
  up, R38), or each shot's hit chance at DC = distance with close-range Favor, far-range Disfavor
  and the aim stacks on the first shot, times the weapon's dice (R39), is passed through the
  **target's best defence** — for each damage it could roll, the cheaper in loss of no defence,
  Block or Dodge with its Resistance and any cover it holds against this attacker (R40, R45) —
  for as many attacks as its RP (and floating RP) pay for; the rest land undefended. Against
  a shot the target may instead spend one RP on Take Cover and defend one attack fewer with
  doubled dice (whichever harms it less). The damages of the ``n`` attacks are summed exactly
  (convolution), so a likely kill scores high; a melee fighter whose target holds cover from it
  also weighs a 1-AP sidestep around it (a changed position ends the cover, R40);
* minus ``safety`` × the harm the enemies can do to the creature at the plan's spot in their next
  turns (a melee enemy that can reach it, with AP left to swing; a shooter at the distance), the
  target's own counted only as far as the plan leaves it standing — so archers shoot from within
  close range but out of the melee fighters' reach when they can, and everyone prefers kills.
  **Patience**: after ``patience`` rounds this weight halves every ``patience_halflife`` rounds,
  so that a shooter that cannot be caught, nor hurt its chaser through Take Cover, stops
  running and commits (otherwise such a stand-off lasts for ever);
* plus ``hold`` × the defences a floating RP would buy: an enemy that can make more attacks on
  the creature than its 2 RP can defend (less one kept for Take Cover against shots) is worth
  one floating RP per extra attack, at the harm one defence saves;
* plus, for a plan that equips a weapon first, ``equip`` × the extra harm a fresh turn of attacks
  does with it.

If some plan attacks with a chance to do harm, the best such plan is taken (**move to engage**,
**aim before a long shot** when the extra Favor beats a second shot, **attack where harm is
greatest**). Otherwise the creature engages: a melee fighter moves toward the nearest enemy (to
1 m of it, R34), a shooter toward close range of the nearest enemy; it equips a better weapon if
that pays. AP left at the end of a turn are lost (R31), so with 2 or more left and an enemy able
to reach it next round it holds them as floating RP (R33); else it takes a Deep Breath if its
Stamina is down (R37), or (a shooter) aims at the nearest enemy, and ends the turn.

**In a defence window** (R45: the damage is known before the defender chooses):

* The defender compares, exactly, the loss of no defence, Block and Dodge (with Resistance, and
  the cover it already holds), and Take Cover first (which doubles the dice of this and later
  Block/Dodge against that source while positions stay, R40) — against shots only by default:
  the engine lets anyone take cover anywhere (cover is the GM's fact, R34), and a GM would not
  let a fighter duck behind a wall from a blade at arm's length (``cover_from_melee`` turns it
  on; with it, mirror matches stall). Its RP (and floating RP) are a
  budget for the attacks the attacker can still make on it this turn: a defence now that would
  leave a later attack undefended is taken only if it saves more than that later defence would.
* An adjacent ally gives Defense Assist when one more die lowers the defender's loss by at least
  ``assist_gain`` and it has a regular RP to spare beyond the one it keeps for its own defence
  while the attacker can still reach it (floating RP are kept for defence).
* A holder opposes an escape or a shake-off when its Stamina allows (R42, R43).

Everything is deterministic: the same state gets the same choice.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

from caltrop.core.commands import Act, Command, EndTurn, Pass
from caltrop.core.model import CreatureDef, EncounterDef, OffTurn, Weapon, WeaponKind
from caltrop.dice.ast import Expr
from caltrop.dice.defence import defence_total
from caltrop.dice.distribution import dice, distribution
from caltrop.economy.base import Resources
from caltrop.economy.points import movement
from caltrop.economy.points.actions import ADJACENT, UNARMED, melee_parts
from caltrop.economy.points.state import PointsState, points, stat
from caltrop.encounter import Encounter
from caltrop.sim.harm_kernel import series_harm
from caltrop.sim.knobs import PointsKnobs, TacticsHost

Pmf = npt.NDArray[np.float64]

#: Where a melee fighter stops next to its target (within :data:`ADJACENT`, R34).
STOP = 1.0
#: The largest number of aims a plan considers before a shot.
MAX_AIMS = 3
#: The AP of movement a shooter considers before shooting (per direction).
MAX_SHOOTER_STEPS = 4
_EPS = 1e-9


# -- exact damage after the defender's best choice ------------------------------------------------


@lru_cache(maxsize=4096)
def _pmf_of(expr: Expr) -> Pmf:
    """P(damage = k) for k = 0, 1, …: an expression's distribution with negatives at 0."""
    dist = distribution(expr)
    return _clamp(dist.min, dist.probabilities)


def _clamp(lo: int, probs: npt.NDArray[np.float64]) -> Pmf:
    hi = lo + len(probs) - 1
    out = np.zeros(max(hi, 0) + 1)
    idx = np.maximum(np.arange(lo, hi + 1), 0)
    np.add.at(out, idx, probs)
    return out


@lru_cache(maxsize=1024)
def melee_pmf(weapons: tuple[Weapon, ...], power_mod: int) -> Pmf:
    """R38: ceil(sum of the damage dice / 2) + the weapons' constants (+ Power Mod unarmed)."""
    dice_terms, constant = melee_parts(weapons, power_mod)
    dist = distribution(Expr(dice_terms)).halve_up() + constant
    return _clamp(dist.min, dist.probabilities)


@lru_cache(maxsize=1024)
def _defence_rows(
    resistance: int, block: int, dodge: int, cover: bool, assists: int, size: int
) -> npt.NDArray[np.float64]:
    """``rows[o, d, k]`` = P(k damage dealt | d incoming, option o), o = none, Block, Dodge (R40)."""
    rows = np.zeros((3, size, size))
    totals = []
    for rating in (block, dodge):
        dist = defence_total(rating, resistance, cover=cover, assists=assists)
        totals.append((np.arange(dist.min, dist.max + 1), dist.probabilities))
    for d in range(size):
        rows[0, d, max(0, d - resistance)] = 1.0
        values, probs = totals[0]
        np.add.at(rows[1, d], np.maximum(d - values, 0), probs)
        values, probs = totals[1]
        stopped = float(probs[values >= d].sum())
        rows[2, d, 0] += stopped
        rows[2, d, d] += 1.0 - stopped
    rows.setflags(write=False)
    return rows


@lru_cache(maxsize=1024)
def loss_weights(health: int, size: int) -> npt.NDArray[np.float64]:
    """The loss of each dealt damage k to a creature with ``health``: min(k, h) + h·[k ≥ h]."""
    k = np.arange(size, dtype=np.float64)
    h = max(1, health)
    return np.minimum(k, h) + np.where(k >= h, h, 0.0)


@dataclass(frozen=True, slots=True)
class Guard:
    """A defender's numbers (R40): Resistance, Block and Dodge Ratings."""

    resistance: int
    block: int
    dodge: int

    @staticmethod
    def of(creature: CreatureDef) -> Guard:
        return Guard(
            stat(creature, "resistance"),
            stat(creature, "block_rating"),
            stat(creature, "dodge_rating"),
        )


def option_losses(
    guard: Guard, incoming: int, health: int, *, cover: bool = False, assists: int = 0
) -> tuple[float, float, float]:
    """The defender's loss with no defence, Block and Dodge against a known damage (R40, R45)."""
    size = incoming + 1
    rows = _defence_rows(guard.resistance, guard.block, guard.dodge, cover, assists, size)
    w = loss_weights(health, size)
    losses = rows[:, incoming, :] @ w
    return float(losses[0]), float(losses[1]), float(losses[2])


def dealt_pmf(
    incoming: Pmf, guard: Guard, health: int, *, defends: bool, cover: bool = False
) -> Pmf:
    """The damage dealt by an attack of ``incoming`` damage when the defender, seeing each damage,
    takes the cheapest of no defence, Block and Dodge (only no defence if it cannot defend)."""
    size = len(incoming)
    rows = _defence_rows(guard.resistance, guard.block, guard.dodge, cover, 0, size)
    if not defends:
        out: Pmf = incoming @ rows[0]
        return out
    w = loss_weights(health, size)
    losses = rows @ w  # (3, size): loss of each option per incoming damage
    choice = np.argmin(losses, axis=0)  # ties: no defence, then Block
    chosen = rows[choice, np.arange(size), :]
    out = incoming @ chosen
    return out


def series_of(
    guard: Guard,
    damage: Pmf,
    hits: tuple[float, ...],
    health: int,
    defences: int,
    cover: bool,
    threat: float,
) -> tuple[float, float]:
    """(harm, P(down)) of ``len(hits)`` attacks of ``damage`` on a defender with ``guard`` and
    ``health`` (``hits``: each attack's chance to land), the defender taking its cheapest
    defence on the first ``defences`` of them (R40, R45): the numbers behind
    :meth:`Planner.series`; the sums are :func:`caltrop.sim.harm_kernel.series_harm`'s, which
    the compiled kernel (:mod:`caltrop.sim.fast.points_tactical`) calls too."""
    defended = dealt_pmf(damage, guard, health, defends=True, cover=cover)
    undefended = dealt_pmf(damage, guard, health, defends=False, cover=cover)
    size = len(hits) * (len(damage) - 1) + 1
    harm, kill = series_harm(
        defended,
        undefended,
        np.asarray(hits, np.float64),
        defences,
        health,
        threat,
        np.empty(size),
        np.empty(size),
    )
    return float(harm), float(kill)


@lru_cache(maxsize=4096)
def hit_chance(dexterity: int, favor: int, dc: int) -> float:
    """R39: a Dexterity check of (Dexterity + net Favor) d4s, at least 1 (R3), against DC."""
    return dice(max(1, dexterity + favor), 4).p_at_least(dc)


def shot_favor(weapon: Weapon, dc: int) -> int | None:
    """R39: +1 within close range, −1 within far range, None beyond it."""
    close = weapon.close if weapon.close is not None else 0
    far = weapon.far if weapon.far is not None else close
    if dc > far:
        return None
    return 1 if dc <= close else -1


# -- per definition: what every creature can do -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Option:
    """One kind of attack: a melee attack with these weapons, or a shot with one ranged weapon."""

    ranged: bool
    weapons: tuple[Weapon, ...]
    ap: int
    damage: Pmf = field(compare=False, hash=False)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(w.name for w in self.weapons if w is not UNARMED)

    @property
    def key(self) -> tuple[bool, tuple[str, ...]]:
        return (self.ranged, tuple(w.name for w in self.weapons))


def _ap(weapon: Weapon) -> int:
    return weapon.ap if weapon.ap is not None else 2


def attack_options(creature: CreatureDef, equipped: tuple[str, ...]) -> tuple[Option, ...]:
    """:func:`_attack_options`, cached (creature definitions are immutable)."""
    key = (id(creature), equipped)
    hit = _OPTIONS.get(key)
    if hit is not None and hit[0] is creature:
        return hit[1]
    found = _attack_options(creature, equipped)
    if len(_OPTIONS) > 4096:
        _OPTIONS.clear()
    _OPTIONS[key] = (creature, found)
    return found


_OPTIONS: dict[tuple[int, tuple[str, ...]], tuple[CreatureDef, tuple[Option, ...]]] = {}


def _attack_options(creature: CreatureDef, equipped: tuple[str, ...]) -> tuple[Option, ...]:
    """The attacks a creature with ``equipped`` weapons may make: for each AP price the melee
    set of equipped weapons with the most damage (R38: several at once cost the highest AP), or
    unarmed when none is in hand; and a shot with each equipped ranged weapon (R39)."""
    melee = [w for w in creature.weapons if w.kind is WeaponKind.MELEE and w.name in equipped]
    power_mod = stat(creature, "power_mod")
    out: list[Option] = []
    if not melee:
        out.append(Option(False, (UNARMED,), _ap(UNARMED), melee_pmf((UNARMED,), power_mod)))
    else:
        best: dict[int, Option] = {}
        for r in range(1, len(melee) + 1):
            for combo in combinations(melee, r):
                pmf = melee_pmf(combo, power_mod)
                ap = max(_ap(w) for w in combo)
                mean = float(np.dot(np.arange(len(pmf)), pmf))
                old = best.get(ap)
                if old is None or mean > float(np.dot(np.arange(len(old.damage)), old.damage)):
                    best[ap] = Option(False, combo, ap, pmf)
        out.extend(best[ap] for ap in sorted(best))
    for w in creature.weapons:
        if w.kind is WeaponKind.RANGED and w.name in equipped:
            out.append(Option(True, (w,), _ap(w), _pmf_of(w.dice)))
    return tuple(out)


@dataclass(slots=True)
class Book:
    """What the tactics precompute per encounter definition: each creature's guard, threat and
    whether it fights better at range, plus memoised exact results."""

    guards: tuple[Guard, ...]
    threat: tuple[float, ...]
    shooter: tuple[bool, ...]
    memo: dict[tuple[Any, ...], Any]


_BOOKS: dict[int, tuple[EncounterDef, Book]] = {}


def book(definition: EncounterDef) -> Book:
    """The :class:`Book` of a definition (cached by identity: definitions are immutable)."""
    hit = _BOOKS.get(id(definition))
    if hit is not None and hit[0] is definition:
        return hit[1]
    guards = tuple(Guard.of(c) for c in definition.participants)
    threat: list[float] = []
    shooter: list[bool] = []
    for c in definition.participants:
        equipped = c.equipped if c.equipped is not None else tuple(w.name for w in c.weapons)
        melee_rate, ranged_rate = _rates(c, tuple(w.name for w in c.weapons))
        now_melee, now_ranged = _rates(c, equipped)
        threat.append(max(1.0, now_melee, now_ranged))
        shooter.append(ranged_rate > melee_rate)
    built = Book(guards, tuple(threat), tuple(shooter), {})
    if len(_BOOKS) > 64:
        _BOOKS.clear()
    _BOOKS[id(definition)] = (definition, built)
    return built


def _rates(creature: CreatureDef, equipped: tuple[str, ...]) -> tuple[float, float]:
    """Expected damage of a fresh turn of melee attacks and of shots (at DC 6, with Favor when
    in close range) against no defence: the creature's threat and its preferred way to fight."""
    ap = stat(creature, "ap")
    dex = creature.aspects.get("Dexterity", 0)
    melee = ranged = 0.0
    for option in attack_options(creature, equipped):
        mean = float(np.dot(np.arange(len(option.damage)), option.damage)) * (ap // option.ap)
        if option.ranged:
            favor = shot_favor(option.weapons[0], 6)
            if favor is not None:
                ranged = max(ranged, mean * hit_chance(dex, favor, 6))
        else:
            melee = max(melee, mean)
    return melee, ranged


# -- geometry -----------------------------------------------------------------------------------------


def _st(encounter: Encounter, i: int) -> PointsState:
    return points(encounter.resources[i])


def _dist(a: tuple[float, float], b: tuple[float, float]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def _pos(s: PointsState) -> tuple[float, float]:
    return (s.x, s.y)


def travel_speed(encounter: Encounter, i: int) -> float:
    """R35 with R42: 0 while grappled; halved while holding someone in a grapple (the engine's
    own rule, :func:`caltrop.economy.points.movement.travel_speed`)."""
    return movement.travel_speed(encounter, i)


def move_cost(start: tuple[float, float], to: tuple[float, float], speed: float) -> int:
    """R35: 1 AP per travel speed meters (as the engine counts it)."""
    d = _dist(start, to)
    if d <= 0:
        return 0
    if speed <= 0:
        return 10**6
    return math.ceil(d / speed - 1e-9)


def _toward(
    start: tuple[float, float], goal: tuple[float, float], travel: float
) -> tuple[float, float]:
    d = _dist(start, goal)
    f = travel / d if d > 0 else 0.0
    return (
        round(start[0] + (goal[0] - start[0]) * f, 2),
        round(start[1] + (goal[1] - start[1]) * f, 2),
    )


def approach(
    start: tuple[float, float],
    goal: tuple[float, float],
    speed: float,
    ap: int,
    *,
    within: float = ADJACENT,
    stop: float = STOP,
) -> tuple[int, tuple[float, float]] | None:
    """The fewest AP that bring ``start`` within ``within`` m of ``goal`` (going on to ``stop`` m
    of it if those AP allow), and the spot; (0, start) if already there; None if ``ap`` is not
    enough."""
    d = _dist(start, goal)
    if d <= within - 1e-6:
        return 0, start
    if speed <= 0:
        return None
    for k in range(1, ap + 1):
        if d - k * speed > within - 0.02:
            continue
        for slack in (0.01, 0.03, 0.06):
            travel = min(d - stop, k * speed - slack)
            to = _toward(start, goal, travel)
            if _dist(to, goal) <= within - 1e-6 and move_cost(start, to, speed) <= k:
                return move_cost(start, to, speed), to
    return None


def sidestep(
    start: tuple[float, float], around: tuple[float, float], speed: float
) -> tuple[int, tuple[float, float]] | None:
    """1 AP around an adjacent creature, staying at :data:`STOP` m from it (to end its cover)."""
    if speed <= 0:
        return None
    dx, dy = start[0] - around[0], start[1] - around[1]
    d = math.hypot(dx, dy) or 1.0
    ux, uy = dx / d, dy / d
    for deg in (60, -60, 30, -30):
        r = math.radians(deg)
        vx, vy = ux * math.cos(r) - uy * math.sin(r), ux * math.sin(r) + uy * math.cos(r)
        to = (round(around[0] + vx * STOP, 2), round(around[1] + vy * STOP, 2))
        if (
            to != start
            and _dist(to, around) <= ADJACENT - 1e-6
            and move_cost(start, to, speed) == 1
        ):
            return 1, to
    return None


def furthest_toward(
    start: tuple[float, float], goal: tuple[float, float], speed: float, ap: int, stop: float
) -> tuple[int, tuple[float, float]] | None:
    """As far toward ``goal`` as ``ap`` allows, no nearer than ``stop`` m; None if no move."""
    d = _dist(start, goal)
    travel = min(d - stop, ap * speed - 0.01)
    if speed <= 0 or travel < 0.05:
        return None
    to = _toward(start, goal, travel)
    cost = move_cost(start, to, speed)
    if cost < 1 or cost > ap:
        return None
    return cost, to


# -- threats ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Threat:
    """What the enemies can do to a creature at a spot in their next turns: the harm each could
    do (by enemy index), and the value of each floating RP (best first)."""

    harm: dict[int, float]
    holds: tuple[float, ...]

    def total(self, spare: int | None = None, kill: float = 0.0) -> float:
        """The summed harm; ``spare``'s share scaled by ``1 − kill`` (the plan may down it)."""
        out = 0.0
        for e, h in self.harm.items():
            out += h * (1.0 - kill) if e == spare else h
        return out


class Planner:
    """The exact numbers behind one creature's decisions in one encounter state."""

    def __init__(self, encounter: Encounter, knobs: PointsKnobs) -> None:
        self.enc = encounter
        self.knobs = knobs
        self.book = book(encounter.definition)
        self.memo = self.book.memo
        self._options: dict[int, tuple[Option, ...]] = {}
        self._speeds: dict[int, float] = {}
        self._reach: dict[
            tuple[int, tuple[float, float], int], list[tuple[Option, int, float]]
        ] = {}
        late = max(0, encounter.round - knobs.patience)
        #: the weight of safety now (see ``PointsKnobs.patience``)
        self.safety = knobs.safety * 0.5 ** (late / knobs.patience_halflife)
        #: threats by (creature, spot): valid for this state only, like the planner
        self._threats: dict[tuple[int, tuple[float, float]], Threat] = {}

    # -- exact harm of a series of attacks ------------------------------------------------------

    def speed(self, i: int) -> float:
        found = self._speeds.get(i)
        if found is None:
            found = self._speeds[i] = travel_speed(self.enc, i)
        return found

    def options(self, i: int) -> tuple[Option, ...]:
        found = self._options.get(i)
        if found is None:
            found = attack_options(self.enc.creatures[i], _st(self.enc, i).equipped)
            self._options[i] = found
        return found

    def series(
        self,
        attacker: int,
        option: Option,
        hits: tuple[float, ...],
        target: int,
        *,
        health: int | None = None,
        defences: int | None = None,
        cover: bool = False,
    ) -> tuple[float, float]:
        """(harm, P(down)) of ``len(hits)`` attacks of ``option`` on ``target`` (``hits``: each
        attack's chance to land, 1 for melee), the target defending the first ``defences`` of
        them (default: what its RP and floating RP pay for now) with its best choice each."""
        enc = self.enc
        h = enc.health[target] if health is None else health
        if defences is None:
            s = _st(enc, target)
            defences = s.rp + s.floating
        key = ("series", attacker, option.key, hits, target, h, defences, cover)
        found = self.memo.get(key)
        if found is not None:
            return found  # type: ignore[no-any-return]
        harm, kill = series_of(
            self.book.guards[target], option.damage, hits, h, defences, cover,
            self.book.threat[target],
        )  # fmt: skip
        if len(self.memo) > 500_000:
            self.memo.clear()
        self.memo[key] = (harm, kill)
        return harm, kill

    def against(
        self,
        attacker: int,
        option: Option,
        hits: tuple[float, ...],
        target: int,
        *,
        defences: int | None = None,
        in_cover: bool = False,
    ) -> tuple[float, float]:
        """:meth:`series` against a defender that may also Take Cover (R40): already in cover
        from the attacker, every defence is doubled; otherwise, against a shot (or any attack,
        with ``knobs.cover_from_melee``), it may spend one RP on cover at the first attack and
        defend one attack fewer, doubled — whichever harms it less."""
        if defences is None:
            s = _st(self.enc, target)
            defences = s.rp + s.floating
        if in_cover:
            return self.series(attacker, option, hits, target, defences=defences, cover=True)
        plain = self.series(attacker, option, hits, target, defences=defences)
        if defences >= 2 and (option.ranged or self.knobs.cover_from_melee):
            covered = self.series(attacker, option, hits, target, defences=defences - 1, cover=True)
            if covered[0] < plain[0]:
                return covered
        return plain

    def defence_value(self, attacker: int, option: Option, p_hit: float, target: int) -> float:
        """The harm one defence saves the target against one attack of ``option``."""
        undefended, _ = self.series(attacker, option, (p_hit,), target, defences=0)
        defended, _ = self.series(attacker, option, (p_hit,), target, defences=1)
        return max(0.0, undefended - defended)

    # -- what enemies can do at a spot ------------------------------------------------------------

    def enemies(self, i: int) -> list[int]:
        side = self.enc.creatures[i].side
        return [
            j
            for j, c in enumerate(self.enc.creatures)
            if not self.enc.down[j] and c.side is not side
        ]

    def reach_attacks(
        self, e: int, spot: tuple[float, float], ap: int, speed: float | None = None
    ) -> list[tuple[Option, int, float]]:
        """The attacks enemy ``e`` (from where it stands, with ``ap``) could make on a creature
        at ``spot``: per option, how many and each one's chance to land."""
        key = (e, spot, ap)
        if speed is None:
            found = self._reach.get(key)
            if found is not None:
                return found
        enc = self.enc
        s = _st(enc, e)
        here = _pos(s)
        d = _dist(here, spot)
        v = self.speed(e) if speed is None else speed
        out: list[tuple[Option, int, float]] = []
        dex = enc.creatures[e].aspects.get("Dexterity", 0)
        for option in self.options(e):
            if option.ranged:
                dc = math.ceil(d - 1e-9)
                favor = shot_favor(option.weapons[0], dc)
                if favor is None:
                    continue
                n = ap // option.ap
                if n:
                    out.append((option, n, hit_chance(dex, favor, dc)))
            else:
                if d <= ADJACENT + 1e-9:
                    steps = 0
                elif v <= 0:
                    continue
                else:
                    steps = math.ceil((d - STOP) / v - 1e-9)
                n = (ap - steps) // option.ap
                if n > 0:
                    out.append((option, n, 1.0))
        if speed is None:
            self._reach[key] = out
        return out

    def threat_at(self, i: int, spot: tuple[float, float]) -> Threat:
        """The enemies' next turns against ``i`` at ``spot`` (see :class:`Threat`)."""
        key = (i, spot)
        found = self._threats.get(key)
        if found is not None:
            return found
        harm: dict[int, float] = {}
        holds: list[float] = []
        rp = stat(self.enc.creatures[i], "rp")
        for e in self.enemies(i):
            best: tuple[float, Option, int, float] | None = None
            for option, n, p in self.reach_attacks(e, spot, stat(self.enc.creatures[e], "ap")):
                value, _ = self.against(e, option, (p,) * n, i, defences=rp)
                if best is None or value > best[0]:
                    best = (value, option, n, p)
            if best is None:
                continue
            value, option, n, p = best
            harm[e] = value
            # each attack beyond the RP wants a floating RP (beyond rp − 1 against shots, where
            # one RP goes to Take Cover)
            coverable = option.ranged or self.knobs.cover_from_melee
            extra = n - (rp - 1 if coverable else rp)
            if extra > 0:
                holds += [self.defence_value(e, option, p, i)] * extra
        holds.sort(reverse=True)
        found = Threat(harm, tuple(holds))
        self._threats[key] = found
        return found

    def hold_value(self, i: int, threat: Threat, holds: int) -> float:
        """``knobs.hold`` × the defences ``holds`` more floating RP would buy."""
        have = _st(self.enc, i).floating
        return self.knobs.hold * sum(threat.holds[have : have + holds])


# -- plans ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """The first step of a plan: equip a weapon, move to the spot, aim, or attack."""

    actor: int
    weapon: Weapon | None
    move_ap: int
    spot: tuple[float, float]
    aims: int
    target: int
    option: Option

    def command(self, encounter: Encounter) -> Act:
        cid = encounter.creatures[self.actor].id
        if self.weapon is not None:
            return Act(cid, "equip", (self.weapon.name,))
        if self.move_ap:
            return Act(cid, "move", to=self.spot)
        tid = encounter.creatures[self.target].id
        if self.aims:
            return Act(cid, "aim", (tid,))
        if self.option.ranged:
            return Act(cid, "shoot", (tid,), self.option.names)
        return Act(cid, "attack", (tid,), self.option.names)


@dataclass(frozen=True, slots=True)
class Plan:
    """The rest of a turn: [equip] → [move] → aims → ``attacks`` attacks → holds; its value."""

    value: float
    step: Step
    attacks: int


def _equip_bonus(planner: Planner, i: int, weapon: Weapon) -> float:
    """``knobs.equip`` × the extra harm of a fresh turn of attacks with ``weapon`` in hand, on the
    enemy nearest to ``i`` (melee), or at DC 6 (ranged)."""
    enc = planner.enc
    s = _st(enc, i)
    creature = enc.creatures[i]
    foes = planner.enemies(i)
    if not foes:
        return 0.0
    t = min(foes, key=lambda j: (_dist(_pos(s), _pos(_st(enc, j))), j))
    ap = stat(creature, "ap")
    dex = creature.aspects.get("Dexterity", 0)

    def turn(equipped: tuple[str, ...]) -> float:
        best = 0.0
        for option in attack_options(creature, equipped):
            n = ap // option.ap
            if n == 0:
                continue
            p = 1.0
            if option.ranged:
                favor = shot_favor(option.weapons[0], 6)
                p = 0.0 if favor is None else hit_chance(dex, favor, 6)
            value, _ = planner.against(
                i, option, (p,) * n, t, defences=stat(enc.creatures[t], "rp")
            )
            best = max(best, value)
        return best

    gain = turn((*s.equipped, weapon.name)) - turn(s.equipped)
    return planner.knobs.equip * max(0.0, gain)


def _cost_factor(encounter: Encounter, i: int, target: int) -> int:
    """R42/R43: an attack costs double when grappled (but not against the grappler) or when
    attacking the creature that scales this one."""
    s = _st(encounter, i)
    them = encounter.creatures[target].id
    factor = 1
    if s.grappled_by is not None and s.grappled_by != them:
        factor = 2
    if _st(encounter, target).scaling == encounter.creatures[i].id:
        factor = 2
    return factor


def _shooter_spots(
    planner: Planner, i: int, target: int, ap: int
) -> Iterator[tuple[int, tuple[float, float]]]:
    """Where a shooter might shoot from: here, and 1 to 4 AP of movement toward the target or
    away from (and sideways of) the nearest enemy that can reach it in melee."""
    enc = planner.enc
    s = _st(enc, i)
    here = _pos(s)
    yield 0, here
    speed = planner.speed(i)
    if speed <= 0:
        return
    goal = _pos(_st(enc, target))
    menace: tuple[float, float] | None = None
    best = math.inf
    for e in planner.enemies(i):
        if any(not o.ranged for o, _, _ in planner.reach_attacks(e, here, 6)):
            d = _dist(here, _pos(_st(enc, e)))
            if d < best:
                best, menace = d, _pos(_st(enc, e))
    directions: list[tuple[float, float]] = []
    d_goal = _dist(here, goal)
    if d_goal > 0:
        directions.append(((goal[0] - here[0]) / d_goal, (goal[1] - here[1]) / d_goal))
    if menace is not None:
        dm = _dist(here, menace)
        if dm > 0:
            ux, uy = (here[0] - menace[0]) / dm, (here[1] - menace[1]) / dm
            for deg in (0, 45, -45, 90, -90):
                r = math.radians(deg)
                directions.append(
                    (ux * math.cos(r) - uy * math.sin(r), ux * math.sin(r) + uy * math.cos(r))
                )
    for k in range(1, min(ap, MAX_SHOOTER_STEPS) + 1):
        for n, (dx, dy) in enumerate(directions):
            travel = k * speed - 0.01
            if n == 0:
                travel = min(travel, d_goal - STOP)
                if travel < 0.05:
                    continue
            to = (round(here[0] + dx * travel, 2), round(here[1] + dy * travel, 2))
            cost = move_cost(here, to, speed)
            if 1 <= cost <= ap:
                yield cost, to


def turn_plans(planner: Planner, i: int) -> list[Plan]:
    """Every attack plan of ``i`` for the rest of its turn (see the module docs), best first."""
    enc = planner.enc
    knobs = planner.knobs
    me = _st(enc, i)
    creature = enc.creatures[i]
    here = _pos(me)
    speed = planner.speed(i)
    dex = creature.aspects.get("Dexterity", 0)
    plans: list[Plan] = []
    prefixes: list[tuple[Weapon | None, int, float]] = [(None, 0, 0.0)]
    for w in creature.weapons:
        if w.name not in me.equipped and _ap(w) <= me.ap:
            bonus = _equip_bonus(planner, i, w)
            if bonus > 0:
                prefixes.append((w, _ap(w), bonus))
    for weapon, equip_ap, bonus in prefixes:
        if weapon is None:
            options = planner.options(i)
        else:
            options = attack_options(creature, (*me.equipped, weapon.name))
        ap0 = me.ap - equip_ap
        for t in planner.enemies(i):
            them = _st(enc, t)
            there = _pos(them)
            in_cover = creature.id in them.cover_from
            factor = _cost_factor(enc, i, t)
            for option in options:
                cost = option.ap * factor
                if not option.ranged:
                    near = approach(here, there, speed, ap0)
                    if near is None:
                        continue
                    spots = [near]
                    if in_cover and near[0] == 0:
                        side = sidestep(here, there, speed)
                        if side is not None:
                            spots.append(side)  # R40: a changed position ends the cover
                else:
                    spots = list(_shooter_spots(planner, i, t, ap0 - cost))
                for move_ap, spot in spots:
                    rem = ap0 - move_ap
                    if rem < cost:
                        continue
                    threat = planner.threat_at(i, spot)
                    cover = in_cover and move_ap == 0
                    if not option.ranged:
                        n = rem // cost
                        harm, kill = planner.against(i, option, (1.0,) * n, t, in_cover=cover)
                        left = rem - n * cost
                        value = (
                            harm
                            - planner.safety * threat.total(t, kill)
                            + planner.hold_value(i, threat, left // 2)
                            + bonus
                        )
                        step = Step(i, weapon, move_ap, spot, 0, t, option)
                        plans.append(Plan(value, step, n))
                        continue
                    dc = math.ceil(_dist(spot, there) - 1e-9)
                    favor = shot_favor(option.weapons[0], dc)
                    if favor is None:
                        continue
                    held = me.aim if (move_ap == 0 and weapon is None) else 0
                    later = hit_chance(dex, favor, dc)
                    for aims in range(0, min(MAX_AIMS, rem - cost) + 1):
                        first_hit = hit_chance(dex, favor + aims + held, dc)
                        for n in range(1, (rem - aims) // cost + 1):
                            hits = (first_hit,) + (later,) * (n - 1)
                            harm, kill = planner.against(i, option, hits, t, in_cover=cover)
                            left = rem - aims - n * cost
                            value = (
                                harm
                                - planner.safety * threat.total(t, kill)
                                + planner.hold_value(i, threat, left // 2)
                                + bonus
                            )
                            if harm < knobs.min_harm:
                                continue
                            step = Step(i, weapon, move_ap, spot, aims, t, option)
                            plans.append(Plan(value, step, n))
    plans = [p for p in plans if p.attacks > 0]
    plans.sort(key=lambda p: -p.value)  # stable: ties keep the order they were made in
    return plans


# -- the turn ---------------------------------------------------------------------------------------


def choose_turn(planner: Planner, i: int) -> Command:
    """``i``'s next step on its own turn (see the module docs)."""
    enc = planner.enc
    creature = enc.creatures[i]
    cid = creature.id
    me = _st(enc, i)
    if me.prone and me.ap >= 1:
        stand = Act(cid, "stand")
        if enc.is_legal(stand):
            return stand  # R44: up first
    for plan in turn_plans(planner, i):
        command = plan.step.command(enc)
        if enc.is_legal(command):
            return command
    return _engage(planner, i)


def _engage(planner: Planner, i: int) -> Command:
    """No attack pays this turn: close in, equip, hold, breathe, aim — or end the turn."""
    enc = planner.enc
    creature = enc.creatures[i]
    cid = creature.id
    me = _st(enc, i)
    here = _pos(me)
    foes = planner.enemies(i)
    if not foes:
        return EndTurn(cid)
    if me.grappled_by is not None and me.ap >= 2:
        escape = Act(cid, "escape")
        if enc.is_legal(escape):
            return escape  # R42: nothing to hit from here; break free
    speed = travel_speed(enc, i)
    shooter = planner.book.shooter[i]
    # equip what pays (a better melee weapon, a ranged weapon for a shooter)
    best_equip: tuple[float, Act] | None = None
    for w in creature.weapons:
        if w.name not in me.equipped and _ap(w) <= me.ap:
            bonus = _equip_bonus(planner, i, w)
            if bonus > 0 and (best_equip is None or bonus > best_equip[0]):
                best_equip = (bonus, Act(cid, "equip", (w.name,)))
    nearest = min(foes, key=lambda j: (_dist(here, _pos(_st(enc, j))), enc.health[j], j))
    there = _pos(_st(enc, nearest))
    ranged = [o for o in planner.options(i) if o.ranged]
    move: tuple[int, tuple[float, float]] | None = None
    if shooter and ranged:
        close = max((o.weapons[0].close or 0) for o in ranged)
        if _dist(here, there) > close:
            move = approach(here, there, speed, me.ap, within=close, stop=close - 0.3)
            if move is None:
                move = furthest_toward(here, there, speed, me.ap, close - 0.3)
    elif _dist(here, there) > ADJACENT:
        move = approach(here, there, speed, me.ap)
        if move is None:
            move = furthest_toward(here, there, speed, me.ap, STOP)
    if best_equip is not None and (
        move is None or me.ap - move[0] >= _ap_of(best_equip[1], creature)
    ):
        return best_equip[1]
    if move is not None and move[0] >= 1:
        command = Act(cid, "move", to=move[1])
        if enc.is_legal(command):
            return command
    threat = planner.threat_at(i, here)
    if me.ap >= 2 and threat.harm:
        # R33: AP left at the end of the turn are lost; held, they are floating RP for the
        # defences (cover, assists) to come while an enemy can reach this creature
        return Act(cid, "hold")
    if me.ap >= 1 and me.stamina < creature.stats.get("stamina", 0):
        return Act(cid, "breath")  # R37
    if me.ap >= 1 and shooter and ranged:
        target = min(foes, key=lambda j: (_dist(here, _pos(_st(enc, j))), j))
        aim = Act(cid, "aim", (enc.creatures[target].id,))
        if enc.is_legal(aim):
            return aim  # R39: the stack waits for the next shot
    return EndTurn(cid)


def _ap_of(equip: Act, creature: CreatureDef) -> int:
    weapon = creature.weapon(equip.targets[0])
    return _ap(weapon) if weapon is not None else 2


# -- the defence window -----------------------------------------------------------------------------


def _attacks_left(planner: Planner, attacker: int, target: int) -> tuple[Option, int, float] | None:
    """The attacks the attacker can still make on ``target`` this turn (only the turn's owner
    has AP): its option with the most expected harm, how many, and each one's chance to land."""
    enc = planner.enc
    if enc.turn_owner != enc.creatures[attacker].id:
        return None
    ap = _st(enc, attacker).ap
    best: tuple[float, tuple[Option, int, float]] | None = None
    for option, n, p in planner.reach_attacks(attacker, _pos(_st(enc, target)), ap):
        value = n * p * float(np.dot(np.arange(len(option.damage)), option.damage))
        if best is None or value > best[0]:
            best = (value, (option, n, p))
    return None if best is None else best[1]


def _expected_saving(
    guard: Guard, option: Option, p: float, health: int, *, cover: bool
) -> tuple[float, float]:
    """Per future attack of ``option``: the loss one defence saves (best of Block and Dodge over
    none), and the loss cover saves on top of a defence."""
    pmf = option.damage
    size = len(pmf)
    w = loss_weights(health, size)
    plain = _defence_rows(guard.resistance, guard.block, guard.dodge, cover, 0, size) @ w
    doubled = _defence_rows(guard.resistance, guard.block, guard.dodge, True, 0, size) @ w
    best_plain = np.minimum(plain[0], np.minimum(plain[1], plain[2]))
    best_cover = np.minimum(doubled[0], np.minimum(doubled[1], doubled[2]))
    saving = p * float(pmf @ (plain[0] - best_plain))
    cover_gain = p * float(pmf @ (best_plain - best_cover))
    return saving, cover_gain


def choose_defence(planner: Planner, i: int) -> Command:
    """The defender's choice in its window: no defence, Take Cover first, Block or Dodge."""
    enc = planner.enc
    top = enc.pending_roll
    assert top is not None
    ctx = top.context
    cid = enc.creatures[i].id
    me = _st(enc, i)
    attacker = int(ctx["attacker"])
    source = enc.creatures[attacker].id
    incoming = int(ctx["incoming"])
    guard = planner.book.guards[i]
    health = enc.health[i]
    covered = bool(ctx.get("cover")) or source in me.cover_from
    own_turn = enc.turn_owner == cid
    budget = me.ap if own_turn else me.rp + me.floating
    factor = 2 if _cost_factor(enc, i, attacker) > 1 else 1
    none_now, block_now, dodge_now = option_losses(guard, incoming, health, cover=covered)
    mode = "block" if block_now <= dodge_now else "dodge"
    defend_now = min(block_now, dodge_now)
    more = _attacks_left(planner, attacker, i)
    n_more, saving, cover_gain = 0, 0.0, 0.0
    if more is not None:
        option, n_more, p = more
        saving, cover_gain = _expected_saving(guard, option, p, health, cover=covered)
    choices: list[tuple[float, Command]] = [
        (none_now - min(n_more, budget // factor) * saving, Pass(cid))
    ]
    if budget >= factor:
        later = min(n_more, (budget - factor) // factor)
        choices.append((defend_now - later * saving, Act(cid, mode)))
    shot = ctx.get("verb") == "shoot"
    if (
        not covered
        and not ctx.get("mode")
        and budget >= 1 + factor
        and (shot or planner.knobs.cover_from_melee)
    ):
        _, block_c, dodge_c = option_losses(guard, incoming, health, cover=True)
        later = min(n_more, (budget - 1 - factor) // factor)
        stays = 0.0
        if not shot:
            full = stat(enc.creatures[attacker], "ap")
            cheapest = min((o.ap for o in planner.options(attacker) if not o.ranged), default=0)
            if cheapest:
                stays = planner.knobs.cover_future * (full // cheapest) * cover_gain
        value = min(block_c, dodge_c) - later * (saving + cover_gain) - stays
        choices.append((value, Act(cid, "cover")))
    best = choices[0]
    for value, command in choices[1:]:
        if value < best[0] - 1e-9:
            best = (value, command)
    command = best[1]
    if isinstance(command, Act) and not enc.is_legal(command):
        return Pass(cid)
    return command


def choose_assist(planner: Planner, i: int) -> Command:
    """Defense Assist for an adjacent ally when one more die lowers its loss enough and a regular
    RP is to spare (one kept while the attacker can still reach this helper)."""
    enc = planner.enc
    top = enc.pending_roll
    assert top is not None
    ctx = top.context
    cid = enc.creatures[i].id
    defender = top.roller
    mode = ctx.get("mode")
    assist = Act(cid, "assist")
    if mode not in ("block", "dodge") or not enc.is_legal(assist):
        return Pass(cid)
    me = _st(enc, i)
    if enc.turn_owner == cid:
        return Pass(cid)
    attacker = int(ctx["attacker"])
    source = enc.creatures[attacker].id
    covered = bool(ctx.get("cover")) or source in _st(enc, defender).cover_from
    guard = planner.book.guards[defender]
    k = int(ctx.get("assists", 0))
    incoming = int(ctx["incoming"])
    health = enc.health[defender]
    at = 1 if mode == "block" else 2
    before = option_losses(guard, incoming, health, cover=covered, assists=k)[at]
    after = option_losses(guard, incoming, health, cover=covered, assists=k + 1)[at]
    keep = 1 if _attacks_left(planner, attacker, i) is not None else 0
    if before - after >= planner.knobs.assist_gain and me.rp - keep >= 1:
        return assist
    return Pass(cid)


def choose_reaction(planner: Planner, i: int) -> Command:
    enc = planner.enc
    top = enc.pending_roll
    cid = enc.creatures[i].id
    if top is None:
        return Pass(cid)
    if top.stage == "defence":
        if top.roller == i:
            return choose_defence(planner, i)
        return choose_assist(planner, i)
    if top.stage == "contest":
        oppose = Act(cid, "oppose")
        if enc.is_legal(oppose):
            return oppose  # R42/R43: keep the hold (or the footing) when the Stamina allows
    return _pass_or_first(enc, cid)


def _pass_or_first(enc: Encounter, cid: str) -> Command:
    if enc.is_legal(Pass(cid)):
        return Pass(cid)
    return next(iter(enc.legal_actions(cid)))


def points_tactics(policy: TacticsHost, encounter: Encounter, i: int) -> Command:
    """The tactical policy's choice in an Action Point encounter (registered with
    :func:`caltrop.sim.tactics.register_tactics`): in a window its reaction; on its turn, first
    an ally's off-turn step where R32 ``off_turn_actions: any`` allows one
    (:func:`off_turn_step`), then its own next step."""
    planner = Planner(encounter, policy.points_knobs)
    if encounter.pending:
        return choose_reaction(planner, i)
    if encounter.definition.ruleset.off_turn_actions is OffTurn.ANY:
        step = off_turn_step(planner, i)
        if step is not None:
            return step
    return choose_turn(planner, i)


#: Aim stacks an ally builds off turn at most (R39: each is +1 Favor on its next shot).
OFF_TURN_AIM = 2


def off_turn_step(planner: Planner, i: int) -> Command | None:
    """An ally's worthwhile action during ``i``'s turn, outside any window (R32
    ``off_turn_actions: any``: "any action it can pay for, at any moment"), or None.

    An ally's RP are set to 2 at the start of every other participant's turn (R31) and nobody
    attacks it during its own side's turn, so the 2 RP it holds now would go unused: it spends
    them (2 RP pay for 1 AP, R32) — never its floating RP (R33), kept for defence. In order, the
    first that applies, for the first ally (in turn order) it applies to:

    * prone: stand up (1 AP, R44), so its own turn starts on its feet;
    * a shooter (:attr:`Book.shooter`) with a ranged weapon in hand and an enemy within its far
      range: Aim at the nearest such enemy (1 AP, R39: +1 Favor on its next shot, stacking), up
      to :data:`OFF_TURN_AIM` stacks;
    * a melee fighter adjacent to no enemy: move toward the nearest enemy as far as 1 AP goes,
      to no nearer than 1 m (R34, R35), so its own turn starts closer;
    * Stamina below its maximum and no Aim to lose: Deep Breath (1 AP, R37).

    Each step spends the ally's RP, so the turn owner is asked again and, when no ally has a
    step left, takes its own (:func:`choose_turn`)."""
    enc = planner.enc
    owner = enc.creatures[i]
    if enc.turn_owner != owner.id:
        return None
    for j, ally in enumerate(enc.creatures):
        if j == i or enc.down[j] or ally.side is not owner.side:
            continue
        me = _st(enc, j)
        if me.rp < 2:
            continue
        step = _ally_step(planner, j, me)
        if step is not None and enc.is_legal(step):
            return step
    return None


def _ally_step(planner: Planner, j: int, me: PointsState) -> Command | None:
    """The first of :func:`off_turn_step`'s steps that applies to ally ``j``, or None."""
    enc = planner.enc
    ally = enc.creatures[j]
    aid = ally.id
    if me.prone:
        return Act(aid, "stand")
    foes = planner.enemies(j)
    if not foes or me.grappled_by is not None:
        return None
    here = _pos(me)
    by_distance = sorted(foes, key=lambda k: (_dist(here, _pos(_st(enc, k))), k))
    if planner.book.shooter[j]:
        if me.aim < OFF_TURN_AIM:
            reach = max(
                (
                    w.far if w.far is not None else (w.close or 0)
                    for w in ally.weapons
                    if w.kind is WeaponKind.RANGED and w.name in me.equipped
                ),
                default=0,
            )
            for k in by_distance:
                if math.ceil(_dist(here, _pos(_st(enc, k))) - 1e-9) <= reach:
                    return Act(aid, "aim", (enc.creatures[k].id,))
    elif all(_dist(here, _pos(_st(enc, k))) > ADJACENT for k in foes):
        there = _pos(_st(enc, by_distance[0]))
        move = furthest_toward(here, there, travel_speed(enc, j), 1, STOP)
        if move is not None:
            return Act(aid, "move", to=move[1])
    if me.stamina < stat(ally, "stamina") and me.aim == 0:
        return Act(aid, "breath")
    return None


# -- the advisor for the budget machinery of caltrop.sim.tactics -----------------------------------


class PointsAdvisor:
    """Action Points: a creature's RP are set again at the start of every other participant's
    turn and its AP at its own (R31), so its budget lasts the turn being played."""

    def segment(self, encounter: Encounter, i: int) -> list[int]:
        owner = encounter.turn_owner
        return [] if owner is None else [encounter.index(owner)]

    def start_of_turn(self, encounter: Encounter, o: int) -> Resources:
        if encounter.turn_owner == encounter.creatures[o].id:
            return encounter.resources[o].copy()
        fresh = points(encounter.economy.initial(encounter.creatures[o]))
        fresh.ap = stat(encounter.creatures[o], "ap")
        fresh.rp = 0
        return fresh


# -- the simple rule set (attack-weakest in an Action Point encounter) -------------------------------


def simple_points_command(encounter: Encounter, actor: str) -> Command:
    """The baseline for Action Points: attack the adjacent enemy with the least Health (every
    melee weapon in hand at once, R38); else shoot the weakest enemy within close range; else
    move toward the nearest enemy (to 1 m, or to close range with a ranged weapon in hand); else
    shoot the weakest within far range; else end the turn. In a defence window: Block if it can,
    else pass; never assist."""
    enc = encounter
    if enc.pending:
        block = Act(actor, "block")
        top = enc.pending_roll
        if top is not None and top.stage == "defence" and enc.is_legal(block):
            return block
        return _pass_or_first(enc, actor)
    i = enc.index(actor)
    creature = enc.creatures[i]
    me = _st(enc, i)
    here = _pos(me)
    side = creature.side
    foes = [j for j, c in enumerate(enc.creatures) if not enc.down[j] and c.side is not side]
    by_health = sorted(foes, key=lambda j: (enc.health[j], j))
    by_distance = sorted(foes, key=lambda j: (_dist(here, _pos(_st(enc, j))), j))
    melee = tuple(
        w.name for w in creature.weapons if w.kind is WeaponKind.MELEE and w.name in me.equipped
    )
    ranged = [w for w in creature.weapons if w.kind is WeaponKind.RANGED and w.name in me.equipped]
    for j in by_health:
        command = Act(actor, "attack", (enc.creatures[j].id,), melee)
        if _dist(here, _pos(_st(enc, j))) <= ADJACENT and enc.is_legal(command):
            return command
    for j in by_health:
        d = math.ceil(_dist(here, _pos(_st(enc, j))) - 1e-9)
        for w in ranged:
            command = Act(actor, "shoot", (enc.creatures[j].id,), (w.name,))
            if d <= (w.close or 0) and enc.is_legal(command):
                return command
    if by_distance and me.ap >= 1:
        there = _pos(_st(enc, by_distance[0]))
        stop = max((w.close or 0) - 1.0 for w in ranged) if ranged else STOP
        move = furthest_toward(here, there, travel_speed(enc, i), me.ap, max(stop, STOP))
        if move is not None:
            command = Act(actor, "move", to=move[1])
            if enc.is_legal(command):
                return command
    for j in by_health:
        for w in ranged:
            command = Act(actor, "shoot", (enc.creatures[j].id,), (w.name,))
            if enc.is_legal(command):
                return command
    return EndTurn(actor)


class AttackWeakestPointsPolicy:
    """``attack-weakest`` in every economy: the simple Action Point rules
    (:func:`simple_points_command`) in an Action Point encounter, else
    :class:`caltrop.sim.policies.AttackWeakestPolicy`."""

    def __init__(self) -> None:
        from caltrop.sim.policies import AttackWeakestPolicy

        self._other = AttackWeakestPolicy()

    def choose(self, encounter: Encounter, actor: str) -> Command:
        if encounter.economy.name == "action_points":
            return simple_points_command(encounter, actor)
        return self._other.choose(encounter, actor)


__all__ = [
    "AttackWeakestPointsPolicy",
    "Guard",
    "Planner",
    "PointsAdvisor",
    "PointsKnobs",
    "attack_options",
    "book",
    "choose_defence",
    "dealt_pmf",
    "off_turn_step",
    "option_losses",
    "points_tactics",
    "simple_points_command",
]
