"""The browser tests (issue 12): the real server (uvicorn on a free port, a temporary SQLite
file) in a subprocess, driven by Playwright through Debian's Chromium (Playwright cannot
download a browser here; ``.ci/run`` installs ``chromium``)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import caltrop

SRC = str(Path(caltrop.__file__).resolve().parents[1])
CHROMIUM = "/usr/bin/chromium"
#: the screenshots a reviewer looks at (build/ is ignored by git)
SCREENSHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
SERVE = """
import sys, uvicorn
from caltrop.web import Settings, create_app
port = int(sys.argv[2])
# every journey opens its tables from 127.0.0.1: the per-address bucket (tested in
# tests/web/test_limits.py) would refuse the session's 21st within a minute
app = create_app(Settings(
    database_url=sys.argv[1], base_url=f"http://127.0.0.1:{port}",
    new_tables_burst=0, new_tables_per_minute=0,
))
uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", ws_ping_interval=5)
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(folder: Path, script: str = SERVE) -> Iterator[str]:
    """Run ``script`` (a uvicorn app on argv's database and port) on a temporary SQLite file in
    ``folder`` until the generator is closed; yields its base URL once it answers."""
    port = _free_port()
    url = f"sqlite:///{folder / 'tables.db'}"
    env = {**os.environ, "PYTHONPATH": SRC, "XDG_DATA_HOME": str(folder / "data")}
    log = (folder / "server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-c", script, url, str(port)], stdout=log, stderr=log, env=env
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(f"{base}/", timeout=1)
            break
        except httpx.TransportError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail("the server did not start: " + (folder / "server.log").read_text())
            time.sleep(0.1)
    yield base
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The table server's base URL; stopped after the session."""
    yield from serve(tmp_path_factory.mktemp("server"))


@pytest.fixture(scope="session")
def browser_type_launch_args() -> dict[str, Any]:
    """pytest-playwright's launch: Debian's Chromium, headless, nothing fetched from outside."""
    assert Path(CHROMIUM).exists(), "install Debian's chromium (apt-get install chromium)"
    return {
        "executable_path": CHROMIUM,
        "headless": True,
        "args": [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    }


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
