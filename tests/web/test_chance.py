"""The live chance of winning on the sockets (issue 23 item 4): the GM's screen socket is sent
the panel after every command, worked out off the command path; a player's sockets are sent
nothing of it until the GM shows it (tested on every payload, not on the page); the switch is
the table's, kept in the database across a restart; a player cannot set it."""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from caltrop.web import Settings, create_app
from caltrop.web.seating import COOKIE
from tests.web.test_api import bearer, new_table, send

#: fights per answer here (the figure's precision is not what these tests are about)
N = 200
ORIGIN = {"Origin": "http://testserver"}


def chance_app(url: str) -> TestClient:
    return TestClient(
        create_app(
            Settings(database_url=url, base_url="http://testserver", chance=True, chance_n=N)
        )
    )


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'caltrop.db'}"


@pytest.fixture
def client(url: str) -> Iterator[TestClient]:
    with chance_app(url) as client:
        yield client


def cookie(token: str) -> dict[str, str]:
    return {"cookie": f"{COOKIE}={token}"}


def until(ws: WebSocketTestSession, found: str) -> list[str]:
    """Every message of a screen socket up to the first that holds ``found``."""
    got: list[str] = []
    while not got or found not in got[-1]:
        got.append(ws.receive_text())
    return got


def figure(panel: str) -> tuple[int, str]:
    """The seq a panel's figure is after, and the figure."""
    matched = re.search(r"PCs win ([\d.]+%)</strong>.*?after #(\d+)", panel, re.S)
    assert matched is not None, panel
    return int(matched[2]), matched[1]


def panel_after(ws: WebSocketTestSession, seq: int) -> str:
    """The first chance panel the screen socket is sent with the figure after event ``seq``."""
    while True:
        text = ws.receive_text()
        if 'id="chance"' in text and "PCs win" in text and figure(text)[0] == seq:
            return text


def show(client: TestClient, token: str, shown: bool) -> Any:
    return client.post(
        "/table/chance", data={"shown": "1"} if shown else {}, headers={**ORIGIN, **cookie(token)}
    )


def test_the_gm_is_sent_the_chance_after_each_command_and_a_player_nothing_until_shown(
    client: TestClient,
) -> None:
    table = new_table(client, "orc-bridge")
    gm, bron = table["gm"]["token"], table["players"]["bron"]["token"]
    with (
        client.websocket_connect("/ws/screen", headers=cookie(gm)) as gm_ws,
        client.websocket_connect("/ws/screen", headers=cookie(bron)) as bron_ws,
        client.websocket_connect("/ws", headers=bearer(bron)) as bron_json,
    ):
        bron_json.send_json({"hello": {"last_seq": -1, "chance": True}})
        start = panel_after(gm_ws, 0)
        assert "fights played on under tactical" in start
        assert 'class="line"' in start
        assert 'name="shown"' in start  # the GM's switch
        assert send(client, bron, "bron: strike orc-brute").status_code == 200
        after = panel_after(gm_ws, 1)
        assert figure(after) != figure(start) or after.count(",") > start.count(",")
        # the GM was told; the player's sockets would have been told at the same moment
        bron_json.send_text("nonsense")  # answered after whatever was queued for it
        payloads = [bron_json.receive_json()]
        while payloads[-1]["type"] != "error":
            payloads.append(bron_json.receive_json())
        assert "chance" not in {p["type"] for p in payloads}
        bron_ws.send_text("resync")
        screens = until(bron_ws, 'id="live"')
        assert not any('id="chance"' in s or "PCs win" in s for s in screens)

        assert show(client, bron, True).status_code == 403  # the GM's switch only
        assert show(client, gm, True).status_code == 200
        shown = panel_after(bron_ws, 1)
        assert figure(shown) == figure(panel_after(gm_ws, 1))
        assert 'name="shown"' not in shown  # a player has no switch
        told = bron_json.receive_json()
        while told["type"] != "chance":
            told = bron_json.receive_json()
        assert told["chance"]["now"]["seq"] == 1
        assert told["chance"]["shown"] is True
        assert 0 <= told["chance"]["now"]["lo"] <= told["chance"]["now"]["p"] <= 1

        assert show(client, gm, False).status_code == 200
        hidden = until(bron_ws, 'id="chance"')[-1]
        assert "hidden" in hidden
        assert "PCs win" not in hidden
        told = bron_json.receive_json()
        while told["type"] != "chance":
            told = bron_json.receive_json()
        assert told["chance"] is None
        assert send(client, gm, "gm: pass all").status_code == 200
        panel_after(gm_ws, 2)
        bron_json.send_text("nonsense")
        payloads = [bron_json.receive_json()]
        while payloads[-1]["type"] != "error":
            payloads.append(bron_json.receive_json())
        assert "chance" not in {p["type"] for p in payloads}


