"""Issue 20 §2, "Memory comes back": "encounters cached in memory are evicted when idle (LRU with
a bound, then re-read from the database — tested: 2,000 tables created, RSS back under a bound
after eviction); 2,000 sockets opened then closed leave RSS near where it started".

Against a real ``caltrop serve`` (its collector settings, uvicorn's WebSocket protocol with
permessage-deflate), reading the server's RSS from ``/proc``. The bounds are relative to what
the same server measured itself, so they hold on a slower or a busier machine; nothing here
times anything. What today's server did: each round of 200 sockets left about 10 MB more
resident (cyclic garbage waiting for a young-generation pass, then freed memory kept in glibc's
heap — :mod:`caltrop.web.memory`), and every table opened stayed in memory for ever.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets

from caltrop.store.service import MAX_CACHED_ENCOUNTERS
from caltrop.web.memory import FULL_PASS_SOCKETS, TRIM_SECONDS, Trimmer
from tests.web.test_serve import SRC, free_port

MB = 2**20


class Server:
    def __init__(self, folder: Path) -> None:
        port = free_port()
        self.base = f"http://127.0.0.1:{port}"
        env = {**os.environ, "PYTHONPATH": SRC, "XDG_DATA_HOME": str(folder / "data")}
        args = ["serve", "--db", f"sqlite:///{folder / 'm.db'}", "--port", str(port)]
        args += ["--new-tables-burst", "0", "--new-tables-per-minute", "0"]
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from caltrop.cli import main; main()", *args],
            env=env,
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{self.base}/api/library", timeout=2)
                return
            except httpx.TransportError:
                assert self.process.poll() is None, "the server stopped"
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)

    def rss(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise AssertionError("no VmRSS")

    def settled_rss(self) -> int:
        """The RSS once the server has given back what it freed (its trim runs TRIM_SECONDS
        after the last request or socket; one more second for it to finish)."""
        time.sleep(TRIM_SECONDS + 1)
        return self.rss()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    served = Server(tmp_path)
    yield served
    served.process.terminate()
    served.process.wait(timeout=10)


async def _open_tables(base: str, seeds: range) -> list[str]:
    """Open a table for each seed; Bron's seat token of each."""
    tokens = []
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        for seed in seeds:
            made = await client.post("/api/tables", json={"encounter": "orc-bridge", "seed": seed})
            assert made.status_code == 201, made.text
            tokens.append(made.json()["players"]["bron"]["token"])
    return tokens


async def _sockets(base: str, tokens: list[str]) -> None:
    """One socket a token, all open at once, a hello and its answer each, then all closed."""
    url = base.replace("http", "ws") + "/ws"
    async with contextlib.AsyncExitStack() as stack:
        sockets = [
            await stack.enter_async_context(
                websockets.connect(url, additional_headers={"Authorization": f"Bearer {t}"})
            )
            for t in tokens
        ]
        for ws in sockets:
            await ws.send('{"hello": {"last_seq": -1}}')
        for ws in sockets:
            kinds = [(await ws.recv())[:40], (await ws.recv())[:40]]
            assert all('"type"' in k for k in kinds), kinds


def test_two_thousand_sockets_opened_and_closed_leave_rss_near_its_start(
    server: Server,
) -> None:
    tokens = asyncio.run(_open_tables(server.base, range(200)))
    asyncio.run(_sockets(server.base, tokens))  # the first round: what a socket needs, made once
    start = server.settled_rss()
    for _ in range(9):  # 1,800 more sockets, 200 at a time
        asyncio.run(_sockets(server.base, tokens))
    after = server.settled_rss()
    # today: about 10 MB more a round, 90 MB here
    assert after - start < 20 * MB, f"RSS {start / MB:.0f} -> {after / MB:.0f} MiB"


def test_two_thousand_tables_leave_rss_under_the_bound_of_the_cache(server: Server) -> None:
    """The bound is what the server's own first MAX_CACHED_ENCOUNTERS tables cost it: 2,000
    tables, four times as many, leave it at most half as much again (today: four times)."""
    assert 4 * MAX_CACHED_ENCOUNTERS <= 2000
    asyncio.run(_open_tables(server.base, range(20)))  # the first tables: what any table needs
    empty = server.settled_rss()
    asyncio.run(_open_tables(server.base, range(20, MAX_CACHED_ENCOUNTERS)))
    cache_full = server.settled_rss()
    asyncio.run(_open_tables(server.base, range(MAX_CACHED_ENCOUNTERS, 2000)))
    after = server.settled_rss()
    cached = cache_full - empty
    assert cached > 0
    assert after - empty < 1.5 * cached + 8 * MB, (
        f"RSS {empty / MB:.0f} MiB, {cache_full / MB:.0f} with the cache full, "
        f"{after / MB:.0f} after 2,000 tables"
    )


# -- the trimmer's rule, on its own ------------------------------------------------------------


def test_a_burst_of_closes_is_one_run_and_a_full_pass_only_past_the_open_sockets() -> None:
    """One run for every close before it; the full pass when the sockets closed since the last
    one are at least FULL_PASS_SOCKETS and at least the sockets still open."""
    passes: list[int] = []
    trims: list[bool] = []
    trimmer = Trimmer(trim=lambda: trims.append(True), seconds=0, collect=passes.append)

    async def closing(opened: int, closed: int) -> None:
        for _ in range(opened):
            trimmer.opened()
        for _ in range(closed):
            trimmer.closed()
        await asyncio.sleep(0.01)  # the run is due at once (seconds=0), after these closes

    asyncio.run(closing(FULL_PASS_SOCKETS + 50, FULL_PASS_SOCKETS + 50))
    assert (passes, trimmer.runs, trimmer.full_passes) == ([2], 1, 1)  # 150 closed, none open
    asyncio.run(closing(300, FULL_PASS_SOCKETS + 20))
    assert passes == [2, 1]  # 120 closed, 180 still open: the young generations only
    asyncio.run(closing(0, 70))
    assert passes == [2, 1, 2]  # 190 closed since the full pass, 110 open
    assert trims == [True] * 3
    assert trimmer.open_sockets == 110


def test_without_malloc_trim_only_the_collection_runs() -> None:
    passes: list[int] = []
    trimmer = Trimmer(trim=None, seconds=0, collect=passes.append)

    async def one_request() -> None:
        trimmer.soon()
        trimmer.soon()
        await asyncio.sleep(0.01)

    asyncio.run(one_request())
    assert passes == [1]
    assert trimmer.runs == 1
