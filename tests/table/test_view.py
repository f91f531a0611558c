"""``caltrop.table.view``: what each viewer sees of an encounter and what it may do (issue 11).

Issue 11, "What every screen receives": "Player payloads are built on the server from the model
and never contain a hidden field"; "Aspects and Load hidden by default" for NPCs; "what the
viewer's creatures may do right now — every action with its cost and the Load or points it
leaves, or greyed with the refusal's reason — including reactions".

Tests of ``table/visibility.py`` (tests/test_layout.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from caltrop.content import load_encounter
from caltrop.core.commands import GM, Act, parse_command
from caltrop.core.model import Side
from caltrop.encounter import CHANCE, Encounter
from caltrop.errors import InvalidActionError
from caltrop.table import HealthShown, Reveal, health_label, view, views, visible_event
from tests.table.plays import BUNDLED, begin, random_play

#: what a player never sees of an NPC by default (its numbers and its sheet)
HIDDEN_BY_DEFAULT = {"health", "max_health", "aspects", "resources", "actions"}


def dicts(value: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object inside ``value`` (depth first)."""
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from dicts(v)
    elif isinstance(value, list):
        for v in value:
            yield from dicts(v)


def npc_ids(name: str) -> set[str]:
    enc = begin(name)
    return {c.id for c in enc.creatures if c.side is Side.NPC}


@pytest.mark.parametrize("name", BUNDLED)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_players_view_never_holds_a_hidden_npc_field(name: str, seed: int) -> None:
    """Issue 11: Aspects and Load of NPCs are hidden by default, and a player's payload never
    contains a hidden field; the GM's view of the same moment does hold them (so this can fail)."""
    enc = begin(name, seed)
    pcs = [c.id for c in enc.creatures if c.side is Side.PC]
    npcs = {c.id for c in enc.creatures if c.side is Side.NPC}
    for _ in random_play(enc, seed, 40):
        for pc in pcs:
            payload = json.loads(view(enc, pc).to_json())
            for obj in dicts(payload):
                if obj.get("id") in npcs and "side" in obj:
                    assert HIDDEN_BY_DEFAULT.isdisjoint(obj), (pc, obj)
                    assert "health_label" in obj
        gm = json.loads(view(enc, GM).to_json())
        shown = [o for o in dicts(gm) if o.get("id") in npcs and "side" in o]
        assert shown
        assert all({"health", "aspects", "resources"} <= set(o) for o in shown)


@pytest.mark.parametrize("name", BUNDLED)
def test_a_broadcasts_views_are_each_viewers_own_view(name: str) -> None:
    """A broadcast works the log out once for the GM and once for the players (issue 11's
    speed); each view must still be exactly what ``view`` gives that viewer alone, hidden
    GM commands about an NPC included (the players' log reads "(hidden)", the GM's the number)."""
    enc = begin(name, 5)
    npc = next(c.id for c in enc.creatures if c.side is Side.NPC)
    shown = {npc: Reveal(health=HealthShown.LABEL)}
    viewers = [GM, *(c.id for c in enc.creatures if c.side is Side.PC)]
    enc.apply(parse_command(f"gm: damage {npc} 1"))
    for _ in random_play(enc, 5, 25):
        together = views(enc, viewers, shown)
        assert list(together) == viewers
        for viewer in viewers:
            assert together[viewer].to_json() == view(enc, viewer, shown).to_json()
    logs = {v: json.dumps(together[v].as_dict()["log"]) for v in viewers}
    assert "(hidden)" in logs[viewers[1]]
    assert "(hidden)" not in logs[GM]


