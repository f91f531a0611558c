"""R39 (amended): "All aim is lost … when its target moves at least 1 m out of the aimer's line of
sight: the target's movement while out of the aimer's sight adds up from the moment of the first
Aim, whether it moved itself or the GM placed it."

Tests of ``economy/points/attacks.py`` (tests/test_layout.py).
"""

from __future__ import annotations

from caltrop.encounter import Encounter
from tests.encounter.points_builders import BOW, ap_creature, ap_npc, begin, run, st


def _aimed() -> Encounter:
    enc = begin(
        ap_creature("kestrel", weapons=(BOW,), equipped=("bow",)),
        ap_npc("brakka", at=(8, 0)),
    )
    run(enc, "kestrel: aim brakka", "gm: set kestrel sight brakka off")  # now out of sight
    assert st(enc, "kestrel").aim == 1
    return enc


def test_two_short_moves_out_of_sight_add_up_to_a_lost_aim() -> None:
    enc = _aimed()
    run(enc, "kestrel: end turn", "brakka: move to 8.6,0")
    assert st(enc, "kestrel").aim == 1  # 0.6 m: not yet
    run(enc, "brakka: move to 9.2,0")
    assert st(enc, "kestrel").aim == 0  # 1.2 m in all: lost


def test_a_gm_placement_counts_toward_the_lost_aim() -> None:
    enc = _aimed()
    run(enc, "gm: set brakka at 8.5,0")
    assert st(enc, "kestrel").aim == 1
    run(enc, "gm: set brakka at 8.5,0.6")
    assert st(enc, "kestrel").aim == 0


def test_movement_in_sight_does_not_count() -> None:
    enc = begin(
        ap_creature("kestrel", weapons=(BOW,), equipped=("bow",)),
        ap_npc("brakka", at=(8, 0)),
    )
    run(enc, "kestrel: aim brakka", "gm: set brakka at 12,0")
    assert st(enc, "kestrel").aim == 1
