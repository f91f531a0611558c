"""Playing encounters automatically: policies and tactics, the paired-seed runner, rule
variants, statistics and the exact solver. (The numba fast path is :mod:`caltrop.sim.fast`,
imported on its own: it compiles kernels.)

>>> from caltrop.content import load_encounter
>>> from caltrop.sim import Variant, parse_variant, simulate, wilson
>>> duel = load_encounter("goblin-ambush")
>>> result = simulate(duel, [Variant("base"), parse_variant("goblin.health=1")],
...                   {"pc": "tactical", "npc": "tactical"}, n=20, seed=1)
>>> [run.name for run in result.runs], len(result.runs[0].records.winner)
(['base', 'goblin.health=1'], 20)
>>> interval = wilson(14, 20)                  # a win rate with its 95 % interval
>>> round(interval.lo, 3), interval.estimate, round(interval.hi, 3)
(0.481, 0.7, 0.855)
"""

from caltrop.sim.exact import ExactResult, solve
from caltrop.sim.overrides import Override, Variant, apply_overrides, parse_override, parse_variant
from caltrop.sim.policies import AttackWeakestPolicy, Policy, RandomPolicy, play_out
from caltrop.sim.registry import make_policy, policy_names, register_policy
from caltrop.sim.runner import Records, SimResult, VariantRun, simulate
from caltrop.sim.stats import Interval, holm, mean_interval, paired_difference, wilson
from caltrop.sim.tactics import TacticalPolicy

__all__ = [
    "AttackWeakestPolicy",
    "ExactResult",
    "Interval",
    "Override",
    "Policy",
    "RandomPolicy",
    "Records",
    "SimResult",
    "TacticalPolicy",
    "Variant",
    "VariantRun",
    "apply_overrides",
    "holm",
    "make_policy",
    "mean_interval",
    "paired_difference",
    "parse_override",
    "parse_variant",
    "play_out",
    "policy_names",
    "register_policy",
    "simulate",
    "solve",
    "wilson",
]
