"""Turns and points of the Action Point module (seed 004): initiative (R30), AP and RP (R31),
paying one as the other (R32) and Hold Action (R33).

Every test quotes the seed text it checks and cites the ruling that decides it.

Tests of ``economy/points/common.py`` (tests/test_layout.py).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from caltrop.core.model import ActionDef, ActionKind, Initiative, OffTurn
from caltrop.economy.points.economy import ActionPointsEconomy, payment
from caltrop.economy.points.state import PointsState
from caltrop.encounter import CHANCE, Encounter, RollKind
from tests.encounter.points_builders import (
    DAGGER,
    ap_creature,
    ap_npc,
    ap_ruleset,
    begin,
    definition,
    end_turns_until,
    pts,
    refused,
    run,
    st,
)

# -- R30: initiative ---------------------------------------------------------------------------


def _initiative(*creatures_and_faces: tuple[object, str]) -> list[str]:
    """Roll initiative with entered dice (R5), one ``roll`` per creature in joined order."""
    creatures = [c for c, _ in creatures_and_faces]
    enc = begin(*creatures, initiative=Initiative.CHECK)  # type: ignore[arg-type]
    for _, faces in creatures_and_faces:
        assert enc.current() == CHANCE
        assert enc.pending_roll is not None
        assert enc.pending_roll.kind is RollKind.INITIATIVE
        run(enc, f"roll {faces}")
    return list(enc.snapshot()["order"])


def test_r30_initiative_is_a_speed_check_highest_first() -> None:
    """R30, seed 004: "Make a Speed check to determine your position in the turn order." Each
    participant rolls its Speed in d4s (R1); the highest total acts first."""
    aria = ap_creature("aria", aspects={"Speed": 3})
    orc = ap_npc("orc", aspects={"Speed": 2})
    enc = begin(aria, orc, initiative=Initiative.CHECK)
    assert str(enc.pending_expression()) == "3d4"  # Aria rolls first: her Speed 3
    run(enc, "roll 1,1,1")
    assert str(enc.pending_expression()) == "2d4"  # the orc's Speed 2
    run(enc, "roll 4,4")
    assert enc.snapshot()["order"] == ["orc", "aria"]
    assert enc.turn_owner == "orc"
    assert [p["initiative"] for p in enc.snapshot()["participants"]] == [3, 8]


def test_r30_a_tie_between_a_pc_and_an_npc_goes_to_the_pc() -> None:
    """R30, seed 004: "If you roll the same value as an NPC, you have the priority." The NPC
    joined first and has the higher Speed; the PC still acts first."""
    order = _initiative(
        (ap_npc("orc", aspects={"Speed": 4}), "1,1,1,2"),
        (ap_creature("aria", aspects={"Speed": 3}), "1,2,2"),
    )
    assert order == ["aria", "orc"]


def test_r30_tied_pcs_keep_the_order_they_joined() -> None:
    """R30, seed 004: "If you roll the same value as an another player, you may choose who acts
    first for the rest of the encounter." Caltrop's default choice: the order they joined."""
    order = _initiative(
        (ap_creature("bron", aspects={"Speed": 2}), "3,3"),
        (ap_creature("aria", aspects={"Speed": 4}), "1,2,1,2"),
        (ap_npc("orc", aspects={"Speed": 1}), "1"),
    )
    assert order == ["bron", "aria", "orc"]


def test_r30_tied_npcs_by_higher_speed_then_joined_order() -> None:
    """R30: between NPCs, the GM's order — default: higher Speed score, then joined order."""
    order = _initiative(
        (ap_npc("gob1", aspects={"Speed": 2}), "2,2"),
        (ap_npc("gob2", aspects={"Speed": 2}), "3,1"),
        (ap_npc("boss", aspects={"Speed": 4}), "1,1,1,1"),
        (ap_creature("aria", aspects={"Speed": 1}), "1"),
    )
    assert order == ["boss", "gob1", "gob2", "aria"]


