"""The encounter state machine: one engine for every action economy.

An :class:`Encounter` is built from an :class:`~caltrop.core.model.EncounterDef` and a seed, and
changes only through :meth:`Encounter.apply` of a command (:mod:`caltrop.core.commands`). Every
applied command is appended to an event log whose first event holds the seed; the state is a
pure function of that log. Undo (``gm: undo``, :meth:`undo`) is a command too: it rebuilds the
state from the commands before the one it takes back, and is itself appended, so nothing in
history is ever edited or deleted. A command that is malformed or illegal raises and leaves state and log untouched.

Who decides now is one pointer (:meth:`Encounter.current`): a creature id, :data:`CHANCE` when a
pending roll waits for dice, or :data:`TERMINAL`. A declared roll first opens a **reaction
window** (R15) in which other creatures may add team actions and reactions, or pass.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from caltrop.core.codec import creature_from_dict, creature_to_dict
from caltrop.core.commands import (
    GM,
    GM_COMMANDS,
    Act,
    AddCreature,
    CallRoll,
    ChangeHealth,
    Command,
    EndEncounter,
    EndTurn,
    Pass,
    PassAll,
    RemoveCreature,
    Reorder,
    RollDice,
    RollTotal,
    SetFact,
    SetStat,
    Undo,
)
from caltrop.core.model import (
    CreatureDef,
    EncounterDef,
    Initiative,
    Side,
)
from caltrop.core.pool import Advantage
from caltrop.dice.ast import Dice, Expr, Term
from caltrop.dice.distribution import distribution
from caltrop.dice.parse import check_limits
from caltrop.dice.roll import EnteredDice, RngDice, roll, roll_faces
from caltrop.economy import EconomyRules, Resources, economy_for
from caltrop.economy.actions import actions_for, actions_joined
from caltrop.economy.base import Actions, Plan
from caltrop.economy.outcome import Outcome, outcome_json
from caltrop.economy.pending import PendingRoll, RollKind
from caltrop.encounter import gm
from caltrop.encounter.legal import LegalActions
from caltrop.encounter.play_state import PlayState
from caltrop.encounter.windows import TurnWindows
from caltrop.errors import CaltropError, DiceLimitError, IllegalActionError, InvalidActionError

_PASS_ALL: Final = PassAll()
#: expressions that passed the dice limits (the pools of a definition repeat by the thousand)
_CHECKED: dict[int, Expr] = {}
_CHECKED_KEPT: Final = 4096

#: ``current()`` when a pending roll waits for its dice.
CHANCE: Final = "chance"
#: ``current()`` when the encounter is over.
TERMINAL: Final = "terminal"

LOG_FORMAT: Final = "caltrop-log/1"


class _Overwritten(np.random.bit_generator.ISeedSequence):
    """The seed of a bit generator whose whole state is set right after (a clone's): zeros at
    no cost, where ``PCG64()`` would gather fresh entropy from the system and hash it."""

    def generate_state(self, n_words: int, dtype: Any = np.uint32) -> npt.NDArray[Any]:
        return np.zeros(n_words, dtype=dtype)


_OVERWRITTEN: Final = _Overwritten()


class Encounter:
    """A running encounter. Build with :meth:`Encounter.begin`; change only with :meth:`apply`."""

    #: the fixed parts in slots of their own, the state of play (:class:`PlayState`: every field
    #: of it, and only those) in the others; ``tests/encounter/test_play_state.py`` checks both
    __slots__ = (
        "_by_id",
        "_commands",
        "_dice",
        "_events",
        "_free",
        "_record",
        "boons",
        "conditions",
        "creatures",
        "definition",
        "down",
        "economy",
        "gone",
        "header",
        "health",
        "initial",
        "initiative",
        "last_outcome",
        "module",
        "order",
        "over",
        "pending",
        "resources",
        "rng",
        "round",
        "seed",
        "turn_pos",
        "windows",
        "winner",
    )

    #: the definition the encounter began with (its log's header; replay and undo start here)
    initial: EncounterDef
    #: the definition now: reinforcements and the GM's changes to a stat block included (R48)
    definition: EncounterDef
    creatures: tuple[CreatureDef, ...]
    economy: EconomyRules
    seed: int
    header: Mapping[str, Any]
    rng: np.random.Generator
    health: list[int]
    down: list[bool]
    resources: list[Resources]
    boons: list[tuple[Advantage, ...]]
    #: per creature: the conditions the GM has set (R48), besides an economy's own facts
    conditions: list[tuple[str, ...]]
    #: per creature: taken out of the encounter by the GM (R48): out of the turn order, down
    gone: list[bool]
    order: list[int]
    initiative: list[int | None]
    turn_pos: int
    round: int
    pending: list[PendingRoll]
    over: bool
    winner: Side | None
    last_outcome: Outcome | None
    module: Actions
    _by_id: dict[str, int]
    _commands: list[Command]
    #: per command: a roll with no dice to roll (kept when recording; undo goes past them)
    _free: list[bool]
    _events: list[dict[str, Any]] | None
    _record: bool
    #: the dice drawn from :attr:`rng` (one wrapper for the encounter's every roll)
    _dice: RngDice
    #: per roller: the others in turn order starting after it (who is asked in its window)
    windows: TurnWindows

    # -- construction ---------------------------------------------------------------------------

    @classmethod
    def begin(
        cls,
        definition: EncounterDef,
        seed: int | None = None,
        *,
        record: bool = True,
        header: Mapping[str, Any] | None = None,
    ) -> Encounter:
        """Start an encounter. ``seed`` (fresh entropy if None) is the log's first event.

        ``record=False`` keeps no log (simulations); undo and saving then are unavailable.
        ``header`` is stored in the first event (the content layer puts the whole encounter
        definition there, so a log file replays on its own).
        """
        self = cls.__new__(cls)
        self.initial = definition
        self.definition = definition
        self.creatures = definition.participants
        self.economy = economy_for(definition.ruleset)
        self.module = actions_for(definition)
        self.seed = int(np.random.SeedSequence().entropy) if seed is None else int(seed)  # type: ignore[arg-type]
        self.header = dict(header or {})
        self.rng = np.random.default_rng(self.seed)
        self._dice = RngDice(self.rng)
        self._by_id = {c.id: i for i, c in enumerate(self.creatures)}
        self.health = [c.health for c in self.creatures]
        self.down = [c.health <= 0 for c in self.creatures]
        self.resources = [self.economy.initial(c) for c in self.creatures]
        self.boons = [() for _ in self.creatures]
        self.conditions = [() for _ in self.creatures]
        self.gone = [False] * len(self.creatures)
        self.set_order(list(range(len(self.creatures))))
        self.initiative = [None] * len(self.creatures)
        self.turn_pos = 0
        self.round = 0
        self.pending = []
        self.over = False
        self.winner = None
        self.last_outcome = None
        self._commands = []
        self._free = []
        self._record = record
        self._events = [self._begin_event()] if record else None
        self.check_end()
        if self.over:
            return self
        if definition.ruleset.initiative is Initiative.CHECK:
            self._queue_initiative()
        else:
            self._start_round()
        return self

    def _begin_event(self) -> dict[str, Any]:
        return {
            "event": "begin",
            "format": LOG_FORMAT,
            "seed": self.seed,
            "encounter": self.definition.name,
            **({"header": dict(self.header)} if self.header else {}),
        }

    def clone(self) -> Encounter:
        """An independent copy for search and simulation: copies only what changes (the
        :class:`PlayState` and the log); the definition, the content and the tables are shared."""
        return self._copy(log=True)

    def look_ahead(self) -> Encounter:
        """A copy to try commands on and throw away (what a declared roll's odds are, who is
        still to answer): a :meth:`clone` that keeps no log — its commands add no log entries
        and it cannot undo or be saved (``record=False``) — and is otherwise the same: the
        state of play, the dice to come, the commands given (pools read who helped, R14). A
        table's views make a dozen of these a command (issue 20 §5)."""
        return self._copy(log=False)

    def _copy(self, *, log: bool) -> Encounter:
        other = Encounter.__new__(Encounter)
        other.initial = self.initial
        other.definition = self.definition
        other.creatures = self.creatures
        other.economy = self.economy
        other.module = self.module
        other.seed = self.seed
        other.header = self.header
        # numpy takes any ISeedSequence (its documented extension point); the stubs list fewer
        bit_generator = np.random.PCG64(_OVERWRITTEN)  # type: ignore[arg-type]
        bit_generator.state = self.rng.bit_generator.state  # type: ignore[assignment]
        other.rng = np.random.Generator(bit_generator)
        other._dice = RngDice(other.rng)
        other._by_id = self._by_id
        other._restore(self.state.copy())
        other._commands = self._commands.copy()
        if log:
            other._free = self._free.copy()
            other._record = self._record
            other._events = self._events.copy() if self._events is not None else None
        else:
            other._free = []
            other._record = False
            other._events = None
        return other

    @property
    def state(self) -> PlayState:
        """The state of play as one object (:mod:`caltrop.encounter.play_state`): the fields
        every command may change, as they stand now (not a copy: :meth:`PlayState.copy` for
        one). The engine keeps them in slots of its own, as python-chess keeps a board's
        position on the board and in a ``_BoardState`` only to copy it: the rules read them by
        the million, and a slot is read several times faster than a property."""
        return PlayState(
            health=self.health,
            down=self.down,
            resources=self.resources,
            boons=self.boons,
            conditions=self.conditions,
            gone=self.gone,
            order=self.order,
            windows=self.windows,
            initiative=self.initiative,
            turn_pos=self.turn_pos,
            round=self.round,
            pending=self.pending,
            over=self.over,
            winner=self.winner,
            last_outcome=self.last_outcome,
        )

    def _restore(self, state: PlayState) -> None:
        """Set the state of play to ``state`` (its objects, not copies)."""
        self.health = state.health
        self.down = state.down
        self.resources = state.resources
        self.boons = state.boons
        self.conditions = state.conditions
        self.gone = state.gone
        self.order = state.order
        self.windows = state.windows
        self.initiative = state.initiative
        self.turn_pos = state.turn_pos
        self.round = state.round
        self.pending = state.pending
        self.over = state.over
        self.winner = state.winner
        self.last_outcome = state.last_outcome

    # -- queries --------------------------------------------------------------------------------

    def index(self, creature_id: str) -> int:
        """The position of a creature; :class:`InvalidActionError` naming the known ids if none."""
        try:
            return self._by_id[creature_id]
        except KeyError:
            known = ", ".join(self._by_id)
            raise InvalidActionError(f"no creature {creature_id!r} (known: {known})") from None

    def creature(self, creature_id: str) -> CreatureDef:
        return self.creatures[self.index(creature_id)]

    @property
    def turn_owner(self) -> str | None:
        """The id of the creature whose turn it is (None before initiative or after the end)."""
        if self.over or self.round == 0:
            return None
        return self.creatures[self.order[self.turn_pos]].id

    @property
    def pending_roll(self) -> PendingRoll | None:
        return self.pending[-1] if self.pending else None

    @property
    def commands(self) -> tuple[Command, ...]:
        """Every command applied so far, in order (the replayable move stack)."""
        return tuple(self._commands)

    def current(self) -> str:
        """Who must decide now: a creature id, :data:`CHANCE` or :data:`TERMINAL`.

        With a roll pending, each creature that could react is asked in turn order (it reacts or
        passes) before the roll becomes a chance point.
        """
        if self.over:
            return TERMINAL
        if self.pending:
            top = self.pending[-1]
            if top.kind is RollKind.INITIATIVE:
                return CHANCE
            i = self.module.next_reactor(self, top)
            return CHANCE if i is None else self.creatures[i].id
        owner = self.turn_owner
        assert owner is not None
        return owner

    def is_terminal(self) -> bool:
        return self.over

    def returns(self) -> dict[str, float]:
        """1 for the winning side, 0 for the other; 0.5 each if the GM ended it undecided."""
        if not self.over:
            raise IllegalActionError("the encounter is not over")
        if self.winner is None:
            return {Side.PC.value: 0.5, Side.NPC.value: 0.5}
        return {s.value: 1.0 if s is self.winner else 0.0 for s in Side}

    def legal_actions(self, actor: str | None = None) -> LegalActions:
        """The commands ``actor`` (default: whoever decides now) may issue, as a lazy view."""
        who = self.current() if actor is None else actor
        if who == CHANCE:
            who = GM
        return LegalActions(self, who)

    def is_legal(self, command: Command) -> bool:
        try:
            self._plan(command)
        except (IllegalActionError, InvalidActionError, ValueError):
            return False
        return True

    def why_illegal(self, command: Command) -> str | None:
        """None if ``command`` is legal now; otherwise the reason, with the arithmetic."""
        try:
            self._plan(command)
        except (IllegalActionError, InvalidActionError, ValueError) as exc:
            return str(exc)
        return None

    def preview(self, command: Act) -> dict[str, Any]:
        """What an action would roll and where Load/points would be after it, without doing it.

        Raises like :meth:`apply` if the action is not legal now.
        """
        self._not_over()
        return self.module.preview(self, command)

    def chance_outcomes(self) -> list[tuple[RollTotal, Fraction]]:
        """At a chance point: every total of the pending roll with its exact probability."""
        if not self.pending:
            raise IllegalActionError("no roll is pending")
        dist = distribution(self._pending_expr(self.pending[-1]))
        return [(RollTotal(t), p) for t, p in dist.pmf_exact().items() if p != 0]

    def pending_expression(self) -> Expr:
        """The dice the pending roll will roll now (its Net Advantage as it stands)."""
        if not self.pending:
            raise IllegalActionError("no roll is pending")
        return self._pending_expr(self.pending[-1])

    # -- applying commands ----------------------------------------------------------------------

    def apply(self, command: Command) -> Outcome | None:
        """Apply ``command``: validate it fully, then change the state and append to the log.

        Raises :class:`InvalidActionError` (malformed: unknown creature or action, bad dice) or
        :class:`IllegalActionError` (the rules forbid it now, with the arithmetic); either way
        nothing changed. Returns the :class:`Outcome` of a roll, else None.
        """
        plan = self._plan(command)
        if isinstance(plan, _UndoPlan):
            self._take_back(plan.keep, str(command))
            return None
        # a roll the table would have settled on its own (nobody left to answer, no dice):
        # undone together with the decision before it; a roll someone chose to make is not
        settled = self._events is not None and isinstance(command, RollDice) and self._settles()
        outcome = plan.execute(self)
        self._commands.append(command)
        if self._events is not None:
            self._free.append(settled and _is_free_roll(command, outcome))
            event: dict[str, Any] = {
                "event": "command",
                "n": len(self._events),
                "command": str(command),
            }
            if isinstance(plan, gm.AddPlan):
                event["creature"] = creature_to_dict(plan.creature)  # the log replays alone
            if outcome is not None:
                event["roll"] = outcome_json(outcome)
            self._events.append(event)
        self.last_outcome = outcome
        return outcome

    def settle(self) -> list[Outcome]:
        """Roll every pending roll that has no dice to roll, once nobody is left to answer it
        (a declined defence, R40 "No defence: damage − Resistance"): a table calls this after
        each command, so nobody types a ``roll`` of ``0``. Each is an ordinary logged ``roll``,
        so logs and replays are unchanged; returns their outcomes."""
        outcomes: list[Outcome] = []
        while self._settles():
            outcome = self.apply(RollDice())
            assert outcome is not None
            outcomes.append(outcome)
        return outcomes

    def _settles(self) -> bool:
        """Whether the pending roll is one :meth:`settle` rolls: nobody is left to answer it
        and it has no dice to roll."""
        return bool(
            not self.over
            and self.pending
            and self.current() == CHANCE
            and next(self.pending_expression().dice(), None) is None
            and self.pending[-1].kind is RollKind.STAGE
        )

    def undo(self) -> Command:
        """Take back the last decision (``gm: undo``, logged as a command of its own); returns
        the command taken back (the rolls with no dice after it go with it)."""
        plan = self._plan_undo()
        taken = self._commands[plan.keep]
        self.apply(Undo())
        return taken

    def _plan_undo(self) -> _UndoPlan:
        """The commands ``gm: undo`` keeps: all but the last, and the dice-free rolls after it
        (they are rolled again at once when a table settles, so undoing one alone would undo
        nothing)."""
        if not self._record or self._events is None:
            raise IllegalActionError(
                "this encounter keeps no log (record=False), so it cannot undo"
            )
        keep = len(self._commands)
        while keep > 0 and self._free[keep - 1]:
            keep -= 1
        if keep == 0:
            raise IllegalActionError("nothing to undo")
        return _UndoPlan(keep - 1)

    def _take_back(self, keep: int, text: str) -> None:
        """Rebuild the state from the first ``keep`` commands (the seed again, so the dice are
        rewound too); the log keeps its whole history and gains the undo command."""
        assert self._events is not None
        history = self._events
        rebuilt = Encounter.begin(self.initial, self.seed, header=self.header)
        for command in self._commands[:keep]:
            rebuilt.apply(command)
        for slot in Encounter.__slots__:  # the fixed parts and the state of play alike
            setattr(self, slot, getattr(rebuilt, slot))
        history.append({"event": "command", "n": len(history), "command": text})
        self._events = history

    # -- log ------------------------------------------------------------------------------------

    @property
    def events(self) -> tuple[dict[str, Any], ...]:
        if self._events is None:
            raise IllegalActionError("this encounter keeps no log (record=False)")
        return tuple(self._events)

    def log_lines(self) -> list[str]:
        """The log as JSON lines: the save format, the replay format and the fixture format."""
        return [json.dumps(e, sort_keys=True, ensure_ascii=False) for e in self.events]

    @classmethod
    def replay(
        cls, definition: EncounterDef, events: Sequence[Mapping[str, Any]], *, verify: bool = True
    ) -> Encounter:
        """Rebuild an encounter from its log; with ``verify``, recorded dice must match the replay.

        Every field of every event is checked first (:func:`~caltrop.core.codec.read_begin_event`,
        :func:`~caltrop.core.codec.read_command_event`): the format, the seed, each command's
        ``n`` equal to its place, its text, the shape of its roll record. With ``verify`` a
        command that rolled dice must have its roll record (one deleted is refused, not replayed
        unchecked). Refusals are :class:`InvalidActionError` naming the event.
        """
        from caltrop.core.codec import read_begin_event

        if not events:
            raise InvalidActionError("a log starts with its 'begin' event")
        try:
            first = read_begin_event(events[0], LOG_FORMAT)
        except CaltropError as exc:
            raise InvalidActionError(f"log event 1: {exc}") from exc
        encounter = cls.begin(definition, first.seed, header=first.header)
        for line_no, raw in enumerate(events[1:], start=2):
            encounter.replay_event(raw, line_no - 1, verify=verify)
        return encounter

    def replay_event(self, raw: Mapping[str, Any], seq: int, *, verify: bool = True) -> None:
        """Apply one command event of a log, the ``seq``-th (its ``n``), as :meth:`replay`
        does: checked field by field, its dice checked against its roll record with ``verify``.
        A table server uses it to catch up with events another process appended."""
        from caltrop.core.codec import read_command_event
        from caltrop.core.commands import parse_command

        def brief(record: Mapping[str, Any] | None) -> str:
            """A roll record in a refusal, cut to 200 characters (its faces may be many)."""
            text = str(record)
            return text if len(text) <= 200 else text[:199] + "…"

        line_no = seq + 1
        try:
            event = read_command_event(raw, seq)
            command = parse_command(event.command)
            if isinstance(command, AddCreature) and event.creature is not None:
                command = dataclasses.replace(command, creature=creature_from_dict(event.creature))
        except CaltropError as exc:
            raise InvalidActionError(f"log event {line_no}: {exc}") from exc
        try:
            outcome = self.apply(command)
        except CaltropError as exc:
            raise InvalidActionError(f"log event {line_no}: {command}: {exc}") from exc
        if not verify:
            return
        if event.roll is None and outcome is not None:
            raise InvalidActionError(
                f"log event {line_no}: {command} rolled dice, but the event has no roll "
                "record to check them against"
            )
        if event.roll is not None:
            got = outcome_json(outcome) if outcome is not None else None
            if got != event.roll:
                raise InvalidActionError(
                    f"log event {line_no}: recorded roll {brief(event.roll)} differs from "
                    f"replay {brief(got)}"
                )

    # -- state snapshots ------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The whole visible state as JSON-ready data (deterministic; replay gives the same)."""
        participants = []
        for i, c in enumerate(self.creatures):
            participants.append(
                {
                    "id": c.id,
                    "name": c.name,
                    "side": c.side.value,
                    "health": self.health[i],
                    "max_health": c.max_health,
                    "down": self.down[i],
                    **self.resources[i].as_dict(),
                    **({"boons": [str(b) for b in self.boons[i]]} if self.boons[i] else {}),
                    **(
                        {"initiative": self.initiative[i]} if self.initiative[i] is not None else {}
                    ),
                    **({"conditions": list(self.conditions[i])} if self.conditions[i] else {}),
                    **({"removed": True} if self.gone[i] else {}),
                }
            )
        return {
            "encounter": self.definition.name,
            "seed": self.seed,
            "round": self.round,
            "turn": self.turn_owner,
            "order": [self.creatures[i].id for i in self.order],
            "current": self.current(),
            "over": self.over,
            "winner": self.winner.value if self.winner else None,
            "participants": participants,
            "pending": [_pending_json(self, p) for p in self.pending],
            "commands": len(self._commands),
        }

    def key(self) -> tuple[Any, ...]:
        """A hashable key of everything that decides the future (not the log, not the RNG):
        equal keys mean equal futures under the same commands, so exact solvers memoise on it."""
        return (
            tuple(self.health),
            tuple(self.down),
            tuple(r.key() for r in self.resources),
            tuple(self.boons),
            tuple(self.order),
            tuple(self.initiative),
            self.turn_pos,
            self.round,
            tuple(_pending_key(p) for p in self.pending),
            self.over,
            self.winner,
            tuple(self.conditions),
            tuple(self.gone),
        )

    def to_json(self) -> str:
        return json.dumps(self.snapshot(), sort_keys=True, ensure_ascii=False)

    # -- legal-action generation ----------------------------------------------------------------

    def generate_legal(self, actor: str) -> Iterator[Command]:
        """Every legal command of ``actor`` now (lazily). Advantage is never enumerated: the gate
        does not depend on it (R11), so any advantage may be added to a legal action."""
        if self.over:
            return iter(())
        if actor == GM:
            return self._gm_legal()
        i = self._by_id.get(actor)
        if i is None or self.down[i]:
            return iter(())
        return self.module.legal(self, i)  # no generator of its own: asked before every decision

    def _gm_legal(self) -> Iterator[Command]:
        if self.pending:
            yield RollDice()
            if self.is_legal(_PASS_ALL):
                yield _PASS_ALL

    # -- internals: validation ------------------------------------------------------------------

    def _plan(self, command: Command) -> Plan | _Plan | gm.GmPlan:
        kind = type(command)  # the commands of a simulation, most frequent first
        if kind is Pass:
            return self._plan_pass(command)  # type: ignore[arg-type]
        if kind is Act:
            return self._plan_act(command)  # type: ignore[arg-type]
        if kind is RollDice:
            return self._plan_roll(command)  # type: ignore[arg-type]
        if kind is EndTurn:
            return self._plan_end_turn(command)  # type: ignore[arg-type]
        if isinstance(command, Act):
            return self._plan_act(command)
        if isinstance(command, RollDice | RollTotal):
            return self._plan_roll(command)
        if isinstance(command, EndTurn):
            return self._plan_end_turn(command)
        if isinstance(command, Pass):
            return self._plan_pass(command)
        if isinstance(command, CallRoll):
            return self._plan_call(command)
        if isinstance(command, EndEncounter):
            self._not_over()
            return _EndEncounterPlan()
        if isinstance(command, Undo):  # also once the encounter is over: the blow that ended it
            return self._plan_undo()
        if isinstance(command, GM_COMMANDS):
            self._not_over()
            return self._plan_gm(command)
        raise InvalidActionError(f"not a command: {command!r}")

    def _plan_gm(self, command: Command) -> gm.GmPlan:
        """R48: the GM's controls, validated in :mod:`caltrop.encounter.gm`."""
        if isinstance(command, SetFact):
            return gm.plan_fact(self, command)
        if isinstance(command, ChangeHealth):
            return gm.plan_health(self, command)
        if isinstance(command, SetStat):
            return gm.plan_stat(self, command)
        if isinstance(command, AddCreature):
            return gm.plan_add(self, command)
        if isinstance(command, RemoveCreature):
            return gm.plan_remove(self, command)
        if isinstance(command, Reorder):
            return gm.plan_reorder(self, command)
        if isinstance(command, PassAll):
            return gm.plan_pass_all(self, command)
        raise InvalidActionError(f"not a command: {command!r}")

    def _not_over(self) -> None:
        if self.over:
            raise IllegalActionError("the encounter is over")

    def standing(self, creature_id: str) -> int:
        i = self.index(creature_id)
        if self.down[i]:
            raise IllegalActionError(f"{self.creatures[i].name} is down")
        return i

    def _plan_act(self, command: Act) -> Plan:
        self._not_over()
        _once_each(command, command.advantages)
        return self.module.plan(self, command)

    def _plan_roll(self, command: RollDice | RollTotal) -> _RollPlan:
        self._not_over()
        if not self.pending:
            raise IllegalActionError("no roll is pending")
        expr, text = self._pending_pool(self.pending[-1])
        if _CHECKED.get(id(expr)) is not expr:
            try:
                check_limits(expr)  # a pool past the dice limits is refused before any change
            except DiceLimitError as exc:
                raise IllegalActionError(f"{text} cannot be rolled: {exc}") from None
            if len(_CHECKED) >= _CHECKED_KEPT:
                _CHECKED.clear()
            _CHECKED[id(expr)] = expr  # the entry holds it: its id is not reused meanwhile
        if isinstance(command, RollTotal):
            dist = distribution(expr)
            if dist.pmf_exact().get(command.total, 0) == 0:
                raise IllegalActionError(f"{expr} cannot total {command.total}")
            return _RollPlan(expr, text, None, command.total)
        if command.entered is not None:
            EnteredDice(expr, command.entered)  # validates count and faces (R5), raises if wrong
        return _RollPlan(expr, text, command.entered, None)

    def _plan_end_turn(self, command: EndTurn) -> _EndTurnPlan:
        self._not_over()
        i = self.index(command.actor)
        if self.turn_owner != command.actor:
            owner = self.turn_owner
            raise IllegalActionError(
                f"it is {self.creature(owner).name if owner else 'nobody'}'s turn, not {self.creatures[i].name}'s"
            )
        if self.pending:
            raise IllegalActionError("a roll is pending: roll it before the turn ends")
        return _EndTurnPlan()

    def _plan_pass(self, command: Pass) -> _PassPlan:
        self._not_over()
        i = self.standing(command.actor)
        if not self.pending:
            raise IllegalActionError("no roll is pending, so there is nothing to pass on")
        top = self.pending[-1]
        # A module's stage may ask the roller itself to react (the defender of R45 chooses a
        # defence or declines): then it may pass like anyone else in the window.
        if top.roller == i and i not in self.module.reactors(self, top):
            raise IllegalActionError(f"{self.creatures[i].name}'s own roll is pending: roll it")
        if top.kind is RollKind.INITIATIVE:
            raise IllegalActionError("initiative is being rolled; there is nothing to pass on")
        if i in top.passed:
            raise IllegalActionError(f"{self.creatures[i].name} has already passed on this roll")
        return _PassPlan(i)

    def _plan_call(self, command: CallRoll) -> _CallPlan:
        self._not_over()
        _once_each(command, command.advantages)
        i = self.standing(command.target)
        if self.pending and self.pending[-1].kind is RollKind.INITIATIVE:
            raise IllegalActionError("initiative is being rolled")
        creature = self.creatures[i]
        aspect = find_aspect(creature, command.aspect)
        if aspect is None:
            raise InvalidActionError(
                f"{creature.name} has no Aspect {command.aspect!r} (has: {', '.join(creature.aspects)})"
            )
        return _CallPlan(command, i, aspect)

    # -- internals: resolution ------------------------------------------------------------------

    def _pending_expr(self, p: PendingRoll) -> Expr:
        return self._pending_pool(p)[0]

    def _pending_pool(self, p: PendingRoll) -> tuple[Expr, str]:
        """The expression ``p`` rolls now, and its text for the outcome."""
        if p.kind is RollKind.ACTION or p.kind is RollKind.STAGE:
            return self.module.expression(self, p)
        creature = self.creatures[p.roller]
        assert p.aspect is not None
        value = creature.aspects[p.aspect]
        if p.kind is RollKind.GM_CALL:
            d4 = self.economy.gm_pool(
                creature, self.resources[p.roller], value, p.net_advantage, count_load=p.count_load
            )
        else:
            d4 = max(1, value)
        expr = Expr((Term(1, Dice(d4, 4)),))
        return expr, str(expr)

    def window_order(self, top: PendingRoll) -> Iterator[int]:
        """Creatures that may react to ``top``, in turn order starting after the roller."""
        for i in self.windows[top.roller]:
            if not self.down[i]:
                yield i

    def set_order(self, order: list[int]) -> None:
        """Fix the turn order (R30, R48) and, from it, each roller's reaction window order."""
        self.order = order
        self.windows = TurnWindows(order)  # each window built when asked (issue 21 item 6)

    def enlist(self, creature: CreatureDef) -> int:
        """R48: ``creature`` (with an id of its own) joins the encounter, in no turn order yet;
        its Load or points start as at the start of an encounter."""
        self._redefine((*self.creatures, creature), joined=True)
        i = len(self.creatures) - 1
        self._by_id[creature.id] = i
        self.health.append(creature.health)
        self.down.append(creature.health <= 0)
        self.resources.append(self.economy.initial(creature))
        self.boons.append(())
        self.conditions.append(())
        self.gone.append(False)
        self.initiative.append(None)
        self.set_order(self.order)
        return i

    def replace_creature(self, i: int, creature: CreatureDef) -> None:
        """R48: the GM changed a stat that lives in ``i``'s stat block (Exhaustion, Buffer)."""
        creatures = list(self.creatures)
        creatures[i] = creature
        self._redefine(tuple(creatures))

    def _redefine(self, creatures: tuple[CreatureDef, ...], *, joined: bool = False) -> None:
        """The definition with these participants. ``joined``: they are the old ones and a
        reinforcement after them (R48 ``gm: add``), so the module's tables grow instead of
        being built again (an add costs the new creature's rows, not every row again)."""
        self.definition = dataclasses.replace(self.definition, participants=creatures)
        self.creatures = creatures
        self._by_id = dict(self._by_id)  # a clone may share the old one
        if joined:
            self.module = actions_joined(self.module, self.definition)
        else:
            self.module = actions_for(self.definition)

    def _queue_initiative(self) -> None:
        aspect = self.definition.ruleset.initiative_aspect
        for i in reversed(range(len(self.creatures))):
            c = self.creatures[i]
            name = find_aspect(c, aspect) if aspect else None
            if name is None:
                raise InvalidActionError(f"initiative: {c.name} has no Aspect {aspect!r}")
            self.pending.append(PendingRoll(RollKind.INITIATIVE, i, aspect=name))

    def _finish_initiative(self) -> None:
        """R30 order: highest total first; a PC beats an NPC; PCs keep joined order; NPCs by
        higher score, then joined order. The order is fixed for the encounter."""
        aspect = self.definition.ruleset.initiative_aspect

        def key(i: int) -> tuple[int, int, int, int]:
            c = self.creatures[i]
            total = self.initiative[i]
            assert total is not None
            is_npc = 1 if c.side is Side.NPC else 0
            name = find_aspect(c, aspect) if aspect else None
            score = c.aspects.get(name, 0) if (is_npc and name) else 0
            return (-total, is_npc, -score, i)

        self.set_order(sorted(range(len(self.creatures)), key=key))
        self._start_round()

    def _start_round(self) -> None:
        self.round += 1
        self.turn_pos = 0
        self.economy.on_round_start(self.creatures, self.resources)
        self.start_turn_at_or_after(0)

    def start_turn_at_or_after(self, pos: int) -> None:
        n = len(self.order)
        while pos < n and self.down[self.order[pos]]:
            pos += 1
        if pos >= n:
            self._start_round()
            return
        self.turn_pos = pos
        self.economy.on_turn_start(self.creatures, self.resources, self.order[pos])

    def _advance_turn(self) -> None:
        self.start_turn_at_or_after(self.turn_pos + 1)

    def check_end(self) -> None:
        standing = {c.side for c, d in zip(self.creatures, self.down, strict=True) if not d}
        if len(standing) <= 1:
            self.over = True
            self.pending.clear()
            self.winner = next(iter(standing)) if standing else None

    def _roll(self, plan: _RollPlan) -> tuple[tuple[int, ...], int]:
        if plan.total is not None:
            return (), plan.total
        if plan.entered is None:
            return roll_faces(plan.expr, self._dice)
        rolled = roll(plan.expr, entered=plan.entered)
        return rolled.faces, rolled.total

    def _resolve(self, plan: _RollPlan) -> Outcome:
        p = self.pending.pop()
        faces, total = self._roll(plan)
        roller = self.creatures[p.roller]
        expr = plan.text
        if p.kind is RollKind.INITIATIVE:
            self.initiative[p.roller] = total
            if p.context.get("join"):
                gm.join_by_initiative(self, p.roller)  # R48: a reinforcement takes its place
                return Outcome(roller.id, p.kind, expr, faces, total, note="joins")
            if not self.pending:
                self._finish_initiative()
            return Outcome(roller.id, p.kind, expr, faces, total)
        if p.kind is RollKind.GM_CALL:
            success = None if p.dc is None else total >= p.dc
            if not self.pending:
                self._end_downed_turn()
            return Outcome(
                roller.id, p.kind, expr, faces, total, action=p.aspect, dc=p.dc, success=success
            )
        outcome = self.module.resolve(self, p, plan.expr, expr, faces, total)
        if outcome.downed:
            self.check_end()
            if not self.over:
                self.after_downing()
        elif not self.pending:
            self._end_downed_turn()
        return outcome

    def after_downing(self) -> None:
        """Pending rolls of creatures that went down are dropped; a downed turn owner's turn ends.

        Initiative rolls are kept (R30 with R48): a creature that goes down before it has rolled
        still rolls its Speed check and keeps its place in the turn order, skipped while it is
        down and acting there again once healed, as a creature that went down later keeps its
        place. Dropping them left the order without its total (issue 21: the table was stuck).
        """
        self.pending = [
            p for p in self.pending if p.kind is RollKind.INITIATIVE or not self.down[p.roller]
        ]
        if not self.pending:
            self._end_downed_turn()

    def _end_downed_turn(self) -> None:
        # The turn owner may have gone down while other rolls were still pending above its own
        # (a reaction to a reaction): once the last of them resolves, its turn ends, or nobody
        # could decide (``current()`` would name a creature that is down).
        if not self.over and self.down[self.order[self.turn_pos]]:
            self._advance_turn()


# -- plans: validated commands, ready to execute without failing ------------------------------------


class _Plan:
    def execute(self, enc: Any) -> Outcome | None:
        raise NotImplementedError


@dataclass(slots=True)
class _RollPlan(_Plan):
    expr: Expr
    text: str
    entered: tuple[int, ...] | None
    total: int | None

    def execute(self, enc: Encounter) -> Outcome | None:
        return enc._resolve(self)


@dataclass(slots=True)
class _EndTurnPlan(_Plan):
    def execute(self, enc: Encounter) -> Outcome | None:
        enc._advance_turn()
        return None


@dataclass(slots=True)
class _PassPlan(_Plan):
    actor: int

    def execute(self, enc: Encounter) -> Outcome | None:
        enc.pending[-1].passed.add(self.actor)
        return None


@dataclass(slots=True)
class _CallPlan(_Plan):
    command: CallRoll
    target: int
    aspect: str

    def execute(self, enc: Encounter) -> Outcome | None:
        c = self.command
        advantages = list(c.advantages) + list(enc.boons[self.target])
        enc.boons[self.target] = ()
        enc.pending.append(
            PendingRoll(
                RollKind.GM_CALL,
                self.target,
                aspect=self.aspect,
                dc=c.dc,
                count_load=(
                    enc.definition.ruleset.gm_roll_counts_load
                    if c.count_load is None
                    else c.count_load
                ),  # R17: the GM's choice per roll; without one, the ruleset's default
                advantages=advantages,
                on_turn=False,
            )
        )
        return None


@dataclass(frozen=True, slots=True)
class _UndoPlan(_Plan):
    """``gm: undo``: how many of the commands stay (applied by :meth:`Encounter.apply`)."""

    keep: int


def _is_free_roll(command: Command, outcome: Outcome | None) -> bool:
    """A roll that had no dice to roll (with :meth:`Encounter._settles` before it: a declined
    defence, settled on its own)."""
    return isinstance(command, RollDice) and outcome is not None and not outcome.faces


@dataclass(slots=True)
class _EndEncounterPlan(_Plan):
    def execute(self, enc: Encounter) -> Outcome | None:
        enc.over = True
        enc.pending.clear()
        enc.winner = None
        return None


def _once_each(command: Command, advantages: Sequence[Advantage]) -> None:
    """R14, R47: one command names a source key once; a second time adds nothing, so it is
    refused as malformed (the same guard as :func:`~caltrop.core.commands.parse_command`'s, for
    commands built in code), for an action and a GM-called roll alike."""
    if advantages and len(set(advantages)) < len(advantages):
        raise InvalidActionError(
            f"{command}: the same source twice adds nothing (R14, R47): name it once"
        )


def find_aspect(creature: CreatureDef, name: str | None) -> str | None:
    if name is None:
        return None
    if name in creature.aspects:
        return name
    folded = name.casefold()
    for aspect in creature.aspects:
        if aspect.casefold() == folded:
            return aspect
    return None


def _frozen(value: Any) -> Any:
    """A hashable copy of JSON-like data (dicts and lists become sorted tuples and tuples)."""
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value


def _pending_key(p: PendingRoll) -> tuple[Any, ...]:
    return (
        p.kind,
        p.roller,
        p.action,
        p.target,
        p.weapon,
        p.dc,
        p.aspect,
        p.count_load,
        tuple(sorted((a.kind, a.source) for a in p.advantages)),
        frozenset(p.passed),
        p.on_turn,
        p.stage,
        _frozen(p.context),
    )


def _pending_json(enc: Encounter, p: PendingRoll) -> dict[str, Any]:
    return {
        "kind": p.kind.value,
        "roller": enc.creatures[p.roller].id,
        "action": p.action.name if p.action else p.aspect,
        "target": enc.creatures[p.target].id if p.target is not None else None,
        "dc": p.dc,
        "advantages": [str(a) for a in p.advantages],
        "net_advantage": p.net_advantage,
        "expression": str(enc._pending_expr(p)),
        "passed": sorted(enc.creatures[i].id for i in p.passed),
    }
