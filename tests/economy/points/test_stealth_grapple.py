"""Stealth (R41), Grapple and escape (R42), Scale and shaking off (R43) in the Action Point module
(seed 004). Opposed checks follow R4: the initiator rolls first, wins only if strictly higher.

Tests of ``economy/points/grapple.py``, ``economy/points/stealth.py`` (tests/test_layout.py).
"""

from __future__ import annotations

import pytest

from caltrop.encounter import CHANCE
from tests.encounter.points_builders import (
    DAGGER,
    SWORD,
    ap_creature,
    ap_npc,
    begin,
    hp,
    last,
    pts,
    refused,
    run,
    st,
)

# -- R41: stealth ------------------------------------------------------------------------------


def _sneak(**orc: object) -> object:
    aria = ap_creature("aria", aspects={"Poise": 3, "Perception": 3})
    return begin(aria, ap_npc("orc", at=(6, 0), **orc))  # type: ignore[arg-type]


def test_r41_unaware_observer_poise_check_against_its_perception_score() -> None:
    """R41, seed 004: "To make an action while remaining inconspicuous, you make a Poise check
    against other creatures’ Perception score." Out of its sight: Poise 3 d4s against DC 3."""
    enc = _sneak(aspects={"Perception": 3})
    run(enc, "gm: set orc aware aria off", "gm: set orc sight aria off")
    run(enc, "aria: move to 1,0 +stealth")
    assert str(enc.pending_expression()) == "3d4"
    outcome = last(enc, "roll 1,1,1")
    assert (outcome.dc, outcome.success, outcome.note) == (3, True, "unnoticed")
    assert st(enc, "orc").unaware_of == ("aria",)
    outcome = last(enc, "aria: move to 2,0 +stealth", "roll 1,1,1")  # unaware: a check again
    assert (outcome.dc, outcome.success) == (3, True)


def test_r41_a_failed_check_makes_the_observer_aware() -> None:
    """R41: "it stays unnoticed only by those it beats" — a total below the score is noticed."""
    enc = _sneak(aspects={"Perception": 4})
    run(enc, "gm: set orc aware aria off", "gm: set orc sight aria off")
    outcome = last(enc, "aria: move to 1,0 +stealth", "roll 1,1,1")
    assert (outcome.dc, outcome.success, outcome.note) == (4, False, "noticed")
    assert st(enc, "orc").unaware_of == ()


def test_r41_in_line_of_sight_two_disfavor() -> None:
    """R41, seed 004: "If you are within creature’s line of sight, you get 2 Disfavor." Poise 3 −
    2 = 1d4 (and never below 1d4, R3)."""
    enc = _sneak()
    run(enc, "gm: set orc aware aria off", "aria: move to 1,0 +stealth")
    assert str(enc.pending_expression()) == "1d4"
    enc = begin(
        ap_creature("aria", aspects={"Poise": 1}), ap_npc("orc", at=(6, 0), aspects={"Speed": 1})
    )
    run(enc, "gm: set orc aware aria off", "aria: move to 1,0 +stealth")
    assert str(enc.pending_expression()) == "1d4"


def test_r41_gifted_in_perception_doubles_the_score() -> None:
    """R41, seed 004: "Creatures that are gifted in Perception have their score doubled for the
    situation." Perception 3, gifted: DC 6."""
    enc = _sneak(aspects={"Perception": 3}, gifted_perception=1)
    run(enc, "gm: set orc aware aria off", "gm: set orc sight aria off")
    outcome = last(enc, "aria: move to 1,0 +stealth", "roll 2,2,1")
    assert (outcome.dc, outcome.success) == (6, False)


def test_r41_careful_doubles_the_ap_for_one_favor() -> None:
    """R41, seed 004: "You may spend double amount of AP on the action to gain a Favor. You do it
    slower and more careful." A 2 m move (1 AP) costs 2 AP and rolls Poise 3 + 1 d4s."""
    enc = _sneak()
    run(enc, "gm: set orc aware aria off", "gm: set orc sight aria off")
    run(enc, "aria: move to 2,0 +stealth +careful")
    assert st(enc, "aria").ap == 4
    assert str(enc.pending_expression()) == "4d4"
    refused(enc, "aria: move to 3,0 +careful", "+careful goes with +stealth", "R41")


