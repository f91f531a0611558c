"""Rich renderings of an encounter: the state table, the pending roll and the story of a command."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rich import box
from rich.console import Group, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from caltrop.cli.fit import Fitted
from caltrop.cli.points_view import points_state_table, roll_terms
from caltrop.core.commands import Act, CallRoll, Command, EndEncounter, EndTurn, Pass
from caltrop.core.model import ActionKind, Economy, Side
from caltrop.core.pool import Revision
from caltrop.dice.parse import parse
from caltrop.dice.render import render_d4_math
from caltrop.dice.roll import roll
from caltrop.encounter import CHANCE, TERMINAL, Encounter, Outcome, RollKind


def outcome_text(outcome: Outcome, names: Mapping[str, str] | None = None) -> str:
    """The roll die by die (D4 Math form) and what it did; ``names`` maps ids to names."""

    def name(creature_id: str | None) -> str | None:
        return names.get(creature_id, creature_id) if names and creature_id else creature_id

    if outcome.faces:
        rolled = render_d4_math(roll(parse(outcome.expression), entered=outcome.faces))
    else:
        rolled = f"{outcome.expression} = {outcome.total}"
    parts = [f"{name(outcome.roller)} rolls {rolled}"]
    if outcome.kind is RollKind.INITIATIVE:
        parts.append("for initiative")
    if outcome.damage is not None:
        parts.append(f"→ {outcome.damage} damage to {name(outcome.target)}")
    if outcome.success is not None:
        parts.append(f"vs DC {outcome.dc}: {'success' if outcome.success else 'failure'}")
    if outcome.note:
        parts.append(f"({outcome.note})")
    if outcome.downed:
        parts.append(f"— {name(outcome.target)} is down!")
    return " ".join(parts)


def command_story(encounter: Encounter, command: Command, outcome: Outcome | None) -> str:
    """One line telling what a command did (for the play session and ``caltrop replay``)."""
    if outcome is not None:
        return outcome_text(outcome, {c.id: c.name for c in encounter.creatures})
    if isinstance(command, Act) and encounter.definition.ruleset.economy is Economy.ACTION_POINTS:
        return f"{encounter.creature(command.actor).name}: {str(command).split(': ', 1)[1]}"
    if isinstance(command, Act):
        actor = encounter.creature(command.actor)
        action = actor.action(command.action)
        if action is not None and action.kind is ActionKind.TEAM:
            return f"{actor.name} uses {action.name} on the pending roll ({action.source_key})"
        extra = f" {' '.join(command.targets)}" if command.targets else ""
        return f"{actor.name} declares {command.action}{extra}"
    if isinstance(command, EndTurn):
        return f"{encounter.creature(command.actor).name} ends the turn"
    if isinstance(command, Pass):
        return f"{encounter.creature(command.actor).name} passes"
    if isinstance(command, CallRoll):
        return f"the GM calls for {command.target}'s {command.aspect} roll"
    if isinstance(command, EndEncounter):
        return "the GM ends the encounter"
    return str(command)


def _action_labels(encounter: Encounter, creature_id: str) -> list[tuple[str, str]]:
    """Every action of the creature as ``(name(cost), style)``: bold green if it may take it now,
    green if its gate is open (R11), struck if not."""
    i = encounter.index(creature_id)
    creature = encounter.creatures[i]
    pending = encounter.pending_roll
    on_turn = pending is None and encounter.turn_owner == creature_id
    labels: list[tuple[str, str]] = []
    for action in creature.actions:
        gate = encounter.economy.gate(creature, encounter.resources[i], action, on_turn=on_turn)
        usable_now = (on_turn and action.kind is not ActionKind.TEAM) or (
            pending is not None and action.reaction and pending.roller != i
        )
        style = "bold green" if gate and usable_now else "green" if gate else "dim strike"
        labels.append((f"{action.name}({action.cost})", style))
    return labels


def _may_do(encounter: Encounter, creature_id: str, *, compact: bool = False) -> Text:
    """The creature's actions, styled by :func:`_action_labels`; ``compact``: those it may take
    now first, one space apart (the cell cuts the rest short)."""
    if encounter.down[encounter.index(creature_id)]:
        return Text("down", style="red")
    labels = _action_labels(encounter, creature_id)
    if compact:
        rank = {"bold green": 0, "green": 1}
        labels.sort(key=lambda label: rank.get(label[1], 2))
    text = Text()
    for label, style in labels:
        if text:
            text.append(" " if compact else "  ")
        text.append(label, style=style)
    return text


def _load(encounter: Encounter, i: int) -> int | None:
    load = encounter.resources[i].as_dict().get("load")
    return int(load) if load is not None else None


def _aspects(encounter: Encounter, i: int, short: Mapping[str, str] | None = None) -> str:
    """Each Aspect with its gate: ``Finesse 6→7`` is Aspect 6, Aspect − Load 7 (R11);
    ``short`` names the Aspects by abbreviation (``F6→7``)."""
    c = encounter.creatures[i]
    load = _load(encounter, i)
    parts = []
    # Full names: the highest first; abbreviations: in the key's order, the same on every row.
    ordered = [(n, c.aspects[n]) for n in short if n in c.aspects] if short else None
    for name, value in ordered or sorted(c.aspects.items(), key=lambda kv: -kv[1]):
        label = f"{short[name]}{value}" if short else f"{name} {value}"
        parts.append(label if load is None else f"{label}→{value - load}")
    return (" " if short else ", ").join(parts)


def abbreviations(names: Iterable[str]) -> dict[str, str]:
    """The shortest prefix of each name that no other name starts with: ``F`` for Finesse."""
    unique = list(dict.fromkeys(names))
    short: dict[str, str] = {}
    for name in unique:
        others = [n for n in unique if n != name]
        n = 1
        while n < len(name) and any(o.startswith(name[:n]) for o in others):
            n += 1
        short[name] = name[:n]
    return short


def _title(encounter: Encounter) -> str:
    """The table's title; names are text, never rich markup (``[/x] M`` stays as written)."""
    return f"{escape(encounter.definition.name)} — round {encounter.round}"


