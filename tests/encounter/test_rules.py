"""The Action Load module's rules and options, one ruling at a time (R10–R21, R30 ties).

Each test cites the ruling it checks; several also quote seed 000/001.

Tests of ``economy/load/actions.py``, ``encounter/state.py`` (tests/test_layout.py).
"""

from __future__ import annotations

import pytest

from caltrop.core.commands import Act, CallRoll, EndTurn, Pass, RollDice, parse_command
from caltrop.core.model import CreatureDef, Initiative, LoadReset, Ruleset, Side
from caltrop.core.pool import Revision
from caltrop.encounter import CHANCE, TERMINAL, Encounter, RollKind
from caltrop.errors import IllegalActionError
from tests.encounter.builders import (
    DAGGER,
    HEAVY,
    HELP,
    HINDER,
    PICK_LOCK,
    PREPARE,
    RIPOSTE,
    STRIKE,
    SWORD,
    begin,
    creature,
    definition,
    health,
    load,
    npc,
    pending_expr,
    ruleset,
    run,
)


def act(line: str) -> Act:
    command = parse_command(line)
    assert isinstance(command, Act)
    return command


# -- R10: turn start ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("exhaustion", "load_buffer", "expected"),
    [(0, 0, 0), (0, 1, -1), (0, 3, -3), (2, 0, 2), (2, 1, 1), (1, 3, -2)],
)
def test_r10_turn_start_load_is_exhaustion_minus_load_buffer(
    exhaustion: int, load_buffer: int, expected: int
) -> None:
    """R10: "Load := Exhaustion − Load Buffer (both default 0)." Seed 000: "Reset your Action
    Load to 0 - your Load Buffer (with Exhaustion: Exhaustion level - Load Buffer)"."""
    a = creature("a", load_buffer=load_buffer, exhaustion=exhaustion, actions=(PREPARE,))
    enc = begin(a, npc("b"))
    assert load(enc, "a") == expected
    run(enc, "a: prepare", "a: end turn")
    assert load(enc, "a") == expected + 1
    run(enc, "b: end turn")
    assert load(enc, "a") == expected  # reset at the start of a's next turn


def test_r10_reset_happens_at_own_turn_start_not_at_others() -> None:
    """R10/R19 ``turn``: only the owner's Load resets when its turn starts."""
    a = creature("a", actions=(PREPARE,))
    b = npc("b", actions=(PREPARE,))
    c = npc("c", actions=(PREPARE,))
    enc = begin(a, b, c)
    run(enc, "a: prepare", "a: end turn")
    run(enc, "b: prepare", "b: end turn")
    assert (load(enc, "a"), load(enc, "b"), load(enc, "c")) == (1, 1, 0)


# -- R11: the gate -----------------------------------------------------------------------------


@pytest.mark.parametrize("prepares", [0, 1, 2, 3, 4])
def test_r11_gate_identical_on_own_turn_and_others_turns(prepares: int) -> None:
    """R11: "This gate is the same on a creature's own turn and on other turns." Seed 000: "This
    is the one "can I act?" rule everywhere in the handbook—on your turn, on other turns, for
    reactions, and for Team Actions." The same reaction attack at the same Load: on a's own turn
    and on b's pending roll, allowed (or refused with the same arithmetic) alike."""
    riposte2 = Act("a", "riposte", ("b",))
    a = creature("a", finesse=4, health=100, actions=(PREPARE, RIPOSTE))
    b = npc("b", health=100, actions=(STRIKE,))

    own = begin(a, b)
    for _ in range(prepares):
        run(own, "a: prepare")
    on_own_turn = own.why_illegal(riposte2)

    other = begin(a, b, ruleset=ruleset(load_reset=LoadReset.TURN))
    for _ in range(prepares):
        run(other, "a: prepare")
    run(other, "a: end turn", "b: strike a")
    assert other.pending_roll is not None
    assert other.pending_roll.roller == other.index("b")
    on_other_turn = other.why_illegal(riposte2)
    assert load(own, "a") == load(other, "a") == prepares
    assert on_own_turn == on_other_turn
    assert (on_own_turn is None) == (4 - prepares >= 1)


