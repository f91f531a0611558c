"""The encounter's log as the view shows it (issue 12): the last commands, each one line in
words with its dice, and the d4s paired into fives as the rulebook's D4 Math Tips sidebar
teaches (pair a 1 with a 4 and a 2 with a 3, count the fives, add what is left).

Built from the encounter's own events (:attr:`Encounter.events`) as the viewer may see them
(:func:`~caltrop.table.events.visible_event`: no stat blocks, no seed for players).
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any, Final

from caltrop.core.commands import (
    GM,
    Act,
    CallRoll,
    Command,
    EndEncounter,
    EndTurn,
    Pass,
    command_actor,
    parse_command,
)
from caltrop.core.model import ActionKind, Economy
from caltrop.dice.parse import parse
from caltrop.dice.render import render_d4_math
from caltrop.dice.roll import roll
from caltrop.encounter import Encounter
from caltrop.errors import CaltropError
from caltrop.table.events import npc_reveals, visible_event
from caltrop.table.visibility import Reveal

#: How many of the latest entries the view carries.
LOG_LENGTH: Final = 30
#: A page of the log going back (``GET /api/events?before=N``, the page's "older"): this many
#: events unless the client asks for fewer, and never more than :data:`MAX_PAGE` (issue 22 item 6)
PAGE: Final = 50
MAX_PAGE: Final = 200

FIVE: Final = 5


def pair_fives(values: Iterable[int]) -> tuple[list[tuple[int, int]], list[int]]:
    """The D4 Math Tips pairing: as many pairs summing to 5 as the dice make (each pair high
    die first: (4, 1), (3, 2)), and the dice left over, highest first. The pairs and the
    leftovers are the dice again, and no two leftovers sum to 5."""
    counts = Counter(values)
    pairs: list[tuple[int, int]] = []
    for high in sorted(counts, reverse=True):
        low = FIVE - high
        if low >= high:
            continue
        n = min(counts[high], counts[low])
        pairs.extend([(high, low)] * n)
        counts[high] -= n
        counts[low] -= n
    leftovers = sorted(counts.elements(), reverse=True)
    return pairs, leftovers


def log_entries(
    enc: Encounter,
    viewer: str,
    limit: int = LOG_LENGTH,
    visibility: Mapping[str, Reveal] | None = None,
) -> list[dict[str, Any]]:
    """The last ``limit`` command events as the view model's log entries (see :func:`entry`),
    as ``viewer`` may see them (``visibility``: what players see of each NPC); an encounter
    that keeps no log (``record=False``) has none."""
    return LogMemo().entries(enc, viewer, visibility, limit)


class LogMemo:
    """The log entries of one encounter worked out before, so that a command costs its own
    entry, not the last :data:`LOG_LENGTH` again (issue 20 §5).

    An entry is a function of its event, of whether the viewer is the GM, of what players see
    of each NPC (:func:`~caltrop.table.events.visible_event`) and of the encounter's creatures
    (names, actions) and module (:func:`entry`). Events are never changed once logged (undo
    is a command of its own), and a clone shares them: an entry is reused only for the very
    same event object (held here, so it cannot be another's), while the creatures (the same
    tuple, or an equal one), the module and the NPCs' reveals stay as they were; anything else
    starts the memo afresh. Only the entries of the last call are kept (at most twice
    ``limit``: the GM's and the players'). The entries it returns are shared, as every
    player's view shares the players' log: read them, do not change them."""

    __slots__ = ("_kept",)

    def __init__(self) -> None:
        #: (scope, {(GM?, position in the log): (event, entry)}), replaced whole
        self._kept: tuple[tuple[Any, ...], dict[tuple[bool, int], tuple[Any, dict[str, Any]]]]
        self._kept = ((), {})

    def entries(
        self,
        enc: Encounter,
        viewer: str,
        visibility: Mapping[str, Reveal] | None = None,
        limit: int = LOG_LENGTH,
    ) -> list[dict[str, Any]]:
        """:func:`log_entries`, reusing this memo's entries where they are still right."""
        try:
            events = enc.events
        except CaltropError:
            return []
        reveals = npc_reveals(enc, visibility)
        scope = (enc.creatures, enc.definition.ruleset.economy, reveals)
        kept_scope, kept = self._kept
        if kept_scope != scope:
            kept = {}
        gm = viewer == GM
        wanted: list[int] = []
        for at in range(len(events) - 1, -1, -1):
            if len(wanted) == limit:
                break
            if events[at].get("event") == "command":
                wanted.append(at)
        names: dict[str, str] | None = None
        out: list[dict[str, Any]] = []
        fresh = {k: v for k, v in kept.items() if k[0] is not gm}
        for at in reversed(wanted):
            event = events[at]
            found = kept.get((gm, at))
            if found is None or found[0] is not event:
                if names is None:
                    names = {c.id: c.name for c in enc.creatures}
                found = (event, entry(enc, visible_event(event, viewer, reveals), names))
            fresh[(gm, at)] = found
            out.append(found[1])
        self._kept = (scope, fresh)
        return out


