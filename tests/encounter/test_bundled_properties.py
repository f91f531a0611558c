"""Properties of the engine on every bundled encounter, over random play (Hypothesis).

Issue 9, "Done means": "``legal_actions``/``is_legal`` agreement and 'no traceback on any command
string' are properties checked with Hypothesis on every bundled encounter". At each step of a
random play-out the test checks:

* every command ``legal_actions`` lists is ``is_legal`` and applies (R47: "``legal_actions``
  must never offer a command that ``apply`` would refuse");
* for commands drawn from a wide family (every verb, GM command and malformed variant, and
  arbitrary text), ``is_legal`` says exactly whether ``apply`` accepts it; a refusal is an
  :class:`InvalidActionError` or an :class:`IllegalActionError` and changes nothing;
* the gate never depends on advantage (R11, R2): an action with an extra advantage or
  disadvantage of a new source is legal exactly when the bare one is.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from caltrop.content import bundled_encounters, load_encounter
from caltrop.core.commands import Act, Command, Undo, parse_command
from caltrop.core.model import EncounterDef
from caltrop.core.pool import Advantage
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.errors import IllegalActionError, InvalidActionError

DEFINITIONS: dict[str, EncounterDef] = {
    name: load_encounter(path) for name, path in bundled_encounters().items()
}

WORDS = [
    "strike",
    "help",
    "hinder",
    "dodge",
    "parry",
    "move",
    "leap",
    "hold",
    "aim",
    "attack",
    "shoot",
    "block",
    "cover",
    "assist",
    "grapple",
    "escape",
    "scale",
    "shake",
    "oppose",
    "equip",
    "stow",
    "stand",
    "breath",
    "martial",
    "end turn",
    "pass",
    "watch-my-back",
]
GM = [
    "gm: damage {id} {n}",
    "gm: heal {id} {n}",
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
    "gm: set {id} sight {other} off",
    "gm: set {id} at {x},{y}",
    "gm: add {id}",
    "gm: add {id} after {other}",
    "gm: add {id} by initiative",
    "gm: remove {id}",
    "gm: order {id},{other}",
    "gm: pass all",
    "gm: call {id} Finesse dc {n}",
    "gm: end encounter",
    "roll",
    "roll {n},{n}",
    "total {n}",
]


def _command_text(enc: Encounter, data: st.DataObject) -> str:
    ids = [c.id for c in enc.creatures] + ["nobody"]
    who = data.draw(st.sampled_from(ids), label="who")
    other = data.draw(st.sampled_from(ids), label="other")
    n = data.draw(st.integers(-3, 30), label="n")
    x = data.draw(st.sampled_from(["0", "1.5", "-3", "9", "1e308", "nan", "20000"]), label="x")
    kind = data.draw(st.integers(0, 3), label="kind")
    if kind == 0:
        verb = data.draw(st.sampled_from(WORDS), label="verb")
        tail = data.draw(
            st.sampled_from(
                [
                    "",
                    f" {other}",
                    f" {other} with sword",
                    f" {other} with dagger+dagger",
                    f" {other} with unarmed+sword",
                    f" to {x},{x}",
                    f" dc {n}",
                    f" {other} +adv:torch",
                    " +stealth",
                    " +careful +stealth",
                ]
            ),
            label="tail",
        )
        return f"{who}: {verb}{tail}"
    if kind == 1:
        form = data.draw(st.sampled_from(GM), label="gm")
        return form.format(id=who, other=other, n=n, x=x, y=x)
    if kind == 2:
        return data.draw(st.text(max_size=40), label="text")
    return data.draw(st.text(alphabet=": ,+-.0123456789abdegilmnoprstuvw", max_size=30))


def _check_command(enc: Encounter, command: Command) -> None:
    """``is_legal`` agrees with ``apply``; a refusal is one of the two errors and changes nothing."""
    legal = enc.is_legal(command)
    before = enc.to_json()
    log = enc.log_lines()
    try:
        enc.apply(command)
    except (InvalidActionError, IllegalActionError):
        assert not legal, f"{command} is_legal but apply refused it"
        assert enc.to_json() == before
        assert enc.log_lines() == log
        return
    assert legal, f"{command} applied but is_legal said no"
    if isinstance(command, Undo):
        # R48: an undo takes back the decision before it, and a second undo the one before
        # that (it never redoes): so the undo is logged, and the state is its log's replay
        assert enc.events[-1]["command"] == str(command)
        assert Encounter.replay(enc.definition, enc.events).to_json() == enc.to_json()
        return
    enc.undo()
    assert enc.to_json() == before


@pytest.mark.parametrize("name", sorted(DEFINITIONS))
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_legal_actions_is_legal_and_apply_agree_in_random_play(
    name: str, data: st.DataObject
) -> None:
    enc = Encounter.begin(DEFINITIONS[name], seed=data.draw(st.integers(0, 2**16), label="seed"))
    for _ in range(data.draw(st.integers(1, 40), label="steps")):
        who = enc.current()
        if who == TERMINAL:
            break
        options = list(enc.legal_actions())
        for command in options:
            assert enc.is_legal(command), f"{command} listed but not legal"
            assert command in enc.legal_actions(who if who != CHANCE else None)
            if isinstance(command, Act) and enc.definition.ruleset.economy.value == "action_load":
                for extra in (Advantage("adv", "zz-new"), Advantage("dis", "zz-other")):
                    more = replace(command, advantages=(*command.advantages, extra))
                    assert enc.is_legal(more), f"R11: {more} refused for an advantage"
        text = _command_text(enc, data)
        try:
            probe = parse_command(text)
        except InvalidActionError:
            probe = None
        if probe is not None:
            _check_command(enc, probe)
        assert options, f"{who} must decide but has nothing to do"
        enc.apply(data.draw(st.sampled_from(options), label="step"))


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=60), st.sampled_from(GM + WORDS).map(str)))
def test_any_command_string_parses_or_is_refused_in_words(text: str) -> None:
    """No command string reaches a traceback: the notation parses it (and its text form then
    round-trips) or refuses it with an :class:`InvalidActionError`."""
    try:
        command = parse_command(text)
    except InvalidActionError as exc:
        message = str(exc)
    else:
        assert parse_command(str(command)) == command
        return
    assert message.strip(), "a refusal says why"
