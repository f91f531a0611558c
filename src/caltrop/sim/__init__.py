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

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:  # the names as a type checker sees them; at run time each is imported when used
    from caltrop.sim.exact import ExactResult, solve
    from caltrop.sim.overrides import (
        Override,
        Variant,
        apply_overrides,
        parse_override,
        parse_variant,
    )
    from caltrop.sim.policies import AttackWeakestPolicy, Policy, RandomPolicy, play_out
    from caltrop.sim.registry import make_policy, policy_names, register_policy
    from caltrop.sim.runner import Records, SimResult, VariantRun, simulate
    from caltrop.sim.stats import Interval, holm, mean_interval, paired_difference, wilson
    from caltrop.sim.tactics import TacticalPolicy

#: where each name of the package's face lives: imported on first use (PEP 562), so that
#: importing one module of the package (``caltrop.sim.points_tactics``) does not import them all
HOME: Final[dict[str, str]] = {
    "AttackWeakestPolicy": "caltrop.sim.policies",
    "ExactResult": "caltrop.sim.exact",
    "Interval": "caltrop.sim.stats",
    "Override": "caltrop.sim.overrides",
    "Policy": "caltrop.sim.policies",
    "RandomPolicy": "caltrop.sim.policies",
    "Records": "caltrop.sim.runner",
    "SimResult": "caltrop.sim.runner",
    "TacticalPolicy": "caltrop.sim.tactics",
    "Variant": "caltrop.sim.overrides",
    "VariantRun": "caltrop.sim.runner",
    "apply_overrides": "caltrop.sim.overrides",
    "holm": "caltrop.sim.stats",
    "make_policy": "caltrop.sim.registry",
    "mean_interval": "caltrop.sim.stats",
    "paired_difference": "caltrop.sim.stats",
    "parse_override": "caltrop.sim.overrides",
    "parse_variant": "caltrop.sim.overrides",
    "play_out": "caltrop.sim.policies",
    "policy_names": "caltrop.sim.registry",
    "register_policy": "caltrop.sim.registry",
    "simulate": "caltrop.sim.runner",
    "solve": "caltrop.sim.exact",
    "wilson": "caltrop.sim.stats",
}


def __getattr__(name: str) -> Any:
    module = HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'caltrop.sim' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


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
