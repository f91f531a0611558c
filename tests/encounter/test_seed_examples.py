"""Every worked example of seeds 000 (current) and 001 (legacy), played through the engine.

Each test quotes the seed text it checks and cites the rulings that decide it. Dice are entered
as physical dice (R5) where the example names a total, so the numbers are the text's own.
"""

from __future__ import annotations

import pytest

from caltrop.core.commands import Act, parse_command
from caltrop.core.model import Side
from caltrop.core.pool import Revision
from caltrop.encounter import CHANCE, Encounter, RollKind
from caltrop.errors import IllegalActionError
from tests.encounter.builders import (
    PREPARE,
    STEADY,
    STRIKE,
    begin,
    creature,
    dagger_example,
    goblin_team_example,
    health,
    load,
    pending_expr,
    ruleset,
    run,
    trap_example,
    watch_my_back_example,
)


def enc_act(line: str) -> Act:
    command = parse_command(line)
    assert isinstance(command, Act)
    return command


# -- seed 000: the trap example ----------------------------------------------------------------


def test_trap_example_as_an_action_check() -> None:
    """Seed 000 (R10, R12, R14, R15): "Their Finesse value is 4 and they already acted this turn,
    so their Action Load is 0 (it started at −1 from their Load Buffer of 1) - the d4 pool is 4.
    This trap is in a darkly lit dungeon which gives Disadvantage - the d4 pool is now 3. One of
    the other characters helps by holding a torch, giving Advantage - the d4 pool is now back to 4.
    Another character assists by peering over their shoulder and giving advice, granting another
    advantage - the pool is now 5. The player will roll 5d4."
    """
    enc = Encounter.begin(trap_example(), seed=0)
    assert enc.current() == "rogue"
    assert load(enc, "rogue") == -1  # "it started at −1 from their Load Buffer of 1"
    run(enc, "rogue: prepare")  # "they already acted this turn"
    assert load(enc, "rogue") == 0  # "so their Action Load is 0"
    assert enc.preview(enc_act("rogue: disable-trap dc 12"))["expression"] == "4d4"  # "pool is 4"
    run(enc, "rogue: disable-trap dc 12 +dis:dark")
    assert pending_expr(enc) == "3d4"  # "the d4 pool is now 3"
    # R15: the roll waits in its reaction window; the torchbearer is asked first.
    assert enc.current() == "torchbearer"
    run(enc, "torchbearer: hold-torch")
    assert pending_expr(enc) == "4d4"  # "the d4 pool is now back to 4"
    run(enc, "torchbearer: pass")
    assert enc.current() == "sage"
    run(enc, "sage: advise")
    assert pending_expr(enc) == "5d4"  # "the pool is now 5. The player will roll 5d4."
    run(enc, "sage: pass")
    assert enc.current() == CHANCE
    [outcome] = run(enc, "roll 4,3,2,3,1")
    assert outcome is not None
    assert outcome.expression == "5d4"
    assert outcome.faces == (4, 3, 2, 3, 1)
    assert outcome.total == 13
    assert outcome.success is True  # R16: meets or beats the DC
    assert load(enc, "rogue") == 1  # seed 000 step 6: Load += Cost after resolving
    assert load(enc, "torchbearer") == 1  # R15: a team action raises the helper's Load
    assert load(enc, "sage") == 1


def test_trap_example_as_a_gm_called_roll() -> None:
    """Seed 000 (R17, R14, R15): "the game master has them make a Finesse Aspect Check … The
    player will roll 5d4." As a GM-called roll with Load counted (``+count-load``); it does not
    raise the rogue's Load (R17), but the helpers' team actions raise theirs (R15)."""
    enc = Encounter.begin(trap_example(), seed=0)
    run(enc, "rogue: prepare")
    run(enc, "gm: call rogue Finesse dc 12 +count-load +dis:dark")
    assert enc.pending_roll is not None
    assert enc.pending_roll.kind is RollKind.GM_CALL
    assert pending_expr(enc) == "3d4"
    run(enc, "torchbearer: hold-torch", "torchbearer: pass", "sage: advise", "sage: pass")
    assert enc.current() == CHANCE
    assert pending_expr(enc) == "5d4"
    [outcome] = run(enc, "roll 1,1,2,3,4")
    assert outcome is not None
    assert outcome.total == 11
    assert outcome.success is False
    assert load(enc, "rogue") == 0  # R17: GM-called rolls do not raise Load
    assert (load(enc, "torchbearer"), load(enc, "sage")) == (1, 1)


# -- seed 000/001: the dagger example ----------------------------------------------------------


