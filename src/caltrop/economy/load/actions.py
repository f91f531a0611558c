"""The actions of the Action Load module (seeds 000 and 001), plugged into the one engine.

An Action Load creature's actions come from its content: attacks against Evasion, checks
against a DC, team actions on another creature's pending roll and effects that grant a
creature's next roll advantage (R15, R16). This module validates them (the gate, R11, with its
arithmetic), lists the legal ones, asks each creature in a reaction window in turn, builds the
pool each declared roll rolls (R12) and resolves it (damage, success, Load += Cost). The engine
(:mod:`caltrop.encounter.state`) keeps the turns, the pending stack, the log and undo.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from caltrop.core.commands import Act, Command, EndTurn, Pass, SetFact
from caltrop.core.model import ActionDef, ActionKind, CreatureDef, EncounterDef, Weapon
from caltrop.core.pool import Advantage
from caltrop.dice.ast import Dice, Expr, Term
from caltrop.economy import economy_for
from caltrop.economy.base import EconomyRules, Engine
from caltrop.economy.load.economy import ActionLoadEconomy
from caltrop.economy.load.state import LoadState
from caltrop.economy.outcome import Outcome
from caltrop.economy.pending import PendingRoll, RollKind
from caltrop.errors import IllegalActionError, InvalidActionError


def grant_fits(action: ActionDef, creature: CreatureDef, other: CreatureDef) -> bool:
    """Whether ``action``'s grant may go from ``creature`` to ``other``: "to ally" means another
    creature of the same side, never the actor itself (R47); "to enemy" the other side."""
    grant = action.grant
    if grant is None:
        return False
    if grant.to == "ally":
        return creature.side is other.side and creature.id != other.id
    return creature.side is not other.side


@dataclass(frozen=True, slots=True)
class _Choices:
    """Every command one action could ever give one creature, in the order :meth:`LoadActions.legal`
    offers them: ``targets`` pairs each creature it may be aimed at (by side and grant, before
    anyone is down) with one command per fitting weapon; ``plain`` is the command without a
    target (a check with a DC, an effect without a grant, a team action), if the action has one.
    The gate and who is down are checked when asked; a team action's fit to the pending roll is
    settled by :attr:`_Tables.reactions`."""

    action: ActionDef
    targets: tuple[tuple[int, tuple[Act, ...]], ...]
    plain: Act | None
    #: the highest Load at which the action's gate is open (Action Load economy), else 0
    ceiling: int

    @classmethod
    def of(
        cls, creatures: tuple[CreatureDef, ...], i: int, action: ActionDef, economy: EconomyRules
    ) -> _Choices:
        creature, kind = creatures[i], action.kind
        plain = None
        if (
            kind is ActionKind.TEAM
            or (kind is ActionKind.CHECK and action.dc is not None)
            or (kind is ActionKind.EFFECT and action.grant is None)
        ):
            plain = Act(creature.id, action.name)
        targets = _aims(creatures, i, action, range(len(creatures)))
        ceiling = economy.ceiling(creature, action) if isinstance(economy, ActionLoadEconomy) else 0
        return cls(action, targets, plain, ceiling)

    def aimed_also(self, creatures: tuple[CreatureDef, ...], i: int, new: range) -> _Choices:
        """These choices with the creatures ``new`` (joined since, R48) as targets too."""
        more = _aims(creatures, i, self.action, new)
        return dataclasses.replace(self, targets=self.targets + more) if more else self


def _aims(
    creatures: tuple[CreatureDef, ...], i: int, action: ActionDef, among: range
) -> tuple[tuple[int, tuple[Act, ...]], ...]:
    """The creatures of ``among`` that ``i``'s ``action`` may be aimed at (by side and grant),
    each with one command per fitting weapon."""
    creature, kind = creatures[i], action.kind
    if kind is ActionKind.TEAM or kind is ActionKind.CHECK:
        return ()
    weapons: list[tuple[str, ...]] = [()]
    if action.uses_weapon:
        weapons = [
            (w.name,)
            for w in creature.weapons
            if action.weapon_kind is None or w.kind is action.weapon_kind
        ]
    targets: list[tuple[int, tuple[Act, ...]]] = []
    for j in among:
        other = creatures[j]
        if j == i:
            continue
        if kind is ActionKind.ATTACK and other.side is creature.side:
            continue
        if kind is ActionKind.EFFECT and not grant_fits(action, creature, other):
            continue
        commands = tuple(Act(creature.id, action.name, (other.id,), w) for w in weapons)
        if commands:
            targets.append((j, commands))
    return tuple(targets)


class _Tables:
    """What an (immutable) encounter definition decides once and for all: each creature's
    actions by when they may be taken, with their :class:`_Choices`, and the dice expressions of
    the pools rolled so far. Shared by every encounter of the definition and by their clones."""

    __slots__ = (
        "actions",
        "acts",
        "by_load",
        "definition",
        "end_turns",
        "exprs",
        "own_turn",
        "passes",
        "reaction_choices",
        "reactions",
    )

    actions: tuple[dict[str, ActionDef | None], ...]
    passes: tuple[Pass, ...]
    end_turns: tuple[EndTurn, ...]
    own_turn: tuple[tuple[_Choices, ...], ...]
    reaction_choices: tuple[tuple[_Choices, ...], ...]
    reactions: tuple[tuple[tuple[int, ...], ...], ...]

    def __init__(self, definition: EncounterDef, joined: _Tables | None = None) -> None:
        """The tables of ``definition``; with ``joined``, the tables of the same definition
        before creatures were appended to it (R48 reinforcements): its rows are kept and
        widened, so a ``gm: add`` builds the new creature's rows and one column a creature,
        not every row again (issue 21: rebuilding them all made each add cost the cube of
        the creatures)."""
        creatures = definition.participants
        self.definition = definition
        economy = economy_for(definition.ruleset)
        #: the gate is a ceiling on one number, the creature's Load (the Action Load economy):
        #: the hot loops compare it with :attr:`_Choices.ceiling` instead of asking
        self.by_load = isinstance(economy, ActionLoadEconomy)
        start = 0 if joined is None else len(joined.definition.participants)
        new = range(start, len(creatures))
        fresh = creatures[start:]
        kept = joined.actions if joined is not None else ()
        #: per creature: its actions by name (the first of a name, as ``CreatureDef.action``)
        self.actions = kept + tuple(
            {name: c.action(name) for name in dict.fromkeys(a.name for a in c.actions)}
            for c in fresh
        )
        #: per creature: its commands to pass on a pending roll and to end its turn
        self.passes = (joined.passes if joined else ()) + tuple(Pass(c.id) for c in fresh)
        self.end_turns = (joined.end_turns if joined else ()) + tuple(EndTurn(c.id) for c in fresh)

        def own(i: int) -> tuple[_Choices, ...]:
            return tuple(
                _Choices.of(creatures, i, a, economy)
                for a in creatures[i].actions
                if a.kind is not ActionKind.TEAM
            )

        def reacting(i: int) -> tuple[_Choices, ...]:
            return tuple(
                _Choices.of(creatures, i, a, economy) for a in creatures[i].actions if a.reaction
            )

        def column(i: int, rollers: range) -> tuple[tuple[int, ...], ...]:
            c = creatures[i]
            return tuple(
                tuple(
                    k
                    for k, choices in enumerate(self.reaction_choices[i])
                    if choices.action.kind is not ActionKind.TEAM
                    or grant_fits(choices.action, c, creatures[r])
                )
                for r in rollers
            )

        old_own = joined.own_turn if joined else ()
        old_reacting = joined.reaction_choices if joined else ()
        #: per creature: its actions that are not team actions (taken on its own turn)
        self.own_turn = tuple(
            tuple(ch.aimed_also(creatures, i, new) for ch in row) for i, row in enumerate(old_own)
        ) + tuple(own(i) for i in new)
        #: per creature: its reactions, with their choices (a team action among them only
        #: where :attr:`reactions` says its grant fits the roller)
        self.reaction_choices = tuple(
            tuple(ch.aimed_also(creatures, i, new) for ch in row)
            for i, row in enumerate(old_reacting)
        ) + tuple(reacting(i) for i in new)
        everyone = range(len(creatures))
        old_rows = joined.reactions if joined else ()
        #: per creature, per roller: which of its :attr:`reaction_choices` may be taken on that
        #: roller's pending roll (a team action only if its grant fits the roller: help an
        #: ally, hinder a foe), as indices, so a joined creature adds a column, not new rows
        self.reactions = tuple(row + column(i, new) for i, row in enumerate(old_rows)) + tuple(
            column(i, everyone) for i in new
        )
        #: (id(action), id(weapon), d4) → (action, weapon, expression, its text); the entry
        #: holds the action and the weapon, so their ids cannot be reused while it exists
        self.exprs: dict[tuple[int, int, int], tuple[ActionDef, Weapon | None, Expr, str]] = {}
        #: id(command) → (command, actor, action, target, weapon, DC): commands that passed
        #: every check that depends only on this definition (the commands offered by
        #: :attr:`own_turn` and :attr:`reactions` are the same objects every time)
        self.acts: dict[int, tuple[Act, int, ActionDef, int | None, Weapon | None, int | None]] = {}

    def remember_act(self, plan: _ActPlan) -> None:
        """Keep what ``plan``'s command resolved to that depends only on the definition."""
        if len(self.acts) >= _ACTS_KEPT:
            self.acts.clear()
        self.acts[id(plan.command)] = (
            plan.command,
            plan.actor,
            plan.action,
            plan.target,
            plan.weapon,
            plan.dc,
        )

    def __deepcopy__(self, memo: dict[int, Any]) -> _Tables:
        # Derived from an immutable definition and holding only values: a deep copy of an
        # encounter shares them (its own copy of the definition has equal tables).
        return self


