"""The views' shared work and kept log entries change nothing a viewer is sent (issue 20 §5).

:func:`caltrop.table.views` works out once what the five seats of a state see alike
(:class:`caltrop.table.view.Shared`) and keeps log entries from one state to the next
(:class:`caltrop.table.log.LogMemo`). Each property below plays random commands of both
modules — the players' and the GM's, with ``gm: set``, ``gm: damage``, ``gm: add`` and ``gm:
undo`` mixed in — with the GM changing what players see of the NPCs between commands, and
checks every view built with the caches against one built alone from nothing; and that a
player's view built beside the GM's (the caches are keyed on GM or player sight) holds no
number the GM hides (issue 11: "never sends a player what the GM hides").
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from caltrop.core.commands import GM, Command, parse_command
from caltrop.core.model import Side
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.errors import CaltropError
from caltrop.table import HealthShown, Reveal, view, views
from caltrop.table.events import npc_reveals, visible_event
from caltrop.table.log import LOG_LENGTH, LogMemo, entry
from caltrop.table.view import views_as_dicts
from tests.table.plays import begin
from tests.table.test_view import HIDDEN_BY_DEFAULT, dicts

#: what players see of each NPC (the GM's choice)
Shown = dict[str, Reveal]
#: one encounter of each module, and a second of each with more creatures
ENCOUNTERS = ("goblin-ambush", "bridge-duel-ap", "orc-bridge", "warband-ap")


def gm_command(enc: Encounter, rng: random.Random) -> str:
    """A GM command that changes a number the players may not see (R48)."""
    npcs = [c.id for c in enc.creatures if c.side is Side.NPC]
    target = rng.choice(npcs)
    stat = "load" if "load" in enc.resources[enc.index(target)].as_dict() else "ap"
    return rng.choice(
        [
            f"gm: set {target} {stat} {rng.randrange(3)}",
            f"gm: damage {target} 1",
            f"gm: heal {target} 1",
            "gm: add goblin",
            "gm: undo",
        ]
    )


def play(enc: Encounter, rng: random.Random, steps: int) -> Iterator[Shown]:
    """Apply up to ``steps`` random commands (a legal one of whoever decides, or a GM
    command, which the rules may refuse); yields a random visibility after each."""
    for _ in range(steps):
        who = enc.current()
        command: Command | None = None
        if rng.random() < 0.3:
            try:
                command = parse_command(gm_command(enc, rng))
            except CaltropError:
                command = None
        if command is None:
            if who == TERMINAL:
                return
            legal = list(enc.legal_actions(GM if who == CHANCE else who))
            if not legal:
                return
            command = rng.choice(legal)
        try:
            enc.apply(command)
            enc.settle()
        except CaltropError:
            pass  # refused (nothing to undo, a goblin the Action Point module lacks): no change
        yield visibility(enc, rng)


def visibility(enc: Encounter, rng: random.Random) -> Shown:
    """A random choice of what players see of each NPC."""
    return {
        c.id: Reveal(
            rng.choice(list(HealthShown)),
            aspects=rng.random() < 0.4,
            resources=rng.random() < 0.4,
            odds=rng.random() < 0.7,
        )
        for c in enc.creatures
        if c.side is Side.NPC and rng.random() < 0.7
    }


def fresh_log(enc: Encounter, viewer: str, shown: Shown) -> list[dict[str, Any]]:
    """The log entries worked out from nothing, entry by entry (the oracle of the memo)."""
    reveals = npc_reveals(enc, shown)
    names = {c.id: c.name for c in enc.creatures}
    commands = [e for e in enc.events if e.get("event") == "command"][-LOG_LENGTH:]
    return [entry(enc, visible_event(e, viewer, reveals), names) for e in commands]


def viewers_of(enc: Encounter, rng: random.Random) -> list[str]:
    """The GM and every PC, in a random order (the shared work must not depend on it)."""
    out = [GM, *(c.id for c in enc.creatures if c.side is Side.PC)]
    rng.shuffle(out)
    return out


@settings(max_examples=30, deadline=None)
@given(
    name=st.sampled_from(ENCOUNTERS),
    seed=st.integers(0, 2**20),
    steps=st.integers(1, 45),
)
def test_views_with_the_caches_equal_views_worked_out_alone(
    name: str, seed: int, steps: int
) -> None:
    """Every viewer's view from :func:`views` (shared work, a log memo kept across every
    command; as data through :func:`views_as_dicts`, which converts shared parts once) equals
    its view worked out alone by :func:`view`, and its log equals the entries worked out one
    by one, after every command and every change of visibility."""
    rng = random.Random(seed)
    enc = begin(name, seed)
    memo = LogMemo()
    checked = 0
    for shown in play(enc, rng, steps):
        seen = views(enc, viewers_of(enc, rng), shown, log_memo=memo)
        data = views_as_dicts(seen)
        for viewer, tv in seen.items():
            alone = view(enc, viewer, shown).as_dict()
            assert tv.as_dict() == alone, (name, seed, viewer)
            assert data[viewer] == alone, (name, seed, viewer)
            assert [dict(e) for e in tv.log] == fresh_log(enc, viewer, shown), viewer
            checked += 1
    assert checked > 0


@settings(max_examples=30, deadline=None)
@given(
    name=st.sampled_from(ENCOUNTERS),
    seed=st.integers(0, 2**20),
    steps=st.integers(1, 45),
)
def test_a_player_built_beside_the_gm_gets_no_hidden_npc_number(
    name: str, seed: int, steps: int
) -> None:
    """A player's view worked out in the same :func:`views` call as the GM's (whichever goes
    first) holds none of an NPC's hidden fields under the default visibility, no exact odds
    fraction against an NPC whose Aspects are hidden, no command naming a hidden Load; while
    the GM's view beside it does hold them (so the check can fail)."""
    rng = random.Random(seed)
    enc = begin(name, seed)
    memo = LogMemo()
    for _ in play(enc, rng, steps):
        npcs = {c.id for c in enc.creatures if c.side is Side.NPC}
        seen = views(enc, viewers_of(enc, rng), {}, log_memo=memo)
        gm = json.loads(seen[GM].to_json())
        assert any(obj.get("id") in npcs and "aspects" in obj for obj in dicts(gm["creatures"])), (
            "the GM sees the NPCs' Aspects"
        )
        for viewer, tv in seen.items():
            if viewer == GM:
                continue
            payload = json.loads(tv.to_json())
            for obj in dicts(payload["creatures"]):
                if obj.get("id") in npcs:
                    assert HIDDEN_BY_DEFAULT.isdisjoint(obj), (viewer, obj)
            for option in payload["options"].get(viewer, []):
                odds = option.get("odds")
                if odds and npcs.intersection(option["command"].split()):
                    assert odds["exact"] is None, option  # issue 20 §3: no fraction
                    assert odds["rounded"], option
            assert tv.as_dict() == view(enc, viewer, {}).as_dict()
            for line in payload["log"]:
                command = str(line["command"])
                if command.startswith("gm: set ") and command.split()[2] in npcs:
                    assert command.endswith("(hidden)"), command
