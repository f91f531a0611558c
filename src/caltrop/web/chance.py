"""The live chance of winning on the GM's screen (issue 23 item 4), worked out off the command path.

A command never waits for it: a change only *signals* the table (:meth:`ChanceWorker.changed`,
a set and an event: :class:`ChanceHub` signals on every poke of the table's stream, on every new
socket and every hello). One background task per server takes the signalled tables in turn and,
for each, asks a **worker process** (one, ``nice``\\ d, numba on one thread) for the next answer
it lacks: the head's first, then the earlier events' back to :data:`LINE_EVENTS` before it (the
line's history, after a restart too). One answer is in flight at a time; when it comes back, the
newest head is asked for next, so a newer event supersedes the events in between (their points
are filled in afterwards), and nothing queues up: what is waiting is a set of table ids.

Why a process: the Action Load kernels (:mod:`caltrop.sim.fast.tactical`) are compiled without
``nogil`` — checked: ``njit(cache=True)``, ``parallel`` for ``play_many`` only — so a thread
running them holds the GIL for the whole call (measured 2026-12-04: 20,000 fights of Goblin
Ambush resumed in a thread, 639 ms, stopped the main thread for 660 ms), and the engine's part (the Python policy up to
the kernel's hand-over, the whole of an Action Point answer) holds it anyway. In a process it
takes a core's time, never the event loop's.

The worker process gets the encounter's log (its events up to the seq asked) and replays it, as
``caltrop replay`` does, keeping each state it passes (:func:`_state_at`), then answers with
:func:`caltrop.sim.live.chance_at` on the seed :func:`~caltrop.sim.live.live_seed` (table id,
seq). Here the answers make the small "chance" view model (:func:`chance_view`: the figure now,
the line, the turning points labelled with their events as each viewer may see them), rendered
by ``templates/chance.html`` for the screens and sent as ``{"type": "chance"}`` to the JSON
sockets that asked (``hello`` with ``"chance": true``).

Who is told: the GM's sockets always; a player's only while the GM shows it
(:meth:`~caltrop.store.service.Tables.set_chance_shown`, stored with the table). A player's
socket that was shown it is sent an empty panel (no figure) when the GM hides it again; one that
never was is sent nothing at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, Final

from starlette.concurrency import run_in_threadpool

from caltrop.content.serialize import log_definition
from caltrop.core.commands import GM
from caltrop.core.model import Side
from caltrop.encounter import Encounter
from caltrop.sim.live import chance_at, live_seed, turning_points
from caltrop.sim.runner import stop_pool
from caltrop.store.repository import Seat
from caltrop.store.service import Tables, reveal_from
from caltrop.table.events import npc_reveals, visible_event
from caltrop.table.log import entry
from caltrop.web.screen import render
from caltrop.web.stream import Hub, TableStream
from caltrop.web.subscriber import Outgoing, Subscriber

log = logging.getLogger(__name__)

#: the line covers the encounter's last this many events (older points are not worked out)
LINE_EVENTS: Final = 150
#: encounters whose replayed states a worker process keeps
KEPT_ENCOUNTERS: Final = 4
#: the chart's frame (SVG units): the line over the events, P from 0 (bottom) to 1 (top)
CHART_WIDTH: Final = 300.0
CHART_HEIGHT: Final = 80.0
CHART_PAD: Final = 4.0


# -- in the worker process ----------------------------------------------------------------------

#: per encounter (table id, encounter id): the definition replayed and each state passed, by seq
_KEPT: dict[tuple[str, int], tuple[Mapping[str, Any], dict[int, Encounter]]] = {}
#: per encounter: its log's events sent so far (each job sends only those the worker lacks)
_LOGS: dict[tuple[str, int], list[dict[str, Any]]] = {}


#: how often the worker process checks that the server is still there (seconds)
ORPHAN_SECONDS: Final = 1.0


def _child_start(server: int) -> None:
    """The worker process yields the CPU to the server (nice 10), leaves Ctrl-C to it, and ends
    when the server is gone, however it went (a kill leaves no one to stop it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(10)
    if sys.platform == "linux":  # the kernel ends it with the server (PR_SET_PDEATHSIG = 1)
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)

    def watch() -> None:  # elsewhere, or if the server went before that: a look every second
        while os.getppid() == server:
            time.sleep(ORPHAN_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="orphan-watch", daemon=True).start()