@pytest.mark.parametrize("advantages", ["", " +adv:x", " +dis:x", " +adv:x +adv:y +dis:z"])
def test_r11_advantage_never_changes_the_gate(advantages: str) -> None:
    """R11: "Advantage and disadvantage never change the gate." Seed 000: "Advantage and
    Disadvantage never change whether you can act—only the size of the dice pool"."""
    a = creature("a", finesse=4, actions=(PREPARE, HEAVY))
    enc = begin(a, npc("b"))
    run(enc, "a: prepare", "a: prepare")  # Finesse 4 − Load 2 = 2 ≥ 2
    assert enc.is_legal(act("a: heavy-blow b" + advantages))
    run(enc, "a: prepare")  # Finesse 4 − Load 3 = 1 < 2
    assert enc.why_illegal(act("a: heavy-blow b" + advantages)) == (
        "A cannot heavy-blow: Finesse 4 − Load 3 = 1 < cost 2"
    )


# -- R12: the pool -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("load_buffer", "prepares", "advantages", "expected"),
    [
        (0, 0, "", "5d4+1d8"),
        (2, 0, "", "5d4+1d8"),  # Load −2: "A negative Load never adds dice."
        (2, 1, "", "5d4+1d8"),  # Load −1
        (0, 2, "", "3d4+1d8"),  # Aspect − Load
        (0, 2, " +adv:a +dis:b +dis:c", "2d4+1d8"),
        (0, 4, " +dis:a +dis:b", "1d4+1d8"),  # minimum 1d4; the 1d8 stays (R3)
        (3, 0, " +adv:a", "6d4+1d8"),
    ],
)
def test_r12_pool(load_buffer: int, prepares: int, advantages: str, expected: str) -> None:
    """R12: "d4 count = Aspect − max(0, Load) + NetAdvantage, minimum 1 (R3); then extra dice.
    A negative Load never adds dice." Seed 000: "Start with: `Aspect – max(0, Action Load)`"."""
    a = creature(
        "a", finesse=5, load_buffer=load_buffer, actions=(PREPARE, STRIKE), weapons=(SWORD,)
    )
    enc = begin(a, npc("b", evasion=99))
    for _ in range(prepares):
        run(enc, "a: prepare")
    run(enc, "a: strike b" + advantages)
    assert pending_expr(enc) == expected
    before = load(enc, "a")
    run(enc, "roll")
    assert load(enc, "a") == before + 1  # "After resolving, Load += Cost."


def test_r12_pool_uses_load_at_roll_time_and_action_extra_dice() -> None:
    """R12 and seed 000 step 4: "Add any extra dice (such as a weapon's 1d8) as required by the
    action" — an action's own extra dice come after the weapon's."""
    from dataclasses import replace

    from caltrop.dice import parse

    flaming = replace(STRIKE, name="flame-strike", extra=parse("1d6"))
    a = creature("a", finesse=3, actions=(flaming,), weapons=(DAGGER,))
    enc = begin(a, npc("b", evasion=99))
    run(enc, "a: flame-strike b")
    assert pending_expr(enc) == "3d4+1d4+1d6"


# -- R13: one Load per creature ----------------------------------------------------------------


def test_r13_one_load_shared_by_all_aspects() -> None:
    """R13: "One Load per creature, shared by all Aspects. Different Aspects can be used in one
    turn." A Control team action raises the Load that gates and sizes a later Finesse attack."""
    a = creature("a", finesse=4, control=4, health=100, actions=(STRIKE, HELP, PREPARE))
    ally = creature("ally", health=100, actions=(STRIKE,))
    b = npc("b", health=100, evasion=99, actions=(STRIKE,))
    enc = begin(ally, a, b)
    run(enc, "ally: strike b", "a: help", "a: pass", "roll")
    assert load(enc, "a") == 1
    # a's turn resets its Load (R10); use Control (help) then Finesse on one Load
    run(enc, "ally: end turn")
    assert load(enc, "a") == 0
    run(enc, "a: prepare", "a: strike b")
    assert pending_expr(enc) == "3d4+1d4"
    assert enc.snapshot()["participants"][1]["load"] == 1
    assert "control" not in enc.snapshot()["participants"][1]


