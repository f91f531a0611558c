"""Compile an Action Point :class:`~caltrop.core.model.EncounterDef` (seed 004) to flat arrays.

Only what the fixed tactic (``attack-weakest``, :func:`caltrop.sim.points_tactics.
simple_points_command`) can reach is compiled: each creature's side, Health, Speed check pool
(R30), AP and RP (R31), Dexterity (R39), Block Rating and Resistance (R40), position and travel
speed (R34, R35), its melee attack with every melee weapon in hand (R38: the highest AP, the
damages summed and halved up, Power Mod for unarmed) and each ranged weapon in hand (R39: AP,
close and far range, damage dice). Stamina, Dodge, size, weight and the other stats only matter
to actions the tactic never takes (leap, dodge, grapple, scale, stealth), so they are left out.

Refused with :class:`~caltrop.sim.fast.compile.FastPathError`: another economy, an initiative
Aspect a participant lacks, and weapon dice the kernel does not roll (halving or groups inside a
weapon's dice, a melee attack without dice).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from caltrop.core.model import (
    CreatureDef,
    Economy,
    EncounterDef,
    Halving,
    Initiative,
    Side,
    Weapon,
    WeaponKind,
)
from caltrop.dice.ast import Const, Dice, Expr
from caltrop.economy.points.actions import UNARMED, melee_damage
from caltrop.economy.points.state import stat
from caltrop.encounter.state import find_aspect as _find_aspect
from caltrop.sim.fast.compile import FastPathError

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

#: Where a melee fighter stops next to its target (``caltrop.sim.points_tactics.STOP``).
STOP = 1.0

# creature table columns (int)
(
    C_SIDE,
    C_HEALTH,
    C_INIT_D4,
    C_INIT_SCORE,
    C_AP,
    C_RP,
    C_DEX,
    C_BLOCK_D4,
    C_RESIST,
    C_MELEE_AP,
    C_MELEE_T0,
    C_MELEE_T1,
    C_MELEE_CONST,
    C_R0,
    C_R1,
) = range(15)
C_COLUMNS = 15
# creature table columns (float)
F_X, F_Y, F_SPEED, F_STOP, F_SPACING = range(5)
F_COLUMNS = 5
# ranged weapon table columns
W_AP, W_CLOSE, W_FAR, W_T0, W_T1, W_CONST = range(6)
W_COLUMNS = 6
# dice term table columns
T_COUNT, T_SIDES, T_SIGN = range(3)
T_COLUMNS = 3


@dataclass(frozen=True, slots=True)
class CompiledPoints:
    """An Action Point encounter as flat arrays, creatures in participant order.

    ``creatures`` (int, columns ``C_*``) and ``places`` (float, columns ``F_*``) per creature;
    ``ranged`` (columns ``W_*``) per ranged weapon in hand, each creature's in the order its stat
    block lists them (``C_R0:C_R1``); ``terms`` (columns ``T_*``) are the dice of the melee attacks
    (``C_MELEE_T0:C_MELEE_T1``) and of the ranged weapons (``W_T0:W_T1``). ``check_initiative``
    is 1 when the order comes from a Speed check (R30), 0 for the GM's (participant) order.
    ``melee_text[c]`` and ``ranged_text[w]`` are the damage expressions the engine rolls (its
    text), ``ranged_names[w]`` the weapons' names.
    """

    definition: EncounterDef
    ids: tuple[str, ...]
    creatures: I64
    places: F64
    ranged: I64
    terms: I64
    check_initiative: int
    melee_text: tuple[str, ...]
    ranged_text: tuple[str, ...]
    ranged_names: tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.ids)


def is_points(definition: EncounterDef) -> bool:
    """Whether ``definition`` plays the Action Point economy (seed 004)."""
    return definition.ruleset.economy is Economy.ACTION_POINTS


def _dice_terms(expr: Expr, where: str) -> tuple[list[tuple[int, int, int]], int]:
    """The dice terms ``(count, sides, sign)`` of a weapon's damage and its constant."""
    terms: list[tuple[int, int, int]] = []
    constant = 0
    for term in expr.terms:
        node = term.node
        if isinstance(node, Dice):
            if node.sides < 1:
                raise FastPathError(f"{where}: {node} has no faces")
            terms.append((node.count, node.sides, term.sign))
        elif isinstance(node, Const):
            constant += term.sign * node.value
        else:
            raise FastPathError(
                f"{where}: the Action Point fast path rolls weapon dice of dice and constants "
                f"only, not {node}"
            )
    return terms, constant


