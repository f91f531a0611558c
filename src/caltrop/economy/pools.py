"""The largest pool each action of an encounter could ever roll, checked against the dice limits.

Content is checked when it is loaded so that play never meets a roll it cannot make (issue 21:
a creature with Finesse 6 and a weapon of ``1000d4`` validated, then ``caltrop play`` stopped on
``6d4+1000d4: 1006 dice``). An Action Load roll is R12's pool, Aspect − max(0, Load) + Net
Advantage (legacy R20: Aspect − Load, so a negative Load adds dice), then the weapon's and the
action's extra dice (R3). The largest pool therefore takes:

* the action's Aspect (or its ``fixed_pool``, R20);
* every advantage the rules let a roll gather (R14: each source once): the
  :data:`~caltrop.core.commands.MAX_ADVANTAGES` sources one command may name, and each distinct
  source that an action of the encounter (a team action, R15, or an effect's boon) grants;
* in the legacy revision, the lowest Load the GM may set (R48: −100) — it adds dice there;
* each weapon the action may use, and the action's extra dice.

That expression must pass :func:`~caltrop.dice.parse.check_limits`; if not, the problem names
the action, the weapon and the arithmetic.

The Action Point module (seed 004) has no actions list; its rolls are fixed by the stat block
(:func:`points_pool_problems`): a check, hit or contest rolls an Aspect in d4 with its Favor (R39:
+1 at close range, and the advantages a command names); a defence rolls ``block_rating`` or
``dodge_rating`` in d4, one more for each creature that assists (R40); a melee attack's damage
is every melee weapon it names as one (R38: halved up, together or each), a shot's its weapon's.

The same rule runs where content is validated (an encounter file, a creature file, the
definition a save log carries) and where a creature joins mid-encounter (R48 ``gm: add``,
:func:`join_problems`), so no roll of a legal state is past the limits.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from caltrop.core.commands import MAX_ADVANTAGES
from caltrop.core.model import (
    ActionDef,
    ActionKind,
    CreatureDef,
    Economy,
    Ruleset,
    Weapon,
    WeaponKind,
)
from caltrop.core.pool import Revision
from caltrop.dice.ast import Dice, Expr, Term
from caltrop.dice.parse import check_limits
from caltrop.economy.points.attacks import UNARMED, melee_damage
from caltrop.economy.points.state import stat
from caltrop.errors import DiceLimitError

#: The lowest Load ``gm: set ID load N`` allows (R48), which adds dice in the legacy revision.
LOWEST_LOAD = -100
#: The Favor a check or hit may gather in the Action Point module: close range (R39) and the
#: advantages one command may name.
POINTS_FAVOR = 1 + MAX_ADVANTAGES
#: The creatures that may assist one defence (R40): every other creature an encounter may hold
#: (200: the content limit on participants, and ``gm: add``'s; tests/economy/test_pools.py
#: checks the three agree). A literal, so the engine imports no content layer (pydantic, YAML).
ASSISTS = 199


@dataclass(frozen=True, slots=True)
class PoolProblem:
    """An action whose largest pool is past the dice limits."""

    creature: str
    action: str
    message: str


def advantage_sources(creatures: Iterable[CreatureDef]) -> int:
    """The distinct advantage sources the encounter's actions can grant one roll (R14, R15)."""
    return len(
        {
            a.source_key
            for c in creatures
            for a in c.actions
            if a.grant is not None and a.grant.kind == "adv"
        }
    )


def largest_pool(
    creature: CreatureDef,
    action: ActionDef,
    weapon: Weapon | None,
    *,
    granted: int,
    ruleset: Ruleset,
) -> tuple[Expr, str]:
    """The largest expression ``creature``'s ``action`` could roll with ``weapon``, and how."""
    base = (
        action.fixed_pool
        if action.fixed_pool is not None
        else creature.aspects.get(action.aspect, 0)
    )
    parts = [
        f"fixed pool {base}" if action.fixed_pool is not None else f"{action.aspect} {base}",
        f"+ {MAX_ADVANTAGES} advantages a command may name",
    ]
    d4 = base + MAX_ADVANTAGES + granted
    if granted:
        parts.append(f"+ {granted} granted by the encounter's team actions and effects")
    if Revision(ruleset.revision) is Revision.LEGACY and action.fixed_pool is None:
        d4 -= LOWEST_LOAD
        parts.append(f"+ {-LOWEST_LOAD} from a Load of {LOWEST_LOAD} (legacy, R20, R48)")
    terms = [Term(1, Dice(max(1, d4), 4))]
    if weapon is not None:
        terms.extend(weapon.dice.terms)
        parts.append(f"+ {weapon.name} {weapon.dice}")
    if action.extra is not None:
        terms.extend(action.extra.terms)
        parts.append(f"+ extra {action.extra}")
    return Expr(tuple(terms)), " ".join(parts)


