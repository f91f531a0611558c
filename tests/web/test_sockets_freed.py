"""Issue 20 §2, "Memory comes back": "2,000 sockets opened then closed leave RSS near where it
started". What a socket holds is its subscription in the hub (its seat and its queue); every
way a socket ends — the client closes, the server closes it (a revoked seat), a page socket
closes — leaves the hub holding nothing of it. The RSS of 2,000 real sockets is measured by
``benchmarks/limits.py``."""

from __future__ import annotations

import contextlib
from typing import Any

from fastapi.testclient import TestClient

from caltrop.web.seating import COOKIE
from tests.web.test_api import bearer, new_table, send


def _hub(client: TestClient) -> Any:
    """The app's hub of sockets (whichever module it lives in: it has ``subscribers`` and
    ``tables``)."""
    return client.app.state.hub  # type: ignore[attr-defined]


def test_closed_sockets_leave_no_subscriber(client: TestClient) -> None:
    tables = [new_table(client) for _ in range(4)]
    tokens = [t["gm"]["token"] for t in tables] + [
        s["token"] for t in tables for s in t["players"].values()
    ]
    for _ in range(25):  # 25 rounds of 12 sockets open together: 300 sockets
        with contextlib.ExitStack() as stack:
            sockets = [
                stack.enter_context(client.websocket_connect("/ws", headers=bearer(token)))
                for token in tokens
            ]
            for ws in sockets:
                ws.send_json({"hello": {"last_seq": -1}})
                assert ws.receive_json()["type"] == "events"
                assert ws.receive_json()["type"] == "view"
            assert sum(len(_hub(client).subscribers(t["table_id"])) for t in tables) == 12
        assert _hub(client).tables() == []
    # the tables still play, and a socket opened now hears of a command
    gm = tables[0]["gm"]["token"]
    with client.websocket_connect("/ws", headers=bearer(gm)) as ws:
        ws.send_json({"hello": {"last_seq": -1}})
        ws.receive_json(), ws.receive_json()
        bron = tables[0]["players"]["bron"]["token"]
        assert send(client, bron, "bron: strike orc-brute").status_code == 200
        assert ws.receive_json()["type"] == "events"
    assert _hub(client).tables() == []


def test_a_socket_the_server_closes_leaves_no_subscriber(client: TestClient) -> None:
    table = new_table(client)
    gm, bron = table["gm"]["token"], table["players"]["bron"]["token"]
    with client.websocket_connect("/ws", headers=bearer(bron)) as ws:
        ws.send_json({"hello": {"last_seq": -1}})
        ws.receive_json(), ws.receive_json()
        assert client.post("/api/seats/bron/reissue", headers=bearer(gm)).status_code == 200
        assert ws.receive_json()["type"] == "revoked"
    assert _hub(client).tables() == []


def test_a_closed_page_socket_leaves_no_subscriber(client: TestClient) -> None:
    table = new_table(client)
    client.cookies.set(COOKIE, table["gm"]["token"])
    for _ in range(20):
        with client.websocket_connect("/ws/screen") as ws:
            assert "id=" in ws.receive_text()
            assert len(_hub(client).subscribers(table["table_id"])) == 1
    client.cookies.clear()
    assert _hub(client).tables() == []
