"""Compile an Action Point encounter (seed 004) for the compiled ``tactical`` kernel.

What is fixed for the encounter becomes flat arrays: each creature's side, Health, Speed check
pool (R30), AP and RP (R31), Dexterity (R39), Block and Dodge Ratings and Resistance (R40),
position and travel speed (R34, R35), its weapons (R38, R39, R44) and, for every set of weapons
it can come to hold (it equips, never stows), the attack options the policy weighs
(:func:`caltrop.sim.points_tactics.attack_options`), with their dice for the kernel to roll and
their mean damage. The policy's own numbers that the state decides — the harm of a series of
attacks (:func:`~caltrop.sim.points_tactics.series_of`), the defender's losses
(:func:`~caltrop.sim.points_tactics.option_losses`), a defence's expected saving, a shot's hit
chance — are not tabulated beforehand (positions are continuous, so their keys are many): the
kernel looks each up in a :class:`Numbers` table by an integer key, and a key it does not find
is worked out here, by the policy's own functions, and the encounter played again
(:mod:`.simulate`). So every float the kernel compares is the one the Python policy computes.

Refused with :class:`~caltrop.sim.fast.compile.FastPathError` (the runner then plays the
Python policy): another economy; ``multi_weapon_halving: each`` (R38); Action Point weights other than the defaults; a creature
with more than :data:`MAX_WEAPONS` weapons, Health above 255, more than 8 RP or 20 AP, a
weapon whose dice the kernel does not roll, a ranged weapon reaching beyond
:data:`MAX_RANGE` m, or a melee attack without dice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Final

import numpy as np
import numpy.typing as npt

from caltrop.core.model import (
    CreatureDef,
    EncounterDef,
    Halving,
    Initiative,
    OffTurn,
    Side,
    WeaponKind,
)
from caltrop.economy.points.state import stat
from caltrop.encounter.state import find_aspect
from caltrop.sim.fast.compile import FastPathError
from caltrop.sim.fast.points.compile import _dice_terms, is_points
from caltrop.sim.fast.points_tactical.table import build_table, series_batch
from caltrop.sim.knobs import PointsKnobs
from caltrop.sim.points_tactics import (
    Guard,
    Option,
    _expected_saving,
    attack_options,
    book,
    dealt_pmf,
    option_losses,
)

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

#: Weapons per creature at most (its held sets are a bit mask).
MAX_WEAPONS: Final = 6
#: The farthest reach of a ranged weapon the kernel's keys hold (DC ≤ 127).
MAX_RANGE: Final = 120

# creature columns (int)
(
    C_SIDE,
    C_HEALTH,
    C_INIT_D4,
    C_INIT_SCORE,
    C_AP,
    C_RP,
    C_DEX,
    C_BLOCK,
    C_DODGE,
    C_RESIST,
    C_EQUIPPED,
    C_SHOOTER,
    C_W0,
    C_W1,
) = range(14)
C_COLUMNS: Final = 14
# creature columns (float)
F_X, F_Y, F_SPEED, F_THREAT = range(4)
F_COLUMNS: Final = 4
# weapon columns: every weapon of every creature, in stat-block order
W_KIND, W_AP, W_CLOSE, W_FAR, W_BIT = range(5)
W_COLUMNS: Final = 5
# option columns (float: its mean damage in ``option_mean``)
O_RANGED, O_AP, O_WEAPON, O_T0, O_T1, O_CONST, O_LEN = range(7)
O_COLUMNS: Final = 7
# dice term columns
T_COUNT, T_SIDES, T_SIGN = range(3)

# -- the keys of the policy's numbers (see Numbers) ------------------------------------------------

K_SERIES, K_SAVING, K_LOSSES, K_HIT, K_AGAINST = 1, 2, 3, 4, 5
#: a hit code: the chance 1.0 (a melee blow), 0.0 (no shot), else 2 + pool * 128 + DC
P_ONE, P_ZERO = 0, 1


def hit_code(pool: int, dc: int) -> int:
    """The code of a Dexterity check of ``pool`` d4s (at least 1, R3) against ``dc`` (R39);
    a pool of ``dc`` or more is named by ``max(1, dc)`` (it reaches ``dc`` for certain)."""
    pool = max(1, pool)
    return 2 + (max(1, dc) if pool >= dc else pool) * 128 + dc


def series_key(
    target: int, option: int, p1: int, p2: int, n: int, health: int, defences: int, cover: bool
) -> int:
    """``n`` attacks of ``option`` on ``target``: the first lands with hit code ``p1``, the
    others with ``p2``."""
    return (
        (K_SERIES << 60)
        | (target << 54)
        | (option << 45)
        | (p1 << 31)
        | (p2 << 17)
        | (n << 13)
        | (health << 5)
        | (defences << 1)
        | int(cover)
    )


@dataclass(slots=True)
class Numbers:
    """The policy's numbers the kernel has asked for, by key: a hash table of up to three
    floats per key (``keys``/``values``, open addressing, -1 for empty) that only grows (:meth:`
    fill`). A defender's losses, a defence's saving and a hit chance are the Python policy's
    functions' (``option_losses``, ``_expected_saving``, ``hit_chance``); the harm of a series
    of attacks is :func:`~caltrop.sim.harm_kernel.series_harm` on the policy's ``dealt_pmf``
    rows — what :func:`~caltrop.sim.points_tactics.series_of` computes — many at once
    (:func:`.table.series_batch`)."""

    compiled: CompiledPointsTactical
    known: set[int] = field(default_factory=set)
    #: the table's slots (key, then three floats' bits) and the same memory as floats
    keys: I64 = field(default_factory=lambda: np.full((16, 4), -1, np.int64))
    values: F64 = field(default_factory=lambda: np.full((16, 4), -1, np.int64).view(np.float64))
    bits: int = 4
    _new_keys: list[I64] = field(default_factory=list)
    _new_values: list[F64] = field(default_factory=list)
    #: the damage dealt after the defender's choice (``dealt_pmf``), a row per (target,
    #: option, Health, defends, cover)
    _pmf_row: dict[tuple[int, int, int, bool, bool], int] = field(default_factory=dict)
    _pmf_rows: list[F64] = field(default_factory=list)

    def fill(self, wanted: npt.NDArray[np.int64]) -> int:
        """Work out every key of ``wanted`` not yet known; returns how many were new."""
        fresh = [k for k in np.unique(wanted[wanted > 0]).tolist() if k not in self.known]
        if not fresh:
            return 0
        series = [k for k in fresh if k >> 60 == K_SERIES]
        against = [k for k in fresh if k >> 60 == K_AGAINST]
        others = [k for k in fresh if k >> 60 not in (K_SERIES, K_AGAINST)]
        if others:
            self._add(np.asarray(others, np.int64), [self._work_out(k) for k in others])
        if series:
            keys = np.asarray(series, np.int64)
            self._add(keys, self._series(keys))
        if against:
            keys = np.asarray(against, np.int64)
            self._add(keys, self._against(keys))
        self._rebuild()
        return len(fresh)

    def _add(self, keys: I64, values: object) -> None:
        self.known.update(keys.tolist())
        self._new_keys.append(keys)
        self._new_values.append(np.asarray(values, np.float64).reshape(len(keys), 3))

    def _rebuild(self) -> None:
        keys = np.concatenate(self._new_keys)
        values = np.concatenate(self._new_values)
        self._new_keys, self._new_values = [keys], [values]
        bits = max(4, (2 * len(keys)).bit_length())
        self.keys = build_table(keys, values, bits)
        self.values = self.keys.view(np.float64)
        self.bits = bits

    def _against(self, keys: I64) -> F64:
        """Planner.against without cover held, against a shot with 2 defences or more: the
        plain series, or Take Cover and one defence fewer, doubled, if that harms less."""
        body = keys & ~np.int64(7 << 60)
        plain = self._series((K_SERIES << 60) | body)
        one_fewer = ((((keys >> 1) & 15) - 1) << 1) | 1
        covered = self._series((K_SERIES << 60) | (body & ~np.int64(31)) | one_fewer)
        better = covered[:, 0] < plain[:, 0]
        out: F64 = np.where(better[:, None], covered, plain)
        return out

    def _series(self, keys: I64) -> F64:
        """Each series key's (harm, P(down), 0)."""
        c = self.compiled
        target = (keys >> 54) & 63
        option = (keys >> 45) & 511
        n = (keys >> 13) & 15
        health = (keys >> 5) & 255
        defences = (keys >> 1) & 15
        cover = (keys & 1).astype(bool)
        chances = {code: self._chance(code) for code in np.unique((keys >> 17) & 16383).tolist()}
        for code in np.unique((keys >> 31) & 16383).tolist():
            chances.setdefault(code, self._chance(code))
        first = np.asarray([chances[x] for x in ((keys >> 31) & 16383).tolist()], np.float64)
        later = np.asarray([chances[x] for x in ((keys >> 17) & 16383).tolist()], np.float64)
        rows = zip(target.tolist(), option.tolist(), health.tolist(), cover.tolist(), strict=True)
        undefended = np.empty(len(keys), np.int64)
        defended = np.empty(len(keys), np.int64)
        for r, (t, o, h, cv) in enumerate(rows):
            undefended[r] = self._pmf(t, o, h, False, False)
            defended[r] = self._pmf(t, o, h, True, cv) if defences[r] > 0 else undefended[r]
        width = max(len(row) for row in self._pmf_rows)
        pmfs = np.zeros((len(self._pmf_rows), width))
        for r, row in enumerate(self._pmf_rows):
            pmfs[r, : len(row)] = row
        size = np.asarray([len(c.options_py[o].damage) for o in option.tolist()], np.int64)
        threat = np.asarray([c.threat[t] for t in target.tolist()], np.float64)
        return series_batch(
            pmfs, size, defended, undefended, first, later, n, defences, health, threat
        )

    def _pmf(self, target: int, option: int, health: int, defends: bool, cover: bool) -> int:
        """The row of ``dealt_pmf`` for a target at ``health`` against ``option``."""
        key = (target, option, health, defends, cover)
        row = self._pmf_row.get(key)
        if row is None:
            c = self.compiled
            pmf = dealt_pmf(
                c.options_py[option].damage,
                c.guards[target],
                health,
                defends=defends,
                cover=cover,
            )
            row = self._pmf_row[key] = len(self._pmf_rows)
            self._pmf_rows.append(np.asarray(pmf, np.float64))
        return row

    def _work_out(self, key: int) -> tuple[float, float, float]:
        c = self.compiled
        kind = key >> 60
        if kind == K_HIT:
            pool, dc = (key >> 7) & 127, key & 127
            return (_hit(pool, dc), 0.0, 0.0)
        if kind == K_SAVING:
            defender = (key >> 54) & 63
            option = c.options_py[(key >> 45) & 511]
            p = self._chance((key >> 31) & 16383)
            health, cover = (key >> 5) & 255, bool(key & 1)
            saving, gain = _expected_saving(c.guards[defender], option, p, health, cover=cover)
            return (saving, gain, 0.0)
        if kind == K_LOSSES:
            defender = (key >> 54) & 63
            incoming, health = (key >> 30) & 255, (key >> 5) & 255
            assists, cover = (key >> 1) & 15, bool(key & 1)
            return option_losses(c.guards[defender], incoming, health, cover=cover, assists=assists)
        raise FastPathError(f"the kernel asked for an unknown number (key {key})")

    @staticmethod
    def _chance(code: int) -> float:
        if code == P_ONE:
            return 1.0
        if code == P_ZERO:
            return 0.0
        code -= 2
        return _hit(code // 128, code % 128)


def _hit(pool: int, dc: int) -> float:
    """:func:`caltrop.sim.points_tactics.hit_chance`'s number: ``pool`` d4s reach ``dc``."""
    from caltrop.sim.points_tactics import hit_chance

    return hit_chance(pool, 0, dc)


@dataclass(frozen=True, slots=True, eq=False)
class CompiledPointsTactical:
    """An Action Point encounter for the compiled tactical kernel (see the module docs).

    ``creatures`` (int, ``C_*``) and ``places`` (float, ``F_*``) per creature; ``weapons``
    (``W_*``) every creature's weapons, creature ``c``'s at ``C_W0:C_W1``; ``options`` (``O_*``)
    the attack options, those of creature ``c`` holding the weapons of mask ``m`` at
    ``option_span[c, m]`` (start, stop); ``option_mean`` each one's mean damage; ``terms`` its
    dice; ``options_py`` the policy's :class:`~caltrop.sim.points_tactics.Option` of each.
    ``numbers`` is the table of the policy's numbers, filled as the kernel asks (it grows only,
    so runs of the same compiled encounter share it)."""

    definition: EncounterDef
    ids: tuple[str, ...]
    creatures: I64
    places: F64
    weapons: I64
    options: I64
    option_span: I64
    option_mean: F64
    terms: I64
    check_initiative: int
    anytime: int
    spacing: float
    knobs: PointsKnobs
    options_py: tuple[Option, ...]
    guards: tuple[Guard, ...]
    threat: tuple[float, ...]
    numbers: Numbers = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "numbers", Numbers(self))

    @property
    def size(self) -> int:
        return len(self.ids)


