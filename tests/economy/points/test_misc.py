"""Miscellaneous actions (R44), the dice core inside the Action Point module (R1–R5), what each
participant may do now, and refusals: every refusal names the rule and the numbers, and leaves the
state and the log exactly as they were.

Tests of ``economy/points/misc.py`` (tests/test_layout.py).
"""

from __future__ import annotations

import json
import re

import pytest

from caltrop.core.commands import Act, EndTurn, RollDice
from caltrop.encounter import CHANCE, Encounter
from caltrop.errors import DiceInputError, IllegalActionError, InvalidActionError
from tests.encounter.points_builders import (
    BOW,
    DAGGER,
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

# -- R44: other actions ------------------------------------------------------------------------


def _armoury() -> Encounter:
    aria = ap_creature("aria", weapons=(SWORD, DAGGER, BOW), equipped=("dagger",))
    return begin(aria, ap_npc("orc", at=(1, 0)))


def test_r44_equipping_a_weapon_costs_its_attack_ap() -> None:
    """R44, seed 004 (Equipping a Weapon): "Readying up a weapon takes as much AP as it’s attack."
    The sword (3 AP attack) takes 3 AP; the bow (2 AP) 2 AP."""
    enc = _armoury()
    run(enc, "aria: equip sword")
    assert (st(enc, "aria").ap, st(enc, "aria").equipped) == (3, ("dagger", "sword"))
    run(enc, "aria: equip bow")
    assert (st(enc, "aria").ap, st(enc, "aria").equipped) == (1, ("dagger", "sword", "bow"))
    refused(enc, "aria: equip sword", "sword is already equipped (R44)")


def test_r44_putting_a_weapon_away_costs_the_same() -> None:
    """R44, seed 004: "Safely putting it away is the same." Stowed, it no longer attacks (R38)."""
    enc = _armoury()
    run(enc, "aria: stow dagger")
    assert (st(enc, "aria").ap, st(enc, "aria").equipped) == (4, ())
    refused(enc, "aria: stow dagger", "dagger is not equipped (R44)")
    refused(enc, "aria: attack orc with dagger", "dagger is not equipped", "R44")
    run(enc, "aria: attack orc")  # no melee weapon in hand: unarmed (R38)
    assert str(enc.pending_expression()) == "1d8/2"


def test_r44_equip_needs_its_ap() -> None:
    """R44 with R32: 3 AP for the sword, with 2 left, is refused with the numbers."""
    enc = _armoury()
    run(enc, "aria: equip bow", "aria: stow bow")
    refused(enc, "aria: equip sword", "equip sword (3 AP, R44)", "needs 3 AP; 2 AP left", "R32")


def test_r44_stand_up_costs_one_ap() -> None:
    """R44, seed 004 (Stand Up): "You stand up from sitting or being prone by using 1 AP." Prone is
    the GM's fact (R34); a creature standing already cannot stand up."""
    enc = _armoury()
    refused(enc, "aria: stand", "Aria is not prone (R44)")
    run(enc, "gm: set aria prone on", "aria: stand")
    assert (st(enc, "aria").prone, st(enc, "aria").ap) == (False, 5)


def test_r44_a_martial_check_is_3_ap_and_an_analysis_check_with_a_hint_on_success() -> None:
    """R44, seed 004 (Martial Check): "You spend 3 AP to make an Analysis check. You will get a
    hint about your opponent or the environment based on the check." R44: "Analysis check against
    a GM-set DC; on success the GM's hint is recorded"."""
    enc = _armoury()
    run(enc, "aria: martial dc 6")
    assert st(enc, "aria").ap == 3
    assert str(enc.pending_expression()) == "2d4"  # Analysis 2
    failed = last(enc, "roll 3,2")
    assert (failed.dc, failed.success) == (6, False)
    assert st(enc, "aria").hints == 0
    success = last(enc, "aria: martial dc 6", "roll 3,3")
    assert success.success is True
    assert st(enc, "aria").hints == 1
    refused(enc, "aria: martial dc 6", "needs 3 AP; 0 AP left")
    refused(enc, "aria: martial", "needs the GM's DC")


# -- R1–R5 in this module ----------------------------------------------------------------------


def test_r1_r2_favor_is_advantage_from_any_source() -> None:
    """R2: "The text of 004 says Favor/Disfavor; 000 says Advantage/Disadvantage. They are the same
    thing" — a situational ``+adv:`` on a shot adds a d4 like a Favor; ``+dis:`` removes one."""
    enc = begin(ap_creature("aria", weapons=(BOW,)), ap_npc("orc", at=(5, 0)))
    run(enc, "aria: shoot orc with bow +adv:high-ground")
    assert str(enc.pending_expression()) == "6d4"  # Dexterity 4 + close 1 + 1
    run(enc, "roll 1,1,1,1,1,1", "roll 1", "roll")
    run(enc, "aria: shoot orc with bow +dis:fog +dis:rain")
    assert str(enc.pending_expression()) == "3d4"


def test_r3_the_pool_is_never_below_one_d4() -> None:
    """R3: "After Net Advantage the d4 pool is never below 1d4." Dexterity 1 at far range with a
    Disfavor: 1d4, not 0 or less."""
    archer = ap_creature("aria", weapons=(BOW,), aspects={"Dexterity": 1})
    enc = begin(archer, ap_npc("orc", at=(20, 0)))
    run(enc, "aria: shoot orc with bow +dis:fog")
    assert str(enc.pending_expression()) == "1d4"


def test_r4_a_check_succeeds_on_meeting_the_dc() -> None:
    """R4: "Success iff total ≥ DC." A Martial Check of exactly the DC succeeds."""
    enc = _armoury()
    assert last(enc, "aria: martial dc 5", "roll 4,1").success is True


def test_r5_entered_dice_are_validated_and_every_die_is_logged() -> None:
    """R5: "Entered results are validated (count and faces) and recorded exactly like generated
    ones. The log must record every die, not just totals." Wrong dice change nothing."""
    enc = begin(ap_creature("aria", weapons=(SWORD,)), ap_npc("orc", at=(1, 0)))
    run(enc, "aria: attack orc with sword")
    before = (enc.to_json(), enc.log_lines())
    for line, message in [
        ("roll 3", "2d8/2 needs 2 dice (2×d8); 1 entered"),
        ("roll 3,9", "die 2 of 2 is a d8 and shows 1 to 8, not 9"),
    ]:
        with pytest.raises(DiceInputError, match=re.escape(message)):
            enc.apply(RollDice(tuple(int(f) for f in line.split()[1].split(","))))
        assert (enc.to_json(), enc.log_lines()) == before
    run(enc, "roll 3,6")
    rng = last(enc, "roll")  # the defence window closes with no defence, no dice
    assert rng.faces == ()
    events = [json.loads(line) for line in enc.log_lines()]
    assert events[-2]["roll"]["faces"] == [3, 6]
    assert events[-2]["roll"]["expression"] == "2d8/2"
    assert events[-2]["roll"]["total"] == 5
    assert hp(enc, "orc") == 16  # 5 − Resistance 1


def test_r5_seeded_and_entered_dice_give_the_same_game() -> None:
    """R5: the engine's seeded dice and the same faces entered by hand give the same state."""
    seeded = begin(ap_creature("aria", weapons=(SWORD,)), ap_npc("orc", at=(1, 0)), seed=7)
    run(seeded, "aria: attack orc", "roll", "orc: block", "roll")
    entered = begin(ap_creature("aria", weapons=(SWORD,)), ap_npc("orc", at=(1, 0)), seed=99)
    run(entered, "aria: attack orc")
    for event in [json.loads(x) for x in seeded.log_lines()][2:]:
        if event["command"] == "roll":
            faces = ",".join(map(str, event["roll"]["faces"]))
            run(entered, f"roll {faces}")
        else:
            run(entered, event["command"])
    assert hp(entered, "orc") == hp(seeded, "orc")
    assert st(entered, "orc").rp == st(seeded, "orc").rp


# -- what each may still do now (issue 4) -----------------------------------------------------


def test_legal_actions_show_what_each_participant_may_do_now() -> None:
    """Issue 4: "The state always shows each participant's AP, RP and floating RP, and what each
    may still do now." On its turn, a participant's legal actions are those it can pay for
    (R32); off turn, nothing until there is something to react to (R40)."""
    enc = begin(
        ap_creature("aria", weapons=(SWORD, BOW), stamina=0),
        ap_npc("orc", at=(1, 0), weapons=(DAGGER,)),
    )
    mine = {str(c) for c in enc.legal_actions("aria")}
    assert {"aria: attack orc", "aria: shoot orc with bow", "aria: aim orc", "aria: hold"} <= mine
    assert "aria: end turn" in mine
    assert "aria: grapple orc" not in mine  # no Stamina for it (R37)
    assert list(enc.legal_actions("orc")) == []
    run(enc, "aria: hold", "aria: hold", "aria: aim orc")  # 1 AP left
    assert {str(c) for c in enc.legal_actions("aria")} == {"aria: end turn", "aria: aim orc"}
    run(enc, "aria: aim orc")
    assert list(enc.legal_actions("aria")) == [EndTurn("aria")]
    run(enc, "aria: end turn")
    assert enc.current() == "orc"
    run(enc, "orc: attack aria", "roll 3")
    assert enc.current() == "aria"
    assert {str(c) for c in enc.legal_actions()} == {
        "aria: cover",
        "aria: block",
        "aria: dodge",
        "aria: pass",  # R40: the defender *may* react; declining is its choice
    }
    assert all(enc.is_legal(c) for c in enc.legal_actions())


def test_the_defender_and_helpers_are_asked_in_order() -> None:
    """R45: "the target ... may Take Cover, Block or Dodge ..., adjacent allies may assist" — the
    decision pointer names the target first, then allies that can still help, then the dice."""
    enc = begin(
        ap_npc("orc", at=(1, 0)),
        ap_creature("aria"),
        ap_creature("bron", at=(-1, 0)),
        ap_creature("cara", at=(0, 5)),  # not adjacent: never asked
    )
    run(enc, "orc: attack aria", "roll 5,5")
    seen = []
    while enc.current() != CHANCE:
        who = enc.current()
        seen.append(who)
        options = list(enc.legal_actions())
        choice = next(
            (c for c in options if isinstance(c, Act) and c.action in ("dodge", "assist")),
            options[-1],
        )
        enc.apply(choice)
    assert seen == ["aria", "bron", "bron"]  # Bron's 2 RP, then nobody can help any more
    assert str(enc.pending_expression()) == "5d4"


# -- refusals ----------------------------------------------------------------------------------


def _table() -> Encounter:
    aria = ap_creature("aria", weapons=(SWORD, DAGGER, BOW), equipped=("sword", "bow"), stamina=2)
    bron = ap_creature("bron", at=(0, 1))
    orc = ap_npc("orc", at=(1, 0), weapons=(DAGGER,))
    far = ap_npc("far", at=(40, 0), size=1)
    return begin(aria, bron, orc, far)


@pytest.mark.parametrize(
    ("line", "fragments"),
    [
        ("aria: leap to 2,0", ["Leap needs 3 AP and 3 Stamina; Aria has 2 Stamina", "R36", "R37"]),
        ("aria: grapple far", ["Far is 40 m away; grapple needs adjacency (1.5 m, R34, R42)"]),
        ("aria: attack far", ["40 m away; a melee attack reaches 1.5 m", "R34"]),
        ("aria: shoot far with bow", ["Far is 40 m away; bow reaches 30 m (R39)"]),
        ("aria: attack bron", ["Aria will not attack an ally (R38)"]),
        ("aria: shoot bron with bow", ["Aria will not shoot an ally (R39)"]),
        ("aria: attack orc with dagger", ["dagger is not equipped", "R44"]),
        ("aria: shoot orc with sword", ["sword is a melee weapon", "R39"]),
        ("aria: move to 20,0", ["move 20 m (10 × 2 m per AP, R35)", "needs 10 AP; 4 AP left"]),
        ("aria: move to 0,0", ["Aria is already there (R35)"]),
        ("aria: scale", ["Scale needs 3 AP and 4 Stamina; Aria has 2 Stamina", "R43", "R37"]),
        ("aria: escape", ["Aria is not grappled (R42)"]),
        ("aria: shake", ["Aria is not being scaled (R43)"]),
        ("aria: stand", ["Aria is not prone (R44)"]),
        ("aria: breath", ["Aria's Stamina is full (R37)"]),
        ("aria: equip sword", ["sword is already equipped (R44)"]),
        ("aria: block", ["nothing to react to now", "R40"]),
        ("aria: oppose", ["nothing to react to now"]),
        ("bron: move to 0,9", ["Bron cannot move 8 m", "needs 4 AP = 8 RP; 2 RP", "(R32)"]),
        ("orc: hold", ["it is Aria's turn", "on one's own turn (R33)"]),
        ("aria: fly", ["no action 'fly'"]),
        ("aria: move to 1,1 +loud", ["unknown flag(s) loud"]),
        ("aria: move to 1,1 +careful", ["+careful goes with +stealth (R41"]),
        ("aria: attack ghost", ["no creature 'ghost'"]),
        ("roll", ["no roll is pending"]),
        ("orc: pass", ["nothing to pass on"]),
    ],
)
def test_every_refusal_names_the_rule_and_the_numbers(line: str, fragments: list[str]) -> None:
    """Issue 4: "Every refusal names the rule and the numbers ('Leap needs 3 AP and 3 Stamina;
    Brakka has 2 Stamina')." and issue 3: a refused command leaves state and log exactly as they
    were."""
    enc = _table()
    run(enc, "aria: move to 0,-0.5", "aria: move to 0,0")  # a log to keep unchanged
    message = refused(enc, line, *fragments)
    assert message


def test_rules_refusals_cite_a_ruling() -> None:
    """Every refusal by the rules (not a typo) names its ruling, R30–R45."""
    enc = _table()
    lines = [
        "aria: leap to 2,0",
        "aria: grapple far",
        "aria: scale far",
        "aria: hold",
        "bron: hold",
        "aria: escape",
        "aria: shake",
        "aria: cover",
        "aria: equip sword",
        "aria: stow dagger",
        "aria: stand",
        "aria: breath",
        "aria: attack bron",
        "aria: move to 0,0",
    ]
    run(enc, "aria: hold", "aria: hold", "aria: hold")
    for line in lines:
        with pytest.raises(IllegalActionError) as info:
            run(enc, line)
        assert re.search(r"R(3\d|4[0-5])\b", str(info.value)), str(info.value)


def test_malformed_commands_are_invalid_not_illegal() -> None:
    """A command that cannot mean anything is an :class:`InvalidActionError` with the fix."""
    enc = _table()
    for line, fix in [
        ("aria: move", "'aria: move to X,Y'"),
        ("aria: attack", "'aria: attack TARGET'"),
        ("aria: hold orc", "hold takes no target"),
        ("aria: martial", "'aria: martial dc 12'"),
        ("aria: attack orc with sword dc 3", "attack takes no DC"),
        ("aria: shoot orc", "which ranged weapon"),
    ]:
        if line == "aria: shoot orc":
            enc2 = begin(ap_creature("aria", weapons=(BOW,), equipped=()), ap_npc("orc", at=(1, 0)))
            with pytest.raises(InvalidActionError, match=re.escape(fix)):
                run(enc2, line)
            continue
        with pytest.raises(InvalidActionError, match=re.escape(fix)):
            run(enc, line)
