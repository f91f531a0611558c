"""The browser screens' HTML, rendered with Jinja2 from the view model alone (issue 12).

Nothing here knows a rule: every number and every reason comes from
:meth:`caltrop.table.TableView.as_dict` (the server's view model); this module only lays it out.
:func:`screen_fragments` gives the parts of a table screen that change, each an element with an
``id`` and ``hx-swap-oob`` so the page socket can send them as they are (htmx's WebSocket
extension swaps each by its id). Every command form gets a fresh ``command_id``, so a double
tap sends one id twice and the server applies it once (issue 11's retry rule).
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, Final

import segno
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from caltrop.content.catalogue import bundled_creatures
from caltrop.table.cost import cost_text

#: the resources of the Action Point module, in the order a screen shows them
POINTS: Final = (("ap", "AP"), ("rp", "RP"), ("floating_rp", "floating RP"), ("stamina", "Stamina"))


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("caltrop.web", "templates"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["new_command_id"] = new_command_id
    env.filters["resources"] = resources_text
    env.filters["signed"] = signed
    env.filters["cost_text"] = cost_text
    env.filters["percent"] = percent
    env.filters["odds_percent"] = odds_percent
    env.filters["number"] = number
    env.globals["creature_name"] = creature_name
    env.tests["hopeless"] = hopeless
    return env


def new_command_id() -> str:
    """A fresh id for one rendered command form."""
    return secrets.token_urlsafe(12)


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


def number(value: Any) -> str:
    """``2.0`` → ``2``, ``8.55`` → ``8.55``, ``0.30000000000000004`` → ``0.3`` (a float's
    binary noise is no number a table reads, issue 22 item 8; two decimals are kept)."""
    if isinstance(value, float):
        value = round(value, 2)
        if value.is_integer():
            return str(int(value))
    return str(value)


def signed(value: Any) -> str:
    return f"+{number(value)}" if isinstance(value, int | float) and value > 0 else number(value)


def percent(value: Any) -> str:
    """A probability (0..1) as a percentage with one decimal; anything else as it is."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{100 * value:.1f}%"
    return str(value)


def odds_percent(value: Any, rounded: bool = False) -> str:
    """An odds figure: one decimal, or, when the view rounded it (a player against an NPC
    whose Aspects are hidden), "about N%" — no precision the figure does not have."""
    if rounded and isinstance(value, int | float) and not isinstance(value, bool):
        return f"about {100 * value:.0f}%"
    return percent(value)


def hopeless(option: Mapping[str, Any]) -> bool:
    """An option whose odds are exactly 0 (it cannot succeed as things stand): still offered —
    the rules allow it — but shown apart, after the others (issue 22 item 8). That is an
    own-turn roll that cannot succeed, or a defence choice (R40) with no chance of taking no
    damage, Take Cover's "then block / dodge" included: a defence's odds are the defender's
    own (``kind`` ``defence``). Any other reaction's odds describe the pending roll, not the
    reaction, so they never make it one. A player's rounded odds are 0 only when exactly so
    (:meth:`caltrop.table.odds.Odds.as_rounded_dict`)."""
    odds = option.get("odds")
    if not option.get("legal") or not isinstance(odds, Mapping) or odds.get("success") != 0:
        return False
    if not option.get("reaction"):
        return True
    if odds.get("kind") != "defence":
        return False
    after = odds.get("or_then")
    return not isinstance(after, Mapping) or after.get("success") == 0


def resources_text(resources: Mapping[str, Any] | None) -> str:
    """``Load 2`` or ``AP 4 · RP 0 · floating RP 0 · Stamina 6`` (what a creature has left)."""
    if not resources:
        return ""
    if "load" in resources:
        return f"Load {number(resources['load'])}"
    parts = [f"{label} {number(resources[key])}" for key, label in POINTS if key in resources]
    return " · ".join(parts)


def creature_name(view: Mapping[str, Any], creature_id: str | None) -> str:
    """The creature's name in the view, or the id itself (``gm``, ``chance``)."""
    if creature_id is None:
        return ""
    for c in view.get("creatures", ()):
        if c["id"] == creature_id:
            return str(c["name"])
    return "GM" if creature_id == "gm" else creature_id


def qr_svg(link: str, label: str) -> Markup:
    """The link as an inline SVG QR code, labelled for screen readers."""
    svg = segno.make(link, error="m").svg_inline(scale=4, border=2, dark="#000", light="#fff")
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="QR code: {_attr(label)}" ', 1)
    return Markup(svg)  # segno's own SVG; the label is escaped


