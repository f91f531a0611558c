"""The fast path for Action Point encounters (seed 004): ``attack-weakest``, compiled with numba.

:func:`caltrop.sim.fast.simulate` plays an Action Point definition here. The one tactic is
exactly the engine's ``attack-weakest`` in an Action Point encounter
(:func:`caltrop.sim.points_tactics.simple_points_command`), on every creature:

* *on its turn*: attack the adjacent enemy (≤ 1.5 m, R34) with the least Health (ties: the
  first listed) with every melee weapon in hand at once, unarmed if none (R38); else shoot the
  weakest enemy within close range of a ranged weapon in hand (R39); else move toward the
  nearest enemy, to 1 m of it or to its close range less 1 m with a ranged weapon in hand (R35);
  else shoot the weakest within far range; else end the turn — again after every action;
* *in a defence window* (R45): Block for 1 RP if it has one (R40), else take the damage less its
  Resistance; never assist, cover or dodge.

The kernel (:mod:`.kernel`) plays the rules those actions reach: Speed initiative with R30's
ties, AP and RP (R31, R32), positions in CPython's float arithmetic (:mod:`.geometry`), the
attack as staged rolls (hit → damage → defence, R45), melee damage halved up, close-range Favor
and far-range Disfavor, Resistance. Nothing else the engine models can be reached from an
encounter definition by this tactic (grapples, scaling, cover, aim, stealth and the GM's facts
start empty and only other actions set them). Refused (:class:`FastPathError`): a participant
without the initiative Aspect, weapon dice other than dice and constants, a melee attack
without dice.

:func:`replay_points` replays a kernel encounter in the engine, roll by roll, with the
``attack-weakest`` policy deciding and each roll resolved with the kernel's total.
"""

from caltrop.sim.fast.points.compile import CompiledPoints, compile_points, is_points
from caltrop.sim.fast.points.reference import PointsReplay, replay_points
from caltrop.sim.fast.points.simulate import (
    STAGES,
    PointsRoll,
    PointsTrace,
    simulate_points,
    trace_points,
)

__all__ = [
    "STAGES",
    "CompiledPoints",
    "PointsReplay",
    "PointsRoll",
    "PointsTrace",
    "compile_points",
    "is_points",
    "replay_points",
    "simulate_points",
    "trace_points",
]
