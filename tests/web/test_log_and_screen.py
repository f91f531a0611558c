"""The whole log on the page and the table screen (issue 22 item 6, the TV view, item 8's
refusals and icon): ``GET /api/events?before=N`` and ``GET /table/log`` page the log going
back, bounded, as the seat may see it; a table screen's seat sees what players see and can
give no command; the GM makes and revokes its link."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from starlette.websockets import WebSocketDisconnect

from caltrop.table.log import MAX_PAGE, PAGE, page_bounds
from caltrop.web.seating import COOKIE
from tests.table.test_view import HIDDEN_BY_DEFAULT, dicts
from tests.web.test_api import bearer, new_table, receive_until_view, send

NPCS = {"orc-brute", "goblin-archer"}


def hidden_kept(payload: Any) -> None:
    """The existing hidden-number checks: no NPC field hidden by default, no stat block, no
    seed, no number of a GM command the GM hides."""
    for obj in dicts(payload):
        if obj.get("id") in NPCS and "side" in obj:
            assert HIDDEN_BY_DEFAULT.isdisjoint(obj), obj
        assert {"header", "creature", "seed"}.isdisjoint(obj), obj
    text = json.dumps(payload)
    assert "gm: set orc-brute load 3" not in text
    assert "gm: damage orc-brute 2" not in text


def long_table(client: TestClient, commands: int) -> dict[str, Any]:
    """Orc Bridge with ``commands`` GM commands logged (the brute's hidden Load and Health
    among them), ending at seq ``commands``."""
    table = new_table(client)
    gm = table["gm"]["token"]
    said = ["gm: set orc-brute load 3", "gm: damage orc-brute 2", "gm: heal orc-brute 2"]
    for n in range(commands):
        text = said[0] if n == 0 else said[1 + (n - 1) % 2]
        assert send(client, gm, text).status_code == 200
    return table


@given(
    head=st.integers(0, 600),
    before=st.none() | st.integers(0, 700),
    limit=st.integers(1, MAX_PAGE),
)
def test_pages_going_back_tile_the_log(head: int, before: int | None, limit: int) -> None:
    """Following each page's last seq back visits every seq below the cursor once, newest
    first, each page at most ``limit`` long."""
    seen: list[int] = []
    cursor = before
    for _ in range(head + 2):
        page = list(page_bounds(cursor, limit, head))
        assert len(page) <= limit
        if not page:
            break
        seen += page
        cursor = page[-1]
    top = head + 1 if before is None else min(before, head + 1)
    assert seen == list(range(top - 1, -1, -1))


@pytest.mark.parametrize("limit", [0, MAX_PAGE + 1])
def test_a_page_past_its_bounds_is_a_programming_error(limit: int) -> None:
    with pytest.raises(ValueError, match=f"1 to {MAX_PAGE} events, not {limit}"):
        page_bounds(None, limit, 10)


def test_the_api_pages_the_log_back_newest_first_as_the_seat_sees_it(client: TestClient) -> None:
    table = long_table(client, 120)
    gm, aria = table["gm"]["token"], table["players"]["aria"]["token"]
    seqs: list[int] = []
    pages = 0
    before = 121
    while True:
        got = client.get(f"/api/events?before={before}", headers=bearer(aria))
        assert got.status_code == 200, got.text
        events = got.json()["events"]
        if not events:
            break
        assert len(events) <= PAGE
        hidden_kept(events)  # the live stream's filter, page by page
        seqs += [e["seq"] for e in events]
        before = events[-1]["seq"]
        pages += 1
    assert seqs == list(range(120, -1, -1))
    assert pages == 3  # 121 events, 50 a page
    # the same events the live stream's catch-up gives, seq for seq
    since = client.get("/api/events", headers=bearer(aria)).json()["events"]
    paged = client.get("/api/events?before=121&limit=200", headers=bearer(aria)).json()["events"]
    assert paged == since[::-1]
    # the GM's page holds the numbers
    mine = client.get("/api/events?before=2&limit=1", headers=bearer(gm)).json()["events"]
    assert mine[0]["event"]["command"] == "gm: set orc-brute load 3"
    theirs = client.get("/api/events?before=2&limit=1", headers=bearer(aria)).json()["events"]
    assert theirs[0]["event"]["command"] == "gm: set orc-brute load (hidden)"


@pytest.mark.parametrize(
    ("query", "why"),
    [
        ("before=5&limit=0", "query.limit"),
        (f"before=5&limit={MAX_PAGE + 1}", "query.limit"),
        ("before=-1", "query.before"),
        ("before=5&after=2", "give after (events since) or before (a page back), not both"),
    ],
)
def test_a_page_out_of_bounds_is_refused_saying_why(
    client: TestClient, query: str, why: str
) -> None:
    table = new_table(client)
    got = client.get(f"/api/events?{query}", headers=bearer(table["gm"]["token"]))
    assert got.status_code == 422
    assert why in got.json()["detail"]


def test_the_page_log_keeps_its_seat_and_bounds(client: TestClient) -> None:
    table = new_table(client)
    assert client.get("/table/log?before=3").status_code == 401  # no seat
    client.cookies.set(COOKIE, table["gm"]["token"])
    assert client.get("/table/log?before=3&limit=201").status_code == 422
    assert client.get("/table/log").status_code == 422  # the cursor is required
    client.cookies.clear()


def test_older_entries_come_a_page_at_a_time_with_the_next_cursor(client: TestClient) -> None:
    """The page's "Older entries": list items newest first, each roll with its dice; the
    next button's cursor is this page's last seq; the last page says it is the log's start;
    a player's pages hold no hidden number."""
    table = long_table(client, 100)
    client.cookies.set(COOKIE, table["players"]["aria"]["token"])
    screen = client.get("/table").text
    assert 'id="log-older"' in screen
    first = re.search(r'hx-vals=\'\{"before": (\d+)\}\'', screen)
    assert first is not None
    live = [int(s) for s in re.findall(r'<li data-seq="(\d+)">', screen)]
    assert int(first.group(1)) == min(live) == 71  # the view carries the last 30
    before, seen = int(first.group(1)), list(live)
    while True:
        page = client.get(f"/table/log?before={before}&limit=30")
        assert page.status_code == 200
        got = [int(s) for s in re.findall(r'<li data-seq="(\d+)">', page.text)]
        assert got == sorted(got, reverse=True)
        assert len(got) <= 30
        assert "gm: set orc-brute load 3" not in page.text
        assert "gm: damage orc-brute 2" not in page.text
        seen += got
        nxt = re.search(r'hx-vals=\'\{"before": (\d+)\}\'', page.text)
        if nxt is None:
            assert "The start of the log." in page.text
            break
        assert int(nxt.group(1)) == got[-1]
        before = int(nxt.group(1))
    assert seen == list(range(100, 0, -1))
    assert "gm: set orc-brute load (hidden)" in page.text
    client.cookies.clear()


