"""Positions, movement, leaping and Stamina in the Action Point module (seed 004): R34–R37.

Tests of ``economy/points/movement.py`` (tests/test_layout.py).
"""

from __future__ import annotations

import pytest

from caltrop.encounter import CHANCE
from tests.encounter.points_builders import (
    BOW,
    SWORD,
    ap_creature,
    ap_npc,
    begin,
    end_turns_until,
    last,
    refused,
    run,
    st,
)

# -- R34: positions ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("at", "dc"),
    [((3, 0), 3), ((3, 0.5), 4), ((2.9, 0), 3), ((3, 4), 5), ((0.2, 0), 1), ((7.1, 7.1), 11)],
)
def test_r34_the_ranged_dc_is_the_distance_rounded_up(at: tuple[float, float], dc: int) -> None:
    """R34: "Distance for ranged DC is rounded up to a whole meter." Seed 004 (Ranged): "the
    difficulty being the distance between you and your target in meters"."""
    enc = begin(ap_creature("aria", weapons=(BOW,)), ap_npc("orc", at=at))
    outcome = last(enc, "aria: shoot orc with bow", "roll")
    assert outcome.dc == dc


@pytest.mark.parametrize(
    ("at", "adjacent"),
    [((1, 0), True), ((1.5, 0), True), ((1, 1), True), ((0, -1.5), True), ((1.6, 0), False)],
)
def test_r34_adjacent_means_within_one_and_a_half_meters(
    at: tuple[float, float], adjacent: bool
) -> None:
    """R34: "'Adjacent' means within 1.5 m (option)." A melee attack (R38) reaches adjacent
    creatures only; the refusal gives the distance and the reach."""
    enc = begin(ap_creature("aria"), ap_npc("orc", at=at))
    if adjacent:
        run(enc, "aria: attack orc")
        assert enc.pending_roll is not None
    else:
        refused(enc, "aria: attack orc", "1.6 m away", "reaches 1.5 m", "R34")


def test_r34_gm_set_positions_count_for_distances() -> None:
    """R34: "Participants have positions in meters on a plane (or distances set by the GM)." A
    GM's ``at`` fact moves a participant for every later distance (the ranged DC here)."""
    enc = begin(ap_creature("aria", weapons=(BOW,)), ap_npc("orc", at=(3, 0)))
    run(enc, "gm: set orc at 0,12")
    outcome = last(enc, "aria: shoot orc with bow", "roll 4,4,4")  # beyond close: 1 Disfavor
    assert outcome.dc == 12


# -- R35: movement -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("to", "ap"),
    [("2,0", 1), ("3,0", 2), ("4,0", 2), ("4.5,0", 3), ("3,4", 3), ("0,0.5", 1), ("12,0", 6)],
)
def test_r35_one_ap_moves_up_to_the_travel_speed(to: str, ap: int) -> None:
    """R35, seed 004: "By using 1 Action Point you may travel the distance equal to your travel
    speed." Travel speed 2 m per AP: ceil(distance ÷ 2) AP. "Yes, you can turn.": any point."""
    enc = begin(ap_creature("aria", speed=2), ap_npc("orc", at=(20, 20)))
    run(enc, f"aria: move to {to}")
    assert st(enc, "aria").ap == 6 - ap
    x, y = (float(v) for v in to.split(","))
    assert (st(enc, "aria").x, st(enc, "aria").y) == (x, y)


def test_r35_a_move_beyond_the_ap_left_is_refused_with_the_numbers() -> None:
    """R35: 13 m at 2 m per AP is 7 AP; with 6 AP the move is refused, nothing changes."""
    enc = begin(ap_creature("aria", speed=2), ap_npc("orc", at=(20, 20)))
    refused(
        enc, "aria: move to 13,0", "move 13 m", "7 × 2 m per AP", "R35", "needs 7 AP; 6 AP left"
    )
    run(enc, "aria: move to 4,0")
    refused(enc, "aria: move to 13,0", "needs 5 AP; 4 AP left")
    refused(enc, "aria: move to 4,0", "already there")


# -- R36: leap ---------------------------------------------------------------------------------


