"""The GM's controls (R48): adjusting what the rules do not track, as logged, undoable commands.

"At a table the GM adjusts what the rules do not track, in both modules, as logged and
undoable commands: damage or heal a creature (Health stays within 0…max; 0 is down, healing
above 0 brings it back up), set Exhaustion, Load Buffer or Load, set AP/RP/Stamina, add a
participant mid-encounter (it joins the turn order where the GM says, or by its initiative
roll), remove one, reorder the turn order, and set any condition or fact."

Each command is validated completely by a ``plan_*`` function (raising
:class:`~caltrop.errors.InvalidActionError` or :class:`~caltrop.errors.IllegalActionError`, so
a refused command changes nothing) and carried out by its plan's ``execute``. The machine's
own primitives (turn order, the end of the encounter, a new participant) are reached through
the :class:`Machine` protocol, so this module does not import the machine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from caltrop.core.commands import (
    AddCreature,
    ChangeHealth,
    PassAll,
    RemoveCreature,
    Reorder,
    SetFact,
    SetStat,
)
from caltrop.core.ids import id_problem
from caltrop.core.model import PRONE, CreatureDef, Initiative, Ruleset
from caltrop.economy.base import Actions, Engine
from caltrop.economy.outcome import Outcome
from caltrop.economy.pending import PendingRoll, RollKind
from caltrop.economy.pools import join_problems
from caltrop.errors import IllegalActionError, InvalidActionError

#: Most creatures one encounter may hold (the GM's reinforcements included).
MAX_CREATURES: Final = 200


class Machine(Engine, Protocol):
    """The machine's state and primitives the GM's commands use (the encounter engine)."""

    module: Actions
    order: list[int]
    turn_pos: int
    round: int
    initiative: list[int | None]
    conditions: list[tuple[str, ...]]
    gone: list[bool]
    over: bool

    def set_order(self, order: list[int]) -> None: ...

    def enlist(self, creature: CreatureDef) -> int:
        """Add ``creature`` (its id unique) to the encounter; it is in no turn order yet."""
        ...

    def replace_creature(self, i: int, creature: CreatureDef) -> None: ...

    def check_end(self) -> None: ...

    def after_downing(self) -> None: ...

    def start_turn_at_or_after(self, pos: int) -> None: ...


def _initiative_pending(enc: Machine) -> bool:
    return any(p.kind is RollKind.INITIATIVE for p in enc.pending)


def _present(enc: Machine, creature_id: str) -> int:
    i = enc.index(creature_id)
    if enc.gone[i]:
        raise IllegalActionError(f"{enc.creatures[i].name} has left the encounter (R48)")
    return i


# -- Health ---------------------------------------------------------------------------------------


@dataclass(slots=True)
class _HealthPlan:
    target: int
    amount: int
    heal: bool

    def execute(self, enc: Machine) -> Outcome | None:
        i = self.target
        top = enc.creatures[i].max_health or 0
        if self.heal:
            enc.health[i] = min(top, enc.health[i] + self.amount)
            if enc.down[i] and enc.health[i] > 0:
                enc.down[i] = False  # R48: healing above 0 brings it back into the turn order
            return None
        enc.health[i] = max(0, enc.health[i] - self.amount)
        if enc.health[i] == 0 and not enc.down[i]:
            enc.down[i] = True  # R16: at 0 Health a creature is down
            enc.module.on_down(enc, i)
            enc.check_end()
            if not enc.over:
                enc.after_downing()
        return None


def plan_health(enc: Machine, command: ChangeHealth) -> _HealthPlan:
    """R48: damage or heal, Health within 0…max."""
    if command.amount <= 0:
        verb = "heal" if command.heal else "damage"
        raise InvalidActionError(f"{verb} needs a positive number, not {command.amount}")
    i = _present(enc, command.target)
    creature = enc.creatures[i]
    top = creature.max_health or 0
    if command.heal and enc.health[i] >= top:
        raise IllegalActionError(
            f"{creature.name}'s Health is full ({enc.health[i]}/{top}): nothing to heal (R48)"
        )
    if not command.heal and enc.down[i]:
        raise IllegalActionError(f"{creature.name} is already down (Health 0)")
    return _HealthPlan(i, command.amount, command.heal)


# -- stats ----------------------------------------------------------------------------------------


@dataclass(slots=True)
class _StatPlan:
    target: int
    stat: str
    value: int

    def execute(self, enc: Machine) -> Outcome | None:
        replaced = enc.module.set_stat(enc, self.target, self.stat, self.value)
        if replaced is not None:
            enc.replace_creature(self.target, replaced)
        return None


def plan_stat(enc: Machine, command: SetStat) -> _StatPlan:
    """R48: the economy's own stats (Load, Exhaustion, Buffer; or AP, RP, Stamina)."""
    i = _present(enc, command.target)
    enc.module.check_stat(enc, i, command.stat, command.value)
    return _StatPlan(i, command.stat, command.value)