def test_r41_careful_doubling_is_refused_when_the_ap_are_not_there() -> None:
    """R41 with R32: the doubled price must be paid: a 3 AP attack made carefully is 6 AP."""
    enc = begin(ap_creature("aria", weapons=(SWORD,)), ap_npc("orc", at=(1, 0)))
    run(enc, "aria: move to 0,1")
    refused(enc, "aria: attack orc +stealth +careful", "needs 6 AP; 5 AP left")


def test_r41_an_aware_observer_makes_an_opposed_perception_check() -> None:
    """R41, seed 004: "If the creature is aware of your presence, they instead make an opposing
    Perception check". R4: a tie keeps the status quo — the observer stays aware."""
    enc = _sneak(aspects={"Perception": 2})
    run(enc, "gm: set orc sight aria off", "aria: move to 1,0 +stealth")
    first = last(enc, "roll 2,2,1")
    assert (first.total, first.note) == (5, "Aria rolls 5; the opposer answers")
    assert str(enc.pending_expression()) == "2d4"  # the orc's Perception
    tie = last(enc, "roll 4,1")
    assert (tie.success, tie.note) == (False, "5 vs 5: the status quo holds")
    assert st(enc, "orc").unaware_of == ()
    run(enc, "aria: move to 2,0 +stealth", "roll 2,2,1")
    beaten = last(enc, "roll 3,1")
    assert (beaten.success, beaten.note) == (True, "5 vs 4: success")
    assert st(enc, "orc").unaware_of == ("aria",)


def test_r41_one_check_per_observer_with_its_own_favors() -> None:
    """R41: "With several observers, the actor makes one check per observer, each with that
    observer's Favors and Disfavors; it stays unnoticed only by those it beats." The goblin sees
    Aria (2 Disfavor), the orc does not; both are unaware of her; allies make no checks."""
    enc = begin(
        ap_creature("aria", aspects={"Poise": 3}),
        ap_creature("bron", at=(0, 1)),
        ap_npc("orc", at=(6, 0), aspects={"Perception": 3}),
        ap_npc("gob", at=(6, 2), aspects={"Perception": 2}),
    )
    run(enc, "gm: set orc aware aria off", "gm: set gob aware aria off")
    run(enc, "gm: set orc sight aria off", "aria: move to 1,0 +stealth")
    assert str(enc.pending_expression()) == "3d4"  # against the orc first: out of its sight
    orc = last(enc, "roll 1,1,2")
    assert (orc.target, orc.dc, orc.success) == ("orc", 3, True)
    assert str(enc.pending_expression()) == "1d4"  # the goblin sees her
    gob = last(enc, "roll 1")
    assert (gob.target, gob.dc, gob.success) == ("gob", 2, False)
    assert not enc.pending
    assert st(enc, "orc").unaware_of == ("aria",)
    assert st(enc, "gob").unaware_of == ()
    assert st(enc, "bron").unaware_of == ()


def test_r41_a_stealthy_attack_on_an_unaware_target_cannot_be_defended() -> None:
    """R41 and R40, seed 004: "When attacking an unsuspecting opponent, they cannot react to your
    attack, and thus cannot use a defensive action." The stealth check comes before the damage;
    beaten, the orc stays unaware and takes the damage less Resistance."""
    orc = ap_npc("orc", at=(1, 0), health=20, aspects={"Perception": 4})
    enc = begin(ap_creature("aria", weapons=(DAGGER,)), orc)
    run(enc, "gm: set orc aware aria off", "gm: set orc sight aria off")
    run(enc, "aria: attack orc +stealth")
    assert enc.pending_roll is not None
    assert enc.pending_roll.stage == "check"
    run(enc, "roll 4,4,4")
    outcome = last(enc, "roll 4")
    assert (outcome.damage, outcome.note) == (1, "unsuspecting")  # ceil(4/2) − Resistance 1
    assert hp(enc, "orc") == 19
    assert st(enc, "orc").unaware_of == ("aria",)  # still unnoticed: she beat the check
    # noticed (3 < Perception 4): the orc is aware now and may defend
    noticed = last(enc, "aria: attack orc +stealth", "roll 1,1,1")
    assert (noticed.dc, noticed.success, noticed.note) == (4, False, "noticed")
    run(enc, "roll 4")
    assert enc.current() == "orc"


# -- R42: grapple ------------------------------------------------------------------------------


