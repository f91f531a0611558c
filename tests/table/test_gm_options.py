"""The GM acts for any creature by tapping it (issue 22 item 3): R48 "the GM may issue every
command", so the GM's view lists, beside the NPCs', the options of every player character who
decides now, with the same commands, pools and odds that PC's own seat gets (a PC no seat has
taken is played by the GM from its screen).

Tests of ``table/view.py`` (tests/test_layout.py).
"""

from __future__ import annotations

import pytest

from caltrop.core.commands import GM
from caltrop.core.model import Side
from caltrop.table import HealthShown, Reveal, view
from tests.table.plays import begin, random_play


def pcs(name: str) -> list[str]:
    return [c.id for c in begin(name).creatures if c.side is Side.PC]


@pytest.mark.parametrize(
    ("name", "seed"),
    [("goblin-ambush", 1), ("goblin-ambush", 2), ("warband-ap", 3), ("bridge-duel-ap", 4)],
)
def test_the_gms_options_for_a_pc_are_its_seats(name: str, seed: int) -> None:
    """At every step of a random play-out: each PC the GM's view lists has exactly the
    options its seat's view lists (as JSON, so commands, pools and odds alike); the PC the
    engine asks now, the turn owner and each PC still to answer the pending roll (R15) are
    listed, and so is a PC who passed but whose seat may still react in the window; any other
    PC is left out (the GM's view is worked out after every command)."""
    enc = begin(name, seed)
    players = pcs(name)
    left_out = listed = 0
    for _ in random_play(enc, seed, 120):
        gm = view(enc, GM)
        waiting = gm.pending.waiting_on if gm.pending is not None else ()
        for pc in players:
            deciding = pc in (enc.current(), enc.turn_owner, *waiting)
            if enc.pending_roll is not None:  # one who passed may still react (R15)
                deciding = deciding or any(o.legal for o in view(enc, pc).options.get(pc, ()))
            if pc in gm.options:
                listed += 1
                seat = view(enc, pc).options[pc]
                assert [o.as_dict() for o in gm.options[pc]] == [o.as_dict() for o in seat]
            else:
                left_out += 1
                assert enc.over or not deciding, pc
        if enc.current() in players:
            assert any(o.legal for o in gm.options[enc.current()])
    assert listed
    assert left_out


def test_an_unseated_pcs_odds_against_a_hidden_npc_stay_the_seats() -> None:
    """The odds a PC's option shows on the GM's screen are those its seat sees: rounded
    against an NPC whose Aspects are hidden (the exact fraction would pin its Evasion), none
    against one whose odds the GM hides, whatever the GM sees of its own NPCs."""
    enc = begin("goblin-ambush", 5)
    turn = enc.turn_owner
    for _ in random_play(enc, 5, 200):
        turn = enc.turn_owner
        if enc.pending_roll is None and enc.creature(turn).side is Side.PC:
            break
    assert enc.creature(turn).side is Side.PC
    npcs = [c.id for c in enc.creatures if c.side is Side.NPC]
    hidden = {
        n: Reveal(HealthShown.LABEL, aspects=False, resources=False, odds=False) for n in npcs
    }
    seen = view(enc, GM, hidden).options[turn]
    attacks = [o for o in seen if o.legal and o.pool is not None]
    assert attacks
    assert all(o.odds is None for o in attacks if o.command.split()[-1] in npcs)
    assert seen == view(enc, turn, hidden).options[turn]
