"""The GM calls for a roll, removes and adds creatures by picking, not by typing ids (issue 22
item 7): a row's "Call a roll of" (one of that creature's Aspects, a DC if any: R17) and
Remove (``gm: remove``, R48), and an Add whose choices are the encounter's reserves (GM only)
then the bundled creatures of the encounter's own module, by the id the server adds them by.
"""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from caltrop.content import load_encounter
from caltrop.content.catalogue import bundled_creatures
from caltrop.web.screen import screen_fragments
from tests.web.test_gm_rows import creature, form_of, gm_view, row
from tests.web.test_pages import open_table, player
from tests.web.test_screen_commands import commands


def options_of(select: str) -> list[tuple[str, str]]:
    """(optgroup label, option value) of each option of a select's HTML, in order."""
    out: list[tuple[str, str]] = []
    for group, body in re.findall(r'<optgroup label="([^"]*)">(.*?)</optgroup>', select, re.S):
        out += [(html.unescape(group), v) for v in re.findall(r'<option value="([^"]*)"', body)]
    return out


def add_select(page: str) -> str:
    start = page.index('<select id="add-source"')
    return page[start : page.index("</select>", start)]


def hidden(form: str) -> dict[str, str]:
    return dict(
        re.findall(r'<input type="hidden"(?: id="[^"]*")? name="(\w+)" value="([^"]*)"', form)
    )


def row_form(page: str, cid: str, css: str) -> str:
    part = row(page, cid)
    start = part.index(f'class="cmd tool {css}"')
    return part[start : part.index("</form>", start)]


@pytest.mark.parametrize("name", ["orc-bridge", "goblin-ambush", "duel", "warband-ap"])
def test_add_offers_the_reserves_then_this_modules_bundled_creatures(
    client: TestClient, name: str
) -> None:
    open_table(client, name)
    definition = load_encounter(name)
    module = definition.ruleset.economy.value
    select = add_select(client.get("/table").text)
    # nothing chosen until the GM chooses (the first reserve is often a PC at the table)
    assert '<option value="" selected disabled>Choose a creature…</option>' in select
    offered = options_of(select)
    reserves = [c.id for c in definition.reserves]
    assert offered[: len(reserves)] == [("This encounter's reserves", r) for r in reserves]
    bundled = sorted(
        cid for cid, e in bundled_creatures().items() if e.economy == module and cid not in reserves
    )
    assert offered[len(reserves) :] == [("Bundled creatures", b) for b in bundled]
    if name == "duel":  # its two are no bundled creatures: offered as reserves all the same
        assert not set(reserves) & set(bundled_creatures())


def test_a_player_is_not_told_the_reserves(client: TestClient) -> None:
    links = open_table(client, "goblin-ambush")
    aria = player(client, links["aria"])
    assert aria.get("/api/view").json()["reserves"] == []
    assert 'id="add-source"' not in aria.get("/table").text
    gm = gm_view(client)
    assert [r[0] for r in gm["reserves"]] == [
        c.id for c in load_encounter("goblin-ambush").reserves
    ]


def test_picking_a_creature_adds_it_and_a_fresh_screen_keeps_the_choices(
    client: TestClient,
) -> None:
    open_table(client, "goblin-ambush")
    page = client.get("/table").text
    start = page.index("<legend>Add a creature</legend>")
    form = page[start : page.index("</form>", start)]
    sent = {**hidden(form), "source": "goblin", "as_id": ""}
    assert client.post("/table/command", data=sent).status_code == 200
    added = creature(gm_view(client), "goblin-3")  # goblin-1 and goblin-2 are at the table
    assert added["name"] == "Goblin 3"
    bundled = {**sent, "source": "orc-brute", "command_id": "orc"}  # not a reserve: bundled
    assert client.post("/table/command", data=bundled).status_code == 200
    assert creature(gm_view(client), "orc-brute")["side"] == "npc"
    assert commands(client) == ["gm: add goblin", "gm: add orc-brute"]
    # the socket's screens carry the choices again (swapped by id: another encounter's next)
    swapped = screen_fragments(gm_view(client))
    tag = re.search(r'<select id="add-source"[^>]*>', swapped)
    assert tag is not None
    assert 'hx-swap-oob="true"' in tag.group(0)
    assert 'data-choices="Goblin Ambush:' in tag.group(0)  # gm_rows.js swaps it when this changes
    assert options_of(add_select(swapped)) == options_of(add_select(page))