# -- conditions and facts -------------------------------------------------------------------------


@dataclass(slots=True)
class _ConditionPlan:
    target: int
    name: str
    on: bool

    def execute(self, enc: Machine) -> Outcome | None:
        have = tuple(c for c in enc.conditions[self.target] if c != self.name)
        enc.conditions[self.target] = (*have, self.name) if self.on else have
        return None


@dataclass(slots=True)
class _FactPlan:
    fact: SetFact

    def execute(self, enc: Machine) -> Outcome | None:
        enc.module.apply_fact(enc, self.fact)
        return None


def settable_conditions(ruleset: Ruleset) -> tuple[str, ...]:
    """R48: the conditions a GM may set on any creature ("set any condition or fact"): prone,
    in both modules (the Action Point module keeps it as its own fact, R44), then those the
    ruleset names with ``conditions: [...]``. The one list: :func:`plan_fact` refuses any other
    and a GM screen offers these as toggles (:attr:`caltrop.table.view.TableView.conditions`)."""
    return (PRONE, *(c for c in ruleset.conditions if c != PRONE))


def plan_fact(enc: Machine, command: SetFact) -> _ConditionPlan | _FactPlan:
    """R48: any condition or fact. The economy's own facts (prone, awareness, line of sight and
    positions in the Action Point module, R34) go to it; other conditions (prone in the Action
    Load module, and those the ruleset names) are kept by the machine in both modules."""
    _present(enc, command.subject)
    if enc.module.owns_fact(command.fact):
        enc.module.check_fact(enc, command)
        return _FactPlan(command)
    allowed = settable_conditions(enc.definition.ruleset)
    if command.fact in ("aware", "sight", "at"):
        raise IllegalActionError(
            f"{command.fact} is a fact of the Action Point module (positions, awareness, line of "
            "sight, R34); this encounter has none"
        )
    if command.fact not in allowed:
        raise IllegalActionError(
            f"no condition {command.fact!r} (conditions: {', '.join(allowed)}; a ruleset names "
            "more with 'conditions: [...]', R48)"
        )
    i = enc.index(command.subject)
    if (command.fact in enc.conditions[i]) == command.value:
        state = "already" if command.value else "not"
        raise IllegalActionError(f"{enc.creatures[i].name} is {state} {command.fact}")
    return _ConditionPlan(i, command.fact, command.value)


# -- the turn order -------------------------------------------------------------------------------


@dataclass(slots=True)
class _ReorderPlan:
    order: list[int]

    def execute(self, enc: Machine) -> Outcome | None:
        owner = enc.order[enc.turn_pos] if enc.order and enc.round > 0 else None
        enc.set_order(self.order)
        if owner is not None:
            enc.turn_pos = self.order.index(owner)  # the owner keeps its turn
        return None


def plan_reorder(enc: Machine, command: Reorder) -> _ReorderPlan:
    """R48: the GM sets the turn order: every creature in the encounter, once each."""
    ids = [enc.creatures[i].id for i in enc.order]
    named = [_present(enc, cid) for cid in command.order]
    if len(set(named)) != len(named):
        twice = sorted({c for c in command.order if command.order.count(c) > 1})
        raise InvalidActionError(f"the turn order names {', '.join(twice)} more than once")
    missing = [cid for cid in ids if enc.index(cid) not in named]
    if missing:
        raise InvalidActionError(
            f"the turn order must name every creature in the encounter; missing: {', '.join(missing)}"
        )
    if _initiative_pending(enc):
        raise IllegalActionError("initiative is being rolled; reorder once it is done")
    return _ReorderPlan(named)