_TABLES: dict[int, _Tables] = {}
_ACTS_KEPT: Final = 4096
_TABLES_KEPT: Final = 32


def tables(definition: EncounterDef, joined: _Tables | None = None) -> _Tables:
    """The tables of ``definition``, built on its first encounter (simulations begin thousands
    of encounters of one definition); the last few definitions' tables are kept. ``joined``:
    the tables of the definition ``definition`` appends creatures to (:meth:`LoadActions.joined`)."""
    found = _TABLES.get(id(definition))
    if found is None or found.definition is not definition:
        found = _Tables(definition, joined)
        if len(_TABLES) >= _TABLES_KEPT:
            del _TABLES[next(iter(_TABLES))]
        _TABLES[id(definition)] = found
    return found


class LoadActions:
    """The Action Load module's actions for one encounter definition (see the module doc)."""

    __slots__ = ("tables",)

    def __init__(self, definition: EncounterDef, joined: _Tables | None = None) -> None:
        self.tables = tables(definition, joined)

    def __deepcopy__(self, memo: dict[int, Any]) -> LoadActions:
        return self

    def joined(self, definition: EncounterDef) -> LoadActions:
        """The actions of ``definition``, which is this one's with creatures appended to its
        participants (R48 ``gm: add``): the tables grow by the new creatures' rows and columns
        instead of being built again. Any other change builds them afresh."""
        before = self.tables.definition
        old, now = before.participants, definition.participants
        if (
            definition.ruleset is before.ruleset
            and len(now) >= len(old)
            and all(a is b for a, b in zip(old, now, strict=False))
        ):
            return LoadActions(definition, self.tables)
        return LoadActions(definition)

    # -- who is asked ---------------------------------------------------------------------------

    def reactors(self, enc: Engine, top: PendingRoll) -> Iterator[int]:
        """R15: everyone but the roller, in turn order after it."""
        return iter(enc.windows[top.roller])

    def next_reactor(self, enc: Engine, top: PendingRoll) -> int | None:
        # the window in turn order: this runs before every decision of a simulation
        down, passed = enc.down, top.passed
        for i in enc.windows[top.roller]:
            if not down[i] and i not in passed and self._has_reaction(enc, i, top):
                return i
        return None

    def _has_reaction(self, enc: Engine, i: int, top: PendingRoll) -> bool:
        """Whether :meth:`_candidates` offers ``i`` any reaction to ``top``, without building
        the commands (asked of every creature in the window before every decision)."""
        creature, resources, down = enc.creatures[i], enc.resources[i], enc.down
        load = self._load(enc, i)
        t = self.tables
        row = t.reaction_choices[i]
        for k in t.reactions[i][top.roller]:
            choices = row[k]
            if load is not None and load > choices.ceiling:  # R11, as the economy's ceiling
                continue
            if top.helpers and self._applied(i, choices.action, top):
                continue  # R47: its source is on this roll already
            if choices.plain is None and all(down[j] for j, _ in choices.targets):
                continue  # nobody left to aim it at
            if load is not None or enc.economy.allows(
                creature, resources, choices.action, on_turn=False
            ):
                return True
        return False

    def _load(self, enc: Engine, i: int) -> int | None:
        """``i``'s Action Load for the gate when the economy's gate is a Load ceiling (the Action
        Load economy: see :attr:`_Tables.by_load`), else None (ask the economy): its Load and
        the costs of its own declared actions still pending (R46)."""
        if self.tables.by_load:
            state = enc.resources[i]
            assert isinstance(state, LoadState)
            load = state.load
            for p in enc.pending:  # R46, inline: asked of every creature before every decision
                if p.roller == i and p.action is not None and p.kind is RollKind.ACTION:
                    load += p.action.cost
            return load
        return None

    # -- legal actions --------------------------------------------------------------------------

    def legal(self, enc: Engine, i: int) -> Iterator[Command]:
        """Every legal command of ``i`` now (lazily). Advantage is never enumerated: the gate
        does not depend on it (R11), so any advantage may be added to a legal action."""
        t = self.tables
        if enc.pending:
            top = enc.pending[-1]
            if top.kind is RollKind.INITIATIVE or i == top.roller:
                return
            row = t.reaction_choices[i]
            reactions = [row[k] for k in t.reactions[i][top.roller]]
            yield from self._candidates(enc, i, reactions, on_turn=False, top=top)
            if i not in top.passed:
                yield t.passes[i]
            return
        if enc.turn_owner != enc.creatures[i].id:
            return
        yield from self._candidates(enc, i, t.own_turn[i], on_turn=True)
        yield t.end_turns[i]

    def _candidates(
        self,
        enc: Engine,
        i: int,
        actions: Sequence[_Choices],
        *,
        on_turn: bool,
        top: PendingRoll | None = None,
    ) -> Iterator[Command]:
        """The commands of these actions of ``i`` now: for each action whose gate is open, those
        of its :class:`_Choices` aimed at creatures still standing (a team action not if ``i``
        has applied its source to ``top`` already, R47)."""
        load = self._load(enc, i)
        down = enc.down
        for choices in actions:
            if top is not None and top.helpers and self._applied(i, choices.action, top):
                continue
            if load is None:
                if not enc.economy.allows(
                    enc.creatures[i], enc.resources[i], choices.action, on_turn=on_turn
                ):
                    continue
            elif load > choices.ceiling:  # R11, as the economy's ceiling
                continue
            for j, commands in choices.targets:
                if not down[j]:
                    yield from commands
            if choices.plain is not None:
                yield choices.plain

    # -- validation -----------------------------------------------------------------------------

    def plan(self, enc: Engine, command: Act) -> _ActPlan:
        known = self.tables.acts.get(id(command))
        if known is not None and known[0] is command:
            # This very command passed every check that depends only on the definition
            # before: only those that depend on the state are made again, in the same order.
            _, i, action, target, weapon, dc = known
            creature = enc.creatures[i]
            if enc.down[i]:
                raise IllegalActionError(f"{creature.name} is down")
            top = enc.pending[-1] if enc.pending else None
            self._check_when(enc, i, creature, action, top)
            if action.kind is ActionKind.TEAM:
                assert top is not None
                self._check_team(enc, i, command, action, top)
            elif target is not None and enc.down[target]:
                raise IllegalActionError(f"{enc.creatures[target].name} is down")
            self._check_gate(enc, i, creature, action, on_turn=top is None)
            self._check_once(enc, i, action, top)
            return _ActPlan(command, i, action, target, weapon, dc, top is None)
        plan = self._plan_first(enc, command)
        self.tables.remember_act(plan)
        return plan

    def _plan_first(self, enc: Engine, command: Act) -> _ActPlan:
        """Every check of an Action Load command, in the order its errors are reported."""
        i = enc.standing(command.actor)
        creature = enc.creatures[i]
        action = self.tables.actions[i].get(command.action)
        if action is None:
            known = ", ".join(a.name for a in creature.actions) or "none"
            raise InvalidActionError(
                f"{creature.name} has no action {command.action!r} (has: {known})"
            )
        if command.flags or command.to is not None or command.toward:
            what = f"+{command.flags[0]}" if command.flags else "a position"
            raise InvalidActionError(f"{action.name} takes no {what} in the Action Load module")
        top = enc.pending[-1] if enc.pending else None
        self._check_when(enc, i, creature, action, top)
        on_turn = top is None
        target: int | None = None
        weapon: Weapon | None = None
        if action.kind is ActionKind.TEAM:
            assert top is not None
            self._check_team(enc, i, command, action, top)
        elif action.kind in (ActionKind.ATTACK, ActionKind.EFFECT) and (
            action.kind is ActionKind.ATTACK or action.grant is not None
        ):
            if len(command.targets) != 1:
                raise InvalidActionError(
                    f"{action.name} needs one target: '{creature.id}: {action.name} TARGET'"
                )
            target = enc.standing(command.targets[0])
            if target == i and action.kind is ActionKind.ATTACK:
                raise IllegalActionError(f"{creature.name} cannot attack itself")
            if action.kind is ActionKind.ATTACK and enc.creatures[target].side is creature.side:
                raise IllegalActionError(
                    f"{creature.name} will not attack an ally ({enc.creatures[target].name})"
                )
            if action.kind is ActionKind.EFFECT and not grant_fits(
                action, creature, enc.creatures[target]
            ):
                raise IllegalActionError(
                    f"{action.name} cannot target {enc.creatures[target].name}"
                    + (" (R47: an ally is another creature)" if target == i else "")
                )
        elif command.targets:
            raise InvalidActionError(f"{action.name} takes no target")
        if action.uses_weapon:
            weapon = _weapon(creature, action, command.weapons)
        elif command.weapons:
            raise InvalidActionError(f"{action.name} does not use a weapon")
        dc = command.dc if command.dc is not None else action.dc
        if action.kind is ActionKind.CHECK and dc is None:
            raise InvalidActionError(
                f"{action.name} needs a DC: '{creature.id}: {action.name} dc N'"
            )
        if action.kind is not ActionKind.CHECK and command.dc is not None:
            raise InvalidActionError(f"{action.name} is not a check; it takes no DC")
        if action.aspect not in creature.aspects:
            raise IllegalActionError(f"{creature.name} has no Aspect {action.aspect}")
        self._check_gate(enc, i, creature, action, on_turn=on_turn)
        self._check_once(enc, i, action, top)
        return _ActPlan(command, i, action, target, weapon, dc, on_turn)

    @staticmethod
    def _check_when(
        enc: Engine, i: int, creature: CreatureDef, action: ActionDef, top: PendingRoll | None
    ) -> None:
        """R15: on its own turn a creature acts; on another's only in response to a pending
        roll, and only with a reaction."""
        if top is not None:
            if top.kind is RollKind.INITIATIVE:
                raise IllegalActionError("initiative is being rolled; nobody acts until it is done")
            if top.roller == i:
                raise IllegalActionError(f"{creature.name}'s own roll is pending: roll it first")
            if not action.reaction:
                raise IllegalActionError(
                    f"{action.name} is not a reaction, so {creature.name} cannot take it on another's roll"
                )
        else:
            if action.kind is ActionKind.TEAM:
                raise IllegalActionError(
                    f"{action.name} is a team action: it is taken while another creature's roll is pending (R15)"
                )
            owner = enc.turn_owner
            if owner != creature.id:
                raise IllegalActionError(
                    f"it is {enc.creature(owner).name if owner else 'nobody'}'s turn; {creature.name} may act "
                    "on other turns only in response to a pending roll (R15)"
                )

    def _check_team(
        self, enc: Engine, i: int, command: Act, action: ActionDef, top: PendingRoll
    ) -> None:
        """A team action acts on the pending roll: an ally's if it helps, a foe's if it hinders."""
        roller = enc.creatures[top.roller]
        if command.targets and command.targets != (roller.id,):
            raise IllegalActionError(
                f"{action.name} acts on the pending roll, which is {roller.name}'s"
            )
        if not grant_fits(action, enc.creatures[i], roller):
            assert action.grant is not None
            who = "an ally's" if action.grant.to == "ally" else "an opponent's"
            raise IllegalActionError(f"{action.name} works on {who} roll; {roller.name} is not one")

    def _check_once(self, enc: Engine, i: int, action: ActionDef, top: PendingRoll | None) -> None:
        """R47: a creature applies one source key to one roll once ("adds nothing" again)."""
        if top is not None and action.kind is ActionKind.TEAM and self._applied(i, action, top):
            raise IllegalActionError(
                f"{enc.creatures[i].name} has already applied {action.source_key} to this roll: "
                "a second time adds nothing (R47)"
            )

    def _applied(self, i: int, action: ActionDef, top: PendingRoll) -> bool:
        """Whether ``i`` has already applied ``action``'s source key to ``top`` (R47)."""
        if not top.helpers:
            return False
        key = action.source_key
        mine = self.tables.actions[i]
        for h, name in top.helpers:
            if h == i:
                done = mine.get(name)
                if done is not None and done.source_key == key:
                    return True
        return False

    @staticmethod
    def _check_gate(
        enc: Engine, i: int, creature: CreatureDef, action: ActionDef, *, on_turn: bool
    ) -> None:
        """R11: the gate, with its arithmetic when it is shut; R46: the Load it sees counts the
        costs of the creature's own declared actions that are still pending."""
        resources = enc.resources[i]
        owed = committed(enc, i) if enc.pending else 0
        if owed:
            assert isinstance(resources, LoadState)
            resources = LoadState(resources.load + owed)
        if enc.economy.allows(creature, resources, action, on_turn=on_turn):
            return
        gate = enc.economy.gate(creature, resources, action, on_turn=on_turn)
        why = f" (Load {resources.as_dict()['load'] - owed} + {owed} committed to a pending roll, R46)"
        raise IllegalActionError(
            f"{creature.name} cannot {action.name}: {gate.reason}{why if owed else ''}"
        )

    # -- rolling --------------------------------------------------------------------------------

    def expression(self, enc: Engine, p: PendingRoll) -> tuple[Expr, str]:
        """The expression a declared action rolls now and its text (R12: the pool, then the
        weapon's and the action's extra dice), built once per pool size."""
        action, weapon = p.action, p.weapon
        assert action is not None
        resources = enc.resources[p.roller]
        declared = p.context.get("load") if p.context else None
        if declared is not None and isinstance(resources, LoadState) and declared != resources.load:
            resources = LoadState(declared)  # R46: the pool's base is fixed at declaration
        d4 = enc.economy.pool(enc.creatures[p.roller], resources, action, p.net_advantage)
        exprs = self.tables.exprs
        key = (id(action), id(weapon), d4)
        known = exprs.get(key)
        if known is None or known[0] is not action or known[1] is not weapon:
            terms = [Term(1, Dice(d4, 4))]
            if weapon is not None:
                terms.extend(weapon.dice.terms)
            if action.extra is not None:
                terms.extend(action.extra.terms)
            expr = Expr(tuple(terms))
            known = exprs[key] = (action, weapon, expr, str(expr))
        return known[2], known[3]

    def resolve(
        self, enc: Engine, p: PendingRoll, expr: Expr, text: str, faces: tuple[int, ...], total: int
    ) -> Outcome:
        """Seed 000 steps 4–6: the attack's damage over Evasion (R16) or the check against its
        DC; then Load += Cost."""
        action = p.action
        assert action is not None
        roller = enc.creatures[p.roller]
        damage: int | None = None
        success = None
        downed = False
        target_id = None
        if action.kind is ActionKind.ATTACK:
            assert p.target is not None
            target = enc.creatures[p.target]
            target_id = target.id
            damage = max(0, total - target.evasion)  # R16
            enc.health[p.target] = max(0, enc.health[p.target] - damage)
            if enc.health[p.target] == 0 and not enc.down[p.target]:
                enc.down[p.target] = True  # R16: a creature at 0 Health is down
                downed = True
        else:
            assert p.dc is not None
            success = total >= p.dc  # R16: meets or beats the DC
        enc.economy.pay(roller, enc.resources[p.roller], action, on_turn=p.on_turn)  # step 6
        return Outcome(
            roller.id,
            p.kind,
            text,
            faces,
            total,
            action.name,
            target_id,
            damage,
            p.dc,
            success,
            downed,
        )

    def preview(self, enc: Engine, command: Act) -> dict[str, Any]:
        """What an action would roll and where Load would be after it, without doing it."""
        plan = self.plan(enc, command)
        i = plan.actor
        after = enc.resources[i].copy()
        enc.economy.pay(enc.creatures[i], after, plan.action, on_turn=plan.on_turn)
        out: dict[str, Any] = {
            "actor": enc.creatures[i].id,
            "action": plan.action.name,
            "gate": enc.economy.gate(
                enc.creatures[i], enc.resources[i], plan.action, on_turn=plan.on_turn
            ).reason,
            "resources_after": after.as_dict(),
        }
        if plan.action.kind in (ActionKind.ATTACK, ActionKind.CHECK):
            advantages = list(command.advantages) + list(enc.boons[i])
            probe = PendingRoll(
                RollKind.ACTION,
                i,
                plan.action,
                plan.target,
                plan.weapon,
                plan.dc,
                advantages=advantages,
            )
            out["expression"] = self.expression(enc, probe)[1]
        return out

    # -- the GM's adjustments (R48) -----------------------------------------------------------

    stats: tuple[str, ...] = ("load", "exhaustion", "buffer")

    def on_down(self, enc: Engine, i: int) -> None:
        """Nothing is held in this module: a downed creature's pending rolls are the engine's."""

    def check_stat(self, enc: Engine, i: int, stat: str, value: int) -> None:
        """R48: Load −100…100 (it may be negative, R10); Exhaustion and Load Buffer 0…100."""
        if stat not in self.stats:
            raise IllegalActionError(
                f"{stat} is an Action Point stat; this encounter plays Action Load "
                f"(its stats: {', '.join(self.stats)}, R48)"
            )
        low, high = (-100, 100) if stat == "load" else (0, 100)
        if not low <= value <= high:
            raise IllegalActionError(f"{stat} must be from {low} to {high}, not {value} (R48)")

    def set_stat(self, enc: Engine, i: int, stat: str, value: int) -> CreatureDef | None:
        """Load changes now; Exhaustion and Load Buffer at the creature's next reset (R10, R19)."""
        if stat == "load":
            state = enc.resources[i]
            assert isinstance(state, LoadState)
            state.load = value
            return None
        if stat == "exhaustion":
            return dataclasses.replace(enc.creatures[i], exhaustion=value)
        return dataclasses.replace(enc.creatures[i], load_buffer=value)

    def owns_fact(self, name: str) -> bool:
        """The Action Load module has no facts of its own: conditions are the engine's."""
        return False

    def check_fact(self, enc: Engine, fact: SetFact) -> None:  # pragma: no cover - never owned
        raise IllegalActionError(f"the Action Load module has no fact {fact.fact!r}")

    def apply_fact(self, enc: Engine, fact: SetFact) -> None:  # pragma: no cover - never owned
        raise AssertionError(fact)


