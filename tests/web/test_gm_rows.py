"""The GM's creature rows (issue 22 item 7): every control on a row is one of the GM's
commands with its own command_id — Health − 1 / + 1 and an amount (``gm: damage|heal``), a
condition toggle (``gm: set … on|off``), up / down in the turn order (``gm: order …``) — sent
by ``POST /table/command`` or over the page socket, applied once however often it is resent,
refused with the engine's reason; and an NPC's "players see" form, its odds switch among them,
which takes the odds off the players' screens."""

from __future__ import annotations

import html
import re
from typing import Any

import orjson
from fastapi.testclient import TestClient

from tests.web.test_pages import open_table, player
from tests.web.test_screen_commands import answer, commands, tap


def row(page: str, creature: str) -> str:
    """The GM's row of ``creature`` (gm_rows.html)."""
    start = page.index(f'<li id="row-{creature}"')
    ends = [e for e in (page.find('<li id="row-', start + 1), page.find("</ol>", start)) if e > 0]
    return page[start : min(ends)]


def form_of(page: str, creature: str, name: str) -> dict[str, list[str]]:
    """What the form on ``creature``'s row sends when its button named ``name`` is tapped:
    its hidden fields and the button's own name and value (a browser sends the submitter's)."""
    part = row(page, creature)
    at = part.index(f'aria-label="{name}"')
    form = part[part.rindex("<form", 0, at) : part.index("</form>", at)]
    button = part[part.rindex("<button", 0, at) : at]
    fields: dict[str, list[str]] = {}
    for field, value in re.findall(r'<input type="hidden" name="([\w]+)" value="([^"]*)"', form):
        fields.setdefault(field, []).append(html.unescape(value))
    for field, value in re.findall(r'name="([\w]+)" value="([^"]*)"', button):
        fields.setdefault(field, []).append(html.unescape(value))
    return fields


def gm_view(client: TestClient) -> dict[str, Any]:
    data: dict[str, Any] = client.get("/api/view").json()
    return data


def creature(view: dict[str, Any], cid: str) -> dict[str, Any]:
    return next(c for c in view["creatures"] if c["id"] == cid)


def test_every_row_control_is_a_gm_command_applied_once(client: TestClient) -> None:
    open_table(client)  # Orc Bridge: bron, orc-brute, aria, goblin-archer
    page = client.get("/table").text
    for cid in ("bron", "orc-brute", "aria", "goblin-archer"):
        assert f'aria-label="Health − 1 for {creature(gm_view(client), cid)["name"]}"' in row(
            page, cid
        )
    steps = [
        ("Health − 1 for Orc Brute", "gm: damage orc-brute 1", ("orc-brute", "health", 21)),
        ("Health + 1 for Orc Brute", "gm: heal orc-brute 1", ("orc-brute", "health", 22)),
        ("prone for Aria", "gm: set aria prone on", ("aria", "conditions", ["prone"])),
        ("prone for Aria", "gm: set aria prone off", ("aria", "conditions", [])),
    ]
    for name, command, (cid, key, value) in steps:
        fields = form_of(client.get("/table").text, cid, name)
        assert fields["command"] == [command]
        sent = {**fields, "command_id": fields["command_id"]}
        assert client.post("/table/command", data=sent).status_code == 200
        assert client.post("/table/command", data=sent).status_code == 200  # a resend: once
        assert creature(gm_view(client), cid)[key] == value
    assert commands(client) == [c for _, c, _ in steps]
    # the toggle shows its state, read off the view
    client.post("/table/command", data={"command": "gm: set aria prone on", "command_id": "p"})
    assert 'aria-label="prone for Aria" aria-pressed="true"' in client.get("/table").text


def test_a_row_moves_up_and_down_the_turn_order(client: TestClient) -> None:
    open_table(client)
    assert gm_view(client)["order"] == ["bron", "orc-brute", "aria", "goblin-archer"]
    page = client.get("/table").text
    assert "disabled" in row(page, "bron").split("Bron is first in the turn order")[0][-60:]
    up = form_of(page, "aria", "Move Aria up in the turn order")
    assert up["command"] == ["gm: order bron,aria,orc-brute,goblin-archer"]
    assert client.post("/table/command", data=up).status_code == 200
    assert gm_view(client)["order"] == ["bron", "aria", "orc-brute", "goblin-archer"]
    assert gm_view(client)["turn"] == "bron"  # the owner keeps its turn (R48)
    down = form_of(client.get("/table").text, "bron", "Move Bron down in the turn order")
    assert client.post("/table/command", data=down).status_code == 200
    assert gm_view(client)["order"] == ["aria", "bron", "orc-brute", "goblin-archer"]
    page = client.get("/table").text
    assert 'aria-label="Goblin Archer is last in the turn order"' in row(page, "goblin-archer")


