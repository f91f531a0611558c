"""Open-loop load test of the table server (issue 20 §5): commands arrive as a Poisson process
that never waits for answers, so queueing shows; beside a FastAPI WebSocket echo paced the same
in the same run.

Each table of Goblin Ambush has its GM and 4 players connected on ``WS /ws`` (a 6th socket, a
second GM screen, with ``--sockets 6``). Commands go over the GM's socket (as the pages send
them): ``gm: set CREATURE load N``, a command the rules always accept in any order, so that
arrivals need not wait for a state to be legal in (R48; each one changes every viewer's view:
Load moves pools and odds). Latency: from sending a command to the last socket of its table
receiving its event. Server CPU: the server process's user + system time over the play,
divided by the commands; the echo's per message group (one message on each of the table's
sockets, timed to the last echo).

**The chance of winning on** (issue 23 item 4): beside them in the same run, a second server
with the live chance of winning on (``caltrop serve``'s default) whose every GM socket asks for
it (``hello`` with ``"chance": true``), so its worker process works out an answer after every
command of every table; its command latency and server-process CPU are printed as ratios to the
server's without it (the worker process's own CPU is not the server's: it runs at nice 10).

``python benchmarks/openloop.py [--tables 200] [--sockets 5] [--rates 5,10,20,40] [--seconds 15]
[--no-chance] [--baseline SRC]``.
Printed per rate: achieved rate, p50/p99, CPU ms a command for both, the load average; then
the rate at which p99 crosses 100 ms (linear between the rates measured).
``--baseline SRC`` (another version's ``src``, e.g. ``git archive BASE src | tar -x -C DIR``)
serves the same tables from that code too, measured at each rate right after this one's, so a
change's effect is seen in one run at one load. The client is one asyncio process: at high
rates on a 2-core machine it competes with the server for CPU, which the load average beside
each figure shows.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from httpx_ws import AsyncWebSocketSession, aconnect_ws

if __package__ in (None, ""):  # run as a script: benchmarks/ is a package of the repository
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.server import ECHO, _free_port, _start

NPCS = ("goblin-1", "goblin-2", "goblin-archer", "hobgoblin-captain")
CROSSING = 0.100


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


@dataclass
class Seat:
    session: AsyncWebSocketSession
    arrived: dict[int, float] = field(default_factory=dict)
    answers: dict[str, int] = field(default_factory=dict)
    joined: asyncio.Event = field(default_factory=asyncio.Event)
    #: chance-of-winning messages received (the "chance" server's GM sockets ask for them)
    chances: int = 0

    async def read(self) -> None:
        while True:
            try:
                text = await self.session.receive_text()
            except Exception:  # closed at the end of the run
                return
            now = time.perf_counter()
            message = json.loads(text)
            kind = message["type"]
            if kind == "events":
                for event in message["events"]:
                    self.arrived.setdefault(event["seq"], now)
            elif kind == "view":
                self.joined.set()
            elif kind == "answer":
                self.answers[message["command_id"]] = int(message["answer"]["seq"])
            elif kind == "chance":
                self.chances += 1
            elif kind == "refused":
                raise RuntimeError(f"refused: {message}")


@dataclass
class Result:
    rate: float
    sent: int
    achieved: float
    latencies: list[float]
    cpu_ms: float
    load: float

    @property
    def p50(self) -> float:
        return statistics.median(self.latencies) if self.latencies else float("nan")

    @property
    def p99(self) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] if ordered else float("nan")


async def _seat_tables(
    client: httpx.AsyncClient,
    base: str,
    tables: int,
    sockets: int,
    stack: contextlib.AsyncExitStack,
    *,
    chance: bool = False,
) -> list[list[Seat]]:
    """Open ``tables`` tables and their sockets; with ``chance`` each GM socket's hello asks
    for the live chance of winning (issue 23 item 4), so the server works it out for every
    table after every command."""
    out: list[list[Seat]] = []
    for k in range(tables):
        made = await client.post("/api/tables", json={"encounter": "goblin-ambush", "seed": k})
        made.raise_for_status()
        table = made.json()
        tokens = [table["gm"]["token"], *(s["token"] for s in table["players"].values())]
        tokens += [table["gm"]["token"]] * max(0, sockets - len(tokens))
        seats = []
        for n, token in enumerate(tokens[:sockets]):
            session = await stack.enter_async_context(
                aconnect_ws(f"{base}/ws", client, headers={"Authorization": f"Bearer {token}"})
            )
            seat = Seat(session)
            stack.callback(asyncio.create_task(seat.read()).cancel)
            hello: dict[str, Any] = {"last_seq": 0}
            if chance and n == 0:
                hello["chance"] = True
            await session.send_text(json.dumps({"hello": hello}))
            seats.append(seat)
        for seat in seats:
            await asyncio.wait_for(seat.joined.wait(), 60)
        out.append(seats)
    return out


async def _arrivals(rate: float, duration: float, tables: int, rng: random.Random) -> Any:
    """(when, table) of a Poisson process of ``rate`` a second over ``duration``."""
    start = time.perf_counter()
    at = 0.0
    while True:
        at += rng.expovariate(rate)
        if at > duration:
            return
        delay = start + at - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        yield rng.randrange(tables)


async def _play(
    table_seats: list[list[Seat]], rate: float, duration: float, pid: int, seed: int, tag: str
) -> Result:
    rng = random.Random(seed)
    sent: dict[str, tuple[int, float]] = {}
    cpu0, start = _cpu_seconds(pid), time.perf_counter()
    async for k in _arrivals(rate, duration, len(table_seats), rng):
        command_id = f"{tag}-{len(sent)}"
        command = f"gm: set {rng.choice(NPCS)} load {rng.randrange(3)}"
        sent[command_id] = (k, time.perf_counter())
        gm = table_seats[k][0]
        await gm.session.send_text(json.dumps({"command": command, "command_id": command_id}))
    wall = time.perf_counter() - start
    latencies = await _settle(table_seats, sent)
    cpu = _cpu_seconds(pid) - cpu0
    return Result(
        rate,
        len(sent),
        len(sent) / wall,
        latencies,
        1e3 * cpu / max(1, len(sent)),
        os.getloadavg()[0],
    )


async def _settle(table_seats: list[list[Seat]], sent: dict[str, tuple[int, float]]) -> list[float]:
    """Wait (≤ 60 s) until every socket of each command's table has its event; the latencies."""
    deadline = time.perf_counter() + 60
    latencies: list[float] = []
    pending = dict(sent)
    while pending and time.perf_counter() < deadline:
        for command_id, (k, at) in list(pending.items()):
            seats = table_seats[k]
            seq = seats[0].answers.get(command_id)
            if seq is not None and all(seq in s.arrived for s in seats):
                latencies.append(max(s.arrived[seq] for s in seats) - at)
                del pending[command_id]
        await asyncio.sleep(0.05)
    if pending:
        raise RuntimeError(f"{len(pending)} commands never reached every socket of their table")
    return latencies