# -- R14: source keys --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("declared", "helpers", "net"),
    [
        ("", [], 0),
        (" +adv:torch", [], 1),
        (" +adv:torch", ["help"], 2),  # different keys stack
        (" +adv:help", ["help"], 1),  # the declarer's key and the helper's key are the same
        (" +dis:dark", ["help"], 0),
        (" +adv:x +dis:x", [], 0),
    ],
)
def test_r14_source_keys(declared: str, helpers: list[str], net: int) -> None:
    """R14: "Within one action, a source key counts once, whoever applies it and however many
    times; different keys stack." """
    a = creature("a", finesse=3, health=50, actions=(STRIKE,))
    h = creature("h", control=5, health=50, actions=(HELP,))
    enc = begin(a, h, npc("b", evasion=99, health=50))
    run(enc, "a: strike b" + declared)
    for name in helpers:
        run(enc, f"h: {name}")
    assert enc.pending_roll is not None
    assert enc.pending_roll.net_advantage == net
    assert pending_expr(enc) == f"{max(1, 3 + net)}d4+1d4"


def test_r14_boon_and_team_action_with_the_same_key_count_once() -> None:
    """R14: "whoever applies it": Watch My Back given before the roll and again as a team action
    on the pending roll is one source."""
    from tests.encounter.builders import WATCH_MY_BACK, WATCH_MY_BACK_TEAM

    g = creature("g", health=50, actions=(WATCH_MY_BACK, WATCH_MY_BACK_TEAM))
    a = creature("a", finesse=3, health=50, actions=(STRIKE,))
    enc = begin(g, a, npc("b", evasion=99, health=50))
    run(enc, "g: watch-my-back a", "g: end turn", "a: strike b", "g: cover-me")
    assert pending_expr(enc) == "4d4+1d4"


# -- R15: team actions and the reaction window -------------------------------------------------


def test_r15_roll_waits_in_the_reaction_window() -> None:
    """R15: "The engine must let a roll stay pending long enough for others to declare team
    actions and reactions before it is rolled." Others are asked in turn order after the roller;
    the roll is a chance point only when all have reacted or passed."""
    a = creature("a", health=50, actions=(STRIKE,))
    h = creature("h", control=3, health=50, actions=(HELP,))
    b = npc("b", control=3, health=50, evasion=99, actions=(STRIKE, HINDER))
    c = npc("c", health=50, actions=(STRIKE,))  # no reaction: never asked
    enc = begin(a, h, b, c)
    run(enc, "a: strike b")
    assert enc.current() == "h"
    assert enc.snapshot()["pending"][0]["expression"] == "4d4+1d4"
    assert list(enc.legal_actions()) == [Act("h", "help"), Pass("h")]
    run(enc, "h: help")
    assert load(enc, "h") == 1  # "They use the gate (R11) and raise the actor's Load."
    assert enc.current() == "b"  # R47: a second help would add nothing, so h is not asked again
    run(enc, "h: pass", "b: hinder")
    assert enc.current() == CHANCE  # b's hinder is on the roll: nothing more for b to add (R47)
    run(enc, "b: pass")
    assert enc.current() == CHANCE
    assert pending_expr(enc) == "4d4+1d4"  # +help −hinder
    assert enc.legal_actions()
    assert list(enc.legal_actions()) == [RollDice()]
    [outcome] = run(enc, "roll")
    assert outcome is not None
    assert outcome.expression == "4d4+1d4"
    assert not enc.pending
    assert enc.current() == "a"


def test_r15_team_action_refusals() -> None:
    """R15: a team action works only on a pending roll of an ally (help) or opponent (hinder),
    and uses the gate (R11)."""
    a = creature("a", health=50, actions=(STRIKE, HELP, HINDER))
    h = creature("h", control=1, health=50, actions=(HELP, HINDER))
    enc = begin(a, h, npc("b", health=50))
    with pytest.raises(IllegalActionError, match="is a team action"):
        enc.apply(act("a: help"))
    run(enc, "a: strike b")
    with pytest.raises(IllegalActionError, match="works on an opponent's roll"):
        enc.apply(act("h: hinder"))
    with pytest.raises(IllegalActionError, match="acts on the pending roll, which is A's"):
        enc.apply(Act("h", "help", ("b",)))
    run(enc, "h: help")
    with pytest.raises(IllegalActionError, match=r"Control 1 − Load 1 = 0 < cost 1"):
        enc.apply(act("h: help"))


