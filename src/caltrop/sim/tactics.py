"""Tactics a GM would call sensible: :class:`TacticalPolicy`, and the pieces it is built from.

The policy makes one-step decisions, each scored in one unit, **harm**: the share of a
creature's remaining Health an attack is expected to take, plus the chance that it downs the
creature, both weighted by the creature's *threat* (the damage it deals in a turn)::

    harm(attack on t) = threat(t) × (E[min(damage, health_t)] / health_t + P(damage ≥ health_t))

All of it comes from the exact dice distributions of :mod:`caltrop.dice` (cached), so a policy
decision costs a few dictionary look-ups. With it:

* **Focus the weakest reachable enemy.** On its turn a creature scores every legal attack (each
  target, weapon and action: only reachable targets are legal) by harm; wounded and dangerous
  enemies score highest, and a likely kill highest of all.
* **Keep Load in reserve.** What the creature's Load (or points) will still buy before it next
  resets is valued by :meth:`TacticalPolicy.budget_value`: its remaining attacks this turn, and
  the reactions it expects to want (an enemy's attack on an ally to hinder, an ally's attack to
  help) in the turns before its reset. An action is taken only if its own score plus what is
  left of the budget beats keeping the budget; otherwise the turn ends early (R18) with Load in
  hand. Which turns come before the reset is the economy's business: an :class:`Advisor`
  registered per economy answers it (Action Load: R10 at the own turn, or every round, R19).
* **Help or hinder only when it changes the odds.** In a reaction window a team action is scored
  by the change in harm of the pending roll with one more (or one fewer) d4, exactly; it is
  taken only when that gain exceeds both ``min_gain`` and what spending the Load costs the
  budget. A source key already on the roll adds nothing (R14) and is never paid for again.
* **End the turn when nothing good remains.**

Extension points for other economies: register an :class:`Advisor` for the economy with
:func:`register_advisor`, and add rules to :attr:`TacticalPolicy.turn_rules` /
:attr:`TacticalPolicy.reaction_rules` — each rule scores the commands it understands (returns
None for the others), so new kinds of action slot in beside the Action Load ones. An economy
whose turns are plans rather than single scored actions (the Action Point module: move, aim,
then shoot; Block or Dodge by exact expected damage) registers its whole decision procedure with
:func:`register_tactics`; :mod:`caltrop.sim.points_tactics` does so for ``action_points``.

**A compiled twin** (issue 13): :mod:`caltrop.sim.fast.tactical` plays Action Load encounters with
this policy's choices in a numba kernel, some 50 times faster, on tables of the numbers computed
here (:func:`harm`, the :class:`Profile`'s threat and attacks); its steps mirror ``_act``,
``_react``, ``_plan``, ``_budget`` and the rules above one for one. A change to how this policy
chooses in Action Load must be made there too: ``tests/sim/test_fast_tactical.py`` replays kernel
encounters with this policy, command by command, and fails at the first difference.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

import numpy as np

from caltrop.core.commands import Act, Command, EndTurn, Pass
from caltrop.core.model import (
    ActionDef,
    ActionKind,
    CreatureDef,
    EncounterDef,
    LoadReset,
    Side,
    Weapon,
)
from caltrop.core.pool import Advantage, net_advantage
from caltrop.dice.ast import Dice, Expr, Term
from caltrop.dice.distribution import distribution
from caltrop.economy import Resources
from caltrop.economy.load.state import LoadState
from caltrop.encounter import Encounter
from caltrop.sim.knobs import PointsKnobs
from caltrop.sim.points_tactics import PointsAdvisor, points_tactics

#: Team actions that only make sense on an attack aimed at the one who takes them ("Twist away
#: from an attack aimed at you"): matched against the action's source key.
SELF_ONLY_SOURCES: frozenset[str] = frozenset({"dodge"})

#: Attacks a creature is assumed to make per turn at most, when valuing a budget.
_MAX_ATTACKS = 4

#: Entries a definition's memo may hold (plans and budgets key on the state: they accumulate).
_MEMO_LIMIT = 200_000


# -- the numbers behind every score -------------------------------------------------------------


@lru_cache(maxsize=65536)
def attack_odds(expr: Expr, evasion: int, health: int) -> tuple[float, float]:
    """``(E[min(damage, health)], P(damage ≥ health))`` of ``expr`` against Evasion (R16)."""
    dist = distribution(expr)
    damage = np.maximum(np.arange(dist.min, dist.max + 1) - evasion, 0)
    probs = dist.probabilities
    capped = float(np.dot(np.minimum(damage, health), probs))
    kill = float(probs[damage >= health].sum()) if health > 0 else 1.0
    return capped, kill


def harm(expr: Expr, evasion: int, health: int, threat: float) -> float:
    """The harm an attack rolling ``expr`` does to a creature (see the module docs)."""
    if health <= 0:
        return 0.0
    capped, kill = attack_odds(expr, evasion, health)
    return threat * (capped / health + kill)


def roll_expr(
    encounter: Encounter,
    i: int,
    action: ActionDef,
    weapon: Weapon | None,
    net_adv: int,
    resources: Resources | None = None,
) -> Expr:
    """The dice creature ``i`` rolls for ``action`` with ``net_adv``, at ``resources`` (default:
    its current ones): the economy's d4 pool, then the weapon's and the action's extra dice."""
    creature = encounter.creatures[i]
    res = encounter.resources[i] if resources is None else resources
    d4 = encounter.economy.pool(creature, res, action, net_adv)
    terms = [Term(1, Dice(d4, 4))]
    if weapon is not None:
        terms.extend(weapon.dice.terms)
    if action.extra is not None:
        terms.extend(action.extra.terms)
    return Expr(tuple(terms))