def _grapple(**orc: object) -> object:
    """Brakka (Strength 4, Stamina 6) next to an orc and a goblin; Brakka's turn first."""
    brakka = ap_creature("brakka", aspects={"Strength": 4}, stamina=6, weapons=(DAGGER,))
    o = ap_npc("orc", at=(1, 0), weapons=(DAGGER,), **orc)  # type: ignore[arg-type]
    gob = ap_npc("gob", at=(1, 1), weapons=(DAGGER,))
    return begin(brakka, o, gob)


def test_r42_grapple_costs_3_ap_and_2_stamina_and_is_an_opposed_strength_check() -> None:
    """R42, seed 004: "You may spend 3 AP and 2 Stamina to attempt to restrain a creature. You
    make a Strength check with your target opposing with either Strength or Agility." R42: "(the
    target's choice; default the higher)"."""
    enc = _grapple(aspects={"Strength": 2, "Agility": 5})
    run(enc, "brakka: grapple orc")
    assert (st(enc, "brakka").ap, st(enc, "brakka").stamina) == (3, 4)
    assert str(enc.pending_expression()) == "4d4"  # Brakka's Strength
    run(enc, "roll 4,4,4,2")
    assert str(enc.pending_expression()) == "5d4"  # the orc's Agility, the higher
    outcome = last(enc, "roll 1,1,1,1,1")
    assert (outcome.success, outcome.note) == (True, "14 vs 5: success")
    assert st(enc, "orc").grappled_by == "brakka"


def test_r42_a_tie_keeps_the_status_quo() -> None:
    """R4 applied to R42: "the initiator succeeds iff its total is strictly greater; a tie keeps
    the status quo" — a tied grapple leaves the orc free."""
    enc = _grapple(aspects={"Strength": 4, "Agility": 1})
    outcome = last(enc, "brakka: grapple orc", "roll 2,2,2,2", "roll 1,3,2,2")
    assert (outcome.success, outcome.note) == (False, "8 vs 8: the status quo holds")
    assert st(enc, "orc").grappled_by is None
    assert st(enc, "brakka").stamina == 4  # the attempt is paid all the same


def _grappled() -> object:
    enc = _grapple(aspects={"Strength": 1, "Agility": 1})
    run(enc, "brakka: grapple orc", "roll 4,4,4,4", "roll 1")
    assert st(enc, "orc").grappled_by == "brakka"
    return enc


def test_r42_grappled_speed_zero_moved_with_the_grappler_whose_speed_halves() -> None:
    """R42, seed 004: "Grappled creatures have travel speed set to 0, and are forced to move with
    the grappler, while their speed is halved." Brakka's 2 m per AP becomes 1."""
    enc = _grappled()
    run(enc, "brakka: move to -2,0")  # 2 m at 1 m per AP: 2 AP of the 3 left
    assert st(enc, "brakka").ap == 1
    assert (st(enc, "orc").x, st(enc, "orc").y) == (-1, 0)  # dragged along
    run(enc, "brakka: end turn")
    refused(enc, "orc: move to 3,0", "Orc cannot move: grappled (R42)")
    refused(enc, "orc: leap to 0,0", "grappled")


def test_r42_a_grappled_attacker_pays_double_against_a_third_party_not_the_grappler() -> None:
    """R42, seed 004: "Attack, Block and Dodge actions require twice as much AP/RP, if targeted
    against creatures other than the grappler." The grappled goblin's dagger (2 AP) costs 4 AP
    against Bron and 2 AP against Brakka, who grapples it."""
    brakka = ap_creature("brakka", weapons=(DAGGER,))
    bron = ap_creature("bron", at=(2, 1))
    gob = ap_npc("gob", at=(1, 1), weapons=(DAGGER,))
    enc = begin(brakka, bron, gob)
    run(enc, "brakka: grapple gob", "roll 4,4,4,4", "roll 1,1,1,1", "brakka: end turn")
    run(enc, "bron: end turn")
    run(enc, "gob: attack bron")
    assert st(enc, "gob").ap == 2
    run(enc, "roll 1", "roll", "gob: attack brakka")
    assert st(enc, "gob").ap == 0
    run(enc, "roll 1", "roll")
    refused(enc, "gob: attack bron", "×2, R42/R43", "needs 4 AP; 0 AP left")


