"""Refused commands: a clear error, and the state and the log exactly as they were.

Issue 3: "A rejected command (illegal, malformed, wrong actor) raises a clear error and leaves the
state and the log exactly as they were." The gate refusal gives the arithmetic (R11).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from caltrop.core.commands import (
    Act,
    CallRoll,
    Command,
    EndEncounter,
    EndTurn,
    Pass,
    RollDice,
    RollTotal,
    parse_command,
)
from caltrop.encounter import Encounter
from caltrop.errors import DiceInputError, IllegalActionError, InvalidActionError
from tests.encounter.builders import (
    DAGGER,
    HEAVY,
    HELP,
    PICK_LOCK,
    PREPARE,
    STRIKE,
    SWORD,
    begin,
    creature,
    npc,
    run,
)


def _party() -> Encounter:
    aria = creature(
        "aria",
        name="Aria",
        finesse=4,
        health=30,
        actions=(STRIKE, HEAVY, PREPARE, HELP, PICK_LOCK),
        weapons=(DAGGER, SWORD),
    )
    bron = creature("bron", name="Bron", health=30, actions=(STRIKE, HELP), weapons=(DAGGER,))
    goblin = npc("goblin", name="Goblin", health=30, evasion=99, actions=(STRIKE,))
    return begin(aria, bron, goblin)


def _at_load_3(enc: Encounter) -> None:
    run(enc, "aria: prepare", "aria: prepare", "aria: prepare")


def _pending(enc: Encounter) -> None:
    run(enc, "aria: strike goblin with dagger")


def _over(enc: Encounter) -> None:
    run(enc, "gm: end encounter")


def _nothing(enc: Encounter) -> None:
    pass


def _pending_and_bron_passed(enc: Encounter) -> None:
    run(enc, "aria: strike goblin with dagger", "bron: pass")


def _goblin_attacks(enc: Encounter) -> None:
    run(enc, "aria: end turn", "bron: end turn", "goblin: strike bron")


# (name, set-up, command, error type, message part)
CASES: list[tuple[str, Callable[[Encounter], None], Command, type[Exception], str]] = [
    (
        "gate arithmetic",
        _at_load_3,
        Act("aria", "heavy-blow", ("goblin",), ("dagger",)),
        IllegalActionError,
        "Aria cannot heavy-blow: Finesse 4 − Load 3 = 1 < cost 2",
    ),
    (
        "wrong actor",
        _nothing,
        Act("bron", "strike", ("goblin",)),
        IllegalActionError,
        "it is Aria's turn; Bron may act on other turns only in response to a pending roll",
    ),
    (
        "wrong actor ends the turn",
        _nothing,
        EndTurn("goblin"),
        IllegalActionError,
        "it is Aria's turn, not Goblin's",
    ),
    (
        "unknown creature acts",
        _nothing,
        Act("zed", "strike", ("goblin",)),
        InvalidActionError,
        "no creature 'zed' (known: aria, bron, goblin)",
    ),
    (
        "unknown target",
        _nothing,
        Act("aria", "strike", ("ghost",), ("dagger",)),
        InvalidActionError,
        "no creature 'ghost'",
    ),
    (
        "unknown creature called",
        _nothing,
        CallRoll("ghost", "Finesse"),
        InvalidActionError,
        "no creature 'ghost'",
    ),
    (
        "unknown aspect called",
        _nothing,
        CallRoll("aria", "Luck"),
        InvalidActionError,
        "Aria has no Aspect 'Luck' (has: Finesse, Control)",
    ),
    (
        "unknown action",
        _nothing,
        Act("aria", "fly"),
        InvalidActionError,
        "Aria has no action 'fly' (has: strike, heavy-blow, prepare, help, pick-lock)",
    ),
    (
        "unknown weapon",
        _nothing,
        Act("aria", "strike", ("goblin",), ("spoon",)),
        InvalidActionError,
        "Aria has no weapon 'spoon' (has: dagger, sword)",
    ),
    (
        "which weapon",
        _nothing,
        Act("aria", "strike", ("goblin",)),
        InvalidActionError,
        "which weapon? add 'with WEAPON' (Aria has: dagger, sword)",
    ),
    (
        "two weapons",
        _nothing,
        Act("aria", "strike", ("goblin",), ("dagger", "sword")),
        InvalidActionError,
        "this action uses one weapon",
    ),
    (
        "no target",
        _nothing,
        Act("aria", "strike", (), ("dagger",)),
        InvalidActionError,
        "strike needs one target",
    ),
    (
        "attacking itself",
        _nothing,
        Act("aria", "strike", ("aria",), ("dagger",)),
        IllegalActionError,
        "Aria cannot attack itself",
    ),
    (
        "attacking an ally (docs/rules.md: attacks target the other side)",
        _nothing,
        Act("aria", "strike", ("bron",), ("dagger",)),
        IllegalActionError,
        "Aria will not attack an ally (Bron)",
    ),
    (
        "a DC on an attack",
        _nothing,
        Act("aria", "strike", ("goblin",), ("dagger",), dc=12),
        InvalidActionError,
        "strike is not a check; it takes no DC",
    ),
    (
        "a target on a check",
        _nothing,
        Act("aria", "pick-lock", ("goblin",)),
        InvalidActionError,
        "pick-lock takes no target",
    ),
    (
        "team action with no pending roll",
        _nothing,
        Act("aria", "help"),
        IllegalActionError,
        "help is a team action: it is taken while another creature's roll is pending (R15)",
    ),
    (
        "end turn while a roll is pending",
        _pending,
        EndTurn("aria"),
        IllegalActionError,
        "a roll is pending: roll it before the turn ends",
    ),
    (
        "acting while one's own roll is pending",
        _pending,
        Act("aria", "prepare"),
        IllegalActionError,
        "Aria's own roll is pending: roll it first",
    ),
    (
        "passing on one's own roll",
        _pending,
        Pass("aria"),
        IllegalActionError,
        "Aria's own roll is pending: roll it",
    ),
    (
        "passing twice",
        _pending_and_bron_passed,
        Pass("bron"),
        IllegalActionError,
        "Bron has already passed on this roll",
    ),
    (
        "passing with nothing pending",
        _nothing,
        Pass("bron"),
        IllegalActionError,
        "no roll is pending, so there is nothing to pass on",
    ),
    (
        "help on an enemy roll",
        _goblin_attacks,
        Act("aria", "help"),
        IllegalActionError,
        "help works on an ally's roll; Goblin is not one",
    ),
    ("roll with nothing pending", _nothing, RollDice(), IllegalActionError, "no roll is pending"),
    (
        "total with nothing pending",
        _nothing,
        RollTotal(5),
        IllegalActionError,
        "no roll is pending",
    ),
    ("impossible total", _pending, RollTotal(4), IllegalActionError, "4d4+1d4 cannot total 4"),
    (
        "too few dice",
        _pending,
        RollDice((4, 4, 4, 4)),
        DiceInputError,
        "4d4+1d4 needs 5 dice (5×d4); 4 entered",
    ),
    (
        "too many dice",
        _pending,
        RollDice((1, 1, 1, 1, 1, 1)),
        DiceInputError,
        "needs 5 dice",
    ),
    (
        "face above the die",
        _pending,
        RollDice((1, 2, 3, 4, 5)),
        DiceInputError,
        "die 5 of 5 is a d4 and shows 1 to 4, not 5",
    ),
    (
        "face zero",
        _pending,
        RollDice((0, 2, 3, 4, 4)),
        DiceInputError,
        "die 1 of 5 is a d4 and shows 1 to 4, not 0",
    ),
    ("acting after the end", _over, Act("aria", "prepare"), IllegalActionError, "is over"),
    ("rolling after the end", _over, RollDice(), IllegalActionError, "is over"),
    ("ending twice", _over, EndEncounter(), IllegalActionError, "is over"),
    ("calling after the end", _over, CallRoll("aria", "Finesse"), IllegalActionError, "is over"),
]


@pytest.mark.parametrize(
    ("setup", "command", "error", "message"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_refused_command_changes_nothing(
    setup: Callable[[Encounter], None], command: Command, error: type[Exception], message: str
) -> None:
    """Issue 3 / R11 / R5: every refusal raises a ValueError subclass with a clear message, is
    not legal (``is_legal``/``why_illegal`` agree), and leaves state, log and RNG untouched."""
    enc = _party()
    setup(enc)
    state, log, commands = enc.to_json(), enc.log_lines(), enc.commands
    assert not enc.is_legal(command)
    reason = enc.why_illegal(command)
    assert reason is not None
    assert message in reason
    with pytest.raises(error) as caught:
        enc.apply(command)
    assert isinstance(caught.value, ValueError)
    assert message in str(caught.value)
    assert str(caught.value) == reason
    assert enc.to_json() == state
    assert enc.log_lines() == log
    assert enc.commands == commands
    # the RNG was not advanced either: the next engine roll is what it would have been
    if enc.pending and not enc.over:
        twin = Encounter.replay(enc.definition, [json.loads(line) for line in log])
        assert enc.apply(RollDice()) == twin.apply(RollDice())


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("", "empty command"),
        ("aria:", "nothing after 'aria:'"),
        ("aria: end turn +fast", "flags go with actions"),
        ("aria: move to 3", "a position is X,Y in meters"),
        ("aria: strike goblin +luck:clover", "advantage is written +adv:SOURCE"),
        ("roll 1,x", "die 2 is 'x', not a whole number"),
        ("dance", "a command is 'CREATURE: ACTION …'"),
        ("gm: call aria", "a GM-called roll is 'gm: call CREATURE ASPECT [dc N]'"),
        ("gm: call aria Finesse +count-load +no-count-load", "not both"),
        ("aria: pick-lock dc twelve", "a DC must be a whole number"),
    ],
)
def test_malformed_text_is_refused_before_the_engine(line: str, message: str) -> None:
    """Issue 3: the shared text notation rejects malformed commands with a clear message —
    advantage is ``+adv:SOURCE`` (R14), the GM's Load flag is one or the other (R17), dice faces
    are whole numbers (R5)."""
    with pytest.raises(InvalidActionError) as caught:
        parse_command(line)
    assert message in str(caught.value)


def test_action_load_actions_take_no_flags_or_positions() -> None:
    """Flags (``+stealth``) and positions (``to X,Y``) belong to the Action Point module (seed
    004); in the Action Load module the engine refuses them and changes nothing."""
    enc = _party()
    before = (enc.to_json(), enc.log_lines())
    for line, message in (
        ("aria: strike goblin with dagger +fast", "strike takes no +fast"),
        ("aria: strike goblin with dagger to 3,4", "strike takes no a position"),
    ):
        with pytest.raises(InvalidActionError) as caught:
            enc.apply(parse_command(line))
        assert message in str(caught.value)
    assert (enc.to_json(), enc.log_lines()) == before


def test_why_illegal_is_none_for_legal_and_preview_matches() -> None:
    """R11/R12: ``why_illegal`` is None for a legal action; ``preview`` gives its pool and the Load
    after it without changing anything, and refuses an illegal one like ``apply``."""
    enc = _party()
    run(enc, "aria: prepare")
    command = Act("aria", "strike", ("goblin",), ("sword",), advantages=())
    assert enc.why_illegal(command) is None
    state = enc.to_json()
    preview = enc.preview(command)
    assert preview["expression"] == "3d4+1d8"
    assert preview["resources_after"] == {"load": 2}
    assert preview["gate"] == "Finesse 4 − Load 1 = 3 ≥ cost 1"
    assert enc.to_json() == state
    run(enc, "aria: prepare", "aria: prepare")
    with pytest.raises(IllegalActionError, match="Finesse 4 − Load 3 = 1 < cost 2"):
        enc.preview(Act("aria", "heavy-blow", ("goblin",), ("sword",)))