@dataclass(slots=True)
class _RemovePlan:
    target: int

    def execute(self, enc: Machine) -> Outcome | None:
        i = self.target
        was_down = enc.down[i]
        enc.gone[i] = True
        enc.down[i] = True
        if not was_down:
            enc.module.on_down(enc, i)
        pos = enc.order.index(i)
        owner_left = enc.round > 0 and pos == enc.turn_pos
        order = [j for j in enc.order if j != i]
        enc.set_order(order)
        if pos < enc.turn_pos:
            enc.turn_pos -= 1
        enc.pending[:] = [p for p in enc.pending if p.roller != i]
        enc.check_end()
        if enc.over:
            return None
        if owner_left:
            enc.pending.clear()
            enc.start_turn_at_or_after(pos)
        elif not enc.pending:
            enc.after_downing()
        return None


def plan_remove(enc: Machine, command: RemoveCreature) -> _RemovePlan:
    """R48: the creature leaves the encounter: gone, not down; its pending rolls are dropped."""
    i = _present(enc, command.target)
    if _initiative_pending(enc):
        raise IllegalActionError("initiative is being rolled; remove once it is done")
    return _RemovePlan(i)


# -- reinforcements -------------------------------------------------------------------------------


@dataclass(slots=True)
class AddPlan:
    creature: CreatureDef
    after: int | None
    by_initiative: bool

    def execute(self, enc: Machine) -> Outcome | None:
        i = enc.enlist(self.creature)
        if self.by_initiative:
            aspect = enc.definition.ruleset.initiative_aspect
            assert aspect is not None
            enc.pending.append(
                PendingRoll(RollKind.INITIATIVE, i, aspect=aspect, context={"join": True})
            )
            return None
        pos = len(enc.order) if self.after is None else enc.order.index(self.after) + 1
        join(enc, i, pos)
        return None


def join(enc: Machine, i: int, pos: int) -> None:
    """Put creature ``i`` into the turn order at ``pos``; the turn owner keeps its turn."""
    order = list(enc.order)
    order.insert(pos, i)
    enc.set_order(order)
    if enc.round > 0 and pos <= enc.turn_pos:
        enc.turn_pos += 1


def join_by_initiative(enc: Machine, i: int) -> None:
    """R30 with R48: a reinforcement that rolled its initiative goes before the first creature
    whose total is lower (a PC before an NPC on a tie; after those of the same side)."""
    total = enc.initiative[i]
    assert total is not None
    is_npc = enc.creatures[i].side.value == "npc"
    pos = len(enc.order)
    for k, j in enumerate(enc.order):
        other = enc.initiative[j]
        if other is None:
            continue
        other_npc = enc.creatures[j].side.value == "npc"
        if (total, not is_npc) > (other, not other_npc):
            pos = k
            break
    join(enc, i, pos)


def _free_id(taken: Sequence[str], wanted: str) -> str:
    """The creature's own id if it is free and not already numbered; else the next number
    (``goblin-3`` when ``goblin-1`` and ``goblin-2`` are at the table)."""
    numbers = [
        int(t.rsplit("-", 1)[1])
        for t in taken
        if t.startswith(f"{wanted}-") and t.rsplit("-", 1)[1].isdecimal() and t.isascii()
    ]
    if wanted not in taken and not numbers:
        return wanted
    n = max([1, *numbers]) + 1
    while f"{wanted}-{n}" in taken:
        n += 1
    return f"{wanted}-{n}"