def test_the_gm_chooses_what_players_see_of_each_npc() -> None:
    """Issue 11: "the GM decides per creature what players see of NPCs (exact Health, a label
    such as 'wounded', or nothing)"."""
    enc = begin("orc-bridge")
    reveal = {
        "orc-brute": Reveal(HealthShown.EXACT, aspects=True),
        "goblin-archer": Reveal(HealthShown.HIDDEN),
    }
    seen = {c.id: c.as_dict() for c in view(enc, "bron", reveal).creatures}
    brute = enc.creature("orc-brute")
    assert seen["orc-brute"]["health"] == brute.health
    assert seen["orc-brute"]["aspects"] == brute.aspects
    assert "resources" not in seen["orc-brute"]
    archer = seen["goblin-archer"]
    assert not {"health", "health_label", "aspects", "resources"} & set(archer)
    assert archer["name"] == "Goblin Archer"


def test_players_see_the_party_whole() -> None:
    enc = begin("orc-bridge")
    seen = {c.id: c.as_dict() for c in view(enc, "bron").creatures}
    assert seen["aria"]["aspects"] == enc.creature("aria").aspects
    assert seen["aria"]["resources"] == {"load": -1}


@pytest.mark.parametrize(
    ("health", "down", "label"),
    [
        (20, False, "unhurt"),
        (11, False, "wounded"),
        (10, False, "badly wounded"),
        (1, False, "badly wounded"),
        (0, True, "down"),
    ],
)
def test_health_labels(health: int, down: bool, label: str) -> None:
    """R16: a creature at 0 Health is down; above it the label says how much is left of 20."""
    assert health_label(health, 20, down=down) == label


def test_options_give_cost_and_what_is_left() -> None:
    """R12: "After resolving, Load += Cost": Bron's strike (cost 3) from Load −1 leaves Load 2;
    R11's arithmetic is the reason a shut action is greyed."""
    enc = begin("orc-bridge")
    assert enc.current() == "bron"
    options = view(enc, "bron").options["bron"]
    strike = next(o for o in options if o.command == "bron: strike orc-brute with sword")
    assert strike.legal
    assert dict(strike.cost) == {"load": 3}
    assert strike.leaves == {"load": 2}
    assert strike.rolls is not None
    assert "5d4" in strike.rolls
    assert any(o.action == "end turn" and o.legal for o in options)
    for _ in range(2):
        enc.apply(parse_command("bron: strike orc-brute"))
        enc.apply(parse_command("gm: pass all"))
        enc.apply(parse_command("roll"))
    greyed = next(o for o in view(enc, "bron").options["bron"] if o.action == "strike")
    assert not greyed.legal
    assert greyed.reason == enc.why_illegal(parse_command(greyed.command))
    assert greyed.reason is not None
    assert "Load" in greyed.reason


@pytest.mark.parametrize("name", BUNDLED)
def test_options_agree_with_the_engine(name: str) -> None:
    """Every legal option is a command the engine accepts; every greyed one carries the
    engine's own refusal (R47: legal_actions never offers what apply refuses)."""
    enc = begin(name, 5)
    for _ in random_play(enc, 5, 30):
        for c in enc.creatures:
            for option in view(enc, c.id).options[c.id]:
                command = parse_command(option.command)
                if option.legal:
                    assert enc.is_legal(command), option
                else:
                    assert option.reason == enc.why_illegal(command), option


def test_reactions_during_anothers_turn_and_the_window() -> None:
    """R15: while Bron's strike is pending, Aria may help (a team action off her turn); the
    window lists who is still to answer, first the one the engine asks now."""
    enc = begin("orc-bridge")
    enc.apply(parse_command("bron: strike orc-brute"))
    seen = view(enc, "aria")
    assert seen.pending is not None
    assert seen.pending.roller == "bron"
    assert seen.pending.waiting_on
    assert seen.pending.waiting_on[0] == enc.current()
    help_ = [o for o in seen.options["aria"] if o.action == "help"]
    assert help_
    assert help_[0].legal == enc.is_legal(Act("aria", "help"))
    assert all(o.reaction for o in seen.options["aria"])
    for who in seen.pending.waiting_on:
        assert enc.current() == who
        enc.apply(parse_command(f"{who}: pass"))
    assert enc.current() == CHANCE
    after = view(enc, "bron")
    assert after.pending is not None
    assert after.pending.waiting_on == ()
    assert any(o.command == "roll" for o in after.options["bron"])
    assert not any(o.command == "roll" for o in view(enc, "aria").options["aria"])