def test_a_roll_in_a_page_shows_each_die(client: TestClient) -> None:
    table = new_table(client)
    gm, bron = table["gm"]["token"], table["players"]["bron"]["token"]
    assert send(client, bron, "bron: strike orc-brute with sword").status_code == 200
    assert send(client, gm, "gm: pass all").status_code == 200
    rolled = send(client, gm, "roll")
    assert rolled.status_code == 200, rolled.text
    faces = rolled.json()["outcomes"][0]["faces"]
    client.cookies.set(COOKIE, bron)
    page = client.get(f"/table/log?before={rolled.json()['seq'] + 1}").text
    client.cookies.clear()
    dice = re.findall(r'<span class="die d(\d+)" title="d\d+: (\d+)">', page)
    assert [int(v) for _, v in dice] == faces
    assert dice[0][0] == "4"


# -- the table screen ---------------------------------------------------------------------


def open_screen(client: TestClient, gm: str) -> str:
    got = client.post("/api/screen", headers=bearer(gm))
    assert got.status_code == 201, got.text
    link = got.json()["link"]
    assert link == f"http://testserver/tv/{got.json()['token']}"
    return str(got.json()["token"])


def test_a_table_screen_sees_what_players_see(client: TestClient) -> None:
    table = new_table(client)
    gm = table["gm"]["token"]
    assert send(client, gm, "gm: set orc-brute load 3").status_code == 200
    assert send(client, gm, "gm: damage orc-brute 2").status_code == 200
    tv = open_screen(client, gm)
    seen = client.get("/api/view", headers=bearer(tv)).json()
    assert seen["viewer"] == "@screen"
    assert seen["options"] == {}
    hidden_kept(seen)
    hidden_kept(client.get("/api/events", headers=bearer(tv)).json())
    page = client.get(f"/tv/{tv}")
    assert page.status_code == 200
    assert 'ws-connect="/ws/tv/' in page.text
    brute = re.search(r'<li class="npc[^"]*" id="tv-orc-brute">(.*?)</li>', page.text, re.S)
    assert brute is not None
    health = re.sub(r"\s+", " ", re.sub("<[^>]+>", "", brute.group(1))).strip()
    assert not re.search(r"\d", health), health  # a label, never the brute's numbers
    assert "<form" not in page.text  # nothing to tap
    assert "set-cookie" not in page.headers  # opening it takes no seat in this browser