def best_weapon(creature: CreatureDef, action: ActionDef) -> Weapon | None:
    """The weapon an action would use: the one with the highest mean among those that fit."""
    if not action.uses_weapon:
        return None
    fitting = [
        w for w in creature.weapons if action.weapon_kind is None or w.kind is action.weapon_kind
    ]
    if not fitting:
        return None
    return max(fitting, key=lambda w: distribution(w.dice).mean)


def _attacks(creature: CreatureDef) -> list[ActionDef]:
    return [
        a
        for a in creature.actions
        if a.kind is ActionKind.ATTACK
        and a.aspect in creature.aspects
        and (not a.uses_weapon or best_weapon(creature, a) is not None)
    ]


@dataclass(frozen=True, slots=True, eq=False)
class AttackRoll:
    """An attack as the tactics weigh it: its action and weapon, the dice rolled on top of the
    d4 pool (the weapon's, then the action's extra dice, as in :func:`roll_expr`), and the harm
    of each pool size to each target at each Health, remembered (within one :class:`Profile`:
    a target's Evasion and threat come from its definition). Equal only to itself (one per
    action and weapon in a profile), so it keys memos cheaply."""

    action: ActionDef
    weapon: Weapon | None
    extra: tuple[Term, ...]
    #: (d4s in the pool, target, the target's Health) → :func:`harm`
    harms: dict[tuple[int, int, int], float]

    @staticmethod
    def of(action: ActionDef, weapon: Weapon | None) -> AttackRoll:
        extra: list[Term] = []
        if weapon is not None:
            extra.extend(weapon.dice.terms)
        if action.extra is not None:
            extra.extend(action.extra.terms)
        return AttackRoll(action, weapon, tuple(extra), {})

    def expr(self, d4: int) -> Expr:
        """The dice rolled with a pool of ``d4`` (:func:`roll_expr`'s expression)."""
        return Expr((Term(1, Dice(d4, 4)), *self.extra))


def resources_key(resources: Resources) -> tuple[Any, ...]:
    """A hashable summary of a creature's resources (its Load, or its points)."""
    return tuple(resources.as_dict().items())


def _memo_key(resources: Resources) -> Hashable:
    """What the tactics' memos key ``resources`` by: :func:`resources_key`, or just the Load of
    an Action Load state (one economy per definition, so the two kinds never meet in a memo)."""
    if type(resources) is LoadState:
        return resources.load
    return resources_key(resources)


# -- profile: what the tactics precompute once per encounter definition -------------------------


@dataclass(frozen=True, slots=True)
class Profile:
    """Per creature (by index): its attacks with the weapon each would use, its cheapest
    reaction team action, the grants its reactions give, and its threat — the expected damage
    of one fresh turn of attacks against the mean Evasion of the other side (at least 1, so that
    no creature is worth nothing)."""

    attacks: tuple[tuple[tuple[ActionDef, Weapon | None], ...], ...]
    #: the same attacks as :class:`AttackRoll`\ s, which remember their harm
    rolls: tuple[tuple[AttackRoll, ...], ...]
    reaction: tuple[ActionDef | None, ...]
    grants: tuple[frozenset[tuple[str, str]], ...]
    threat: tuple[float, ...]
    #: memoised answers that depend only on the definition and the arguments in their keys
    #: (emptied when it outgrows ``_MEMO_LIMIT`` entries: each answer can be worked out again)
    memo: dict[tuple[Any, ...], Any]
    #: the definition profiled (kept alive with its profile: the caches know it by identity)
    definition: EncounterDef
    #: each creature's actions by name, the first of a name winning (as ``CreatureDef.action``)
    actions: tuple[dict[str, ActionDef], ...]
    #: every :class:`AttackRoll` made, by the identities of its action and weapon
    known_rolls: dict[tuple[int, int], AttackRoll]
    #: per side, the creatures of the other sides (index and threat), in order
    foes: dict[Side, tuple[tuple[int, float], ...]]
    #: per creature, the sides whose attacks its reactions would change (hinder: the other
    #: sides'; help: its own side's): the focus targets its plan depends on
    watched: tuple[tuple[Side, ...], ...]
    #: per creature, its ``Pass`` and its ``EndTurn`` (immutable commands, made once)
    passes: tuple[Pass, ...]
    end_turns: tuple[EndTurn, ...]

    def roll(self, action: ActionDef, weapon: Weapon | None) -> AttackRoll:
        """The :class:`AttackRoll` of ``action`` with ``weapon`` (made once, then remembered)."""
        return _known_roll(self.known_rolls, action, weapon)