#: Compiled encounters kept in this process, by their definition's text (the newest last): the
#: same encounter compiled again (a web table's panel, a second ``assess``) finds its numbers
#: table already filled.
_COMPILED: dict[str, CompiledPointsTactical] = {}
KEEP: Final = 8


def compile_points_tactical(
    definition: EncounterDef, knobs: PointsKnobs | None = None, *, cached: bool = True
) -> CompiledPointsTactical:
    """Compile an Action Point encounter for the kernel (or, with ``cached``, find it compiled
    in this process, numbers and all); :class:`FastPathError` says why not."""
    knobs = knobs or PointsKnobs()
    if not cached:
        return _compile(definition, knobs)
    key = repr((definition, knobs))
    found = _COMPILED.pop(key, None)
    if found is None:
        found = _compile(definition, knobs)
    _COMPILED[key] = found
    while len(_COMPILED) > KEEP:
        del _COMPILED[next(iter(_COMPILED))]
    return found


def _compile(definition: EncounterDef, knobs: PointsKnobs) -> CompiledPointsTactical:
    ruleset = definition.ruleset
    name = definition.name
    if not is_points(definition):
        raise FastPathError(f"{name}: not an Action Point encounter")
    if knobs != PointsKnobs():
        raise FastPathError(f"{name}: the kernel plays the default Action Point weights")
    if ruleset.multi_weapon_halving is not Halving.TOGETHER:
        raise FastPathError(
            f"{name}: multi_weapon_halving: {ruleset.multi_weapon_halving.value} (R38) plays on "
            "the engine"
        )
    if len(definition.participants) > 60:
        raise FastPathError(f"{name}: more than 60 participants")
    check = ruleset.initiative is Initiative.CHECK
    the_book = book(definition)
    creatures: list[list[int]] = []
    places: list[list[float]] = []
    weapons: list[list[int]] = []
    options: list[list[int]] = []
    means: list[float] = []
    terms: list[tuple[int, int, int]] = []
    options_py: list[Option] = []
    spans: list[list[tuple[int, int]]] = []
    for c, creature in enumerate(definition.participants):
        row = _creature(creature, check, ruleset.initiative_aspect)
        row[C_SHOOTER] = int(the_book.shooter[c])
        row[C_W0] = len(weapons)
        held = creature.equipped if creature.equipped is not None else None
        for bit, w in enumerate(creature.weapons):
            close = w.close or 0
            far = w.far if w.far is not None else close
            if w.kind is WeaponKind.RANGED and far > MAX_RANGE:
                raise FastPathError(f"{creature.id}: {w.name} reaches beyond {MAX_RANGE} m")
            weapons.append(
                [int(w.kind is WeaponKind.RANGED), w.ap if w.ap is not None else 2, close, far, bit]
            )
            if held is None or w.name in held:
                row[C_EQUIPPED] |= 1 << bit
        row[C_W1] = len(weapons)
        creatures.append(row)
        places.append(
            [
                float(stat(creature, "x")),
                float(stat(creature, "y")),
                float(stat(creature, "travel_speed")),
                float(the_book.threat[c]),
            ]
        )
        mine: list[tuple[int, int]] = []
        start_mask = row[C_EQUIPPED]
        for mask in range(1 << MAX_WEAPONS):
            if mask & start_mask != start_mask or mask >> len(creature.weapons):
                mine.append((0, 0))
                continue
            equipped = tuple(w.name for b, w in enumerate(creature.weapons) if mask >> b & 1)
            first = len(options)
            for option in attack_options(creature, equipped):
                options.append(_option(creature, option, terms))
                means.append(float(np.dot(np.arange(len(option.damage)), option.damage)))
                options_py.append(option)
            mine.append((first, len(options)))
        spans.append(mine)
    if len(options) > 511:
        raise FastPathError(f"{name}: more than 511 attack options")
    return CompiledPointsTactical(
        definition=definition,
        ids=tuple(c.id for c in definition.participants),
        creatures=np.asarray(creatures, np.int64).reshape(len(creatures), C_COLUMNS),
        places=np.asarray(places, np.float64).reshape(len(places), F_COLUMNS),
        weapons=np.asarray(weapons, np.int64).reshape(len(weapons), W_COLUMNS),
        options=np.asarray(options, np.int64).reshape(len(options), O_COLUMNS),
        option_span=np.asarray(spans, np.int64).reshape(len(spans), 1 << MAX_WEAPONS, 2),
        option_mean=np.asarray(means, np.float64),
        terms=np.asarray(terms, np.int64).reshape(len(terms), 3),
        check_initiative=int(check),
        anytime=int(ruleset.off_turn_actions is OffTurn.ANY),
        spacing=float(ruleset.min_spacing),
        knobs=knobs,
        options_py=tuple(options_py),
        guards=the_book.guards,
        threat=the_book.threat,
    )


