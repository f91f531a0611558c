"""The one play loop of the fast path's kernels (:mod:`caltrop.sim.fast.loop`): compiled into each
kernel's module, and loaded from numba's disk cache by a fresh process instead of compiled again
(issue 13: a shared loop taking functions as arguments recompiled at every start)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from caltrop.sim.fast import kernel, loop
from caltrop.sim.fast.points import kernel as points_kernel
from caltrop.sim.fast.tactical import kernel as tactical_kernel

KERNELS = (kernel, points_kernel, tactical_kernel)

PROBE = """
import json
from caltrop.content import load_encounter
from caltrop.sim.fast import kernel, simulate
from caltrop.sim.fast.points import kernel as points_kernel
from caltrop.sim.fast.tactical import compile_tactical, kernel as tactical_kernel, play_tactical
simulate(load_encounter("goblin-ambush"), 50, 1, details=True)
simulate(load_encounter("warband-ap"), 50, 1, details=True)
play_tactical(compile_tactical(load_encounter("goblin-ambush")), 50, 1)
print(json.dumps({
    k.__name__: [len(k.play_many.stats.cache_hits), len(k.play_many.stats.cache_misses)]
    for k in (kernel, points_kernel, tactical_kernel)
}))
"""


def _probe() -> dict[str, list[int]]:
    src = str(Path(loop.__file__).resolve().parents[3])
    env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, check=True
    )
    result: dict[str, list[int]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_a_fresh_process_loads_every_kernel_from_the_disk_cache() -> None:
    _probe()  # compiles whatever this checkout has not compiled yet
    again = _probe()
    assert again == {k.__name__: [1, 0] for k in KERNELS}  # one hit each, nothing compiled


def test_each_kernel_has_its_own_loop_named_by_its_source() -> None:
    names = {k.play_many.py_func.__qualname__ for k in KERNELS}
    assert len(names) == 3  # a cache entry per module (and per version of its parts)
    for k in KERNELS:
        code = k.play_one.py_func.__code__
        assert code.co_filename == loop.__file__  # errors point at the loop's own lines
        first = Path(loop.__file__).read_text().splitlines()[code.co_firstlineno - 1]
        assert first.startswith("def play_one(")