def test_r15_non_reactions_wait_for_their_turn() -> None:
    """R15, R11 and seed 000 "Acting on Other Turns": "The action is a valid response (e.g., reaction,
    counter, assist)". A non-reaction action is refused off-turn and on another's pending roll."""
    a = creature("a", health=50, actions=(STRIKE,))
    h = creature("h", health=50, actions=(STRIKE, HELP))
    enc = begin(a, h, npc("b", health=50))
    with pytest.raises(IllegalActionError, match="only in response to a pending roll"):
        enc.apply(act("h: strike b"))
    run(enc, "a: strike b")
    with pytest.raises(IllegalActionError, match="strike is not a reaction"):
        enc.apply(act("h: strike b"))


def test_r15_reaction_attack_stacks_and_resolves_first() -> None:
    """R15/seed 000: reactions "Follow the same rules as normal actions - Use the current Action
    Load - Increase the Action Load afterward". A reaction roll opens its own window on top of the
    first; it resolves first, then the first roll is rolled."""
    a = creature("a", health=50, evasion=99, actions=(STRIKE,))
    b = npc("b", finesse=4, health=50, evasion=99, load_buffer=0, actions=(STRIKE, RIPOSTE))
    enc = begin(a, b)
    run(enc, "a: strike b", "b: riposte a")
    assert [p.roller for p in enc.pending] == [0, 1]
    assert pending_expr(enc) == "4d4"  # riposte: no weapon
    assert enc.current() == CHANCE  # a cannot react to its opponent's riposte
    run(enc, "roll")
    assert load(enc, "b") == 1  # raised after resolving
    assert enc.current() == "b"  # the window of a's strike again: b may riposte once more
    run(enc, "b: riposte a")
    assert pending_expr(enc) == "3d4"  # "Use the current Action Load"
    run(enc, "roll", "b: pass", "roll")
    assert load(enc, "a") == 1
    assert load(enc, "b") == 2


# -- R16: attacks, checks, down, the end -------------------------------------------------------


@pytest.mark.parametrize(
    ("faces", "damage"), [("1,1,1,1,1", 0), ("2,2,2,2,1", 0), ("4,4,4,4,4", 11)]
)
def test_r16_damage_is_total_minus_evasion_never_negative(faces: str, damage: int) -> None:
    """R16: "Attacks deal max(0, total − target's Evasion) to the target's Health." """
    a = creature("a", actions=(STRIKE,))
    enc = begin(a, npc("b", health=30, evasion=9))
    [_, outcome] = run(enc, "a: strike b", f"roll {faces}")
    assert outcome is not None
    assert outcome.damage == damage
    assert health(enc, "b") == 30 - damage


@pytest.mark.parametrize(
    ("faces", "success"), [("3,3,3,1", True), ("3,3,2,1", False), ("4,4,4,4", True)]
)
def test_r16_check_meets_or_beats_the_dc(faces: str, success: bool) -> None:
    """R16: "A check against a DC succeeds iff total ≥ DC." Seed 000: "The action succeeds if the
    total meets or beats the DC"."""
    a = creature("a", actions=(PICK_LOCK,))
    enc = begin(a, npc("b"))
    [_, outcome] = run(enc, "a: pick-lock", f"roll {faces}")
    assert outcome is not None
    assert outcome.dc == 10
    assert outcome.success is success
    [_, outcome] = run(enc, "a: pick-lock dc 16", "roll 4,4,4")  # the command's DC wins
    assert outcome is not None
    assert outcome.dc == 16
    assert outcome.success is False