def _attr(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
    )


def own_creature(view: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The viewer's creature (a player's screen), or None for the GM."""
    for c in view.get("creatures", ()):
        if c["id"] == view.get("viewer"):
            return dict(c)
    return None


#: the distance map's frame (issue 22 item 1): 100 units wide; as high as the creatures' spread
#: needs, between these bounds; the padding keeps a token's circle and its label inside the frame
MAP_WIDTH: Final = 100.0
MAP_HEIGHT: Final = (24.0, 100.0)
MAP_PAD_X: Final = 5.0
MAP_PAD_Y: Final = 10.0
#: a label is anchored at its token's start / end within this much of the left / right edge, so
#: a name (up to ~25 units of 3-unit type) runs into the map, never out of it
MAP_LABEL_EDGE: Final = 30.0
#: the least the map shows across (meters): two creatures a meter apart are not drawn 90 units
#: apart, and a grid square and the scale bar keep a size a table reads
MAP_MIN_SPAN: Final = 10.0
#: the strip under the map that holds the scale bar (the viewBox is this much higher)
MAP_LEGEND: Final = 8.0
#: the grid's steps in meters, the finest first: the map takes the first that draws at most
#: :data:`MAP_GRID_LINES` squares across its width
MAP_GRID_STEPS: Final = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000)
MAP_GRID_LINES: Final = 10


def grid_step(meters_across: float) -> int:
    """The metre grid's step for a map ``meters_across`` wide: the finest of 1, 2, 5, 10, 20 m…
    that draws at most :data:`MAP_GRID_LINES` squares across."""
    for step in MAP_GRID_STEPS:
        if meters_across / step <= MAP_GRID_LINES:
            return step
    return MAP_GRID_STEPS[-1]


def _grid_lines(first: float, span: float, step: int, scale: float) -> list[float]:
    """Where the grid's lines at whole multiples of ``step`` m fall on an axis of the map whose
    edge is at ``first`` m and which shows ``span`` m: map units from that edge."""
    k = math.ceil(first / step - 1e-9)
    out = []
    while k * step <= first + span + 1e-9:
        out.append((k * step - first) * scale)
        k += 1
    return out


def _grid(x0: float, y0: float, height: float, scale: float, step: int) -> dict[str, Any]:
    """The grid's lines (map units from the left and top edges) and the one SVG path that
    draws them all."""
    xs = _grid_lines(x0, MAP_WIDTH / scale, step, scale)
    ys = _grid_lines(y0, height / scale, step, scale)
    path = "".join(f"M{x:.2f} 0V{height:.2f}" for x in xs) + "".join(
        f"M0 {y:.2f}H{MAP_WIDTH:g}" for y in ys
    )
    return {"step": step, "xs": xs, "ys": ys, "path": path}


#: a label's type on the map (caltrop.css ``.token text``), in viewBox units: its size, the
#: width of a character of it (a generous average for a sans-serif face) and a line's height
LABEL_SIZE: Final = 3.0
LABEL_CHAR: Final = 1.75
LABEL_LINE: Final = 3.6
#: a token's radius (map.html's circle)
TOKEN_R: Final = 3.2


def _label_box(
    token: Mapping[str, Any], anchor: str, dx: float, dy: float
) -> tuple[float, float, float, float]:
    """The box (left, top, right, bottom) a token's label takes, its text anchored ``anchor``
    at ``dx`` beside and its baseline ``dy`` under the token's centre."""
    x = float(token["x"]) + dx
    y = float(token["y"])
    width = LABEL_CHAR * len(str(token["name"]))
    left = {"start": x, "end": x - width, "middle": x - width / 2}[anchor]
    return (left, y + dy - LABEL_SIZE, left + width, y + dy + 0.8)


