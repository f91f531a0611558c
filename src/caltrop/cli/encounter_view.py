"""Rich renderings of an encounter: the state table, the pending roll and the story of a command.

Everything shown comes from the shared view model (:func:`caltrop.table.view`) as the GM sees
it — the terminal's driver runs every creature — so the terminal and the web table show the
same options, reasons, pools and odds; nothing here decides what a creature may do.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from caltrop.cli.common import percent
from caltrop.cli.fit import Fitted
from caltrop.cli.points_view import points_state_table
from caltrop.cli.view_cells import health, side_style, title
from caltrop.core.commands import GM, Act, Command, parse_command
from caltrop.core.model import Economy
from caltrop.core.pool import Revision
from caltrop.economy.outcome import outcome_json
from caltrop.encounter import CHANCE, TERMINAL, Encounter, Outcome, RollKind
from caltrop.table import ActionOption, CreatureView, TableView, view
from caltrop.table.log import command_text, roll_text


def table_view(encounter: Encounter) -> TableView:
    """The encounter as the terminal shows it: the GM's view, with every creature's options
    (one keyboard runs them all; the GM may issue any creature's command)."""
    return view(encounter, GM, answers_for=[GM, *(c.id for c in encounter.creatures)])


def outcome_text(outcome: Outcome, names: Mapping[str, str] | None = None) -> str:
    """The roll die by die (D4 Math form) and what it did; ``names`` maps ids to names."""
    return roll_text(
        outcome_json(outcome),
        names or {},
        dc=outcome.dc,
        initiative=outcome.kind is RollKind.INITIATIVE,
    )


def command_story(encounter: Encounter, command: Command, outcome: Outcome | None) -> str:
    """One line telling what a command did (for the play session and ``caltrop replay``): the
    log's words (:mod:`caltrop.table.log`), with the DC the outcome was rolled against."""
    names = {c.id: c.name for c in encounter.creatures}
    if outcome is not None:
        return outcome_text(outcome, names)
    return command_text(encounter, command, names)


def odds_text(odds: Mapping[str, Any]) -> str:
    """The odds compactly: ``hit 56%  dmg 3.2 vs Evasion 10; help 70%, hinder 41%``."""

    def pct(p: float | None, exact: str | None = None) -> str:
        if p is None:
            return "?"
        certain = exact == "1" or (exact is None and p >= 1)
        impossible = exact == "0" or (exact is None and p <= 0)
        return percent(p, certain=certain, impossible=impossible, digits=0)

    if odds["kind"] == "defence":  # R40: the defender's chance of no damage, damage taken
        then = f"then {odds['then']}: " if odds.get("then") else ""
        text = f"{then}unhurt {pct(odds['success'], odds['exact'])}"
        text += f"  taken {odds['expected_damage']:.1f}"
        if odds.get("with_help") is not None:
            text += f"; +1 assist die {pct(odds['with_help'])}"
        if odds.get("or_then"):  # Take Cover: also followed by a Dodge
            text += f"; {odds_text(odds['or_then'])}"
        return text
    word = "hit" if odds["kind"] == "attack" else "success"
    text = f"{word} {pct(odds['success'], odds['exact'])}"
    if odds.get("expected_damage") is not None:
        text += f"  dmg {odds['expected_damage']:.1f}"
    if odds.get("against"):
        text += f" vs {odds['against']}"
    helped, hindered = odds.get("with_help"), odds.get("with_hinder")
    if helped is not None and hindered is not None:
        text += f"; help {pct(helped)}, hinder {pct(hindered)}"
    return text


def _options(tv: TableView, creature_id: str) -> tuple[ActionOption, ...]:
    return tuple(tv.options.get(creature_id, ()))


def _creature(tv: TableView, creature_id: str) -> CreatureView:
    return next(c for c in tv.creatures if c.id == creature_id)


def _action_labels(tv: TableView, cv: CreatureView) -> list[tuple[str, str]]:
    """Every action of the creature as ``(name(cost), style)``: bold green if it may take it now,
    green if only the moment is wrong (its gate is open, R11), struck if its gate is shut."""
    options = _options(tv, cv.id)
    now = {o.action for o in options if o.legal}
    gate_open = {o.action for o in options if not o.legal and o.gate_open}
    labels: list[tuple[str, str]] = []
    for name, cost in (cv.actions or {}).items():
        style = "bold green" if name in now else "green" if name in gate_open else "dim strike"
        labels.append((f"{name}({cost})", style))
    return labels


def _may_do(tv: TableView, cv: CreatureView, *, compact: bool = False) -> Text:
    """The creature's actions, styled by :func:`_action_labels`; ``compact``: those it may take
    now first, one space apart (the cell cuts the rest short)."""
    if cv.down:
        return Text("down", style="red")
    labels = _action_labels(tv, cv)
    if compact:
        rank = {"bold green": 0, "green": 1}
        labels.sort(key=lambda label: rank.get(label[1], 2))
    text = Text()
    for label, style in labels:
        if text:
            text.append(" " if compact else "  ")
        text.append(label, style=style)
    return text


def _load(cv: CreatureView) -> int | None:
    load = (cv.resources or {}).get("load")
    return int(load) if isinstance(load, int) else None


def _aspects(cv: CreatureView, short: Mapping[str, str] | None = None) -> str:
    """Each Aspect with its gate: ``Finesse 6→7`` is Aspect 6, Aspect − Load 7 (R11);
    ``short`` names the Aspects by abbreviation (``F6→7``)."""
    aspects = dict(cv.aspects or {})
    load = _load(cv)
    parts = []
    # Full names: the highest first; abbreviations: in the key's order, the same on every row.
    ordered = [(n, aspects[n]) for n in short if n in aspects] if short else None
    for name, value in ordered or sorted(aspects.items(), key=lambda kv: -kv[1]):
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


def _creature_label(cv: CreatureView) -> Text:
    plain = cv.name.lower().replace(" ", "-") == cv.id
    return Text(cv.id if plain else f"{cv.name} ({cv.id})", style=side_style(cv))


def _full_table(tv: TableView) -> Table:
    """Turn order with Health, Load, each Aspect → Aspect − Load and every action (wide screens)."""
    table = Table(
        title=title(tv),
        caption="Aspect a→b: Aspect a, a − Load = b.  bold: may do now;  green: gate open;  struck: gate shut",
        expand=True,
    )
    table.add_column("", width=1)
    table.add_column("creature", ratio=2)
    table.add_column("health", justify="right")
    table.add_column("", justify="left")
    table.add_column("Aspect → Aspect − Load", ratio=3)
    table.add_column("actions (cost)", ratio=3)
    for creature_id in tv.order:
        cv = _creature(tv, creature_id)
        load = _load(cv)
        table.add_row(
            "▶" if cv.id == tv.turn else "",
            _creature_label(cv),
            health(cv),
            f"Load {load}" if load is not None else "",
            _aspects(cv),
            _may_do(tv, cv),
        )
    return table


def _compact_table(tv: TableView) -> Table:
    """The same, one line per creature on an 80-column screen: ids whole, Aspects abbreviated,
    the actions those it may take now first, cut short at the edge ('legal ID' lists all)."""
    short = abbreviations(name for c in tv.creatures for name in (c.aspects or {}))
    key = ", ".join(f"{a} {name}" for name, a in short.items())
    table = Table(
        title=title(tv),
        caption=f"{key}; a→b: Aspect a, a − Load = b\n"
        "bold: may do now; green: gate open; struck: shut; 'legal ID': all",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
        expand=True,
    )
    width = max(len(c.id) for c in tv.creatures)
    table.add_column("", width=1, no_wrap=True)
    table.add_column("creature", min_width=width, no_wrap=True)
    table.add_column("health", justify="right", no_wrap=True)
    table.add_column("Load", justify="right", no_wrap=True)
    table.add_column("a→b", no_wrap=True)
    table.add_column("actions (cost)", ratio=1, no_wrap=True, overflow="ellipsis")
    for creature_id in tv.order:
        cv = _creature(tv, creature_id)
        load = _load(cv)
        table.add_row(
            "▶" if cv.id == tv.turn else "",
            Text(cv.id, style=side_style(cv)),
            health(cv),
            str(load) if load is not None else "",
            _aspects(cv, short),
            _may_do(tv, cv, compact=True),
        )
    return table


def state_table(encounter: Encounter, tv: TableView | None = None) -> RenderableType:
    """Turn order with Health, resources, Aspect − Load and what each creature may still do:
    the full table where it fits the terminal, the compact one where not."""
    tv = tv if tv is not None else table_view(encounter)
    if encounter.definition.ruleset.economy is Economy.ACTION_POINTS:
        return points_state_table(tv)
    return Fitted(_full_table(tv), _compact_table(tv))


def load_legend(encounter: Encounter, tv: TableView) -> Text | None:
    """One line on a negative Load, when any creature has one (R10, R12; legacy R20)."""
    loads = [_load(c) for c in tv.creatures]
    lowest = min((load for load in loads if load is not None), default=0)
    if lowest >= 0:
        return None
    if encounter.definition.ruleset.revision is Revision.LEGACY:
        effect = "a negative Load adds dice (legacy, R20)"
    else:
        effect = "a negative Load adds no dice (R12)"
    return Text(f"Load {lowest} = Exhaustion − Load Buffer (R10); {effect}", style="italic")


def legal_summary(tv: TableView, decider: str) -> str:
    """The decider's options grouped by action: ``shoot aria|bron with shortbow; end turn``."""
    groups: dict[tuple[str, str], list[str]] = {}
    for option in _options(tv, decider):
        if not option.legal:
            continue
        command = parse_command(option.command)
        text = option.command.split(": ", 1)[1]
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


def legal_lines(tv: TableView, who: str) -> list[str]:
    """What ``who`` may do now, one command a line with its odds; then, marked ``(not now)``, each
    action it may not take now with the engine's reason (``legal ID``)."""
    lines = []
    options = _options(tv, who)
    for option in options:
        if option.legal:
            odds = f"   {odds_text(option.odds)}" if option.odds else ""
            lines.append(f"{option.command}{odds}")
    if not lines:
        lines.append("nothing now")
    lines += [f"(not now) {o.action}: {o.reason}" for o in options if not o.legal]
    return lines


def pending_panel(tv: TableView) -> RenderableType | None:
    """The pending roll — its pool explained, its odds — and its reaction window, or None."""
    pending = tv.pending
    if pending is None:
        return None
    roller = _creature(tv, pending.roller)
    lines = [f"{roller.name}'s {pending.what} roll is pending: {pending.pool}"]
    if pending.odds is not None:
        lines.append(odds_text(pending.odds))
    decider = tv.current
    # no dice (an Action Point defence not yet chosen, R40): 'roll' goes on as it stands
    no_dice = pending.expression == "0"
    if decider == CHANCE:
        lines.append(
            "type 'roll' to go on (no dice to roll)"
            if no_dice
            else "type 'roll' (or 'roll 3,1,4,…' for physical dice)"
        )
    elif decider != TERMINAL:
        options = [o.command.split(": ", 1)[1] for o in _options(tv, decider) if o.legal]
        later = [w for w in pending.waiting_on if w != decider]
        lines.append(
            f"{_creature(tv, decider).name} ({decider}) may react: "
            + " | ".join(options)
            + (
                "  (or type 'roll' to go on: no dice)"
                if no_dice
                else "  (or type 'roll' to roll now)"
            )
            + (f"; then {', '.join(later)}" if later else "")
        )
    heading = "initiative" if pending.kind == RollKind.INITIATIVE.value else "reaction window"
    return Panel(Text("\n".join(lines)), title=heading, border_style="yellow")


def conditions_line(tv: TableView) -> Text | None:
    """The conditions the GM has set (R48) that the table does not show otherwise, or None."""
    own = {"prone"} if tv.module == "action_points" else set()  # the module's table shows it
    shown = [
        f"{c.id} {', '.join(kept)}"
        for c in tv.creatures
        if not c.removed and (kept := [x for x in c.conditions if x not in own])
    ]
    return Text("conditions (GM, R48): " + "; ".join(shown)) if shown else None


def screen(encounter: Encounter) -> RenderableType:
    """Everything a table needs to see after a command."""
    tv = table_view(encounter)
    parts: list[RenderableType] = [state_table(encounter, tv)]
    conditions = conditions_line(tv)
    if conditions is not None:
        parts.append(conditions)
    legend = load_legend(encounter, tv)
    if legend is not None:
        parts.append(legend)
    panel = pending_panel(tv)
    if panel is not None:
        parts.append(panel)
    decider = tv.current
    if decider == TERMINAL:
        parts.append(Text(f"The encounter is over: {tv.winner or 'nobody'} wins.", style="bold"))
    elif decider != CHANCE and panel is None:
        name = _creature(tv, decider).name
        parts.append(Text(f"{name} ({decider}) to act — {legal_summary(tv, decider)}"))
    return Group(*parts)