@pytest.mark.parametrize("revision", list(Revision))
def test_dagger_example(revision: Revision) -> None:
    """Seed 000: "Your Finesse is 6 and your Action Load is 2. You want to use a dagger (1d4
    damage). You roll 6 − 2 = 4d4 + 1d4 (damage). Your total is 14. The GM subtracts the target's
    Evasion (e.g. 11). The remainder is damage dealt." Seed 001 adds: "leaving 3 damage dealt."
    (R12, R16, R20, R5: the total comes from entered physical dice.)"""
    enc = Encounter.begin(dagger_example(revision), seed=0)
    run(enc, "rogue: prepare", "rogue: prepare")
    assert load(enc, "rogue") == 2  # "your Action Load is 2"
    run(enc, "rogue: strike goblin with dagger")
    assert pending_expr(enc) == "4d4+1d4"  # "6 − 2 = 4d4 + 1d4 (damage)"
    [outcome] = run(enc, "roll 4,4,3,1,2")
    assert outcome is not None
    assert outcome.total == 14  # "Your total is 14"
    assert outcome.damage == 3  # "leaving 3 damage dealt"
    assert health(enc, "goblin") == 10 - 3
    assert load(enc, "rogue") == 3


# -- seed 000/001: the goblin and the team action ----------------------------------------------


def test_goblin_team_action_example() -> None:
    """Seed 000 (R11, R15): "A goblin attacks your ally. You have an Action Load of 1. You use a
    Team Action (cost 1) to impose Disadvantage. The goblin rolls its attack with disadvantage and
    you add 1 to your Action Load." """
    enc = Encounter.begin(goblin_team_example(), seed=0)
    run(enc, "you: prepare", "you: end turn", "ally: end turn")
    assert load(enc, "you") == 1  # "You have an Action Load of 1"
    run(enc, "goblin: strike ally with dagger")  # "A goblin attacks your ally"
    assert pending_expr(enc) == "4d4+1d4"
    assert enc.current() == "you"  # R15: the roll waits for reactions
    assert enc.why_illegal(enc_act("you: hinder")) is None  # Control 3 − Load 1 = 2 ≥ cost 1
    run(enc, "you: hinder")  # "You use a Team Action (cost 1) to impose Disadvantage"
    assert load(enc, "you") == 2  # "you add 1 to your Action Load"
    assert pending_expr(enc) == "3d4+1d4"  # "The goblin rolls its attack with disadvantage"
    run(enc, "you: pass", "ally: pass")
    assert enc.current() == CHANCE
    [outcome] = run(enc, "roll 2,2,2,1")
    assert outcome is not None
    assert outcome.expression == "3d4+1d4"
    assert outcome.total == 7
    assert outcome.damage == 2
    assert load(enc, "goblin") == 1


def test_goblin_team_action_example_legacy() -> None:
    """Seed 001 (R20, R15): "A goblin attacks your ally. You still have 3 Control and an Action
    Load of 1. You use a Team Action (cost 1) to impose Disadvantage. The goblin rolls its attack
    with disadvantage and you add 1 to your Action Load." """
    enc = Encounter.begin(goblin_team_example(Revision.LEGACY), seed=0)
    run(enc, "you: prepare", "you: end turn", "ally: end turn")
    assert load(enc, "you") == 1
    run(enc, "goblin: strike ally with dagger", "you: hinder")
    assert load(enc, "you") == 2
    assert pending_expr(enc) == "3d4+1d4"


def test_no_one_reaction_per_round_limit() -> None:
    """Seed 000 (R15, R11): "you are not limited to one reaction per round — act as often as your
    remaining dice allow." One creature hinders three attacks in one round, then its gate stops
    it: "Since your Action Load won't reset until your next turn, acting during another creature's
    turn means you'll have fewer dice available later." """
    from tests.encounter.builders import HINDER

    you = creature("you", control=3, health=100, actions=(HINDER,))
    gob1 = creature("gob1", Side.NPC, actions=(STRIKE,))
    gob2 = creature("gob2", Side.NPC, actions=(STRIKE,))
    enc = begin(you, gob1, gob2)
    run(enc, "you: end turn")
    run(enc, "gob1: strike you", "you: hinder", "you: pass", "roll")
    run(enc, "gob1: strike you", "you: hinder", "you: pass", "roll")
    run(enc, "gob1: end turn", "gob2: strike you")
    assert enc.round == 1
    run(enc, "you: hinder")  # a third reaction in the same round
    assert load(enc, "you") == 3
    assert enc.current() == CHANCE  # Control 3 − Load 3 = 0 < 1: no more reactions
    with pytest.raises(IllegalActionError, match=r"Control 3 − Load 3 = 0 < cost 1"):
        enc.apply(enc_act("you: hinder"))
    run(enc, "roll", "gob2: end turn")
    assert enc.round == 2
    assert enc.turn_owner == "you"
    assert load(enc, "you") == 0  # reset only at the start of its own turn (R10)