def _state_at(key: tuple[str, int], events: Sequence[Mapping[str, Any]], seq: int) -> Encounter:
    """The encounter after event ``seq`` of its log, replayed as ``caltrop replay`` does (the
    dice checked), from the nearest state kept before it; every state passed is kept."""
    kept = _KEPT.get(key)
    if kept is None or kept[0] != events[0]:
        if len(_KEPT) >= KEPT_ENCOUNTERS:
            _KEPT.pop(next(iter(_KEPT)))
            for other in [k for k in _LOGS if k not in _KEPT and k != key]:
                del _LOGS[other]
        definition = log_definition(events)
        kept = (events[0], {0: Encounter.replay(definition, events[:1])})
        _KEPT[key] = kept
    states = kept[1]
    found = states.get(seq)
    if found is not None:
        return found
    start = max(s for s in states if s < seq)
    state = states[start].clone()
    for s in range(start + 1, seq + 1):
        state.replay_event(events[s], s)
        states[s] = state
        if s < seq:
            state = state.clone()
    return state


#: a job: the encounter's key, where the events sent start in its log, those events, the seq to
#: answer after, and the fights to play (None: the default)
Job = tuple[tuple[str, int], int, list[dict[str, Any]], int, int | None]


def point(job: Job) -> dict[str, Any]:
    """One answer, in the worker process: the chance after event ``seq`` of the encounter's log
    (the ``n`` fights of :func:`caltrop.sim.live.chance_at`, None its default). The job brings
    the events from ``start`` on; ``{"resend": True}`` if this process lacks those before."""
    key, start, events, seq, n = job
    log = _LOGS.setdefault(key, [])
    if start > len(log):
        return {"resend": True}
    if events:
        log[start:] = events
    if len(log) <= seq:
        return {"resend": True}
    state = _state_at(key, log, seq)
    return chance_at(state, seed=live_seed(key[0], seq), n=n).as_dict()


def warm() -> None:
    """Load the compiled Action Load kernels in the worker process (numba's cache, or compile
    them) before any table asks: Duel from its start, and from its first attack roll."""
    from caltrop.content import load_encounter
    from caltrop.sim.tactics import TacticalPolicy

    duel = Encounter.begin(load_encounter("duel"), 0)
    chance_at(duel, seed=0, n=8)
    duel.apply(TacticalPolicy().choose(duel, duel.current()))
    chance_at(duel, seed=0, n=8)


def _pool() -> ProcessPoolExecutor:
    """One worker process, spawned (a child of the server, never a fork of it: the server holds
    threads), so that it goes with the server (:meth:`ChanceWorker.stop` ends it)."""
    context = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(
        max_workers=1, mp_context=context, initializer=_child_start, initargs=(os.getpid(),)
    )


# -- the view model -------------------------------------------------------------------------------


