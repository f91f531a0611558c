"""Ctrl-C during ``caltrop sim`` / ``caltrop sweep`` (issue 21 item 7): the workers stop at once,
what finished is printed, the command exits 130 and leaves no process; and a piped run's
progress lines (issue 25 item 4)."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import psutil
import pytest

from caltrop.cli.sim_interrupt import (
    PROGRESS_EVERY_SECONDS,
    PROGRESS_FIRST_SECONDS,
    ProgressLines,
)
from caltrop.sim.overrides import Variant, parse_variant
from caltrop.sim.runner import Records, SimResult, interruption, simulate
from tests.sim.tiny import duel

SRC = Path(__file__).resolve().parents[2] / "src"
TACTICAL = {"pc": "tactical", "npc": "tactical"}


def _chunks(records: Records, sizes: list[int]) -> dict[int, Records]:
    out, at = {}, 0
    for size in sizes:
        out[at] = Records(
            *(getattr(records, f)[at : at + size] for f in Records.__dataclass_fields__)
        )
        at += size
    return out


def test_what_finished_is_the_prefix_every_variant_played_still_paired() -> None:
    """Chunks finish out of order: only an unbroken run from encounter 0 counts, cut to the
    shortest variant's, so encounter i of each variant is the same encounter i."""
    d = duel()
    variants = [Variant("baseline"), parse_variant("hero.health=6")]
    full = simulate(d, variants, TACTICAL, n=60, seed=5)
    a = _chunks(full.runs[0].records, [20, 20, 20])
    b = _chunks(full.runs[1].records, [20, 20, 20])
    del a[20]  # variant a: 0–19 and 40–59 done; b: 0–59 → the first 20 are paired
    base = SimResult("duel", 5, 60, dict(TACTICAL), (), full.max_rounds)
    stop = interruption(base, variants, [r.definition for r in full.runs], [a, b])
    assert isinstance(stop, KeyboardInterrupt)
    assert (stop.done, stop.total) == (100, 120)
    assert stop.partial is not None
    assert stop.partial.n == 20
    for cut, whole in zip(stop.partial.runs, full.runs, strict=True):
        assert np.array_equal(cut.records.winner, whole.records.winner[:20])
        assert np.array_equal(cut.records.rounds, whole.records.rounds[:20])
    del b[0]  # b has no chunk from encounter 0: nothing is paired
    assert interruption(base, variants, [r.definition for r in full.runs], [a, b]).partial is None


def test_the_fast_paths_lists_of_chunks_count_the_same() -> None:
    d = duel()
    variants = [Variant("baseline")]
    full = simulate(d, variants, TACTICAL, n=30, seed=2)
    chunks = list(_chunks(full.runs[0].records, [10, 10]).values())
    base = SimResult("duel", 2, 30, dict(TACTICAL), (), full.max_rounds)
    stop = interruption(base, variants, [d], [chunks])
    assert stop.partial is not None
    assert stop.partial.n == 20
    assert stop.done == 20


def test_piped_progress_lines_come_after_a_pause_then_now_and_then() -> None:
    now = [0.0]
    stream = io.StringIO()
    lines = ProgressLines(1000, "encounters", stream, clock=lambda: now[0])
    lines(100)  # at once: a short run prints nothing
    assert stream.getvalue() == ""
    now[0] = PROGRESS_FIRST_SECONDS + 0.5
    lines(100)
    assert stream.getvalue().splitlines() == [
        "encounters: 200 of 1,000 (20%), 2 s elapsed, about 10 s left"
    ]
    now[0] += PROGRESS_EVERY_SECONDS / 2
    lines(100)
    assert len(stream.getvalue().splitlines()) == 1
    now[0] += PROGRESS_EVERY_SECONDS
    lines(100)
    assert stream.getvalue().splitlines()[-1].startswith("encounters: 400 of 1,000 (40%)")
    lines(600)  # the end: the command's own output follows
    assert len(stream.getvalue().splitlines()) == 2


def _session(pid: int) -> list[psutil.Process]:
    """Processes of the session led by ``pid`` (the command and every child it started)."""
    mine = []
    for proc in psutil.process_iter():
        try:
            if os.getsid(proc.pid) == pid and proc.status() != psutil.STATUS_ZOMBIE:
                mine.append(proc)
        except (ProcessLookupError, psutil.NoSuchProcess, PermissionError):
            continue
    return mine


@pytest.mark.parametrize(
    "command",
    [
        ["sim", "goblin-ambush", "--variant", "revision=current", "--variant", "load_reset=round"],
        ["sweep", "goblin-ambush", "--param", "goblin.health=4..6"],
    ],
    ids=["sim", "sweep"],
)
def test_ctrl_c_stops_the_workers_prints_what_finished_and_exits_130(
    command: list[str],
) -> None:
    """SIGINT to the whole process group, as a terminal sends it, once the first progress
    line says encounters have finished."""
    # long enough that the first progress line comes well before the end, even under load (a
    # loaded machine starts the workers late, and then 1,200 encounters finish in a burst)
    args = [*command, "--n", "4000", "--seed", "3", "--workers", "2", "--policy", "tactical"]
    if command[0] == "sim":
        args += ["--policies", "none"]
    proc = subprocess.Popen(
        [sys.executable, "-c", "from caltrop.cli import main; main()", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"},
    )
    assert proc.stderr is not None
    assert proc.stdout is not None
    first = proc.stderr.readline()  # the first progress line: something has finished
    while first.startswith("This ") and " will take about " in first:  # the estimate
        first = proc.stderr.readline()
    progress = re.match(r"encounters: ([\d,]+) of ([\d,]+)", first)
    assert progress, first
    workers = [p for p in _session(proc.pid) if p.pid != proc.pid]
    assert workers, "the run has worker processes"
    os.killpg(proc.pid, signal.SIGINT)
    out: list[str] = []
    reader = threading.Thread(target=lambda: out.append(proc.stdout.read()))  # type: ignore[union-attr]
    reader.start()
    err = proc.stderr.read()
    proc.wait(timeout=60)
    reader.join(timeout=10)
    assert proc.returncode == 130, err
    note = re.search(r"Interrupted \(Ctrl-C\) after ([\d,]+) of ([\d,]+) encounters", err)
    assert note, err
    assert int(note.group(1).replace(",", "")) >= int(progress.group(1).replace(",", ""))
    assert note.group(2) == progress.group(2)
    shown = re.search(r"shown are the first ([\d,]+) of each", err)
    if shown:  # the tables of what every variant finished, at that n
        assert "Win rate (Wilson 95%)" in out[0]
        assert f"{shown.group(1)} encounters per" in out[0]
    else:
        assert "nothing to show" in err
    assert "Traceback" not in err
    deadline = time.monotonic() + 10
    while _session(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _session(proc.pid) == []
    assert not any(w.is_running() and w.status() != psutil.STATUS_ZOMBIE for w in workers)
