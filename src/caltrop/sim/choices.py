"""What the tactics chose, action by action: the share of each action a side takes (issue 25
item 6).

A sweep whose win rate moves against its stat (goblin Evasion 12 → 13 *raising* the PC win
rate) is either a rule's effect or a tactic's quirk. The play measures of a sweep (damage,
Load used, reactions …) tell part of it; the share of each action chosen per value tells the
rest: if the PCs' tactics switch from one attack to another at the new value, the quirk is in
the tactics, not in the rule.

The records of a run keep no per-action counts (the compiled kernels count only what the
summaries need), so the shares are played again here in the reference engine, on the sweep's
own seeds (encounter *i* of every value shares its dice, as in the sweep), with the sweep's
policies. Under the reference engine they are the sweep's own first encounters, die for die;
under the compiled tactical player (``--fast --policy tactical``) they are the same policy's
choices (the kernel's replays against the engine check it command by command) on the
reference engine's dice, so the same play, not the same encounters. The fast path's own tactic
is no Python policy: its sweeps get no shares.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from caltrop.core.commands import Act, EndTurn, Pass, RollDice
from caltrop.core.model import EncounterDef, Side
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.sim.registry import make_policy, policy_entry
from caltrop.sim.results import DEFAULT_MAX_ROUNDS, SIDES
from caltrop.sim.runner import encounter_streams, engine_stream

__all__ = ["SHARE_SAMPLE", "ActionShares", "action_shares", "share_changes", "with_shares"]

#: Encounters played again per value to count the actions (the first ones of the sweep).
SHARE_SAMPLE: Final = 200


@dataclass(frozen=True, slots=True)
class ActionShares:
    """Per side, each action's share of that side's decisions (summing to 1 when it decided at
    all), over ``n`` encounters."""

    n: int
    shares: Mapping[str, Mapping[str, float]]
    decisions: Mapping[str, int]


def _label(command: object) -> str:
    """The action a decision took: its action's name (``strike``, ``block``, ``move``), or
    ``end turn`` / ``pass``."""
    if isinstance(command, Act):
        return command.action
    if isinstance(command, EndTurn):
        return "end turn"
    if isinstance(command, Pass):
        return "pass"
    return type(command).__name__


def action_shares(
    definition: EncounterDef,
    policies: Mapping[str, str],
    seed: int,
    n: int = SHARE_SAMPLE,
    *,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
) -> ActionShares:
    """The share of each action per side over encounters ``0 … n − 1`` of a run with ``seed``
    (the same dice and policy streams as :func:`caltrop.sim.runner.run_task` gives them)."""
    counts: dict[str, Counter[str]] = {side: Counter() for side in SIDES}
    unused = np.random.default_rng(0)
    random_sides = [s for s in SIDES if not policy_entry(policies[s]).deterministic]
    for i in range(n):
        if random_sides:
            engine_seed, pc_rng, npc_rng = encounter_streams(seed, i)
            rngs = {Side.PC.value: pc_rng, Side.NPC.value: npc_rng}
        else:
            engine_seed, rngs = engine_stream(seed, i), {}
        players = {s: make_policy(policies[s], rngs.get(s, unused)) for s in SIDES}
        encounter = Encounter.begin(definition, engine_seed, record=False)
        side_of = {c.id: c.side.value for c in encounter.creatures}
        while (who := encounter.current()) != TERMINAL and encounter.round <= max_rounds:
            if who == CHANCE:
                encounter.apply(RollDice())
                continue
            command = players[side_of[who]].choose(encounter, who)
            actor = getattr(command, "actor", who)
            counts[side_of.get(actor, side_of[who])][_label(command)] += 1
            encounter.apply(command)
    decisions = {side: sum(counts[side].values()) for side in SIDES}
    shares = {
        side: {action: count / decisions[side] for action, count in sorted(counts[side].items())}
        for side in SIDES
        if decisions[side]
    }
    return ActionShares(n, shares, decisions)


def share_changes(
    before: ActionShares, after: ActionShares, *, shown: int = 4
) -> list[dict[str, Any]]:
    """The actions whose share moved most between two values, largest move first:
    ``{"side", "action", "from", "to"}`` (shares from 0 to 1)."""
    moves: list[dict[str, Any]] = []
    for side in SIDES:
        a, b = before.shares.get(side, {}), after.shares.get(side, {})
        for action in sorted(a.keys() | b.keys()):
            x, y = a.get(action, 0.0), b.get(action, 0.0)
            if x != y:
                moves.append({"side": side, "action": action, "from": x, "to": y})
    moves.sort(key=lambda m: -abs(m["to"] - m["from"]))
    return moves[:shown]


def with_shares(
    steps: list[dict[str, Any]],
    definitions: Mapping[str, EncounterDef],
    policies: Mapping[str, str],
    seed: int,
    *,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    n: int = SHARE_SAMPLE,
) -> list[dict[str, Any]]:
    """Each step of a sweep against its trend (:func:`caltrop.sim.summary.against_trend`) with
    the share of each action chosen at its two values (``definitions``: value → the encounter
    played at it), and the moves that changed most."""
    out = []
    for step in steps:
        a = action_shares(definitions[step["from"]], policies, seed, n, max_rounds=max_rounds)
        b = action_shares(definitions[step["to"]], policies, seed, n, max_rounds=max_rounds)
        shares = {"n": n, "from": a.shares, "to": b.shares, "changed": share_changes(a, b)}
        out.append({**step, "shares": shares})
    return out
