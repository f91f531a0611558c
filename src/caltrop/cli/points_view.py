"""The state table of an Action Point encounter (seed 004): points, Stamina, position, conditions.

Rendered from the shared view model (:class:`caltrop.table.TableView`): the creatures' points
and facts as the GM sees them, and what each may do now as the view lists it.
"""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from caltrop.cli.fit import Fitted
from caltrop.cli.view_cells import health, side_style, title
from caltrop.core.commands import Act, parse_command
from caltrop.table import CreatureView, TableView


def _conditions(cv: CreatureView) -> str:
    """Prone, grapples (R42), scaling (R43), Aim (R39), cover (R40), awareness (R41), and the
    weight it carries (R43)."""
    s = cv.resources or {}
    parts: list[str] = []
    if s.get("prone"):
        parts.append("prone")
    if s.get("grappled_by"):
        parts.append(f"grappled by {s['grappled_by']}")
    if s.get("scaling"):
        parts.append(f"scaling {s['scaling']}")
    if s.get("aim"):
        parts.append(f"aim {s['aim']}→{s.get('aim_target')}")
    if s.get("cover_from"):
        parts.append(f"cover from {', '.join(s['cover_from'])}")
    if s.get("unaware_of"):
        parts.append(f"unaware of {', '.join(s['unaware_of'])}")
    if cv.carries:
        parts.append(f"carries {cv.carries} (R43)")
    return "; ".join(parts)


def _legal(tv: TableView, creature_id: str) -> list[str]:
    """The creature's own legal commands (its roll is the panel's)."""
    return [o.command for o in tv.options.get(creature_id, ()) if o.legal and o.action != "roll"]


def _may_do(tv: TableView, creature_id: str) -> str:
    """What the creature may do right now, grouped by action (``attack orc | goblin; hold``)."""
    groups: dict[str, list[str]] = {}
    for text in _legal(tv, creature_id):
        command = parse_command(text)
        if isinstance(command, Act):
            rest = " ".join(command.targets)
            if command.to is not None:
                rest = f"to {command.to[0]:g},{command.to[1]:g}"
            groups.setdefault(command.action, []).append(rest)
        else:
            groups.setdefault(text.split(": ", 1)[1], [])
    return "; ".join(
        f"{name} {' | '.join(r for r in rests if r)}".strip() for name, rests in groups.items()
    )


def _names_may_do(tv: TableView, creature_id: str) -> str:
    """Only the names of what the creature may do now (``attack aim move hold end turn``)."""
    names = []
    for text in _legal(tv, creature_id):
        command = parse_command(text)
        names.append(command.action if isinstance(command, Act) else text.split(": ", 1)[1])
    return " ".join(dict.fromkeys(names))


def _table(tv: TableView, *, compact: bool) -> Table:
    """Initiative order with Health, AP, RP (+ floating), Stamina, position and conditions;
    ``compact``: one line per creature on 80 columns (ids whole, the options named only, the
    conditions in lines under the table)."""
    caption = "AP on one's own turn; RP (+floating RP) on others' turns (R31–R33)"
    if compact:
        table = Table(
            title=title(tv),
            caption="AP: own turn; RP (+f: floating): others' turns (R31–R33); 'legal ID': all",
            box=box.SIMPLE_HEAD,
            show_edge=False,
            pad_edge=False,
            collapse_padding=True,
            expand=True,
        )
    else:
        table = Table(title=title(tv), caption=caption, expand=True)
    width = max(len(c.id) for c in tv.creatures)
    columns: tuple[tuple[str, dict[str, Any]], ...] = (
        ("", {"width": 1}),
        ("creature", {"min_width": width, "no_wrap": True} if compact else {"ratio": 2}),
        ("health", {"justify": "right"}),
        ("AP", {"justify": "right"}),
        ("RP", {"justify": "right"}),
        ("St" if compact else "Stamina", {"justify": "right"}),
        ("at (m)", {}),
        *(() if compact else (("conditions", {"ratio": 2}),)),
        (
            "may do now",
            {"ratio": 1, "no_wrap": True, "overflow": "ellipsis"} if compact else {"ratio": 3},
        ),
    )
    for name, kw in columns:
        table.add_column(name, **kw)
    by_id = {c.id: c for c in tv.creatures}
    for creature_id in tv.order:
        cv = by_id[creature_id]
        s = cv.resources or {}
        floating = s.get("floating_rp", 0)
        rp = f"{s.get('rp')}+{floating}f" if floating else str(s.get("rp"))
        x, y = s.get("position", (0, 0))
        may_do = _names_may_do if compact else _may_do
        table.add_row(
            "▶" if cv.id == tv.turn else "",
            Text(cv.id, style=side_style(cv)),
            health(cv),
            str(s.get("ap")),
            rp,
            f"{s.get('stamina')}/{(cv.stats or {}).get('stamina', 0)}",
            f"{x:g},{y:g}",
            *(() if compact else (_conditions(cv),)),
            "down" if cv.down else may_do(tv, cv.id),
        )
    return table


def _conditions_lines(tv: TableView) -> Text | None:
    """The compact layout's conditions: one line for each creature that has any."""
    by_id = {c.id: c for c in tv.creatures}
    lines = []
    for creature_id in tv.order:
        conditions = _conditions(by_id[creature_id])
        if conditions:
            lines.append(f"{creature_id}: {conditions}")
    return Text("\n".join(lines)) if lines else None


def points_state_table(tv: TableView) -> RenderableType:
    """The full table where it fits the terminal, the compact one where not."""
    compact: list[RenderableType] = [_table(tv, compact=True)]
    conditions = _conditions_lines(tv)
    if conditions is not None:
        compact.append(conditions)
    return Fitted(_table(tv, compact=False), Group(*compact))
