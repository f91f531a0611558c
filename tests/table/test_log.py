"""The log in the view model (issue 12) and the D4 Math Tips pairing of its dice.

Seed 000 closes with "For a visual reference on how d4s support fast, intuitive math, see the
D4 Math Tips Sidebar": pair a 1 with a 4 and a 2 with a 3 — each pair is five — and add what is
left. R5: "The log must record every die, not just totals."
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from caltrop.core.commands import GM, parse_command
from caltrop.core.model import Side
from caltrop.dice.parse import parse
from caltrop.table import SCREEN, HealthShown, Reveal, view
from caltrop.table.events import GM_ONLY_EVENT_KEYS
from caltrop.table.log import LOG_LENGTH, MAX_PAGE, log_entries, log_page, pair_fives
from tests.fuzzing import fuzz
from tests.table.plays import BUNDLED, begin, random_play


@given(st.lists(st.integers(min_value=1, max_value=4), max_size=40))
def test_pair_fives_pairs_every_five_and_keeps_every_die(values: list[int]) -> None:
    """The pairs plus the leftovers are the dice; each pair sums to 5; no two leftovers do."""
    pairs, leftovers = pair_fives(values)
    assert Counter([v for pair in pairs for v in pair] + leftovers) == Counter(values)
    assert all(a + b == 5 for a, b in pairs)
    assert not any(
        leftovers[i] + leftovers[j] == 5
        for i in range(len(leftovers))
        for j in range(i + 1, len(leftovers))
    )


def test_pair_fives_example() -> None:
    """The sidebar's way: 3,1,4,4,2 is (4+1) (3+2) + 4."""
    assert pair_fives([3, 1, 4, 4, 2]) == ([(4, 1), (3, 2)], [4])


def test_log_entries_tell_each_command_and_every_die() -> None:
    """Each entry: its place in the log, who, the command, a line in words; a roll's every die
    with its faces (R5), the total, what it did (R16: total − Evasion is the damage)."""
    enc = begin("orc-bridge")
    enc.apply(parse_command("bron: strike orc-brute"))
    enc.apply(parse_command("gm: pass all"))
    enc.apply(parse_command("roll 3,1,4,4,2,7"))
    log = view(enc, "aria").log
    assert [e["seq"] for e in log] == [1, 2, 3]
    declare, _, rolled = log
    assert declare["actor"] == "bron"
    assert declare["dice"] == []
    assert declare["total"] is None
    assert "strike" in declare["text"]
    assert rolled["actor"] == "bron"
    assert rolled["dice"] == [
        {"faces": f, "value": v}
        for f, v in zip((4, 4, 4, 4, 4, 8), (3, 1, 4, 4, 2, 7), strict=True)
    ]
    assert rolled["total"] == 21
    damage = 21 - enc.creature("orc-brute").evasion
    assert rolled["result"] == f"hit: {damage} damage"
    assert rolled["fives"] == [[4, 1], [3, 2]]
    assert f"{damage} damage" in rolled["text"]
    assert "(1+4) (2+3)" in rolled["text"]


def test_a_miss_and_a_check() -> None:
    """R16: nothing over Evasion is a miss; a GM-called check meets the DC or fails."""
    enc = begin("orc-bridge")
    enc.apply(parse_command("bron: strike orc-brute"))
    enc.apply(parse_command("gm: pass all"))
    enc.apply(parse_command("roll 1,1,1,1,1,1"))
    enc.apply(parse_command("gm: call aria finesse dc 5"))
    enc.apply(parse_command("roll " + ",".join(["1"] * enc.creature("aria").aspects["Finesse"])))
    entries = view(enc, GM).log
    assert entries[-3]["result"] == "miss"
    assert entries[-1]["result"] == "success"


def test_the_log_keeps_the_last_entries() -> None:
    enc = begin("goblin-ambush", 4)
    list(random_play(enc, 4, 60))
    log = view(enc, GM).log
    assert len(log) == min(LOG_LENGTH, len(enc.commands))
    assert log[-1]["seq"] == len(enc.commands)
    assert [e["seq"] for e in log] == list(range(log[0]["seq"], log[-1]["seq"] + 1))
    for e in log:
        assert e["command"] == str(enc.commands[e["seq"] - 1])
        record = enc.events[e["seq"]].get("roll")
        if record is None:
            assert e["dice"] == []
            assert e["total"] is None
            continue
        assert [d["faces"] for d in e["dice"]] == list(parse(record["expression"]).dice_slots())
        assert [d["value"] for d in e["dice"]] == record["faces"]
        assert e["total"] == record["total"]


def test_players_log_holds_no_gm_only_field() -> None:
    """A reinforcement's stat block is the GM's (GM_ONLY_EVENT_KEYS): the players' log tells
    that it came, never its numbers."""
    enc = begin("goblin-ambush")
    enc.apply(parse_command("gm: add goblin"))
    pc = next(c.id for c in enc.creatures if c.side is Side.PC)
    for entry in view(enc, pc).log:
        assert GM_ONLY_EVENT_KEYS.isdisjoint(entry)
        assert "aspects" not in json.dumps(entry)
    assert any("creature" in e for e in enc.events)  # the event itself has it (so this can fail)


@pytest.mark.parametrize("name", BUNDLED)
def test_every_view_is_json(name: str) -> None:
    """``TableView.as_dict()`` stays JSON: every bundled encounter, the GM's view and each
    player's, after a few seeded commands."""
    enc = begin(name, 11)
    viewers = [GM, *(c.id for c in enc.creatures if c.side is Side.PC)]
    for _ in random_play(enc, 11, 12):
        for viewer in viewers:
            payload = view(enc, viewer).as_dict()
            assert json.loads(json.dumps(payload)) == payload


@fuzz(60)
@given(
    name=st.sampled_from(BUNDLED),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 60),
    viewer=st.sampled_from(["gm", "player", SCREEN]),
    limit=st.integers(1, MAX_PAGE),
    data=st.data(),
)
def test_a_page_of_the_log_is_the_views_log_going_back(
    name: str, seed: int, steps: int, viewer: str, limit: int, data: st.DataObject
) -> None:
    """Issue 22 item 6: a page of the log (``log_page``) holds the same entries the view's log
    holds (the same visibility filter for the same viewer: a player, the GM, a table screen),
    newest first, only those below its cursor, at most ``limit`` events' worth."""
    enc = begin(name, seed)
    list(random_play(enc, seed, steps))
    if viewer == "player":
        viewer = next(c.id for c in enc.creatures if c.side is Side.PC)
    head = len(enc.events) - 1
    before = data.draw(st.none() | st.integers(0, head + 2))
    shown = {
        c.id: Reveal(
            data.draw(st.sampled_from(list(HealthShown))), resources=data.draw(st.booleans())
        )
        for c in enc.creatures
        if c.side is Side.NPC
    }
    whole = log_entries(enc, viewer, limit=head + 1, visibility=shown)
    page = log_page(enc, viewer, before, limit, shown)
    top = head + 1 if before is None else min(before, head + 1)
    expected = [e for e in reversed(whole) if max(0, top - limit) <= e["seq"] < top]
    assert page == expected