def _known_roll(
    known: dict[tuple[int, int], AttackRoll], action: ActionDef, weapon: Weapon | None
) -> AttackRoll:
    key = (id(action), id(weapon))
    found = known.get(key)
    if found is None or found.action is not action or found.weapon is not weapon:
        found = known[key] = AttackRoll.of(action, weapon)
    return found


_PROFILES: dict[int, Profile] = {}


def profile(definition: EncounterDef) -> Profile:
    """The :class:`Profile` of a definition (cached by identity: definitions are immutable)."""
    hit = _PROFILES.get(id(definition))
    if hit is not None and hit.definition is definition:
        return hit
    built = _build_profile(definition)
    if len(_PROFILES) > 64:
        _PROFILES.clear()
    _PROFILES[id(definition)] = built
    return built


def _build_profile(definition: EncounterDef) -> Profile:
    from caltrop.economy import economy_for

    economy = economy_for(definition.ruleset)
    attacks = tuple(
        tuple((a, best_weapon(c, a)) for a in _attacks(c)) for c in definition.participants
    )
    reaction: list[ActionDef | None] = []
    grants: list[frozenset[tuple[str, str]]] = []
    threat: list[float] = []
    for k, c in enumerate(definition.participants):
        team = [a for a in c.actions if a.kind is ActionKind.TEAM and a.reaction]
        reaction.append(
            min(team, key=lambda a: (a.cost, -c.aspects.get(a.aspect, 0))) if team else None
        )
        grants.append(frozenset((a.grant.kind, a.grant.to) for a in team if a.grant is not None))
        foes = [o for o in definition.participants if o.side is not c.side]
        evasion = round(sum(o.evasion for o in foes) / len(foes)) if foes else 0
        total = 0.0
        res = economy.initial(c)
        for _ in range(_MAX_ATTACKS):
            best: tuple[float, ActionDef] | None = None
            for a, w in attacks[k]:
                if not economy.gate(c, res, a, on_turn=True):
                    continue
                terms = [Term(1, Dice(economy.pool(c, res, a, 0), 4))]
                if w is not None:
                    terms.extend(w.dice.terms)
                if a.extra is not None:
                    terms.extend(a.extra.terms)
                ed = distribution(Expr(tuple(terms))).expected_damage(evasion)
                if best is None or ed > best[0]:
                    best = (ed, a)
            if best is None:
                break
            total += best[0]
            economy.pay(c, res, best[1], on_turn=True)
        threat.append(max(1.0, total))
    actions: list[dict[str, ActionDef]] = []
    for c in definition.participants:
        by_name: dict[str, ActionDef] = {}
        for a in c.actions:
            by_name.setdefault(a.name, a)
        actions.append(by_name)
    known: dict[tuple[int, int], AttackRoll] = {}
    rolls = tuple(tuple(_known_roll(known, a, w) for a, w in mine) for mine in attacks)
    return Profile(
        attacks,
        rolls,
        tuple(reaction),
        tuple(grants),
        tuple(threat),
        {},
        definition,
        tuple(actions),
        known,
        {
            side: tuple(
                (j, threat[j]) for j, c in enumerate(definition.participants) if c.side is not side
            )
            for side in Side
        },
        tuple(
            tuple(
                s
                for s in Side
                if (("dis", "enemy") in g and s is not c.side)
                or (("adv", "ally") in g and s is c.side)
            )
            for c, g in zip(definition.participants, grants, strict=True)
        ),
        tuple(Pass(c.id) for c in definition.participants),
        tuple(EndTurn(c.id) for c in definition.participants),
    )