def page_bounds(before: int | None, limit: int, head: int) -> range:
    """The seqs of one page of a log whose last seq is ``head``, newest first: those below
    ``before`` (None: the whole log, from its head), at most ``limit`` of them. The cursor of the
    next page back is the last seq of this one; an empty range means the log's start is reached.
    ``limit`` outside 1..:data:`MAX_PAGE` is a programming error (the routes bound it)."""
    if not 1 <= limit <= MAX_PAGE:
        raise ValueError(f"a page holds 1 to {MAX_PAGE} events, not {limit}")
    end = head + 1 if before is None else max(0, min(before, head + 1))
    return range(end - 1, max(end - limit, 0) - 1, -1)


def log_page(
    enc: Encounter,
    viewer: str,
    before: int | None,
    limit: int = PAGE,
    visibility: Mapping[str, Reveal] | None = None,
) -> list[dict[str, Any]]:
    """One page of the log's command entries going back (:func:`page_bounds`, newest first),
    as ``viewer`` may see them: each event passes :func:`visible_event` as the live stream's
    do, then becomes an :func:`entry` (its dice and their faces, the d4s paired into fives)."""
    try:
        events = enc.events
    except CaltropError:
        return []
    names = {c.id: c.name for c in enc.creatures}
    reveals = npc_reveals(enc, visibility)
    return [
        entry(enc, visible_event(events[seq], viewer, reveals), names)
        for seq in page_bounds(before, limit, len(events) - 1)
        if events[seq].get("event") == "command"
    ]