def test_a_rows_call_sends_its_aspect_and_dc_and_the_roll_waits(client: TestClient) -> None:
    open_table(client, "goblin-ambush")
    page = client.get("/table").text
    view: dict[str, Any] = gm_view(client)
    for c in view["creatures"]:  # every creature's row offers its own Aspects, in its order
        aspects = re.findall(r'<option value="([^"]*)"', row_form(page, c["id"], "row-call"))
        assert aspects == list(c["aspects"]), c["id"]
    form = row_form(page, "dain", "row-call")
    assert hidden(form)["op"] == "call"
    assert hidden(form)["target"] == "dain"
    sent = {**hidden(form), "aspect": "Insight", "dc": "9"}
    assert client.post("/table/command", data=sent).status_code == 200
    assert commands(client) == ["gm: call dain Insight dc 9"]
    pending = gm_view(client)["pending"]
    assert pending["roller"] == "dain"  # R17: the called roll is pending, Dain's Insight
    other = {**sent, "aspect": "Charm", "dc": "", "command_id": "charm"}  # not one of hers
    refused = client.post("/table/command", data=other, headers={"hx-request": "true"})
    assert refused.headers["x-caltrop-status"] == "422"
    assert "Dain has no Aspect 'Charm' (has: " in html.unescape(refused.text)
    assert commands(client) == ["gm: call dain Insight dc 9"]


def test_a_rows_remove_takes_the_creature_out_and_undo_brings_it_back(
    client: TestClient,
) -> None:
    open_table(client, "orc-bridge")
    page = client.get("/table").text
    form = row_form(page, "goblin-archer", "row-remove")
    assert 'hx-confirm="Remove Goblin Archer from the encounter?' in row(page, "goblin-archer")
    assert client.post("/table/command", data=hidden(form)).status_code == 200
    assert creature(gm_view(client), "goblin-archer")["removed"] is True
    assert "goblin-archer" not in gm_view(client)["order"]
    after = client.get("/table").text
    assert 'class="cmd tool row-remove"' not in row(after, "goblin-archer")  # no tools: gone
    undo = {"command": "gm: undo", "command_id": "u"}
    assert client.post("/table/command", data=undo).status_code == 200
    assert "goblin-archer" in gm_view(client)["order"]
    assert form_of(
        client.get("/table").text, "goblin-archer", "Remove Goblin Archer from the encounter"
    )


def test_a_down_creature_is_offered_no_call_and_ids_do_not_collide(client: TestClient) -> None:
    """A creature that is down makes no roll (R48's call would be refused: its row offers
    none); creatures added as ``1``, ``dc-1`` and ``aspect-1`` give every control on the page
    an id of its own (``call-{id}`` once equalled ``call-dc-{id}`` of another)."""
    open_table(client, "goblin-ambush")
    for as_id in ("1", "dc-1", "aspect-1", "roll-1"):
        sent = {"command": f"gm: add goblin as {as_id}", "command_id": f"add-{as_id}"}
        assert client.post("/table/command", data=sent).status_code == 200
    down = {"command": "gm: damage goblin-1 100", "command_id": "down"}
    assert client.post("/table/command", data=down).status_code == 200
    page = client.get("/table").text
    assert creature(gm_view(client), "goblin-1")["down"] is True
    assert 'class="cmd tool row-call"' not in row(page, "goblin-1")
    assert 'class="cmd tool row-call"' in row(page, "goblin-2")
    ids = re.findall(r' id="([^"]+)"', page)
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    assert repeated == []