def label_box(token: Mapping[str, Any]) -> tuple[float, float, float, float]:
    """The box a placed token's label takes (:func:`map_view`'s ``anchor``, ``dx``, ``dy``)."""
    return _label_box(token, str(token["anchor"]), float(token["dx"]), float(token["dy"]))


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _place_labels(tokens: list[dict[str, Any]], height: float) -> None:
    """Each token's label (``anchor``, ``dx``, ``dy``): above or below its token, else to its
    right or left, else on a line further out — the first place that covers no label placed
    before it and no other token, inside the frame; where every place is taken, the least
    covered. Neighbours along the map take turns to try above or below first (a row of
    creatures reads as one), and the tokens are placed top to bottom, so a cluster's labels
    stack outwards (Warband's melee drew three labels on one line before)."""
    placed: list[tuple[float, float, float, float]] = []
    circles = [
        (
            float(t["x"]) - TOKEN_R,
            float(t["y"]) - TOKEN_R,
            float(t["x"]) + TOKEN_R,
            float(t["y"]) + TOKEN_R,
        )
        for t in tokens
    ]
    first_below = {
        id(t): rank % 2 == 1
        for rank, t in enumerate(sorted(tokens, key=lambda t: (t["x"], t["y"])))
    }
    for token in sorted(tokens, key=lambda t: (t["y"], t["x"])):
        own_anchor, own_dx = str(token["anchor"]), float(token["dx"])
        above = [(own_anchor, own_dx, -(TOKEN_R + 1.8) - LABEL_LINE * k) for k in range(6)]
        below = [
            (own_anchor, own_dx, TOKEN_R + 1.8 + LABEL_SIZE + LABEL_LINE * k) for k in range(6)
        ]
        lines = list(
            zip(below, above, strict=True)
            if first_below[id(token)]
            else zip(above, below, strict=True)
        )
        sides = [("start", TOKEN_R + 1.2, 1.0), ("end", -(TOKEN_R + 1.2), 1.0)]
        candidates = [*lines[0], *sides, *(c for pair in lines[1:] for c in pair)]
        own = circles[tokens.index(token)]
        best: tuple[float, tuple[str, float, float], tuple[float, float, float, float]] | None
        best = None
        for place in candidates:
            box = _label_box(token, *place)
            if box[0] < 0 or box[2] > MAP_WIDTH or box[1] < 0 or box[3] > height:
                continue
            covered = sum(_overlap(box, other) for other in placed) + sum(
                _overlap(box, c) for c in circles if c is not own
            )
            if best is None or covered < best[0]:
                best = (covered, place, box)
            if covered == 0:
                break
        if best is None:  # no place inside the frame (the padding holds one above or below)
            best = (0.0, candidates[0], _label_box(token, *candidates[0]))
        anchor, dx, dy = best[1]
        token["anchor"], token["dx"], token["dy"] = anchor, round(dx, 2), round(dy, 2)
        token["below"] = dy > 0
        placed.append(best[2])


def map_view(view: Mapping[str, Any]) -> dict[str, Any] | None:
    """The distance map of an Action Point encounter: its frame (``width`` × ``height``, and
    the viewBox's ``view_height`` with the scale bar's strip under it), a token per placed
    creature — the creatures' bounding box scaled to fit inside the padding with the same
    scale on both axes (a metre is as long across as down) — a metre ``grid`` with its
    ``scale_bar``, and for each creature the viewer may move (its own; the GM's every one
    whose ``movement`` the view gives), its move range and its ranged weapons' close and far
    rings (R35, R39), each radius the view model's meters times the map's ``scale``.
    Computed afresh from the positions of every screen, so a creature that moves stays in the
    frame. None when no creature has a position (the Action Load module)."""
    placed = [
        (c, c["position"])
        for c in view.get("creatures", ())
        if isinstance(c.get("position"), Sequence) and not c.get("removed")
    ]
    if not placed:
        return None
    xs = [float(p[0]) for _, p in placed]
    ys = [float(p[1]) for _, p in placed]
    span_x = max(max(xs) - min(xs), MAP_MIN_SPAN)
    span_y = max(ys) - min(ys)
    inner_w = MAP_WIDTH - 2 * MAP_PAD_X
    low, high = MAP_HEIGHT
    scale = min(inner_w / span_x, (high - 2 * MAP_PAD_Y) / max(span_y, MAP_MIN_SPAN))
    height = min(max(span_y * scale + 2 * MAP_PAD_Y, low), high)
    # centre the creatures' box in the frame
    left = (MAP_WIDTH - (max(xs) - min(xs)) * scale) / 2
    top = (height - span_y * scale) / 2
    # the meters at the frame's left and top edges: a map point (X, Y) is at
    # (x0 + X / scale, y0 + Y / scale) m
    x0 = min(xs) - left / scale
    y0 = min(ys) - top / scale
    viewer = view.get("viewer")
    tokens = []
    for c, p in placed:
        x = left + (float(p[0]) - min(xs)) * scale
        y = top + (float(p[1]) - min(ys)) * scale
        anchor = (
            "start" if x < MAP_LABEL_EDGE else "end" if x > MAP_WIDTH - MAP_LABEL_EDGE else "middle"
        )
        moves = c.get("movement") if (viewer == "gm" or c["id"] == viewer) else None
        tokens.append(
            {
                "id": c["id"],
                "name": c["name"],
                "side": c["side"],
                "down": c.get("down", False),
                "x": x,
                "y": y,
                "anchor": anchor,
                # the label's start sits on the token's left edge, its end on its right edge
                "dx": {"start": -3.2, "end": 3.2, "middle": 0.0}[anchor],
                "at": f"{number(p[0])}, {number(p[1])} m",
                # exact to a nanometre, without a float's binary noise (issue 22 item 8)
                "meters": (round(float(p[0]), 9), round(float(p[1]), 9)),
                "movable": bool(moves) and not c.get("down", False),
                "rings": _rings(moves, scale) if moves and not c.get("down") else [],
                "steps": [[s["meters"], s["cost"]] for s in moves["steps"]] if moves else [],
                "reach": _reach_text(c["name"], moves) if moves else "",
            }
        )
    _place_labels(tokens, height)
    step = grid_step(MAP_WIDTH / scale)
    movable = [t for t in tokens if t["movable"]]
    turn = view.get("turn")
    selected = next((t["id"] for t in movable if t["id"] == viewer), None) or next(
        (t["id"] for t in movable if t["id"] == turn), movable[0]["id"] if movable else None
    )
    return {
        "width": MAP_WIDTH,
        "height": height,
        "view_height": height + MAP_LEGEND,
        "tokens": tokens,
        "scale": scale,
        "x0": x0,
        "y0": y0,
        "grid": _grid(x0, y0, height, scale, step),
        "scale_bar": {
            "meters": step,
            "length": step * scale,
            "label": f"{step} m",
            "y": height + MAP_LEGEND / 2,
        },
        "selected": selected,
    }