def committed(enc: Engine, i: int) -> int:
    """R46: the costs of ``i``'s own declared actions still pending (paid when they resolve)."""
    owed = 0
    for p in enc.pending:
        if p.roller == i and p.kind is RollKind.ACTION and p.action is not None:
            owed += p.action.cost
    return owed


def _weapon(creature: CreatureDef, action: ActionDef, names: tuple[str, ...]) -> Weapon:
    if not names:
        fitting = [
            w
            for w in creature.weapons
            if action.weapon_kind is None or w.kind is action.weapon_kind
        ]
        if len(fitting) == 1:
            return fitting[0]
        known = ", ".join(w.name for w in fitting) or "none"
        kind = f"{action.weapon_kind} " if action.weapon_kind else ""
        raise InvalidActionError(
            f"which {kind}weapon? add 'with WEAPON' ({creature.name} has: {known})"
        )
    if len(names) > 1:
        raise InvalidActionError("this action uses one weapon")
    weapon = creature.weapon(names[0])
    if weapon is None:
        known = ", ".join(w.name for w in creature.weapons) or "none"
        raise InvalidActionError(f"{creature.name} has no weapon {names[0]!r} (has: {known})")
    if action.weapon_kind is not None and weapon.kind is not action.weapon_kind:
        raise IllegalActionError(
            f"{action.name} needs a {action.weapon_kind} weapon; {weapon.name} is {weapon.kind}"
        )
    return weapon