def _creature_label(encounter: Encounter, i: int) -> Text:
    c = encounter.creatures[i]
    style = "cyan" if c.side is Side.PC else "magenta"
    return Text(
        c.id if c.name.lower().replace(" ", "-") == c.id else f"{c.name} ({c.id})", style=style
    )


def _full_table(encounter: Encounter) -> Table:
    """Turn order with Health, Load, each Aspect → Aspect − Load and every action (wide screens)."""
    table = Table(
        title=_title(encounter),
        caption="Aspect a→b: Aspect a, a − Load = b.  bold: may do now;  green: gate open;  struck: gate shut",
        expand=True,
    )
    table.add_column("", width=1)
    table.add_column("creature", ratio=2)
    table.add_column("health", justify="right")
    table.add_column("", justify="left")
    table.add_column("Aspect → Aspect − Load", ratio=3)
    table.add_column("actions (cost)", ratio=3)
    owner = encounter.turn_owner
    for i in encounter.order:
        c = encounter.creatures[i]
        table.add_row(
            "▶" if c.id == owner else "",
            _creature_label(encounter, i),
            Text(f"{encounter.health[i]}/{c.max_health}", style="red" if encounter.down[i] else ""),
            encounter.economy.describe(c, encounter.resources[i]),
            _aspects(encounter, i),
            _may_do(encounter, c.id),
        )
    return table


def _compact_table(encounter: Encounter) -> Table:
    """The same, one line per creature on an 80-column screen: ids whole, Aspects abbreviated,
    the actions those it may take now first, cut short at the edge ('legal ID' lists all)."""
    short = abbreviations(name for c in encounter.creatures for name in c.aspects)
    key = ", ".join(f"{a} {name}" for name, a in short.items())
    table = Table(
        title=_title(encounter),
        caption=f"{key}; a→b: Aspect a, a − Load = b\n"
        "bold: may do now; green: gate open; struck: shut; 'legal ID': all",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
        expand=True,
    )
    width = max(len(c.id) for c in encounter.creatures)
    table.add_column("", width=1, no_wrap=True)
    table.add_column("creature", min_width=width, no_wrap=True)
    table.add_column("health", justify="right", no_wrap=True)
    table.add_column("Load", justify="right", no_wrap=True)
    table.add_column("a→b", no_wrap=True)
    table.add_column("actions (cost)", ratio=1, no_wrap=True, overflow="ellipsis")
    owner = encounter.turn_owner
    for i in encounter.order:
        c = encounter.creatures[i]
        load = _load(encounter, i)
        table.add_row(
            "▶" if c.id == owner else "",
            Text(c.id, style="cyan" if c.side is Side.PC else "magenta"),
            Text(f"{encounter.health[i]}/{c.max_health}", style="red" if encounter.down[i] else ""),
            str(load)
            if load is not None
            else encounter.economy.describe(c, encounter.resources[i]),
            _aspects(encounter, i, short),
            _may_do(encounter, c.id, compact=True),
        )
    return table


