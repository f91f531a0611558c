"""The browser pages over HTTP and the page socket (issue 12), without a browser: who sees
what, links shown once, refusals as HTML with the server's reason."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from caltrop.content import bundled_encounters

HTML = {"accept": "text/html,application/xhtml+xml"}


def open_table(client: TestClient, encounter: str = "orc-bridge") -> dict[str, str]:
    """Open a table from the home page as a GM; the seat links the GM screen shows once."""
    opened = client.post("/tables", data={"encounter": encounter}, follow_redirects=False)
    assert opened.status_code == 303
    assert opened.headers["location"] == "/table"
    screen = client.get("/table")
    assert screen.status_code == 200
    links = dict(re.findall(r'<li id="seat-([\w-]+)">.*?href="([^"]+)"', screen.text, re.S))
    links["gm"] = re.findall(r'id="gm-link" href="([^"]+)"', screen.text)[0]
    return links


def beside(client: TestClient, **options: Any) -> TestClient:
    """Another browser on the same server: its own cookies, the same event loop as ``client``'s
    (the server's one loop, as ``caltrop serve`` has). A test client left to itself runs each
    request on a loop of its own, and the table's stream then ran on several loops at once:
    orders of answers and screens no server can produce."""
    other = TestClient(client.app, **options)
    other.portal = client.portal
    return other


def player(client: TestClient, link: str) -> TestClient:
    other = beside(client)
    joined = other.get(link.removeprefix("http://testserver"), headers=HTML, follow_redirects=False)
    assert joined.status_code == 303
    assert joined.headers["location"] == "/table"
    return other


def test_the_home_page_lists_every_bundled_encounter(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    for name in bundled_encounters():
        assert f'value="{name}"' in page.text
    assert "Action Points" in page.text
    assert "Action Load" in page.text


def test_seat_links_and_qr_codes_are_shown_once(client: TestClient) -> None:
    links = open_table(client)
    assert set(links) == {"bron", "aria", "gm"}
    again = client.get("/table")
    assert links["bron"] not in again.text  # only hashes are stored: never shown again
    assert "Reissue seat" in again.text
    reissued = client.post("/table/seats/bron/reissue")
    assert reissued.status_code == 200
    assert 'role="img" aria-label="QR code: Bron' in reissued.text
    new = re.findall(r'href="([^"]+)"', reissued.text)[0]
    assert new != links["bron"]
    old = beside(client).get(links["bron"].removeprefix("http://testserver"))
    assert old.status_code == 401  # the old link stops working


def test_a_browser_is_sent_to_its_screen_and_a_client_gets_json(client: TestClient) -> None:
    links = open_table(client)
    aria = player(client, links["aria"])
    screen = aria.get("/table")
    assert '<h2 id="sheet-h">Aria</h2>' in screen.text
    assert "GM tools" not in screen.text
    as_json = beside(client).get(links["aria"].removeprefix("http://testserver"))
    assert as_json.json()["creature"] == "aria"


def test_a_player_is_refused_a_gm_command_with_the_reason(client: TestClient) -> None:
    links = open_table(client)
    bron = player(client, links["bron"])
    refused = bron.post(
        "/table/command", data={"command": "gm: damage orc-brute 3", "command_id": "x"}
    )
    assert refused.status_code == 403
    assert "only the GM" in refused.text
    assert 'role="alert"' in refused.text
    rules = bron.post("/table/command", data={"command": "bron: parry", "command_id": "y"})
    assert rules.status_code == 422
    assert "R15" in rules.text


def test_bad_dice_are_refused_naming_the_faces(client: TestClient) -> None:
    links = open_table(client)
    bron = player(client, links["bron"])
    ok = bron.post("/table/command", data={"command": "bron: strike orc-brute", "command_id": "a"})
    assert ok.status_code == 200
    client.post("/table/command", data={"command": "gm: pass all", "command_id": "b"})
    dice = {"command": "roll", "command_id": "c", "die": ["9", "1", "1", "1", "1", "1"]}
    refused = bron.post("/table/command", data=dice)
    assert refused.status_code == 422
    assert "die 1 of 6 is a d4 and shows 1 to 4, not 9" in refused.text
    dice["die"] = ["1", "1", "1"]
    short = bron.post("/table/command", data=dice)
    assert "needs 6 dice" in short.text


def test_a_cross_origin_form_is_refused(client: TestClient) -> None:
    links = open_table(client)
    bron = player(client, links["bron"])
    forged = bron.post(
        "/table/command",
        data={"command": "bron: end turn", "command_id": "z"},
        headers={"origin": "http://evil.example"},
    )
    assert forged.status_code == 403


def test_no_seat_gets_a_page_saying_so(client: TestClient) -> None:
    page = beside(client).get("/table")
    assert page.status_code == 401
    assert "open your invite link" in page.text


def test_an_uploaded_log_opens_a_table_going_on_from_it(client: TestClient) -> None:
    open_table(client)
    client.post("/table/command", data={"command": "bron: end turn", "command_id": "e"})
    log = client.get("/api/log").text
    other = beside(client)
    opened = other.post(
        "/tables/upload",
        files={"files": ("night.jsonl", log.encode(), "application/json")},
        follow_redirects=False,
    )
    assert opened.status_code == 303
    assert "bron: end turn" in other.get("/table").text


FROM_A_FORM = b"""kind: encounter
name: From a form
ruleset: caltrop:rulesets/round-reset
include: [caltrop:party/dain, caltrop:monsters/goblin-archer]
participants: [dain, goblin-archer]
"""


def test_an_uploaded_encounter_file_opens_a_table(client: TestClient) -> None:
    gm = beside(client)
    opened = gm.post(
        "/tables/upload",
        files={"files": ("mine.yaml", FROM_A_FORM, "text/yaml")},
        follow_redirects=False,
    )
    assert opened.status_code == 303
    screen = gm.get("/table")
    assert "From a form" in screen.text
    assert '<li id="seat-dain">' in screen.text


def test_a_bad_upload_gets_the_reason(client: TestClient) -> None:
    other = beside(client)
    bad = other.post("/tables/upload", files={"files": ("x.yaml", b"name: [", "text/yaml")})
    assert bad.status_code == 422
    assert "x.yaml" in bad.text


def test_the_page_socket_sends_the_screen_then_each_change(client: TestClient) -> None:
    links = open_table(client)
    aria = player(client, links["aria"])
    with aria.websocket_connect("/ws/screen") as socket:
        first = socket.receive_text()
        assert '<div id="live" hx-swap-oob="true" data-seq="0"' in first
        client.post(
            "/table/command", data={"command": "orc-brute: end turn", "command_id": "n"}
        )  # not the brute's turn: refused, nothing sent
        bron = player(client, links["bron"])
        bron.post("/table/command", data={"command": "bron: end turn", "command_id": "m"})
        changed = socket.receive_text()
        assert 'data-seq="1"' in changed
        assert "bron: end turn" in changed
        ids = re.findall(r'id="cid-text" name="command_id" value="([^"]+)"', first + changed)
        assert len(set(ids)) == 2  # a fresh command id each time
        # NPC stats are hidden from players by default: no Load of the brute on Aria's screen
        row = re.findall(r'<tr class="npc" id="row-orc-brute">.*?</tr>', changed, re.S)[0]
        assert "Load" not in row
        assert "22" not in row
        socket.send_text("resync")
        assert 'data-seq="1"' in socket.receive_text()


def test_the_page_socket_refuses_another_origin(client: TestClient) -> None:
    links = open_table(client)
    aria = player(client, links["aria"])
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        aria.websocket_connect("/ws/screen", headers={"origin": "http://evil.example"}) as s,
    ):
        s.receive_text()
    assert refused.value.code == 1008


def test_static_files_are_served_from_the_package(client: TestClient) -> None:
    assert client.get("/static/vendor/htmx.min.js").status_code == 200
    assert client.get("/static/caltrop.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/static/../app.py").status_code == 404
    assert client.get(f"/static/{uuid.uuid4().hex}.js").status_code == 404


def test_a_double_tap_sends_one_command_id_and_is_applied_once(client: TestClient) -> None:
    """Each rendered form carries its own command_id: a second tap before the screen changes
    resends it, and the server answers from the stored answer (issue 11's retry rule)."""
    links = open_table(client)
    bron = player(client, links["bron"])
    screen = bron.get("/table").text
    form_id = re.findall(
        r'value="bron: end turn">\s*<input type="hidden" name="command_id" value="([^"]+)"',
        screen,
    )[0]
    tap = {"command": "bron: end turn", "command_id": form_id}
    assert bron.post("/table/command", data=tap).status_code == 200
    assert bron.post("/table/command", data=tap).status_code == 200
    log = client.get("/api/log").text
    assert log.count('"command": "bron: end turn"') == 1


def test_the_gm_is_told_when_seat_links_point_at_loopback(client: TestClient) -> None:
    """Seat links are made from the address the GM's browser used; opened on loopback, they
    cannot reach a phone, and the GM screen says so (with how to serve the wifi)."""
    opened = client.post("/tables", data={"encounter": "orc-bridge"}, follow_redirects=True)
    assert opened.status_code == 200
    assert "--host 0.0.0.0" not in opened.text  # the test client's host is 'testserver'
    local = beside(client, base_url="http://127.0.0.1:8000")
    page = local.post("/tables", data={"encounter": "orc-bridge"}, follow_redirects=True)
    assert page.status_code == 200
    assert "caltrop serve --host 0.0.0.0" in page.text
