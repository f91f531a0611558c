"""The actions of the Action Point module (seed 004), plugged into the one encounter engine.

The engine hands this module the commands, roll stages and reaction windows of an encounter whose
ruleset names ``economy: action_points``; turns, the log, replay, undo, clone, chance points and
the decision pointer stay the engine's. Every participant has the module's built-in actions:

=============  ==========================================  =================================
action         text                                        rule
=============  ==========================================  =================================
move           ``aria: move to 3,4``                       R35: 1 AP per travel speed meters
leap           ``aria: leap to 6,4``                       R36: 3 AP + 3 Stamina
hold           ``aria: hold``                              R33: 2 AP → 1 floating RP
aim            ``aria: aim goblin``                        R39: 1 AP, +1 Favor, stacking
attack         ``aria: attack goblin with sword+dagger``   R38: melee, no roll to hit
shoot          ``aria: shoot goblin with bow``             R39: Dexterity check, DC = distance
block / dodge  ``aria: block`` (in the defence window)     R40, R45
cover          ``aria: cover`` (in the defence window)     R40: doubles Block/Dodge dice
assist         ``bron: assist`` (adjacent ally)            R40: 1 RP, +1 die
grapple        ``brakka: grapple aria``                    R42: 3 AP + 2 Stamina, opposed
escape         ``aria: escape``                            R42: 2 AP/RP + 2 Stamina
scale          ``aria: scale troll`` / ``aria: scale``     R43: 3 AP + 4 Stamina
shake          ``troll: shake``                            R43: as escape
oppose         ``brakka: oppose``                          R42/R43: answer an escape/scale
equip / stow   ``aria: equip bow``                         R44: the weapon's attack AP
stand          ``aria: stand``                             R44: 1 AP
breath         ``aria: breath``                            R37: 1 AP, +1 Stamina
martial        ``aria: martial dc 12``                     R44: 3 AP, Analysis check
=============  ==========================================  =================================

The verbs' parts are in one table, :data:`caltrop.economy.points.verbs.TABLE` (planner, effect,
timing), their functions in the phase modules (:mod:`.movement`, :mod:`.attacks`, :mod:`.defence`,
:mod:`.grapple`, :mod:`.stealth`, :mod:`.misc`) and the roll stages in :mod:`.stages`; this
module is the dispatcher the engine sees.

Any action may carry ``+stealth`` (R41: a Poise check against each observer) and ``+careful``
(R41: double AP for 1 Favor on that check). Each refusal names the rule and the numbers.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from caltrop.core.commands import Act, Command, EndTurn, Pass, SetFact
from caltrop.core.model import (
    CreatureDef,
    OffTurn,
    WeaponKind,
)
from caltrop.dice.ast import Expr
from caltrop.economy.base import Engine
from caltrop.economy.outcome import Outcome
from caltrop.economy.pending import PendingRoll, RollKind
from caltrop.economy.points.attacks import UNARMED, melee_damage, melee_parts
from caltrop.economy.points.common import ADJACENT, PointsPlan, distance, lose_aim, state_of
from caltrop.economy.points.economy import spend
from caltrop.economy.points.grapple import carried_weight, release
from caltrop.economy.points.movement import check_place, place, travel_speed
from caltrop.economy.points.rolls import Contest
from caltrop.economy.points.stages import expression, resolve
from caltrop.economy.points.stealth import queue_stealth
from caltrop.economy.points.verbs import REACTIONS, TABLE, VERBS, Timing
from caltrop.errors import IllegalActionError, InvalidActionError


def plan(enc: Engine, command: Act) -> PointsPlan:
    """Validate ``command`` (R30-R45): the module's checks, then its verb's planner."""
    i = enc.standing(command.actor)
    creature = enc.creatures[i]
    verb = command.action
    if verb not in VERBS:
        raise InvalidActionError(
            f"{creature.name} has no action {verb!r} in the Action Point module (actions: {', '.join(VERBS)})"
        )
    unknown = set(command.flags) - {"stealth", "careful"}
    if unknown:
        raise InvalidActionError(
            f"unknown flag(s) {', '.join(sorted(unknown))}: +stealth, +careful"
        )
    if "careful" in command.flags and "stealth" not in command.flags:
        raise InvalidActionError("+careful goes with +stealth (R41: double AP for 1 Favor)")
    top = enc.pending[-1] if enc.pending else None
    if top is not None and top.kind is RollKind.INITIATIVE:
        raise IllegalActionError("initiative is being rolled; nobody acts until it is done (R30)")
    mine = enc.turn_owner == creature.id
    on_turn = top is None and mine
    entry = TABLE[verb]
    if entry.timing is Timing.REACTION:
        return PointsPlan(verb, i, entry.plan(enc, i, command, mine, top), execute)
    free = entry.timing is Timing.FREE
    anytime = enc.definition.ruleset.off_turn_actions is OffTurn.ANY
    if top is not None and (top.roller == i or not (anytime or free)):
        raise IllegalActionError(
            f"a roll is pending: only reactions ({', '.join(REACTIONS)}) or 'pass' now (R45)"
        )
    if not on_turn and not free:
        owner = enc.turn_owner
        whose = f"it is {enc.creature(owner).name if owner else 'nobody'}'s turn"
        if not anytime:
            # off_turn_actions: reactions — only reactions, escape and shake off-turn (R32)
            raise IllegalActionError(
                f"{whose}; {verb} is taken on {creature.name}'s own turn "
                "(R32, off_turn_actions: reactions)"
            )
        if not entry.off_turn and not mine:
            raise IllegalActionError(
                f"{whose}; Hold Action turns AP into floating RP on one's own turn (R33)"
            )
        # R32 (off_turn_actions: any): any action it can pay for, at any moment, paid in RP
        # and floating RP (2 RP per AP) — or in AP by the turn owner during a window
        on_turn = mine
    return PointsPlan(verb, i, entry.plan(enc, i, command, on_turn, top), execute)


def legal(enc: Engine, i: int) -> Iterator[Command]:
    """A useful finite list of legal commands: positions are continuous, so moves toward each
    enemy (to adjacency, or as far as the AP allow) stand for every move. Off its turn and
    outside a window, what R32 ``off_turn_actions: any`` lets it pay for with its RP."""
    creature = enc.creatures[i]
    cid = creature.id
    top = enc.pending[-1] if enc.pending else None
    candidates: list[Act] = []
    if top is not None:
        if top.kind is RollKind.STAGE and top.roller != i:
            candidates += [Act(cid, v) for v in ("assist", "oppose")]
        if top.kind is RollKind.STAGE and top.roller == i:
            candidates += [Act(cid, v) for v in ("cover", "block", "dodge")]
        for command in candidates:
            if enc.is_legal(command):
                yield command
        asked = top.roller != i or i in reactors(enc, top)
        if top.kind is not RollKind.INITIATIVE and asked and i not in top.passed:
            yield Pass(cid)
        return
    if enc.turn_owner != cid and enc.definition.ruleset.off_turn_actions is not OffTurn.ANY:
        return  # R32 reactions: off turn only in a window (above)
    # R32 any: off turn, any action it can pay for (in RP), listed as on its own turn
    me = state_of(enc, i)
    for j, other in enumerate(enc.creatures):
        if enc.down[j] or other.side is creature.side:
            continue
        candidates.append(Act(cid, "attack", (other.id,)))
        for w in creature.weapons:
            if w.kind is WeaponKind.RANGED and w.name in me.equipped:
                candidates.append(Act(cid, "shoot", (other.id,), (w.name,)))
        if any(w.kind is WeaponKind.RANGED and w.name in me.equipped for w in creature.weapons):
            candidates.append(Act(cid, "aim", (other.id,)))  # only with a bow in hand
        candidates.append(Act(cid, "grapple", (other.id,)))
        them = state_of(enc, j)
        d = distance(me, them)
        if d > 1.0:
            speed = travel_speed(enc, i)
            reach = min(d - 1.0, speed * me.ap)
            if reach > 0:
                f = reach / d
                to = (
                    round(me.x + (them.x - me.x) * f, 2),
                    round(me.y + (them.y - me.y) * f, 2),
                )
                candidates.append(Act(cid, "move", to=to))
    candidates += [Act(cid, v) for v in ("hold", "breath", "stand", "escape", "shake")]
    for command in dict.fromkeys(candidates):  # two enemies in a line: one move
        if enc.is_legal(command):
            yield command


def reactors(enc: Engine, top: PendingRoll) -> Iterator[int]:
    """Who may still react to ``top``: the defender first, then its adjacent allies."""
    if top.kind is not RollKind.STAGE:
        return
    if top.stage == "defence":
        yield top.roller
        yield from (j for j in enc.window_order(top) if j != top.roller)
    elif top.stage == "contest":
        contest = Contest.of(top.context)
        if not contest.opposed:
            yield contest.opposer


def has_reaction(enc: Engine, i: int, top: PendingRoll) -> bool:
    return any(isinstance(c, Act) for c in legal(enc, i))


def execute(enc: Engine, plan: PointsPlan) -> Outcome | None:
    """Carry out a planned command: pay (R31-R33, R37), then its verb's effect, then queue
    its stealth checks (R41) so that they resolve before the action's own rolls."""
    i = plan.actor
    state = state_of(enc, i)
    spend(state, plan.pay)
    state.stamina -= plan.price.stamina
    entry = TABLE[plan.verb]
    if not entry.keeps_aim:
        lose_aim(state)  # R39: any other action, a reaction too
    if not entry.run_up:
        state.moved = 0.0  # R36: the run-up is the moves right before
    top = enc.pending[-1] if enc.pending else None
    outcome = entry.do(enc, plan, top)
    if "stealth" in plan.command.flags:
        queue_stealth(enc, i, plan.command)
    return outcome


