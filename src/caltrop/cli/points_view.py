"""The state table of an Action Point encounter (seed 004): points, Stamina, position, conditions."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from caltrop.cli.fit import Fitted
from caltrop.core.commands import Act
from caltrop.core.model import Side
from caltrop.core.pool import net_advantage
from caltrop.economy.action_points import points, stat
from caltrop.economy.points_actions import carried_weight
from caltrop.encounter import Encounter, PendingRoll


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


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else f"−{-n}"


def _favor(net: int) -> str:
    """``Favor 2``, ``Disfavor 1`` or ``no Favor`` (a net count of Favor minus Disfavor)."""
    if net > 0:
        return f"Favor {net}"
    return f"Disfavor {-net}" if net < 0 else "no Favor"


def _declared(encounter: Encounter, roller: str, verb: str | None, flag: str | None) -> Act | None:
    """The latest command of ``roller`` that declared this roll (by verb, or by flag)."""
    for command in reversed(encounter.commands):
        if (
            isinstance(command, Act)
            and command.actor == roller
            and (verb is None or command.action == verb)
            and (flag is None or flag in command.flags)
        ):
            return command
    return None


def roll_terms(encounter: Encounter, pending: PendingRoll) -> list[str]:
    """What a pending roll of the module rolls against, before it is rolled: its DC and its
    Favor / Disfavor with their sources (R39: close or far range, Aim stacks; R41: the
    observer's line of sight, care; the declared +adv/+dis).

    The engine keeps the DC and the net Favor in the roll's context; the sources are read back
    from the declaring command and the weapon's close range, what is left of the Favor being
    the Aim (R39) or the line of sight (R41).
    """
    ctx = pending.context
    if "favor" not in ctx or "total_a" in ctx:  # no Favor (damage, defence), or the opposer's
        return []
    roller = encounter.creatures[pending.roller]
    verb = str(ctx.get("verb"))
    favor = int(ctx["favor"])
    stealth = verb == "stealth"
    command = _declared(
        encounter, roller.id, None if stealth else verb, "stealth" if stealth else None
    )
    sources: list[str] = []
    rest = favor
    if pending.stage == "hit":
        weapon = roller.weapon(str(ctx.get("weapons", "")))
        close = weapon.close if weapon is not None and weapon.close is not None else 0
        near = int(ctx["dc"]) <= close
        sources.append(
            f"{'close' if near else 'far'} range ({'within' if near else 'beyond'} {close} m) {'+1' if near else '−1'}"
        )
        rest -= 1 if near else -1
    if stealth and command is not None and "careful" in command.flags:
        sources.append("careful (double AP) +1")
        rest -= 1
    if command is not None and command.advantages:
        net = net_advantage(command.advantages)
        sources.append(" ".join(str(a) for a in command.advantages) + f" {_signed(net)}")
        rest -= net
    if rest and pending.stage == "hit":
        sources.append(f"aim ×{rest} {_signed(rest)}")
    elif rest and stealth:
        observer = encounter.creatures[int(ctx.get("observer", ctx.get("opposer", 0)))]
        sources.append(f"in {observer.name}'s line of sight {_signed(rest)}")
    elif rest:
        sources.append(f"other {_signed(rest)}")
    terms = []
    if pending.stage == "hit":
        terms.append(f"hits on DC {ctx['dc']} or more (the distance in meters, R39)")
    elif "dc" in ctx and stealth:
        observer = encounter.creatures[int(ctx["observer"])]
        terms.append(f"succeeds on DC {ctx['dc']} or more ({observer.name}'s Perception, R41)")
    elif "dc" in ctx:
        terms.append(f"succeeds on DC {ctx['dc']} or more")
    elif pending.stage == "contest" and "opposer" in ctx:
        opposer = encounter.creatures[int(ctx["opposer"])]
        terms.append(f"must beat {opposer.name}'s {ctx.get('stat_b')} roll (opposed, R4)")
    # R39: a ranged attack is a Dexterity check; other checks name their stat in the context.
    stat_name = (
        ctx.get("stat") or ctx.get("stat_a") or ("Dexterity" if pending.stage == "hit" else None)
    )
    pool = f"{stat_name} {roller.aspects.get(str(stat_name), 0)}, " if stat_name else ""
    detail = f": {', '.join(sources)}" if sources else ""
    terms.append(f"{pool}{_favor(favor)}{detail}")
    return terms


def _names_may_do(encounter: Encounter, creature_id: str) -> str:
    """Only the names of what the creature may do now (``attack aim move hold end turn``)."""
    names = [
        command.action if isinstance(command, Act) else str(command).split(": ", 1)[1]
        for command in encounter.legal_actions(creature_id)
    ]
    return " ".join(dict.fromkeys(names))


def _table(encounter: Encounter, *, compact: bool) -> Table:
    """Initiative order with Health, AP, RP (+ floating), Stamina, position and conditions;
    ``compact``: one line per creature on 80 columns (ids whole, the options named only, the
    conditions in lines under the table)."""
    caption = "AP on one's own turn; RP (+floating RP) on others' turns (R31–R33)"
    if compact:
        table = Table(
            title=f"{escape(encounter.definition.name)} — round {encounter.round}",
            caption="AP: own turn; RP (+f: floating): others' turns (R31–R33); 'legal ID': all",
            box=box.SIMPLE_HEAD,
            show_edge=False,
            pad_edge=False,
            collapse_padding=True,
            expand=True,
        )
    else:
        table = Table(
            title=f"{escape(encounter.definition.name)} — round {encounter.round}",
            caption=caption,
            expand=True,
        )
    width = max(len(c.id) for c in encounter.creatures)
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
    owner = encounter.turn_owner
    for i in encounter.order:
        c = encounter.creatures[i]
        s = points(encounter.resources[i])
        style = "cyan" if c.side is Side.PC else "magenta"
        rp = f"{s.rp}+{s.floating}f" if s.floating else str(s.rp)
        may_do = _names_may_do if compact else _may_do
        table.add_row(
            "▶" if c.id == owner else "",
            Text(c.id, style=style),
            Text(f"{encounter.health[i]}/{c.max_health}", style="red" if encounter.down[i] else ""),
            str(s.ap),
            rp,
            f"{s.stamina}/{stat(c, 'stamina')}",
            f"{s.x:g},{s.y:g}",
            *(() if compact else (_conditions(encounter, i),)),
            "down" if encounter.down[i] else may_do(encounter, c.id),
        )
    return table


def _conditions_lines(encounter: Encounter) -> Text | None:
    """The compact layout's conditions: one line for each creature that has any."""
    lines = []
    for i in encounter.order:
        conditions = _conditions(encounter, i)
        if conditions:
            lines.append(f"{encounter.creatures[i].id}: {conditions}")
    return Text("\n".join(lines)) if lines else None


def points_state_table(encounter: Encounter) -> RenderableType:
    """The full table where it fits the terminal, the compact one where not."""
    compact: list[RenderableType] = [_table(encounter, compact=True)]
    conditions = _conditions_lines(encounter)
    if conditions is not None:
        compact.append(conditions)
    return Fitted(_table(encounter, compact=False), Group(*compact))