def _rings(moves: Mapping[str, Any], scale: float) -> list[dict[str, Any]]:
    """A movable creature's circles on the map: how far it may move now (R35, what its AP
    buy), melee reach (adjacent, R34) and each ranged weapon's close and far range (R39)."""
    rings = []
    if moves["range"] > 0:
        rings.append(
            {"kind": "move", "r": moves["range"] * scale, "meters": moves["range"], "what": "move"}
        )
    rings.append(
        {
            "kind": "adjacent",
            "r": moves["adjacent"] * scale,
            "meters": moves["adjacent"],
            "what": "",
        }
    )
    for w in moves["weapons"]:
        for kind in ("close", "far"):
            rings.append({"kind": kind, "r": w[kind] * scale, "meters": w[kind], "what": w["name"]})
    return rings


def _reach_text(name: str, moves: Mapping[str, Any]) -> str:
    """The rings in words, for everyone who does not read the drawing."""
    if moves["steps"]:
        last = moves["steps"][-1]
        parts = [f"{name} moves up to {number(moves['range'])} m now ({last['cost']})"]
    else:
        parts = [f"{name} cannot move now"]
    parts.append(f"reach {number(moves['adjacent'])} m")
    for w in moves["weapons"]:
        hand = "" if w["equipped"] else ", not in hand"
        parts.append(f"{w['name']} close {w['close']} m, far {w['far']} m{hand}")
    return "; ".join(parts)


def positions(view: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The map's tokens (see :func:`map_view`); empty when no creature has a position."""
    drawn = map_view(view)
    return list(drawn["tokens"]) if drawn else []


def screen_context(view: Mapping[str, Any]) -> dict[str, Any]:
    """What the screen templates are rendered with: the view, and what is read off it."""
    return {
        "view": view,
        "gm": view.get("viewer") == "gm",
        "me": own_creature(view),
        "log": view.get("log") or [],
        "placed": map_view(view),
        "points": view.get("module") == "action_points",
        "bundled": bundled_of(str(view.get("module"))) if view.get("viewer") == "gm" else (),
    }


@cache
def bundled_of(module: str) -> tuple[tuple[str, str], ...]:
    """The bundled creatures of ``module`` (creature id, name), which the GM's Add picks from
    beside the encounter's reserves: the server adds those by id and reads no file (R48)."""
    return tuple(
        (creature_id, entry.title)
        for creature_id, entry in sorted(bundled_creatures().items())
        if entry.economy == module
    )


def screen_fragments(view: Mapping[str, Any]) -> str:
    """Every changing part of the table screen, each swapped by its id (htmx ``hx-swap-oob``)."""
    return render("fragments.html", oob=True, **screen_context(view))
