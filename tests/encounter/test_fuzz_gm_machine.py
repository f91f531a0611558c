"""Issue 21 item 3: every GM command at every reachable stage of every bundled encounter is
applied or refused with a reason — never a traceback — and the table never gets stuck.

R48: "At a table the GM adjusts what the rules do not track, in both modules, as logged and
undoable commands: damage or heal a creature (Health stays within 0…max; 0 is down, healing
above 0 brings it back up), set Exhaustion, Load Buffer or Load, set AP/RP/Stamina, add a
participant mid-encounter (it joins the turn order where the GM says, or by its initiative
roll), remove one, reorder the turn order, and set any condition or fact."

A Hypothesis :class:`RuleBasedStateMachine` drives random reachable states of each bundled
encounter — the initiative stage (R30), reaction windows (R15), the Action Point module's
defence stages (R45) and grapple contests (R42) included — with ordinary play, rolls and GM
commands interleaved, one machine per encounter; its ``engage`` rule has the GM put a foe beside
the creature whose turn it is, which then attacks, shoots or grapples, so that the deeper stages
are reached within the steps. After every step it checks:

* a command was applied, or refused with a :class:`~caltrop.errors.CaltropError` that changed
  nothing (state and log);
* someone can always act (``current()`` names a creature with a legal command, or dice to roll);
* the view model (:func:`caltrop.table.view.view`) of the GM and of every player never raises;
* the log replays to the same state;
* the Action Load module's tables, widened by each ``gm: add`` (item 6), are those built afresh.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from caltrop.content import bundled_encounters, load_encounter
from caltrop.content.catalogue import bundled_creatures
from caltrop.content.resolve import resolve_creature
from caltrop.core.commands import Act, AddCreature, Command, parse_command
from caltrop.core.model import EncounterDef, Side
from caltrop.economy.load.actions import LoadActions, _Tables
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.errors import CaltropError
from caltrop.table.view import view
from tests.fuzzing import fuzz

DEFINITIONS: dict[str, EncounterDef] = {
    name: load_encounter(path) for name, path in bundled_encounters().items()
}
BUNDLED = sorted(bundled_creatures())

#: every GM command of the README's "GM controls", with each field a hole to fill
GM_FORMS = [
    "gm: damage {id} {n}",
    "gm: damage {id} 1000",
    "gm: heal {id} {n}",
    "gm: heal {id} 1000",
    "gm: set {id} load {n}",
    "gm: set {id} exhaustion {n}",
    "gm: set {id} buffer {n}",
    "gm: set {id} ap {n}",
    "gm: set {id} rp {n}",
    "gm: set {id} stamina {n}",
    "gm: set {id} prone on",
    "gm: set {id} prone off",
    "gm: set {id} poisoned on",
    "gm: set {id} aware {other} off",
    "gm: set {id} aware {other} on",
    "gm: set {id} sight {other} off",
    "gm: set {id} at {n},{n}",
    "gm: add {new}",
    "gm: add {new} as {id}",
    "gm: add {new} as fresh-{n} after {other}",
    "gm: add {new} after {other}",
    "gm: add {new} by initiative",
    "gm: remove {id}",
    "gm: order {order}",
    "gm: pass all",
    "gm: call {id} Finesse dc {n}",
    "gm: call {id} Speed",
    "gm: call {id} Finesse dc {n} +count-load",
    "gm: call {id} Insight +no-count-load",
    "gm: set {id} load -100",
    "gm: call {id} Strength dc {n}",
    "gm: undo",
    "gm: end encounter",
    "roll",
    "total {n}",
]


#: actions that roll (both modules' bundled and built-in ones): what :meth:`GmTable.engage` takes
ROLLING = frozenset(
    {"attack", "shoot", "grapple", "escape", "scale", "shake", "martial", "strike", "firebolt"}
)


def _position(enc: Encounter, creature_id: str) -> tuple[object, object]:
    """Where ``creature_id`` stands now (R34), as the GM's view shows it."""
    shown = view(enc, "gm")
    found = next(c for c in shown.creatures if c.id == creature_id)
    return found.position or (0, 0)


def resolved(command: Command, enc: Encounter) -> Command:
    """``gm: add`` of a creature not in reserve, looked up among the bundled ones (the CLI's and
    the server's rule)."""
    reserves = {c.id for c in enc.definition.reserves}
    if (
        isinstance(command, AddCreature)
        and command.creature is None
        and command.source not in reserves
    ):
        return replace(command, creature=resolve_creature(command.source))
    return command


