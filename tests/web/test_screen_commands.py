"""Command forms sent over the page socket ``WS /ws/screen`` (issue 20 §1, issue 22 item 5):
read as ``POST /table/command`` reads a form, run on the one socket command path (the stored
answer, then the broadcast), answered as JSON before the new screen; a retry with the same
command_id is applied once, a stale ``expected_seq`` is refused with the reason (409)."""

from __future__ import annotations

import html
import re
from typing import Any

import orjson
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from tests.web.test_pages import open_table, player


def tap(
    socket: WebSocketTestSession, form: dict[str, list[str]], command_id: str, **more: Any
) -> None:
    socket.send_text(orjson.dumps({"form": form, "command_id": command_id, **more}).decode())


def answer(socket: WebSocketTestSession) -> dict[str, Any]:
    """The next message, which must be a command's JSON answer (not a screen's HTML)."""
    text = socket.receive_text()
    assert text.startswith("{"), text[:80]
    data: dict[str, Any] = orjson.loads(text)
    return data


def events(client: TestClient) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in client.get("/api/log").text.splitlines() if line]


def commands(client: TestClient) -> list[str]:
    return [e["command"] for e in events(client) if "command" in e]


def test_a_tap_on_the_page_socket_is_answered_then_the_screen_follows(client: TestClient) -> None:
    links = open_table(client)
    bron = player(client, links["bron"])
    with bron.websocket_connect("/ws/screen") as socket:
        assert 'data-seq="0"' in socket.receive_text()  # the whole screen on connect
        tap(socket, {"command": ["bron: end turn"]}, "tap-1")
        said = answer(socket)
        assert said["type"] == "answer"
        assert said["command_id"] == "tap-1"
        assert said["answer"]["command"] == "bron: end turn"
        assert said["answer"]["seq"] == 1
        screen = socket.receive_text()  # then the broadcast: the new screen as HTML
        assert 'data-seq="1"' in screen
        assert "bron: end turn" in screen
        # the same tap again (its answer was lost with the socket): the stored answer, once
        tap(socket, {"command": ["bron: end turn"]}, "tap-1")
        again = answer(socket)
        assert again["type"] == "answer"
        assert again["answer"] == said["answer"]
        socket.send_text("resync")  # nothing else was queued: the next message is the resync
        assert 'data-seq="1"' in socket.receive_text()
    assert commands(client).count("bron: end turn") == 1


def test_a_queued_tap_is_refused_with_the_reason_if_the_state_moved_on(
    client: TestClient,
) -> None:
    """A tap made on the screen at seq 0 and sent once the socket is back, after the GM's
    command moved the log to seq 1: refused 409 with the head, nothing applied."""
    links = open_table(client)
    bron = player(client, links["bron"])
    client.post("/table/command", data={"command": "gm: damage orc-brute 1", "command_id": "g"})
    with bron.websocket_connect("/ws/screen") as socket:
        socket.receive_text()
        tap(socket, {"command": ["bron: end turn"]}, "late", expected_seq=0)
        said = answer(socket)
        assert said["type"] == "refused"
        assert said["command_id"] == "late"
        assert said["status"] == 409
        assert said["detail"] == "stale expected_seq 0: the log is at 1"
        assert said["head"] == 1
        tap(socket, {"command": ["bron: end turn"]}, "now", expected_seq=1)
        assert answer(socket)["type"] == "answer"
    assert commands(client).count("bron: end turn") == 1


def test_a_gm_tool_form_is_read_as_the_http_form_is(client: TestClient) -> None:
    open_table(client)
    with client.websocket_connect("/ws/screen") as socket:
        socket.receive_text()
        form = {"op": ["health"], "verb": ["damage"], "target": ["orc-brute"], "amount": ["2"]}
        tap(socket, form, "hurt")
        said = answer(socket)
        assert said["type"] == "answer"
        assert said["answer"]["command"] == "gm: damage orc-brute 2"
        assert 'data-seq="1"' in socket.receive_text()  # the new screen
        tap(socket, {"command": ["roll"], "die": ["3", ""]}, "dice")  # a die left empty
        refused = answer(socket)
        assert refused == {
            "type": "refused",
            "command_id": "dice",
            "status": 422,
            "detail": "enter every die (or use the Roll button)",
        }
    assert commands(client) == ["gm: damage orc-brute 2"]


def test_refusals_carry_the_servers_reason_and_change_nothing(client: TestClient) -> None:
    links = open_table(client)
    aria = player(client, links["aria"])
    with aria.websocket_connect("/ws/screen") as socket:
        socket.receive_text()
        tap(socket, {"command": ["gm: damage orc-brute 3"]}, "not-mine")
        said = answer(socket)
        assert said["type"] == "refused"
        assert said["status"] == 403
        assert said["command_id"] == "not-mine"
        assert said["detail"]
        tap(socket, {"command": "aria: end turn"}, "bad-shape")  # a field is a list of text
        assert answer(socket)["detail"] == "form: each field is a list of text values"
        tap(socket, {"command": ["aria: end turn"]}, "")  # no command id
        empty = answer(socket)
        assert (empty["status"], empty["command_id"]) == (422, "")
        assert empty["detail"].startswith("command_id")
        socket.send_text("resync")  # the screen is still at seq 0
        assert 'data-seq="0"' in socket.receive_text()
    assert commands(client) == []


def test_a_plain_form_post_goes_back_to_the_screen_or_shows_the_refusal(
    client: TestClient,
) -> None:
    """Without JavaScript the command forms post themselves (method, action): accepted, the
    browser is sent back to its screen; refused, a page says why and leads back."""
    links = open_table(client)
    bron = player(client, links["bron"])
    screen = bron.get("/table").text
    forms = re.findall(r"<form [^>]*/table/command[^>]*>", screen)
    assert forms
    for form in forms:
        assert 'method="post" action="/table/command"' in form, form
    gm_forms = re.findall(r"<form [^>]*/table/command[^>]*>", client.get("/table").text)
    assert len(gm_forms) > len(forms)  # the GM's tools too
    for form in gm_forms:
        assert 'method="post" action="/table/command"' in form, form
    tap = {"command": "bron: end turn", "command_id": "plain"}
    done = bron.post("/table/command", data=tap, follow_redirects=False)
    assert (done.status_code, done.headers["location"]) == (303, "/table")
    refused = bron.post(
        "/table/command",
        data={"command": "gm: damage orc-brute 3", "command_id": "p2"},
        follow_redirects=False,
    )
    assert refused.status_code == 403
    beside = bron.post(
        "/table/command",
        data={"command": "gm: damage orc-brute 3", "command_id": "p3"},
        headers={"hx-request": "true"},
    )
    reason = re.findall(r'<span class="refusal" role="alert">(.+)</span>', beside.text)[0]
    shown = re.findall(r'<p class="refusal" role="alert">(.+)</p>', refused.text)[0]
    assert html.unescape(shown) == html.unescape(reason)
    assert "only the GM may give it" in html.unescape(shown)
    assert '<a href="/table">Back to the table</a>' in refused.text
    htmx = bron.post(
        "/table/command",
        data={"command": "bron: end turn", "command_id": "again"},
        headers={"hx-request": "true"},
    )  # htmx's post: the refusal beside the form, no page, answered 200 with its status in
    # a header (issue 22 item 8: a 4xx is a failed resource in the browser's console)
    assert (htmx.status_code, htmx.headers["x-caltrop-status"]) == (200, "422")
    assert htmx.text.startswith('<span class="refusal" role="alert">')
    assert commands(client) == ["bron: end turn"]