class _Decision:
    """One decision's look at the encounter, shared by the policy and its rules: the
    definition's :class:`Profile`, the advisor, and each side's focus target, each looked up
    once (the encounter does not change while a policy chooses)."""

    __slots__ = ("_advisor", "_attack_focus", "_focus", "encounter", "profile")

    def __init__(self, encounter: Encounter, known: Profile | None = None) -> None:
        self.encounter = encounter
        definition = encounter.definition
        if known is None or known.definition is not definition:
            known = profile(definition)
        self.profile = known
        if len(self.profile.memo) > _MEMO_LIMIT:
            self.profile.memo.clear()
        self._advisor: Advisor | None = None
        self._focus: dict[Side, int | None] = {}
        self._attack_focus: dict[int, tuple[int, int, int] | None] = {}

    @property
    def advisor(self) -> Advisor:
        if self._advisor is None:
            self._advisor = advisor_for(self.encounter)
        return self._advisor

    def harm(self, roll: AttackRoll, d4: int, t: int) -> float:
        """:func:`harm` to creature ``t`` as it stands now of ``roll`` with a pool of ``d4``."""
        health = self.encounter.health[t]
        key = (d4, t, health)
        found = roll.harms.get(key)
        if found is None:
            evasion = self.encounter.creatures[t].evasion
            found = roll.harms[key] = harm(roll.expr(d4), evasion, health, self.profile.threat[t])
        return found

    def command_roll(self, i: int, action: ActionDef, weapons: tuple[str, ...]) -> AttackRoll:
        """The roll of an attack command of ``i`` naming ``action`` and ``weapons`` (none: the
        best weapon that fits, see :func:`best_weapon`)."""
        memo = self.profile.memo
        key = ("roll", i, action.name, weapons)
        found: AttackRoll | None = memo.get(key)
        if found is None or found.action is not action:
            creature = self.encounter.creatures[i]
            weapon = creature.weapon(weapons[0]) if weapons else best_weapon(creature, action)
            found = memo[key] = self.profile.roll(action, weapon)
        return found

    def weakest(self, i: int) -> int | None:
        """:meth:`TacticalPolicy.weakest`: the same for every creature of a side."""
        side = self.encounter.creatures[i].side
        known = self._focus.get(side, -1)
        return self.focus(side) if known == -1 else known

    def attack_focus(self, i: int) -> tuple[int, int, int] | None:
        """What the value of ``i``'s attacks now depends on: its focus target, that target's
        Health and the Net Advantage of the boons ``i`` holds (None: no foe stands)."""
        if i in self._attack_focus:
            return self._attack_focus[i]
        t = self.weakest(i)
        encounter = self.encounter
        found = None if t is None else (t, encounter.health[t], _net(encounter.boons[i]))
        self._attack_focus[i] = found
        return found

    def focus_key(self, side: Side) -> tuple[int, int] | None:
        """The focus target of ``side`` with its Health: all that the tactics read of the
        encounter's Health when they weigh an attack of ``side`` on the foe it likely picks."""
        t = self.focus(side)
        return None if t is None else (t, self.encounter.health[t])

    def focus(self, side: Side) -> int | None:
        """The standing foe of ``side`` focused fire picks (see :meth:`TacticalPolicy.weakest`)."""
        known = self._focus.get(side, -1)
        if known != -1:
            return known
        down, health = self.encounter.down, self.encounter.health
        found: int | None = None
        least = 0.0
        for j, threat in self.profile.foes[side]:
            if down[j]:
                continue
            key = health[j] / threat
            if found is None or key < least:
                found, least = j, key
        self._focus[side] = found
        return found


# -- advisors: what an economy tells the tactics ------------------------------------------------


class Advisor(Protocol):
    """Economy-specific facts the tactics need.

    ``segment(encounter, i)`` lists the creatures whose turns come before creature ``i``'s
    resources next refresh, in order, beginning with the creature whose turn it is now (whose
    turn may be partly played). If ``i`` itself appears, its own turn spends from the same budget
    as its reactions (turn reset: only while it is its turn; round reset: any own turn later in
    the round). ``start_of_turn(encounter, o)`` is what creature ``o`` will have to spend when
    its turn in the segment begins.
    """

    def segment(self, encounter: Encounter, i: int) -> list[int]: ...

    def start_of_turn(self, encounter: Encounter, o: int) -> Resources: ...


class ActionLoadAdvisor:
    """Action Load: Load resets at the start of the creature's own turn (R10), or for everyone
    at the start of each round with ``load_reset: round`` (R19)."""

    __slots__ = ()

    def _round_reset(self, encounter: Encounter) -> bool:
        return encounter.definition.ruleset.load_reset is LoadReset.ROUND

    def key(self, encounter: Encounter) -> tuple[Any, ...]:
        """Everything :meth:`segment` and :meth:`start_of_turn` read of the encounter's state,
        as a hashable key (the rest comes from its definition)."""
        owner = encounter.turn_owner
        if self._round_reset(encounter):
            loads: Any = tuple(_memo_key(r) for r in encounter.resources)
        else:
            loads = (
                None if owner is None else _memo_key(encounter.resources[encounter.index(owner)])
            )
        return (tuple(encounter.order), tuple(encounter.down), owner, loads)

    def segment(self, encounter: Encounter, i: int) -> list[int]:
        down = encounter.down
        order = [o for o in encounter.order if not down[o]]
        owner = encounter.turn_owner
        if owner is None:
            return []
        now = encounter.index(owner)
        if now not in order:
            return []
        pos = order.index(now)
        if self._round_reset(encounter):
            # the rest of this round: the turn now and every later turn in the GM's order
            return order[pos:]
        out = [now]
        if now == i:  # my turn: then every other creature's turn until mine comes round again
            return out + order[pos + 1 :] + order[:pos]
        k = pos + 1
        while True:
            o = order[k % len(order)]
            if o == i:
                return out
            out.append(o)
            k += 1

    def start_of_turn(self, encounter: Encounter, o: int) -> Resources:
        if encounter.turn_owner == encounter.creatures[o].id or self._round_reset(encounter):
            return encounter.resources[o].copy()
        return encounter.economy.initial(encounter.creatures[o])


_ADVISORS: dict[str, Callable[[], Advisor]] = {"action_load": ActionLoadAdvisor}

#: Action Load's advisor holds no state: one serves every encounter.
_ACTION_LOAD_ADVISOR = ActionLoadAdvisor()


def register_advisor(economy: str, factory: Callable[[], Advisor]) -> None:
    """Tell the tactics how an economy refreshes (the Action Point module registers its own)."""
    _ADVISORS[economy] = factory


def advisor_for(encounter: Encounter) -> Advisor:
    """The advisor of the encounter's economy; an unknown economy is treated like turn reset."""
    factory = _ADVISORS.get(encounter.economy.name, ActionLoadAdvisor)
    return _ACTION_LOAD_ADVISOR if factory is ActionLoadAdvisor else factory()