def plan_add(enc: Machine, command: AddCreature) -> AddPlan:
    """R48: a participant joins mid-encounter, where the GM says or by its initiative roll."""
    if len(enc.creatures) >= MAX_CREATURES:
        raise IllegalActionError(f"an encounter holds at most {MAX_CREATURES} creatures")
    creature = command.creature
    if creature is None:
        reserves = {c.id: c for c in enc.definition.reserves}
        creature = reserves.get(command.source)
        if creature is None:
            known = ", ".join(reserves) or "none"
            raise InvalidActionError(
                f"no creature {command.source!r} to add (this encounter's reserves: {known}; "
                "the table also takes bundled creatures and creature files)"
            )
    taken = [c.id for c in enc.creatures]
    if command.as_id is not None and command.as_id in taken:
        raise IllegalActionError(f"there is already a creature {command.as_id!r}")
    new_id = command.as_id or _free_id(taken, creature.id)
    problem = id_problem(new_id)  # goblin-2 of a 40-character id is 42: the one rule (issue 21)
    if problem is not None:
        raise IllegalActionError(f"cannot add {creature.id!r} as {new_id!r}: {problem}")
    name = creature.name
    number = new_id.removeprefix(f"{creature.id}-")
    if new_id != creature.id and number.isdecimal() and number.isascii():
        name = f"{creature.name} {number}"  # goblin-3: "Goblin 3", as the bundled ones are named
    creature = dataclasses.replace(creature, id=new_id, name=name)
    after = None
    if command.after is not None:
        after = _present(enc, command.after)
    if command.by_initiative:
        ruleset = enc.definition.ruleset
        if ruleset.initiative is not Initiative.CHECK or ruleset.initiative_aspect is None:
            raise IllegalActionError(
                "this encounter's turn order is the GM's (R21): add with 'after ID' or at the end"
            )
        if enc.round == 0:
            raise IllegalActionError("initiative is still being rolled; add once it is done")
        if not any(a.casefold() == ruleset.initiative_aspect.casefold() for a in creature.aspects):
            raise IllegalActionError(
                f"{creature.name} has no {ruleset.initiative_aspect} to roll initiative with (R30)"
            )
    if _initiative_pending(enc):
        raise IllegalActionError("initiative is being rolled; add once it is done")
    _check_pools(enc, creature)
    return AddPlan(creature, after, command.by_initiative)


def _check_pools(enc: Machine, creature: CreatureDef) -> None:
    """Issue 21 item 4: a creature joins only if no roll of the encounter then is past the dice
    limits — its own pools, and everyone's if it brings a new source of advantage (R14) —
    checked by the rule content is validated by (:func:`caltrop.economy.pools.join_problems`)."""
    present = (*enc.creatures, *enc.definition.reserves)
    problems = list(join_problems(enc.definition.ruleset, present, creature))
    if problems:
        more = len(problems) - 1
        tail = f" (and {more} more pool{'s' if more != 1 else ''} past them)" if more else ""
        first = problems[0]
        raise InvalidActionError(
            f"{creature.name} cannot join: {first.creature}: {first.message}{tail}"
        )


# -- the reaction window --------------------------------------------------------------------------


@dataclass(slots=True)
class _PassAllPlan:
    who: tuple[int, ...]

    def execute(self, enc: Machine) -> Outcome | None:
        enc.pending[-1].passed.update(self.who)
        return None


def still_to_answer(enc: Machine, top: PendingRoll) -> list[int]:
    """The creatures ``top``'s window would still ask, in the order it would ask them: those
    standing, not passed, with a reaction they could take (as ``current()`` asks them)."""
    before = set(top.passed)
    who: list[int] = []
    try:
        while (i := enc.module.next_reactor(enc, top)) is not None:
            who.append(i)
            top.passed.add(i)
    finally:
        top.passed.clear()
        top.passed.update(before)
    return who


def plan_pass_all(enc: Machine, command: PassAll) -> _PassAllPlan:
    """Everyone still to be asked about the pending roll passes: the GM moves the table on."""
    if not enc.pending:
        raise IllegalActionError("no roll is pending, so there is nothing to pass on")
    top = enc.pending[-1]
    if top.kind is RollKind.INITIATIVE:
        raise IllegalActionError("initiative is being rolled; there is nothing to pass on")
    who = tuple(still_to_answer(enc, top))
    if not who:
        raise IllegalActionError("nobody is left to answer this roll: roll it")
    return _PassAllPlan(who)


#: A validated GM command, ready to execute.
GmPlan = (
    _HealthPlan
    | _StatPlan
    | _ConditionPlan
    | _FactPlan
    | _ReorderPlan
    | _RemovePlan
    | AddPlan
    | _PassAllPlan
)