def test_r42_a_grappled_defender_pays_double_against_a_third_party() -> None:
    """R42: the grappled creature's Block and Dodge against anyone but the grappler cost double:
    2 RP against Bron's attack (all its RP), 1 RP against Brakka's."""
    brakka = ap_creature("brakka", weapons=(DAGGER,))
    bron = ap_creature("bron", at=(2, 0), weapons=(DAGGER,))
    orc = ap_npc("orc", at=(1, 0), aspects={"Strength": 1, "Agility": 1})
    enc = begin(brakka, bron, orc)
    run(enc, "brakka: grapple orc", "roll 4,4,4,4", "roll 1")
    twin = enc.clone()
    run(twin, "brakka: attack orc", "roll 1", "orc: block")
    assert st(twin, "orc").rp == 1
    run(enc, "brakka: end turn", "bron: attack orc", "roll 1")
    run(enc, "orc: block")
    assert st(enc, "orc").rp == 0
    assert last(enc, "roll 1,1,1").damage == 0


def test_r42_escape_without_the_grappler_opposing_succeeds() -> None:
    """R42, seed 004: "While being grappled, the creature may spend 2 AP/RP and 2 Stamina to
    attempt the check again." R42: "if it does not [oppose], the escape succeeds"."""
    enc = _grappled()
    run(enc, "brakka: end turn")
    run(enc, "orc: escape")
    assert (st(enc, "orc").ap, st(enc, "orc").stamina) == (4, 4)
    assert enc.current() == "brakka"
    assert {str(c) for c in enc.legal_actions()} == {"brakka: oppose", "brakka: pass"}
    outcome = last(enc, "brakka: pass", "roll 1")
    assert (outcome.success, outcome.note) == (True, "not opposed")
    assert st(enc, "orc").grappled_by is None
    assert st(enc, "brakka").stamina == 4  # only the grapple's 2


def test_r42_escape_opposed_costs_the_grappler_exactly_two_stamina() -> None:
    """R42, seed 004: "The grappler looses 2 Stamina, if they oppose." Exactly 2, win or lose
    (fixed: 4 were taken, 2 for the ``oppose`` and 2 again at the result). Tie: still held."""
    enc = _grappled()
    run(enc, "brakka: end turn")
    run(enc, "orc: escape", "brakka: oppose")
    assert st(enc, "brakka").stamina == 2
    assert enc.current() == CHANCE
    assert str(enc.pending_expression()) == "1d4"  # the orc's higher of Strength and Agility
    run(enc, "roll 3")
    assert str(enc.pending_expression()) == "4d4"  # Brakka's Strength
    outcome = last(enc, "roll 1,1,1,1")
    assert (outcome.success, outcome.note) == (False, "3 vs 4: the status quo holds")
    assert st(enc, "brakka").stamina == 2
    assert st(enc, "orc").grappled_by == "brakka"


def test_r42_escape_opposed_and_won() -> None:
    """R42 with R4: the escaping creature must beat the grappler's roll; then it is free, and the
    grappler has still lost its 2 Stamina."""
    enc = _grapple(aspects={"Strength": 5, "Agility": 1})
    run(enc, "brakka: grapple orc", "roll 4,4,4,4", "roll 1,1,1,1,1", "brakka: end turn")
    assert st(enc, "orc").grappled_by == "brakka"
    outcome = last(enc, "orc: escape", "brakka: oppose", "roll 4,4,4,4,4", "roll 1,1,1,1")
    assert (outcome.success, outcome.note) == (True, "20 vs 4: success")
    assert st(enc, "orc").grappled_by is None
    assert st(enc, "brakka").stamina == 2


def test_r42_a_grappler_without_two_stamina_cannot_oppose() -> None:
    """R42 with R37: opposing costs 2 Stamina; with fewer the ``oppose`` is refused, and the
    escape then succeeds unopposed."""
    brakka = ap_creature("brakka", stamina=3, weapons=(DAGGER,))
    orc = ap_npc("orc", at=(1, 0), aspects={"Strength": 1, "Agility": 1})
    enc = begin(brakka, orc)
    run(enc, "brakka: grapple orc", "roll 4,4,4,4", "roll 1", "brakka: end turn")
    run(enc, "orc: escape")
    assert enc.current() == CHANCE  # Brakka (1 Stamina) has nothing to decide
    refused(enc, "brakka: oppose", "Oppose needs 0 AP/RP and 2 Stamina; Brakka has 1 Stamina")
    assert last(enc, "roll 1").success is True


