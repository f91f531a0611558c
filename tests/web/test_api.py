"""The table server's API and sockets (issue 11, "The command path", "Who may do what",
"What every screen receives")."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient

from caltrop.content import encounter_from_dict
from caltrop.encounter import Encounter
from tests.table.test_view import HIDDEN_BY_DEFAULT, dicts


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_table(client: TestClient, encounter: str = "orc-bridge") -> dict[str, Any]:
    response = client.post("/api/tables", json={"encounter": encounter, "seed": 3})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def send(
    client: TestClient, token: str, command: str, command_id: str | None = None, **extra: Any
) -> Any:
    body = {"command": command, "command_id": command_id or uuid.uuid4().hex, **extra}
    return client.post("/api/commands", json=body, headers=bearer(token))


def test_a_table_gives_a_gm_link_and_one_per_player(client: TestClient) -> None:
    table = new_table(client)
    assert set(table["players"]) == {"bron", "aria"}
    assert table["gm"]["link"] == f"http://testserver/join/{table['gm']['token']}"
    joined = client.get(f"/join/{table['players']['aria']['token']}")
    assert joined.json()["creature"] == "aria"
    cookie = joined.headers["set-cookie"].lower()
    assert "httponly" in cookie
    assert "samesite=strict" in cookie
    # the cookie now names the seat without a header
    assert client.get("/api/view").json()["viewer"] == "aria"
    client.cookies.clear()


def test_a_played_encounter_over_http(client: TestClient) -> None:
    table = new_table(client)
    gm, bron = table["gm"]["token"], table["players"]["bron"]["token"]
    first = send(client, bron, "bron: strike orc-brute", "c1", expected_seq=0)
    assert first.status_code == 200, first.text
    assert first.json()["seq"] == 1
    assert "seat" not in first.json()
    assert send(client, gm, "gm: pass all", "c2").status_code == 200
    rolled = send(client, gm, "roll", "c3").json()
    assert rolled["outcomes"][0]["roller"] == "bron"
    # the GM's export replays to the state the server shows
    log = client.get("/api/log", headers=bearer(gm))
    events = [json.loads(line) for line in log.text.splitlines()]
    replayed = Encounter.replay(encounter_from_dict(events[0]["header"]["definition"]), events)
    assert len(replayed.commands) == rolled["seq"]
    shown = client.get("/api/view", headers=bearer(gm)).json()
    assert shown["seq"] == rolled["seq"]
    health = {c["id"]: c["health"] for c in shown["creatures"]}
    assert health == {c.id: replayed.health[i] for i, c in enumerate(replayed.creatures)}
    assert client.get("/api/log", headers=bearer(bron)).status_code == 403


def test_retry_stale_and_refused(client: TestClient) -> None:
    table = new_table(client)
    bron, aria = table["players"]["bron"]["token"], table["players"]["aria"]["token"]
    first = send(client, bron, "bron: strike orc-brute", "same")
    again = send(client, bron, "bron: strike orc-brute", "same")
    assert again.status_code == 200
    assert again.json() == first.json()
    stale = send(client, bron, "bron: end turn", expected_seq=0)
    assert stale.status_code == 409
    assert stale.json()["head"] == 1
    other = send(client, aria, "bron: end turn")
    assert other.status_code == 403
    assert "plays aria" in other.json()["detail"]
    gm_only = send(client, aria, "gm: damage orc-brute 9")
    assert gm_only.status_code == 403
    illegal = send(client, bron, "bron: fly")
    assert illegal.status_code == 422
    assert "fly" in illegal.json()["detail"]
    events = client.get("/api/events", headers=bearer(bron)).json()["events"]
    assert [e["seq"] for e in events] == [0, 1]


@pytest.mark.parametrize(
    ("headers", "body", "status"),
    [
        ({"Authorization": "Bearer wrong"}, {"command": "roll", "command_id": "x"}, 401),
        ({"Authorization": "Basic abc"}, {"command": "roll", "command_id": "x"}, 401),
        ({}, {"command": "roll", "command_id": "x"}, 401),
        (None, {"command": "roll"}, 422),
        (None, {"command": "roll", "command_id": ""}, 422),
        (None, {"command": "x" * 3000, "command_id": "y"}, 422),
        (None, {"command": "roll", "command_id": "z", "extra": 1}, 422),
        (None, {"command": "roll\x00", "command_id": "z"}, 422),
    ],
)
def test_bad_input_is_a_clear_4xx(
    client: TestClient, headers: dict[str, str] | None, body: dict[str, Any], status: int
) -> None:
    table = new_table(client)
    got = client.post(
        "/api/commands",
        json=body,
        headers=bearer(table["gm"]["token"]) if headers is None else headers,
    )
    assert got.status_code == status, got.text
    assert got.json()["detail"]
    assert (
        client.get("/api/events", headers=bearer(table["gm"]["token"])).json()["events"][-1]["seq"]
        == 0
    )


def test_malformed_json_and_unknown_encounter(client: TestClient) -> None:
    assert client.post("/api/tables", json={"encounter": "nowhere"}).status_code == 422
    table = new_table(client)
    got = client.post(
        "/api/commands",
        content=b"{not json",
        headers={**bearer(table["gm"]["token"]), "Content-Type": "application/json"},
    )
    assert got.status_code == 422


def test_the_gm_sets_what_players_see(client: TestClient) -> None:
    """Issue 11: "the GM decides per creature what players see of NPCs"."""
    table = new_table(client)
    gm, aria = table["gm"]["token"], table["players"]["aria"]["token"]
    shown = {"orc-brute": {"health": "exact"}, "goblin-archer": {"health": "hidden"}}
    assert client.put("/api/visibility", json=shown, headers=bearer(aria)).status_code == 403
    assert client.put("/api/visibility", json=shown, headers=bearer(gm)).status_code == 204
    seen = {c["id"]: c for c in client.get("/api/view", headers=bearer(aria)).json()["creatures"]}
    gm_seen = {c["id"]: c for c in client.get("/api/view", headers=bearer(gm)).json()["creatures"]}
    assert seen["orc-brute"]["health"] == gm_seen["orc-brute"]["health"]
    assert "aspects" not in seen["orc-brute"]
    assert "health_label" not in seen["goblin-archer"]
    bad = client.put("/api/visibility", json={"aria": {"health": "exact"}}, headers=bearer(gm))
    assert bad.status_code == 422
    wrong = client.put(
        "/api/visibility", json={"orc-brute": {"health": "some"}}, headers=bearer(gm)
    )
    assert wrong.status_code == 422


def receive_until_view(ws: Any) -> list[dict[str, Any]]:
    """Messages up to and including the next view."""
    got: list[dict[str, Any]] = []
    while True:
        message = ws.receive_json()
        got.append(message)
        if message["type"] == "view":
            return got


def test_a_socket_gets_what_it_missed_then_every_command(client: TestClient) -> None:
    """Issue 11: "the client's hello {last_seq}; the server subscribes it first, then sends
    exactly the events it missed (as that viewer may see them) or a fresh view"; events carry
    their seq; a player's payloads never hold a hidden NPC field."""
    table = new_table(client, "goblin-ambush")
    gm = table["gm"]["token"]
    aria = table["players"]["aria"]["token"]
    npcs = {"goblin-archer", "goblin-1", "goblin-2", "hobgoblin-captain", "goblin-9"}
    send(client, gm, "gm: add goblin as goblin-9")
    payloads: list[dict[str, Any]] = []
    with client.websocket_connect("/ws", headers=bearer(aria)) as ws:
        ws.send_json({"hello": {"last_seq": 0}})
        first = receive_until_view(ws)
        payloads += first
        assert first[0]["type"] == "events"
        assert [e["seq"] for e in first[0]["events"]] == [1]
        assert first[0]["events"][0]["event"]["command"] == "gm: add goblin as goblin-9"
        assert "creature" not in first[0]["events"][0]["event"]
        assert first[-1]["view"]["seq"] == 1
        seq = 1
        for _ in range(12):
            view = client.get("/api/view", headers=bearer(gm)).json()
            options = [o for opts in view["options"].values() for o in opts if o["legal"]]
            if not options:
                break
            answer = send(client, gm, options[0]["command"])
            assert answer.status_code == 200, answer.text
            got = receive_until_view(ws)
            payloads += got
            seqs = [e["seq"] for m in got if m["type"] == "events" for e in m["events"]]
            assert seqs == list(range(seq + 1, answer.json()["seq"] + 1))
            seq = answer.json()["seq"]
            assert got[-1]["view"]["seq"] == seq
    for payload in payloads:
        for obj in dicts(payload):
            if obj.get("id") in npcs and "side" in obj:
                assert HIDDEN_BY_DEFAULT.isdisjoint(obj), obj
            assert "header" not in obj
            assert "creature" not in obj