def test_a_table_screen_can_give_no_command(client: TestClient) -> None:
    """Over HTTP, the seat socket, and the screen's own socket (a command and a form): 403,
    and nothing stored."""
    table = new_table(client)
    gm = table["gm"]["token"]
    tv = open_screen(client, gm)
    before = client.get("/api/log", headers=bearer(gm)).text
    why = "a table screen only shows the table: it gives no commands"
    answer = send(client, tv, "gm: damage orc-brute 3")
    assert (answer.status_code, answer.json()["detail"]) == (403, why)
    with client.websocket_connect("/ws", headers=bearer(tv)) as ws:
        ws.send_json({"hello": {"last_seq": -1}})
        receive_until_view(ws)
        ws.send_json({"command": "gm: pass all", "command_id": uuid.uuid4().hex})
        refused = ws.receive_json()
        assert (refused["type"], refused["status"], refused["detail"]) == ("refused", 403, why)
    with client.websocket_connect(f"/ws/tv/{tv}") as ws:
        assert 'id="tv-live"' in ws.receive_text()
        ws.send_text(json.dumps({"command": "gm: pass all", "command_id": "a"}))
        assert json.loads(ws.receive_text())["status"] == 403
        ws.send_text(json.dumps({"form": {"command": ["gm: pass all"]}, "command_id": "b"}))
        assert json.loads(ws.receive_text())["detail"] == why
    assert client.post("/api/screen", headers=bearer(tv)).status_code == 403
    assert client.get("/api/log", headers=bearer(gm)).text == before


def test_the_table_screen_is_live_after_a_command(client: TestClient) -> None:
    table = new_table(client)
    gm, bron = table["gm"]["token"], table["players"]["bron"]["token"]
    tv = open_screen(client, gm)
    with client.websocket_connect(f"/ws/tv/{tv}") as ws:
        assert 'data-seq="0"' in ws.receive_text()
        assert send(client, bron, "bron: strike orc-brute with sword").status_code == 200
        shown = ws.receive_text()
        assert 'data-seq="1"' in shown
        assert 'class="die die-to-roll"' in shown  # the pending roll's dice
        assert "Bron" in shown
        assert send(client, gm, "gm: pass all").status_code == 200
        ws.receive_text()
        rolled = send(client, gm, "roll").json()
        shown = ws.receive_text()
        while f'data-seq="{rolled["seq"]}"' not in shown:
            shown = ws.receive_text()
        latest = shown[shown.index('class="tv-last latest"') :]
        faces = re.findall(r'<span class="die" title="d\d+: (\d+)">', latest.split("</p>")[0])
        assert [int(f) for f in faces] == rolled["outcomes"][0]["faces"]