# -- economies that decide by their own procedure -------------------------------------------------


class EconomyTactics(Protocol):
    """An economy's own decision procedure: the command creature ``i`` should issue now."""

    def __call__(self, policy: TacticalPolicy, encounter: Encounter, i: int) -> Command: ...


_TACTICS: dict[str, EconomyTactics] = {}


def register_tactics(economy: str, tactics: EconomyTactics) -> None:
    """Let ``tactics`` make the tactical policy's choices in encounters of ``economy``."""
    _TACTICS[economy] = tactics


def tactics_for(encounter: Encounter) -> EconomyTactics | None:
    """The decision procedure registered for the encounter's economy, if any."""
    return _TACTICS.get(encounter.economy.name)


# -- rules: scoring the commands a policy may choose --------------------------------------------


class TurnRule(Protocol):
    """Scores an on-turn command (in harm) or returns None if it is not this rule's kind."""

    def __call__(
        self, policy: TacticalPolicy, encounter: Encounter, i: int, command: Act
    ) -> float | None: ...


class ReactionRule(Protocol):
    """Scores a reaction to the pending roll (in harm) or returns None if not this rule's kind."""

    def __call__(
        self, policy: TacticalPolicy, encounter: Encounter, i: int, command: Act
    ) -> float | None: ...


def _net(sources: tuple[Any, ...]) -> int:
    """:func:`net_advantage` of ``sources`` (0 at once when there are none)."""
    return net_advantage(sources) if sources else 0


@lru_cache(maxsize=1024)
def _advantage(kind: str, source: str) -> Advantage:
    """``Advantage(kind, source)``, made (and checked) once."""
    return Advantage(kind, source)  # type: ignore[arg-type]


def _source(item: Advantage | tuple[str, str]) -> tuple[str, str]:
    """An advantage as :func:`net_advantage` counts it: ``(kind, source key)``."""
    return (item.kind, item.source) if isinstance(item, Advantage) else tuple(item)  # type: ignore[return-value]


def _net_with(sources: Iterable[Any], before: int, advantage: Advantage) -> int:
    """:func:`net_advantage` of ``sources`` and ``advantage`` together, given ``before``, that
    of ``sources`` alone: one more unless the source key is already there (R14)."""
    pair = (advantage.kind, advantage.source)
    for item in sources:
        if _source(item) == pair:
            return before
    return before + (1 if advantage.kind == "adv" else -1)


def score_attack(
    policy: TacticalPolicy, encounter: Encounter, i: int, command: Act
) -> float | None:
    """An attack: its harm to the target, with the boons the attacker holds (R14)."""
    d = policy._decision(encounter)
    action = d.profile.actions[i].get(command.action)
    if action is None or action.kind is not ActionKind.ATTACK or not command.targets:
        return None
    t = encounter.index(command.targets[0])
    boons = encounter.boons[i]
    net = (
        net_advantage(list(command.advantages) + list(boons)) if command.advantages or boons else 0
    )
    resources = encounter.resources[i]
    memo = d.profile.memo
    health = encounter.health[t]
    key: tuple[Any, ...] = (
        "score",
        i,
        command.action,
        command.weapons,
        net,
        _memo_key(resources),
        t,
        health,
    )
    found: float | None = memo.get(key)
    if found is None:
        roll = d.command_roll(i, action, command.weapons)
        d4 = encounter.economy.pool(encounter.creatures[i], resources, action, net)
        found = memo[key] = d.harm(roll, d4, t)
    return found


def score_boon(policy: TacticalPolicy, encounter: Encounter, i: int, command: Act) -> float | None:
    """An effect granting advantage on an ally's next roll (Watch My Back, a rally): the extra
    harm of that ally's best attack on its likely target with one more d4, discounted."""
    action = policy._decision(encounter).profile.actions[i].get(command.action)
    if action is None or action.kind is not ActionKind.EFFECT or action.grant is None:
        return None
    if not command.targets or action.grant.to != "ally" or action.grant.kind != "adv":
        return 0.0
    j = encounter.index(command.targets[0])
    boons = encounter.boons[j]
    before = _net(boons)
    after = _net_with(boons, before, _advantage("adv", action.source_key))
    if after == before:
        return 0.0  # R14: the source is already on the ally's next roll
    return policy.discount * policy.swing(encounter, j, encounter.resources[j], after - before)