async def _echo_play(
    groups: list[list[AsyncWebSocketSession]], rate: float, duration: float, pid: int, seed: int
) -> Result:
    rng = random.Random(seed)
    latencies: list[float] = []
    tasks: list[asyncio.Task[None]] = []
    locks = [asyncio.Lock() for _ in groups]

    async def one(k: int, n: int) -> None:
        at = time.perf_counter()
        async with locks[k]:  # the same table's echoes are matched in order
            for s in groups[k]:
                await s.send_text(f"m{n}")
            for s in groups[k]:
                await s.receive_text()
        latencies.append(time.perf_counter() - at)

    cpu0, start = _cpu_seconds(pid), time.perf_counter()
    n = 0
    async for k in _arrivals(rate, duration, len(groups), rng):
        tasks.append(asyncio.create_task(one(k, n)))
        n += 1
    wall = time.perf_counter() - start
    await asyncio.gather(*tasks)
    cpu = _cpu_seconds(pid) - cpu0
    return Result(rate, n, n / wall, latencies, 1e3 * cpu / max(1, n), os.getloadavg()[0])


def _crossing(results: list[Result]) -> str:
    """The rate where p99 crosses 100 ms, linear between the two rates either side."""
    for a, b in itertools.pairwise(results):
        if a.p99 < CROSSING <= b.p99:
            x = a.achieved + (CROSSING - a.p99) * (b.achieved - a.achieved) / (b.p99 - a.p99)
            return f"p99 crosses 100 ms near {x:.0f} commands/s"
    if results and results[0].p99 >= CROSSING:
        return f"p99 ≥ 100 ms already at {results[0].achieved:.0f} commands/s"
    return f"p99 < 100 ms up to {results[-1].achieved:.0f} commands/s (the highest rate run)"


def _line(name: str, r: Result) -> str:
    return (
        f"  {name:<8} {r.rate:6.1f}/s asked, {r.achieved:6.1f}/s sent, n {r.sent:5d}: "
        f"p50 {r.p50 * 1e3:7.1f} ms  p99 {r.p99 * 1e3:7.1f} ms  CPU {r.cpu_ms:5.2f} ms/command  "
        f"(load {r.load:.1f})"
    )


