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
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from caltrop.core.commands import MAX_ADVANTAGES
from caltrop.core.model import ActionDef, ActionKind, CreatureDef, Economy, Ruleset, Weapon
from caltrop.core.pool import Revision
from caltrop.dice.ast import Dice, Expr, Term
from caltrop.dice.parse import check_limits
from caltrop.errors import DiceLimitError

#: The lowest Load ``gm: set ID load N`` allows (R48), which adds dice in the legacy revision.
LOWEST_LOAD = -100


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
    if ruleset.economy is not Economy.ACTION_LOAD:
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