def pool_problems(
    ruleset: Ruleset, creatures: Iterable[CreatureDef], others: Iterable[CreatureDef] = ()
) -> Iterator[PoolProblem]:
    """Each action of ``creatures`` whose largest pool (:func:`largest_pool`) is past the dice
    limits; ``others`` (the reserves) grant advantages too."""
    if ruleset.economy is Economy.ACTION_POINTS:
        for creature in creatures:
            yield from points_pool_problems(creature, ruleset)
        return
    creatures = tuple(creatures)
    granted = advantage_sources((*creatures, *others))
    for creature in creatures:
        for action in creature.actions:
            if action.kind not in (ActionKind.ATTACK, ActionKind.CHECK):
                continue  # team actions and effects roll nothing of their own
            weapons: list[Weapon | None] = [None]
            if action.uses_weapon:
                weapons = [
                    w
                    for w in creature.weapons
                    if action.weapon_kind is None or w.kind is action.weapon_kind
                ] or [None]
            for weapon in weapons:
                expr, how = largest_pool(creature, action, weapon, granted=granted, ruleset=ruleset)
                try:
                    check_limits(expr)
                except DiceLimitError as exc:
                    with_weapon = f" with {weapon.name}" if weapon is not None else ""
                    yield PoolProblem(
                        creature.id,
                        action.name,
                        f"action {action.name!r}{with_weapon} could roll {expr} ({how}), past "
                        f"the dice limits: {exc}",
                    )


def points_pools(creature: CreatureDef, ruleset: Ruleset) -> Iterator[tuple[str, Expr, str]]:
    """Each largest roll of ``creature`` in the Action Point module: what rolls it, the
    expression and how it is made (R38, R39, R40)."""
    for aspect, value in creature.aspects.items():
        yield (
            f"a {aspect} roll",
            Expr((Term(1, Dice(max(1, value + POINTS_FAVOR), 4)),)),
            f"{aspect} {value} + {POINTS_FAVOR} Favor (close range and {MAX_ADVANTAGES} "
            "advantages, R39)",
        )
    for mode in ("block", "dodge"):
        rating = stat(creature, f"{mode}_rating")
        yield (
            f"a {mode}",
            Expr((Term(1, Dice(max(1, rating + ASSISTS), 4)),)),
            f"{mode}_rating {rating} + {ASSISTS} assists (R40)",
        )
    melee = tuple(w for w in creature.weapons if w.kind is WeaponKind.MELEE) or (UNARMED,)
    names = "+".join(w.name for w in melee)
    yield (
        f"a melee attack with {names}",
        melee_damage(creature, melee, ruleset.multi_weapon_halving),
        f"every melee weapon as one attack (R38, {ruleset.multi_weapon_halving.value})",
    )


def points_pool_problems(creature: CreatureDef, ruleset: Ruleset) -> Iterator[PoolProblem]:
    """Each roll of :func:`points_pools` past the dice limits (a shot rolls one weapon's dice,
    which are within them as any expression is)."""
    for what, expr, how in points_pools(creature, ruleset):
        try:
            check_limits(expr)
        except DiceLimitError as exc:
            yield PoolProblem(
                creature.id,
                what,
                f"{what} could roll {expr} ({how}), past the dice limits: {exc}",
            )


def creature_pool_problems(creature: CreatureDef) -> Iterator[PoolProblem]:
    """A creature file on its own, outside any encounter: each action's pool past the dice
    limits in every encounter it could join — its Aspect, the advantages one command may name,
    its weapon and extra dice (the least :func:`largest_pool` adds in any ruleset of the Action
    Load economy; an encounter, or ``gm: add``, checks the rest)."""
    current = Ruleset(name="any", economy=Economy.ACTION_LOAD)
    yield from pool_problems(current, (creature,)) if creature.actions else ()


def join_problems(
    ruleset: Ruleset, present: Sequence[CreatureDef], newcomer: CreatureDef
) -> Iterator[PoolProblem]:
    """R48 ``gm: add``: the pools past the dice limits once ``newcomer`` joins ``present`` (the
    participants and reserves): the newcomer's own, and — if it brings a source of advantage the
    encounter had not (R14: each source once) — everyone's, which that source enlarges."""
    if ruleset.economy is Economy.ACTION_POINTS:
        yield from points_pool_problems(newcomer, ruleset)
        return
    before = advantage_sources(present)
    if advantage_sources((*present, newcomer)) > before:
        yield from pool_problems(ruleset, (newcomer, *present))
    else:
        yield from pool_problems(ruleset, (newcomer,), present)