@dataclass(slots=True)
class _ActPlan:
    """A validated Action Load action, ready to execute."""

    command: Act
    actor: int
    action: ActionDef
    target: int | None
    weapon: Weapon | None
    dc: int | None
    on_turn: bool

    def execute(self, enc: Engine) -> Outcome | None:
        i, action = self.actor, self.action
        creature = enc.creatures[i]
        if action.kind is ActionKind.TEAM:
            top = enc.pending[-1]
            assert action.grant is not None
            top.advantages.append(Advantage(action.grant.kind, action.source_key))
            top.helpers.append((i, action.name))
            enc.economy.pay(creature, enc.resources[i], action, on_turn=False)
            return None
        if action.kind is ActionKind.EFFECT:
            if action.grant is not None and self.target is not None:
                enc.boons[self.target] = (
                    *enc.boons[self.target],
                    Advantage(action.grant.kind, action.source_key),
                )
            enc.economy.pay(creature, enc.resources[i], action, on_turn=self.on_turn)
            return None
        advantages = list(self.command.advantages) + list(enc.boons[i])
        enc.boons[i] = ()
        state = enc.resources[i]
        enc.pending.append(
            PendingRoll(
                RollKind.ACTION,
                i,
                action,
                self.target,
                self.weapon,
                self.dc,
                advantages=advantages,
                on_turn=self.on_turn,
                # R46: the Load its pool's base is fixed at (steps 1–4 come before the roll)
                context={"load": state.load} if isinstance(state, LoadState) else {},
            )
        )
        return None


__all__ = ["LoadActions", "grant_fits", "tables"]
