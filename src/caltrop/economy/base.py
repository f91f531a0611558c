"""The contract every action economy fulfils; the engine drives economies only through it.

An economy decides three things for the one encounter engine: what a creature's resources are
(Action Load; or AP, RP and floating RP), whether an action can be paid for right now (the gate,
with the arithmetic when it cannot), and how many d4s an allowed action rolls. It also reacts to
turn and round starts. A shared conformance suite (``tests/economy/test_conformance.py``) runs
against every registered economy.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Protocol

from caltrop.core.commands import Act, Command, SetFact
from caltrop.core.model import ActionDef, CreatureDef, EncounterDef, Ruleset
from caltrop.core.pool import Advantage
from caltrop.dice.ast import Expr
from caltrop.economy.outcome import Outcome
from caltrop.economy.pending import PendingRoll


class Verdict(Protocol):
    """The answer to "can this be paid for now?": truthy if so, with the reason in words."""

    @property
    def reason(self) -> str: ...

    def __bool__(self) -> bool: ...


class Resources(Protocol):
    """One creature's mutable economy state (Load, or points). Copied on every clone."""

    def copy(self) -> Resources: ...

    def as_dict(self) -> dict[str, Any]:
        """What a player sees, JSON-ready, for state JSON and displays (``{"load": 2}``)."""
        ...

    def key(self) -> tuple[Any, ...]:
        """A hashable key, equal for two states exactly when their :meth:`as_dict` are equal
        (:meth:`Encounter.key <caltrop.encounter.Encounter.key>` is built from it; the search's
        memo and the exact solvers look states up by it many thousand times a decision)."""
        ...


class EconomyRules(Protocol):
    """An action economy, bound to one ruleset."""

    name: str
    ruleset: Ruleset

    def initial(self, creature: CreatureDef) -> Resources:
        """The resources a creature enters the encounter with."""
        ...

    def on_round_start(
        self, creatures: tuple[CreatureDef, ...], resources: list[Resources]
    ) -> None:
        """Called when a round begins (before its first turn starts)."""
        ...

    def on_turn_start(
        self, creatures: tuple[CreatureDef, ...], resources: list[Resources], owner: int
    ) -> None:
        """Called when ``owner``'s turn begins."""
        ...

    def gate(
        self, creature: CreatureDef, resources: Resources, action: ActionDef, *, on_turn: bool
    ) -> Verdict:
        """Whether ``creature`` may take ``action`` now; never depends on advantage (R11)."""
        ...

    def allows(
        self, creature: CreatureDef, resources: Resources, action: ActionDef, *, on_turn: bool
    ) -> bool:
        """``bool(gate(...))`` without building the reason: for legal-action generation."""
        ...

    def pool(
        self, creature: CreatureDef, resources: Resources, action: ActionDef, net_adv: int
    ) -> int:
        """The number of d4s the action rolls (extra dice come on top)."""
        ...

    def pay(
        self, creature: CreatureDef, resources: Resources, action: ActionDef, *, on_turn: bool
    ) -> None:
        """Spend for ``action`` once it has resolved (Load += Cost; or AP/RP paid)."""
        ...

    def gm_pool(
        self,
        creature: CreatureDef,
        resources: Resources,
        aspect: int,
        net_adv: int,
        *,
        count_load: bool,
    ) -> int:
        """The number of d4s of a GM-called roll of an Aspect with value ``aspect`` (R17)."""
        ...

    def describe(self, creature: CreatureDef, resources: Resources) -> str:
        """One short line for displays: ``Load 2``."""
        ...


class Engine(Protocol):
    """What an economy's actions read and change of a running encounter.

    The encounter engine (:class:`caltrop.encounter.Encounter`) is the one implementation; the
    actions of each economy (:mod:`caltrop.economy.load.actions`,
    :mod:`caltrop.economy.points.actions`) are written against this view, so the engine's
    machine and the rules of each module import nothing of each other.
    """

    definition: EncounterDef
    creatures: tuple[CreatureDef, ...]
    economy: EconomyRules
    health: list[int]
    down: list[bool]
    resources: list[Resources]
    boons: list[tuple[Advantage, ...]]
    pending: list[PendingRoll]

    @property
    def windows(self) -> Mapping[int, tuple[int, ...]]:
        """Per roller: the others in turn order starting after it (who is asked in its window)."""
        ...

    @property
    def turn_owner(self) -> str | None: ...

    def index(self, creature_id: str) -> int: ...

    def creature(self, creature_id: str) -> CreatureDef: ...

    def standing(self, creature_id: str) -> int:
        """The index of a creature that is not down; IllegalActionError if it is."""
        ...

    def window_order(self, top: PendingRoll) -> Iterator[int]:
        """The creatures standing in ``top``'s reaction window, in turn order after its roller."""
        ...

    def is_legal(self, command: Command) -> bool: ...


class Plan(Protocol):
    """A validated command: :meth:`execute` changes the encounter and cannot fail."""

    def execute(self, enc: Engine) -> Outcome | None: ...


class Actions(Protocol):
    """One economy's actions, plugged into the engine (R1: one engine, one dice core).

    The engine owns turns, the pending stack, reaction windows, the log and the decision
    pointer; an economy's actions validate and execute ``Act`` commands, list the legal ones,
    say who is asked in a window, and build and resolve the rolls they push.
    """

    def plan(self, enc: Engine, command: Act) -> Plan:
        """Validate ``command`` fully; raise InvalidActionError or IllegalActionError."""
        ...

    def legal(self, enc: Engine, i: int) -> Iterator[Command]:
        """Every legal command of creature ``i`` now (its actions, Pass, EndTurn)."""
        ...

    def reactors(self, enc: Engine, top: PendingRoll) -> Iterator[int]:
        """Who is asked in ``top``'s reaction window, in order (standing or not)."""
        ...

    def next_reactor(self, enc: Engine, top: PendingRoll) -> int | None:
        """The first creature still to answer ``top`` (not passed, standing, with a reaction)."""
        ...

    def expression(self, enc: Engine, p: PendingRoll) -> tuple[Expr, str]:
        """The dice ``p`` (an action or stage roll of this economy) rolls now, and its text."""
        ...

    def resolve(
        self, enc: Engine, p: PendingRoll, expr: Expr, text: str, faces: tuple[int, ...], total: int
    ) -> Outcome:
        """Resolve the popped roll ``p`` with these dice; ``downed`` says if anyone went down."""
        ...

    def preview(self, enc: Engine, command: Act) -> dict[str, Any]:
        """What ``command`` would roll and leave (Load or points), without doing it."""
        ...

    def on_down(self, enc: Engine, i: int) -> None:
        """Creature ``i`` has just gone down (or left): end what it holds (grapples, R42)."""
        ...

    #: the stats the GM may set in this economy (R48), e.g. ``("load", "exhaustion", "buffer")``
    stats: tuple[str, ...]

    def check_stat(self, enc: Engine, i: int, stat: str, value: int) -> None:
        """Raise unless the GM may set ``stat`` of ``i`` to ``value`` (R48)."""
        ...

    def set_stat(self, enc: Engine, i: int, stat: str, value: int) -> CreatureDef | None:
        """Set a checked stat; returns ``i``'s new definition when the stat lives in it
        (Exhaustion, Load Buffer), for the engine to put in its place."""
        ...

    def owns_fact(self, name: str) -> bool:
        """Whether ``gm: set X NAME …`` is one of this economy's facts (R34) rather than a
        condition the engine keeps."""
        ...

    def check_fact(self, enc: Engine, fact: SetFact) -> None: ...

    def apply_fact(self, enc: Engine, fact: SetFact) -> None: ...