def test_a_json_socket_is_sent_the_chance_only_if_its_hello_asks(client: TestClient) -> None:
    table = new_table(client, "duel")
    gm = table["gm"]["token"]
    with (
        client.websocket_connect("/ws", headers=bearer(gm)) as plain,
        client.websocket_connect("/ws", headers=bearer(gm)) as asking,
    ):
        plain.send_json({"hello": {"last_seq": 0}})
        asking.send_json({"hello": {"last_seq": 0, "chance": True}})
        told = asking.receive_json()
        while told["type"] != "chance" or told["chance"]["now"] is None:
            told = asking.receive_json()
        assert told["chance"]["now"]["how"] == "start"
        assert told["chance"]["now"]["n"] == N
        assert plain.receive_json()["type"] == "view"
        plain.send_text("nonsense")
        assert plain.receive_json()["type"] == "error"  # nothing of the chance between


def test_the_switch_is_the_tables_and_outlives_a_restart(url: str) -> None:
    with chance_app(url) as client:
        table = new_table(client)
        gm = table["gm"]["token"]
        assert show(client, gm, True).status_code == 200
    with chance_app(url) as client:
        bron = table["players"]["bron"]["token"]
        with client.websocket_connect("/ws/screen", headers=cookie(bron)) as ws:
            assert figure(panel_after(ws, 0))[0] == 0
        assert show(client, gm, False).text.endswith("hidden from the players</span>")
        assert client.app.state.tables.repository.chance_shown(table["table_id"]) is False  # type: ignore[attr-defined]


def test_the_turning_points_are_labelled_with_their_events_as_the_log_says_them() -> None:
    """The panel's view model (web/chance.py): the figure now, the line in seq order, and the
    biggest swings, each named by the log's words for the event that made it."""
    from caltrop.content import load_encounter
    from caltrop.core.commands import parse_command
    from caltrop.encounter import Encounter
    from caltrop.table.log import log_entries
    from caltrop.web.chance import chance_view, labels_of, render_panel

    encounter = Encounter.begin(load_encounter("orc-bridge"), 3)
    for text in ("bron: strike orc-brute", "gm: pass all", "roll", "bron: end turn"):
        encounter.apply(parse_command(text))
    head = len(encounter.events) - 1
    ps = [0.6, 0.6, 0.62, 0.9, 0.85][: head + 1]
    answers = {s: {"p": p, "lo": p - 0.05, "hi": p + 0.05, "n": N} for s, p in enumerate(ps)}
    logged = {e["seq"]: e["text"] for e in log_entries(encounter, "gm")}
    labels = labels_of(encounter, list(range(1, head + 1)), {}, "gm")
    assert labels == {s: logged[s] for s in range(1, head + 1)}
    view = chance_view(answers, head, labels, shown=False)
    assert view["now"]["seq"] == head
    assert view["behind"] == 0
    assert [t["seq"] for t in view["turns"]] == [3, 4, 2]  # |+0.28|, |−0.05|, |+0.02|
    assert view["turns"][0]["text"] == logged[3]
    assert "rolls" in logged[3]
    panel = render_panel(view, gm=True)
    assert panel.count("<li>") == 3
    assert logged[3].replace("'", "&#39;").split(" → ")[0] in panel
    assert len(view["chart"]["line"].split()) == head + 1
    assert render_panel(view, gm=False).count('name="shown"') == 0
    assert "PCs win" not in render_panel(None, gm=False)


