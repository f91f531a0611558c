"""Attacking and defending in the Action Point module (seed 004): melee (R38), ranged and aim
(R39), the defences (R40) and the order of an attack (R45).

Every roll is entered as physical dice (R5), so every number below can be checked by hand.

Tests of ``economy/points/attacks.py``, ``economy/points/defence.py`` (tests/test_layout.py).
"""

from __future__ import annotations

import pytest

from caltrop.economy.points.state import stat
from caltrop.encounter import CHANCE, Act, Pass
from caltrop.errors import IllegalActionError
from tests.encounter.points_builders import (
    BOW,
    DAGGER,
    MACE,
    SLING,
    SWORD,
    ap_creature,
    ap_npc,
    begin,
    hp,
    last,
    refused,
    run,
    st,
)

# -- R38: melee --------------------------------------------------------------------------------


def _melee(**aria: object) -> object:
    weapons = aria.pop("weapons", (SWORD, DAGGER, MACE))
    a = ap_creature("aria", weapons=weapons, **aria)  # type: ignore[arg-type]
    return begin(a, ap_npc("orc", at=(1, 0), resistance=1, health=40))


def test_r38_melee_has_no_roll_to_hit_damage_is_rolled_at_once() -> None:
    """R38, seed 004: "To make a melee attack you do not roll to hit. Instead, attack damage can be
    negated (refer to Defending)." The declared attack's first roll is its damage."""
    enc = _melee()
    run(enc, "aria: attack orc with sword")
    assert enc.pending_roll is not None
    assert enc.pending_roll.stage == "damage"
    assert str(enc.pending_expression()) == "2d8/2"
    assert enc.current() == CHANCE


@pytest.mark.parametrize(
    ("weapons", "faces", "ap", "rolled"),
    [
        ("sword", "3,4", 3, 4),  # ceil(7 / 2)
        ("sword", "8,8", 3, 8),
        ("sword", "1,1", 3, 1),
        ("dagger", "3", 2, 2),  # ceil(3 / 2)
        ("mace", "5", 4, 5),  # ceil(5 / 2) + 2: the modifier is not halved
        ("sword+dagger", "8,7,4", 3, 10),  # the highest AP; ceil(19 / 2)
        ("dagger+mace", "1,2", 4, 4),  # ceil(3 / 2) + 2
    ],
)
def test_r38_damage_is_halved_up_and_modifiers_are_added(
    weapons: str, faces: str, ap: int, rolled: int
) -> None:
    """R38, seed 004: "For damage dealt, rolled value is halved up, but modifiers are added
    normally." and "While having multiple weapons equipped, you may attack with them
    simultaneously. Number of AP required is determined by the weapon with the highest AP cost."
    R38: "deals their damages summed, as one attack"."""
    enc = _melee()
    run(enc, f"aria: attack orc with {weapons}")
    assert st(enc, "aria").ap == 6 - ap
    outcome = last(enc, f"roll {faces}")
    assert outcome.total == rolled
    assert outcome.note == f"{rolled} damage incoming"
    dealt = last(enc, "roll")  # the orc takes no defence: Resistance 1 still applies (R40)
    assert dealt.damage == max(0, rolled - 1)
    assert hp(enc, "orc") == 40 - max(0, rolled - 1)


def test_r38_unarmed_is_two_ap_and_1d8_halved_plus_power_mod() -> None:
    """R38, seed 004: "Standard unarmed attack requires 2 AP, and it’s damage is (1d8 + [Power
    Mod])." — the d8 halved up (R38), Power Mod added. Used ``with unarmed`` or when no melee
    weapon is equipped."""
    enc = _melee(power_mod=2, weapons=(BOW,))
    run(enc, "aria: attack orc")
    assert st(enc, "aria").ap == 4
    assert str(enc.pending_expression()) == "1d8/2+2"
    assert last(enc, "roll 7").total == 6
    run(enc, "roll", "aria: attack orc with unarmed")
    assert last(enc, "roll 1").total == 3