def test_a_hello_from_the_head_gets_only_a_view(client: TestClient) -> None:
    table = new_table(client)
    with client.websocket_connect("/ws", headers=bearer(table["gm"]["token"])) as ws:
        ws.send_json({"hello": {"last_seq": 0}})
        assert [m["type"] for m in receive_until_view(ws)] == ["view"]
        ws.send_text("nonsense")
        assert ws.receive_json()["type"] == "error"


def test_sockets_check_the_seat_and_the_origin(client: TestClient) -> None:
    from starlette.websockets import WebSocketDisconnect

    table = new_table(client)
    with pytest.raises(WebSocketDisconnect) as no_seat, client.websocket_connect("/ws") as ws:
        ws.receive_json()
    assert no_seat.value.code == 1008
    headers = {**bearer(table["gm"]["token"]), "Origin": "http://evil.example"}
    with (
        pytest.raises(WebSocketDisconnect) as cross,
        client.websocket_connect("/ws", headers=headers) as ws,
    ):
        ws.receive_json()
    assert cross.value.code == 1008


def play_some(client: TestClient, gm: str, count: int) -> None:
    """The GM plays ``count`` legal commands (standing in for the players)."""
    for _ in range(count):
        view = client.get("/api/view", headers=bearer(gm)).json()
        if view["current"] == "terminal":
            return
        actor = "gm" if view["current"] == "chance" else view["current"]
        options = view["options"].get(actor)
        if options is None:  # a PC decides: the GM stands in (caltrop.table.rights)
            command = f"{actor}: pass" if view["pending"] else f"{actor}: end turn"
        else:
            command = next(o["command"] for o in options if o["legal"])
        assert send(client, gm, command).status_code == 200