class GmTable(RuleBasedStateMachine):
    """One encounter at a table, the GM interfering at any moment."""

    enc: Encounter

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    @initialize(seed=st.integers(0, 2**16))
    def begin(self, seed: int) -> None:
        self.enc = Encounter.begin(DEFINITIONS[self.name], seed)
        self.refused = 0
        self.applied = 0

    def _try(self, command: Command) -> None:
        """Apply ``command`` or see it refused in words, with nothing changed."""
        before = self.enc.to_json()
        log = self.enc.log_lines()
        try:
            self.enc.apply(command)
        except CaltropError as exc:
            reason = str(exc)
            assert self.enc.to_json() == before, f"{command} was refused but changed the state"
            assert self.enc.log_lines() == log, f"{command} was refused but changed the log"
            assert reason.strip(), f"{command}: a refusal says why"
            self.refused += 1
            return
        self.applied += 1
        self.enc.settle()  # as every table does after a command

    @rule(data=st.data())
    def play(self, data: st.DataObject) -> None:
        """Ordinary play: whoever decides now takes one of its legal commands (or the dice)."""
        if self.enc.current() == TERMINAL:
            return
        options = list(self.enc.legal_actions())
        self._try(data.draw(st.sampled_from(options), label="play"))

    @rule(data=st.data())
    def roll_on(self, data: st.DataObject) -> None:
        """Play on to the next roll and roll it: reaches the deeper stages quickly."""
        for _ in range(12):
            who = self.enc.current()
            if who == TERMINAL:
                return
            options = list(self.enc.legal_actions())
            self._try(data.draw(st.sampled_from(options), label="step"))
            if who == CHANCE:
                return

    @rule(data=st.data())
    def engage(self, data: st.DataObject) -> None:
        """The GM puts a foe beside the creature whose turn it is (R48 ``gm: set ID at X,Y``),
        which then takes an action that rolls — an attack, a shot, a grapple — so that the
        deeper stages (R42 contests, R45 defence stages, R15 windows) are reached in a few
        steps, for :meth:`gm_command` to interfere with."""
        enc = self.enc
        owner = enc.turn_owner
        if owner is None or enc.pending or enc.current() in (TERMINAL, CHANCE):
            return
        me = enc.creatures[enc.index(owner)]
        foes = [c for i, c in enumerate(enc.creatures) if c.side is not me.side and not enc.down[i]]
        if not foes:
            return
        foe = data.draw(st.sampled_from(foes), label="foe")
        if enc.definition.ruleset.economy.value == "action_points":
            x, y = (int(v) for v in _position(enc, owner))
            self._try(parse_command(f"gm: set {foe.id} at {x + 1},{y}"))
        rolling = [
            c
            for c in enc.legal_actions()
            if isinstance(c, Act) and c.actor == owner and c.action in ROLLING
        ]
        if rolling:
            self._try(data.draw(st.sampled_from(rolling), label="rolling"))

    @rule(data=st.data())
    def gm_command(self, data: st.DataObject) -> None:
        """The GM interferes: any GM command, about any creature, at any stage."""
        enc = self.enc
        ids = [c.id for c in enc.creatures]
        who = data.draw(st.sampled_from([*ids, "nobody"]), label="who")
        other = data.draw(st.sampled_from([*ids, "nobody"]), label="other")
        new = data.draw(
            st.sampled_from([*(c.id for c in enc.definition.reserves), *BUNDLED]), label="new"
        )
        order_ids = [enc.creatures[i].id for i in enc.order]
        order = ",".join(data.draw(st.permutations(order_ids), label="order")) or "nobody"
        n = data.draw(st.integers(-2, 25), label="n")
        form = data.draw(st.sampled_from(GM_FORMS), label="form")
        text = form.format(id=who, other=other, new=new, order=order, n=n)
        top = enc.pending_roll
        event(f"stage: {top.kind.value} {top.stage}" if top else "stage: a turn")
        try:
            command = resolved(parse_command(text), enc)
        except CaltropError:
            return
        self._try(command)

    @invariant()
    def someone_can_act(self) -> None:
        """R48 never leaves the table stuck: the one who decides has something to do."""
        if not hasattr(self, "enc"):
            return
        who = self.enc.current()
        if who == TERMINAL:
            return
        assert list(self.enc.legal_actions()), f"{who} must decide but has nothing to do"

    @invariant()
    def every_view_shows(self) -> None:
        """The view model serves every screen; it never raises on a state the engine reached."""
        if not hasattr(self, "enc"):
            return
        view(self.enc, "gm")
        for c in self.enc.creatures:
            if c.side is Side.PC:
                view(self.enc, c.id)

    @invariant()
    def widened_tables_are_fresh(self) -> None:
        """Issue 21 item 6: tables widened by ``gm: add`` are the tables built afresh."""
        if not hasattr(self, "enc") or not isinstance(self.enc.module, LoadActions):
            return
        widened, again = self.enc.module.tables, _Tables(self.enc.definition)
        assert widened.own_turn == again.own_turn
        assert widened.reaction_choices == again.reaction_choices
        assert widened.reactions == again.reactions

    @invariant()
    def log_replays(self) -> None:
        if not hasattr(self, "enc"):
            return
        again = Encounter.replay(self.enc.initial, self.enc.events)
        assert again.to_json() == self.enc.to_json()


@pytest.mark.parametrize("name", sorted(DEFINITIONS))
def test_every_gm_command_at_every_stage_is_applied_or_refused(name: str) -> None:
    """One machine per bundled encounter, so that each — both modules — gets its share of the
    examples (a machine drawing the encounter gave the derandomised run's 80 examples to the
    first three, all Action Load)."""
    run_state_machine_as_test(
        lambda: GmTable(name), settings=settings(fuzz(30), stateful_step_count=30)
    )
