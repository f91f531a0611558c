"""Compile an Action Load encounter for the compiled ``tactical`` policy (issue 13).

:class:`~caltrop.sim.tactics.TacticalPolicy` scores every choice in *harm* (its module docs):
an attack's harm to a target is a pure function of the roll (action and weapon), the size of
its d4 pool, the target and the target's Health. Here every such number the policy can ever ask
for is worked out once, in Python, by the very function the policy calls
(:func:`caltrop.sim.tactics.harm` on :meth:`~caltrop.sim.tactics.AttackRoll.expr`), so the
kernel compares bit-for-bit the same floats and makes the same choices; the rest of the
policy's arithmetic (its Load budget, its plans, the focus target) is a few additions and
comparisons the kernel repeats in the same order.

Tables (``int64`` unless said; creatures in the GM's turn order, R21):

* ``creatures[c]``: side (0 PC, 1 NPC), Health, Evasion, reset Load (R10; legacy R20: 0), the
  ranges of its own-turn options, team reactions and profile rolls, the team action its
  budget counts reactions in (:attr:`~caltrop.sim.tactics.Profile.reaction`, −1 none), and
  whether it hinders and/or helps (what its plan expects to want). ``threat[c]`` (float) is the
  profile's threat.
* ``turn[o]``: an own-turn option in the order the stat block lists actions — an attack (its
  commands: each standing enemy, each fitting weapon, ``weapon_rolls[w0:w1]``) or an effect
  granting advantage to an ally (Watch My Back, a rally; its source key's id). Checks and other
  effects are never scored above 0 by the policy, so they are left out.
* ``rolls[r]``: an attack with one weapon (or none): its creature, action and weapon (indices in
  the stat block), gate ceiling (R11, R20), Cost, Aspect, fixed pool and its extra dice
  (``terms[t0:t1]``: count, sides, sign; 0 sides is a constant). ``harm[r, d4, t, health]``
  (float) is :func:`~caltrop.sim.tactics.harm` of the roll with ``d4`` d4s to creature ``t``
  at ``health``.
* ``profile_rolls``: per creature, its attacks each with the weapon the tactics assume
  (:func:`~caltrop.sim.tactics.best_weapon`), as roll ids.
* ``team[m]``: a team action that may be taken as a reaction (R15), in listed order: its action
  index, ceiling, Cost, whether it grants anything, +1 advantage / −1 disadvantage, to an ally
  or an enemy, its source key's id (R14) and whether it only answers attacks on its taker
  (:data:`~caltrop.sim.tactics.SELF_ONLY_SOURCES`).

Refused, with :class:`~caltrop.sim.fast.compile.FastPathError` saying why (then ``caltrop sim``
plays the Python tactical policy): another economy, ``initiative: check``, more than 64
creatures or source keys, halved dice, attacks of Cost 0, reactions other than team actions,
an action on an Aspect the creature lacks, and two actions or weapons of one name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from caltrop.core.model import (
    ActionDef,
    ActionKind,
    Economy,
    EncounterDef,
    Initiative,
    LoadReset,
    Side,
    Weapon,
)
from caltrop.core.pool import Revision
from caltrop.economy import economy_for
from caltrop.economy.load.economy import ActionLoadEconomy
from caltrop.sim.fast.compile import (
    MAX_CREATURES,
    MAX_SOURCES,
    AttackOption,
    FastPathError,
    bonus_terms,
)
from caltrop.sim.tactics import SELF_ONLY_SOURCES, AttackRoll, best_weapon, harm, profile

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

# creature columns
(
    C_SIDE,
    C_HEALTH,
    C_EVASION,
    C_RESET,
    C_TURN0,
    C_TURN1,
    C_TEAM0,
    C_TEAM1,
    C_PROF0,
    C_PROF1,
    C_REACTION,
    C_HINDERS,
    C_HELPS,
) = range(13)
C_COLUMNS = 13
# own-turn option columns (kind: TURN_ATTACK or TURN_BOON)
(
    O_KIND,
    O_ACTION,
    O_CEILING,
    O_COST,
    O_ASPECT,
    O_FIXED,
    O_W0,
    O_W1,
    O_SOURCE,
) = range(9)
O_COLUMNS = 9
TURN_ATTACK = 0
TURN_BOON = 1
# roll columns
R_CREATURE, R_ACTION, R_WEAPON, R_CEILING, R_COST, R_ASPECT, R_FIXED, R_T0, R_T1 = range(9)
R_COLUMNS = 9
# team-action columns
M_ACTION, M_CEILING, M_COST, M_GRANTS, M_SIGN, M_ALLY, M_SOURCE, M_SELF = range(8)
M_COLUMNS = 8


@dataclass(frozen=True, slots=True)
class CompiledTactical:
    """An Action Load encounter as the compiled tactical policy's tables (the module docs)."""

    definition: EncounterDef
    ids: tuple[str, ...]
    creatures: I64
    threat: F64
    turn: I64
    weapon_rolls: I64
    rolls: I64
    terms: I64
    profile_rolls: I64
    team: I64
    harm: F64
    legacy: int
    round_reset: int
    #: the most own-turn commands one creature can score in one decision (a scratch size)
    scored_capacity: int
    #: the advantage source keys the kernel knows (R14), by id: bit ``k`` of a boon mask
    sources: tuple[str, ...] = ()
    #: the roll id of (creature, action, weapon) indices in the stat block (−1: no weapon)
    roll_ids: Mapping[tuple[int, int, int], int] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return len(self.ids)


