"""Off-turn actions in the Action Point module (R32, as amended).

R32: "On another participant's turn it pays in RP and floating RP; an AP price may be paid 2 RP
per AP. Any action may be taken off-turn if it can be paid; the GM judges whether the moment
fits: the engine accepts any payable action from a participant during another's turn, at any
moment (not only inside a reaction window), and the GM can undo it. Ruleset option
``off_turn_actions``: ``any`` (default) or ``reactions``."
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from caltrop.core.commands import Act, parse_command
from caltrop.core.model import OffTurn
from caltrop.encounter import CHANCE, Encounter
from caltrop.errors import IllegalActionError
from tests.encounter.points_builders import (
    BOW,
    SWORD,
    ap_creature,
    ap_npc,
    definition,
    pts,
    replayed,
    run,
    st,
)


def _table(mode: OffTurn = OffTurn.ANY) -> Encounter:
    aria = ap_creature("aria", weapons=(SWORD, BOW), equipped=("sword", "bow"))
    bron = ap_creature("bron", at=(0, 3))
    orc = ap_npc("orc", at=(1, 0))
    d = definition(aria, bron, orc)
    return Encounter.begin(replace(d, ruleset=replace(d.ruleset, off_turn_actions=mode)), 3)


def test_any_payable_action_is_taken_off_turn_paid_in_rp() -> None:
    """R32: "an AP price may be paid 2 RP per AP": on Aria's turn Bron moves 2 m (1 AP at 2 m
    per AP) for his 2 RP, outside any reaction window."""
    enc = _table()
    assert enc.turn_owner == "aria"
    assert not enc.pending
    run(enc, "bron: move to 0,5")
    assert (st(enc, "bron").x, st(enc, "bron").y) == (0.0, 5.0)
    assert pts(enc, "bron") == (0, 0, 0)
    assert enc.current() == "aria"  # the decision pointer is unchanged: still Aria's turn
    assert replayed(enc).to_json() == enc.to_json()


def test_floating_rp_pay_for_off_turn_actions() -> None:
    """R33: "These floating RP can be used on any other participant's turn": Bron's 2 RP and a
    floating RP pay for a 3-RP … here, a 2-AP (4-RP) price fails, a 1-AP price uses RP first."""
    enc = _table()
    run(enc, "aria: end turn", "bron: hold", "bron: end turn")
    assert pts(enc, "bron") == (0, 2, 1)  # RP set to 2 on the orc's turn, 1 floating
    with pytest.raises(IllegalActionError, match=r"needs 2 AP = 4 RP; 2 RP \+ 1 floating RP = 3"):
        enc.apply(parse_command("bron: move to 0,7"))
    run(enc, "bron: move to 0,5")
    assert pts(enc, "bron") == (0, 0, 1)


def test_an_off_turn_attack_opens_its_own_rolls_at_any_moment() -> None:
    """R32 "at any moment": the orc attacks Aria on Aria's turn (3 AP sword = 6 RP: refused with
    its 2 RP); with a cheap weapon priced 1 AP it pays 2 RP and its damage roll is pending."""
    enc = _table()
    with pytest.raises(IllegalActionError, match=r"needs 3 AP = 6 RP; 2 RP"):
        enc.apply(parse_command("orc: attack aria"))
    run(enc, "gm: set orc rp 6", "orc: attack aria")
    assert enc.pending_roll is not None
    assert enc.pending_roll.stage == "damage"
    assert enc.current() == CHANCE
    run(enc, "roll 4,4")
    assert enc.current() == "aria"  # Aria's defence window (R45)


def test_hold_stays_an_own_turn_action() -> None:
    """R33: "On your turn you may convert 2 AP into 1 RP"."""
    enc = _table()
    with pytest.raises(IllegalActionError, match=r"own turn \(R33\)"):
        enc.apply(parse_command("bron: hold"))


def test_off_turn_reactions_only_keeps_the_old_behaviour() -> None:
    """``off_turn_actions: reactions``: off-turn, only the reactions (and escape, shake off)."""
    enc = _table(OffTurn.REACTIONS)
    with pytest.raises(IllegalActionError, match="off_turn_actions: reactions"):
        enc.apply(parse_command("bron: move to 0,5"))


def test_the_decision_interface_offers_off_turn_actions_only_in_windows() -> None:
    """R32: automated drivers keep asking only inside reaction windows: no off-turn creature is
    asked to decide, and its listed actions stay empty outside a window, yet the table accepts
    the move when it is sent (``in`` asks the engine)."""
    enc = _table()
    assert list(enc.legal_actions("bron")) == []
    assert Act("bron", "move", to=(0.0, 5.0)) in enc.legal_actions("bron")
    assert enc.current() == "aria"