def test_r16_down_at_zero_health_skipped_and_the_encounter_ends() -> None:
    """R16: "A creature at 0 Health is down." A downed creature takes no turn and cannot act;
    the encounter ends when one side is all down, and that side loses."""
    a = creature("a", finesse=4, health=50, actions=(STRIKE,))
    g1 = npc("g1", health=3, actions=(STRIKE,))
    g2 = npc("g2", health=3, actions=(STRIKE,))
    enc = begin(a, g1, g2)
    [_, outcome] = run(enc, "a: strike g1", "roll 4,4,4,4,4")
    assert outcome is not None
    assert outcome.downed
    assert outcome.damage == 20
    assert health(enc, "g1") == 0
    assert enc.down[1]
    assert not enc.over
    with pytest.raises(IllegalActionError, match="G1 is down"):
        enc.apply(act("g1: strike a"))
    with pytest.raises(IllegalActionError, match="G1 is down"):
        enc.apply(act("a: strike g1"))
    run(enc, "a: end turn")
    assert enc.turn_owner == "g2"  # g1's turn is skipped
    run(enc, "g2: end turn")
    assert enc.turn_owner == "a"
    assert enc.round == 2
    run(enc, "a: strike g2", "roll 1,1,1,1,1")
    assert enc.over
    assert enc.current() == TERMINAL
    assert enc.turn_owner is None
    assert enc.winner is Side.PC
    assert enc.returns() == {"pc": 1.0, "npc": 0.0}
    assert enc.snapshot()["winner"] == "pc"


def test_r16_turn_owner_downed_by_a_reaction_loses_its_turn() -> None:
    """R16: a turn owner downed by a reaction to its own roll goes down; its pending roll is
    dropped and the next creature's turn begins."""
    a = creature("a", health=1, actions=(STRIKE,))
    ally = creature("ally", health=50, actions=(STRIKE,))
    b = npc("b", health=50, evasion=99, actions=(STRIKE, RIPOSTE))
    enc = begin(a, ally, b)
    run(enc, "a: strike b", "b: riposte a", "roll 1,1,1,1")
    assert enc.down[0]
    assert not enc.pending
    assert enc.current() == "ally"
    assert enc.turn_owner == "ally"


def test_r16_turn_owner_downed_under_a_stack_of_reactions() -> None:
    """R16 (bug found by these tests): the owner goes down while another creature's reaction is
    still pending above its own roll; when that last roll resolves, the downed owner's turn must
    end (before the fix ``current()`` named the downed owner, who had no legal action)."""
    a = creature("a", health=1, actions=(STRIKE, RIPOSTE))
    ally = creature("ally", health=50, evasion=99, actions=(STRIKE, RIPOSTE))
    g1 = npc("g1", health=50, evasion=99, actions=(STRIKE, RIPOSTE))
    g2 = npc("g2", health=50, evasion=99, actions=(STRIKE, RIPOSTE))
    enc = begin(a, ally, g1, g2)
    run(enc, "a: strike g1", "g1: riposte ally", "g2: riposte a", "roll 1,1,1,1")
    assert enc.down[0]
    assert [p.roller for p in enc.pending] == [2]  # a's strike dropped, g1's riposte remains
    run(enc, "g2: pass", "roll 1,1,1,1")  # ally is not downed
    assert not enc.pending
    assert enc.turn_owner == "ally"
    assert enc.current() == "ally"
    assert list(enc.legal_actions())


def test_r16_creature_down_at_start_and_one_sided_encounter() -> None:
    """R16: a creature listed at 0 Health starts down; with one side only standing, the
    encounter is over at once."""
    enc = begin(creature("a"), npc("b", health=0))
    assert enc.over
    assert enc.winner is Side.PC
    assert enc.current() == TERMINAL
    assert enc.round == 0


def test_gm_ends_the_encounter_undecided() -> None:
    """R16 (the end of an encounter): the GM may also end it (a side yields or flees): no winner,
    returns 0.5 each, nothing pending."""
    enc = begin(creature("a"), npc("b"))
    with pytest.raises(IllegalActionError, match="not over"):
        enc.returns()
    run(enc, "a: strike b", "gm: end encounter")
    assert enc.over
    assert enc.winner is None
    assert not enc.pending
    assert enc.returns() == {"pc": 0.5, "npc": 0.5}