def _refuse(definition: EncounterDef, why: str) -> FastPathError:
    return FastPathError(f"{definition.name}: {why}")


def _check(definition: EncounterDef) -> None:
    ruleset = definition.ruleset
    if ruleset.economy is not Economy.ACTION_LOAD:
        raise _refuse(
            definition,
            f"the compiled tactical policy plays the Action Load economy only, "
            f"not {ruleset.economy.value}",
        )
    if ruleset.initiative is not Initiative.GM:
        raise _refuse(
            definition,
            "the compiled tactical policy plays the GM's turn order only (initiative: gm), "
            f"not initiative: {ruleset.initiative.value}",
        )
    if len(definition.participants) > MAX_CREATURES:
        raise _refuse(
            definition,
            f"{len(definition.participants)} participants; the compiled tactical policy "
            f"plays at most {MAX_CREATURES}",
        )
    for c in definition.participants:
        names = [a.name for a in c.actions]
        if len(set(names)) != len(names):
            raise _refuse(definition, f"{c.id} has two actions of one name")
        weapons = [w.name for w in c.weapons]
        if len(set(weapons)) != len(weapons):
            raise _refuse(definition, f"{c.id} has two weapons of one name")
        for a in c.actions:
            if a.aspect not in c.aspects:
                raise _refuse(definition, f"{c.id}: {a.name} rolls {a.aspect}, which it lacks")
            if a.reaction and a.kind is not ActionKind.TEAM:
                raise _refuse(
                    definition,
                    f"{c.id}: {a.name} is a reaction but not a team action (the compiled "
                    "tactical policy takes team actions only on others' rolls)",
                )
            if a.kind is ActionKind.ATTACK and a.cost <= 0:
                raise _refuse(
                    definition,
                    f"{c.id}: {a.name} costs {a.cost}: a turn of attacks could never end",
                )


def _boon(action: ActionDef) -> bool:
    """An effect the policy scores: advantage on an ally's next roll (score_boon)."""
    grant = action.grant
    return (
        action.kind is ActionKind.EFFECT
        and grant is not None
        and grant.kind == "adv"
        and grant.to == "ally"
    )