def test_the_worker_answers_from_the_log_as_the_sim_answers_from_the_state() -> None:
    """The worker process replays the log it is sent (only the events it lacks, after the
    first job) and answers as :func:`caltrop.sim.live.chance_at` does from the same state, on
    the seed of the table and the seq; a job whose earlier events it lacks is sent back."""
    from caltrop.content import encounter_to_dict, load_encounter
    from caltrop.core.commands import parse_command
    from caltrop.encounter import Encounter
    from caltrop.sim.live import chance_at, live_seed
    from caltrop.web import chance

    definition = load_encounter("orc-bridge")
    header = {"definition": encounter_to_dict(definition)}  # as a table's log has it
    encounter = Encounter.begin(definition, 4, header=header)
    states = [encounter.clone()]
    for text in ("bron: strike orc-brute", "gm: pass all", "roll"):
        encounter.apply(parse_command(text))
        states.append(encounter.clone())
    events = [dict(e) for e in encounter.events]
    key = ("table-x", 1)
    assert chance.point((key, 2, events[2:], 3, N)) == {"resend": True}  # it has none before
    first = chance.point((key, 0, events[:2], 1, N))
    assert first == chance_at(states[1], seed=live_seed("table-x", 1), n=N).as_dict()
    later = chance.point((key, 2, events[2:], 3, N))  # only the events it lacks
    assert later == chance_at(states[3], seed=live_seed("table-x", 3), n=N).as_dict()
    again = chance.point((key, 4, [], 2, N))  # an earlier seq: from the states it kept
    assert again == chance_at(states[2], seed=live_seed("table-x", 2), n=N).as_dict()
    assert first["n"] == N
    assert first["how"] == "resume"


def test_the_newest_event_is_answered_first_and_the_line_filled_in_after(url: str) -> None:
    """The newest event is answered first (the worker asks for the head's answer before any
    older one's): four commands in the log before the GM's screen opens, the first figure it is
    sent is after the last of them, it stays there, and the line's earlier points are filled in
    after it, back to the start."""
    with chance_app(url) as client:
        table = new_table(client, "orc-bridge")
        gm, bron = table["gm"]["token"], table["players"]["bron"]["token"]
        for text in ("gm: set bron load 1", "gm: set bron load 0", "gm: set aria load 1"):
            assert send(client, gm, text).status_code == 200
        assert send(client, bron, "bron: strike orc-brute").status_code == 200
        with client.websocket_connect("/ws/screen", headers=cookie(gm)) as ws:
            seen: list[int] = []
            points = 0
            while points < 5:
                text = ws.receive_text()
                if 'id="chance"' in text and "PCs win" in text:
                    seen.append(figure(text)[0])
                    line = re.search(r'class="line" points="([^"]*)"', text)
                    assert line is not None
                    points = len(line[1].split())
        assert seen[0] == 4  # the head first, whatever came before it
        assert seen == sorted(seen)
        assert set(seen) == {4}


def test_a_server_without_the_chance_shows_no_panel(url: str) -> None:
    with TestClient(create_app(Settings(database_url=url, base_url="http://testserver"))) as client:
        table = new_table(client)
        page = client.get("/table", headers=cookie(table["gm"]["token"])).text
        assert '<div id="chance" hidden></div>' in page
        assert "Chance of winning" not in page
        with client.websocket_connect("/ws/screen", headers=cookie(table["gm"]["token"])) as ws:
            assert 'id="chance"' not in ws.receive_text()


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    out.append(int(entry.name))
    return out


def test_the_worker_process_goes_with_a_killed_server(tmp_path: Path) -> None:
    """``caltrop serve`` starts its worker process at once (the chance is on by default); a
    server killed outright (no shutdown runs) does not leave it behind."""
    from tests.web.test_serve import Server

    server = Server(f"sqlite:///{tmp_path / 'c.db'}", tmp_path)
    deadline = time.monotonic() + 30
    while not (workers := _children(server.process.pid)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert workers, "no worker process"
    server.process.kill()
    server.process.wait(timeout=10)
    deadline = time.monotonic() + 15
    while any(Path(f"/proc/{w}").exists() for w in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(Path(f"/proc/{w}").exists() for w in workers)
