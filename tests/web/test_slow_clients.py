"""Issue 20 §2: "idle and slow connections time out (keep-alive, header and body timeouts;
1,000 slowloris connections are closed and real clients keep p99 < 250 ms meanwhile)", and a
body is never read past its route's limit, against a real uvicorn server on loopback.

The server here runs :class:`caltrop.web.protocol.BoundedHttpProtocol` with short deadlines (a
second or two) so that the tests are quick; ``caltrop serve`` runs the same class with the
documented ones. Every loop is bounded in count and time; the tests assert what the server did
(closed the connection, answered 408/413/431), never how long it took. The p99 of a real client
meanwhile is measured by ``benchmarks/limits.py --part slowloris``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.web.test_serve import SRC, free_port

HEADER_SECONDS = 1.0
BODY_SECONDS = 1.5
KEEP_ALIVE_SECONDS = 1
SERVE = f"""
import sys, uvicorn
from caltrop.web import Settings, create_app
from caltrop.web.protocol import BoundedHttpProtocol

class Quick(BoundedHttpProtocol):
    header_seconds = {HEADER_SECONDS}
    body_seconds = {BODY_SECONDS}

app = create_app(Settings(database_url=sys.argv[1], new_tables_burst=0, new_tables_per_minute=0))
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning", http=Quick,
            timeout_keep_alive={KEEP_ALIVE_SECONDS}, backlog=2048)
"""
#: how long a slow client goes on before it gives up (the server must close it first)
GIVE_UP_SECONDS = 15.0


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("slow")
    port = free_port()
    env = {**os.environ, "PYTHONPATH": SRC, "XDG_DATA_HOME": str(folder / "data")}
    process = subprocess.Popen(
        [sys.executable, "-c", SERVE, f"sqlite:///{folder / 't.db'}", str(port)],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(f"{url}/api/library", timeout=1)
            break
        except httpx.TransportError:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
    yield url
    process.terminate()
    process.wait(timeout=10)


def _address(base: str) -> tuple[str, int]:
    host, port = base.removeprefix("http://").split(":")
    return host, int(port)


def _answer(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (bounded in time)."""
    sock.settimeout(GIVE_UP_SECONDS)
    got = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(65536):
            got += chunk
    return got


def test_a_connection_that_sends_nothing_is_closed_with_408(base: str) -> None:
    with socket.create_connection(_address(base)) as sock:
        assert _answer(sock).startswith(b"HTTP/1.1 408 ")


def test_an_idle_kept_connection_is_closed(base: str) -> None:
    with socket.create_connection(_address(base)) as sock:
        sock.sendall(b"GET /api/library HTTP/1.1\r\nHost: t\r\n\r\n")
        answer = _answer(sock)  # the answer, then the close once keep-alive runs out
    assert answer.startswith(b"HTTP/1.1 200 ")
    assert answer.endswith(b"]")  # the whole body came before the close


def test_headers_past_the_bound_are_431(base: str) -> None:
    with socket.create_connection(_address(base)) as sock:
        sock.sendall(b"GET /api/library HTTP/1.1\r\nHost: t\r\n")
        with contextlib.suppress(OSError):  # the server may close while we still write
            for n in range(100):
                sock.sendall(f"X-Filler-{n}: {'y' * 1000}\r\n".encode())
        assert _answer(sock).startswith(b"HTTP/1.1 431 ")


def test_a_body_that_stalls_is_cut(base: str) -> None:
    with socket.create_connection(_address(base)) as sock:
        sock.sendall(
            b"POST /api/tables HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n{"
        )
        assert _answer(sock) == b""  # closed, never answered: the route never got its body


def test_a_chunked_body_past_the_limit_is_read_no_further(base: str) -> None:
    """A 100 MB chunked body to POST /api/commands with a seat: refused with 413 once the
    route's 16 KiB are passed, and the server reads no more of it (what the client manages to
    send is what the kernel's buffers hold, not the body)."""
    table = httpx.post(f"{base}/api/tables", json={}).json()
    token = table["gm"]["token"]
    with socket.create_connection(_address(base)) as sock:
        sock.sendall(
            b"POST /api/commands HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n"
            + f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n\r\n".encode()
        )
        chunk = b"10000\r\n" + b"x" * 0x10000 + b"\r\n"  # 64 KiB a chunk
        sent = 0
        sock.settimeout(2)
        with contextlib.suppress(OSError):
            for _ in range(100 * 2**20 // len(chunk)):
                sock.sendall(chunk)
                sent += len(chunk)
        answer = _answer(sock)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert b"is at most 16,384 bytes" in answer
    assert sent < 20 * 2**20, f"the server took {sent:,} bytes of a body it refused"


async def _slowloris(host: str, port: int, closed: list[bool]) -> None:
    """One slow client: a request's headers a byte every 0.3 s, for ever, until the server
    closes the connection (then ``closed`` gets True) or GIVE_UP_SECONDS pass."""
    reader, writer = await asyncio.open_connection(host, port)
    request = b"GET /api/library HTTP/1.1\r\nHost: t\r\n" + b"X-Slow: " + b"z" * 1000
    give_up = time.monotonic() + GIVE_UP_SECONDS
    try:
        for byte in request:
            if time.monotonic() > give_up:
                closed.append(False)
                return
            writer.write(bytes([byte]))
            await writer.drain()
            if reader.at_eof():
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(reader.read(1024), 0.3)
            if reader.at_eof():
                break
        closed.append(reader.at_eof())
    except (ConnectionResetError, BrokenPipeError):
        closed.append(True)
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


def test_a_thousand_slowloris_connections_are_closed_and_a_client_is_served(base: str) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
    host, port = _address(base)

    async def run() -> tuple[list[bool], list[int]]:
        closed: list[bool] = []
        slow = [asyncio.create_task(_slowloris(host, port, closed)) for _ in range(1000)]
        statuses = []
        async with httpx.AsyncClient(base_url=base, timeout=10) as client:
            for _ in range(20):  # a real client meanwhile, served while they wait
                statuses.append((await client.get("/api/library")).status_code)
                await asyncio.sleep(0.05)
        await asyncio.gather(*slow)
        return closed, statuses

    closed, statuses = asyncio.run(run())
    assert len(closed) == 1000
    assert all(closed), f"{closed.count(False)} slow connections were never closed"
    assert statuses == [200] * 20