def chart(
    points: Sequence[Mapping[str, Any]], turns: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """The line of P(PC win) over the events as SVG coordinates: ``line`` (the figure after each
    event answered), ``band`` (its 95% interval, a closed polygon), ``marks`` (the turning
    points), ``half`` (the height of 50%); x by seq over the answered span."""
    if not points:
        return {"line": "", "band": "", "marks": [], "half": CHART_HEIGHT / 2}
    first, last = points[0]["seq"], points[-1]["seq"]
    span = max(1, last - first)
    inner_w, inner_h = CHART_WIDTH - 2 * CHART_PAD, CHART_HEIGHT - 2 * CHART_PAD

    def x(seq: int) -> float:
        return CHART_PAD + (seq - first) / span * inner_w if last > first else CHART_WIDTH / 2

    def y(p: float) -> float:
        return CHART_PAD + (1.0 - p) * inner_h

    line = " ".join(f"{x(q['seq']):.1f},{y(q['p']):.1f}" for q in points)
    upper = [f"{x(q['seq']):.1f},{y(q['hi']):.1f}" for q in points]
    lower = [f"{x(q['seq']):.1f},{y(q['lo']):.1f}" for q in reversed(points)]
    marks = [
        {"x": round(x(t["seq"]), 1), "y": round(y(t["after"]), 1), "seq": t["seq"], "rank": k + 1}
        for k, t in enumerate(turns)
    ]
    return {"line": line, "band": " ".join(upper + lower), "marks": marks, "half": y(0.5)}


def chance_view(
    answers: Mapping[int, Mapping[str, Any]],
    head: int,
    labels: Mapping[int, str],
    *,
    shown: bool,
) -> dict[str, Any]:
    """The "chance" view model a screen renders: ``now`` (the latest answer, with its seq),
    ``behind`` (events since it, still being worked out), ``points`` (the line, in seq order),
    ``turns`` (the biggest swings, each with the text of the event that made it, ``labels``),
    ``chart`` (:func:`chart`) and ``shown`` (the players see it too)."""
    seqs = sorted(answers)
    points = [
        {"seq": s, "p": answers[s]["p"], "lo": answers[s]["lo"], "hi": answers[s]["hi"]}
        for s in seqs
    ]
    now = {"seq": seqs[-1], **answers[seqs[-1]]} if seqs else None
    turns = [
        {
            "seq": t.seq,
            "before": t.before,
            "after": t.after,
            "delta": t.delta,
            "text": labels.get(t.seq, f"event #{t.seq}"),
        }
        for t in turning_points([(q["seq"], q["p"]) for q in points])
    ]
    return {
        "now": now,
        "head": head,
        "behind": head - now["seq"] if now else head + 1,
        "points": points,
        "turns": turns,
        "chart": chart(points, turns),
        "shown": shown,
    }


def labels_of(
    encounter: Encounter, seqs: Sequence[int], visibility: Mapping[str, Any], viewer: str
) -> dict[int, str]:
    """The log's words for the events ``seqs`` as ``viewer`` may see them (the GM, or any
    player: players see an event alike, :func:`caltrop.table.visible_event`)."""
    events = encounter.events
    names = {c.id: c.name for c in encounter.creatures}
    reveals = npc_reveals(encounter, reveal_from(visibility))
    out = {}
    for seq in seqs:
        if 0 < seq < len(events):
            shown = entry(encounter, visible_event(events[seq], viewer, reveals), names)
            out[seq] = str(shown["text"] or shown["command"])
    return out


def render_panel(view: Mapping[str, Any] | None, *, gm: bool) -> str:
    """The chance panel's HTML, swapped by its id (None: the empty panel a player keeps while
    the GM does not show it)."""
    return render("chance.html", chance=view, gm=gm, oob=True)


# -- the worker -----------------------------------------------------------------------------------


@dataclass
class _Series:
    """One table's answers for its current encounter, and what was last sent."""

    encounter_id: int
    answers: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: the events whose answer failed (logged once; not asked again, the line skips them)
    failed: set[int] = field(default_factory=set)
    #: bumped whenever what a socket would be sent changes
    version: int = 0


def wants(subscriber: Subscriber) -> bool:
    """A screen socket always takes the panel; a JSON socket only if its hello asked."""
    return not subscriber.events or subscriber.chance


class ChanceWorker:
    """The background task and its worker process (module docs)."""

    def __init__(self, service: Tables, hub: Hub, *, n: int | None = None) -> None:
        self.service = service
        self.hub = hub
        self.n = n
        self._dirty: set[str] = set()
        self._wake = asyncio.Event()
        self._series: dict[str, _Series] = {}
        #: per socket: the (table, encounter, version, shown) it was last sent
        self._told: weakref.WeakKeyDictionary[Subscriber, tuple[Any, ...]] = (
            weakref.WeakKeyDictionary()
        )
        self._task: asyncio.Task[None] | None = None
        self._executor: ProcessPoolExecutor | None = None
        self._warming: asyncio.Future[None] | None = None
        #: per encounter: how many of its log's events the worker process has been sent
        self._sent: dict[tuple[str, int], int] = {}
        #: answers worked out, by this worker (tests and benchmarks read it)
        self.answered = 0

    def changed(self, table_id: str) -> None:
        """The table changed (or a socket joined): work it out when the worker gets to it."""
        self._dirty.add(table_id)
        self._wake.set()

    async def start(self) -> None:
        """The background task, and the worker process started and warmed (:func:`warm`)."""
        self._task = asyncio.create_task(self._run())
        self._executor = _pool()
        self._warming = asyncio.get_running_loop().run_in_executor(self._executor, warm)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._warming is not None:
            self._warming.cancel()
        if self._executor is not None:
            await run_in_threadpool(stop_pool, self._executor)
            self._executor = None

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._dirty:
                table_id = self._dirty.pop()
                try:
                    more = await self._serve(table_id)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("the chance of winning of table %s failed", table_id)
                    more = False
                if more:
                    self._dirty.add(table_id)

    def _listeners(self, table_id: str, shown: bool) -> list[Subscriber]:
        return [
            s
            for s in self.hub.subscribers(table_id)
            if wants(s) and (s.seat.role == "gm" or shown or s in self._told)
        ]

    async def _serve(self, table_id: str) -> bool:
        """One step for one table: tell its sockets what is known, work out the next answer it
        lacks (the head's first), tell them again; True while answers are still lacking."""
        subscribers = [s for s in self.hub.subscribers(table_id) if wants(s)]
        if not subscribers:
            self._series.pop(table_id, None)
            for key in [k for k in self._sent if k[0] == table_id]:
                del self._sent[key]
            return False
        encounter_id, encounter, visibility, shown = await run_in_threadpool(self._read, table_id)
        series = self._series.get(table_id)
        if series is None or series.encounter_id != encounter_id:
            series = self._series[table_id] = _Series(encounter_id)
        head = len(encounter.events) - 1
        if not any(s.seat.role == "gm" for s in subscribers) and not shown:
            await self._tell(table_id, series, encounter, visibility, shown)  # hide it
            return False
        lacking = [
            s
            for s in range(head, max(-1, head - LINE_EVENTS), -1)
            if s not in series.answers and s not in series.failed
        ]
        await self._tell(table_id, series, encounter, visibility, shown)
        if not lacking:
            return False
        seq = lacking[0]
        key = (table_id, encounter_id)
        try:
            answer = await self._ask(self._job(key, encounter, seq))
            if answer is not None and answer.get("resend"):  # a new worker process, say
                self._sent.pop(key, None)
                answer = await self._ask(self._job(key, encounter, seq))
        except Exception:  # a state the estimate cannot play on: the line goes without it
            log.exception("no chance of winning after event %s of table %s", seq, table_id)
            series.failed.add(seq)
            self._sent.pop(key, None)  # the next job sends the whole log again
            return len(lacking) > 1
        if answer is None or answer.get("resend"):
            return False
        self._sent[key] = max(self._sent.get(key, 0), seq + 1)
        series.answers[seq] = answer
        series.version += 1
        self.answered += 1
        await self._tell(table_id, series, encounter, visibility, shown)
        return len(lacking) > 1

    def _job(self, key: tuple[str, int], encounter: Encounter, seq: int) -> Job:
        """The job of the answer after ``seq``, with the events the worker lacks up to it."""
        sent = self._sent.get(key, 0)
        tail = [dict(e) for e in encounter.events[sent : seq + 1]]
        return (key, sent, tail, seq, self.n)

    def _read(self, table_id: str) -> tuple[int, Encounter, Mapping[str, Any], bool]:
        located, encounter = self.service.playing(table_id)
        shown = self.service.repository.chance_shown(table_id)
        return located.encounter_id, encounter, located.visibility, shown

    async def _ask(self, job: Any) -> dict[str, Any] | None:
        """The worker process's answer (a new process if the last one died)."""
        if self._executor is None:
            self._executor = _pool()
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor, point, job)
        except BrokenProcessPool:
            log.warning("the chance worker process died; starting another")
            stop_pool(self._executor)  # an answer may take seconds: stopped at once
            self._executor = None
            self._sent.clear()
            return None

    async def _tell(
        self,
        table_id: str,
        series: _Series,
        encounter: Encounter,
        visibility: Mapping[str, Any],
        shown: bool,
    ) -> None:
        """Send the panel to each socket of the table not told it yet: the GM's, the players'
        while shown; a player told it before gets the empty panel, once, when it is hidden."""
        full = (table_id, series.encounter_id, series.version, shown)
        hidden = (table_id, "hidden")

        def version(subscriber: Subscriber) -> tuple[Any, ...]:
            return full if subscriber.seat.role == "gm" or shown else hidden

        fresh = {s for s in self._listeners(table_id, shown) if self._told.get(s) != version(s)}
        if not fresh:
            return
        messages: dict[bool, Outgoing] = {}
        for gm in {s.seat.role == "gm" for s in fresh}:
            view = None
            if gm or shown:
                view = await run_in_threadpool(self._view, series, encounter, visibility, shown, gm)
            message = Outgoing({"type": "chance", "chance": view})
            message.memo["screen"] = render_panel(view, gm=gm)
            messages[gm] = message
        for subscriber in fresh:
            self._told[subscriber] = version(subscriber)
        self.hub.tell(table_id, lambda s: messages[s.seat.role == "gm"] if s in fresh else None)

    @staticmethod
    def _view(
        series: _Series,
        encounter: Encounter,
        visibility: Mapping[str, Any],
        shown: bool,
        gm: bool,
    ) -> dict[str, Any]:
        head = len(encounter.events) - 1
        answers = series.answers
        turns = turning_points([(seq, answer["p"]) for seq, answer in answers.items()])
        viewer = GM if gm else _a_player(encounter)
        labels = labels_of(encounter, [t.seq for t in turns], visibility, viewer)
        return chance_view(answers, head, labels, shown=shown)