# -- seed 000: Watch My Back ---------------------------------------------------------------------


def test_watch_my_back_counts_once() -> None:
    """Seed 000 (R14): "If two allies both use the “Watch My Back” feature to give you Advantage
    on your next roll, you still only gain +1d4—because both effects come from the same source." """
    enc = Encounter.begin(watch_my_back_example(), seed=0)
    run(enc, "bron: watch-my-back aria", "bron: end turn")
    run(enc, "cara: watch-my-back aria", "cara: end turn")
    assert enc.snapshot()["participants"][2]["boons"] == ["+adv:watch-my-back"] * 2
    run(enc, "aria: strike goblin")
    assert enc.pending_roll is not None
    assert enc.pending_roll.net_advantage == 1
    assert pending_expr(enc) == "5d4+1d4"  # Finesse 4 + 1d4, not + 2d4
    assert enc.snapshot()["participants"][2].get("boons") is None  # used on this roll


def test_watch_my_back_as_team_actions_counts_once_and_other_keys_stack() -> None:
    """Seed 000 (R14): "You can only gain Advantage or Disadvantage from a single source once per
    action. Multiple effects from the same ability, feature, or condition do not stack." and
    "Advantage and Disadvantage stack when they come from different sources". Two allies apply the
    same key to the pending roll (+1 in all); a Help (another key) stacks (+2)."""
    enc = Encounter.begin(watch_my_back_example(), seed=0)
    run(enc, "bron: end turn", "cara: end turn", "aria: strike goblin")
    run(enc, "bron: cover-me")
    assert pending_expr(enc) == "5d4+1d4"
    run(enc, "bron: pass", "cara: cover-me")
    assert pending_expr(enc) == "5d4+1d4"  # the same key again: still +1
    assert load(enc, "cara") == 1  # but the cost is still paid (R15)
    run(enc, "cara: help")
    assert pending_expr(enc) == "6d4+1d4"  # a different key stacks


# -- seed 000: other statements checked as examples -------------------------------------------


def test_zero_cost_action_allowed_at_exactly_zero() -> None:
    """Seed 000 (R11): "A 0-cost action can be taken whenever Aspect − Load is 0 or more." and
    "Some abilities have a Cost of 0 or 1, enabling small actions even late in the round." """
    a = creature("a", finesse=2, control=2, actions=(PREPARE, STEADY))
    enc = begin(a, creature("b", Side.NPC))
    run(enc, "a: prepare", "a: prepare")  # Load 2: Finesse 2 − 2 = 0, Control 2 − 2 = 0
    assert (
        enc.why_illegal(enc_act("a: prepare"))
        == "A cannot prepare: Finesse 2 − Load 2 = 0 < cost 1"
    )
    run(enc, "a: steady", "a: steady")  # Control 2 − Load 2 = 0 ≥ cost 0
    assert load(enc, "a") == 2


def test_different_aspects_in_one_turn_share_one_load() -> None:
    """Seed 000 (R13): "You may take actions using different Aspects in the same turn." One Load
    is shared by all Aspects: a Finesse action raises the Load a Control action sees."""
    from tests.encounter.builders import HEAVY, WATCH_MY_BACK

    a = creature("a", finesse=4, control=2, actions=(HEAVY, WATCH_MY_BACK))
    enc = begin(a, creature("ally"), creature("b", Side.NPC, evasion=50))
    run(enc, "a: heavy-blow b", "roll")
    assert load(enc, "a") == 2
    assert enc.why_illegal(enc_act("a: watch-my-back ally")) == (
        "A cannot watch-my-back: Control 2 − Load 2 = 0 < cost 1"
    )