def _leaper(**kw: object) -> object:
    return ap_creature(
        "brakka",
        aspects={"Power": 3, "Strength": 5},
        speed=1,
        **kw,  # type: ignore[arg-type]
    )


def test_r36_a_standing_leap_reaches_the_power_score() -> None:
    """R36, seed 004: "By spending 3 AP and 3 Stamina, you make a leap horizontally or vertically.
    The distance or height in equal to your Power score." Power 3: 3 m, not 3.5 m."""
    enc = begin(_leaper(), ap_npc("orc", at=(20, 0)))  # type: ignore[arg-type]
    refused(enc, "brakka: leap to 3.5,0", "at most Power 3 m", "without a 2 m run-up", "R36")
    run(enc, "brakka: leap to 3,0")
    assert (st(enc, "brakka").x, st(enc, "brakka").ap, st(enc, "brakka").stamina) == (3, 3, 3)


def test_r36_after_a_two_meter_run_up_the_leap_reaches_the_strength_score() -> None:
    """R36, seed 004: "If you traveled at least 2 meters right before the leap, the distance is
    equal to Strength score instead." Strength 5 after a 2 m move."""
    enc = begin(_leaper(), ap_npc("orc", at=(20, 0)))  # type: ignore[arg-type]
    run(enc, "brakka: move to 2,0")
    run(enc, "brakka: leap to 7,0")
    assert st(enc, "brakka").x == 7


def test_r36_a_run_up_may_be_made_of_several_moves() -> None:
    """R36: "moved at least 2 m immediately before" — two 1 m moves in a row are a 2 m run-up,
    exactly like one 2 m move (fixed: only the last move counted)."""
    enc = begin(_leaper(), ap_npc("orc", at=(20, 0)))  # type: ignore[arg-type]
    run(enc, "brakka: move to 1,0", "brakka: move to 2,0")
    assert st(enc, "brakka").moved == 2
    run(enc, "brakka: leap to 7,0")
    assert st(enc, "brakka").x == 7


def test_r36_a_short_or_interrupted_run_up_does_not_count() -> None:
    """R36: 1.5 m is not 2 m; and a run-up followed by another action is not "right before"."""
    enc = begin(_leaper(), ap_npc("orc", at=(20, 0)))  # type: ignore[arg-type]
    run(enc, "brakka: move to 1.5,0")
    refused(enc, "brakka: leap to 6.5,0", "at most Power 3 m")
    enc = begin(_leaper(), ap_npc("orc", at=(20, 0)))  # type: ignore[arg-type]
    run(enc, "brakka: move to 2,0")
    assert st(enc, "brakka").moved == 2
    run(enc, "brakka: hold")  # another action in between (Hold Action, R33)
    assert st(enc, "brakka").moved == 0
    refused(enc, "brakka: leap to 7,0", "at most Power 3 m", "without a 2 m run-up")


def test_r36_a_run_up_does_not_carry_into_the_next_turn() -> None:
    """R36: "right before the leap" — a run-up at the end of one turn is not right before a leap
    at the start of the next, with everyone else's turns in between."""
    enc = begin(_leaper(), ap_npc("orc", at=(20, 0)))  # type: ignore[arg-type]
    run(enc, "brakka: move to 2,0", "brakka: end turn")
    end_turns_until(enc, "brakka")
    assert st(enc, "brakka").moved == 0
    refused(enc, "brakka: leap to 7,0", "at most Power 3 m")


def test_r36_the_run_up_is_part_of_the_state() -> None:
    """R36: the run-up decides what a leap may do, so it is part of the visible state and of
    ``key()`` (equal keys mean equal futures): two states alike but for the run-up differ."""
    brakka = ap_creature("brakka", aspects={"Power": 3, "Strength": 5}, speed=2)
    enc = begin(brakka, ap_npc("orc", at=(20, 0)))
    twin = enc.clone()
    run(enc, "brakka: move to 2,0")  # 1 AP, a 2 m run-up
    run(twin, "brakka: move to 1,0", "gm: set brakka at 2,0")  # 1 AP, a 1 m run-up
    assert enc.to_json() != twin.to_json()
    assert enc.key() != twin.key()
    shown = {p["id"]: p for p in enc.snapshot()["participants"]}
    assert shown["brakka"]["moved"] == 2
    run(enc, "brakka: leap to 7,0")
    refused(twin, "brakka: leap to 7,0", "at most Power 3 m")


