"""The distance map's frame (issue 22 item 1), as a property: wherever the creatures stand, every
token's centre lies inside the viewBox's padding (room for its circle and its label, R34: the
positions a table sees), one scale on both axes, and a label near an edge runs into the map."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from caltrop.web.screen import (
    MAP_HEIGHT,
    MAP_LABEL_EDGE,
    MAP_PAD_X,
    MAP_PAD_Y,
    MAP_WIDTH,
    map_view,
)

metres = st.floats(min_value=-500, max_value=500, allow_nan=False, allow_infinity=False)
spots = st.lists(st.tuples(metres, metres), min_size=1, max_size=12)


def scene(points: list[tuple[float, float]]) -> dict[str, Any]:
    return {
        "creatures": [
            {"id": f"c{i}", "name": f"C{i}", "side": "pc", "position": [x, y]}
            for i, (x, y) in enumerate(points)
        ]
    }


@given(spots)
def test_every_token_is_inside_the_padded_frame(points: list[tuple[float, float]]) -> None:
    drawn = map_view(scene(points))
    assert drawn is not None
    low, high = MAP_HEIGHT
    assert drawn["width"] == MAP_WIDTH
    assert low <= drawn["height"] <= high
    eps = 1e-9
    for t in drawn["tokens"]:
        assert MAP_PAD_X - eps <= t["x"] <= MAP_WIDTH - MAP_PAD_X + eps, t
        assert MAP_PAD_Y - eps <= t["y"] <= drawn["height"] - MAP_PAD_Y + eps, t
        if t["x"] < MAP_LABEL_EDGE:
            assert t["anchor"] == "start"
        elif t["x"] > MAP_WIDTH - MAP_LABEL_EDGE:
            assert t["anchor"] == "end"
        else:
            assert t["anchor"] == "middle"


@given(spots)
def test_one_scale_on_both_axes(points: list[tuple[float, float]]) -> None:
    """A metre across is as long as a metre down: distances on the map keep their ratios."""
    drawn = map_view(scene(points))
    assert drawn is not None
    tokens = drawn["tokens"]
    for (ax, ay), (bx, by), ta, tb in zip(points, points[1:], tokens, tokens[1:], strict=False):
        dx, dy = bx - ax, by - ay
        if abs(dx) > 1 and abs(dy) > 1:
            sx = (tb["x"] - ta["x"]) / dx
            sy = (tb["y"] - ta["y"]) / dy
            assert abs(sx - sy) <= 1e-6 * max(abs(sx), 1.0)


def test_no_position_no_map() -> None:
    assert map_view({"creatures": [{"id": "a", "name": "A", "side": "pc"}]}) is None
