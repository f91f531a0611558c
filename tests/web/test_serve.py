"""``caltrop serve`` as a real process, killed with SIGKILL under load and restarted (issue 11:
"A crash at any point loses no acknowledged command and never half-applies one")."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

import caltrop
from caltrop.content import encounter_from_dict
from caltrop.encounter import Encounter

SRC = str(Path(caltrop.__file__).resolve().parents[1])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(
        self,
        url: str,
        tmp_path: Path,
        encounter: str | None = "orc-bridge",
        extra: tuple[str, ...] = (),
    ) -> None:
        self.port = free_port()
        env = {**os.environ, "PYTHONPATH": SRC, "XDG_DATA_HOME": str(tmp_path / "data")}
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from caltrop.cli import main; main()",
                "serve",
                "--db",
                url,
                "--port",
                str(self.port),
                *(["--encounter", encounter] if encounter else []),
                *extra,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self.process.stdout is not None
        self.lines = [self.process.stdout.readline() for _ in range(2)]
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{self.base}/docs", timeout=1)
                break
            except httpx.TransportError:
                assert self.process.poll() is None, (
                    self.process.stderr.read() if self.process.stderr else ""
                )
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()


def test_serve_prints_the_url_and_the_gm_link(database_url: str, tmp_path: Path) -> None:
    server = Server(database_url, tmp_path)
    try:
        assert server.lines[0].startswith(f"Caltrop table server on {server.base}")
        gm_link = server.lines[1].split(": ", 1)[1].strip()
        assert gm_link.startswith(f"{server.base}/join/")
        joined = httpx.get(gm_link)
        assert joined.json()["role"] == "gm"
    finally:
        server.stop()


def test_serve_with_no_encounter_points_at_its_home_page(database_url: str, tmp_path: Path) -> None:
    """The README's main command: ``caltrop serve`` prints the address to open, where a GM opens
    a table of one of the examples the database was given on its first start."""
    server = Server(database_url, tmp_path, encounter=None)
    try:
        assert server.lines[1].strip() == (
            f"Open {server.base}/ to start a table: the GM's screen gives each player a link"
        )
        library = httpx.get(f"{server.base}/api/library").json()
        assert "goblin-ambush" in {entry["name"] for entry in library}
    finally:
        server.stop()


def test_sigkill_under_load_loses_no_acknowledged_command(
    database_url: str, tmp_path: Path
) -> None:
    server = Server(database_url, tmp_path)
    token = server.lines[1].rsplit("/join/", 1)[1].strip()
    headers = {"Authorization": f"Bearer {token}"}
    acked: dict[str, int] = {}
    sent: dict[str, str] = {}
    lock = threading.Lock()
    stop = threading.Event()

    def load(k: int) -> None:
        with httpx.Client(base_url=server.base, headers=headers, timeout=5) as client:
            n = 0
            while not stop.is_set():
                command_id = f"{k}-{n}-{uuid.uuid4().hex[:8]}"
                command = ["gm: damage orc-brute 1", "gm: heal orc-brute 1"][n % 2]
                n += 1
                try:
                    got = client.post(
                        "/api/commands", json={"command": command, "command_id": command_id}
                    )
                except httpx.TransportError:
                    return  # the server is gone: this command was never acknowledged
                if got.status_code == 200:
                    with lock:
                        acked[command_id] = int(got.json()["seq"])
                        sent[command_id] = command

    threads = [threading.Thread(target=load, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    time.sleep(1.5)
    server.kill()
    stop.set()
    for t in threads:
        t.join()
    assert len(acked) > 5
    restarted = Server(database_url, tmp_path)
    try:
        with httpx.Client(base_url=restarted.base, headers=headers, timeout=10) as client:
            log = [json.loads(line) for line in client.get("/api/log").text.splitlines()]
            assert [e.get("n", 0) for e in log] == list(range(len(log)))  # no gap, no duplicate
            assert sorted(acked.values()) == sorted(set(acked.values()))
            assert max(acked.values()) <= len(log) - 1
            for command_id, seq in acked.items():  # each one in the log, answered once
                again = client.post(
                    "/api/commands", json={"command": sent[command_id], "command_id": command_id}
                )
                assert again.status_code == 200
                assert again.json()["seq"] == seq
                assert log[seq]["command"] == sent[command_id]
            assert len(client.get("/api/log").text.splitlines()) == len(log)
            replayed = Encounter.replay(encounter_from_dict(log[0]["header"]["definition"]), log)
            shown: dict[str, Any] = client.get("/api/view").json()
            health = {c["id"]: c["health"] for c in shown["creatures"]}
            assert health == {c.id: replayed.health[i] for i, c in enumerate(replayed.creatures)}
            assert shown["seq"] == len(log) - 1
    finally:
        restarted.stop()


def test_serve_refuses_a_bad_encounter_or_database_in_one_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from caltrop.cli import app

    runner = CliRunner()
    db = f"sqlite:///{tmp_path / 'x.db'}"
    wrong = runner.invoke(app, ["serve", "--db", db, "--encounter", "nowhere"])
    assert wrong.exit_code == 2
    assert "nowhere" in wrong.output
    assert "Traceback" not in wrong.output
    bad = runner.invoke(app, ["serve", "--db", "nosuchdialect://x"])
    assert bad.exit_code == 2
    assert "cannot open the database" in bad.output
    assert "Traceback" not in bad.output


def test_behind_a_tls_proxy_the_seat_cookie_is_secure_only_from_the_named_proxy(
    tmp_path: Path,
) -> None:
    """Issue 20 §3: "``Secure`` cookies when served over HTTPS (``--forwarded-allow-ips`` /
    proxy headers documented for running behind a TLS proxy)". A proxy's ``X-Forwarded-Proto:
    https`` is believed from the address named, and from nobody without the option."""
    url = f"sqlite:///{tmp_path / 'c.db'}"
    for extra, secure in ((("--forwarded-allow-ips", "127.0.0.1"), True), ((), False)):
        server = Server(url, tmp_path, extra=extra)
        try:
            link = server.lines[1].split(": ", 1)[1].strip()
            joined = httpx.get(link, headers={"X-Forwarded-Proto": "https"})
            cookie = joined.headers["set-cookie"]
            assert cookie.startswith("caltrop_seat=")
            assert ("secure" in cookie.lower()) is secure, (extra, cookie)
            plain = httpx.get(link).headers["set-cookie"]
            assert "secure" not in plain.lower()  # served over http: never Secure
        finally:
            server.stop()
