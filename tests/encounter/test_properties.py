"""Hypothesis: random sequences of legal and illegal commands against the engine's invariants.

A stateful machine plays a small encounter under every Action Load option with commands drawn
from ``legal_actions`` (any creature's, not only the one deciding), mutated legal commands and
arbitrary ones (unknown names, wrong actors, bad dice, random advantages), plus undo and clone.
After every step it checks (issue 3, "Tests"):

* a rejected command raises a Caltrop ``ValueError`` and changes neither state nor log;
* ``is_legal`` agrees with ``apply``, and never depends on advantage (R11);
* Load only grows, by exactly the costs paid, between resets (R10, R12, R13, R15, R17, R19);
* ``undo`` returns exactly the state before the last command, and redoing it gives the same;
* ``clone()`` is independent, and a clone continued with the same commands equals the original;
* ``replay(log)`` equals the live state (``to_json`` and ``log_lines``), through JSON text;
* the decision point is consistent: a creature that must decide is standing and has a legal
  action; at chance the exact outcomes sum to 1.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from caltrop.core.commands import (
    Act,
    CallRoll,
    Command,
    EndEncounter,
    EndTurn,
    Pass,
    RollDice,
    RollTotal,
)
from caltrop.core.model import ActionKind, Initiative, LoadReset, Ruleset
from caltrop.core.pool import Advantage, Revision
from caltrop.dice import distribution
from caltrop.economy.load.economy import ActionLoadEconomy
from caltrop.encounter import CHANCE, TERMINAL, Encounter, RollKind
from caltrop.errors import CaltropError, DiceInputError, IllegalActionError, InvalidActionError
from tests.encounter.builders import duel, replayed, ruleset, skirmish

RULESETS: list[Ruleset] = [ruleset(rev, reset) for rev in Revision for reset in LoadReset] + [
    ruleset(initiative=Initiative.CHECK),
    ruleset(Revision.LEGACY, LoadReset.ROUND, initiative=Initiative.CHECK),
    ruleset(gm_roll_counts_load=True),
]

SOURCES = ["torch", "dark", "help", "hinder", "watch-my-back", "flank"]
advantages = st.lists(
    st.builds(Advantage, st.sampled_from(["adv", "dis"]), st.sampled_from(SOURCES)),
    max_size=3,
    unique=True,  # R47: one creature's same source twice on one roll is refused
).map(tuple)

Snapshot = tuple[str, list[str]]


def snap(enc: Encounter) -> Snapshot:
    return enc.to_json(), enc.log_lines()


def loads(enc: Encounter) -> list[int]:
    return [r.as_dict()["load"] for r in enc.resources]


def random_policy(enc: Encounter, rng: random.Random) -> Command:
    if enc.current() == CHANCE:
        return RollDice()
    return rng.choice(list(enc.legal_actions()))


class EncounterMachine(RuleBasedStateMachine):
    """Plays one encounter per example; see the module docstring for what it checks."""

    def __init__(self) -> None:
        super().__init__()
        self.enc: Encounter
        # (state before, command, state after) of each applied command still in the log
        self.history: list[tuple[Snapshot, Command, Snapshot]] = []

    @initialize(
        rs=st.sampled_from(RULESETS),
        seed=st.integers(0, 2**32 - 1),
        build=st.sampled_from([skirmish, duel]),
    )
    def start(self, rs: Ruleset, seed: int, build: object) -> None:
        assert callable(build)
        self.enc = Encounter.begin(build(rs), seed)
        self.ids = [c.id for c in self.enc.creatures]
        self.action_names = sorted({a.name for c in self.enc.creatures for a in c.actions})

    # -- applying, with the per-step checks ------------------------------------------------------

    def _paid(self, command: Command) -> dict[int, int]:
        """The costs this command pays if it succeeds (seed 000 step 6; R15; R17: none)."""
        enc = self.enc
        if isinstance(command, Act):
            i = enc.index(command.actor)
            action = enc.creatures[i].action(command.action)
            assert action is not None
            if action.kind in (ActionKind.TEAM, ActionKind.EFFECT):
                return {i: action.cost}
        if isinstance(command, RollDice | RollTotal):
            top = enc.pending[-1]
            if top.kind is RollKind.ACTION:
                assert top.action is not None
                return {top.roller: top.action.cost}
        return {}

    def _apply(self, command: Command) -> bool:
        enc = self.enc
        before = snap(enc)
        legal = enc.is_legal(command)
        reason = enc.why_illegal(command)
        assert (reason is None) is legal
        if isinstance(command, Act):
            # R11: the gate never depends on advantage
            bare = replace(command, advantages=())
            more = replace(command, advantages=(*command.advantages, Advantage("dis", "x1")))
            assert enc.is_legal(bare) is legal
            assert enc.is_legal(more) is legal
        loads_before = loads(enc)
        clock_before = (enc.round, enc.turn_pos)
        paid = self._paid(command) if legal else {}
        error: ValueError | None = None
        try:
            enc.apply(command)
        except ValueError as exc:
            error = exc
        if error is not None:
            assert not legal, f"{command} was legal but raised {error}"
            assert isinstance(error, IllegalActionError | InvalidActionError | DiceInputError)
            assert isinstance(error, CaltropError)
            assert str(error) == reason
            assert snap(enc) == before, f"refused {command} changed the state"
            event(f"refused {type(command).__name__}")
            return False
        assert legal, f"{command} was not legal ({reason}) but applied"
        after = snap(enc)
        assert after != before
        event(f"applied {type(command).__name__}")
        self.history.append((before, command, after))
        self._check_loads(loads_before, clock_before, paid)
        return True

    def _check_loads(
        self, before: list[int], clock_before: tuple[int, int], paid: dict[int, int]
    ) -> None:
        """Load grows only by the costs paid, except where a reset happened (R10, R19, R20)."""
        enc = self.enc
        assert isinstance(enc.economy, ActionLoadEconomy)
        new_turn = (enc.round, enc.turn_pos) != clock_before and not enc.over and enc.round > 0
        new_round = enc.round != clock_before[0]
        by_round = enc.definition.ruleset.load_reset is LoadReset.ROUND
        for i, (old, new) in enumerate(zip(before, loads(enc), strict=True)):
            expected = old + paid.get(i, 0)
            reset = new_round if by_round else new_turn and enc.order[enc.turn_pos] == i
            if reset:
                assert new == enc.economy.reset_value(enc.creatures[i]), (i, old, new)
            else:
                assert new == expected, (enc.creatures[i].id, old, new, paid)

    # -- rules -----------------------------------------------------------------------------------

    @precondition(lambda self: not self.enc.is_terminal())
    @rule(data=st.data())
    def play_decision_point(self, data: st.DataObject) -> None:
        """The creature that decides now, or chance, moves."""
        enc = self.enc
        if enc.current() == CHANCE:
            expr = enc.pending_expression()
            how = data.draw(st.sampled_from(["rng", "entered", "total"]))
            if how == "rng":
                command: Command = RollDice()
            elif how == "entered":
                faces = tuple(data.draw(st.integers(1, sides)) for sides in expr.dice_slots())
                command = RollDice(faces)
            else:
                totals = [rt.total for rt, _ in enc.chance_outcomes()]
                command = RollTotal(data.draw(st.sampled_from(totals)))
        else:
            command = data.draw(st.sampled_from(list(enc.legal_actions())))
            if isinstance(command, Act):
                command = replace(command, advantages=data.draw(advantages))
        assert self._apply(command), command

    @precondition(lambda self: not self.enc.is_terminal())
    @rule(data=st.data())
    def play_any_creatures_legal_action(self, data: st.DataObject) -> None:
        """Any creature's legal move (a reaction out of window order, say) is accepted."""
        who = data.draw(st.sampled_from(self.ids))
        options = list(self.enc.legal_actions(who))
        if options:
            assert self._apply(data.draw(st.sampled_from(options)))

    @rule(data=st.data())
    def play_mutated_legal_action(self, data: st.DataObject) -> None:
        """A legal move with one field changed: accepted or refused, never half-applied."""
        options = [c for who in self.ids for c in self.enc.legal_actions(who)]
        if not options:
            return
        command = data.draw(st.sampled_from(options))
        if isinstance(command, Act):
            field = data.draw(st.sampled_from(["actor", "action", "targets", "weapons", "dc"]))
            choices: dict[str, st.SearchStrategy[Any]] = {
                "actor": st.sampled_from([*self.ids, "ghost"]),
                "action": st.sampled_from([*self.action_names, "fly"]),
                "targets": st.lists(st.sampled_from(self.ids), max_size=2).map(tuple),
                "weapons": st.sampled_from([(), ("dagger",), ("sword",), ("spoon",)]),
                "dc": st.one_of(st.none(), st.integers(0, 20)),
            }
            value: Any = data.draw(choices[field])
            command = replace(command, **{field: value})
        elif isinstance(command, EndTurn | Pass):
            command = type(command)(data.draw(st.sampled_from([*self.ids, "ghost"])))
        self._apply(command)

    @rule(data=st.data())
    def play_arbitrary_command(self, data: st.DataObject) -> None:
        """Anything at all: mostly refused, sometimes legal by luck."""
        ids = st.sampled_from([*self.ids, "ghost"])
        kind = data.draw(st.integers(0, 40))
        command: Command
        if kind < 14:
            command = Act(
                data.draw(ids),
                data.draw(st.sampled_from([*self.action_names, "fly"])),
                tuple(data.draw(st.lists(ids, max_size=2))),
                data.draw(st.sampled_from([(), ("dagger",), ("sword",), ("dagger", "sword")])),
                data.draw(st.one_of(st.none(), st.integers(0, 20))),
                data.draw(advantages),
            )
        elif kind < 19:
            command = EndTurn(data.draw(ids))
        elif kind < 24:
            command = Pass(data.draw(ids))
        elif kind < 30:
            command = CallRoll(
                data.draw(ids),
                data.draw(st.sampled_from(["Finesse", "control", "Luck"])),
                data.draw(st.one_of(st.none(), st.integers(1, 20))),
                data.draw(st.sampled_from([None, True, False])),
                data.draw(advantages),
            )
        elif kind < 36:
            entered = data.draw(st.one_of(st.none(), st.lists(st.integers(0, 9), max_size=9)))
            command = RollDice(None if entered is None else tuple(entered))
        elif kind < 40:
            command = RollTotal(data.draw(st.integers(-2, 45)))
        else:
            command = EndEncounter()
        self._apply(command)

    @precondition(lambda self: not all(self.enc._free))
    @rule(redo=st.booleans())
    def undo_last(self, redo: bool) -> None:
        """Undo (``gm: undo``) returns exactly the state before the last command — with the
        dice-free rolls after it — while the log keeps everything and gains the undo (issue
        11: history is never deleted); redoing gives the same state as before."""
        assert len(self.history) == len(self.enc.commands)
        k = len(self.history)
        while self.enc._free[k - 1]:
            k -= 1
        before, command, after = self.history[k - 1]
        del self.history[k - 1 :]
        log = self.enc.log_lines()
        assert self.enc.undo() == command
        assert self.enc.to_json() == before[0]
        undo = {"command": "gm: undo", "event": "command", "n": len(log)}
        assert self.enc.log_lines() == [*log, json.dumps(undo, sort_keys=True)]
        assert Encounter.replay(self.enc.initial, self.enc.events).to_json() == before[0]
        if redo:
            self.enc.apply(command)
            assert self.enc.to_json() == after[0]
            self.history.append((before, command, snap(self.enc)))

    @precondition(lambda self: not self.enc.is_terminal())
    @rule(seed=st.integers(0, 10_000), steps=st.integers(1, 8))
    def clone_is_independent(self, seed: int, steps: int) -> None:
        """``clone()`` shares nothing mutable; the same commands give the same results."""
        original = snap(self.enc)
        twin = self.enc.clone()
        assert snap(twin) == original
        rng = random.Random(seed)
        played = []
        for _ in range(steps):
            if twin.is_terminal():
                break
            command = random_policy(twin, rng)
            twin.apply(command)
            played.append(command)
        assert snap(self.enc) == original
        for command in played:
            assert self._apply(command)
        assert snap(self.enc) == snap(twin)

    @rule()
    def replay_equals_live(self) -> None:
        assert snap(replayed(self.enc)) == snap(self.enc)

    @precondition(lambda self: self.enc.current() == CHANCE)
    @rule()
    def chance_outcomes_are_exact(self) -> None:
        """Decision points: at chance the outcomes sum exactly to 1 and match the distribution."""
        outcomes = self.enc.chance_outcomes()
        assert sum(p for _, p in outcomes) == Fraction(1)
        pmf = distribution(self.enc.pending_expression()).pmf_exact()
        assert {rt.total: p for rt, p in outcomes} == {t: p for t, p in pmf.items() if p}

    # -- invariants ------------------------------------------------------------------------------

    @invariant()
    def decision_point_is_consistent(self) -> None:
        if not hasattr(self, "enc"):
            return
        enc = self.enc
        who = enc.current()
        if who == TERMINAL:
            assert enc.over
            assert not enc.pending
            assert not list(enc.legal_actions())
        elif who == CHANCE:
            assert enc.pending
            assert list(enc.legal_actions()) == [RollDice()]
        else:
            i = enc.index(who)
            assert not enc.down[i], f"{who} is down but must decide"
            options = list(enc.legal_actions())
            assert options, f"{who} must decide but has no legal action"
            assert all(enc.is_legal(c) for c in options)
        assert all(not enc.down[p.roller] for p in enc.pending)

    def teardown(self) -> None:
        if hasattr(self, "enc"):
            assert snap(replayed(self.enc)) == snap(self.enc)


EncounterMachine.TestCase.settings = settings(
    max_examples=100,
    stateful_step_count=50,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestEncounterMachine = EncounterMachine.TestCase