def test_r30_all_ties_at_once() -> None:
    """R30: every tie rule in one check: PCs before NPCs, PCs by joined order, NPCs by Speed then
    joined order."""
    order = _initiative(
        (ap_npc("gob", aspects={"Speed": 2}), "2,2"),
        (ap_creature("cara", aspects={"Speed": 2}), "1,3"),
        (ap_npc("ogre", aspects={"Speed": 3}), "2,1,1"),
        (ap_creature("aria", aspects={"Speed": 1}), "4"),
        (ap_npc("imp", aspects={"Speed": 2}), "4,4"),
    )
    assert order == ["imp", "cara", "aria", "ogre", "gob"]


def test_r30_the_order_is_fixed_for_the_encounter() -> None:
    """R30: "The tie order chosen stays for the whole encounter" — seed 004: "for the rest of the
    encounter". Nobody rolls initiative again: round after round the order is the same."""
    enc = begin(
        ap_creature("aria", at=(0, 0)),
        ap_npc("orc", at=(9, 0)),
        ap_creature("bron", at=(0, 5)),
        initiative=Initiative.CHECK,
    )
    run(enc, "roll 2,2,2", "roll 1,1,1", "roll 2,2,2")
    order = enc.snapshot()["order"]
    assert order == ["aria", "bron", "orc"]
    owners = []
    for _ in range(7):
        owners.append(enc.turn_owner)
        assert enc.current() != CHANCE  # no further initiative rolls
        run(enc, f"{enc.turn_owner}: end turn")
    assert owners == [*order, *order, order[0]]
    assert enc.round == 3
    assert enc.snapshot()["order"] == order


# -- R31: points -------------------------------------------------------------------------------


def _trio() -> tuple[object, ...]:
    return (
        ap_creature("aria", at=(0, 0)),
        ap_creature("bron", at=(0, 1)),
        ap_npc("orc", at=(1, 0), weapons=(DAGGER,)),
    )


def test_r31_six_ap_on_ones_own_turn_and_two_rp_on_every_other() -> None:
    """R31, seed 004: "Every turn you have 6 Action Points." and "for every other participant in
    the encounter you also get 2 Reaction Points during their turn". The state shows each
    participant's AP, RP and floating RP (issue 4)."""
    enc = begin(*_trio())  # type: ignore[arg-type]
    assert enc.turn_owner == "aria"
    assert [pts(enc, c) for c in ("aria", "bron", "orc")] == [(6, 0, 0), (0, 2, 0), (0, 2, 0)]
    shown = {p["id"]: p for p in enc.snapshot()["participants"]}
    assert {k: shown["bron"][k] for k in ("ap", "rp", "floating_rp")} == {
        "ap": 0,
        "rp": 2,
        "floating_rp": 0,
    }
    run(enc, "aria: end turn")
    assert [pts(enc, c) for c in ("aria", "bron", "orc")] == [(0, 2, 0), (6, 0, 0), (0, 2, 0)]


def test_r31_rp_is_set_to_two_not_added_at_each_other_turn_start() -> None:
    """R31: "At the start of every *other* participant's turn, each participant's RP is set to 2
    (not added to)." Seed 004: "The number of RP resets at the beginning of next participant’s
    turn." Unused RP do not pile up; spent RP come back."""
    enc = begin(*_trio())  # type: ignore[arg-type]
    run(enc, "aria: end turn")  # Bron's turn: Aria has 2 RP and uses none
    assert st(enc, "aria").rp == 2
    run(enc, "bron: end turn")  # the orc's turn: set to 2 again, not 4
    assert st(enc, "aria").rp == 2
    run(enc, "orc: attack aria", "roll 4", "aria: block", "roll 1,1,1")
    assert st(enc, "aria").rp == 1  # one RP spent on the Block
    run(enc, "orc: end turn", "aria: end turn")  # Bron's turn of round 2: back to 2
    assert st(enc, "aria").rp == 2


def test_r31_unspent_ap_are_lost() -> None:
    """R31: "unspent AP are lost at the end of the turn" — 4 AP left over do not make 10 AP next
    turn, and are no use on other turns."""
    enc = begin(*_trio())  # type: ignore[arg-type]
    run(enc, "aria: move to 0,-4")  # 2 AP of 6
    assert st(enc, "aria").ap == 4
    run(enc, "aria: end turn")
    assert st(enc, "aria").ap == 0
    end_turns_until(enc, "aria")
    assert st(enc, "aria").ap == 6