def _a_player(encounter: Encounter) -> str:
    """A PC's id: every player sees an event alike."""
    return next((c.id for c in encounter.creatures if c.side is Side.PC), GM)


class ChanceHub(Hub):
    """The hub, signalling the chance worker whenever a table's sockets are poked (a commit
    here or elsewhere, a visibility change), a socket subscribes, or a socket says hello."""

    def __init__(self, service: Tables, *, n: int | None = None) -> None:
        super().__init__(service)
        self.chance = ChanceWorker(service, self, n=n)

    def subscribe(self, seat: Seat, token: str = "", *, events: bool = True) -> Subscriber:
        subscriber = super().subscribe(seat, token, events=events)
        self.chance.changed(seat.table_id)
        return subscriber

    def stream(self, table_id: str) -> TableStream | None:
        self.chance.changed(table_id)  # a hello (it may ask for the chance)
        return super().stream(table_id)

    async def poke(self, table_id: str, *, fresh: bool = False) -> None:
        self.chance.changed(table_id)
        await super().poke(table_id, fresh=fresh)


def chance_worker(hub: Hub) -> ChanceWorker | None:
    """The hub's chance worker, None where the server runs without it."""
    return hub.chance if isinstance(hub, ChanceHub) else None


__all__ = [
    "ChanceHub",
    "ChanceWorker",
    "chance_view",
    "chance_worker",
    "chart",
    "labels_of",
    "point",
    "render_panel",
    "wants",
]
