"""The browser screens' HTML, rendered with Jinja2 from the view model alone (issue 12).

Nothing here knows a rule: every number and every reason comes from
:meth:`caltrop.table.TableView.as_dict` (the server's view model); this module only lays it out.
:func:`screen_fragments` gives the parts of a table screen that change, each an element with an
``id`` and ``hx-swap-oob`` so the page socket can send them as they are (htmx's WebSocket
extension swaps each by its id). Every command form gets a fresh ``command_id``, so a double
tap sends one id twice and the server applies it once (issue 11's retry rule).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, Final

import segno
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

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
    env.filters["percent"] = percent
    env.filters["odds_percent"] = odds_percent
    env.filters["number"] = number
    env.globals["creature_name"] = creature_name
    return env


def new_command_id() -> str:
    """A fresh id for one rendered command form."""
    return secrets.token_urlsafe(12)


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


def number(value: Any) -> str:
    """``2.0`` → ``2``, ``8.55`` → ``8.55``."""
    if isinstance(value, float) and value.is_integer():
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


def positions(view: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The creatures with a position (the Action Point module), scaled into a 0..100 × 0..40
    box for the distance map; empty when no creature has one."""
    placed = [
        (c, c["position"])
        for c in view.get("creatures", ())
        if isinstance(c.get("position"), Sequence) and not c.get("removed")
    ]
    if not placed:
        return []
    xs = [float(p[0]) for _, p in placed]
    ys = [float(p[1]) for _, p in placed]
    span = max(max(xs) - min(xs), max(ys) - min(ys), 1.0)
    out = []
    for c, p in placed:
        out.append(
            {
                "id": c["id"],
                "name": c["name"],
                "side": c["side"],
                "down": c.get("down", False),
                "x": 8 + 84 * (float(p[0]) - min(xs)) / span,
                "y": 20 + 84 * (float(p[1]) - (min(ys) + max(ys)) / 2) / span,
                "at": f"{number(p[0])}, {number(p[1])} m",
            }
        )
    # neighbours along the map take turns to be labelled above and below their token
    for rank, token in enumerate(sorted(out, key=lambda t: (t["x"], t["y"]))):
        token["below"] = rank % 2 == 1
    return out


def screen_context(view: Mapping[str, Any]) -> dict[str, Any]:
    """What the screen templates are rendered with: the view, and what is read off it."""
    return {
        "view": view,
        "gm": view.get("viewer") == "gm",
        "me": own_creature(view),
        "log": view.get("log") or [],
        "placed": positions(view),
        "points": view.get("module") == "action_points",
    }


def screen_fragments(view: Mapping[str, Any]) -> str:
    """Every changing part of the table screen, each swapped by its id (htmx ``hx-swap-oob``)."""
    return render("fragments.html", oob=True, **screen_context(view))
