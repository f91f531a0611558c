"""The state table of an Action Point encounter (seed 004): points, Stamina, position, conditions."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from caltrop.core.commands import Act
from caltrop.core.model import Side
from caltrop.economy.action_points import points, stat
from caltrop.economy.points_actions import carried_weight
from caltrop.encounter import Encounter


def _conditions(encounter: Encounter, i: int) -> str:
    s = points(encounter.resources[i])
    parts: list[str] = []
    if s.prone:
        parts.append("prone")
    if s.grappled_by:
        parts.append(f"grappled by {s.grappled_by}")
    if s.scaling:
        parts.append(f"scaling {s.scaling}")
    if s.aim:
        parts.append(f"aim {s.aim}→{s.aim_target}")
    if s.cover_from:
        parts.append(f"cover from {', '.join(s.cover_from)}")
    if s.unaware_of:
        parts.append(f"unaware of {', '.join(s.unaware_of)}")
    weight = carried_weight(encounter, i)
    if weight:
        parts.append(f"carries {weight} (R43)")
    return "; ".join(parts)


def _may_do(encounter: Encounter, creature_id: str) -> str:
    """What the creature may do right now, grouped by action (``attack orc | goblin; hold``)."""
    groups: dict[str, list[str]] = {}
    for command in encounter.legal_actions(creature_id):
        if isinstance(command, Act):
            rest = " ".join(command.targets)
            if command.to is not None:
                rest = f"to {command.to[0]:g},{command.to[1]:g}"
            groups.setdefault(command.action, []).append(rest)
        else:
            groups.setdefault(str(command).split(": ", 1)[1], [])
    return "; ".join(
        f"{name} {' | '.join(r for r in rests if r)}".strip() for name, rests in groups.items()
    )


def points_state_table(encounter: Encounter) -> Table:
    """Initiative order with Health, AP, RP (+ floating), Stamina, position and conditions."""
    table = Table(
        title=f"{encounter.definition.name} — round {encounter.round}",
        caption="AP on one's own turn; RP (+floating RP) on others' turns (R31–R33)",
        expand=True,
    )
    for name, kw in (
        ("", {"width": 1}),
        ("creature", {"ratio": 2}),
        ("health", {"justify": "right"}),
        ("AP", {"justify": "right"}),
        ("RP", {"justify": "right"}),
        ("Stamina", {"justify": "right"}),
        ("at (m)", {}),
        ("conditions", {"ratio": 2}),
        ("may do now", {"ratio": 3}),
    ):
        table.add_column(name, **kw)
    owner = encounter.turn_owner
    for i in encounter.order:
        c = encounter.creatures[i]
        s = points(encounter.resources[i])
        style = "cyan" if c.side is Side.PC else "magenta"
        rp = f"{s.rp}+{s.floating}f" if s.floating else str(s.rp)
        table.add_row(
            "▶" if c.id == owner else "",
            Text(c.id, style=style),
            Text(f"{encounter.health[i]}/{c.max_health}", style="red" if encounter.down[i] else ""),
            str(s.ap),
            rp,
            f"{s.stamina}/{stat(c, 'stamina')}",
            f"{s.x:g},{s.y:g}",
            _conditions(encounter, i),
            "down" if encounter.down[i] else _may_do(encounter, c.id),
        )
    return table
