"""The ``tactical`` policy compiled for Action Point encounters (seed 004; issue 23 item 5).

:func:`compile_points_tactical` turns an encounter into flat tables, :func:`play_points_tactical`
plays a run of it on a numba kernel making exactly the choices of
:mod:`caltrop.sim.points_tactics` on both sides (returned as the runner's
:class:`~caltrop.sim.runner.Records`), and :func:`replay_points_tactical` replays one kernel
encounter in the engine with the Python policy, checking every command and every die. The
policy's numbers (the exact harm of a series of attacks, a defender's losses, a defence's
saving, a hit chance) are the policy's own functions' — worked out the first time the kernel
asks for each and kept in the compiled encounter (:class:`Numbers`). What the kernel cannot play
is refused with :class:`~caltrop.sim.fast.compile.FastPathError` saying why (the runner then
plays the Python policy, and says so).
"""

from caltrop.sim.fast.points_tactical.compile import (
    CompiledPointsTactical,
    Numbers,
    compile_points_tactical,
)
from caltrop.sim.fast.points_tactical.replay import (
    PointsTacticalMismatchError,
    PointsTacticalReplay,
    replay_points_tactical,
)
from caltrop.sim.fast.points_tactical.simulate import (
    PointsTacticalTrace,
    play_points_tactical,
    trace_points_tactical,
)

__all__ = [
    "CompiledPointsTactical",
    "Numbers",
    "PointsTacticalMismatchError",
    "PointsTacticalReplay",
    "PointsTacticalTrace",
    "compile_points_tactical",
    "play_points_tactical",
    "replay_points_tactical",
    "trace_points_tactical",
]