def test_r36_leap_costs_three_ap_and_three_stamina() -> None:
    """R36: "3 AP + 3 Stamina" — with 2 AP left the leap is refused (R32), with the numbers."""
    enc = begin(_leaper(), ap_npc("orc", at=(20, 0)))  # type: ignore[arg-type]
    run(enc, "brakka: leap to 3,0")
    assert (st(enc, "brakka").ap, st(enc, "brakka").stamina) == (3, 3)
    run(enc, "brakka: move to 4,0")
    refused(enc, "brakka: leap to 6,0", "Brakka cannot leap", "needs 3 AP; 2 AP left", "R32")


# -- R37: Stamina ------------------------------------------------------------------------------


def test_r37_stamina_never_goes_below_zero_and_the_refusal_names_the_numbers() -> None:
    """R37: "Stamina can never go below 0: an action whose Stamina cost cannot be paid is not
    allowed." Issue 4's example: "Leap needs 3 AP and 3 Stamina; Brakka has 2 Stamina"."""
    enc = begin(_leaper(stamina=2), ap_npc("orc", at=(1, 0)))  # type: ignore[arg-type]
    message = refused(enc, "brakka: leap to 2,0", "R36", "R37")
    assert message.startswith("Leap needs 3 AP and 3 Stamina; Brakka has 2 Stamina")
    message = refused(enc, "brakka: scale", "R43", "R37")
    assert message.startswith("Scale needs 3 AP and 4 Stamina; Brakka has 2 Stamina")
    run(enc, "brakka: grapple orc", "roll 1,1,1,1,1", "roll 4,4,4,4")  # 2 Stamina: allowed
    assert st(enc, "brakka").stamina == 0
    run(enc, "brakka: end turn", "orc: end turn")
    message = refused(enc, "brakka: grapple orc", "R42", "R37")
    assert message.startswith("Grapple needs 3 AP and 2 Stamina; Brakka has 0 Stamina")


def test_r37_deep_breath_restores_one_stamina_up_to_the_maximum() -> None:
    """R37, seed 004 (Deep Breath): "You may spend 1 AP to regain 1 Stamina." Up to the maximum:
    at full Stamina it is refused."""
    enc = begin(_leaper(stamina=4), ap_npc("orc", at=(9, 0)))  # type: ignore[arg-type]
    refused(enc, "brakka: breath", "Stamina is full", "R37")
    run(enc, "brakka: leap to 2,0")
    assert (st(enc, "brakka").ap, st(enc, "brakka").stamina) == (3, 1)
    run(enc, "brakka: breath", "brakka: breath")
    assert (st(enc, "brakka").ap, st(enc, "brakka").stamina) == (1, 3)
    run(enc, "brakka: breath")
    assert (st(enc, "brakka").ap, st(enc, "brakka").stamina) == (0, 4)
    refused(enc, "brakka: breath", "Stamina is full")


def test_r37_deep_breath_needs_its_ap() -> None:
    """R37: Deep Breath costs 1 AP (R32: paid on one's own turn)."""
    enc = begin(_leaper(stamina=6), ap_npc("orc", at=(9, 0)))  # type: ignore[arg-type]
    run(enc, "brakka: leap to 1,0", "brakka: leap to 2,0")
    assert (st(enc, "brakka").ap, st(enc, "brakka").stamina) == (0, 0)
    refused(enc, "brakka: breath", "needs 1 AP; 0 AP left")


def test_r37_stamina_is_shown_and_copied() -> None:
    """R37: Stamina is part of each participant's visible state, and clones do not share it."""
    enc = begin(ap_creature("aria", weapons=(SWORD,), stamina=5), ap_npc("orc", at=(5, 0)))
    twin = enc.clone()
    run(enc, "aria: leap to 2,0")
    shown = {p["id"]: p for p in enc.snapshot()["participants"]}
    assert shown["aria"]["stamina"] == 2
    assert st(twin, "aria").stamina == 5
    assert twin.current() != CHANCE