def test_disadvantage_never_below_one_die_and_advantage_beyond_the_cap() -> None:
    """Seed 000 (R3, R12, R11): "If Disadvantage would take the pool below 1, you still roll 1d4
    (the minimum)." and "extra Advantage dice never count against the Aspect − Load cap, and
    Disadvantage never changes your Load." """
    a = creature("a", finesse=2, actions=(STRIKE, PREPARE))
    enc = begin(a, creature("b", Side.NPC, evasion=50))
    run(enc, "a: prepare")  # Load 1: cap Finesse 2 − 1 = 1
    run(enc, "a: strike b +dis:dark +dis:prone +dis:fog")
    assert pending_expr(enc) == "1d4+1d4"  # the weapon's die is never removed (R3)
    run(enc, "roll")
    assert load(enc, "a") == 2  # += Cost only
    enc = begin(a, creature("b", Side.NPC, evasion=50))
    run(enc, "a: prepare", "a: strike b +adv:torch +adv:advice +adv:high-ground")
    assert pending_expr(enc) == "4d4+1d4"  # cap 1, plus 3 advantage dice


def test_cannot_choose_an_action_above_the_gate() -> None:
    """Seed 000 (R11): "If Aspect − Action Load is less than the action's Cost, you cannot choose
    to take that action." It is not offered in ``legal_actions`` either."""
    from tests.encounter.builders import HEAVY

    a = creature("aria", name="Aria", finesse=4, actions=(PREPARE, HEAVY))
    enc = begin(a, creature("b", Side.NPC))
    run(enc, "aria: prepare", "aria: prepare", "aria: prepare")
    with pytest.raises(IllegalActionError) as err:
        enc.apply(enc_act("aria: heavy-blow b"))
    assert str(err.value) == "Aria cannot heavy-blow: Finesse 4 − Load 3 = 1 < cost 2"
    assert all(c.action != "heavy-blow" for c in enc.legal_actions() if hasattr(c, "action"))


def test_gm_called_roll_min_one_die_with_negative_aspect() -> None:
    """Seed 000 (R17): "If the GM calls for a roll, you always roll at least 1d4, even with a
    negative Aspect." """
    a = creature("a", aspects={"Finesse": -2, "Control": 1})
    enc = begin(a, creature("b", Side.NPC))
    run(enc, "gm: call a Finesse +dis:dark")
    assert pending_expr(enc) == "1d4"


# -- seed 001: the legacy gate ------------------------------------------------------------------


def test_legacy_cannot_act_when_aspect_minus_load_not_positive() -> None:
    """Seed 001 (R20): "If Aspect − Action Load ≤ 0, you cannot choose to act using that Aspect."
    Even a 0-cost action, which the current revision allows at exactly 0 (R11)."""
    a = creature("a", finesse=2, control=2, actions=(PREPARE, STEADY))
    for revision, allowed in ((Revision.LEGACY, False), (Revision.CURRENT, True)):
        enc = begin(a, creature("b", Side.NPC), ruleset=ruleset(revision))
        run(enc, "a: prepare", "a: prepare")
        reason = enc.why_illegal(enc_act("a: steady"))
        assert (reason is None) is allowed
        if not allowed:
            assert reason == (
                "A cannot steady: Control 2 − Load 2 = 0 is not more than 0 (legacy rule, R20)"
            )


def test_legacy_reset_to_zero_and_pool_aspect_minus_load() -> None:
    """Seed 001 (R20): "At the start of your turn: Set your Action Load to 0" (no Load Buffer, no
    Exhaustion) and "Roll d4s equal to: Aspect Value − Action Load"."""
    a = creature("a", finesse=5, load_buffer=2, exhaustion=1, actions=(STRIKE, PREPARE))
    enc = begin(a, creature("b", Side.NPC, evasion=50), ruleset=ruleset(Revision.LEGACY))
    assert load(enc, "a") == 0
    run(enc, "a: prepare", "a: strike b")
    assert pending_expr(enc) == "4d4+1d4"


def test_legacy_fixed_pool_uses_only_1d4() -> None:
    """Seed 001 (R20): "Some abilities have a Cost of 0 or use only 1d4, enabling small actions
    even late in the round." A fixed pool rolls 1d4 whatever the Load, and is still gated."""
    from tests.encounter.builders import JAB

    a = creature("a", finesse=3, actions=(JAB, PREPARE))
    enc = begin(a, creature("b", Side.NPC, evasion=50), ruleset=ruleset(Revision.LEGACY))
    run(enc, "a: jab b")
    assert pending_expr(enc) == "1d4"
    run(enc, "roll", "a: jab b")
    assert pending_expr(enc) == "1d4"
    run(enc, "roll")
    assert load(enc, "a") == 2
    assert enc.why_illegal(enc_act("a: jab b")) is None  # Finesse 3 − Load 2 = 1 > 0 and ≥ 1
    run(enc, "a: jab b", "roll")
    assert "is not more than 0" in (enc.why_illegal(enc_act("a: jab b")) or "")