class PointsActions:
    """Seed 004's actions behind the engine's :class:`~caltrop.economy.base.Actions` interface."""

    __slots__ = ()

    def plan(self, enc: Engine, command: Act) -> PointsPlan:
        return plan(enc, command)

    def legal(self, enc: Engine, i: int) -> Iterator[Command]:
        yield from legal(enc, i)
        cid = enc.creatures[i].id
        if not enc.pending and enc.turn_owner == cid:
            yield EndTurn(cid)

    def reactors(self, enc: Engine, top: PendingRoll) -> Iterator[int]:
        return reactors(enc, top)

    def next_reactor(self, enc: Engine, top: PendingRoll) -> int | None:
        for i in reactors(enc, top):
            if i not in top.passed and not enc.down[i] and has_reaction(enc, i, top):
                return i
        return None

    def expression(self, enc: Engine, p: PendingRoll) -> tuple[Expr, str]:
        expr = expression(enc, p)
        return expr, str(expr)

    def resolve(
        self, enc: Engine, p: PendingRoll, expr: Expr, text: str, faces: tuple[int, ...], total: int
    ) -> Outcome:
        return resolve(enc, p, expr, faces, total)

    # -- the GM's adjustments (R48) and facts (R34) --------------------------------------------

    stats: tuple[str, ...] = ("ap", "rp", "stamina")

    def on_down(self, enc: Engine, i: int) -> None:
        release(enc, i)

    def check_stat(self, enc: Engine, i: int, stat: str, value: int) -> None:
        """R48: AP and RP 0…99; Stamina 0…its maximum (R37: never below 0)."""
        if stat not in self.stats:
            raise IllegalActionError(
                f"{stat} is an Action Load stat; this encounter plays Action Points "
                f"(its stats: {', '.join(self.stats)}, R48)"
            )
        high = enc.creatures[i].stats.get("stamina", 0) if stat == "stamina" else 99
        if not 0 <= value <= high:
            raise IllegalActionError(
                f"{stat} of {enc.creatures[i].name} must be from 0 to {high}, not {value} (R48)"
            )

    def set_stat(self, enc: Engine, i: int, stat: str, value: int) -> CreatureDef | None:
        setattr(state_of(enc, i), stat, value)
        return None

    def owns_fact(self, name: str) -> bool:
        return name in ("prone", "aware", "sight", "at")

    def check_fact(self, enc: Engine, fact: SetFact) -> None:
        """R34: awareness and line of sight are about another creature; a position is a finite
        place within the map's bounds, not on top of another standing creature."""
        i = enc.index(fact.subject)
        if fact.other is not None and enc.index(fact.other) == i:
            raise IllegalActionError(f"{fact.fact} is a fact about another creature")
        if fact.at is not None:
            check_place(enc, i, fact.at, "be placed")

    def apply_fact(self, enc: Engine, fact: SetFact) -> None:
        """Set ``fact``; a new position ends cover by and against the creature (R40) and counts
        toward the aim its watchers lose (R39)."""
        i = enc.index(fact.subject)
        s = state_of(enc, i)
        if fact.fact == "prone":
            s.prone = fact.value
        elif fact.fact in ("aware", "sight"):
            assert fact.other is not None
            name = "unaware_of" if fact.fact == "aware" else "no_sight"
            current: tuple[str, ...] = getattr(s, name)
            without = tuple(x for x in current if x != fact.other)
            setattr(s, name, without if fact.value else (*without, fact.other))
        else:
            assert fact.at is not None
            place(enc, [i], fact.at[0] - s.x, fact.at[1] - s.y)

    def preview(self, enc: Engine, command: Act) -> dict[str, Any]:
        """What an action would cost and leave (R31–R33), without doing it."""
        planned = plan(enc, command)
        after = state_of(enc, planned.actor).copy()
        spend(after, planned.pay)
        after.stamina -= planned.price.stamina
        return {
            "actor": enc.creatures[planned.actor].id,
            "action": planned.verb,
            "resources_after": after.as_dict(),
        }


__all__ = [
    "ADJACENT",
    "UNARMED",
    "VERBS",
    "PointsActions",
    "carried_weight",
    "check_place",
    "distance",
    "execute",
    "legal",
    "melee_damage",
    "melee_parts",
    "plan",
    "travel_speed",
]