@pytest.mark.parametrize("name", ["warband-ap", "bridge-duel-ap", "orc-bridge"])
def test_the_table_screen_shows_the_map_read_only_where_there_is_one(
    client: TestClient, name: str
) -> None:
    """An Action Point table's screen shows its map as players see it (issue 22: a shared
    screen for the table): every standing creature's token, none of them a control; an
    Action Load table has no positions and no map. After a move, the live screen's map
    has the creature where it went."""
    table = new_table(client, name)
    gm = table["gm"]["token"]
    tv = open_screen(client, gm)
    page = client.get(f"/tv/{tv}").text
    seen = client.get("/api/view", headers=bearer(tv)).json()
    if seen["module"] != "action_points":
        assert 'id="map"' not in page
        return
    live = page[page.index('id="tv-live"') :]
    assert 'id="map"' in live  # inside the part the screen's socket swaps
    tokens = re.findall(r'<g class="token [^"]*"[^>]*data-id="([\w-]+)"', live)
    assert sorted(tokens) == sorted(c["id"] for c in seen["creatures"])
    assert 'role="button"' not in live  # nothing on the map moves from a screen
    assert "<form" not in page
    while seen["current"] == "chance":  # initiative (R30)
        assert send(client, gm, "roll").status_code == 200
        seen = client.get("/api/view", headers=bearer(tv)).json()
    owner = seen["turn"]
    x, y = next(c["position"] for c in seen["creatures"] if c["id"] == owner)
    assert send(client, gm, f"{owner}: move to {x + 1:g},{y:g}").status_code == 200
    with client.websocket_connect(f"/ws/tv/{tv}") as ws:
        shown = ws.receive_text()
    moved = re.search(rf'data-id="{owner}" data-x="([-\d.]+)" data-y="([-\d.]+)"', shown)
    assert moved is not None
    assert (float(moved.group(1)), float(moved.group(2))) == (x + 1, y)


def test_only_the_gm_makes_or_revokes_the_screen_link(client: TestClient) -> None:
    table = new_table(client)
    gm, aria = table["gm"]["token"], table["players"]["aria"]["token"]
    assert client.post("/api/screen", headers=bearer(aria)).status_code == 403
    assert client.delete("/api/screen", headers=bearer(aria)).status_code == 403
    first = open_screen(client, gm)
    second = open_screen(client, gm)  # a new link ends the one before
    assert client.get(f"/tv/{first}").status_code == 401
    assert client.get(f"/tv/{second}").status_code == 200
    # a player's link is no screen link
    assert client.get(f"/tv/{aria}").status_code == 403
    with pytest.raises(WebSocketDisconnect) as no, client.websocket_connect(f"/ws/tv/{aria}") as ws:
        ws.receive_text()
    assert no.value.code == 1008
    # the screen link opened as a seat link goes to its page and sets no cookie
    joined = client.get(f"/join/{second}", headers={"accept": "text/html"}, follow_redirects=False)
    assert (joined.status_code, joined.headers["location"]) == (303, f"/tv/{second}")
    assert "set-cookie" not in joined.headers
    tool = client.get(f"/join/{second}")  # a client: its seat in JSON, no cookie either
    assert tool.json()["role"] == "screen"
    assert "set-cookie" not in tool.headers


def test_revoking_the_screen_link_closes_its_screens(client: TestClient) -> None:
    table = new_table(client)
    gm = table["gm"]["token"]
    tv = open_screen(client, gm)
    with client.websocket_connect(f"/ws/tv/{tv}") as ws:
        ws.receive_text()
        client.cookies.set(COOKIE, gm)
        card = client.post("/table/screen/revoke")
        client.cookies.clear()
        assert card.status_code == 200
        assert "was revoked" in card.text
        assert "This table screen link was revoked" in ws.receive_text()
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert closed.value.code == 1008
    assert client.get(f"/tv/{tv}").status_code == 401
    assert client.get("/api/view", headers=bearer(tv)).status_code == 401
    # the GM screen's card: a new link with its QR code
    client.cookies.set(COOKIE, gm)
    assert 'id="tv-screen"' in client.get("/table").text
    card = client.post("/table/screen")
    client.cookies.clear()
    link = re.search(r'href="(http://testserver/tv/[^"]+)"', card.text)
    assert link is not None
    assert 'aria-label="QR code: the table screen link"' in card.text
    assert client.get(link.group(1).removeprefix("http://testserver")).status_code == 200
    assert client.delete("/api/screen", headers=bearer(gm)).status_code == 204
    assert client.get(link.group(1).removeprefix("http://testserver")).status_code == 401


# -- item 8: refusals without console errors, the icon --------------------------------------