def test_r38_only_equipped_weapons_attack() -> None:
    """R38: "Attacking with several *equipped* weapons" — a weapon in the pack must be readied
    first (R44); a ranged weapon does not make a melee attack."""
    enc = _melee(equipped=("sword", "bow"), weapons=(SWORD, DAGGER, BOW))
    refused(enc, "aria: attack orc with sword+dagger", "dagger is not equipped", "R44")
    refused(enc, "aria: attack orc with axe", "no weapon 'axe'")
    refused(enc, "aria: attack orc with bow", "bow is a ranged weapon")
    run(enc, "aria: equip dagger", "aria: attack orc with sword+dagger")
    assert st(enc, "aria").ap == 1  # 2 AP to equip the dagger, 3 AP for the attack


def test_r38_the_attack_ap_must_be_there() -> None:
    """R38 with R32: the sword's 3 AP, with 2 AP left, is refused with the numbers."""
    enc = _melee()
    run(enc, "aria: attack orc with dagger", "roll 1", "roll", "aria: attack orc with dagger")
    run(enc, "roll 1", "roll")
    refused(enc, "aria: attack orc with sword", "attack with sword (3 AP", "needs 3 AP; 2 AP left")


# -- R39: ranged -------------------------------------------------------------------------------


def _archery(at: tuple[float, float] = (5, 0), **aria: object) -> object:
    a = ap_creature("aria", weapons=(BOW, SLING, SWORD), aspects={"Dexterity": 4}, **aria)  # type: ignore[arg-type]
    return begin(a, ap_npc("orc", at=at, resistance=1, health=40))


@pytest.mark.parametrize(
    ("at", "weapon", "pool"),
    [
        ((5, 0), "bow", "5d4"),  # within close 10: Dexterity 4 + 1 Favor
        ((10, 0), "bow", "5d4"),  # close range includes 10 m
        ((10.5, 0), "bow", "3d4"),  # 11 m: beyond close, within far 30: 1 Disfavor
        ((30, 0), "bow", "3d4"),
        ((5, 0), "sling", "5d4"),  # close 5
        ((6, 0), "sling", "3d4"),  # far 10
    ],
)
def test_r39_close_range_favor_far_range_disfavor(
    at: tuple[float, float], weapon: str, pool: str
) -> None:
    """R39, seed 004: "If your target is within close range, you gain Favor. If your target is
    within far range, you gain Disfavor." A Favor is a d4 more, a Disfavor one fewer (R2)."""
    enc = _archery(at)
    run(enc, f"aria: shoot orc with {weapon}")
    assert str(enc.pending_expression()) == pool
    assert enc.pending_roll is not None
    assert enc.pending_roll.stage == "hit"


def test_r39_beyond_far_range_the_hit_is_impossible() -> None:
    """R39, seed 004: "Otherwise the hit is impossible" — refused, with the distance (rounded up,
    R34) and the reach."""
    enc = _archery((30.2, 0))
    refused(enc, "aria: shoot orc with bow", "Orc is 31 m away; bow reaches 30 m", "R39")
    refused(enc, "aria: shoot orc with sling", "sling reaches 10 m")


def test_r39_the_hit_is_a_dexterity_check_against_the_distance() -> None:
    """R39, seed 004: "To hit, you make a Dexterity check with the difficulty being the distance
    between you and your target in meters." Hit iff total ≥ DC (R4); a miss rolls no damage."""
    enc = _archery((7, 0))
    miss = last(enc, "aria: shoot orc with bow", "roll 2,1,1,1,1")
    assert (miss.dc, miss.total, miss.success, miss.note) == (7, 6, False, "miss")
    assert not enc.pending
    hit = last(enc, "aria: shoot orc with bow", "roll 2,2,1,1,1")
    assert (hit.dc, hit.total, hit.success) == (7, 7, True)
    assert enc.pending_roll is not None
    assert enc.pending_roll.stage == "damage"


def test_r39_ranged_damage_is_the_weapons_dice_not_halved() -> None:
    """R39: "Damage = the weapon's dice, not halved." The bow's 1d8 rolls 7: 7 − Resistance 1."""
    enc = _archery()
    run(enc, "aria: shoot orc with bow", "roll 4,4,4,4,4")
    assert str(enc.pending_expression()) == "1d8"
    assert last(enc, "roll 7").total == 7
    assert last(enc, "roll").damage == 6
    assert hp(enc, "orc") == 34


