"""``move toward`` stops short instead of being refused (issue 22 item 8).

R34: "Two standing creatures never share a spot: a move, leap or GM placement may not end within
0.5 m of another standing creature (option ``min_spacing``, meters)." R35: "1 AP moves up to the
participant's travel speed in meters." A partial move goes straight at its goal and stops at the
first of: adjacent to the target (R34: "'Adjacent' means within 1.5 m"), as far as the AP it can
pay allow (R35 "up to"), and the furthest spot of its line no nearer than ``min_spacing`` to
another standing creature. It used to end where the first two put it and be refused there
("would end the move 0.2 m from …"); a ``move to X,Y`` is still refused so (the spot was named).
"""

from __future__ import annotations

import itertools
import math

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from caltrop.core.commands import parse_command
from caltrop.economy.points.movement import clear_travel
from tests.encounter.points_builders import ap_creature, ap_npc, begin, pts, refused, replayed, run
from tests.encounter.points_builders import st as state


def test_toward_a_target_with_an_ally_in_the_way_stops_short_of_the_ally() -> None:
    """Bron stands 1.5 m short of the orc on Aria's line: Aria's adjacent spot (1.45 m from the
    orc, 8.55 m along) is 0.05 m from Bron, so she stops 0.51 m short of Bron, 8.49 m along.
    Before: "Aria would end the move 0.05 m from Bron … (R34, min_spacing)"."""
    aria = ap_creature("aria", speed=2)  # 6 AP x 2 m
    bron = ap_creature("bron", at=(8.5, 0))
    orc = ap_npc("orc", at=(10, 0))
    enc = begin(aria, bron, orc)
    refused(enc, "aria: move to 8.55,0", "from Bron", "min_spacing")  # a named spot: refused
    run(enc, "aria: move toward orc")
    s = state(enc, "aria")
    assert (s.x, s.y) == (7.99, 0.0)  # 0.51 m short of Bron (0.5 m and a centimetre)
    assert math.hypot(8.5 - s.x, 0 - s.y) >= 0.5  # R34 spacing kept
    assert pts(enc, "aria")[0] == 6 - 4  # 7.99 m at 2 m per AP: ceil(3.995) = 4 AP (R35)
    assert replayed(enc).to_json() == enc.to_json()


def test_as_far_as_the_ap_allow_then_short_of_a_creature_standing_there() -> None:
    """Aria can pay 6 AP x 2 m = 12 m toward an orc 20 m off (R35): she would end at 11.99 m,
    where Bron stands; she stops short of him instead."""
    aria = ap_creature("aria", speed=2)
    bron = ap_creature("bron", at=(12, 0.2))
    orc = ap_npc("orc", at=(20, 0))
    enc = begin(aria, bron, orc)
    run(enc, "aria: move toward orc")
    s = state(enc, "aria")
    assert math.hypot(12 - s.x, 0.2 - s.y) >= 0.5
    assert 11.0 < s.x < 11.6
    assert s.y == 0.0
    assert pts(enc, "aria")[0] == 0  # ceil(11.5 / 2) = 6 AP


def test_toward_a_point_someone_stands_on_stops_short() -> None:
    aria = ap_creature("aria", speed=2)
    bron = ap_creature("bron", at=(4, 0))
    orc = ap_npc("orc", at=(30, 0))
    enc = begin(aria, bron, orc)
    run(enc, "aria: move 6 m toward 4,0")
    assert (state(enc, "aria").x, state(enc, "aria").y) == (3.49, 0.0)