def test_the_gm_answers_for_every_npc_and_the_dice() -> None:
    enc = begin("orc-bridge")
    enc.apply(parse_command("bron: strike orc-brute"))
    seen = view(enc, GM)
    # R48: the GM may also play the PCs who decide now for an empty seat (issue 22 item 3):
    # bron, the roller, and aria, among those still to answer his roll (R15)
    npcs = {c.id for c in enc.creatures if c.side is Side.NPC}
    assert set(seen.options) == {GM, "bron", "aria"} | npcs
    assert seen.pending is not None
    assert "aria" in seen.pending.waiting_on
    assert any(o.command == "roll" for o in seen.options[GM])
    assert set(view(enc, "bron").options) == {"bron"}


def test_an_unknown_viewer_is_refused() -> None:
    with pytest.raises(InvalidActionError, match="no creature 'zed'"):
        view(begin("orc-bridge"), "zed")


def test_events_for_players_carry_no_definitions() -> None:
    """A 'begin' event holds the whole encounter and the seed, an added creature's event its
    stat block: the GM's only (issue 11: no hidden field in a player payload)."""
    enc = begin("goblin-ambush")
    first = enc.events[0]
    assert "header" in visible_event(first, GM)
    assert not {"header", "seed"} & set(visible_event(first, "aria"))
    enc.apply(parse_command("gm: add goblin as goblin-9"))
    added = enc.events[-1]
    assert "creature" in added
    assert "creature" not in visible_event(added, "aria")
    assert visible_event(added, "aria")["command"] == "gm: add goblin as goblin-9"


def _bridge_duel_on_a_turn() -> tuple[Encounter, str]:
    """Bridge Duel after initiative, and a player character whose turn it is not."""
    from caltrop.core.commands import RollDice

    enc = Encounter.begin(load_encounter("bridge-duel-ap"), 1)
    while enc.current() == "chance":
        enc.apply(RollDice())
    other = next(c.id for c in enc.creatures if c.side.value == "pc" and c.id != enc.turn_owner)
    return enc, other


def test_off_turn_actions_are_offered_and_prone_is_a_condition_everyone_sees() -> None:
    """R32 (off_turn_actions: any): "during another participant's turn a participant may take any
    action it can pay for, at any moment", paying RP (2 RP per AP); R44: standing up costs 1 AP.
    The view offers it to the player off turn, outside any window, with its cost in RP; and
    prone, the module's own fact, is among the creature's conditions for every viewer."""
    enc, other = _bridge_duel_on_a_turn()
    enc.apply(parse_command(f"gm: set {other} prone on"))
    shown = view(enc, other)
    stand = [o for o in shown.options[other] if o.command == f"{other}: stand"]
    assert [(o.legal, dict(o.cost), o.reaction) for o in stand] == [(True, {"rp": -2}, True)]
    assert all(o.legal for o in shown.options[other])  # nothing listed that the engine refuses
    assert all(enc.is_legal(parse_command(o.command)) for o in shown.options[other])
    for viewer in ("gm", other, enc.turn_owner):
        assert viewer is not None
        me = next(c for c in view(enc, viewer).creatures if c.id == other)
        assert "prone" in me.conditions


def test_positions_are_public_but_not_to_a_creature_unaware_of_it() -> None:
    """R34: where each creature stands is on the table for all to see; R41: a participant not
    aware of another (``gm: set X aware Y off``) does not see where it is."""
    enc, other = _bridge_duel_on_a_turn()
    npc = next(c.id for c in enc.creatures if c.side.value == "npc")
    seen = {c.id: c.position for c in view(enc, other).creatures}
    assert all(isinstance(p, tuple) and len(p) == 2 for p in seen.values())
    enc.apply(parse_command(f"gm: set {other} aware {npc} off"))
    assert next(c for c in view(enc, other).creatures if c.id == npc).position is None
    assert next(c for c in view(enc, "gm").creatures if c.id == npc).position is not None