def entry(enc: Encounter, event: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """One log entry: ``seq`` (its place in the log), ``actor`` (who gave the command; for a
    roll, whose dice), ``command``, ``text`` (one line in words), ``dice`` (every die: its
    faces and value, R5), ``total``, ``result`` (``hit: 4 damage``, ``miss``, ``success``…)
    and ``fives`` (the d4s paired into fives)."""
    text = str(event.get("command", ""))
    record = event.get("roll")
    try:
        command: Command | None = parse_command(text)
    except CaltropError:
        command = None
    actor = command_actor(command) if command is not None else text.partition(":")[0]
    out: dict[str, Any] = {
        "seq": int(event.get("n", 0)),
        "actor": actor,
        "command": text,
        "text": "",
        "dice": [],
        "total": None,
        "result": None,
        "fives": [],
    }
    if isinstance(record, Mapping):
        dice = _dice(record)
        out["actor"] = str(record.get("roller", actor))
        out["dice"] = [{"faces": f, "value": v} for f, v in dice]
        out["total"] = int(record["total"]) if "total" in record else None
        out["result"] = _result(record)
        pairs, _ = pair_fives(v for f, v in dice if f == 4)
        out["fives"] = [[a, b] for a, b in pairs]
        out["text"] = roll_text(record, names)
    else:
        out["text"] = command_text(enc, command, names) if command is not None else text
    return out


def _dice(record: Mapping[str, Any]) -> list[tuple[int, int]]:
    """(faces, value) of every die of a roll record, in entry order."""
    values = [int(v) for v in record.get("faces", ())]
    try:
        slots = parse(str(record.get("expression", ""))).dice_slots()
    except CaltropError:
        return []
    if len(slots) != len(values):
        return []
    return list(zip(slots, values, strict=True))


def _result(record: Mapping[str, Any]) -> str | None:
    """What the roll did in a few words: an Action Load attack ``hit: 4 damage`` or ``miss``
    (R16); an Action Point ranged roll ``hit`` or ``miss`` (R39), its damage roll what is
    incoming, the defence (R40) ``4 damage`` or ``no damage``; a check ``success`` or
    ``failure``."""
    damage = record.get("damage")
    note = record.get("note")
    if damage is not None and note is None:
        return f"hit: {damage} damage" if damage else "miss"
    if damage is not None:
        return f"{damage} damage" if damage else "no damage"
    if note in ("hit", "miss") or (note is not None and str(note).endswith("incoming")):
        return str(note)
    success = record.get("success")
    if success is not None:
        return "success" if success else "failure"
    return None


def roll_text(
    record: Mapping[str, Any],
    names: Mapping[str, str],
    *,
    dc: int | None = None,
    initiative: bool = False,
) -> str:
    """A roll record (:func:`~caltrop.economy.outcome.outcome_json`) in words: the roll die by
    die in the D4 Math form, and what it did (``dc``: the DC it was against, if known)."""

    def name(creature_id: Any) -> str:
        return names.get(str(creature_id), str(creature_id))

    expression = str(record.get("expression", ""))
    faces = tuple(int(v) for v in record.get("faces", ()))
    total = record.get("total")
    rolled = f"{expression} = {total}"
    if faces:
        with contextlib.suppress(CaltropError):
            rolled = render_d4_math(roll(parse(expression), entered=faces))
    parts = [f"{name(record.get('roller'))} rolls {rolled}"]
    if initiative:
        parts.append("for initiative")
    damage = record.get("damage")
    if damage is not None:
        parts.append(f"→ {damage} damage to {name(record.get('target'))}")
    success = record.get("success")
    if success is not None:
        verdict = "success" if success else "failure"
        parts.append(f"vs DC {dc}: {verdict}" if dc is not None else verdict)
    note = record.get("note")
    if note:
        parts.append(f"({note})")
    if record.get("downed"):
        parts.append(f"— {name(record.get('target'))} is down!")
    return " ".join(parts)


def command_text(enc: Encounter, command: Command, names: Mapping[str, str]) -> str:
    """A command that rolled nothing, in words."""
    text = str(command)
    if isinstance(command, Act):
        actor = names.get(command.actor, command.actor)
        if enc.definition.ruleset.economy is Economy.ACTION_POINTS:
            return f"{actor}: {text.split(': ', 1)[1]}"
        action = next(
            (
                a
                for c in enc.creatures
                if c.id == command.actor
                for a in c.actions
                if a.name == command.action
            ),
            None,
        )
        if action is not None and action.kind is ActionKind.TEAM:
            return f"{actor} uses {action.name} on the pending roll ({action.source_key})"
        extra = f" {' '.join(command.targets)}" if command.targets else ""
        return f"{actor} declares {command.action}{extra}"
    if isinstance(command, EndTurn):
        return f"{names.get(command.actor, command.actor)} ends the turn"
    if isinstance(command, Pass):
        return f"{names.get(command.actor, command.actor)} passes"
    if isinstance(command, CallRoll):
        return f"the GM calls for {command.target}'s {command.aspect} roll"
    if isinstance(command, EndEncounter):
        return "the GM ends the encounter"
    return text


__all__ = [
    "LOG_LENGTH",
    "MAX_PAGE",
    "PAGE",
    "LogMemo",
    "command_text",
    "entry",
    "log_entries",
    "log_page",
    "page_bounds",
    "pair_fives",
    "roll_text",
]