def test_export_replays_with_caltrop_replay_and_imports(client: TestClient, tmp_path: Any) -> None:
    """Issue 11: "the log stays replayable by caltrop replay (export) and importable (a JSONL
    upload starts a table from it)"."""
    from typer.testing import CliRunner

    from caltrop.cli import app

    table = new_table(client)
    gm = table["gm"]["token"]
    play_some(client, gm, 8)
    exported = client.get("/api/log", headers=bearer(gm)).text
    path = tmp_path / "night.jsonl"
    path.write_text(exported)
    replayed = CliRunner().invoke(app, ["replay", str(path), "--json"])
    assert replayed.exit_code == 0, replayed.output
    final = json.loads(replayed.stdout)
    shown = client.get("/api/view", headers=bearer(gm)).json()
    assert final["commands"] == shown["seq"]
    assert {p["id"]: p["health"] for p in final["participants"]} == {
        c["id"]: c["health"] for c in shown["creatures"]
    }
    imported = client.post("/api/tables/import", content=exported.encode())
    assert imported.status_code == 201, imported.text
    new_gm = imported.json()["gm"]["token"]
    again = client.get("/api/view", headers=bearer(new_gm)).json()
    assert again["seq"] == shown["seq"]
    assert again["creatures"] == shown["creatures"]
    assert send(client, new_gm, "gm: damage orc-brute 1").json()["seq"] == shown["seq"] + 1


@pytest.mark.parametrize(
    ("payload", "words"),
    [
        (b"", "no event"),
        (b"{not json\n", "line 1"),
        (b'{"event": "command", "n": 1, "command": "roll"}\n', "begin"),
        (b"\x00\x01", "binary"),
    ],
)
def test_a_bad_upload_is_refused_in_words(client: TestClient, payload: bytes, words: str) -> None:
    got = client.post("/api/tables/import", content=payload)
    assert got.status_code == 422, got.text
    assert words in got.json()["detail"]
    assert "/tmp" not in got.json()["detail"]


def test_an_edited_log_does_not_import(client: TestClient) -> None:
    table = new_table(client)
    gm = table["gm"]["token"]
    send(client, table["players"]["bron"]["token"], "bron: strike orc-brute")
    send(client, gm, "gm: pass all")
    send(client, gm, "roll")
    lines = client.get("/api/log", headers=bearer(gm)).text.splitlines()
    event = json.loads(lines[-1])
    event["roll"]["total"] += 1
    lines[-1] = json.dumps(event)
    got = client.post("/api/tables/import", content="\n".join(lines).encode())
    assert got.status_code == 422
    assert "does not replay" in got.json()["detail"]


