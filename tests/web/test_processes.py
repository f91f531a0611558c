"""Several ``caltrop serve`` processes on one database (issue 11, "Past one machine"): "a
command sent to one is received on a socket of the other, and concurrent commands through both
leave one gapless log". On PostgreSQL the push is LISTEN/NOTIFY; on SQLite (one machine, one
file) each process looks at the heads of the tables it has sockets for twice a second.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_ws import WebSocketSession, connect_ws

from tests.store.databases import BACKENDS, fresh_url
from tests.web.test_serve import Server


def _events_until(ws: WebSocketSession, seq: int, timeout: float = 10.0) -> list[dict[str, Any]]:
    """The events the socket receives until one with ``seq`` arrives (fails after timeout)."""
    got: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"no event {seq} within {timeout} s; got {[e['seq'] for e in got]}"
        message = ws.receive_json(timeout=left)
        if message["type"] == "events":
            got += message["events"]
            if any(e["seq"] == seq for e in got):
                return got


@pytest.fixture
def two(database_url: str, tmp_path: Path) -> Iterator[tuple[Server, Server, dict[str, str]]]:
    """Two ``caltrop serve`` processes on one database, and the GM headers of the first's
    table."""
    first = Server(database_url, tmp_path)
    second = Server(database_url, tmp_path)
    token = first.lines[1].rsplit("/join/", 1)[1].strip()
    try:
        yield first, second, {"Authorization": f"Bearer {token}"}
    finally:
        first.stop()
        second.stop()


def test_a_command_to_one_process_reaches_a_socket_of_the_other(
    two: tuple[Server, Server, dict[str, str]],
) -> None:
    first, second, headers = two
    with (
        httpx.Client(base_url=first.base, headers=headers, timeout=10) as poster,
        httpx.Client(base_url=second.base, headers=headers, timeout=10) as client,
        connect_ws(f"{second.base}/ws", client) as ws,
    ):
        ws.send_text(json.dumps({"hello": {"last_seq": 0}}))
        assert ws.receive_json(timeout=10)["type"] == "view"
        sent = poster.post(
            "/api/commands",
            json={"command": "gm: damage orc-brute 1", "command_id": "far-1"},
        )
        assert sent.status_code == 200, sent.text
        got = _events_until(ws, sent.json()["seq"])
        assert got[-1]["event"]["command"] == "gm: damage orc-brute 1"
        view = ws.receive_json(timeout=10)
        assert view["type"] == "view"
        assert view["view"]["seq"] == sent.json()["seq"]


def test_concurrent_commands_through_two_processes_leave_one_gapless_log(
    two: tuple[Server, Server, dict[str, str]],
) -> None:
    first, second, headers = two
    acked: list[int] = []
    lock = threading.Lock()

    def load(base: str, k: int) -> None:
        with httpx.Client(base_url=base, headers=headers, timeout=20) as client:
            for n in range(12):
                command = ["gm: damage orc-brute 1", "gm: heal orc-brute 1"][n % 2]
                body = {"command": command, "command_id": f"{k}-{n}-{uuid.uuid4().hex[:6]}"}
                got = client.post("/api/commands", json=body)
                assert got.status_code == 200, got.text
                with lock:
                    acked.append(int(got.json()["seq"]))

    threads = [
        threading.Thread(target=load, args=(server.base, k))
        for k, server in enumerate([first, second, first, second])
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(acked) == list(range(1, 49))  # every answer a different seq, no gap
    for server in (first, second):
        lines = httpx.get(f"{server.base}/api/log", headers=headers).text.splitlines()
        log = [json.loads(line) for line in lines]
        assert [e.get("n", 0) for e in log] == list(range(49))
        view = httpx.get(f"{server.base}/api/view", headers=headers).json()
        assert view["seq"] == 48


@pytest.mark.parametrize("backend", [b for b in BACKENDS if b == "postgresql"])
def test_a_seat_revoked_through_one_process_loses_its_socket_on_the_other(
    backend: str, tmp_path: Path
) -> None:
    """Issue 11: "the GM can revoke and reissue a seat" — also when the revoked player's phone
    is connected to another process: PostgreSQL notifies it (kind "seats") and that process
    sends the revoked message and closes the socket (1008)."""
    url = fresh_url(backend, tmp_path)
    first, second = Server(url, tmp_path), Server(url, tmp_path)
    try:
        gm = {"Authorization": f"Bearer {first.lines[1].rsplit('/join/', 1)[1].strip()}"}
        with httpx.Client(base_url=first.base, headers=gm, timeout=10) as poster:
            issued = poster.post("/api/seats/bron/reissue")
            assert issued.status_code == 200, issued.text
            bron = {"Authorization": f"Bearer {issued.json()['token']}"}
            with (
                httpx.Client(base_url=second.base, headers=bron, timeout=10) as client,
                connect_ws(f"{second.base}/ws", client) as ws,
            ):
                ws.send_text(json.dumps({"hello": {"last_seq": 0}}))
                assert ws.receive_json(timeout=10)["type"] == "view"
                again = poster.post("/api/seats/bron/reissue")  # through the *first* process
                assert again.status_code == 200, again.text
                deadline = time.monotonic() + 10
                while True:
                    message = ws.receive_json(timeout=max(0.1, deadline - time.monotonic()))
                    if message["type"] == "revoked":
                        break
                    assert time.monotonic() < deadline, "the revoked socket stayed open"
                assert "revoked" in message["detail"]
            # the old token is refused by the second process too, at once (its cache forgot it)
            with httpx.Client(base_url=second.base, headers=bron, timeout=10) as late:
                assert late.get("/api/view").status_code == 401
    finally:
        first.stop()
        second.stop()