def _option(creature: CreatureDef, option: Option, terms: list[tuple[int, int, int]]) -> list[int]:
    """An option's row: its dice terms appended to ``terms`` (R38: a melee attack's dice are
    halved up as a whole, its constants and the unarmed Power Mod added after)."""
    t0 = len(terms)
    constant = 0
    weapon = -1
    for w in option.weapons:
        found, c = _dice_terms(w.dice, f"{creature.id}: {w.name}")
        terms.extend(found)
        constant += c
        if w.name == "unarmed" and not option.ranged:
            constant += stat(creature, "power_mod")
        if option.ranged:
            weapon = next(b for b, x in enumerate(creature.weapons) if x.name == w.name)
    if len(terms) == t0:
        raise FastPathError(f"{creature.id}: an attack without dice (R38, R39)")
    if constant < 0 or any(sign < 0 for _, _, sign in terms[t0:]) or len(option.damage) > 256:
        # the kernel's keys hold an incoming damage of 0..255
        raise FastPathError(f"{creature.id}: damage below 0 or above 255 (R38, R39)")
    return [int(option.ranged), option.ap, weapon, t0, len(terms), constant, len(option.damage)]


def _creature(creature: CreatureDef, check: bool, aspect: str | None) -> list[int]:
    row = [0] * C_COLUMNS
    npc = creature.side is Side.NPC
    row[C_SIDE] = 1 if npc else 0
    if len(creature.weapons) > MAX_WEAPONS:
        raise FastPathError(f"{creature.id}: more than {MAX_WEAPONS} weapons")
    if not 0 <= creature.health <= 255:
        raise FastPathError(f"{creature.id}: Health {creature.health} is beyond 0–255")
    row[C_HEALTH] = creature.health
    if check:
        found = find_aspect(creature, aspect)
        if found is None:
            raise FastPathError(f"initiative: {creature.name} has no Aspect {aspect!r} (R30)")
        value = creature.aspects[found]
        row[C_INIT_D4] = max(1, value)
        row[C_INIT_SCORE] = value if npc else 0  # R30: NPC ties by the higher score
    row[C_AP] = stat(creature, "ap")
    row[C_RP] = stat(creature, "rp")
    if not (0 <= row[C_AP] <= 20 and 0 <= row[C_RP] <= 8):
        raise FastPathError(f"{creature.id}: AP {row[C_AP]} and RP {row[C_RP]} beyond 20 and 8")
    row[C_DEX] = creature.aspects.get("Dexterity", 0)
    row[C_BLOCK] = stat(creature, "block_rating")
    row[C_DODGE] = stat(creature, "dodge_rating")
    row[C_RESIST] = stat(creature, "resistance")
    return row


#: The turns a shooter looks along (degrees off the line away from its menace) and a melee
#: fighter's sidesteps, as :mod:`caltrop.sim.points_tactics` computes their cosines and sines.
SHOOTER_TURNS: Final = (0, 45, -45, 90, -90)
SIDESTEPS: Final = (60, -60, 30, -30)


def rotations(degrees: tuple[int, ...]) -> F64:
    """``(cos, sin)`` of each angle, with :func:`math.radians` as the policy computes them."""
    return np.asarray(
        [(math.cos(math.radians(d)), math.sin(math.radians(d))) for d in degrees], np.float64
    )


__all__ = [
    "CompiledPointsTactical",
    "Numbers",
    "compile_points_tactical",
    "hit_code",
    "series_key",
]
