"""The simulator's fast path: fixed built-in tactics, compiled with numba.

``simulate(definition, n, seed)`` plays ``n`` encounters of an Action Load encounter (seed 000,
R10–R21) with one fixed tactic on every creature, some thousand times faster than the engine
playing the same tactic (``python benchmarks/run.py fast`` measures the ratio); the
tests check that it makes exactly the engine's decisions on the same dice and that its win rates
and fight lengths agree with the engine's within their intervals.

**The tactic** (the same for both sides; "attack the weakest, hinder to save an ally"):

* *On its turn*, a creature attacks again and again while the gate (R11; legacy R20) allows an
  attack, then ends its turn. Each attack:

  - **option**: among its attack options — each attack action with each weapon it may use, in
    the order the stat block lists actions, then weapons — that the gate allows, the one of the
    largest expected total: 2.5 × its d4 pool (R12, with no advantage) + the mean of the
    weapon's and the action's extra dice; ties go to the first listed;
  - **target**: the standing enemy with the least current Health; ties go to the first in turn
    order.

* *In a reaction window* (R15) on an enemy's attack roll, each creature of the target's side
  that is standing, asked in turn order after the roller as the engine asks, hinders if the
  roll as it stands could down the target (the largest total of its dice − the target's
  Evasion ≥ the target's Health): it takes its first listed **hinder-type** team action — one
  that imposes disadvantage on an enemy's roll (hinder, dodge, parry) — whose gate allows it and
  whose source key is not already on the roll (R14: a repeat would add nothing); at most one per
  creature per roll. Otherwise it passes. Nobody helps, uses effects or checks, or reacts to an
  ally's roll.

* An encounter still undecided after ``max_rounds`` rounds (default 100) is a draw.

Refused (:class:`FastPathError`): ``initiative: check``, halved dice (``/2``), attacks of Cost 0
(the turn would never end) and more than 64 creatures. Turn order is the GM's (the participant
list, R21).

**Action Point encounters** (seed 004): ``simulate()`` plays them with the engine's
``attack-weakest`` (:mod:`caltrop.sim.fast.points`: attack the adjacent enemy with the least
Health with every melee weapon in hand, else shoot the weakest within close range, else move
toward the nearest enemy, else shoot within far range; Block when attacked), with the same seed,
pairing and threads contract; its ``team_actions`` are the Blocks taken, ``load_spent`` the
AP and RP paid and ``damage_dealt`` the damage through the defences (not capped at the Health
left, as the engine's records count it). :func:`~caltrop.sim.fast.points.replay_points` replays such an encounter in the
engine roll by roll.

:class:`~caltrop.sim.fast.reference.FastTacticPolicy` is the same tactic as a Policy for the real
engine (:func:`~caltrop.sim.fast.reference.play_reference` plays with it), and
:func:`~caltrop.sim.fast.reference.replay_fast_dice` replays a fast-path encounter in the engine
on the kernel's dice, checking every decision.

**The tactical policy compiled** (:mod:`caltrop.sim.fast.tactical`, issue 13): Action Load
encounters with :class:`~caltrop.sim.tactics.TacticalPolicy`'s own choices on both sides (not the
fixed tactic above), tested command by command against the Python policy;
``caltrop.sim.runner.simulate(…, engine="compiled")`` plays it.
"""

from caltrop.sim.fast.compile import (
    AttackOption,
    CompiledEncounter,
    FastPathError,
    compile_encounter,
    with_options,
)
from caltrop.sim.fast.points import CompiledPoints, compile_points, replay_points, trace_points
from caltrop.sim.fast.reference import (
    FastTacticPolicy,
    ReferenceResult,
    Replay,
    ReplayMismatchError,
    play_reference,
    play_reference_batch,
    replay_fast_dice,
)
from caltrop.sim.fast.results import DEFAULT_MAX_ROUNDS, FastResult
from caltrop.sim.fast.simulate import TraceResult, TraceRow, simulate, trace

__all__ = [
    "DEFAULT_MAX_ROUNDS",
    "AttackOption",
    "CompiledEncounter",
    "CompiledPoints",
    "FastPathError",
    "FastResult",
    "FastTacticPolicy",
    "ReferenceResult",
    "Replay",
    "ReplayMismatchError",
    "TraceResult",
    "TraceRow",
    "compile_encounter",
    "compile_points",
    "play_reference",
    "play_reference_batch",
    "replay_fast_dice",
    "replay_points",
    "simulate",
    "trace",
    "trace_points",
    "with_options",
]