# -- R17: GM-called rolls ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("aspect", "prepares", "flag", "expected"),
    [
        (4, 3, "", "4d4"),  # default: Load does not count
        (4, 3, " +no-count-load", "4d4"),
        (4, 3, " +count-load", "1d4"),
        (4, 2, " +count-load +adv:help", "3d4"),
        (-3, 0, "", "1d4"),  # "at least 1d4 even for a negative Aspect"
        (-3, 0, " +adv:a +adv:b", "1d4"),  # −3 + 2 = −1 → 1
        (2, 4, " +count-load +dis:dark", "1d4"),
    ],
)
def test_r17_gm_called_roll_pool(aspect: int, prepares: int, flag: str, expected: str) -> None:
    """R17: "GM-called rolls roll max(1, Aspect − (max(0, Load) if Load counts, else 0) +
    NetAdvantage) d4s: at least 1d4 even for a negative Aspect. Whether Load counts is the GM's
    choice per roll (default: it does not). They do not raise Load." Seed 000: "GM-initiated
    rolls may or may not consider Action Load — this is up to the GM." """
    a = creature("a", aspects={"Luck": aspect, "Finesse": 9}, actions=(PREPARE,))
    enc = begin(a, npc("b"))
    for _ in range(prepares):
        run(enc, "a: prepare")
    run(enc, f"gm: call a luck dc 3{flag}")  # Aspect names match case-insensitively
    assert pending_expr(enc) == expected
    assert enc.pending_roll is not None
    assert enc.pending_roll.aspect == "Luck"
    [outcome] = run(enc, "roll")
    assert outcome is not None
    assert outcome.kind is RollKind.GM_CALL
    assert outcome.success is (outcome.total >= 3)
    assert load(enc, "a") == prepares  # no Load raised
    assert enc.current() == "a"  # the turn goes on


def test_r17_ruleset_default_can_count_load_and_the_gm_can_override() -> None:
    """R17 and the ruleset option ``gm_roll_counts_load`` (bug found by these tests: the option
    had no effect). With the option on, a plain call counts Load; ``+no-count-load`` opts out."""
    a = creature("a", finesse=4, actions=(PREPARE,))
    enc = begin(a, npc("b"), ruleset=ruleset(gm_roll_counts_load=True))
    run(enc, "a: prepare", "a: prepare", "gm: call a Finesse")
    assert pending_expr(enc) == "2d4"
    run(enc, "roll", "gm: call a Finesse +no-count-load")
    assert pending_expr(enc) == "4d4"
    assert str(CallRoll("a", "Finesse", count_load=False)) == "gm: call a Finesse +no-count-load"
    assert parse_command("gm: call a Finesse +no-count-load") == CallRoll(
        "a", "Finesse", None, False
    )
    assert parse_command("gm: call a Finesse") == CallRoll("a", "Finesse")


def test_r17_gm_call_needs_no_gate_and_is_not_a_turn() -> None:
    """R17: a GM-called roll is not an action: no gate (it is allowed at any Load, on anyone, on
    anyone's turn) and no Load."""
    from dataclasses import replace

    a = creature("a", finesse=1, control=5, actions=(replace(PREPARE, aspect="Control"),))
    enc = begin(a, npc("b"))
    run(enc, "a: prepare", "a: prepare")  # Load 2 > Finesse 1
    run(enc, "gm: call b Finesse", "roll", "gm: call a Finesse +count-load", "roll")
    assert (load(enc, "a"), load(enc, "b")) == (2, 0)
    assert enc.turn_owner == "a"


# -- R18: ending a turn early ------------------------------------------------------------------


def test_r18_end_turn_early_keeps_the_gate_for_reactions() -> None:
    """R18: "Ending a turn early is always allowed; what is left of the gate is available for
    reactions until the creature's next reset." Seed 000: "You can end your turn at any time, even
    if you have unused actions. Doing so: May allow you to take a Team Action later; Reserves dice
    for reactions or interrupts"."""
    a = creature(
        "a", finesse=4, control=2, health=50, evasion=99, load_buffer=1, actions=(STRIKE, HINDER)
    )
    b = npc("b", finesse=9, health=50, evasion=99, actions=(STRIKE,))

    def hinders_on_b_turn(first: str) -> int:
        enc = begin(a, b)
        if first:
            run(enc, first, "roll")
        assert EndTurn("a") in enc.legal_actions()  # allowed, actions left or not
        run(enc, "a: end turn")
        count = 0
        for _ in range(5):
            run(enc, "b: strike a")
            if enc.current() == "a":
                run(enc, "a: hinder", "a: pass")
                count += 1
            run(enc, "roll")
        assert enc.round == 1
        assert enc.turn_owner == "b"
        return count

    assert hinders_on_b_turn("") == 3  # Control 2 − Load −1, 0, 1 ≥ 1: three team actions
    assert hinders_on_b_turn("a: strike b") == 2  # one action on its turn leaves two


