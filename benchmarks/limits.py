"""What strangers cost a real ``caltrop serve`` (issue 20 §2): its RSS before and after oversized
bodies, 2,000 tables and 2,000 sockets, and a real client's p99 while 1,000 slowloris
connections trickle their headers.

``python benchmarks/limits.py [--part rss|slowloris|all] [--slow 1000]``: starts ``caltrop serve``
on a free loopback port (a temporary SQLite database), reads its ``VmRSS`` (and ``VmHWM``, the
peak) from ``/proc/PID/status`` around each step, and prints one line a step with the load
average beside it. Every loop is bounded in count and time, and every connection is to
127.0.0.1.

The steps (the issue's "Today" figures were RSS 122 → 521 MB for the first):

* a 100 MB JSON body to ``POST /api/commands`` with a seat, then without one; a 100 MB body to
  ``POST /api/tables``; a 200 MB chunked multipart body to ``POST /tables/upload`` — each sent
  from a raw socket until the server stops taking it (how much it took is printed);
* 2,000 tables opened, then played one command each (the encounter cache's bound);
* 2,000 WebSockets opened (200 at a time, a hello each), then closed;
* ``--part slowloris``: N connections send a request's headers a byte a second while one client
  sends ``GET /api/view`` 20 times a second; its p50/p99, and how many slow connections the
  server closed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

from caltrop.web.memory import TRIM_SECONDS

ROOT = Path(__file__).resolve().parents[1]
MB = 10**6


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (the peak RSS) of ``pid``, in bytes."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) * 1024
    return out


def _load() -> str:
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


class Served:
    def __init__(self, folder: Path) -> None:
        self.port = _free_port()
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "XDG_DATA_HOME": str(folder)}
        args = [sys.executable, "-c", "from caltrop.cli import main; main()", "serve"]
        args += ["--db", f"sqlite:///{folder / 'limits.db'}", "--port", str(self.port)]
        args += ["--new-tables-burst", "0", "--new-tables-per-minute", "0"]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, env=env)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{self.base}/api/library", timeout=1)
                return
            except httpx.TransportError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.1)

    def rss(self) -> dict[str, int]:
        return _status(self.process.pid)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def _mb(n: int) -> str:
    return f"{n / MB:.0f} MB"


def _chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def _flood(port: int, head: bytes, total: int, *, chunked: bool) -> tuple[int, bytes]:
    """Send ``head`` then up to ``total`` body bytes until the server stops taking them (10 s
    at most); the bytes it took and the start of its answer."""
    piece = b"x" * 65536
    chunk = _chunk(piece) if chunked else piece
    sent = 0
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(head)
        sock.settimeout(2)
        give_up = time.monotonic() + 10
        with contextlib.suppress(OSError):
            while sent < total and time.monotonic() < give_up:
                sock.sendall(chunk)
                sent += len(piece)
        answer = b""
        with contextlib.suppress(OSError):
            sock.settimeout(5)
            answer = sock.recv(300)
    return sent, answer.split(b"\r\n", 1)[0]


def rss(served: Served) -> None:
    base_rss = served.rss()
    print(f"start: RSS {_mb(base_rss['VmRSS'])} ({_load()})")
    table = httpx.post(f"{served.base}/api/tables", json={"encounter": "orc-bridge"}).json()
    token = table["gm"]["token"]
    json_head = "Host: t\r\nContent-Type: application/json\r\n"
    steps = [
        (
            "100 MB to POST /api/commands, with a seat",
            f"POST /api/commands HTTP/1.1\r\n{json_head}Authorization: Bearer {token}\r\n"
            f"Content-Length: {100 * MB}\r\n\r\n",
            100 * MB,
            False,
        ),
        (
            "100 MB to POST /api/commands, no seat",
            f"POST /api/commands HTTP/1.1\r\n{json_head}Content-Length: {100 * MB}\r\n\r\n",
            100 * MB,
            False,
        ),
        (
            "100 MB chunked to POST /api/commands, with a seat",
            f"POST /api/commands HTTP/1.1\r\n{json_head}Authorization: Bearer {token}\r\n"
            "Transfer-Encoding: chunked\r\n\r\n",
            100 * MB,
            True,
        ),
        (
            "100 MB to POST /api/tables",
            f"POST /api/tables HTTP/1.1\r\n{json_head}Content-Length: {100 * MB}\r\n\r\n",
            100 * MB,
            False,
        ),
        (
            "200 MB chunked multipart to POST /tables/upload",
            "POST /tables/upload HTTP/1.1\r\nHost: t\r\n"
            "Content-Type: multipart/form-data; boundary=b\r\nTransfer-Encoding: chunked\r\n\r\n"
            + _chunk(
                b'--b\r\nContent-Disposition: form-data; name="files"; filename="big.yaml"\r\n'
                b"Content-Type: application/x-yaml\r\n\r\n"
            ).decode(),
            200 * MB,
            True,
        ),
    ]
    for what, head, total, chunked in steps:
        before = served.rss()
        sent, answer = _flood(served.port, head.encode(), total, chunked=chunked)
        after = served.rss()
        print(
            f"{what}: answer {answer.decode(errors='replace')!r}, client got {_mb(sent)} out; "
            f"RSS {_mb(before['VmRSS'])} -> {_mb(after['VmRSS'])}, peak {_mb(after['VmHWM'])} "
            f"({_load()})"
        )
    asyncio.run(_tables_and_sockets(served))


async def _tables_and_sockets(served: Served) -> None:
    before = served.rss()
    tokens: list[str] = []
    started = time.perf_counter()
    async with httpx.AsyncClient(base_url=served.base, timeout=30) as client:
        for n in range(2000):
            made = await client.post("/api/tables", json={"encounter": "orc-bridge", "seed": n})
            made.raise_for_status()
            tokens.append(made.json()["players"]["bron"]["token"])
        opened = served.rss()
        for n, token in enumerate(tokens):
            body = {"command": "bron: strike orc-brute", "command_id": f"c{n}"}
            answer = await client.post(
                "/api/commands", json=body, headers={"Authorization": f"Bearer {token}"}
            )
            answer.raise_for_status()
    await asyncio.sleep(TRIM_SECONDS + 1)
    played = served.rss()
    print(
        f"2,000 tables opened: RSS {_mb(before['VmRSS'])} -> {_mb(opened['VmRSS'])}; a command "
        f"each: -> {_mb(played['VmRSS'])}, peak {_mb(played['VmHWM'])} "
        f"({time.perf_counter() - started:.0f} s, {_load()})"
    )
    ws_base = served.base.replace("http", "ws")
    before = served.rss()
    for start in range(0, 2000, 200):
        async with contextlib.AsyncExitStack() as stack:
            sockets = [
                await stack.enter_async_context(
                    websockets.connect(
                        f"{ws_base}/ws", additional_headers={"Authorization": f"Bearer {t}"}
                    )
                )
                for t in tokens[start : start + 200]
            ]
            for ws in sockets:
                await ws.send('{"hello": {"last_seq": -1}}')
            for ws in sockets:
                await ws.recv()
                await ws.recv()
        if start == 1800:
            held = served.rss()
    await asyncio.sleep(TRIM_SECONDS + 1)  # the server gives freed memory back (web/memory.py)
    after = served.rss()
    print(
        f"2,000 sockets (200 open at a time), then closed: RSS {_mb(before['VmRSS'])}, with the "
        f"last 200 open {_mb(held['VmRSS'])}, after {_mb(after['VmRSS'])} ({_load()})"
    )


async def _slow(port: int, closed: list[bool], seconds: float) -> None:
    """A slowloris client: a header byte a second until the server closes it or time is up."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        closed.append(False)
        return
    give_up = time.monotonic() + seconds
    shut = False
    try:
        writer.write(b"GET /api/library HTTP/1.1\r\nHost: t\r\nX-Slow: ")
        while time.monotonic() < give_up and not shut:
            writer.write(b"z")
            await writer.drain()
            with contextlib.suppress(TimeoutError):
                got = await asyncio.wait_for(reader.read(1024), 1.0)
                shut = got.startswith(b"HTTP/1.1 408") or reader.at_eof()
            shut = shut or reader.at_eof()
    except (ConnectionResetError, BrokenPipeError):
        shut = True
    finally:
        closed.append(shut)
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