def test_r31_ap_and_rp_are_stats_with_defaults() -> None:
    """R31: "Both numbers are stats with those defaults: the text allows a creature that 'has
    more or less' AP" (seed 004, Time: "if you have more or less, it is still 6 seconds")."""
    enc = begin(ap_creature("quick", ap=8, rp=3), ap_npc("slow", at=(9, 0), ap=4, rp=1))
    assert pts(enc, "quick") == (8, 0, 0)
    assert pts(enc, "slow") == (0, 1, 0)
    run(enc, "quick: end turn")
    assert pts(enc, "quick") == (0, 3, 0)
    assert pts(enc, "slow") == (4, 0, 0)


# -- R32: paying -------------------------------------------------------------------------------


def test_r32_on_ones_own_turn_an_rp_price_is_paid_one_ap_per_rp() -> None:
    """R32, seed 004: "1 Action Point may be considered as 1 Reaction Point". Escaping a grapple
    costs "2 AP/RP" (R42); on the grappled creature's own turn it is paid as 2 AP."""
    enc = begin(ap_npc("orc", at=(1, 0)), ap_creature("aria", stamina=6))
    run(enc, "orc: grapple aria", "roll 4,4,4,4", "roll 1,1,1,1", "orc: end turn")
    assert st(enc, "aria").grappled_by == "orc"
    assert pts(enc, "aria") == (6, 0, 0)
    run(enc, "aria: escape", "orc: pass", "roll 1,1,1,1")
    assert pts(enc, "aria") == (4, 0, 0)
    assert st(enc, "aria").grappled_by is None


def test_r32_off_turn_an_rp_price_is_paid_in_rp_then_floating_rp() -> None:
    """R32: "On another participant's turn it pays in RP and floating RP" — the regular RP first."""
    enc = begin(*_trio())  # type: ignore[arg-type]
    run(enc, "aria: hold", "aria: end turn", "bron: end turn")
    assert pts(enc, "aria") == (0, 2, 1)
    for expected in [(0, 1, 1), (0, 0, 1), (0, 0, 0)]:
        run(enc, "orc: attack aria", "roll 1", "aria: block", "roll 1,1,1")
        assert pts(enc, "aria") == expected
    refused(enc, "orc: attack aria", "Orc cannot attack", "needs 2 AP; 0 AP left", "R32")


def test_r32_off_turn_an_ap_price_is_paid_two_rp_per_ap() -> None:
    """R32, seed 004: "2 Reaction Points may be considered as 1 Action Point" — an AP price off
    turn costs twice as many RP (the regular RP first, then floating RP); short of them, the
    refusal gives the sum."""
    state = PointsState(ap=0, rp=2, floating=1, stamina=0, x=0, y=0, equipped=())
    one = payment(state, 1, "ap", on_turn=False, what="shove")
    assert one.allowed
    assert (one.ap, one.rp, one.floating) == (0, 2, 0)
    assert "1 AP = 2 RP" in one.reason
    state.rp = 1
    mixed = payment(state, 1, "ap", on_turn=False, what="shove")
    assert (mixed.ap, mixed.rp, mixed.floating) == (0, 1, 1)
    two = payment(state, 2, "ap", on_turn=False, what="shove")
    assert not two.allowed
    assert two.reason == "shove needs 2 AP = 4 RP; 1 RP + 1 floating RP = 2"
    # the same through the economy's gate and pay, with an action's AP cost
    economy = ActionPointsEconomy(ap_ruleset())
    shove = ActionDef("shove", "Strength", 1, ActionKind.EFFECT)
    creature = ap_creature("aria")
    state = PointsState(ap=0, rp=2, floating=0, stamina=0, x=0, y=0, equipped=())
    assert economy.gate(creature, state, shove, on_turn=False)
    economy.pay(creature, state, shove, on_turn=False)
    assert (state.ap, state.rp, state.floating) == (0, 0, 0)
    assert not economy.gate(creature, state, shove, on_turn=False)


def test_r32_on_ones_own_turn_only_ap_pay() -> None:
    """R32: "On its own turn a participant pays in AP" — RP left from other turns are not
    spendable on one's own turn, and AP never exceed what is left."""
    state = PointsState(ap=1, rp=2, floating=1, stamina=0, x=0, y=0, equipped=())
    assert payment(state, 1, "rp", on_turn=True, what="block").ap == 1
    refusal = payment(state, 2, "rp", on_turn=True, what="escape")
    assert not refusal.allowed
    assert refusal.reason == "escape needs 2 AP (2 RP paid as 2 AP); 1 AP left"