def test_r42_escape_needs_its_points_and_stamina_and_a_grapple() -> None:
    """R42: 2 AP/RP + 2 Stamina; only a grappled creature escapes."""
    enc = _grappled()
    refused(enc, "gob: escape", "Gob is not grappled")
    run(enc, "brakka: end turn")
    run(enc, "orc: escape", "brakka: pass", "roll 1")
    refused(enc, "orc: escape", "Orc is not grappled")


def test_r42_escape_off_turn_is_paid_in_rp() -> None:
    """R42 with R32: "2 AP/RP" — on another's turn the escape costs 2 RP."""
    enc = _grappled()
    run(enc, "orc: escape")  # Brakka's turn
    assert pts(enc, "orc") == (0, 0, 0)
    assert st(enc, "orc").stamina == 4
    run(enc, "brakka: pass", "roll 1")
    assert st(enc, "orc").grappled_by is None


def test_r42_a_down_grappler_holds_nobody() -> None:
    """R42: a grappler at 0 Health (down, R16) no longer holds its target: the grapple ends
    (fixed: the orc stayed at speed 0 and paid double for ever)."""
    brakka = ap_creature("brakka", weapons=(DAGGER,), health=1, resistance=0)
    bron = ap_creature("bron", at=(0, 2))
    orc = ap_npc("orc", at=(1, 0), aspects={"Strength": 1, "Agility": 1}, weapons=(DAGGER,))
    enc = begin(brakka, bron, orc)
    run(enc, "brakka: grapple orc", "roll 4,4,4,4", "roll 1", "brakka: end turn", "bron: end turn")
    run(enc, "orc: attack brakka", "roll 2", "roll")
    assert enc.down[enc.index("brakka")]
    assert st(enc, "orc").grappled_by is None
    run(enc, "orc: move to 1,1")


# -- R43: scale --------------------------------------------------------------------------------


def _climb(troll_size: int = 0, **troll: object) -> object:
    aria = ap_creature("aria", aspects={"Agility": 4}, stamina=8, size=1, weight=60)
    t = ap_npc(
        "troll",
        at=(1, 0),
        size=troll_size,
        aspects={"Strength": 3, "Agility": 2},
        weapons=(DAGGER,),
        **troll,  # type: ignore[arg-type]
    )
    return begin(aria, t)


def test_r43_scaling_an_obstacle_is_3_ap_and_4_stamina_without_a_check() -> None:
    """R43, seed 004: "To climb up an obstacle, you spend 3 AP and 4 Stamina." No roll."""
    enc = _climb()
    assert run(enc, "aria: scale") == [None]
    assert not enc.pending
    assert (st(enc, "aria").ap, st(enc, "aria").stamina) == (3, 4)
    run(enc, "aria: scale")
    assert (st(enc, "aria").ap, st(enc, "aria").stamina) == (0, 0)


def test_r43_scale_a_same_size_creature_agility_against_strength() -> None:
    """R43, seed 004: "You may scale creatures of same size or larger. The target may oppose with
    Strength (same) or Agility (larger) against your Agility check." Same size: Strength."""
    enc = _climb(troll_size=1)
    run(enc, "aria: scale troll")
    assert enc.current() == "troll"
    run(enc, "troll: oppose")
    assert str(enc.pending_expression()) == "4d4"  # Aria's Agility, no Disfavor
    run(enc, "roll 2,2,2,2")
    assert str(enc.pending_expression()) == "3d4"  # the troll's Strength
    outcome = last(enc, "roll 1,1,1")
    assert outcome.success is True
    assert st(enc, "aria").scaling == "troll"


def test_r43_one_disfavor_per_size_category_larger_opposed_by_agility() -> None:
    """R43, seed 004: "You get 1 Disfavor for each size category the target is larger." Two sizes
    larger: Agility 4 − 2 = 2d4, against the troll's Agility (2d4)."""
    enc = _climb(troll_size=3)
    run(enc, "aria: scale troll", "troll: oppose")
    assert str(enc.pending_expression()) == "2d4"
    run(enc, "roll 2,2")
    assert str(enc.pending_expression()) == "2d4"
    outcome = last(enc, "roll 3,1")
    assert (outcome.success, outcome.note) == (False, "4 vs 4: the status quo holds")
    assert st(enc, "aria").scaling is None