def test_r39_aim_stacks_are_spent_by_the_next_ranged_attack_and_not_by_the_one_after() -> None:
    """R39, seed 004: "You can use 1 AP to Aim and gain Favor on your next ranged attack. Favors
    gained by this mean are stackable." Two Aims: +2 Favor on the next shot only."""
    enc = _archery()
    run(enc, "aria: aim orc", "aria: aim orc")
    assert (st(enc, "aria").aim, st(enc, "aria").ap) == (2, 4)
    run(enc, "aria: shoot orc with sling")
    assert str(enc.pending_expression()) == "7d4"  # Dexterity 4 + close 1 + aim 2
    run(enc, "roll 1,1,1,1,1,1,1", "roll 1", "roll")
    assert st(enc, "aria").aim == 0
    run(enc, "aria: shoot orc with sling")
    assert str(enc.pending_expression()) == "5d4"  # the one after: no aim left


def test_r39_aim_is_lost_after_a_move() -> None:
    """R39, seed 004: "If you do any action other than ranged attack ... the stacks are lost." A
    move is such an action."""
    enc = _archery()
    run(enc, "aria: aim orc", "aria: aim orc", "aria: move to 0,1")
    assert st(enc, "aria").aim == 0
    run(enc, "aria: shoot orc with bow")
    assert str(enc.pending_expression()) == "5d4"


@pytest.mark.parametrize("other", ["aria: hold", "aria: stow sling", "aria: breath"])
def test_r39_aim_is_lost_after_any_other_action(other: str) -> None:
    """R39: "All aim is lost when the aimer takes any action other than Aim or a ranged attack"."""
    enc = _archery(stamina=6, equipped=("bow", "sling"))
    run(enc, "aria: leap to 0,1", "aria: aim orc")  # the leap spends Stamina for the breath
    assert st(enc, "aria").aim == 1
    run(enc, other)
    assert st(enc, "aria").aim == 0


def test_r39_aim_is_lost_after_a_reaction_too() -> None:
    """R39: "(a reaction too)" — Aria aims, then blocks the orc's attack on its turn: the aim is
    gone when her turn comes back."""
    enc = begin(
        ap_creature("aria", weapons=(BOW,)),
        ap_npc("orc", at=(1, 0), weapons=(DAGGER,)),
    )
    run(enc, "aria: aim orc", "aria: end turn")
    run(enc, "orc: attack aria", "roll 2")
    assert st(enc, "aria").aim == 1
    run(enc, "aria: block", "roll 1,1,1")
    assert st(enc, "aria").aim == 0


def test_r39_aim_survives_a_pass_and_other_creatures_turns() -> None:
    """R39: only the aimer's own actions (and its target leaving its sight) end aim: declining to
    react is no action, and the turn ending is none either."""
    enc = begin(
        ap_creature("aria", weapons=(BOW,)),
        ap_creature("bron", at=(0, 1)),
        ap_npc("orc", at=(1, 0), weapons=(DAGGER,)),
    )
    run(enc, "aria: aim orc", "aria: end turn", "bron: end turn")
    run(enc, "orc: attack bron", "roll 2", "bron: block", "aria: pass", "roll 1,1,1")
    run(enc, "orc: end turn")
    assert st(enc, "aria").aim == 1
    run(enc, "aria: shoot orc with bow")
    assert str(enc.pending_expression()) == "6d4"