async def _main(
    tables: int,
    sockets: int,
    rates: list[float],
    duration: float,
    db: str,
    baseline: Path | None = None,
    chance: bool = True,
) -> dict[str, Any]:
    """Per rate: this checkout's server (the chance of winning off, where this Caltrop has it);
    with ``baseline`` (another checkout's ``src``) the same arrivals against that one's on a
    database of its own; the same server with the chance on and asked for by every GM socket
    (``chance``, a second server on its own database, when this Caltrop has it); the echo."""
    port, echo_port, chance_port = _free_port(), _free_port(), _free_port()
    serve = [sys.executable, "-c", "from caltrop.cli import main; main()", "serve"]
    has_chance = chance and "--chance" in _serve_help()
    off = ["--no-chance"] if has_chance else []
    server = _start([*serve, "--db", db, "--port", str(port), *_lifted(), *off], port)
    processes = [server]
    other = None
    if baseline is not None:
        other_port = _free_port()
        other_db = db.removesuffix(".db") + "-baseline.db"
        other_off = ["--no-chance"] if "--chance" in _serve_help(baseline) else []
        lifted = [*_lifted(baseline), *other_off]
        other = _start(
            [*serve, "--db", other_db, "--port", str(other_port), *lifted], other_port, baseline
        )
        processes.append(other)
    echo = _start([sys.executable, "-c", ECHO, str(echo_port)], echo_port)
    processes.append(echo)
    chance_db = db.removesuffix(".db") + "-chance.db"
    chance_server = (
        _start([*serve, "--db", chance_db, "--port", str(chance_port), *_lifted()], chance_port)
        if has_chance
        else None
    )
    if chance_server is not None:
        processes.append(chance_server)
    base, echo_base = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{echo_port}"
    chance_base = f"http://127.0.0.1:{chance_port}"
    ours: list[Result] = []
    before: list[Result] = []
    theirs: list[Result] = []
    lit: list[Result] = []
    told: list[int] = []
    limits = httpx.Limits(max_connections=tables * sockets + 20)
    try:
        async with (
            httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as client,
            httpx.AsyncClient(base_url=echo_base, timeout=120, limits=limits) as echo_client,
            httpx.AsyncClient(base_url=chance_base, timeout=120, limits=limits) as chance_client,
            contextlib.AsyncExitStack() as stack,
        ):
            seats = await _seat_tables(client, base, tables, sockets, stack)
            other_seats: list[list[Seat]] = []
            if other is not None:
                other_base = f"http://127.0.0.1:{other_port}"
                other_client = await stack.enter_async_context(
                    httpx.AsyncClient(base_url=other_base, timeout=120, limits=limits)
                )
                other_seats = await _seat_tables(other_client, other_base, tables, sockets, stack)
            chance_seats = (
                await _seat_tables(chance_client, chance_base, tables, sockets, stack, chance=True)
                if chance_server is not None
                else []
            )
            groups = [
                [
                    await stack.enter_async_context(aconnect_ws(f"{echo_base}/ws", echo_client))
                    for _ in range(sockets)
                ]
                for _ in range(tables)
            ]
            print(
                f"{tables} table(s) × {sockets} sockets, SQLite, open-loop Poisson arrivals, {duration:g} s a rate"
            )
            for n, rate in enumerate(rates):
                ours.append(await _play(seats, rate, duration, server.pid, seed=n, tag=f"r{n}"))
                print(_line("caltrop", ours[-1]))
                if other is not None:
                    got = await _play(other_seats, rate, duration, other.pid, seed=n, tag=f"r{n}")
                    before.append(got)
                    print(_line("baseline", got))
                if chance_server is not None:
                    asked = sum(t[0].chances for t in chance_seats)
                    lit.append(
                        await _play(
                            chance_seats, rate, duration, chance_server.pid, seed=n, tag=f"c{n}"
                        )
                    )
                    told.append(sum(t[0].chances for t in chance_seats) - asked)
                    print(_line("chance", lit[-1]))
                    print(
                        f"           chance on: p50 {lit[-1].p50 / ours[-1].p50:.2f}×, "
                        f"p99 {lit[-1].p99 / ours[-1].p99:.2f}× the server's without it, CPU "
                        f"{lit[-1].cpu_ms / max(ours[-1].cpu_ms, 1e-9):.2f}×; {told[-1]} chance "
                        "messages to the GM sockets"
                    )
                theirs.append(await _echo_play(groups, rate, duration, echo.pid, seed=n))
                print(_line("echo", theirs[-1]))
                print(
                    f"           p99 {ours[-1].p99 / theirs[-1].p99:.1f}× the echo's, "
                    f"CPU {ours[-1].cpu_ms / max(theirs[-1].cpu_ms, 1e-9):.1f}× the echo's"
                    + (
                        f"; baseline CPU / this {before[-1].cpu_ms / max(ours[-1].cpu_ms, 1e-9):.2f}×"
                        if before
                        else ""
                    )
                )
            print(f"  caltrop: {_crossing(ours)}; echo: {_crossing(theirs)}")
            if before:
                print(f"  baseline: {_crossing(before)}")
            if lit:
                print(f"  chance on: {_crossing(lit)}")
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=10)
    return {"ours": ours, "echo": theirs, "baseline": before, "chance": lit, "told": told}


