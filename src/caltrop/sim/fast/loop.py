"""The one play loop of the fast path's numba kernels, compiled into each kernel's module.

Every kernel (the fast tactic's, :mod:`caltrop.sim.fast.kernel`; the Action Point one,
:mod:`caltrop.sim.fast.points.kernel`; the compiled tactical policy's,
:mod:`caltrop.sim.fast.tactical.kernel`) plays an encounter the same way: set the creatures up
and count who stands on each side (no fight if a side is empty), maybe an opening (R30's
initiative), then rounds until ``max_rounds`` (a draw after it), each creature in turn order
that is not down taking its turn until a side has nobody standing; ``play_many`` plays a batch
of encounters in parallel chunks, each from its own stream (encounter ``first + i`` from the
seed's keys and ``first + i`` only), and ``play_traced`` one encounter with its trace. That loop
is written once, here (:data:`LOOP`), and compiled by :func:`define_loop` into each kernel's
module, where it calls the module's own parts by name:

``begin(tab, work, standing) -> creatures``
    set up one encounter's state in ``work``, counting the standing creatures of side 0 and 1
    into ``standing``;
``opening(tab, work, s, trace) -> (s, rows)``
    what happens before round 1 (rolls traced into ``trace``);
``round_start(tab, work)``, ``turn_order(tab, work, pos) -> creature``,
``is_down(tab, work, c) -> bool``
    the round's start (R19), who acts at position ``pos`` (R21, R30), who is down;
``turn(tab, work, standing, c, s, rnd, trace, rows) -> (s, rows, winner)``
    creature ``c``'s whole turn: :data:`GOING`, or the side that won (a side whose
    ``standing`` count reached 0 lost);
``new_work(tab) -> work``, ``record(tab, work, i, rows, out)``
    a chunk's scratch state, and encounter ``i``'s outputs written to ``out``;
``TRACE_COLUMNS``
    the width of the module's trace.

``play_on`` is the rounds from any turn position, which ``play_one`` starts at round 1. A
kernel that can play on from the middle of a fight (the compiled tactical policy's, for the
strong player's playouts) also has the parts ``play_from`` calls, and the others never call it:

``restore(tab, work, snap, standing) -> (creatures, roller, round, position)``
    the fight ``snap`` stopped at an attack roll, into ``work``;
``land(tab, work, standing, snap, total) -> winner``
    that roll's ``total`` landed (:data:`GOING`, or the side that won);
``turn_on(tab, work, standing, c, s, rnd, trace, rows) -> (s, rows, winner)``
    the rest of ``c``'s turn (``turn`` without its start).

``tab`` (the encounter's tables) and ``work`` (its scratch arrays) are tuples only the module
reads. The parts are ``inline="always"`` functions, so the compiled loop is the same code as a
loop written out in each kernel, and ``play_one`` counts no references (it allocates nothing,
and neither may the parts it calls inline: numba refuses to compile one that does):
CPU time per encounter on one thread, best of 3, before → after this loop (2026-12-02, load
average 3.5–5, so ±10%): the fast tactic on goblin-ambush 1.65–2.00 → 1.39–1.45 µs, the
Action Point kernel on warband-ap 13.7–14.4 → 12.7–13.7 µs, the compiled tactical policy on
goblin-ambush 71–80 → 66–67 µs; every result the same, bit for bit.

Why compiled into each module rather than imported (issue 13): numba's disk cache keys a
function by its source file's stamp and its bytecode. A shared loop taking each module's parts
as function arguments was recompiled at every start (a function argument's type is not stable
across processes); this loop is compiled from this file (so its errors point at the lines
here), under a name that carries a digest of the calling module's source, so the cache entry
changes whenever this file or the module's parts change, and is reused otherwise.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit, prange

from caltrop.sim.fast import rng
from caltrop.sim.fast.rng import stream_start

#: no side won: the round limit was reached
DRAW = -1
#: the encounter goes on (a turn's result)
GOING = -2

LOOP = '''
def play_one(s, tab, work, standing, max_rounds, trace):
    """Play one encounter from stream state ``s``: (winner, rounds, rows). ``winner`` is 0
    (PCs), 1 (NPCs) or DRAW; ``rows`` counts what the module traces (the first
    ``trace.shape[0]`` rows are written)."""
    standing[0] = 0
    standing[1] = 0
    n = begin(tab, work, standing)
    if standing[0] == 0 or standing[1] == 0:
        if standing[0] > 0:
            return 0, 0, 0
        if standing[1] > 0:
            return 1, 0, 0
        return DRAW, 0, 0
    s, rows = opening(tab, work, s, trace)
    if max_rounds < 1:
        return DRAW, max_rounds, rows
    round_start(tab, work)
    s, winner, rnd, rows = play_on(s, tab, work, standing, n, 1, 0, max_rounds, trace, rows)
    return winner, rnd, rows


def play_on(s, tab, work, standing, n, rnd, pos, max_rounds, trace, rows):
    """The rounds from turn position ``pos`` of round ``rnd`` (that round's start done):
    (stream, winner, rounds, rows)."""
    while True:
        for p in range(pos, n):
            c = turn_order(tab, work, p)
            if is_down(tab, work, c):
                continue
            s, rows, winner = turn(tab, work, standing, c, s, rnd, trace, rows)
            if winner != GOING:
                return s, winner, rnd, rows
        pos = 0
        rnd += 1
        if rnd > max_rounds:
            return s, DRAW, max_rounds, rows
        round_start(tab, work)


def play_many(key0, key1, first, chunk, tab, max_rounds, details, winner, rounds, out):
    """Play encounters ``first .. first + len(winner) - 1`` in chunks of ``chunk``, in
    parallel: encounter ``first + i`` writes ``winner[i]``, ``rounds[i]`` and, with
    ``details``, its outputs (``record``)."""
    n = winner.shape[0]
    n_chunks = (n + chunk - 1) // chunk
    for ch in prange(n_chunks):
        work = new_work(tab)
        standing = np.zeros(2, np.int64)
        trace = np.empty((0, TRACE_COLUMNS), np.int64)
        stop = min(n, (ch + 1) * chunk)
        for i in range(ch * chunk, stop):
            s = stream_start(key0, key1, np.uint64(first + i))
            w, r, k = play_one(s, tab, work, standing, max_rounds, trace)
            winner[i] = w
            rounds[i] = r
            if details:
                record(tab, work, i, k, out)


def play_traced(key0, key1, index, tab, max_rounds, trace):
    """Play encounter ``index`` alone, tracing it into ``trace``: (winner, rounds, rows)."""
    s = stream_start(key0, key1, np.uint64(index))
    return play_one(s, tab, new_work(tab), np.zeros(2, np.int64), max_rounds, trace)


def play_from(key0, key1, first, tab, snap, totals, max_rounds, winner, rounds, trace):
    """Play encounters on from a fight stopped at an attack roll (``snap``, see ``restore``):
    encounter ``i`` lands the roll with ``totals[i]``, the roller's turn goes on
    (``turn_on``), then the rounds, on the stream of ``first + i``; writes ``winner[i]`` and
    ``rounds[i]``; returns the rows the last one traced (the first ``trace.shape[0]``
    written)."""
    work = new_work(tab)
    standing = np.zeros(2, np.int64)
    rows = 0
    for i in range(winner.shape[0]):
        s = stream_start(key0, key1, np.uint64(first + i))
        n, c, rnd, pos = restore(tab, work, snap, standing)
        rows = 0
        w = land(tab, work, standing, snap, totals[i])
        if w == GOING:
            s, rows, w = turn_on(tab, work, standing, c, s, rnd, trace, rows)
        if w == GOING:
            s, w, rnd, rows = play_on(s, tab, work, standing, n, rnd, pos + 1, max_rounds, trace, rows)
        winner[i] = w
        rounds[i] = rnd
    return rows
'''

#: the line of this file where :data:`LOOP`'s text starts (its first line is blank)
_LOOP_LINE = next(
    k for k, line in enumerate(Path(__file__).read_text().splitlines(), 1) if line == "LOOP = '''"
)


def define_loop(namespace: dict[str, Any]) -> None:
    """Compile :data:`LOOP` into a kernel module's ``namespace`` (its ``globals()``, holding
    its parts): ``play_one`` (numba, cached), ``play_many`` (parallel, cached) and
    ``play_traced`` (cached)."""
    # the module's parts, the dice they roll and this loop: any change gives a new cache entry
    sources = [Path(namespace["__file__"]).read_text(), Path(rng.__file__).read_text(), LOOP]
    digest = hashlib.sha256("\0".join(sources).encode()).hexdigest()[:12]
    namespace.setdefault("np", np)
    namespace["prange"] = prange
    namespace["stream_start"] = stream_start
    namespace["DRAW"] = DRAW
    namespace["GOING"] = GOING
    code = compile("\n" * (_LOOP_LINE - 1) + LOOP, __file__, "exec")
    exec(code, namespace)  # our own constant text, compiled for numba's cache (see the docs)
    for name in ("play_on", "play_one", "play_many", "play_traced", "play_from"):
        function = namespace[name]
        function.__qualname__ = f"{name}_{digest}"  # the cache entry's name (see the docs)
        if name == "play_on":
            namespace[name] = njit(cache=True, inline="always")(function)
        elif name == "play_one":
            # No reference counting in the loop (it allocates nothing): the parts unpack the
            # ``tab`` and ``work`` tuples at every turn, and counting those references cost the
            # fast tactic's kernel a third of its speed.
            no_counting: dict[str, Any] = {"_nrt": False}  # numba's own option, untyped
            namespace[name] = njit(cache=True, **no_counting)(function)
        else:
            namespace[name] = njit(cache=True, parallel=name == "play_many")(function)
