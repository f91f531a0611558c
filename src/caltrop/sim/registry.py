"""Policies by name, for encounter files (``policies: {pc: tactical, npc: random}``) and the CLI.

A factory takes the policy's own seeded RNG (derived from the run's seed and the encounter's
index, so that it is the same in every variant) and returns a fresh policy for one encounter.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from caltrop.core.model import Economy
from caltrop.errors import UnknownPolicyError as UnknownPolicyError
from caltrop.sim.points_tactics import AttackWeakestPointsPolicy
from caltrop.sim.policies import Policy, RandomPolicy
from caltrop.sim.tactics import TacticalPolicy

PolicyFactory = Callable[[np.random.Generator], Policy]


@dataclass(frozen=True, slots=True)
class PolicyEntry:
    name: str
    factory: PolicyFactory
    #: the same state always gets the same choice (the exact solver needs this)
    deterministic: bool
    description: str
    #: the economies in which it reads the round number (the exact solver then keeps the
    #: round in its state key and needs a round cap)
    reads_round_in: frozenset[Economy] = frozenset()


_REGISTRY: dict[str, PolicyEntry] = {}
_ALIASES: dict[str, str] = {}


def register_policy(
    name: str,
    factory: PolicyFactory,
    *,
    deterministic: bool,
    description: str = "",
    aliases: tuple[str, ...] = (),
    reads_round_in: frozenset[Economy] = frozenset(),
) -> None:
    """Make a policy available by ``name`` (and ``aliases``)."""
    _REGISTRY[name] = PolicyEntry(name, factory, deterministic, description, reads_round_in)
    for alias in aliases:
        _ALIASES[alias] = name


def policy_entry(name: str) -> PolicyEntry:
    key = _ALIASES.get(name, name)
    try:
        return _REGISTRY[key]
    except KeyError:
        known = ", ".join(policy_names())
        raise UnknownPolicyError(f"no policy named {name!r} (known: {known})") from None


def make_policy(name: str, rng: np.random.Generator) -> Policy:
    """A fresh policy for one encounter."""
    return policy_entry(name).factory(rng)


def policy_names() -> list[str]:
    """Every registered name and alias, sorted."""
    return sorted([*_REGISTRY, *_ALIASES])


register_policy(
    "random",
    RandomPolicy,
    deterministic=False,
    description="uniformly random among the legal commands",
)
register_policy(
    "attack-weakest",
    lambda rng: AttackWeakestPointsPolicy(),
    deterministic=True,
    description=(
        "attack the enemy with the least Health; never react (Action Points: attack the "
        "weakest adjacent enemy, else shoot, else close in; block when attacked)"
    ),
    aliases=("simple",),
)
register_policy(
    "tactical",
    lambda rng: TacticalPolicy(rng),
    deterministic=True,
    description=(
        "focus the weakest enemy, keep Load for reactions when allies are threatened, "
        "help or hinder when it changes the odds"
    ),
    # the bundled example encounters name "greedy": the tactics' one-step greedy choices
    aliases=("greedy",),
    # its Action Point tactics lose patience with safety after 12 rounds (PointsKnobs.patience)
    reads_round_in=frozenset({Economy.ACTION_POINTS}),
)


def _search(rng: np.random.Generator) -> Policy:
    from caltrop.sim.search import SearchPolicy

    return SearchPolicy(rng)


register_policy(
    "search",
    _search,
    deterministic=False,
    description=(
        "the strong player: weighs each legal command by the next roll exactly and playouts "
        "under tactical after it, overruling tactical where that clearly wins more "
        "(caltrop.sim.search)"
    ),
)