def _serve_help(src: Path | None = None) -> str:
    """``caltrop serve --help`` of this Caltrop, or of the one under ``src`` (which options it
    has)."""
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(src or Path(__file__).resolve().parents[1] / "src")}
    return subprocess.run(
        [sys.executable, "-c", "from caltrop.cli import main; main()", "serve", "--help"],
        capture_output=True,
        text=True,
        env={**env, "COLUMNS": "200"},
        check=False,
    ).stdout


def _lifted(src: Path | None = None) -> list[str]:
    """Lift the server's table-opening rate limit where this Caltrop (or the one under ``src``)
    has one (the benchmark opens hundreds of tables from one address)."""
    if "--new-tables-per-minute" in _serve_help(src):
        return ["--new-tables-per-minute", "100000", "--new-tables-burst", "100000"]
    return []


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="benchmarks/openloop.py", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--sockets", type=int, default=5)
    parser.add_argument("--rates", default="5,10,20,40", help="commands a second, in all")
    parser.add_argument("--seconds", type=float, default=15.0, help="of arrivals per rate")
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="SRC",
        help="another checkout's src folder: its server is measured at every rate too",
    )
    parser.add_argument(
        "--no-chance", action="store_true", help="leave out the server with the chance on"
    )
    args = parser.parse_args(argv)
    rates = [float(r) for r in args.rates.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(
            _main(
                args.tables,
                args.sockets,
                rates,
                args.seconds,
                f"sqlite:///{Path(tmp) / 'b.db'}",
                args.baseline,
                chance=not args.no_chance,
            )
        )


def run(console: Any, *, quick: bool) -> list[Any]:
    """The ``openloop`` section of ``benchmarks/run.py``: 1 table × 6 sockets and 200 tables ×
    5 sockets (``--quick``: 50), each at a sweep of rates, beside the echo."""
    from benchmarks.harness import Target, seconds

    console.rule("[bold]openloop[/]: Poisson arrivals over the GM's socket, the default SQLite")
    targets = []
    for tables, sockets, rates in (
        (1, 6, [5.0, 10.0, 20.0, 40.0]),
        (50 if quick else 200, 5, [5.0, 20.0, 40.0]),
    ):
        with tempfile.TemporaryDirectory() as tmp:
            got = asyncio.run(
                _main(
                    tables,
                    sockets,
                    rates,
                    8.0 if quick else 15.0,
                    f"sqlite:///{Path(tmp) / 'b.db'}",
                )
            )
        ours, echo = got["ours"], got["echo"]
        cpu = statistics.median(r.cpu_ms for r in ours)
        targets.append(
            Target(
                "openloop",
                f"{tables} table(s) × {sockets}: server CPU a command",
                "≤ 2 ms",
                f"{cpu:.2f} ms",
                cpu <= 2.0,
            )
        )
        p99 = ours[0].p99
        targets.append(
            Target(
                "openloop",
                f"{tables} × {sockets} at {ours[0].rate:g}/s: p99 (echo {seconds(echo[0].p99)})",
                "< 100 ms, ≤ 3× echo",
                seconds(p99),
                p99 < 0.100 and p99 <= 3 * echo[0].p99,
            )
        )
        lit = got["chance"]
        if lit:  # issue 23 item 4: the chance of winning on does not slow a command
            ratio = lit[0].p99 / ours[0].p99
            targets.append(
                Target(
                    "openloop",
                    f"{tables} × {sockets} at {ours[0].rate:g}/s, the chance on: p99 ratio",
                    "≤ 1.25× off",
                    f"{ratio:.2f}×",
                    ratio <= 1.25,
                )
            )
    return targets


if __name__ == "__main__":
    main()