def test_r43_a_target_that_does_not_oppose_is_scaled_without_a_check() -> None:
    """R43: "a target that chooses not to oppose is scaled without a check"."""
    enc = _climb(troll_size=2)
    outcome = last(enc, "aria: scale troll", "troll: pass", "roll 1,1,1")
    assert (outcome.success, outcome.note) == (True, "not opposed")
    assert st(enc, "aria").scaling == "troll"


def test_r43_the_scalers_weight_is_applied_to_the_target() -> None:
    """R43, seed 004: "The scaling creature's weight is applied to target." Aria (weight 60)
    on the troll: the troll carries 60 while she clings on, nothing before or after."""
    from caltrop.economy.points.actions import carried_weight

    enc = _climb(troll_size=2)
    troll = enc.index("troll")  # type: ignore[attr-defined]
    assert carried_weight(enc, troll) == 0  # type: ignore[arg-type]
    run(enc, "aria: scale troll", "troll: pass", "roll 1,1,1")
    assert carried_weight(enc, troll) == 60  # type: ignore[arg-type]
    assert carried_weight(enc, enc.index("aria")) == 0  # type: ignore[arg-type, attr-defined]


def test_r43_only_same_size_or_larger_creatures_are_scaled() -> None:
    """R43, seed 004: "You may scale creatures of same size or larger." A smaller one: refused."""
    enc = _climb(troll_size=0)
    refused(enc, "aria: scale troll", "Troll is smaller than Aria", "R43")


def _scaled() -> object:
    enc = _climb(troll_size=2)
    run(enc, "aria: scale troll", "troll: pass", "roll 1,1,1", "aria: end turn")
    assert st(enc, "aria").scaling == "troll"
    return enc


def test_r43_the_scaled_targets_attack_block_dodge_against_the_scaler_cost_double() -> None:
    """R43, seed 004: "Target’s Attack, Block and Dodge actions require twice as much AP/RP, if
    targeted against creature scaling it". The troll's dagger: 4 AP instead of 2."""
    enc = _scaled()
    run(enc, "troll: attack aria")
    assert st(enc, "troll").ap == 2
    run(enc, "roll 1", "roll", "troll: end turn")
    run(enc, "aria: attack troll", "roll 1,1", "troll: block")
    assert st(enc, "troll").rp == 0  # 2 RP for a Block against its scaler


def test_r43_shake_off_works_as_the_grapple_escape() -> None:
    """R43, seed 004: "While being scaled, the creature may spend 2 AP/RP and 2 Stamina to attempt
    the check again. The scaler looses 2 Stamina, if they oppose." Opposed and tied: Aria holds
    on and has lost exactly 2 Stamina."""
    enc = _scaled()
    stamina = st(enc, "aria").stamina
    run(enc, "troll: shake", "aria: oppose")
    assert st(enc, "aria").stamina == stamina - 2
    assert (st(enc, "troll").ap, st(enc, "troll").stamina) == (4, 4)
    assert str(enc.pending_expression()) == "3d4"  # the troll's Strength, its higher
    run(enc, "roll 2,1,1")
    assert str(enc.pending_expression()) == "4d4"  # Aria's Agility
    outcome = last(enc, "roll 1,1,1,1")
    assert (outcome.success, outcome.note) == (False, "4 vs 4: the status quo holds")
    assert st(enc, "aria").scaling == "troll"
    assert st(enc, "aria").stamina == stamina - 2
    outcome = last(enc, "troll: shake", "aria: pass", "roll 1,1,1")
    assert (outcome.success, outcome.note) == (True, "not opposed")
    assert st(enc, "aria").scaling is None


def test_r43_the_scaler_rides_along_and_climbing_off_ends_it() -> None:
    """R43: the scaler is on the creature ("The scaling creature’s weight is applied to target"):
    it moves with it; a scaler that moves off on its own stops scaling."""
    enc = _scaled()
    run(enc, "troll: move to 3,0")
    assert (st(enc, "aria").x, st(enc, "aria").y) == (2, 0)
    assert st(enc, "aria").scaling == "troll"
    run(enc, "troll: end turn", "aria: move to 2,1")
    assert st(enc, "aria").scaling is None


@pytest.mark.parametrize("verb", ["escape", "shake"])
def test_r42_r43_nothing_to_escape(verb: str) -> None:
    """R42/R43: escape needs a grapple, shake off a scaler."""
    enc = _climb()
    what = "not grappled" if verb == "escape" else "not being scaled"
    refused(enc, f"aria: {verb}", what)
