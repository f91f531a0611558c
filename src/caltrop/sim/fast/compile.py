"""Compile an :class:`~caltrop.core.model.EncounterDef` to the flat integer arrays the kernel plays.

Only what the fast tactic (stated in :mod:`caltrop.sim.fast`) can use is compiled: each creature's
side, Health, Evasion and reset Load (R10, R20), its **attack options** (one per attack action
and fitting weapon, in the order the stat block lists them) and its **hinder-type team actions**
(team actions that impose disadvantage on an enemy's roll, R15). Effects, checks, help and other
actions are never taken by the tactic, so they are left out.

Anything the kernel cannot play exactly is refused with :class:`FastPathError` naming it: another
economy than Action Load, ``initiative: check``, dice it cannot roll (``/2`` halving), and attacks
of Cost 0 (the tactic attacks while the gate allows, so its turn would never end).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from caltrop.core.model import (
    ActionDef,
    ActionKind,
    CreatureDef,
    Economy,
    EncounterDef,
    Initiative,
    LoadReset,
    Side,
    Weapon,
)
from caltrop.core.pool import Revision
from caltrop.dice.ast import Const, Dice, Div, Expr, Group, Node
from caltrop.errors import FastPathError as FastPathError

I64 = npt.NDArray[np.int64]

#: The kernel keeps the source keys applied to one roll in a 64-bit mask.
MAX_SOURCES = 64
#: The kernel keeps creature sets (helpers of a roll) in a 64-bit mask.
MAX_CREATURES = 64


@dataclass(frozen=True, slots=True)
class AttackOption:
    """One way to attack: an attack action, with one of the weapons it may use (or none)."""

    creature: int
    action: ActionDef
    weapon: Weapon | None


@dataclass(frozen=True, slots=True)
class CompiledEncounter:
    """An encounter as flat ``int64`` arrays (creatures in the GM's turn order, R21).

    Per creature ``c`` (``C`` of them): ``side`` (0 PC, 1 NPC), ``health``, ``evasion``,
    ``reset_load`` (R10: Exhaustion − Load Buffer; legacy R20: 0), and the half-open ranges
    ``attack_start[c]:attack_end[c]`` and ``team_start[c]:team_end[c]`` into the tables below.

    Per attack option ``a``: ``attack_aspect`` (the Aspect's value), ``attack_cost``,
    ``attack_fixed`` (legacy fixed pool, −1 if none), ``attack_bonus_max`` (the largest total of
    the weapon's and the action's extra dice), ``attack_bonus_mean2`` (twice their mean) and
    ``term_start[a]:term_end[a]`` into the dice terms: ``term_count``, ``term_sides``,
    ``term_sign`` (a term with 0 sides is the constant ``term_count``).

    Per hinder-type team action ``m``: ``team_aspect``, ``team_cost``, ``team_source`` (an id of
    its advantage source key, R14, below :data:`MAX_SOURCES`).

    ``legacy`` (R20) and ``round_reset`` (R19) are the ruleset's options as 0/1.
    """

    definition: EncounterDef
    ids: tuple[str, ...]
    options: tuple[AttackOption, ...]
    team_actions: tuple[ActionDef, ...]
    sources: tuple[str, ...]
    side: I64
    health: I64
    evasion: I64
    reset_load: I64
    attack_start: I64
    attack_end: I64
    team_start: I64
    team_end: I64
    attack_aspect: I64
    attack_cost: I64
    attack_fixed: I64
    attack_bonus_max: I64
    attack_bonus_mean2: I64
    term_start: I64
    term_end: I64
    term_count: I64
    term_sides: I64
    term_sign: I64
    team_aspect: I64
    team_cost: I64
    team_source: I64
    legacy: int
    round_reset: int

    @property
    def size(self) -> int:
        return len(self.ids)


def with_options(
    definition: EncounterDef,
    *,
    load_reset: LoadReset | str | None = None,
    revision: Revision | str | None = None,
) -> EncounterDef:
    """``definition`` with its ruleset's ``load_reset`` (R19) and/or ``revision`` (R20) replaced."""
    ruleset = definition.ruleset
    if load_reset is not None:
        ruleset = replace(ruleset, load_reset=LoadReset(load_reset))
    if revision is not None:
        ruleset = replace(ruleset, revision=Revision(revision))
    return replace(definition, ruleset=ruleset) if ruleset != definition.ruleset else definition


def attack_options(creature: CreatureDef, index: int) -> list[AttackOption]:
    """The creature's attack options in listed order: each attack action, then each weapon it
    may use in the order the creature lists them. Actions with an Aspect the creature lacks are
    never legal (the engine refuses them) and are left out."""
    out: list[AttackOption] = []
    for action in creature.actions:
        if action.kind is not ActionKind.ATTACK or action.aspect not in creature.aspects:
            continue
        if not action.uses_weapon:
            out.append(AttackOption(index, action, None))
            continue
        for weapon in creature.weapons:
            if action.weapon_kind is None or weapon.kind is action.weapon_kind:
                out.append(AttackOption(index, action, weapon))
    return out


def hinder_actions(creature: CreatureDef) -> list[ActionDef]:
    """Team actions that impose disadvantage on an enemy's pending roll (R15), in listed order."""
    return [
        a
        for a in creature.actions
        if a.kind is ActionKind.TEAM
        and a.reaction
        and a.grant is not None
        and a.grant.kind == "dis"
        and a.grant.to == "enemy"
        and a.aspect in creature.aspects
    ]


def _flatten(expr: Expr, sign: int, where: str, out: list[tuple[int, int, int]]) -> None:
    for term in expr.terms:
        _flatten_node(term.node, sign * term.sign, where, out)


def _flatten_node(node: Node, sign: int, where: str, out: list[tuple[int, int, int]]) -> None:
    match node:
        case Dice(count=count, sides=sides):
            if sides < 1:
                raise FastPathError(f"{where}: {node} has no faces")
            out.append((count, sides, sign))
        case Const(value=value):
            out.append((value, 0, sign))
        case Group(expr=inner):
            _flatten(inner, sign, where, out)
        case Div():
            raise FastPathError(f"{where}: the fast path does not roll halved dice ({node})")


def bonus_terms(option: AttackOption, creature: CreatureDef) -> list[tuple[int, int, int]]:
    """The extra dice of an attack option, as ``(count, sides, sign)``; ``sides == 0`` is a
    constant ``count``. The weapon's dice come first, then the action's ``extra`` (as the engine
    adds them)."""
    terms: list[tuple[int, int, int]] = []
    where = f"{creature.id}: {option.action.name}"
    if option.weapon is not None:
        _flatten(option.weapon.dice, 1, f"{where} with {option.weapon.name}", terms)
    if option.action.extra is not None:
        _flatten(option.action.extra, 1, where, terms)
    return terms


def _term_max(count: int, sides: int, sign: int) -> int:
    if sides == 0:
        return sign * count
    return count * sides if sign > 0 else -count


def _term_mean2(count: int, sides: int, sign: int) -> int:
    return sign * (2 * count if sides == 0 else count * (sides + 1))


def _array(values: list[int]) -> I64:
    return np.asarray(values, dtype=np.int64).reshape(len(values))


def compile_encounter(
    definition: EncounterDef,
    *,
    load_reset: LoadReset | str | None = None,
    revision: Revision | str | None = None,
) -> CompiledEncounter:
    """Compile ``definition`` (with ``load_reset`` / ``revision`` overriding its ruleset's).

    Raises :class:`FastPathError` for what the fast path cannot play exactly.
    """
    definition = with_options(definition, load_reset=load_reset, revision=revision)
    ruleset = definition.ruleset
    if ruleset.economy is not Economy.ACTION_LOAD:
        raise FastPathError(
            f"{definition.name}: the fast path plays the Action Load economy only, "
            f"not {ruleset.economy.value}"
        )
    if ruleset.initiative is not Initiative.GM:
        raise FastPathError(
            f"{definition.name}: the fast path plays the GM's turn order only (initiative: gm), "
            f"not initiative: {ruleset.initiative.value}"
        )
    creatures = definition.participants
    if len(creatures) > MAX_CREATURES:
        raise FastPathError(
            f"{definition.name}: {len(creatures)} participants; the fast path plays at most "
            f"{MAX_CREATURES}"
        )
    legacy = Revision(ruleset.revision) is Revision.LEGACY
    side: list[int] = []
    health: list[int] = []
    evasion: list[int] = []
    reset: list[int] = []
    a_start: list[int] = []
    a_end: list[int] = []
    m_start: list[int] = []
    m_end: list[int] = []
    options: list[AttackOption] = []
    a_aspect: list[int] = []
    a_cost: list[int] = []
    a_fixed: list[int] = []
    a_max: list[int] = []
    a_mean2: list[int] = []
    t_start: list[int] = []
    t_end: list[int] = []
    t_count: list[int] = []
    t_sides: list[int] = []
    t_sign: list[int] = []
    team: list[ActionDef] = []
    m_aspect: list[int] = []
    m_cost: list[int] = []
    m_source: list[int] = []
    sources: list[str] = []
    for c, creature in enumerate(creatures):
        side.append(0 if creature.side is Side.PC else 1)
        health.append(creature.health)
        evasion.append(creature.evasion)
        reset.append(0 if legacy else creature.exhaustion - creature.load_buffer)
        a_start.append(len(options))
        for option in attack_options(creature, c):
            if option.action.cost <= 0:
                raise FastPathError(
                    f"{creature.id}: {option.action.name} costs {option.action.cost}: the fast "
                    "tactic attacks while the gate allows, so it would never end its turn"
                )
            terms = bonus_terms(option, creature)
            options.append(option)
            a_aspect.append(creature.aspects[option.action.aspect])
            a_cost.append(option.action.cost)
            fixed = option.action.fixed_pool
            a_fixed.append(-1 if fixed is None else fixed)
            a_max.append(sum(_term_max(*t) for t in terms))
            a_mean2.append(sum(_term_mean2(*t) for t in terms))
            t_start.append(len(t_count))
            for count, sides, sign in terms:
                t_count.append(count)
                t_sides.append(sides)
                t_sign.append(sign)
            t_end.append(len(t_count))
        a_end.append(len(options))
        m_start.append(len(team))
        for action in hinder_actions(creature):
            key = action.source_key
            if key not in sources:
                sources.append(key)
            team.append(action)
            m_aspect.append(creature.aspects[action.aspect])
            m_cost.append(action.cost)
            m_source.append(sources.index(key))
        m_end.append(len(team))
    if len(sources) > MAX_SOURCES:
        raise FastPathError(
            f"{definition.name}: {len(sources)} hinder source keys; the fast path keeps at most "
            f"{MAX_SOURCES}"
        )
    return CompiledEncounter(
        definition=definition,
        ids=tuple(c.id for c in creatures),
        options=tuple(options),
        team_actions=tuple(team),
        sources=tuple(sources),
        side=_array(side),
        health=_array(health),
        evasion=_array(evasion),
        reset_load=_array(reset),
        attack_start=_array(a_start),
        attack_end=_array(a_end),
        team_start=_array(m_start),
        team_end=_array(m_end),
        attack_aspect=_array(a_aspect),
        attack_cost=_array(a_cost),
        attack_fixed=_array(a_fixed),
        attack_bonus_max=_array(a_max),
        attack_bonus_mean2=_array(a_mean2),
        term_start=_array(t_start),
        term_end=_array(t_end),
        term_count=_array(t_count),
        term_sides=_array(t_sides),
        term_sign=_array(t_sign),
        team_aspect=_array(m_aspect),
        team_cost=_array(m_cost),
        team_source=_array(m_source),
        legacy=int(legacy),
        round_reset=int(ruleset.load_reset is LoadReset.ROUND),
    )