def test_the_amount_form_damages_and_heals_and_a_refusal_says_why(client: TestClient) -> None:
    open_table(client)
    page = client.get("/table").text
    fields = form_of(page, "goblin-archer", "Damage Goblin Archer by the amount")
    assert fields["op"] == ["health"]
    assert fields["target"] == ["goblin-archer"]
    sent = {**fields, "amount": "4", "verb": "damage"}
    assert client.post("/table/command", data=sent).status_code == 200
    assert creature(gm_view(client), "goblin-archer")["health"] == 5
    healed = {**fields, "amount": "2", "verb": "heal", "command_id": "heal-2"}
    assert client.post("/table/command", data=healed).status_code == 200
    assert creature(gm_view(client), "goblin-archer")["health"] == 7
    empty = {**fields, "amount": "", "verb": "damage", "command_id": "empty"}
    refused = client.post("/table/command", data=empty, headers={"hx-request": "true"})
    # an htmx refusal is answered 200 with its status beside it (web/refusals.py)
    assert (refused.status_code, refused.headers["x-caltrop-status"]) == (200, "422")
    assert "fill in amount" in refused.text
    # a condition already set: the engine's reason, nothing applied
    client.post("/table/command", data={"command": "gm: set bron prone on", "command_id": "a"})
    stale = {"command": "gm: set bron prone on", "command_id": "b"}
    again = client.post("/table/command", data=stale, headers={"hx-request": "true"})
    assert (again.status_code, again.headers["x-caltrop-status"]) == (200, "422")
    assert "Bron is already prone" in again.text
    assert commands(client).count("gm: set bron prone on") == 1


def test_row_commands_over_the_page_socket_are_applied_once(client: TestClient) -> None:
    open_table(client)
    page = client.get("/table").text
    minus = form_of(page, "orc-brute", "Health − 1 for Orc Brute")
    toggle = form_of(page, "orc-brute", "prone for Orc Brute")
    up = form_of(page, "orc-brute", "Move Orc Brute up in the turn order")
    amount = {**form_of(page, "aria", "Heal Aria by the amount"), "amount": ["3"]}
    amount["verb"] = ["damage"]
    with client.websocket_connect("/ws/screen") as socket:
        socket.receive_text()  # the whole screen
        for n, fields in enumerate((minus, toggle, up, amount)):
            cid = f"row-tap-{n}"  # the page gives each tap of a row's form its own id
            tap(socket, fields, cid)
            said = answer(socket)
            assert said["type"] == "answer", said
            assert 'id="live"' in socket.receive_text()  # then the new screen
            tap(socket, fields, cid)  # resent (its answer lost): the stored answer, once
            assert answer(socket)["answer"] == said["answer"]
    assert commands(client) == [
        "gm: damage orc-brute 1",
        "gm: set orc-brute prone on",
        "gm: order orc-brute,bron,aria,goblin-archer",
        "gm: damage aria 3",
    ]
    view = gm_view(client)
    assert creature(view, "orc-brute")["health"] == 21
    assert creature(view, "orc-brute")["conditions"] == ["prone"]
    assert creature(view, "aria")["health"] == 11


def test_an_npcs_odds_switch_takes_its_odds_off_a_players_screen(client: TestClient) -> None:
    links = open_table(client)
    bron = player(client, links["bron"])
    strike = "bron: strike orc-brute with sword"

    def odds_of(options: list[dict[str, Any]], command: str) -> Any:
        return next(o for o in options if o["command"] == command).get("odds")

    assert odds_of(bron.get("/api/view").json()["options"]["bron"], strike) is not None
    page = client.get("/table").text
    vis = row(page, "orc-brute")
    assert 'role="switch" id="shown-odds-orc-brute" name="odds" value="1" checked' in vis
    with bron.websocket_connect("/ws/screen") as screen, bron.websocket_connect("/ws") as api:
        before = screen.receive_text()
        assert 'class="odds"' in _option(before, strike)
        api.send_json({"hello": {"last_seq": 0}})
        while orjson.loads(api.receive_text()).get("type") != "view":
            pass
        # the switch off: health and the rest as they were (an unticked box is not sent)
        shown = client.post(
            "/table/visibility",
            data={"creature": "orc-brute", "health": "label"},
            headers={"hx-request": "true"},
        )
        assert shown.status_code == 200
        after = screen.receive_text()
        assert _option(after, strike)  # still offered
        assert 'class="odds"' not in _option(after, strike)  # without its odds
        assert 'class="odds"' in _option(after, "bron: strike goblin-archer with sword")
        message = orjson.loads(api.receive_text())
        while message.get("type") != "view":
            message = orjson.loads(api.receive_text())
        options = message["view"]["options"]["bron"]
        assert odds_of(options, strike) is None  # the JSON socket's payload too
        assert odds_of(options, "bron: strike goblin-archer with sword") is not None
    assert creature(gm_view(client), "orc-brute")["shown"]["odds"] is False
    back = {"creature": "orc-brute", "health": "exact", "odds": "1", "aspects": "1"}
    assert client.post("/table/visibility", data=back).status_code == 200
    shown = creature(gm_view(client), "orc-brute")["shown"]
    assert shown == {"health": "exact", "aspects": True, "resources": False, "odds": True}
    assert odds_of(bron.get("/api/view").json()["options"]["bron"], strike) is not None
    client.post("/table/visibility", data={"creature": "orc-brute", "health": "label"})
    assert 'id="shown-odds-orc-brute" name="odds" value="1">' in client.get("/table").text
    # Bron's options on the GM's screen are his seat's (the same odds a seat gets): none
    assert 'class="odds"' not in _option(row(client.get("/table").text, "bron"), strike)


def _option(page: str, command: str) -> str:
    at = page.index(f'value="{command}"')
    return page[page.rindex("<li", 0, at) : page.index("</li>", at)]
