"""The rulings added in the second reading of the Action Load text: R46 (committed cost) and R47
(allies are others), and the error kinds of every refusal.

R46: "The pool's base (Aspect − max(0, Load)) is fixed when the action is declared … For every
further gate check, a creature's Load counts the costs of its own declared actions that are still
pending, so nested reaction windows cannot take a creature past the R11 cap."

R47: "An advantage or team action 'to an ally' targets another creature of the same side, never
the actor itself. One creature applying the same source key twice to one roll is refused ('adds
nothing'); two creatures each using the same feature may (each pays; +1 in all, R14)."
"""

from __future__ import annotations

import pytest

from caltrop.core.commands import Act, Pass, parse_command
from caltrop.core.model import ActionDef, ActionKind, Grant
from caltrop.errors import IllegalActionError, InvalidActionError
from tests.encounter.builders import (
    HELP,
    HINDER,
    STRIKE,
    WATCH_MY_BACK,
    begin,
    creature,
    load,
    npc,
    pending_expr,
    run,
)

HEAVY = ActionDef("heavy", "Finesse", 2, ActionKind.ATTACK)
COUNTER = ActionDef("counter", "Finesse", 2, ActionKind.ATTACK, reaction=True)
RIPOSTE = ActionDef("riposte", "Finesse", 1, ActionKind.ATTACK, reaction=True)


def test_r46_nested_windows_cannot_take_a_creature_past_its_gate() -> None:
    """R46: Finesse 2 declares a cost-2 action (2 − 0 ≥ 2); while it is pending, its own Load
    counts that cost, so a cost-2 reaction in a nested window is refused: 2 − (0 + 2) < 2."""
    a = creature("a", finesse=2, actions=(HEAVY, COUNTER), weapons=())
    b = npc("b", finesse=4, actions=(RIPOSTE,), weapons=())
    enc = begin(a, b)
    run(enc, "a: heavy b", "b: riposte a")
    assert enc.pending_roll is not None
    assert enc.pending_roll.roller == 1
    with pytest.raises(IllegalActionError, match=r"Load 0 \+ 2 committed to a pending roll, R46"):
        enc.apply(parse_command("a: counter b"))
    assert Act("a", "counter", ("b",)) not in enc.legal_actions("a")
    assert list(enc.legal_actions("a")) == [Pass("a")]


def test_r46_the_pool_base_is_fixed_at_declaration() -> None:
    """R46: a declared 4d4 stays 4d4 when a nested reaction of the same creature resolves first
    and raises its Load (step 6) before the outer roll: only Net Advantage may change it."""
    a = creature("a", finesse=4, actions=(HEAVY, RIPOSTE), weapons=())
    b = npc("b", finesse=4, health=30, actions=(RIPOSTE,), weapons=())
    enc = begin(a, b)
    run(enc, "a: heavy b")
    assert pending_expr(enc) == "4d4"
    run(enc, "b: riposte a", "a: riposte b")  # gate: 4 − (0 + 2) = 2 ≥ 1
    run(enc, "b: pass", "roll")  # a's riposte resolves: Load 0 → 1
    assert load(enc, "a") == 1
    run(enc, "a: pass", "roll")  # b's riposte resolves
    assert pending_expr(enc) == "4d4"  # not 3d4: the base was fixed when it was declared
    run(enc, "b: pass", "roll")
    assert load(enc, "a") == 3  # Load still rises as each action resolves (step 6)


def test_r47_an_ally_boon_never_targets_the_actor_itself() -> None:
    """R47: "'to an ally' targets another creature of the same side, never the actor itself" —
    ``x: watch-my-back x`` is refused, and never offered."""
    x = creature("x", actions=(STRIKE, WATCH_MY_BACK))
    y = creature("y", actions=(STRIKE,))
    enc = begin(x, y, npc("g"))
    before = enc.to_json()
    with pytest.raises(IllegalActionError, match="R47"):
        enc.apply(parse_command("x: watch-my-back x"))
    assert enc.to_json() == before
    offered = [c for c in enc.legal_actions("x") if isinstance(c, Act)]
    assert Act("x", "watch-my-back", ("y",)) in offered
    assert all(c.targets != ("x",) for c in offered)


def test_r47_one_creature_applies_a_source_once_two_creatures_may() -> None:
    """R47: the same creature helping twice "adds nothing" and is refused (not offered); two
    creatures with the same feature each pay and give +1 in all (R14)."""
    a = creature("a", control=4, actions=(STRIKE, HELP))
    b = creature("b", control=4, actions=(STRIKE, HELP))
    c = creature("c", control=4, actions=(STRIKE, HELP))
    enc = begin(a, b, c, npc("g", actions=(STRIKE, HINDER)))
    run(enc, "a: strike g", "b: help")
    assert load(enc, "b") == 1
    before = enc.to_json()
    with pytest.raises(IllegalActionError, match=r"already applied help to this roll.*R47"):
        enc.apply(parse_command("b: help"))
    assert enc.to_json() == before
    assert Act("b", "help") not in enc.legal_actions("b")
    assert enc.current() == "c"  # b has nothing left to add: the window moves on
    run(enc, "c: help")
    assert load(enc, "c") == 1  # c pays too …
    assert pending_expr(enc) == "5d4+1d4"  # … but one source counts once: +1 in all


def test_r47_the_same_source_twice_in_one_command_is_malformed() -> None:
    with pytest.raises(InvalidActionError, match=r"\+adv:torch twice"):
        parse_command("a: strike g +adv:torch +adv:torch")


def test_team_actions_still_help_an_ally_and_hinder_a_foe() -> None:
    """R15 is unchanged by R47: help goes to another of the same side, hinder to the other."""
    grant = Grant("dis", "enemy")
    hinder = ActionDef("trip", "Control", 1, ActionKind.TEAM, reaction=True, grant=grant)
    a = creature("a", actions=(STRIKE, HELP))
    b = creature("b", actions=(STRIKE, HELP))
    g = npc("g", actions=(STRIKE, hinder))
    enc = begin(a, b, g)
    run(enc, "a: strike g")
    assert Act("b", "help") in enc.legal_actions("b")
    assert Act("g", "trip") in enc.legal_actions("g")


def test_wrong_physical_dice_are_a_malformed_command() -> None:
    """R5: entered dice are checked (count and faces) before anything changes; the refusal is an
    :class:`InvalidActionError` like every malformed command (``DiceInputError`` is one)."""
    from caltrop.errors import DiceInputError

    assert issubclass(DiceInputError, InvalidActionError)
    enc = begin(creature("a", finesse=3), npc("b"))
    run(enc, "a: strike b")
    before = enc.to_json()
    for line in ("roll 1,2", "roll 1,2,3,9", "roll 0,1,1,1"):
        with pytest.raises(InvalidActionError):
            enc.apply(parse_command(line))
        assert enc.to_json() == before
