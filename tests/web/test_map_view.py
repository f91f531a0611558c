"""The distance map's frame (issue 22 item 1), as a property: wherever the creatures stand, every
token's centre lies inside the viewBox's padding (room for its circle and its label, R34: the
positions a table sees), one scale on both axes, and every label inside the frame and clear of
the others."""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from caltrop.content import load_encounter, load_encounter_files
from caltrop.core.commands import parse_command
from caltrop.core.model import WeaponKind
from caltrop.economy.points.movement import move_budget, move_price, move_steps
from caltrop.encounter import Encounter
from caltrop.table import Reveal, view
from caltrop.web.screen import (
    MAP_GRID_LINES,
    MAP_GRID_STEPS,
    MAP_HEIGHT,
    MAP_LEGEND,
    MAP_PAD_X,
    MAP_PAD_Y,
    MAP_WIDTH,
    grid_step,
    label_box,
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
        box = label_box(t)  # its label never leaves the frame, near an edge or not
        assert -eps <= box[0], t
        assert box[2] <= MAP_WIDTH + eps, t


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


# -- the metre grid, its scale, the rings and the move preview's figures (issue 22 item 1) -------

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "scattered-ap.yaml"


def scattered() -> Encounter:
    """Our own scattered encounter (tests/fixtures/scattered-ap.yaml): creatures at ±50 m."""
    definition = load_encounter_files({FIXTURE.name: FIXTURE.read_text()})
    return Encounter.begin(definition, 1)


def encounters() -> dict[str, Encounter]:
    return {
        "warband": Encounter.begin(load_encounter("warband-ap"), 1),
        "bridge-duel": Encounter.begin(load_encounter("bridge-duel-ap"), 1),
        "scattered": scattered(),
    }


#: static/map.js: a spot closer than this is where the creature stands (no move)
THERE = 1e-6


def lookup(steps: list[list[Any]], meters: float) -> str | None:
    """The map's preview as static/map.js reads it: the first step whose meters reach."""
    if meters < THERE:
        return None
    return next((cost for reach, cost in steps if meters <= reach), None)


@given(st.floats(min_value=0.01, max_value=50_000, allow_nan=False))
def test_the_grid_step_is_the_finest_that_draws_at_most_ten_squares(meters: float) -> None:
    step = grid_step(meters)
    assert step in MAP_GRID_STEPS
    assert meters / step <= MAP_GRID_LINES
    finer = [s for s in MAP_GRID_STEPS if s < step]
    if finer:
        assert meters / finer[-1] > MAP_GRID_LINES


def test_the_grid_and_scale_bar_of_each_encounter() -> None:
    """Warband (sides 24-36 m apart) is drawn on a 5 m grid, Bridge Duel (30 m of bridge) on
    a 5 m grid, the scattered field (141 m corner to corner) on a 20 m grid; the lines are one
    step apart in meters times the map's scale, inside the frame, and the bar is one step."""
    expected = {"warband": 5, "bridge-duel": 5, "scattered": 20}
    for name, enc in encounters().items():
        drawn = map_view(view(enc, "gm").as_dict())
        assert drawn is not None
        step, scale = drawn["grid"]["step"], drawn["scale"]
        assert step == expected[name], name
        assert drawn["scale_bar"] == {
            "meters": step,
            "length": step * scale,
            "label": f"{step} m",
            "y": drawn["height"] + MAP_LEGEND / 2,
        }
        for axis, size in (("xs", drawn["width"]), ("ys", drawn["height"])):
            lines = drawn["grid"][axis]
            assert len(lines) >= (2 if axis == "xs" else 1)  # Bridge Duel is 8 m high
            assert all(-1e-9 <= v <= size + 1e-9 for v in lines)
            gaps = {round(b - a, 6) for a, b in itertools.pairwise(lines)}
            assert gaps <= {round(step * scale, 6)}, (name, axis, gaps)
            # no line is missing at either edge: the next one would lie outside the frame
            assert lines[0] - step * scale < 1e-9
            assert lines[-1] + step * scale > size - 1e-9
            # each line is at a whole multiple of the step, in meters
            origin = drawn["x0"] if axis == "xs" else drawn["y0"]
            for v in lines:
                assert abs((origin + v / scale) / step - round((origin + v / scale) / step)) < 1e-6


def test_the_rings_are_the_move_range_and_the_weapon_ranges_scaled() -> None:
    """R35: the move range is travel speed × the AP it can pay; R34: reach 1.5 m; R39: each
    ranged weapon's close and far range. Every radius is those meters times the map's scale."""
    for name, enc in encounters().items():
        for viewer in ("gm", "kestrel" if name != "bridge-duel" else "torvald"):
            seen = view(enc, viewer).as_dict()
            drawn = map_view(seen)
            assert drawn is not None
            scale = drawn["scale"]
            for token in drawn["tokens"]:
                creature = enc.creatures[enc.index(token["id"])]
                if not token["movable"]:
                    assert token["rings"] == []
                    continue
                speed, can_pay, _ = move_budget(enc, enc.index(token["id"]))
                radii = {(r["kind"], r["what"]): r["r"] for r in token["rings"]}
                if can_pay:
                    assert radii[("move", "move")] == pytest.approx(speed * can_pay * scale)
                assert radii[("adjacent", "")] == pytest.approx(1.5 * scale)
                for w in creature.weapons:
                    if w.kind is WeaponKind.RANGED:
                        assert w.close is not None
                        assert w.far is not None
                        assert radii[("close", w.name)] == pytest.approx(w.close * scale)
                        assert radii[("far", w.name)] == pytest.approx(w.far * scale)
                    else:
                        assert ("close", w.name) not in radii


def test_a_player_moves_only_its_own_creature_on_the_map() -> None:
    """The viewer's own token is the one it may drag (a player issues only its own commands);
    an NPC's movement, its stat block and points, is not in a player's view unless shown."""
    enc = Encounter.begin(load_encounter("warband-ap"), 1)
    seen = view(enc, "kestrel").as_dict()
    drawn = map_view(seen)
    assert drawn is not None
    assert [t["id"] for t in drawn["tokens"] if t["movable"]] == ["kestrel"]
    assert drawn["selected"] == "kestrel"
    assert all("movement" not in c for c in seen["creatures"] if c["side"] == "npc")
    shown = view(enc, "kestrel", {"wolf": Reveal(aspects=True, resources=True)}).as_dict()
    assert "movement" in next(c for c in shown["creatures"] if c["id"] == "wolf")
    gm = map_view(view(enc, "gm").as_dict())
    assert gm is not None
    assert {t["id"] for t in gm["tokens"] if t["movable"]} == {c.id for c in enc.creatures}
    assert gm["selected"] == enc.turn_owner or enc.turn_owner is None


@given(
    st.floats(min_value=0.0, max_value=60.0, allow_nan=False),
    st.sampled_from([1.0, 1.5, 2.0, 3.0, 4.0, 6.0]),
    st.integers(min_value=0, max_value=8),
)
def test_the_preview_steps_give_the_engines_price(meters: float, speed: float, ap: int) -> None:
    """The map's lookup in the view model's steps is R35's price, ceil(distance ÷ speed)
    (move_price, the engine's own), whenever the AP it can pay cover it; past them, none."""
    steps = [[reach, f"{k} AP"] for k, reach in move_steps(speed, ap)]
    price = move_price(meters, speed)
    got = lookup(steps, meters)
    if meters < THERE:
        assert got is None  # "is there": the engine's price is 0 and it refuses (R35)
        assert price <= 1
    elif price <= ap:
        assert got == f"{price} AP"
    else:
        assert got is None


def test_the_preview_is_what_the_engine_charges_for_the_move() -> None:
    """Spots all round the first creature to act in Warband, on its turn: the cost the map reads off his steps is
    the AP the engine takes for ``move to X,Y`` (the command Confirm sends); a spot past its
    steps is one the engine refuses for want of AP (R32, R35)."""
    enc = Encounter.begin(load_encounter("warband-ap"), 1)
    for _ in range(20):
        if not enc.pending:
            break
        enc.apply(parse_command("roll"))
    owner = enc.turn_owner
    assert owner is not None
    drawn = map_view(view(enc, "gm").as_dict())  # the GM moves the NPC whose turn it is
    assert drawn is not None
    assert drawn["selected"] == owner
    token = next(t for t in drawn["tokens"] if t["id"] == owner)
    x0, y0 = token["meters"]
    checked = 0
    for r in (0.5, 2.9, 3.0, 3.1, 6.0, 8.8, 12.0, 17.9, 18.0, 18.1, 25.0):
        for k in range(12):
            a = 2 * math.pi * k / 12
            x, y = round(x0 + r * math.cos(a), 1), round(y0 + r * math.sin(a), 1)
            meters = math.hypot(x - x0, y - y0)
            cost = lookup(token["steps"], meters)
            command = parse_command(f"{owner}: move to {x:g},{y:g}")
            after = enc.clone()
            before = after.resources[after.index(owner)].as_dict()["ap"]
            why = after.why_illegal(command)
            if cost is None:
                assert why is not None
                assert "AP" in why
                continue
            if why is not None:  # too near another creature (R34): the engine says so
                assert "min_spacing" in why, why
                continue
            after.apply(command)
            spent = before - after.resources[after.index(owner)].as_dict()["ap"]
            assert cost == f"{spent} AP", (x, y, meters, cost, spent)
            checked += 1
    assert checked > 60


ranges = st.integers(min_value=1, max_value=200)


@given(
    spots,
    st.floats(min_value=0.5, max_value=12, allow_nan=False),
    st.integers(min_value=0, max_value=8),
    st.lists(st.tuples(ranges, ranges), max_size=3),
)
def test_any_scene_draws_its_grid_inside_and_its_rings_to_scale(
    points: list[tuple[float, float]],
    speed: float,
    ap: int,
    weapons: list[tuple[int, int]],
) -> None:
    """Wherever the creatures stand and whatever the mover's speed, AP and weapons: the grid's
    lines lie inside the frame at whole multiples of the step, the scale bar is one step, and
    each ring's radius is its meters times the map's scale (R35, R34, R39)."""
    seen = scene(points)
    steps = [{"ap": k, "meters": m, "cost": f"{k} AP"} for k, m in move_steps(speed, ap)]
    seen["viewer"] = "c0"
    seen["creatures"][0]["movement"] = {
        "speed": speed,
        "points": ap,
        "unit": "AP",
        "steps": steps,
        "range": speed * ap if steps else 0.0,
        "adjacent": 1.5,
        "weapons": [
            {"name": f"w{i}", "close": min(a, b), "far": max(a, b), "equipped": True}
            for i, (a, b) in enumerate(weapons)
        ],
    }
    drawn = map_view(seen)
    assert drawn is not None
    scale, step = drawn["scale"], drawn["grid"]["step"]
    assert drawn["scale_bar"]["length"] == pytest.approx(step * scale)
    assert drawn["scale_bar"]["length"] < drawn["width"] / 2
    for v in drawn["grid"]["xs"]:
        assert -1e-9 <= v <= drawn["width"] + 1e-9
    for v in drawn["grid"]["ys"]:
        assert -1e-9 <= v <= drawn["height"] + 1e-9
    assert drawn["grid"]["path"].count("M") == len(drawn["grid"]["xs"]) + len(drawn["grid"]["ys"])
    [me] = [t for t in drawn["tokens"] if t["movable"]]
    assert me["id"] == "c0"
    assert drawn["selected"] == "c0"
    for ring in me["rings"]:
        assert ring["r"] == pytest.approx(ring["meters"] * scale)
    kinds = [r["kind"] for r in me["rings"]]
    assert kinds.count("close") == kinds.count("far") == len(weapons)
    assert ("move" in kinds) == (ap > 0)


def label_boxes(drawn: dict[str, Any]) -> list[tuple[float, float, float, float]]:
    return [label_box(t) for t in drawn["tokens"]]


def overlaps(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


names = st.text(alphabet="abcdefghij ", min_size=1, max_size=16)


@given(spots, st.data())
def test_every_label_stays_inside_the_frame(
    points: list[tuple[float, float]], data: st.DataObject
) -> None:
    """Wherever the creatures stand and however long their names, each label's line is inside
    the map's frame (it is chosen among the lines the frame holds)."""
    view_ = scene(points)
    for c in view_["creatures"]:
        c["name"] = data.draw(names)
    drawn = map_view(view_)
    assert drawn is not None
    for t, box in zip(drawn["tokens"], label_boxes(drawn), strict=True):
        assert box[1] >= 0, (t, box)
        assert box[3] <= drawn["height"], (t, box)
        assert box[0] >= 0, (t, box)
        assert box[2] <= drawn["width"], (t, box)
        assert t["below"] == (t["dy"] > 0)


@pytest.mark.parametrize(
    "cluster",
    [
        # Warband's first melee as a table saw it: three labels were drawn on one line
        [(0.0, 0.0), (-1.0, 1.5), (1.0, 1.5), (0.0, 3.0), (2.0, 40.0), (0.0, 60.0)],
        [(0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (0.5, 1.0), (1.5, 1.0)],  # five within 2 m
        [(x, 0.0) for x in range(0, 12, 2)],  # a row, 2 m apart
    ],
)
def test_the_labels_of_a_cluster_do_not_cover_each_other(
    cluster: list[tuple[float, float]],
) -> None:
    view_ = scene(cluster)
    names_ = ["Torvald", "Brakka", "Kestrel", "Maren", "Wolf", "Bandit Archer"]
    for c, name in zip(view_["creatures"], names_, strict=False):
        c["name"] = name
    drawn = map_view(view_)
    assert drawn is not None
    boxes = label_boxes(drawn)
    for (i, a), (j, b) in itertools.combinations(enumerate(boxes), 2):
        assert not overlaps(a, b), (drawn["tokens"][i]["name"], drawn["tokens"][j]["name"])


@pytest.mark.parametrize("name", ["warband-ap", "bridge-duel-ap"])
def test_the_bundled_maps_labels_are_apart(name: str) -> None:
    drawn = map_view(view(Encounter.begin(load_encounter(name), 1), "gm").as_dict())
    assert drawn is not None
    boxes = label_boxes(drawn)
    assert not any(overlaps(a, b) for a, b in itertools.combinations(boxes, 2))