def test_r18_end_turn_refused_while_a_roll_is_pending_or_off_turn() -> None:
    """R18 is about the owner's own turn: ending it is refused for another creature and while a
    roll is still pending (it must be rolled first)."""
    enc = begin(creature("a"), npc("b"))
    with pytest.raises(IllegalActionError, match="it is A's turn, not B's"):
        enc.apply(EndTurn("b"))
    run(enc, "a: strike b")
    with pytest.raises(IllegalActionError, match="a roll is pending"):
        enc.apply(EndTurn("a"))


# -- R19: load_reset round ---------------------------------------------------------------------


def test_r19_round_reset_everyone_at_round_start_not_at_turn_start() -> None:
    """R19: "``round``: R10 for every creature at the start of each round and not at turn starts
    (the text says "to zero"; Caltrop applies the same Exhaustion − Load Buffer value". Seed 000:
    "reset everyone's Action Load to zero at the beginning of each round. This will affect when
    and by how much creatures … can take reactions." """
    a = creature("a", health=50, actions=(STRIKE,))
    h = creature("h", control=3, load_buffer=1, health=50, actions=(HELP, PREPARE))
    b = npc("b", health=50, evasion=99, exhaustion=2, actions=(PREPARE,))
    by_mode = {}
    for mode in LoadReset:
        enc = begin(a, h, b, ruleset=ruleset(load_reset=mode))
        assert (load(enc, "a"), load(enc, "h"), load(enc, "b")) == (0, -1, 2)
        run(enc, "a: strike b", "h: help", "h: pass", "roll", "a: end turn")
        by_mode[mode] = load(enc, "h")  # h's turn has begun
        run(enc, "h: end turn", "b: prepare")
        assert load(enc, "b") == 3
        run(enc, "b: end turn")
        assert enc.round == 2
        if mode is LoadReset.ROUND:
            assert (load(enc, "a"), load(enc, "h"), load(enc, "b")) == (0, -1, 2)
        else:
            # h was reset when its own turn began; b keeps its Load until its next turn
            assert (load(enc, "a"), load(enc, "h"), load(enc, "b")) == (0, -1, 3)
    assert by_mode[LoadReset.TURN] == -1  # reset when h's turn started
    assert by_mode[LoadReset.ROUND] == 0  # not reset: the help still counts (−1 + 1)


def test_r19_legacy_round_reset_is_zero() -> None:
    """R19 with R20: a round reset in the legacy revision sets Load to 0."""
    h = creature("h", load_buffer=2, exhaustion=1, actions=(PREPARE,))
    enc = begin(h, npc("b"), ruleset=ruleset(Revision.LEGACY, LoadReset.ROUND))
    assert load(enc, "h") == 0
    run(enc, "h: prepare", "h: end turn", "b: end turn")
    assert load(enc, "h") == 0


# -- R20: legacy --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("finesse", "prepares", "cost", "current_ok", "legacy_ok"),
    [
        (3, 3, 0, True, False),  # Aspect − Load = 0: current allows a 0-cost action, legacy not
        (3, 2, 1, True, True),
        (3, 2, 2, False, False),
        (1, 0, 0, True, True),
        (0, 0, 0, True, False),  # a 0 Aspect can never act in legacy
    ],
)
def test_r20_legacy_gate_strictly_positive(
    finesse: int, prepares: int, cost: int, current_ok: bool, legacy_ok: bool
) -> None:
    """R20: "an action is allowed iff Aspect − Load > 0 and Aspect − Load ≥ Cost"; R11 (current):
    Aspect − Load ≥ Cost."""
    from dataclasses import replace

    probe = replace(PREPARE, name="probe", aspect="Finesse", cost=cost)
    pump = replace(PREPARE, aspect="Control")
    a = creature("a", finesse=finesse, control=9, actions=(pump, probe))
    for revision, ok in ((Revision.CURRENT, current_ok), (Revision.LEGACY, legacy_ok)):
        enc = begin(a, npc("b"), ruleset=ruleset(revision))
        for _ in range(prepares):
            run(enc, "a: prepare")
        assert enc.is_legal(act("a: probe")) is ok, revision