def state_table(encounter: Encounter) -> RenderableType:
    """Turn order with Health, resources, Aspect − Load and what each creature may still do:
    the full table where it fits the terminal, the compact one where not."""
    if encounter.definition.ruleset.economy is Economy.ACTION_POINTS:
        return points_state_table(encounter)
    return Fitted(_full_table(encounter), _compact_table(encounter))


def load_legend(encounter: Encounter) -> Text | None:
    """One line on a negative Load, when any creature has one (R10, R12; legacy R20)."""
    loads = [_load(encounter, i) for i in range(len(encounter.creatures))]
    lowest = min((load for load in loads if load is not None), default=0)
    if lowest >= 0:
        return None
    if encounter.definition.ruleset.revision is Revision.LEGACY:
        effect = "a negative Load adds dice (legacy, R20)"
    else:
        effect = "a negative Load adds no dice (R12)"
    return Text(f"Load {lowest} = Exhaustion − Load Buffer (R10); {effect}", style="italic")


def _legal_summary(encounter: Encounter, decider: str) -> str:
    """The decider's options grouped by action: ``shoot aria|bron with shortbow; end turn``."""
    groups: dict[tuple[str, str], list[str]] = {}
    for command in encounter.legal_actions(decider):
        text = str(command).split(": ", 1)[1]
        if isinstance(command, Act) and command.targets:
            head, _, rest = text.partition(" ")
            targets = " ".join(command.targets)
            tail = rest[len(targets) :] if rest.startswith(targets) else f" {rest}"
            groups.setdefault((head, tail), []).append(targets)
        elif isinstance(command, Act):
            head, _, rest = text.partition(" ")
            groups.setdefault((head, ""), []).append(rest)
        else:
            groups.setdefault((text, ""), [])
    parts = []
    for (head, tail), items in groups.items():
        shown = [item for item in items if item]
        parts.append(f"{head} {'|'.join(shown)}{tail}" if shown else f"{head}{tail}")
    return "; ".join(parts)


def pending_panel(encounter: Encounter) -> RenderableType | None:
    """The pending roll and its reaction window, or None."""
    pending = encounter.pending_roll
    if pending is None:
        return None
    roller = encounter.creatures[pending.roller]
    what = pending.action.name if pending.action else pending.aspect
    if pending.kind is RollKind.STAGE:
        what = f"{pending.context.get('verb')} {pending.stage}"
        if pending.stage == "defence":
            what += f" against {pending.context.get('incoming')} damage"
    lines = [f"{roller.name}'s {what} roll is pending: {encounter.pending_expression()}"]
    if pending.kind is RollKind.STAGE:
        lines += roll_terms(encounter, pending)
    if pending.advantages:
        lines.append("advantage: " + " ".join(str(a) for a in pending.advantages))
    decider = encounter.current()
    if decider == CHANCE:
        lines.append("type 'roll' (or 'roll 3,1,4,…' for physical dice)")
    else:
        options = [str(c).split(": ", 1)[1] for c in encounter.legal_actions(decider)]
        lines.append(
            f"{encounter.creature(decider).name} ({decider}) may react: "
            + " | ".join(options)
            + "  (or type 'roll' to roll now)"
        )
    title = "initiative" if pending.kind is RollKind.INITIATIVE else "reaction window"
    return Panel(Text("\n".join(lines)), title=title, border_style="yellow")


def conditions_line(encounter: Encounter) -> Text | None:
    """The conditions the GM has set (R48) that the table does not show otherwise, or None."""
    shown = [
        f"{c.id} {', '.join(encounter.conditions[i])}"
        for i, c in enumerate(encounter.creatures)
        if encounter.conditions[i] and not encounter.gone[i]
    ]
    return Text("conditions (GM, R48): " + "; ".join(shown)) if shown else None


def screen(encounter: Encounter) -> RenderableType:
    """Everything a table needs to see after a command."""
    parts: list[RenderableType] = [state_table(encounter)]
    conditions = conditions_line(encounter)
    if conditions is not None:
        parts.append(conditions)
    legend = load_legend(encounter)
    if legend is not None:
        parts.append(legend)
    panel = pending_panel(encounter)
    if panel is not None:
        parts.append(panel)
    decider = encounter.current()
    if decider == TERMINAL:
        winner = encounter.winner.value if encounter.winner else "nobody"
        parts.append(Text(f"The encounter is over: {winner} wins.", style="bold"))
    elif decider != CHANCE and panel is None:
        name = encounter.creature(decider).name
        parts.append(Text(f"{name} ({decider}) to act — {_legal_summary(encounter, decider)}"))
    return Group(*parts)