def compile_tactical(definition: EncounterDef) -> CompiledTactical:
    """The tables of ``definition`` (options already applied); raises
    :class:`~caltrop.sim.fast.compile.FastPathError` for what the kernel cannot play."""
    _check(definition)
    economy = economy_for(definition.ruleset)
    assert isinstance(economy, ActionLoadEconomy)
    legacy = Revision(definition.ruleset.revision) is Revision.LEGACY
    creatures = definition.participants
    known = profile(definition)
    sources: list[str] = []

    def source_id(key: str) -> int:
        if key not in sources:
            sources.append(key)
        return sources.index(key)

    roll_ids: dict[tuple[int, int, int], int] = {}
    roll_defs: list[tuple[int, ActionDef, Weapon | None]] = []
    roll_rows: list[list[int]] = []
    term_rows: list[list[int]] = []

    def roll_of(c: int, action: ActionDef, weapon: Weapon | None) -> int:
        creature = creatures[c]
        a = creature.actions.index(action)
        w = -1 if weapon is None else creature.weapons.index(weapon)
        found = roll_ids.get((c, a, w))
        if found is not None:
            return found
        t0 = len(term_rows)
        for count, sides, sign in bonus_terms(AttackOption(c, action, weapon), creature):
            term_rows.append([count, sides, sign])
        fixed = -1 if action.fixed_pool is None else action.fixed_pool
        roll_rows.append(
            [
                c,
                a,
                w,
                economy.ceiling(creature, action),
                action.cost,
                creature.aspects[action.aspect],
                fixed,
                t0,
                len(term_rows),
            ]
        )
        roll_defs.append((c, action, weapon))
        roll_ids[(c, a, w)] = len(roll_rows) - 1
        return len(roll_rows) - 1

    cre_rows: list[list[int]] = []
    turn_rows: list[list[int]] = []
    weapon_rolls: list[int] = []
    team_rows: list[list[int]] = []
    prof: list[int] = []
    scored_capacity = 1
    n = len(creatures)
    for c, creature in enumerate(creatures):
        turn0 = len(turn_rows)
        scored = 0
        for a, action in enumerate(creature.actions):
            if action.kind is ActionKind.ATTACK:
                w0 = len(weapon_rolls)
                if action.uses_weapon:
                    for held in creature.weapons:
                        if action.weapon_kind is None or held.kind is action.weapon_kind:
                            weapon_rolls.append(roll_of(c, action, held))
                else:
                    weapon_rolls.append(roll_of(c, action, None))
                kind, source = TURN_ATTACK, -1
                scored += (len(weapon_rolls) - w0) * n
            elif _boon(action):
                w0 = len(weapon_rolls)
                kind, source = TURN_BOON, source_id(action.source_key)
                scored += n
            else:
                continue  # checks, other effects, team actions: never scored on a turn
            fixed = -1 if action.fixed_pool is None else action.fixed_pool
            turn_rows.append(
                [
                    kind,
                    a,
                    economy.ceiling(creature, action),
                    action.cost,
                    creature.aspects[action.aspect],
                    fixed,
                    w0,
                    len(weapon_rolls),
                    source,
                ]
            )
        scored_capacity = max(scored_capacity, scored)
        team0 = len(team_rows)
        reaction = known.reaction[c]
        reaction_row = -1
        hinders = helps = 0
        for a, action in enumerate(creature.actions):
            if action.kind is not ActionKind.TEAM or not action.reaction:
                continue
            if action is reaction:
                reaction_row = len(team_rows)
            grant = action.grant
            if grant is not None and (grant.kind, grant.to) == ("dis", "enemy"):
                hinders = 1
            if grant is not None and (grant.kind, grant.to) == ("adv", "ally"):
                helps = 1
            team_rows.append(
                [
                    a,
                    economy.ceiling(creature, action),
                    action.cost,
                    int(grant is not None),
                    0 if grant is None else (1 if grant.kind == "adv" else -1),
                    int(grant is not None and grant.to == "ally"),
                    source_id(action.source_key),
                    int(action.source_key in SELF_ONLY_SOURCES),
                ]
            )
        prof0 = len(prof)
        for action, best in known.attacks[c]:
            assert best is best_weapon(creature, action)
            prof.append(roll_of(c, action, best))
        reset = economy.reset_value(creature)
        cre_rows.append(
            [
                0 if creature.side is Side.PC else 1,
                creature.health,
                creature.evasion,
                reset,
                turn0,
                len(turn_rows),
                team0,
                len(team_rows),
                prof0,
                len(prof),
                reaction_row,
                hinders,
                helps,
            ]
        )
    if len(sources) > MAX_SOURCES:
        raise _refuse(
            definition,
            f"{len(sources)} advantage source keys; the compiled tactical policy keeps at most "
            f"{MAX_SOURCES}",
        )
    # The largest d4 pool the policy can weigh: the largest base (Aspect, or a fixed pool)
    # with every advantage source on it, and one more (a swing's +1).
    adv_sources = {
        a.source_key
        for c in creatures
        for a in c.actions
        if a.grant is not None and a.grant.kind == "adv"
    }
    base = max([max(row[R_ASPECT], row[R_FIXED]) for row in roll_rows] or [1])
    d4_limit = max(1, base) + len(adv_sources) + 2
    top_health = max([max(0, c.health) for c in creatures] or [0])
    harms = np.zeros((max(1, len(roll_rows)), d4_limit, n, top_health + 1), np.float64)
    for r, (c, action, weapon) in enumerate(roll_defs):
        attack = AttackRoll.of(action, weapon)
        for t, target in enumerate(creatures):
            if target.side is creatures[c].side:
                continue
            threat = known.threat[t]
            for d4 in range(1, d4_limit):
                expr = attack.expr(d4)
                for health in range(1, max(0, target.health) + 1):
                    harms[r, d4, t, health] = harm(expr, target.evasion, health, threat)
    return CompiledTactical(
        definition=definition,
        ids=tuple(c.id for c in creatures),
        creatures=_table(cre_rows, C_COLUMNS),
        threat=np.asarray(known.threat, np.float64).reshape(n),
        turn=_table(turn_rows, O_COLUMNS),
        weapon_rolls=np.asarray(weapon_rolls, np.int64).reshape(len(weapon_rolls)),
        rolls=_table(roll_rows, R_COLUMNS),
        terms=_table(term_rows, 3),
        profile_rolls=np.asarray(prof, np.int64).reshape(len(prof)),
        team=_table(team_rows, M_COLUMNS),
        harm=harms,
        legacy=int(legacy),
        round_reset=int(definition.ruleset.load_reset is LoadReset.ROUND),
        scored_capacity=scored_capacity,
        sources=tuple(sources),
        roll_ids=dict(roll_ids),
    )


def _table(rows: list[list[int]], width: int) -> I64:
    if not rows:
        return np.zeros((0, width), np.int64)
    return np.ascontiguousarray(np.asarray(rows, np.int64).reshape(len(rows), width))