def score_team(policy: TacticalPolicy, encounter: Encounter, i: int, command: Act) -> float | None:
    """A team action on the pending roll: the change of that roll's harm, exactly (R15, R14)."""
    creature = encounter.creatures[i]
    d = policy._decision(encounter)
    action = d.profile.actions[i].get(command.action)
    top = encounter.pending_roll
    if action is None or action.kind is not ActionKind.TEAM or action.grant is None:
        return None
    if top is None or top.action is None or top.action.kind is not ActionKind.ATTACK:
        return 0.0  # checks and GM-called rolls: no harm to weigh
    if top.target is None:
        return 0.0
    if action.source_key in SELF_ONLY_SOURCES and top.target != i:
        return 0.0
    resources = encounter.resources[top.roller]
    t = top.target
    # The harms before and after depend on the roll (its action and weapon: keyed by their
    # identities, which the entry holds and checks), its roller's resources, the sources of
    # advantage already on it and the one added (R14), and the target's Health.
    sources = tuple([_source(a) for a in top.advantages])
    memo = d.profile.memo
    key: tuple[Any, ...] = (
        "team",
        id(top.action),
        id(top.weapon),
        top.roller,
        sources,
        _memo_key(resources),
        action.grant.kind,
        action.source_key,
        t,
        encounter.health[t],
    )
    found: tuple[float, float, ActionDef, Weapon | None] | None = memo.get(key)
    if found is None or found[2] is not top.action or found[3] is not top.weapon:
        before = top.net_advantage
        after = _net_with(top.advantages, before, _advantage(action.grant.kind, action.source_key))
        if after == before:
            old = new = 0.0  # R14: the source is already on the roll (no change: 0 either way)
        else:
            roll = d.profile.roll(top.action, top.weapon)
            roller, pool = encounter.creatures[top.roller], encounter.economy.pool
            old = d.harm(roll, pool(roller, resources, top.action, before), t)
            new = d.harm(roll, pool(roller, resources, top.action, after), t)
        found = memo[key] = (old, new, top.action, top.weapon)
    old, new = found[0], found[1]
    mine = encounter.creatures[t].side is creature.side
    return old - new if mine else new - old


# -- the policy ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Plan:
    """The reactions a creature expects to want before its reset (their values, split into those
    before a later own turn and those after it), and whether such a later own turn comes."""

    before: tuple[float, ...]
    after: tuple[float, ...]
    own_later: bool