def test_r39_aim_is_lost_when_the_target_moves_out_of_sight() -> None:
    """R39, seed 004: "or the target moved at least 1 meter out of your line of sight, the stacks
    are lost." Line of sight is the GM's fact (R34): in sight, a move keeps the aim."""
    enc = begin(
        ap_creature("aria", weapons=(BOW,)),
        ap_npc("orc", at=(6, 0)),
        ap_npc("gob", at=(6, 3)),
    )
    run(enc, "aria: aim orc", "aria: aim gob", "aria: end turn")
    assert (st(enc, "aria").aim, st(enc, "aria").aim_target) == (2, "gob")
    run(enc, "orc: move to 8,0", "orc: end turn")  # not the aim target
    run(enc, "gob: move to 6,5")  # moved in Aria's sight
    assert st(enc, "aria").aim == 2
    run(enc, "gm: set aria sight gob off", "gob: move to 6,5.5")  # out of sight, only 0.5 m
    assert st(enc, "aria").aim == 2
    run(enc, "gob: move to 6,6.5")  # out of sight, 1 m
    assert st(enc, "aria").aim == 0


# -- R45 and R40: the defence window -----------------------------------------------------------


def _fight(*helpers: object, orc_ap: int = 6, **defender: object) -> object:
    """The orc (first in the order) attacks Aria with a sword; Aria's allies stand next to her."""
    orc = ap_npc("orc", at=(1, 0), weapons=(SWORD, BOW), health=40, ap=orc_ap)
    aria = ap_creature("aria", health=40, **defender)  # type: ignore[arg-type]
    return begin(orc, aria, *helpers)  # type: ignore[arg-type]


def test_r45_damage_is_rolled_before_the_defender_chooses() -> None:
    """R45: "Declare → (ranged only) the Dexterity check to hit → damage rolled → reaction window
    ... → defence dice rolled → damage applied to Health. The defender therefore knows the
    damage before choosing Block or Dodge, as at a real table." Seed 004: "You may use an AP or a
    RP to react to an incoming attack that you are aware of.\""""
    enc = _fight()
    run(enc, "orc: attack aria with sword")
    assert enc.current() == CHANCE  # damage first: nobody reacts to the damage roll itself
    incoming = last(enc, "roll 6,5")
    assert (incoming.total, incoming.note) == (6, "6 damage incoming")
    assert hp(enc, "aria") == 40  # not applied yet
    assert enc.current() == "aria"
    assert set(map(str, enc.legal_actions())) == {
        "aria: cover",
        "aria: block",
        "aria: dodge",
        "aria: pass",
    }
    run(enc, "aria: block")
    assert enc.current() == CHANCE
    assert str(enc.pending_expression()) == "3d4"
    assert last(enc, "roll 1,1,1").damage == 2  # 6 − (3 + Resistance 1)
    assert hp(enc, "aria") == 38


def test_r45_ranged_order_hit_then_damage_then_window() -> None:
    """R45: for a ranged attack the Dexterity check to hit comes first; only a hit rolls damage,
    and only then may the target defend."""
    enc = _fight()
    run(enc, "orc: shoot aria with bow")
    assert enc.pending_roll is not None
    assert enc.pending_roll.stage == "hit"
    assert enc.current() == CHANCE
    refused(enc, "aria: block", "answers an incoming attack", "R40")
    run(enc, "roll 4,4,4,4,4")  # 20 ≥ DC 1
    assert enc.pending_roll.stage == "damage"
    run(enc, "roll 5")
    assert enc.current() == "aria"
    run(enc, "aria: dodge")
    assert last(enc, "roll 1,1,1").damage == 5  # dodge 4 < 5: fully dealt


def test_r45_take_cover_comes_before_block_or_dodge() -> None:
    """R45: "may Take Cover, Block or Dodge (each a separate reaction with its own cost; Take Cover
    first if both)"."""
    enc = _fight()
    run(enc, "orc: attack aria", "roll 6,5", "aria: block")
    refused(enc, "aria: cover", "Take Cover comes before Block or Dodge (R45)")
    refused(enc, "aria: dodge", "already chose to block")


def test_r40_block_subtracts_the_dice_and_resistance() -> None:
    """R40, seed 004 (Block): "You roll your Block Rating and add Resistance, reducing the damage
    dealt by the result." Never below 0."""
    enc = _fight(block=3, resistance=2)
    run(enc, "orc: attack aria", "roll 8,8", "aria: block")
    outcome = last(enc, "roll 2,2,1")
    assert (outcome.damage, outcome.note) == (1, "block 7 (dice 5 + Resistance 2)")
    run(enc, "orc: end turn", "aria: end turn")
    run(enc, "orc: attack aria", "roll 1,1", "aria: block")
    assert last(enc, "roll 1,1,1").damage == 0


