"""Rich renderings of an encounter: the state table, the pending roll and the story of a command."""

from __future__ import annotations

from collections.abc import Mapping

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from caltrop.cli.points_view import points_state_table
from caltrop.core.commands import Act, CallRoll, Command, EndEncounter, EndTurn, Pass
from caltrop.core.model import ActionKind, Economy, Side
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


def _may_do(encounter: Encounter, creature_id: str) -> Text:
    """Every action of the creature, green if it may take it now, dim with the reason if not."""
    i = encounter.index(creature_id)
    creature = encounter.creatures[i]
    text = Text()
    if encounter.down[i]:
        return Text("down", style="red")
    pending = encounter.pending_roll
    on_turn = pending is None and encounter.turn_owner == creature_id
    for action in creature.actions:
        if text:
            text.append("  ")
        gate = encounter.economy.gate(creature, encounter.resources[i], action, on_turn=on_turn)
        usable_now = (on_turn and action.kind is not ActionKind.TEAM) or (
            pending is not None and action.reaction and pending.roller != i
        )
        label = f"{action.name}({action.cost})"
        if gate and usable_now:
            text.append(label, style="bold green")
        elif gate:
            text.append(label, style="green")
        else:
            text.append(label, style="dim strike")
    return text


def _aspects(encounter: Encounter, i: int) -> str:
    """Each Aspect with what is left of it: ``Finesse 6→7`` is Aspect 6, Aspect − Load 7."""
    c = encounter.creatures[i]
    load = encounter.resources[i].as_dict().get("load")
    parts = []
    for name, value in sorted(c.aspects.items(), key=lambda kv: -kv[1]):
        parts.append(f"{name} {value}" if load is None else f"{name} {value}→{value - load}")
    return ", ".join(parts)


def state_table(encounter: Encounter) -> Table:
    """Turn order with Health, resources, Aspect − Load and what each creature may still do."""
    if encounter.definition.ruleset.economy is Economy.ACTION_POINTS:
        return points_state_table(encounter)
    table = Table(
        title=f"{encounter.definition.name} — round {encounter.round}",
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
        marker = "▶" if c.id == owner else ""
        style = "cyan" if c.side is Side.PC else "magenta"
        table.add_row(
            marker,
            Text(
                c.id if c.name.lower().replace(" ", "-") == c.id else f"{c.name} ({c.id})",
                style=style,
            ),
            Text(f"{encounter.health[i]}/{c.max_health}", style="red" if encounter.down[i] else ""),
            encounter.economy.describe(c, encounter.resources[i]),
            _aspects(encounter, i),
            _may_do(encounter, c.id),
        )
    return table


def _legal_summary(encounter: Encounter, decider: str) -> str:
    """The decider's options grouped by action: ``strike goblin-1|goblin-2; end turn``."""
    groups: dict[str, list[str]] = {}
    for command in encounter.legal_actions(decider):
        text = str(command).split(": ", 1)[1]
        head, _, rest = text.partition(" ")
        groups.setdefault(head if rest and head != "end" else text, []).append(
            rest if head != "end" else ""
        )
    parts = []
    for head, rests in groups.items():
        shown = [r for r in rests if r]
        parts.append(f"{head} {' | '.join(shown)}" if shown else head)
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
    if pending.advantages:
        lines.append("advantage: " + " ".join(str(a) for a in pending.advantages))
    decider = encounter.current()
    if decider == CHANCE:
        lines.append("type 'roll' (or 'roll 3,1,4,…' for physical dice)")
    else:
        lines.append(
            f"{encounter.creature(decider).name} may react: "
            + " | ".join(str(c) for c in encounter.legal_actions(decider))
            + "  (or type 'roll' to roll now)"
        )
    title = "initiative" if pending.kind is RollKind.INITIATIVE else "reaction window"
    return Panel("\n".join(lines), title=title, border_style="yellow")


def screen(encounter: Encounter) -> RenderableType:
    """Everything a table needs to see after a command."""
    parts: list[RenderableType] = [state_table(encounter)]
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
