"""The GM acts for any creature by tapping it (issue 22 item 3): on the turn of a player
character no seat has taken, the GM's screen shows that PC's options as buttons, with the
odds its seat would see, and a tap on one is applied as the PC's command (R48: "the GM may
issue every command")."""

from __future__ import annotations

import html
import re

import orjson
from fastapi.testclient import TestClient

from caltrop.web.seating import COOKIE
from tests.web.test_pages import HTML, open_table, player


def forms(page: str) -> list[str]:
    """The commands of the tappable option buttons on a screen."""
    return [html.unescape(c) for c in re.findall(r'name="command" value="([^"]+)"', page)]


def option_row(page: str, actor: str, command: str) -> str:
    """The option row of ``command`` in ``actor``'s part of the screen, its one-time
    command_id left out."""
    section = page[page.index(f'id="actor-{actor}"') :]
    at = section.index(f'value="{command}"')
    row = section[section.rindex("<li", 0, at) : section.index("</li>", at)]
    return re.sub(r'name="command_id" value="[^"]+"', "", row)


def test_the_gm_taps_an_unseated_pcs_option_and_it_is_applied(client: TestClient) -> None:
    links = open_table(client)  # no seat is taken yet: bron and aria are the GM's to play
    screen = client.get("/table").text
    assert 'id="actor-bron"' in screen  # bron's turn: his row in the GM's Declare panel
    strike = "bron: strike orc-brute with sword"
    assert strike in forms(screen)
    row = option_row(screen, "bron", strike)
    assert 'class="pool"' in row
    assert 'class="odds"' in row
    # the same button, pool and odds as bron's own seat shows (a browser that takes it now)
    seat = player(client, links["bron"]).get("/table").text
    assert option_row(seat, "bron", strike) == row
    applied = client.post("/table/command", data={"command": strike, "command_id": "gm-taps-bron"})
    assert applied.status_code == 200
    log = [orjson.loads(line) for line in client.get("/api/log").text.splitlines() if line]
    assert [e.get("command") for e in log if e.get("command")] == [strike]
    after = client.get("/table").text
    assert 'id="actor-aria"' in after  # aria may answer bron's roll: hers to tap now
    assert any(c.startswith("aria: ") for c in forms(after))


def seat_cookie(client: TestClient) -> str | None:
    return client.cookies.get(COOKIE)


def test_a_gm_browser_is_asked_before_a_seat_link_takes_it(client: TestClient) -> None:
    """The GM's browser opening a PC's invite link keeps its GM cookie until it says yes: the
    page asks, with the GM screen one tap away; its yes takes the seat."""
    links = open_table(client)
    gm_cookie = seat_cookie(client)
    assert gm_cookie is not None
    path = links["bron"].removeprefix("http://testserver")
    asked = client.get(path, headers=HTML, follow_redirects=False)
    assert asked.status_code == 200
    assert "Take bron's seat in this browser?" in asked.text
    assert 'href="/table" id="back-to-gm"' in asked.text
    assert f'action="{path}"' in asked.text
    assert seat_cookie(client) == gm_cookie
    assert client.get("/api/view").json()["viewer"] == "gm"
    assert '<h2 id="actions-h">Declare</h2>' in client.get("/table").text  # the GM screen
    taken = client.post(path, follow_redirects=False)
    assert taken.status_code == 303
    assert taken.headers["location"] == "/table"
    assert seat_cookie(client) not in (None, gm_cookie)
    assert client.get("/api/view").json()["viewer"] == "bron"


def test_a_fresh_browser_joins_at_once_and_a_bad_link_is_refused(client: TestClient) -> None:
    links = open_table(client)
    bron = player(client, links["bron"])  # 303 to /table at once, as before
    assert bron.get("/api/view").json()["viewer"] == "bron"
    # a player's browser opening another seat's link is not asked: it held no GM seat
    path = links["aria"].removeprefix("http://testserver")
    moved = bron.get(path, headers=HTML, follow_redirects=False)
    assert moved.status_code == 303
    assert bron.get("/api/view").json()["viewer"] == "aria"
    # the GM's own link in the GM's browser: nothing to ask
    gm_path = links["gm"].removeprefix("http://testserver")
    again = client.get(gm_path, headers=HTML, follow_redirects=False)
    assert again.status_code == 303
    refused = client.post("/join/not-a-seat", follow_redirects=False)
    assert refused.status_code == 401
    assert client.get("/api/view").json()["viewer"] == "gm"