def test_an_htmx_refusal_is_answered_200_with_its_status_in_a_header(client: TestClient) -> None:
    """The browser logs a 4xx as a failed resource: htmx's refusals say theirs in a header,
    every route alike; other clients keep the status."""
    table = new_table(client)
    client.cookies.set(COOKIE, table["players"]["bron"]["token"])
    tap = {"command": "gm: damage orc-brute 3", "command_id": "r1"}
    htmx = client.post("/table/command", data=tap, headers={"hx-request": "true"})
    assert (htmx.status_code, htmx.headers["x-caltrop-status"]) == (200, "403")
    assert 'class="refusal"' in htmx.text
    shown = client.post(
        "/table/visibility", data={"creature": "orc-brute"}, headers={"hx-request": "true"}
    )
    assert (shown.status_code, shown.headers["x-caltrop-status"]) == (200, "403")
    plain = client.post("/table/visibility", data={"creature": "orc-brute"})
    assert plain.status_code == 403
    assert "x-caltrop-status" not in plain.headers
    ok = client.get("/table", headers={"hx-request": "true"})
    assert ok.status_code == 200
    assert "x-caltrop-status" not in ok.headers
    client.cookies.clear()
    assert send(client, table["players"]["bron"]["token"], "gm: pass all").status_code == 403


def test_the_icon_is_served(client: TestClient) -> None:
    got = client.get("/favicon.ico")
    assert got.status_code == 200
    assert got.headers["content-type"].startswith("image/svg+xml")
    assert got.text.startswith("<svg")


def test_a_defence_choice_that_cannot_avoid_the_damage_is_set_apart() -> None:
    """Item 8 for the defence window (R40): a choice with no chance of taking no damage (Take
    Cover's "then" choices included) is marked and listed after the others; one with any
    chance is not; the other reactions' odds (the pending roll's) mark none."""
    from caltrop.table import view
    from caltrop.web.screen import hopeless, screen_fragments
    from tests.table.test_defence_odds import windows

    marked = unmarked = 0
    for enc, defender, _ in windows():
        seen = view(enc, defender).as_dict()
        legal = [o for o in seen["options"][defender] if o["legal"]]
        html = screen_fragments(seen)
        for o in legal:
            odds = o.get("odds") or {}
            after = odds.get("or_then") or {}
            nil = odds.get("kind") == "defence" and odds["success"] == 0
            assert hopeless(o) == (nil and after.get("success", 0) == 0), o
        cannot = [o for o in legal if hopeless(o)]
        can = [o for o in legal if not hopeless(o)]
        assert html.count("0% — cannot avoid all the damage") == len(cannot)
        for low in cannot:
            for high in can:
                spot = html.index(f'value="{low["command"]}"')
                assert html.index(f'value="{high["command"]}"') < spot
        marked += len(cannot)
        unmarked += len(can)
    assert marked
    assert unmarked


def test_the_table_screen_says_down_once_and_hides_the_numbers() -> None:
    """Item 8's doubled label on the table screen too ("0/9 (down) · down"), and a screen's
    view is a player's: the downed goblin's Health is its label alone."""
    from caltrop.content import load_encounter
    from caltrop.core.commands import parse_command
    from caltrop.encounter import Encounter
    from caltrop.table import SCREEN, view
    from caltrop.web.routes.tv import tv_fragments

    enc = Encounter.begin(load_encounter("orc-bridge"), 1)
    enc.apply(parse_command("gm: damage goblin-archer 9"))
    html = tv_fragments(view(enc, SCREEN).as_dict())
    start = html.index('id="tv-goblin-archer"')
    row = re.sub(r"<[^>]+>", " ", html[start : html.index("</li>", start)])
    assert row.count("down") == 1, row
    assert not re.search(r"\d", row.split(">", 1)[-1]), row


def test_every_page_route_answers_htmx_refusals_alike(client: TestClient) -> None:
    """The class, not one form: every page route of the limits table, refused to a player
    (a GM's control) or for a wrong form, answers htmx 200 with the status a plain request
    gets in ``X-Caltrop-Status``."""
    from caltrop.web.limits import ROUTES

    table = new_table(client)
    pages = [r for r in ROUTES if r.path.startswith("/table/") and r.method == "POST"]
    assert len(pages) >= 6
    for route in pages:
        path = route.path.replace("*", "bron")
        client.cookies.set(COOKIE, table["players"]["aria"]["token"])
        plain = client.post(path, data={"x": "1"})
        htmx = client.post(path, data={"x": "1"}, headers={"hx-request": "true"})
        assert 400 <= plain.status_code < 500, (path, plain.status_code)
        assert htmx.status_code == 200, path
        assert htmx.headers["x-caltrop-status"] == str(plain.status_code), path
    client.cookies.clear()
