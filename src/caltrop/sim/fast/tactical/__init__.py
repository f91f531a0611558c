"""The ``tactical`` policy compiled (issue 13): Action Load encounters played by a numba kernel
making exactly :class:`~caltrop.sim.tactics.TacticalPolicy`'s choices on both sides.

:func:`compile_tactical` turns an encounter into tables (the harm of every roll the policy can
weigh, worked out by the policy's own functions), :func:`simulate_tactical` plays a run of
variants as :func:`caltrop.sim.runner.simulate` returns it, :func:`replay_tactical` replays one
kernel encounter in the engine with the Python policy, checking every command and every die.
What the kernel cannot play is refused with :class:`~caltrop.sim.fast.compile.FastPathError`
saying why (the runner then plays the Python policy, and says so). :func:`compile_any`
compiles an Action Point encounter for its own kernel (:mod:`caltrop.sim.fast.points_tactical`)
instead, and :func:`play_tactical` plays either.
"""

from caltrop.sim.fast.tactical.compile import CompiledTactical, compile_tactical
from caltrop.sim.fast.tactical.replay import TacticalMismatchError, TacticalReplay, replay_tactical
from caltrop.sim.fast.tactical.simulate import (
    COMPILED_EXTRA,
    AnyCompiled,
    compile_any,
    compile_variants,
    play_tactical,
    simulate_tactical,
    trace_tactical,
)
from caltrop.sim.fast.tactical.tables import Knobs, TacticalStep, TacticalTrace

__all__ = [
    "COMPILED_EXTRA",
    "AnyCompiled",
    "CompiledTactical",
    "Knobs",
    "TacticalMismatchError",
    "TacticalReplay",
    "TacticalStep",
    "TacticalTrace",
    "compile_any",
    "compile_tactical",
    "compile_variants",
    "play_tactical",
    "replay_tactical",
    "simulate_tactical",
    "trace_tactical",
]
