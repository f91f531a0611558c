"""``view(encounter, viewer)``: one encounter as the GM or one player may see it (issue 11).

The view holds the turn order and round, each creature as the viewer may see it
(:mod:`caltrop.table.visibility`), the pending roll with who still has to answer in its
reaction window (R15), and what the viewer's creatures may do right now: every legal command
with its cost and the Load or points it leaves, and each action it may not take, greyed, with
the engine's reason (R11's arithmetic). Each roll, offered or pending, comes with its pool
explained (:mod:`caltrop.table.pool`) and its exact odds (:mod:`caltrop.table.odds`), the
pending one with the dice to enter one by one; the last log entries close the view
(:mod:`caltrop.table.log`). Nothing here changes the encounter: the window is walked on a
clone, costs come from :meth:`Encounter.preview`, an offered roll is declared on a clone.

Hidden information: a player's odds against an NPC tell its Evasion or Resistance roughly, so
the GM may hide them per NPC (``Reveal.odds``); ``against`` names an NPC's Evasion only to
players who may see its Aspects; a pool names an NPC's Aspect and Load numbers only likewise.

Who may roll (the server's rule, documented here because every screen shows it): the GM may
roll any pending roll at any time (which closes its window); a player may roll a roll its own
creature declared once nobody is left to answer it (the engine's pointer is *chance*), so a
player never cuts off the others' reactions.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from caltrop.core.commands import GM, Act, Command, EndTurn, Pass, RollDice
from caltrop.core.model import ActionKind, Economy, Side
from caltrop.dice.ast import Expr
from caltrop.dice.parse import check_limits
from caltrop.economy import Resources
from caltrop.economy.load.actions import committed
from caltrop.economy.load.state import LoadState
from caltrop.economy.points.actions import carried_weight
from caltrop.encounter import CHANCE, TERMINAL, Encounter, PendingRoll, RollKind
from caltrop.encounter.gm import settable_conditions
from caltrop.errors import CaltropError, DiceLimitError, InvalidActionError
from caltrop.table.log import LogMemo
from caltrop.table.movement import movement
from caltrop.table.odds import Odds, declared_roll, expression, reaction_odds, roll_odds
from caltrop.table.pool import dice_of, pool_text
from caltrop.table.visibility import NPC_DEFAULT, HealthShown, Reveal, health_label

#: The viewer a shared table screen (a TV, issue 22's table view) sees the table as: what every
#: player sees of it (each NPC as its Reveal says, no GM-hidden number), and no creature's
#: options, since it answers for none. Not a creature id (an id is a lowercase word).
SCREEN: Final = "@screen"

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class CreatureView:
    """One creature as the viewer may see it; a field the viewer may not see is None and is
    left out of :meth:`as_dict` altogether."""

    id: str
    name: str
    side: str
    down: bool
    removed: bool
    conditions: tuple[str, ...]
    initiative: int | None = None
    health: int | None = None
    max_health: int | None = None
    health_label: str | None = None
    aspects: Mapping[str, int] | None = None
    resources: Mapping[str, Any] | None = None
    #: the creature's actions with their costs (names and costs, the stat block's)
    actions: Mapping[str, int] | None = None
    #: the stat block's other numbers (the Action Point module's Stamina, ratings, …)
    stats: Mapping[str, int] | None = None
    #: the weight of the creatures scaling it (R43), when any do
    carries: int | None = None
    #: where it stands (the Action Point module, R34): seen by everyone who is aware of it
    position: tuple[float, float] | None = None
    #: what the players see of this NPC (:class:`Reveal` as data: health, aspects, resources,
    #: odds), for the GM only, whose screen switches it per NPC; None otherwise
    shown: Mapping[str, Any] | None = None
    #: how far it may move now and its weapons' ranges (the Action Point map, R32, R35, R39;
    #: :mod:`caltrop.table.movement`): seen with its Aspects and points
    movement: Mapping[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.__slots__:
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, Mapping):
                value = dict(value)
            elif isinstance(value, tuple):
                value = list(value)
            out[name] = value
        return out


@dataclass(frozen=True, slots=True)
class ActionOption:
    """One thing a creature (or the GM) may do now, or an action it may not, with the reason."""

    actor: str
    #: the command in the engine's notation (what a client sends)
    command: str
    #: the action's name, or ``end turn``, ``pass``, ``roll``, ``pass all``
    action: str
    legal: bool
    reason: str | None = None
    #: what it costs: each resource's change (``{"load": 3}``, ``{"ap": -2}``)
    cost: Mapping[str, float] = field(default_factory=dict)
    #: the resources it leaves (Load, or AP/RP/Stamina)
    leaves: Mapping[str, Any] | None = None
    #: the dice it would roll now
    rolls: str | None = None
    #: taken off its own turn (a reaction or team action in another's window, R15)
    reaction: bool = False
    #: the exact odds of the roll it declares (:meth:`caltrop.table.odds.Odds.as_dict`)
    odds: Mapping[str, Any] | None = None
    #: the roll's pool explained (``5d4+1d8: Finesse 6 − Load 2, +1 torch, sword 1d8``)
    pool: str | None = None
    #: of an action it may not take now: whether its gate is open all the same (R11: only the
    #: moment is wrong — another's turn, no roll to react to), None when not asked
    gate_open: bool | None = None
    #: why the roll has no odds: its dice are past the dice limits (docs/limits.md), so the
    #: engine refuses to roll it; the view shows that instead of raising (issue 21)
    refused: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "actor": self.actor,
            "command": self.command,
            "action": self.action,
            "legal": self.legal,
            "cost": dict(self.cost),
            "reaction": self.reaction,
        }
        if self.reason is not None:
            out["reason"] = self.reason
        if self.leaves is not None:
            out["leaves"] = dict(self.leaves)
        if self.rolls is not None:
            out["rolls"] = self.rolls
        if self.odds is not None:
            out["odds"] = dict(self.odds)
        if self.pool is not None:
            out["pool"] = self.pool
        if self.gate_open is not None:
            out["gate_open"] = self.gate_open
        if self.refused is not None:
            out["refused"] = self.refused
        return out


@dataclass(frozen=True, slots=True)
class PendingView:
    """The roll on top of the pending stack and its reaction window (R15)."""

    kind: str
    roller: str
    action: str | None
    target: str | None
    dc: int | None
    stage: str
    expression: str
    advantages: tuple[str, ...]
    net_advantage: int
    passed: tuple[str, ...]
    #: who still has to answer, in the order they are asked
    waiting_on: tuple[str, ...]
    #: the rolls below it (a stage roll waits on a defence, say)
    depth: int
    #: the roll in words: ``strike``, ``shoot hit``, ``attack defence against 8 damage``
    what: str = ""
    #: its exact odds now, with one more help or hinder (None: nothing to succeed at, or hidden)
    odds: Mapping[str, Any] | None = None
    #: its pool explained
    pool: str = ""
    #: the faces of every die it rolls now, in entry order (``roll 3,1,4,4,2,7``, R5)
    dice: tuple[int, ...] = ()
    #: why it has no odds: its dice are past the dice limits, so it cannot be rolled (the
    #: GM undoes or changes it); None when it can
    refused: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "roller": self.roller,
            "action": self.action,
            "target": self.target,
            "dc": self.dc,
            "stage": self.stage,
            "expression": self.expression,
            "advantages": list(self.advantages),
            "net_advantage": self.net_advantage,
            "passed": list(self.passed),
            "waiting_on": list(self.waiting_on),
            "depth": self.depth,
            "what": self.what,
            "odds": dict(self.odds) if self.odds is not None else None,
            "pool": self.pool,
            "dice": list(self.dice),
            **({"refused": self.refused} if self.refused is not None else {}),
        }


@dataclass(frozen=True, slots=True)
class TableView:
    """Everything one screen shows of an encounter, for one viewer."""

    viewer: str
    encounter: str
    module: str
    #: the number of commands applied (the log's head: a client's ``last_seq``)
    seq: int
    round: int
    turn: str | None
    order: tuple[str, ...]
    #: who decides now: a creature id, ``chance`` (dice) or ``terminal``
    current: str
    over: bool
    winner: str | None
    creatures: tuple[CreatureView, ...]
    pending: PendingView | None
    #: per actor the viewer answers for (its creature; the GM: ``gm`` and every NPC)
    options: Mapping[str, tuple[ActionOption, ...]]
    #: the last log entries, oldest first (:func:`caltrop.table.log.entry`)
    log: tuple[Mapping[str, Any], ...] = ()
    #: the conditions a GM may set on a creature here (R48, the engine's one list:
    #: :func:`caltrop.encounter.gm.settable_conditions`), which a GM screen toggles per row
    conditions: tuple[str, ...] = ()
    #: the GM's only: the encounter's reserves, (id, name) each, which ``gm: add`` brings in
    #: by id (R48); a player is not told who may still join
    reserves: tuple[tuple[str, str], ...] = ()

    def as_dict(self, memo: DictMemo | None = None) -> dict[str, Any]:
        """The view as JSON-ready data. ``memo``: the parts already made into data for other
        views of the same state (:func:`views_as_dicts`), shared with them, not copied."""
        once = memo if memo is not None else DictMemo()
        pending = self.pending
        return {
            "viewer": self.viewer,
            "encounter": self.encounter,
            "module": self.module,
            "seq": self.seq,
            "round": self.round,
            "turn": self.turn,
            "order": list(self.order),
            "current": self.current,
            "over": self.over,
            "winner": self.winner,
            "creatures": once(self.creatures, _creature_dicts),
            "pending": once(pending, PendingView.as_dict) if pending is not None else None,
            "options": {a: once(opts, _option_dicts) for a, opts in self.options.items()},
            "log": once(self.log, _log_dicts),
            "conditions": list(self.conditions),
            "reserves": [list(r) for r in self.reserves],
        }

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), sort_keys=True, ensure_ascii=False)


def _creature_dicts(creatures: tuple[CreatureView, ...]) -> list[dict[str, Any]]:
    return [c.as_dict() for c in creatures]


def _option_dicts(options: tuple[ActionOption, ...]) -> list[dict[str, Any]]:
    return [o.as_dict() for o in options]


def _log_dicts(log: tuple[Mapping[str, Any], ...]) -> list[dict[str, Any]]:
    return [dict(e) for e in log]


class DictMemo:
    """The parts of views already made into JSON-ready data, by the part itself: views of one
    state share their parts (:class:`Shared`), so each is converted once. Keyed on the part's
    identity, each kept alive here, so a key never names another object; meant for one call
    (:func:`views_as_dicts`). The data it returns is shared between views: read it only."""

    __slots__ = ("_made",)

    def __init__(self) -> None:
        self._made: dict[int, tuple[object, Any]] = {}

    def __call__(self, part: T, make: Callable[[T], R]) -> R:
        found = self._made.get(id(part))
        if found is not None and found[0] is part:
            made: R = found[1]
            return made
        made = make(part)
        self._made[id(part)] = (part, made)
        return made


def views_as_dicts(seen: Mapping[str, TableView]) -> dict[str, dict[str, Any]]:
    """Each view of :func:`views` as JSON-ready data (:meth:`TableView.as_dict`), the parts the
    views share converted once (a broadcast's payloads)."""
    memo = DictMemo()
    return {viewer: tv.as_dict(memo) for viewer, tv in seen.items()}


def view(
    encounter: Encounter,
    viewer: str,
    visibility: Mapping[str, Reveal] | None = None,
    *,
    answers_for: Iterable[str] | None = None,
    log: Iterable[Mapping[str, Any]] | None = None,
    shared: Shared | None = None,
    log_memo: LogMemo | None = None,
) -> TableView:
    """The encounter as ``viewer`` (``"gm"``, a creature id, or :data:`SCREEN`: a table
    screen, which sees what players see and answers for no one) may see it.

    ``visibility`` maps NPC ids to what players see of them (default :data:`NPC_DEFAULT`: a
    Health label, no Aspects, no Load or points). The GM sees everything.
    ``answers_for`` names the actors whose options the view lists (default: a player its own
    creature; the GM ``gm``, each player character who decides now, with the options its own
    seat gets, and every NPC). The GM may issue every command (R48), so a GM's view may list
    every creature's (the terminal, where one keyboard runs them all, as the GM sees them); a
    player's may not.
    ``log``: the log entries if already worked out for another viewer who sees the log alike
    (:func:`views`: every player sees the same log, the GM another).
    ``shared``: the work of other viewers' views of this same state (:class:`Shared`), reused
    where it is theirs alike; ``log_memo``: log entries worked out for earlier states of this
    encounter (:class:`~caltrop.table.log.LogMemo`). Neither changes what the view holds.
    Raises :class:`InvalidActionError` for a viewer that is neither the GM nor a creature.
    """
    if viewer not in (GM, SCREEN):
        encounter.index(viewer)  # raises, naming the known ids
    shown = visibility or {}
    if shared is None or shared.enc is not encounter or shared.shown != shown:
        shared = Shared(encounter, shown)
    seen = shared.sight(viewer == GM)
    creatures = shared.creatures(viewer)
    pending = encounter.pending_roll
    waiting = shared.waiting
    actors = (
        [
            GM,
            *_deciding_pcs(encounter, waiting),  # first: a screen lists them in this order
            *(c.id for c in encounter.creatures if c.side is Side.NPC),
        ]
        if viewer == GM
        else []
        if viewer == SCREEN
        else [viewer]
    )
    if answers_for is not None:
        actors = list(answers_for)
        if viewer != GM and actors != [viewer]:
            raise InvalidActionError(f"a player's view lists only its own options ({viewer})")
        for actor in actors:
            if actor != GM:
                encounter.index(actor)
    return TableView(
        viewer=viewer,
        encounter=encounter.definition.name,
        module=encounter.definition.ruleset.economy.value,
        seq=len(encounter.events) - 1,
        round=encounter.round,
        turn=encounter.turn_owner,
        order=tuple(encounter.creatures[i].id for i in encounter.order),
        current=encounter.current(),
        over=encounter.over,
        winner=encounter.winner.value if encounter.winner else None,
        creatures=creatures,
        pending=shared.pending(viewer == GM) if pending is not None else None,
        # the GM screen's PCs as their seats see them; the terminal's (answers_for) as the GM
        options={
            actor: shared.options(
                actor, viewer == GM if answers_for is not None else _sees_as_gm(seen, actor)
            )
            for actor in actors
        },
        log=tuple(
            (log_memo or LogMemo()).entries(encounter, viewer, shown) if log is None else log
        ),
        conditions=settable_conditions(encounter.definition.ruleset),
        reserves=(
            tuple((c.id, c.name) for c in encounter.definition.reserves) if viewer == GM else ()
        ),
    )


def views(
    encounter: Encounter,
    viewers: Iterable[str],
    visibility: Mapping[str, Reveal] | None = None,
    *,
    log_memo: LogMemo | None = None,
) -> dict[str, TableView]:
    """The view of each of ``viewers`` (as :func:`view`) of one state, worked out once where
    viewers see alike (:class:`Shared`: every player sees the same pending roll, the same NPCs
    and the same odds; a PC's options are the same on its seat and on the GM's screen) and the
    log once for the GM and once for all the players (an event reads the same to every
    player, :func:`~caltrop.table.events.visible_event`): a broadcast's views. ``log_memo``
    keeps the log entries of earlier states of the encounter (each command adds one)."""
    shown = visibility or {}
    shared = Shared(encounter, shown)
    memo = log_memo if log_memo is not None else LogMemo()
    logs: dict[bool, tuple[dict[str, Any], ...]] = {}
    out: dict[str, TableView] = {}
    for viewer in viewers:
        key = viewer == GM
        if key not in logs:
            logs[key] = tuple(memo.entries(encounter, viewer, shown))
        out[viewer] = view(encounter, viewer, shown, log=logs[key], shared=shared)
    return out


class Shared:
    """The parts of one state's views that do not depend on which viewer asks, only on whether
    it is the GM (issue 20 §5: the five seats of a table cost one view's work, not five). A
    player's sight is the same for every player (:class:`_Sight`: the party whole, each NPC
    as its :class:`Reveal` says), so the pending roll, the creatures (but for where a creature
    unaware of another does not see it, R39) and a creature's options worked out with a
    player's sight are worked out once and shared. Held only for one state: keyed on the
    encounter object itself and the visibility, which :func:`view` checks."""

    __slots__ = ("_creatures", "_options", "_pending", "_sights", "_waiting", "enc", "shown")

    def __init__(self, enc: Encounter, shown: Mapping[str, Reveal]) -> None:
        self.enc = enc
        self.shown = shown
        self._sights: dict[bool, _Sight] = {}
        self._options: dict[tuple[str, bool], tuple[ActionOption, ...]] = {}
        self._pending: dict[bool, PendingView] = {}
        self._creatures: dict[bool, tuple[CreatureView, ...]] = {}
        self._waiting: tuple[str, ...] | None = None

    def sight(self, gm: bool) -> _Sight:
        """The GM's sight, or every player's (the same for each: see the class doc)."""
        found = self._sights.get(gm)
        if found is None:
            found = self._sights[gm] = _Sight(self.enc, GM if gm else _A_PLAYER, self.shown)
        return found

    @property
    def waiting(self) -> tuple[str, ...]:
        """Who is still to answer the pending roll (:func:`_waiting_on`), once per state."""
        if self._waiting is None:
            pending = self.enc.pending_roll
            self._waiting = (
                _waiting_on(self.enc)
                if pending is not None and pending.kind is not RollKind.INITIATIVE
                else ()
            )
        return self._waiting

    def options(self, actor: str, gm: bool) -> tuple[ActionOption, ...]:
        """``actor``'s options worked out with the GM's sight or a player's."""
        key = (actor, gm)
        found = self._options.get(key)
        if found is None:
            found = self._options[key] = tuple(_options(self.enc, actor, self.sight(gm)))
        return found

    def pending(self, gm: bool) -> PendingView:
        found = self._pending.get(gm)
        if found is None:
            top = self.enc.pending_roll
            assert top is not None
            found = self._pending[gm] = _pending(self.enc, top, self.sight(gm), self.waiting)
        return found

    def creatures(self, viewer: str) -> tuple[CreatureView, ...]:
        """Each creature as ``viewer`` sees it: the GM's or the players' list, with a creature
        the viewer's own is unaware of shown without its position (R39); a table screen shows
        no position that any creature is unaware of."""
        gm = viewer == GM
        base = self._creatures.get(gm)
        if base is None:
            base = self._creatures[gm] = tuple(
                _creature(self.enc, i, gm, self.shown.get(c.id, NPC_DEFAULT))
                for i, c in enumerate(self.enc.creatures)
            )
        if gm:
            return base
        unaware: Collection[str]
        if viewer == SCREEN:  # a shared screen shows no position that anyone is unaware of
            unaware = frozenset(
                cid for r in self.enc.resources for cid in getattr(r, "unaware_of", ())
            )
        else:
            unaware = getattr(self.enc.resources[self.enc.index(viewer)], "unaware_of", ())
        if not unaware:
            return base
        return tuple(
            dataclasses.replace(c, position=None) if c.id in unaware and c.id != viewer else c
            for c in base
        )


#: the viewer a player's shared sight is made with: a player's sight does not depend on which
#: player it is (:meth:`_Sight._reveal` asks only whether the viewer is the GM)
_A_PLAYER = "player"


class _Sight:
    """What one viewer may see of each creature's numbers: the GM everything, a player the
    party whole and each NPC as its :class:`Reveal` says."""

    __slots__ = ("enc", "shown", "viewer")

    def __init__(self, enc: Encounter, viewer: str, shown: Mapping[str, Reveal]) -> None:
        self.enc = enc
        self.viewer = viewer
        self.shown = shown

    def _reveal(self, creature_id: str) -> Reveal | None:
        """None if the viewer sees the creature whole."""
        if self.viewer == GM or self.enc.creature(creature_id).side is Side.PC:
            return None
        return self.shown.get(creature_id, NPC_DEFAULT)

    def shows(self, creature_id: str, what: str) -> bool:
        reveal = self._reveal(creature_id)
        return reveal is None or bool(getattr(reveal, what))

    def odds(self, odds: Odds | None) -> dict[str, Any] | None:
        """``odds`` as the viewer may see them: none against an NPC whose odds the GM hides,
        no ``against`` naming an NPC's Evasion unless its Aspects are revealed, and only
        rounded figures against one whose Aspects are hidden (:meth:`Odds.as_rounded_dict`)."""
        if odds is None:
            return None
        if odds.about is not None:
            reveal = self._reveal(odds.about)
            if reveal is not None and not reveal.odds:
                return None
        if odds.against_about is not None and not self.shows(odds.against_about, "aspects"):
            odds = odds.without_against()
        if odds.about is not None and not self.shows(odds.about, "aspects"):
            return odds.as_rounded_dict()  # the exact fraction would pin its Evasion
        return odds.as_dict()


def _creature(enc: Encounter, i: int, gm: bool, reveal: Reveal) -> CreatureView:
    """The GM sees every creature whole, a player every player character whole (the party's
    own sheets) and each NPC as its :class:`Reveal` says; its position as everyone aware of it
    sees it (:meth:`Shared.creatures` takes it away from a viewer who is not)."""
    c = enc.creatures[i]
    shown = _shown(reveal) if gm and c.side is Side.NPC else None
    if gm or c.side is Side.PC:
        reveal = Reveal(HealthShown.EXACT, aspects=True, resources=True)
    max_health = c.max_health if c.max_health is not None else c.health
    exact = reveal.health is HealthShown.EXACT
    return CreatureView(
        id=c.id,
        name=c.name,
        side=c.side.value,
        down=enc.down[i],
        removed=enc.gone[i],
        conditions=_conditions(enc, i),
        initiative=enc.initiative[i],
        health=enc.health[i] if exact else None,
        max_health=max_health if exact else None,
        health_label=health_label(enc.health[i], max_health, down=enc.down[i])
        if reveal.health is not HealthShown.HIDDEN
        else None,
        aspects=dict(c.aspects) if reveal.aspects else None,
        resources=enc.resources[i].as_dict() if reveal.resources else None,
        actions={a.name: a.cost for a in c.actions} if reveal.aspects else None,
        stats=dict(c.stats) if reveal.aspects and c.stats else None,
        carries=_carries(enc, i),
        position=_position(enc, i),
        shown=shown,
        movement=movement(enc, i) if reveal.aspects and reveal.resources else None,
    )


def _shown(reveal: Reveal) -> dict[str, Any]:
    """What the players see of an NPC, as the GM's screen shows and switches it (the fields
    of ``PUT /api/visibility``)."""
    return {
        "health": reveal.health.value,
        "aspects": reveal.aspects,
        "resources": reveal.resources,
        "odds": reveal.odds,
    }


def _conditions(enc: Encounter, i: int) -> tuple[str, ...]:
    """The GM's conditions (R48), with prone where the module keeps it as its own fact (the
    Action Point module, R44): everyone at the table sees a creature lying down."""
    tracked = tuple(enc.conditions[i])
    if getattr(enc.resources[i], "prone", False) and "prone" not in tracked:
        return ("prone", *tracked)
    return tracked


def _position(enc: Encounter, i: int) -> tuple[float, float] | None:
    """Where creature ``i`` stands (R34), for everyone who can see it: positions are no secret
    at a table, but a player's creature unaware of it (R39 stealth, ``gm: set … aware … off``)
    does not see where it is (:meth:`Shared.creatures`)."""
    state = enc.resources[i]
    x, y = getattr(state, "x", None), getattr(state, "y", None)
    if x is None or y is None:
        return None
    return (float(x), float(y))


def _carries(enc: Encounter, i: int) -> int | None:
    """R43: "The scaling creature's weight is applied to target" (the Action Point module)."""
    if enc.definition.ruleset.economy is not Economy.ACTION_POINTS:
        return None
    return carried_weight(enc, i) or None


def _past_limits(expr: Expr) -> str | None:
    """Why ``expr`` cannot be rolled (past the dice limits, docs/limits.md), or None: the
    engine refuses such a roll (``… cannot be rolled``), so its odds are never computed."""
    try:
        check_limits(expr)
    except DiceLimitError as exc:
        return f"{expr} cannot be rolled: {exc}"
    return None


def _pending(enc: Encounter, p: PendingRoll, seen: _Sight, waiting: tuple[str, ...]) -> PendingView:
    refused = _past_limits(enc.pending_expression())
    if refused is not None:
        return PendingView(
            kind=p.kind.value,
            roller=enc.creatures[p.roller].id,
            action=p.action.name if p.action else p.aspect,
            target=enc.creatures[p.target].id if p.target is not None else None,
            dc=p.dc,
            stage=p.stage,
            expression=str(enc.pending_expression()),
            advantages=tuple(str(a) for a in p.advantages),
            net_advantage=p.net_advantage,
            passed=tuple(sorted(enc.creatures[i].id for i in p.passed)),
            waiting_on=waiting,
            depth=len(enc.pending) - 1,
            what=_what(p),
            refused=refused,
        )
    return PendingView(
        kind=p.kind.value,
        roller=enc.creatures[p.roller].id,
        action=p.action.name if p.action else p.aspect,
        target=enc.creatures[p.target].id if p.target is not None else None,
        dc=p.dc,
        stage=p.stage,
        expression=str(enc.pending_expression()),
        advantages=tuple(str(a) for a in p.advantages),
        net_advantage=p.net_advantage,
        passed=tuple(sorted(enc.creatures[i].id for i in p.passed)),
        waiting_on=waiting,
        depth=len(enc.pending) - 1,
        what=_what(p),
        odds=seen.odds(roll_odds(enc, p)),
        pool=pool_text(enc, p, seen.shows),
        dice=tuple(dice_of(enc, p)),
    )


def _what(p: PendingRoll) -> str:
    """The roll in words: its action or Aspect; a stage roll of the Action Point module its
    verb and stage, a defence the damage it answers (R45: the defender knows it)."""
    if p.kind is not RollKind.STAGE:
        return (p.action.name if p.action else p.aspect) or ""
    what = f"{p.context.get('verb')} {p.stage}"
    if p.stage == "defence":
        what += f" against {p.context.get('incoming')} damage"
    return what


def _deciding_pcs(enc: Encounter, waiting: tuple[str, ...]) -> list[str]:
    """The player characters who decide now, whose options the GM's view lists beside the
    NPCs' (R48: the GM may issue every command, so it may play a PC no seat has taken): the
    turn owner, whoever is asked now, everyone standing in the pending roll's window (those
    still to answer, ``waiting``, and those who passed but may still react, R15) and its
    roller. Only these: the GM's view is worked out after every command, and a
    PC who cannot act now has nothing to tap."""
    if enc.over:
        return []
    deciding = {enc.turn_owner, enc.current(), *waiting}
    pending = enc.pending_roll
    if pending is not None:
        deciding.add(enc.creatures[pending.roller].id)
        # everyone standing in the roller's window (R15): one who passed may still react, as
        # the engine and that PC's own seat allow, so the GM may tap it for them too
        for i in enc.windows[pending.roller]:
            if not enc.down[i] and not enc.gone[i]:
                deciding.add(enc.creatures[i].id)
    return [c.id for c in enc.creatures if c.side is Side.PC and c.id in deciding]


def _sees_as_gm(seen: _Sight, actor: str) -> bool:
    """Whether ``actor``'s options are worked out with the GM's sight: a PC's are as its own
    seat sees them (the same pool and odds a seat gets, even on the GM's screen: an NPC's
    hidden Aspects are not pinned by the GM's tapping for a player), the GM's and the NPCs' as
    the viewer sees."""
    if seen.viewer != GM or actor == GM or seen.enc.creature(actor).side is not Side.PC:
        return seen.viewer == GM
    return False


def _waiting_on(enc: Encounter) -> tuple[str, ...]:
    """Who is still to answer the pending roll, in the engine's order: each is asked in turn
    (R15); found by passing for each on a clone, so it is the engine's own answer."""
    probe = enc.look_ahead()
    waiting: list[str] = []
    for _ in range(len(enc.creatures) + 1):
        who = probe.current()
        if who in (CHANCE, TERMINAL) or not probe.pending:
            break
        waiting.append(who)
        try:
            probe.apply(Pass(who))
        except CaltropError:
            break
    return tuple(waiting)


def _options(enc: Encounter, actor: str, seen: _Sight) -> Iterator[ActionOption]:
    """What ``actor`` may do now (legal first, in the engine's order), then each action of
    its stat block it may not take now, greyed with the engine's reason."""
    if actor == GM:
        yield from _gm_options(enc)
        return
    i = enc.index(actor)
    if enc.over or enc.down[i] or enc.gone[i]:
        return
    c = enc.creatures[i]
    pending = enc.pending_roll
    off_turn = pending is not None or enc.turn_owner != actor
    before = enc.resources[i].as_dict()
    legal_names: set[str] = set()
    for command in enc.generate_legal(actor):
        if isinstance(command, Act):
            legal_names.add(command.action)
            yield _offer(enc, command, before, seen, off_turn)
        else:
            yield _plain(actor, command, off_turn, seen.odds(reaction_odds(enc, command)))
    if pending is not None and pending.roller == i and enc.current() == CHANCE:
        roll = RollDice()
        refused = _past_limits(enc.pending_expression())
        if refused is not None:
            yield ActionOption(
                actor=actor,
                command=str(roll),
                action="roll",
                legal=False,
                reason=refused,
                rolls=str(enc.pending_expression()),
                refused=refused,
            )
        elif enc.is_legal(roll):
            yield ActionOption(
                actor=actor,
                command=str(roll),
                action="roll",
                legal=True,
                rolls=str(enc.pending_expression()),
                odds=seen.odds(roll_odds(enc, pending)),
                pool=pool_text(enc, pending, seen.shows),
            )
    for action in c.actions:
        if action.name in legal_names:
            continue
        probe = Act(actor, action.name, targets=_probe_target(enc, i, action.kind))
        reason = enc.why_illegal(probe)
        if reason is None:  # legal, though the engine lists it only in a window: R32 off turn
            yield _offer(enc, probe, before, seen, off_turn)
            continue
        gate = enc.economy.allows(c, _gated(enc, i), action, on_turn=not off_turn)
        yield ActionOption(
            actor=actor,
            command=str(probe),
            action=action.name,
            legal=False,
            reason=reason,
            reaction=off_turn,
            gate_open=gate,
        )


def _offer(
    enc: Encounter, command: Act, before: Mapping[str, Any], seen: _Sight, off_turn: bool
) -> ActionOption:
    """A legal action as an option: its cost, what it leaves, its dice, pool and odds."""
    preview = enc.preview(command)
    after = preview.get("resources_after", {})
    declared = declared_roll(enc, command)
    odds = pool = refused = None
    if declared is not None:
        refused = _past_limits(expression(*declared))
        if refused is None:
            odds = seen.odds(roll_odds(*declared))
        pool = pool_text(*declared, seen.shows)
    else:  # a defence reaction: the consequence is the window it leaves (R40, R45)
        odds = seen.odds(reaction_odds(enc, command))
    return ActionOption(
        actor=command.actor,
        command=str(command),
        action=command.action,
        legal=True,
        cost=_cost(before, after),
        leaves=after,
        rolls=preview.get("expression"),
        reaction=off_turn,
        odds=odds,
        pool=pool,
        refused=refused,
    )


def _gated(enc: Encounter, i: int) -> Resources:
    """The resources ``i``'s gate sees: R46, its Load counts the costs of its own declared
    actions still pending."""
    resources = enc.resources[i]
    owed = committed(enc, i) if enc.pending else 0
    if owed and isinstance(resources, LoadState):
        return LoadState(resources.load + owed)
    return resources


def _gm_options(enc: Encounter) -> Iterator[ActionOption]:
    for command in enc.generate_legal(GM):
        rolls = str(enc.pending_expression()) if isinstance(command, RollDice) else None
        yield ActionOption(
            actor=GM,
            command=str(command),
            action="roll" if isinstance(command, RollDice) else str(command).removeprefix("gm: "),
            legal=True,
            rolls=rolls,
        )


def _plain(
    actor: str, command: Command, off_turn: bool, odds: Mapping[str, Any] | None = None
) -> ActionOption:
    """End turn, pass or roll; a pass in a defence window with what it leaves (R40: no defence,
    or the defence already chosen)."""
    name = (
        "end turn"
        if isinstance(command, EndTurn)
        else "pass"
        if isinstance(command, Pass)
        else str(command)
    )
    return ActionOption(
        actor=actor, command=str(command), action=name, legal=True, reaction=off_turn, odds=odds
    )


def _probe_target(enc: Encounter, i: int, kind: ActionKind) -> tuple[str, ...]:
    """A target to ask the engine about an attack with (the first standing opponent), so the
    reason it gives is the rules' (the gate, the turn), not a missing target."""
    if kind is not ActionKind.ATTACK:
        return ()
    side = enc.creatures[i].side
    for j, other in enumerate(enc.creatures):
        if other.side is not side and not enc.down[j] and not enc.gone[j]:
            return (other.id,)
    return ()


def _cost(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, float]:
    """Each numeric resource's change from ``before`` to ``after`` (only those that change)."""
    out: dict[str, float] = {}
    for key, value in after.items():
        old = before.get(key)
        numbers = isinstance(value, int | float) and isinstance(old, int | float)
        if numbers and not isinstance(value, bool) and value != old:
            out[key] = value - old
    return out


__all__ = [
    "ActionOption",
    "CreatureView",
    "PendingView",
    "TableView",
    "view",
    "views",
    "views_as_dicts",
]