def compile_points(definition: EncounterDef) -> CompiledPoints:
    """Compile an Action Point encounter for the kernel; :class:`FastPathError` says why not."""
    ruleset = definition.ruleset
    if not is_points(definition):
        raise FastPathError(
            f"{definition.name}: not an Action Point encounter (economy: {ruleset.economy.value})"
        )
    if ruleset.multi_weapon_halving is not Halving.TOGETHER:
        raise FastPathError(
            f"{definition.name}: the fast path halves several weapons' dice together (R38); "
            f"multi_weapon_halving: {ruleset.multi_weapon_halving.value} plays on the engine"
        )
    check = ruleset.initiative is Initiative.CHECK
    creatures: list[list[int]] = []
    places: list[list[float]] = []
    ranged: list[list[int]] = []
    terms: list[tuple[int, int, int]] = []
    melee_text: list[str] = []
    ranged_text: list[str] = []
    ranged_names: list[str] = []
    for creature in definition.participants:
        creatures.append(_creature(creature, check, ruleset.initiative_aspect, terms))
        melee = _melee(creature)
        row = creatures[-1]
        row[C_MELEE_AP] = max(w.ap if w.ap is not None else 2 for w in melee)  # R38
        row[C_MELEE_T0] = len(terms)
        constant = 0
        for w in melee:
            found, c = _dice_terms(w.dice, f"{creature.id}: {w.name}")
            terms.extend(found)
            constant += c
            if w is UNARMED:
                constant += stat(creature, "power_mod")  # R38
        row[C_MELEE_T1] = len(terms)
        row[C_MELEE_CONST] = constant
        if row[C_MELEE_T1] == row[C_MELEE_T0]:
            raise FastPathError(f"{creature.id}: a melee attack without dice (R38)")
        melee_text.append(str(melee_damage(creature, melee)))
        row[C_R0] = len(ranged)
        closes: list[int] = []
        for w in _in_hand(creature, WeaponKind.RANGED):
            found, c = _dice_terms(w.dice, f"{creature.id}: {w.name}")
            if not found:
                raise FastPathError(f"{creature.id}: {w.name} rolls no dice")
            close = w.close or 0
            far = w.far if w.far is not None else w.close
            closes.append(close)
            ranged.append(
                [
                    w.ap if w.ap is not None else 2,
                    close,
                    -1 if far is None else far,
                    len(terms),
                    len(terms) + len(found),
                    c,
                ]
            )
            terms.extend(found)
            ranged_text.append(str(w.dice))
            ranged_names.append(w.name)
        row[C_R1] = len(ranged)
        # simple_points_command: a shooter closes to its close range less 1 m, others to 1 m
        stop = max(float(c) - 1.0 for c in closes) if closes else STOP
        places.append(
            [
                float(stat(creature, "x")),
                float(stat(creature, "y")),
                float(stat(creature, "travel_speed")),
                max(stop, STOP),
                float(definition.ruleset.min_spacing),  # R34: a move ends this far from others
            ]
        )

    def table(rows: list[list[int]] | list[tuple[int, int, int]], width: int) -> I64:
        if not rows:
            return np.zeros((0, width), np.int64)
        return np.ascontiguousarray(np.asarray(rows, dtype=np.int64).reshape(len(rows), width))

    return CompiledPoints(
        definition=definition,
        ids=tuple(c.id for c in definition.participants),
        creatures=table(creatures, C_COLUMNS),
        places=np.ascontiguousarray(
            np.asarray(places, dtype=np.float64).reshape(len(places), F_COLUMNS)
        ),
        ranged=table(ranged, W_COLUMNS),
        terms=table(terms, T_COLUMNS),
        check_initiative=int(check),
        melee_text=tuple(melee_text),
        ranged_text=tuple(ranged_text),
        ranged_names=tuple(ranged_names),
    )


def _in_hand(creature: CreatureDef, kind: WeaponKind) -> list[Weapon]:
    equipped = (
        creature.equipped
        if creature.equipped is not None
        else tuple(w.name for w in creature.weapons)
    )
    return [w for w in creature.weapons if w.kind is kind and w.name in equipped]


def _melee(creature: CreatureDef) -> tuple[Weapon, ...]:
    """The weapons of the tactic's melee attack: every melee weapon in hand, else unarmed."""
    return tuple(_in_hand(creature, WeaponKind.MELEE)) or (UNARMED,)


def _creature(
    creature: CreatureDef, check: bool, aspect: str | None, terms: list[tuple[int, int, int]]
) -> list[int]:
    row = [0] * C_COLUMNS
    npc = creature.side is Side.NPC
    row[C_SIDE] = 1 if npc else 0
    row[C_HEALTH] = creature.health
    if check:
        name = _find_aspect(creature, aspect)
        if name is None:
            raise FastPathError(f"initiative: {creature.name} has no Aspect {aspect!r} (R30)")
        value = creature.aspects[name]
        row[C_INIT_D4] = max(1, value)
        row[C_INIT_SCORE] = value if npc else 0  # R30: NPC ties by the higher score
    row[C_AP] = stat(creature, "ap")
    row[C_RP] = stat(creature, "rp")
    row[C_DEX] = creature.aspects.get("Dexterity", 0)
    row[C_BLOCK_D4] = max(1, stat(creature, "block_rating"))
    row[C_RESIST] = stat(creature, "resistance")
    return row
