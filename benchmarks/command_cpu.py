"""In-process CPU of one command's whole server path (issue 20 §5: ≤ 2 ms of server CPU a
command), without sockets, HTTP or the client competing for the machine's two cores.

One table of Goblin Ambush (or ``--encounter``) on SQLite opened as ``caltrop serve`` opens it
(no checkpoint on the commit path, ``synchronous=NORMAL``), its GM and 4 players subscribed to
the table's stream (:class:`caltrop.web.stream.Hub`) as ``WS /ws`` subscribes them. Each
command is what ``benchmarks/openloop.py`` sends, ``gm: set NPC load N`` (R48, accepted in any
order), and goes the server's way: :meth:`Tables.submit` (commit), its answer queued, the
table's stream poked (the views of every viewer, the events each may see), and every message
queued for the five sockets encoded as it would be sent. CPU is ``time.process_time`` (user +
system of this process) over the commands, split into the commit and the rest.

``gm: add``: the engine's part of adding one goblin (R48) to an encounter already holding N
creatures, as the server does it (a clone of the state, then the command), for several N.

``python benchmarks/command_cpu.py [--commands 400] [--baseline SRC]``: with ``--baseline``,
the same measurement runs again in a child process whose ``caltrop`` is the one under SRC (a
checkout's ``src`` folder), interleaved with this one's runs, and the ratios are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

NPCS = ("goblin-1", "goblin-2", "goblin-archer", "hobgoblin-captain")
ADD_AT = (10, 50, 100, 196)


async def _stream(commands: int, encounter: str, warm: int) -> dict[str, float]:
    from starlette.concurrency import run_in_threadpool

    from caltrop.store import Repository, open_database
    from caltrop.store.service import Tables
    from caltrop.web.stream import Hub

    with tempfile.TemporaryDirectory() as tmp:
        engine = open_database(
            f"sqlite:///{Path(tmp) / 'b.db'}", autocheckpoint=False, synchronous="normal"
        )
        service = Tables(Repository(engine))
        new = service.create(encounter, seed=1)
        hub = Hub(service)
        seats = [service.seat(new.gm_token), *map(service.seat, new.player_tokens.values())]
        subscribers = [hub.subscribe(seat) for seat in seats]
        stream = hub.stream(seats[0].table_id)
        assert stream is not None
        for subscriber in subscribers:
            stream.join(subscriber, 0, None)
        await stream.poke(fresh=True)
        sent = 0

        def drain() -> int:
            n = 0
            for subscriber in subscribers:
                while not subscriber.queue.empty():
                    _ = subscriber.queue.get_nowait().text  # encoded as a socket sends it
                    n += 1
            return n

        drain()
        rng = random.Random(1)
        gm = seats[0]
        commit = rest = 0.0
        for k in range(warm + commands):
            text = f"gm: set {rng.choice(NPCS)} load {rng.randrange(3)}"
            start = time.process_time()
            accepted = await run_in_threadpool(service.submit, gm, text, f"c{k}")
            committed = time.process_time()
            subscribers[0].put({"type": "answer", "command_id": f"c{k}", "answer": accepted.answer})
            await hub.poke(gm.table_id)
            sent += drain()
            done = time.process_time()
            if k >= warm:
                commit += committed - start
                rest += done - committed
        engine.dispose()
    return {
        "commit_ms": 1e3 * commit / commands,
        "views_ms": 1e3 * rest / commands,
        "total_ms": 1e3 * (commit + rest) / commands,
        "messages": sent / (warm + commands),
    }


def _add(at: int, repeat: int) -> float:
    """ms of CPU to add one goblin to an encounter holding ``at`` creatures (clone + apply)."""
    from caltrop.content import encounter_to_dict, load_encounter, resolve_creature
    from caltrop.core.commands import AddCreature
    from caltrop.encounter import Encounter

    definition = load_encounter("goblin-ambush")
    enc = Encounter.begin(definition, 1, header={"definition": encounter_to_dict(definition)})
    goblin = resolve_creature("goblin", base=None)
    while len(enc.creatures) < at:
        enc.apply(AddCreature("goblin", creature=goblin))
    times = []
    for _ in range(repeat):
        start = time.process_time()
        after = enc.clone()
        after.apply(AddCreature("goblin", creature=goblin))
        times.append(time.process_time() - start)
    return 1e3 * statistics.median(times)


def measure(commands: int, encounter: str, rounds: int) -> dict[str, Any]:
    """The figures of this process's ``caltrop``: the median of ``rounds`` runs."""
    runs = [asyncio.run(_stream(commands, encounter, warm=30)) for _ in range(rounds)]
    out: dict[str, Any] = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    out["add_ms"] = {str(n): _add(n, 40) for n in ADD_AT}
    return out


def _child(src: str, commands: int, encounter: str, rounds: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": src}
    done = subprocess.run(
        [
            sys.executable,
            __file__,
            "--json",
            "--commands",
            str(commands),
            "--encounter",
            encounter,
            "--rounds",
            str(rounds),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def _show(name: str, r: dict[str, Any]) -> str:
    adds = ", ".join(f"{n}: {ms:.3f}" for n, ms in r["add_ms"].items())
    return (
        f"  {name:<9} commit {r['commit_ms']:.3f} ms + views and stream {r['views_ms']:.3f} ms"
        f" = {r['total_ms']:.3f} ms a command ({r['messages']:.1f} messages); "
        f"gm: add at N creatures (ms): {adds}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="benchmarks/command_cpu.py", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--commands", type=int, default=400)
    parser.add_argument("--encounter", default="goblin-ambush")
    parser.add_argument("--rounds", type=int, default=3, help="runs, the median kept")
    parser.add_argument("--baseline", metavar="SRC", help="another caltrop's src folder")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.json:
        print(json.dumps(measure(args.commands, args.encounter, args.rounds)))
        return
    print(f"one table of {args.encounter}, 5 subscribers, {args.commands} commands a run")
    print(f"  load average before: {os.getloadavg()[0]:.2f}")
    here = str(Path(__file__).resolve().parents[1] / "src")
    ours: list[dict[str, Any]] = []
    theirs: list[dict[str, Any]] = []
    for _ in range(args.rounds):  # interleaved: a change in the machine's load hits both
        ours.append(_child(here, args.commands, args.encounter, 1))
        if args.baseline:
            theirs.append(_child(args.baseline, args.commands, args.encounter, 1))
    best = min(ours, key=lambda r: r["total_ms"])
    print(_show("this", best))
    if theirs:
        base = min(theirs, key=lambda r: r["total_ms"])
        print(_show("baseline", base))
        ratios = {k: base[k] / best[k] for k in ("commit_ms", "views_ms", "total_ms")}
        print(
            "  baseline / this: "
            + ", ".join(f"{k.removesuffix('_ms')} {v:.2f}×" for k, v in ratios.items())
            + "; gm: add "
            + ", ".join(
                f"{n}: {base['add_ms'][n] / best['add_ms'][n]:.2f}×" for n in best["add_ms"]
            )
        )
    print(f"  load average after: {os.getloadavg()[0]:.2f} (the best of {args.rounds} runs each)")


if __name__ == "__main__":
    main()
