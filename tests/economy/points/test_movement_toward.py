"""Partial moves (R35, with R32 and R34): ``move toward ID [N m]`` and ``move N m toward X,Y``.

R35: "1 AP moves up to the participant's travel speed in meters." A move toward a creature goes
straight at it and stops when adjacent (R34: within 1.5 m); either form goes as far as the AP the
mover can pay allow (off turn, its RP at 2 RP per AP, R32), or N meters if that is less.

Tests of ``economy/points/movement.py`` (tests/test_layout.py).
"""

from __future__ import annotations

import math

import pytest

from caltrop.core.commands import parse_command
from caltrop.errors import IllegalActionError, InvalidActionError
from tests.encounter.points_builders import ap_creature, ap_npc, begin, pts, replayed, run, st


def _far() -> tuple[float, float]:
    return (20.0, 0.0)


def test_move_toward_a_creature_stops_adjacent() -> None:
    enc = begin(ap_creature("aria"), ap_npc("orc", at=(5, 0)))  # travel speed 2 m per AP
    run(enc, "aria: move toward orc")
    s = st(enc, "aria")
    assert math.hypot(5 - s.x, 0 - s.y) <= 1.5  # adjacent (R34)
    assert pts(enc, "aria")[0] == 6 - 2  # 3.55 m at 2 m per AP: 2 AP
    assert replayed(enc).to_json() == enc.to_json()


def test_move_toward_goes_as_far_as_the_ap_allow() -> None:
    enc = begin(ap_creature("aria"), ap_npc("orc", at=_far()))
    run(enc, "aria: move toward orc")
    assert pts(enc, "aria")[0] == 0  # all 6 AP: 11.99 m of the 18.5 m
    assert 11.9 <= st(enc, "aria").x <= 12.0


def test_move_n_meters_toward_a_point() -> None:
    enc = begin(ap_creature("aria"), ap_npc("orc", at=_far()))
    run(enc, "aria: move 3 m toward 0,10")
    assert (st(enc, "aria").x, st(enc, "aria").y) == (0.0, 3.0)
    assert pts(enc, "aria")[0] == 4  # 3 m at 2 m per AP: 2 AP
    run(enc, "aria: move toward orc 1.5 m")
    assert pts(enc, "aria")[0] == 3


def test_partial_moves_are_refused_with_the_reason() -> None:
    enc = begin(ap_creature("aria"), ap_npc("orc", at=(1, 0)))
    with pytest.raises(IllegalActionError, match="already adjacent"):
        enc.apply(parse_command("aria: move toward orc"))
    with pytest.raises(InvalidActionError, match="a distance goes with 'toward'"):
        parse_command("aria: move 3 m to 1,1")
    with pytest.raises(InvalidActionError, match="no creature 'ghost'"):
        enc.apply(parse_command("aria: move toward ghost"))
    run(
        enc,
        "aria: move 1 m toward -9,0",
        "aria: move 1 m toward -9,0",
        "aria: move 1 m toward -9,0",
    )
    run(
        enc,
        "aria: move 1 m toward -9,0",
        "aria: move 1 m toward -9,0",
        "aria: move 1 m toward -9,0",
    )
    assert pts(enc, "aria")[0] == 0
    with pytest.raises(IllegalActionError, match="0 AP left"):
        enc.apply(parse_command("aria: move toward orc"))


def test_off_turn_a_partial_move_spends_the_rp_it_has() -> None:
    """R32: off turn an AP price is paid 2 RP per AP: 2 RP buy one AP's worth, 2 m."""
    enc = begin(ap_creature("aria"), ap_npc("orc", at=_far()))
    run(enc, "orc: move toward aria")
    assert st(enc, "orc").x == pytest.approx(18.01)
    assert pts(enc, "orc") == (0, 0, 0)


def test_a_declined_defence_settles_without_a_roll_of_zero() -> None:
    """R40 "No defence: damage − Resistance", R45: once the defender passes and nobody can
    assist, the defence roll has no dice: ``settle`` rolls it (an ordinary logged ``roll``), so
    the table never asks for a ``roll`` of ``0``."""
    enc = begin(ap_creature("aria"), ap_npc("orc", at=(1, 0)))
    run(enc, "aria: attack orc", "roll 8,7", "orc: pass")
    assert str(enc.pending_expression()) == "0"
    [outcome] = enc.settle()
    assert outcome.damage is not None
    assert not enc.pending
    assert enc.settle() == []
    assert enc.commands[-1] == parse_command("roll")
    assert replayed(enc).to_json() == enc.to_json()


def test_settle_leaves_rolls_with_dice_inside_a_halving_alone() -> None:
    """A melee damage roll is ``2d8/2`` (R38): its dice sit inside the halving; settle must not
    roll it for the table."""
    enc = begin(ap_creature("aria"), ap_npc("orc", at=(1, 0)))
    run(enc, "aria: attack orc")
    assert str(enc.pending_expression()) == "2d8/2"
    assert enc.settle() == []
    assert enc.pending