@pytest.mark.parametrize(
    ("incoming", "faces", "block", "dodge"),
    [
        ("5,5", "3,3,3", 0, 0),  # 5 vs 10: both stop it
        ("8,8", "3,3,3", 0, 0),  # 8 vs 10
        ("8,7", "3,3,3", 0, 0),  # 8 vs 10
        ("8,8", "2,2,2", 1, 8),  # 8 vs 7: block lets 1 through, dodge lets all 8
        ("8,8", "1,1,1", 4, 8),
        ("6,5", "1,1,1", 2, 6),  # 6 vs 4
        ("6,6", "1,1,2", 1, 6),  # 6 vs 5
    ],
)
def test_r40_dodge_is_all_or_nothing_where_block_is_partial(
    incoming: str, faces: str, block: int, dodge: int
) -> None:
    """R40, seed 004 (Dodge): "You roll your Dodge Rating and add Resistance. If the result is
    equal to or higher than the damage that would be dealt to your health, all damage is
    prevented. If the result is lower, damage is fully dealt to you" — R40: "Resistance not
    subtracted (the text's 'fully dealt')". Block with the same dice only reduces."""
    results = {}
    for mode in ("block", "dodge"):
        enc = _fight(block=3, dodge=3, resistance=1)
        run(enc, "orc: attack aria", f"roll {incoming}", f"aria: {mode}")
        results[mode] = last(enc, f"roll {faces}").damage
    damage = -(-sum(map(int, incoming.split(","))) // 2)
    defence = sum(map(int, faces.split(","))) + 1
    assert results["block"] == max(0, damage - defence) == block
    assert results["dodge"] == (0 if defence >= damage else damage) == dodge


def test_r40_no_defence_still_subtracts_resistance() -> None:
    """R40: "No defence: damage − Resistance, never below 0 (resistance always applies unless
    stated)." Seed 004 (Resistance): "Your Resistance value always applies to incoming damage, if
    not stated otherwise." With no Block or Dodge the window closes on a roll of no dice."""
    enc = _fight(resistance=3)
    run(enc, "orc: attack aria", "roll 8,7")
    assert str(enc.pending_expression()) == "0"
    outcome = last(enc, "roll")
    assert (outcome.damage, outcome.note) == (5, "no defence: Resistance 3")
    run(enc, "orc: attack aria", "roll 2,3", "roll")
    assert hp(enc, "aria") == 35  # 3 − 3 = 0 more


def test_r40_take_cover_doubles_the_dice_then_adds_resistance() -> None:
    """R40, seed 004 (Take Cover): "Any Dodge or Block rolls used against the source of damage are
    doubled, until the positions are changed." R40: "the dice total of Block or Dodge against that
    source is doubled (then Resistance is added)"."""
    enc = _fight(block=3, dodge=3, resistance=1)
    run(enc, "orc: attack aria", "roll 8,8", "aria: cover")
    assert st(enc, "aria").cover_from == ("orc",)
    run(enc, "aria: block")
    assert st(enc, "aria").rp == 0  # Take Cover and Block: 1 RP each
    outcome = last(enc, "roll 1,1,1")
    assert (outcome.damage, outcome.note) == (1, "block 7 (dice 6 + Resistance 1)")


def test_r40_take_cover_doubles_a_dodge_too() -> None:
    """R40: Take Cover doubles "Block or Dodge": a dodge of 2,2,1 in cover is 10 + 1 ≥ 8."""
    enc = _fight(dodge=3, resistance=1)
    run(enc, "orc: attack aria", "roll 8,8", "aria: cover", "aria: dodge")
    assert last(enc, "roll 2,2,1").damage == 0


def test_r40_cover_lasts_until_the_positions_change() -> None:
    """R40, seed 004: "until the positions are changed" — cover taken against the orc also doubles
    the next Block against it (and is not bought twice); when the orc moves, it is gone.
    (Fixed: cover was applied only in the window it was taken in.)"""
    enc = _fight(orc_ap=9, block=3, resistance=1)
    run(enc, "orc: attack aria", "roll 8,8", "aria: cover", "aria: block", "roll 1,1,1")
    assert hp(enc, "aria") == 39
    run(enc, "orc: end turn", "aria: hold", "aria: hold", "aria: end turn")
    assert (st(enc, "aria").rp, st(enc, "aria").floating) == (2, 2)
    run(enc, "orc: attack aria", "roll 8,8")
    assert "aria: cover" not in map(str, enc.legal_actions())
    refused(enc, "aria: cover", "already in cover from Orc", "R40")
    run(enc, "aria: block")
    outcome = last(enc, "roll 1,1,1")
    assert (outcome.damage, outcome.note) == (1, "block 7 (dice 6 + Resistance 1)")
    run(enc, "orc: move to 1,1")  # positions changed: the cover is gone
    assert st(enc, "aria").cover_from == ()
    run(enc, "orc: attack aria", "roll 8,8", "aria: block")
    outcome = last(enc, "roll 1,1,1")
    assert (outcome.damage, outcome.note) == (4, "block 4 (dice 3 + Resistance 1)")


def test_r40_several_defense_assists_add_dice() -> None:
    """R40, seed 004 (Defense Assist): "If a creature adjacent to you is being attacked, you can
    use 1 RP to add 1 die to their Block or Dodge rating, any number of times." R40: "from any
    number of helpers". Bron assists twice, Cara once: Block 3 + 3 dice."""
    bron = ap_creature("bron", at=(0, 1))
    cara = ap_creature("cara", at=(-1, 0))
    enc = _fight(bron, cara, block=3, resistance=1)
    run(enc, "orc: attack aria", "roll 8,8", "aria: block")
    assert enc.current() == "bron"
    run(enc, "bron: assist", "bron: assist")
    assert enc.current() == "cara"
    assert st(enc, "bron").rp == 0
    refused(enc, "bron: assist", "Bron cannot", "needs 1 RP; 0 RP + 0 floating RP = 0")
    run(enc, "cara: assist", "cara: pass")
    assert enc.current() == CHANCE
    assert str(enc.pending_expression()) == "6d4"
    outcome = last(enc, "roll 1,1,1,1,1,1")
    assert outcome.damage == 1  # 8 − (6 + 1)


def test_r40_assists_help_a_dodge_too_and_need_adjacency() -> None:
    """R40: "add 1 d4 to the defender's Block or Dodge pool"; "an adjacent participant" — a
    helper 3 m away is refused with the distance."""
    near = ap_creature("bron", at=(0, 1))
    far = ap_creature("cara", at=(-3, 0))
    enc = _fight(near, far, dodge=2)
    run(enc, "orc: attack aria", "roll 8,8", "aria: dodge", "bron: assist")
    refused(enc, "cara: assist", "3 m away; assist needs adjacency (R40)")
    assert str(enc.pending_expression()) == "3d4"


def test_r40_an_assist_needs_a_block_or_dodge_to_add_to() -> None:
    """R40: a Defense Assist adds a die "to the defender's Block or Dodge pool" — with neither
    chosen there is nothing to add it to (fixed: the RP were spent for nothing)."""
    bron = ap_creature("bron", at=(0, 1))
    enc = _fight(bron)
    run(enc, "orc: attack aria", "roll 8,8")
    refused(enc, "bron: assist", "Defense Assist adds a die to a Block or Dodge", "R40")
    refused(enc, "orc: assist", "helps an adjacent ally")


def test_r40_a_defence_costs_one_ap_or_rp() -> None:
    """R40, seed 004: "You may use an AP or a RP to react"; off turn that is 1 RP (R32); with no
    RP left a Block is refused, and the defender is not asked (the window goes to the dice)."""
    enc = _fight(orc_ap=9)
    run(enc, "orc: attack aria", "roll 8,8", "aria: cover", "aria: block", "roll 4,4,4")
    assert st(enc, "aria").rp == 0
    run(enc, "orc: move to 1,1", "orc: attack aria with sword", "roll 2,2")
    assert enc.current() == CHANCE  # Aria can pay for nothing
    refused(enc, "aria: block", "needs 1 RP; 0 RP + 0 floating RP = 0", "R40", "R32")


def test_r40_only_the_target_defends() -> None:
    """R40: Block, Dodge and Take Cover are the target's own reactions."""
    bron = ap_creature("bron", at=(0, 1))
    enc = _fight(bron)
    run(enc, "orc: attack aria", "roll 8,8")
    refused(enc, "bron: block", "only Aria, the target, may block (R40)")
    assert Act("bron", "dodge") not in enc.legal_actions("bron")
    assert Pass("bron") in enc.legal_actions("bron")


def test_r40_an_unsuspecting_target_cannot_defend() -> None:
    """R40, seed 004 (Stealth): "When attacking an unsuspecting opponent, they cannot react to
    your attack, and thus cannot use a defensive action." R40: "An unsuspecting target (R41)
    cannot defend." Resistance still applies."""
    enc = _fight(resistance=1)
    run(enc, "gm: set aria aware orc off", "orc: attack aria")
    outcome = last(enc, "roll 8,7")
    assert (outcome.damage, outcome.note) == (7, "unsuspecting")
    assert hp(enc, "aria") == 33
    assert not enc.pending
    refused(enc, "aria: block", "nothing to react to now")


def test_r41_an_attack_without_stealth_is_noticed_after_it_lands() -> None:
    """R41, seed 004: "To make an action while remaining inconspicuous, you make a Poise check" —
    an attack made without it is conspicuous: the unsuspecting target cannot defend against it
    (R40), but notices the attacker afterwards and may defend against the next one (an ambush is
    one free blow, not many; a stealthy attacker keeps hiding only by beating its checks)."""
    enc = _fight(orc_ap=9)
    run(enc, "gm: set aria aware orc off", "orc: attack aria", "roll 2,2")
    assert st(enc, "aria").unaware_of == ()
    run(enc, "orc: attack aria", "roll 2,2")
    assert enc.current() == "aria"
    # a shot that misses gives the archer away too
    enc = _fight()
    run(enc, "gm: set aria aware orc off", "gm: set orc at 9,0", "orc: shoot aria with bow")
    assert last(enc, "roll 1,1,1,1,1").note == "miss"
    assert st(enc, "aria").unaware_of == ()


def test_r40_a_downed_target_ends_the_encounter() -> None:
    """R40 with R16 (as R45 says: "0 Health: down"): damage applied after the defence may down the
    target; the last standing side wins."""
    orc = ap_npc("orc", at=(1, 0), weapons=(SWORD,))
    aria = ap_creature("aria", health=3, resistance=0)
    enc = begin(orc, aria)
    run(enc, "orc: attack aria", "roll 8,8", "aria: block")
    outcome = last(enc, "roll 1,1,1")
    assert (outcome.damage, outcome.downed) == (5, True)
    assert enc.is_terminal()
    assert enc.winner is not None
    assert enc.winner.value == "npc"


def test_r40_the_defender_may_decline_to_defend_by_passing() -> None:
    """R40: "A participant aware of an incoming attack *may* react" — declining is a choice the
    decision pointer should offer: the defender is asked (``current()``), so ``pass`` should be
    among its legal actions, as it is for everyone else in a window (R45)."""
    enc = _fight()
    run(enc, "orc: attack aria", "roll 4,4")
    assert enc.current() == "aria"
    assert Pass("aria") in enc.legal_actions("aria")
    assert Pass("aria") in list(enc.legal_actions("aria"))
    health = enc.health[enc.index("aria")]
    run(enc, "aria: pass")
    assert enc.current() != "aria"  # passed: not asked again on this roll
    with pytest.raises(IllegalActionError, match="already passed"):
        enc.apply(Pass("aria"))
    outcome = last(enc, "roll")  # no defence: a roll of 0, Resistance still applies (R40)
    assert outcome.damage == max(0, 4 - stat(enc.creatures[enc.index("aria")], "resistance"))
    assert enc.health[enc.index("aria")] == health - outcome.damage