async def _slowloris(served: Served, count: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, count + 1024)), hard))
    table = httpx.post(f"{served.base}/api/tables", json={"encounter": "orc-bridge"}).json()
    headers = {"Authorization": f"Bearer {table['gm']['token']}"}
    closed: list[bool] = []
    latencies: list[float] = []
    async with httpx.AsyncClient(base_url=served.base, timeout=10, headers=headers) as client:
        await client.get("/api/view")  # warm
        quiet = []
        for _ in range(100):
            start = time.perf_counter()
            (await client.get("/api/view")).raise_for_status()
            quiet.append(time.perf_counter() - start)
            await asyncio.sleep(0.05)
        before = served.rss()
        slow = []
        for _ in range(count):  # opened within a second or so, all trickling at once
            slow.append(asyncio.create_task(_slow(served.port, closed, 20.0)))
            await asyncio.sleep(0.0005)
        end = time.monotonic() + 15
        while time.monotonic() < end:
            start = time.perf_counter()
            (await client.get("/api/view")).raise_for_status()
            latencies.append(time.perf_counter() - start)
            await asyncio.sleep(0.05)
        during = served.rss()
        await asyncio.gather(*slow)
    print(
        f"GET /api/view alone: n={len(quiet)}, p50 {statistics.median(quiet) * 1000:.1f} ms, "
        f"p99 {_p99(quiet) * 1000:.1f} ms ({_load()})"
    )
    print(
        f"{count} slowloris connections (a header byte a second, 20 s each): "
        f"{closed.count(True)} closed by the server; GET /api/view meanwhile: "
        f"n={len(latencies)}, p50 {statistics.median(latencies) * 1000:.1f} ms, "
        f"p99 {_p99(latencies) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms; "
        f"RSS {_mb(before['VmRSS'])} -> {_mb(during['VmRSS'])} ({_load()})"
    )


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="benchmarks/limits.py", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--part", choices=["rss", "slowloris", "all"], default="all")
    parser.add_argument("--slow", type=int, default=1000, help="slowloris connections")
    args: Any = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        served = Served(Path(tmp))
        try:
            if args.part in ("rss", "all"):
                rss(served)
            if args.part in ("slowloris", "all"):
                asyncio.run(_slowloris(served, args.slow))
        finally:
            served.stop()


if __name__ == "__main__":
    main()