def test_still_refused_with_the_reason_when_no_spot_is_clear_or_no_ap_is_left() -> None:
    """Bron stands 0.5 m from Aria on her line: no spot of the 0.3 m she asks for is clear of
    him, so the move is checked as it is and refused with R34's reason; adjacent already, or
    with 0 AP left, the reason is that (R34, R35)."""
    aria = ap_creature("aria", speed=2)
    enc = begin(aria, ap_creature("bron", at=(0.5, 0.0)), ap_npc("orc", at=(5.0, 0.0)))
    refused(enc, "aria: move toward orc 0.3 m", "0.2 m from Bron", "min_spacing")
    # short, never further: 0.8 m ends 0.3 m from Bron, and every spot before it is his too
    refused(enc, "aria: move toward orc 0.8 m", "0.3 m from Bron", "min_spacing")
    near = begin(ap_creature("aria", speed=2), ap_npc("orc", at=(1.0, 0.0)))
    refused(near, "aria: move toward orc", "already adjacent")
    spent = begin(ap_creature("aria", speed=2, ap=0), ap_npc("orc", at=(9, 0)))
    refused(spent, "aria: move toward orc", "0 AP left", "R35")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(-15, 15), st.floats(-15, 15)),
        min_size=0,
        max_size=6,
    ),
    st.floats(0.5, 25),
)
def test_clear_travel_ends_clear_and_as_far_as_it_can(
    others: list[tuple[float, float]], travel: float
) -> None:
    """The property R34 asks of the stopping spot: clear of every other creature by
    ``min_spacing`` (with the centimetre's margin), and no clear spot lies between it and
    ``travel`` (checked on a fine grid of the ray)."""
    spacing = 0.5
    t = clear_travel((0.0, 0.0), (1.0, 0.0), travel, others, spacing)
    assert 0 <= t <= travel

    def clear(d: float) -> bool:
        return all(math.hypot(ox - d, oy) >= spacing + 0.01 - 1e-9 for ox, oy in others)

    if t > 0:
        assert clear(t)
        steps = 400
        for k in range(steps + 1):
            d = t + (travel - t) * k / steps
            if d > t + 1e-6:
                assert not clear(d) or math.isclose(d, t), (t, d)


coordinate = st.floats(-12, 12, allow_nan=False).map(lambda v: round(v, 2))
spot = st.tuples(coordinate, coordinate)


@settings(max_examples=150, deadline=None)
@given(st.lists(spot, min_size=3, max_size=5, unique=True), st.integers(0, 6))
def test_a_move_toward_ends_clear_on_its_line_or_is_refused_with_a_rule(
    spots: list[tuple[float, float]], ap: int
) -> None:
    """Whatever stands where: ``move toward`` either ends on its straight line, no further from
    the target than it began and no nearer than ``min_spacing`` to any other standing creature
    (R34), having paid for the distance it went (R35) — or is refused for one of the rules'
    reasons: already adjacent (R34), no AP to pay (R35), or no clear spot on the line (R34)."""
    for a, b in itertools.combinations(spots, 2):
        assume(math.dist(a, b) >= 0.5)
    aria = ap_creature("aria", at=spots[0], speed=2, ap=ap)
    orc = ap_npc("orc", at=spots[1])
    others = [ap_creature(f"c{k}", at=p) for k, p in enumerate(spots[2:])]
    enc = begin(aria, orc, *others)
    start, goal = spots[0], spots[1]
    why = enc.why_illegal(parse_command("aria: move toward orc"))
    if why is not None:
        assert any(r in why for r in ("already adjacent", "0 AP left", "min_spacing")), why
        if "min_spacing" in why:  # then no spot of its line up to where it could go is clear
            d = math.dist(start, goal)
            travel = min(d - 1.45, ap * 2 - 0.01)
            for k in range(1, 201):
                t = travel * k / 200
                here = (
                    start[0] + (goal[0] - start[0]) * t / d,
                    start[1] + (goal[1] - start[1]) * t / d,
                )
                assert t < 0.02 or any(math.dist(here, p) < 0.52 for p in spots[1:]), (t, here)
        return
    run(enc, "aria: move toward orc")
    s = state(enc, "aria")
    end = (s.x, s.y)
    assert math.dist(end, goal) <= math.dist(start, goal) + 1e-9
    assert math.dist(end, goal) >= 1.45 - 0.01  # it stops when adjacent, not on the target
    # on the line from start to goal (within the centimetre rounding)
    cross = (goal[0] - start[0]) * (end[1] - start[1]) - (goal[1] - start[1]) * (end[0] - start[0])
    assert abs(cross) / math.dist(start, goal) <= 0.01
    for p in spots[1:]:
        assert math.dist(end, p) >= 0.5 - 1e-9
    went = math.dist(start, end)
    assert pts(enc, "aria")[0] == ap - math.ceil(went / 2 - 1e-9)  # R35 at 2 m per AP