def test_r32_with_off_turn_reactions_the_engine_takes_only_reactions_escape_and_shake() -> None:
    """R32: "Ruleset option ``off_turn_actions``: ``any`` (default) or ``reactions`` (only Block,
    Dodge, Take Cover, Assist, Oppose, Escape, Shake Off)": with ``reactions`` other actions are
    refused off turn, naming whose turn it is (``any`` is in tests/encounter/test_off_turn.py)."""
    d = definition(*_trio())  # type: ignore[arg-type]
    d = replace(d, ruleset=replace(d.ruleset, off_turn_actions=OffTurn.REACTIONS))
    enc = Encounter.begin(d, 0)
    refused(enc, "bron: move to 0,2", "it is Aria's turn", "Bron's own turn")
    refused(enc, "orc: attack bron", "it is Aria's turn")
    refused(enc, "bron: block", "nothing to react to now")


# -- R33: Hold Action --------------------------------------------------------------------------


def test_r33_hold_turns_two_ap_into_one_floating_rp_repeatably() -> None:
    """R33, seed 004: "On your turn you may convert 2 AP into 1 RP for later use. You can hold
    action multiple times." With 1 AP left, Hold is refused with the numbers."""
    enc = begin(*_trio())  # type: ignore[arg-type]
    run(enc, "aria: hold")
    assert pts(enc, "aria") == (4, 0, 1)
    run(enc, "aria: hold", "aria: move to 0,-2")  # 2 AP for hold, 1 AP for the 2 m move
    assert pts(enc, "aria") == (1, 0, 2)
    refused(enc, "aria: hold", "needs 2 AP; 1 AP left", "R33", "R32")
    run(enc, "aria: end turn")
    shown = {p["id"]: p for p in enc.snapshot()["participants"]}
    assert shown["aria"]["floating_rp"] == 2


def test_r33_floating_rp_survive_rp_resets_and_add_to_the_regular_rp() -> None:
    """R33, seed 004: "These floating RP can be used on any other participant’s turn once
    additionally to the already existing ones." They are not touched by the RP reset (R31) of
    later turns, and are spent on top of the 2 regular RP."""
    enc = begin(*_trio())  # type: ignore[arg-type]
    run(enc, "aria: hold", "aria: hold", "aria: end turn")
    assert pts(enc, "aria") == (0, 2, 2)  # Bron's turn: unused
    run(enc, "bron: end turn")
    assert pts(enc, "aria") == (0, 2, 2)  # the orc's turn: RP set to 2, floating still 2
    # the orc's dagger costs 2 AP: three attacks, three Blocks — 2 RP, then 1 floating RP
    for _ in range(3):
        run(enc, "orc: attack aria", "roll 1", "aria: block", "roll 1,1,1")
    assert pts(enc, "aria") == (0, 0, 1)


def test_r33_floating_rp_are_lost_at_the_holders_next_turn() -> None:
    """R33, seed 004: "If not used, they are depleted at the start of your next turn." Not
    before: they survive every other turn in between."""
    enc = begin(*_trio())  # type: ignore[arg-type]
    run(enc, "aria: hold", "aria: end turn")
    run(enc, "bron: end turn")
    assert st(enc, "aria").floating == 1
    run(enc, "orc: end turn")
    assert enc.turn_owner == "aria"
    assert pts(enc, "aria") == (6, 0, 0)


def test_r33_hold_is_taken_on_ones_own_turn_only() -> None:
    """R33: "On its own turn, 2 AP → 1 floating RP" — not with RP on another's turn."""
    enc = begin(*_trio())  # type: ignore[arg-type]
    refused(enc, "bron: hold", "it is Aria's turn")


@pytest.mark.parametrize("holds", [0, 1, 2, 3])
def test_r33_hold_arithmetic(holds: int) -> None:
    """R33: each Hold is 2 AP for 1 floating RP: 6 AP hold at most 3 times."""
    enc = begin(*_trio())  # type: ignore[arg-type]
    run(enc, *["aria: hold"] * holds)
    assert pts(enc, "aria") == (6 - 2 * holds, 0, holds)