def test_r20_legacy_fixed_pool_still_gated() -> None:
    """R20: "An action may name a fixed pool instead …: it rolls that pool whatever the Load, and
    is still gated." With advantage (R14 still applies) it grows; when the gate closes it is
    refused."""
    from tests.encounter.builders import JAB

    a = creature("a", finesse=2, actions=(JAB, PREPARE))
    enc = begin(a, npc("b", evasion=99), ruleset=ruleset(Revision.LEGACY))
    run(enc, "a: prepare", "a: jab b +adv:torch")
    assert pending_expr(enc) == "2d4"
    run(enc, "roll")
    assert enc.why_illegal(act("a: jab b")) == (
        "A cannot jab: Finesse 2 − Load 2 = 0 is not more than 0 (legacy rule, R20)"
    )


# -- R21 and R30: turn order -------------------------------------------------------------------


def test_r21_gm_order_is_the_listed_order() -> None:
    """R21: "default is the order the GM sets" — the participants' order in the definition."""
    enc = begin(npc("z"), creature("y"), npc("x"))
    assert enc.snapshot()["order"] == ["z", "y", "x"]
    assert enc.turn_owner == "z"
    assert enc.round == 1
    run(enc, "z: end turn", "y: end turn", "x: end turn")
    assert enc.turn_owner == "z"
    assert enc.round == 2


def _initiative_encounter(*participants: CreatureDef) -> Encounter:
    rs = Ruleset(initiative=Initiative.CHECK, initiative_aspect="finesse")
    return Encounter.begin(definition(*participants, ruleset=rs), seed=0)


def test_r21_initiative_check_orders_by_total_with_r30_ties() -> None:
    """R21: "option ``initiative: check`` uses the seed 004 initiative procedure with a named
    Aspect." R30: "Order by total, highest first. Ties: player character beats NPC; between player
    characters, the order they choose (default: the order they joined); between NPCs, the GM's
    order (default: higher Speed score, then joined order)." """
    n1 = npc("n1", finesse=1)
    p1 = creature("p1", finesse=2)
    n2 = npc("n2", finesse=3)
    p2 = creature("p2", finesse=2)
    n3 = npc("n3", finesse=1)
    top = npc("top", finesse=2)
    enc = _initiative_encounter(n1, p1, n2, p2, n3, top)
    assert enc.current() == CHANCE
    assert enc.round == 0
    assert enc.turn_owner is None
    rolled = []
    faces = {"n1": "4", "p1": "2,2", "n2": "1,1,2", "p2": "1,3", "n3": "4", "top": "4,4"}
    while enc.pending:
        p = enc.pending_roll
        assert p is not None
        assert p.kind is RollKind.INITIATIVE
        who = enc.creatures[p.roller]
        rolled.append(who.id)
        assert pending_expr(enc) == f"{max(1, who.aspects['Finesse'])}d4"
        run(enc, f"roll {faces[who.id]}")
    assert rolled == ["n1", "p1", "n2", "p2", "n3", "top"]  # joined order
    # totals: top 8; everyone else 4. PCs first in joined order, then NPCs by Finesse, then
    # joined order (n1 before n3, both Finesse 1).
    assert enc.snapshot()["order"] == ["top", "p1", "p2", "n2", "n1", "n3"]
    assert enc.round == 1
    assert enc.turn_owner == "top"
    assert [p["initiative"] for p in enc.snapshot()["participants"]] == [4, 4, 4, 4, 4, 8]
    for cid in ["top", "p1", "p2", "n2", "n1", "n3"]:
        run(enc, f"{cid}: end turn")
    assert enc.round == 2
    assert enc.snapshot()["order"][0] == "top"


def test_r21_nothing_but_rolls_during_initiative() -> None:
    """R21 (bug found by these tests: a Pass on an initiative roll was accepted and logged):
    while initiative is being rolled nobody acts, passes, ends a turn or is called."""
    enc = _initiative_encounter(creature("a"), npc("b"))
    before = (enc.to_json(), enc.log_lines())
    for command in (
        act("a: strike b"),
        Pass("a"),
        Pass("b"),
        EndTurn("a"),
        CallRoll("a", "Finesse"),
    ):
        with pytest.raises(IllegalActionError):
            enc.apply(command)
        assert (enc.to_json(), enc.log_lines()) == before
    assert list(enc.legal_actions()) == [RollDice()]
    assert not list(enc.legal_actions("a"))