class TacticalPolicy:
    """The built-in tactics (see the module docs). Deterministic: same state, same choice.

    ``min_gain`` is the least harm a reaction must change to be worth taking; ``discount``
    weighs reactions and boons that are only expected (the moment may never come);
    ``reserve=False`` turns the Load budget off (then every affordable attack is taken).
    ``points`` holds the weights of the Action Point tactics (:class:`PointsKnobs`).
    """

    turn_rules: tuple[TurnRule, ...] = (score_attack, score_boon)
    reaction_rules: tuple[ReactionRule, ...] = (score_team,)

    def __init__(
        self,
        rng: np.random.Generator | None = None,
        *,
        min_gain: float = 0.05,
        discount: float = 0.6,
        reserve: bool = True,
        points: PointsKnobs | None = None,
    ) -> None:
        self.min_gain = min_gain
        self.discount = discount
        self.reserve = reserve
        self.points_knobs = points if points is not None else PointsKnobs()
        self._deciding: _Decision | None = None
        self._profile: Profile | None = None  # of the definition last seen

    def _decision(self, encounter: Encounter) -> _Decision:
        """The look at ``encounter`` of the decision being made (a fresh one outside a choice)."""
        deciding = self._deciding
        if deciding is not None and deciding.encounter is encounter:
            return deciding
        return _Decision(encounter)

    # -- helpers shared with rules ---------------------------------------------------------------

    def weakest(self, encounter: Encounter, i: int) -> int | None:
        """The standing foe of ``i`` with the least Health per threat: the one focused fire picks."""
        return self._decision(encounter).weakest(i)

    def swing(self, encounter: Encounter, j: int, resources: Resources, delta: int) -> float:
        """Harm changed when creature ``j``'s best attack (at ``resources``) on the foe it is
        likely to pick gets ``delta`` more Net Advantage (negative: disadvantage)."""
        return self._swing(self._decision(encounter), j, resources, delta)

    def _swing(self, d: _Decision, j: int, resources: Resources, delta: int) -> float:
        t = d.weakest(j)
        if t is None:
            return 0.0
        encounter = d.encounter
        memo = d.profile.memo
        key = ("swing", j, _memo_key(resources), t, encounter.health[t], delta)
        hit = memo.get(key)
        if hit is not None:
            return float(hit)
        c = encounter.creatures[j]
        economy = encounter.economy
        best_full = 0.0
        swing = 0.0
        for roll in d.profile.rolls[j]:
            if not economy.gate(c, resources, roll.action, on_turn=True):
                continue
            full = d.harm(roll, economy.pool(c, resources, roll.action, 0), t)
            if full > best_full:
                changed = d.harm(roll, economy.pool(c, resources, roll.action, delta), t)
                best_full, swing = full, changed - full
        memo[key] = swing
        return swing

    # -- choosing ---------------------------------------------------------------------------------

    def choose(self, encounter: Encounter, actor: str) -> Command:
        i = encounter.index(actor)
        special = tactics_for(encounter)
        if special is not None:
            return special(self, encounter, i)
        outer = self._deciding
        self._deciding = d = _Decision(encounter, self._profile)
        self._profile = d.profile
        try:
            return self._react(d, i) if encounter.pending else self._act(d, i)
        finally:
            self._deciding = outer

    def _after(
        self, encounter: Encounter, i: int, action: ActionDef, *, on_turn: bool
    ) -> Resources:
        res = encounter.resources[i].copy()
        encounter.economy.pay(encounter.creatures[i], res, action, on_turn=on_turn)
        return res

    def _act(self, d: _Decision, i: int) -> Command:
        encounter = d.encounter
        creature = encounter.creatures[i]
        actions = d.profile.actions[i]
        turn_rules = self.turn_rules
        scored: list[tuple[float, Act, ActionDef | None]] = []
        for command in encounter.generate_legal(creature.id):
            if not isinstance(command, Act):
                continue
            value: float | None = None
            for rule in turn_rules:  # the first rule that knows the command scores it
                value = rule(self, encounter, i, command)
                if value is not None:
                    break
            if value is not None and value > 0:
                # None: an action the economy provides itself (a later rule's business)
                scored.append((value, command, actions.get(command.action)))
        if not scored:
            return d.profile.end_turns[i]
        if not self.reserve:
            return max(scored, key=lambda s: s[0])[1]
        plan = self._plan(d, i)
        best: tuple[float, Command] = (
            self._budget(d, i, encounter.resources[i], plan, own_turn=False),
            d.profile.end_turns[i],
        )
        left: dict[str, float] = {}  # the budget after paying depends only on the action
        for value, command, action in scored:
            if command.action not in left:
                after = (
                    encounter.resources[i]
                    if action is None
                    else self._after(encounter, i, action, on_turn=True)
                )
                left[command.action] = self._budget(d, i, after, plan, own_turn=True)
            total = value + left[command.action]
            if total > best[0] + 1e-12:
                best = (total, command)
        return best[1]

    def _react(self, d: _Decision, i: int) -> Command:
        encounter = d.encounter
        creature = encounter.creatures[i]
        top = encounter.pending_roll
        reaction_rules = self.reaction_rules
        if (
            reaction_rules == TacticalPolicy.reaction_rules
            and top is not None
            and (top.action is None or top.action.kind is not ActionKind.ATTACK)
        ):
            return d.profile.passes[i]  # only attacks have harm to weigh (see score_team)
        actions = d.profile.actions[i]
        best: tuple[float, Act, ActionDef | None] | None = None
        for command in encounter.generate_legal(creature.id):
            if not isinstance(command, Act):
                continue
            value: float | None = None
            for rule in reaction_rules:  # the first rule that knows the command scores it
                value = rule(self, encounter, i, command)
                if value is not None:
                    break
            if value is not None and value >= self.min_gain and (best is None or value > best[0]):
                best = (value, command, actions.get(command.action))
        if best is None:
            return d.profile.passes[i]
        if self.reserve and best[2] is not None:
            plan = self._plan(d, i)
            own = creature.id == encounter.turn_owner
            keep = self._budget(d, i, encounter.resources[i], plan, own_turn=own)
            after = self._after(encounter, i, best[2], on_turn=False)
            spend = best[0] + self._budget(d, i, after, plan, own_turn=own)
            if spend < keep + self.min_gain:
                return d.profile.passes[i]
        return best[1]

    # -- the budget -------------------------------------------------------------------------------

    def plan(self, encounter: Encounter, i: int) -> Plan:
        """The reactions ``i`` expects to want before its next reset (see :class:`Plan`)."""
        return self._plan(self._decision(encounter), i)

    def _plan(self, d: _Decision, i: int) -> Plan:
        advisor = d.advisor
        if type(advisor) is not ActionLoadAdvisor:
            return self._make_plan(d, i)
        # A plan depends on the state only through the advisor's answers and the focus targets
        # (and their Health) of the sides whose attacks it would hinder or help: remembered by
        # those (Action Load's advisor gives the key of what it reads).
        focus = tuple([d.focus_key(s) for s in d.profile.watched[i]])
        memo = d.profile.memo
        key = ("plan", i, self.discount, advisor.key(d.encounter), focus)
        found: Plan | None = memo.get(key)
        if found is None:
            found = memo[key] = self._make_plan(d, i)
        return found

    def _make_plan(self, d: _Decision, i: int) -> Plan:
        encounter = d.encounter
        creatures = encounter.creatures
        me = creatures[i]
        grants = d.profile.grants[i]
        advisor = d.advisor
        segment = advisor.segment(encounter, i)
        own_later = i in segment[1:] or (
            bool(segment) and segment[0] == i and encounter.turn_owner != me.id
        )
        hinders, helps = ("dis", "enemy") in grants, ("adv", "ally") in grants
        if not (hinders or helps):
            return Plan((), (), own_later)  # no reaction of its own to expect
        before: list[float] = []
        after: list[float] = []
        seen_own = False
        for o in segment:
            if o == i:
                seen_own = True
                continue
            foe = creatures[o].side is not me.side
            if not (hinders if foe else helps):
                continue
            count, gain = self._expected(d, o, advisor.start_of_turn(encounter, o), foe)
            if count == 0 or gain <= 0:
                continue
            target = before if own_later and not seen_own else after
            target.extend([self.discount * gain] * count)
        before.sort(reverse=True)
        after.sort(reverse=True)
        return Plan(tuple(before), tuple(after), own_later)

    def _expected(self, d: _Decision, o: int, res: Resources, foe: bool) -> tuple[int, float]:
        """Creature ``o``'s attacks in a row from ``res`` (its turn's start), and how much
        harm a hinder (``foe``) or a help changes on each: ``(count, |swing|)``, the swing
        weighed only if ``count`` > 0."""
        t = d.weakest(o)
        memo = d.profile.memo
        key = ("expected", o, _memo_key(res), foe, t, None if t is None else d.encounter.health[t])
        found: tuple[int, float] | None = memo.get(key)
        if found is None:
            count = self._attack_count(d, o, res)
            gain = abs(self._swing(d, o, res, -1 if foe else 1)) if count else 0.0
            found = memo[key] = (count, gain)
        return found

    def budget_value(
        self, encounter: Encounter, i: int, resources: Resources, plan: Plan, *, own_turn: bool
    ) -> float:
        """What ``resources`` will still buy before ``i``'s next reset, in harm: the best mix of
        its own attacks (this turn if ``own_turn``, or a later own turn in the segment) and the
        reactions it expects, each taken greedily by value within what the gate allows."""
        return self._budget(self._decision(encounter), i, resources, plan, own_turn=own_turn)

    def _budget(
        self, d: _Decision, i: int, resources: Resources, plan: Plan, *, own_turn: bool
    ) -> float:
        encounter = d.encounter
        attacking = own_turn or plan.own_later
        # the value depends on these alone (the focus only when attacks are counted)
        focus = d.attack_focus(i) if attacking else None
        memo = d.profile.memo
        key = ("budget", i, _memo_key(resources), plan.before, plan.after, attacking, focus)
        found: float | None = memo.get(key)
        if found is not None:
            return found
        creature = encounter.creatures[i]
        economy = encounter.economy
        reaction = d.profile.reaction[i]
        best = 0.0
        res = resources.copy()
        taken = 0.0
        for rb in range(len(plan.before) + 1):
            if rb > 0:
                if reaction is None or not economy.gate(creature, res, reaction, on_turn=False):
                    break
                economy.pay(creature, res, reaction, on_turn=False)
                taken += plan.before[rb - 1]
            probe = res.copy()
            attacks = 0.0
            for k in range(_MAX_ATTACKS + 1 if attacking else 1):
                if k > 0:
                    step = self._best_attack_now(d, i, probe)
                    if step is None:
                        break
                    attacks += step[0]
                    economy.pay(creature, probe, step[1], on_turn=True)
                total = taken + attacks + self._reactions_value(d, i, probe, plan.after, reaction)
                best = max(best, total)
        memo[key] = best
        return best

    @staticmethod
    def _attack_count(d: _Decision, o: int, res: Resources) -> int:
        """How many attacks creature ``o`` can make in a row from ``res`` (at most 4)."""
        memo = d.profile.memo
        key = ("count", o, _memo_key(res))
        hit = memo.get(key)
        if hit is not None:
            return int(hit)
        other = d.encounter.creatures[o]
        economy = d.encounter.economy
        count = 0
        for action, _ in d.profile.attacks[o]:
            probe = res.copy()
            n = 0
            while n < _MAX_ATTACKS and economy.gate(other, probe, action, on_turn=True):
                economy.pay(other, probe, action, on_turn=True)
                n += 1
            count = max(count, n)
        memo[key] = count
        return count

    @staticmethod
    def _reaction_count(d: _Decision, i: int, res: Resources, reaction: ActionDef) -> int:
        """How many reactions ``i`` can still afford from ``res`` (at most 12)."""
        memo = d.profile.memo
        key = ("reactions", i, _memo_key(res))
        hit = memo.get(key)
        if hit is not None:
            return int(hit)
        creature = d.encounter.creatures[i]
        economy = d.encounter.economy
        probe = res.copy()
        n = 0
        while n < 12 and economy.gate(creature, probe, reaction, on_turn=False):
            economy.pay(creature, probe, reaction, on_turn=False)
            n += 1
        memo[key] = n
        return n

    @staticmethod
    def _reactions_value(
        d: _Decision,
        i: int,
        resources: Resources,
        values: tuple[float, ...],
        reaction: ActionDef | None,
    ) -> float:
        if reaction is None or not values:
            return 0.0
        return sum(values[: TacticalPolicy._reaction_count(d, i, resources, reaction)])

    def _best_attack_now(
        self, d: _Decision, i: int, resources: Resources
    ) -> tuple[float, ActionDef] | None:
        """The best single attack ``i`` could make on its focus target at ``resources``."""
        t = d.weakest(i)
        if t is None:
            return None
        encounter = d.encounter
        c = encounter.creatures[i]
        net = _net(encounter.boons[i])
        memo = d.profile.memo
        key = ("attack", i, _memo_key(resources), t, encounter.health[t], net)
        if key in memo:
            found: tuple[float, ActionDef] | None = memo[key]
            return found
        economy = encounter.economy
        best: tuple[float, ActionDef] | None = None
        for roll in d.profile.rolls[i]:
            if not economy.gate(c, resources, roll.action, on_turn=True):
                continue
            value = d.harm(roll, economy.pool(c, resources, roll.action, net), t)
            if best is None or value > best[0]:
                best = (value, roll.action)
        memo[key] = best
        return best


# The Action Point economy (seed 004): its advisor, and its tactics (plans, Block or Dodge).
register_advisor("action_points", PointsAdvisor)
register_tactics("action_points", points_tactics)