def test_an_oversized_upload_is_refused_before_it_is_read(client: TestClient) -> None:
    from caltrop.content.logfile import MAX_LOG_BYTES

    got = client.post(
        "/api/tables/import",
        content=b"x",
        headers={"Content-Length": str(MAX_LOG_BYTES + 1)},
    )
    assert got.status_code == 413


def test_the_gm_revokes_and_reissues_a_seat(client: TestClient) -> None:
    """Issue 11: "the GM can revoke and reissue a seat"."""
    from starlette.websockets import WebSocketDisconnect

    table = new_table(client)
    gm, old = table["gm"]["token"], table["players"]["aria"]["token"]
    assert client.post("/api/seats/aria/reissue", headers=bearer(old)).status_code == 403
    assert client.post("/api/seats/orc-brute/reissue", headers=bearer(gm)).status_code == 422
    with client.websocket_connect("/ws", headers=bearer(old)) as ws:
        ws.send_json({"hello": {"last_seq": 0}})
        receive_until_view(ws)
        issued = client.post("/api/seats/aria/reissue", headers=bearer(gm))
        assert issued.status_code == 200
        assert ws.receive_json()["type"] == "revoked"
        with pytest.raises(WebSocketDisconnect):
            ws.receive_json()
    new = issued.json()["token"]
    assert issued.json()["link"].endswith(new)
    assert client.get("/api/view", headers=bearer(old)).status_code == 401
    assert client.get("/api/view", headers=bearer(new)).json()["viewer"] == "aria"


def test_a_night_goes_on_to_the_next_encounter(client: TestClient) -> None:
    table = new_table(client)
    gm, bron = table["gm"]["token"], table["players"]["bron"]["token"]
    send(client, gm, "gm: damage bron 6")
    body = {"encounter": "goblin-ambush", "seed": 1}
    assert client.post("/api/encounters", json=body, headers=bearer(bron)).status_code == 403
    bad = client.post("/api/encounters", json={**body, "reset": ["luck"]}, headers=bearer(gm))
    assert bad.status_code == 422
    with client.websocket_connect("/ws", headers=bearer(bron)) as ws:
        ws.send_json({"hello": {"last_seq": 1}})
        receive_until_view(ws)
        started = client.post("/api/encounters", json=body, headers=bearer(gm))
        assert started.status_code == 201, started.text
        assert set(started.json()["players"]) == {"cass", "dain"}  # bron and aria keep theirs
        got = receive_until_view(ws)
        assert got[0]["type"] == "encounter"
        assert got[-1]["view"]["encounter"] == "Goblin Ambush"
        assert got[-1]["view"]["seq"] == 0
    seen = {c["id"]: c for c in client.get("/api/view", headers=bearer(bron)).json()["creatures"]}
    assert seen["bron"]["health"] == 14
    cass = started.json()["players"]["cass"]["token"]
    assert client.get("/api/view", headers=bearer(cass)).json()["viewer"] == "cass"


def test_the_gm_undoes_as_an_event_and_a_player_may_not(client: TestClient) -> None:
    """Issue 11: "Undo is an event too: history is never deleted, and the log stays replayable";
    "GM commands (undo, …) are refused to players with 403 and a reason; nothing changes"."""
    table = new_table(client)
    gm, bron = table["gm"]["token"], table["players"]["bron"]["token"]
    before = client.get("/api/view", headers=bearer(gm)).json()
    assert send(client, bron, "bron: strike orc-brute").status_code == 200
    refused = send(client, bron, "gm: undo")
    assert refused.status_code == 403
    assert "GM command" in refused.json()["detail"]
    undone = send(client, gm, "gm: undo")
    assert undone.status_code == 200, undone.text
    assert undone.json()["seq"] == 2  # appended after the command it takes back
    after = client.get("/api/view", headers=bearer(gm)).json()
    assert after["seq"] == 2
    assert after["creatures"] == before["creatures"]
    assert after["current"] == before["current"]
    assert after["pending"] is None
    lines = client.get("/api/log", headers=bearer(gm)).text.splitlines()
    assert [json.loads(line).get("command") for line in lines[1:]] == [
        "bron: strike orc-brute",
        "gm: undo",
    ]
    events = [json.loads(line) for line in lines]
    replayed = Encounter.replay(encounter_from_dict(events[0]["header"]["definition"]), events)
    assert replayed.commands == ()
    assert send(client, gm, "gm: undo").status_code == 422  # nothing left to undo
