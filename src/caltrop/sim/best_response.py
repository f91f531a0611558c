"""The best any play of one side can do against fixed tactics on the other, exactly (issue 13).

Where the strong player (:mod:`caltrop.sim.search`) cannot beat ``tactical`` — an encounter
with one sensible choice, such as the bundled ``duel`` — that is shown here, not claimed: the
side's decisions become *max* nodes over every legal command, the other side plays its
deterministic policy, and every roll is a chance node over its exact totals
(:meth:`Encounter.chance_outcomes`). The graph of every state some play of the side reaches is
built once (states keyed as the exact solver keys them: :meth:`Encounter.key` with the round
reduced to "started or not", so rounds where nobody is hurt are cycles), then solved by value
iteration from 0 — which converges to the optimal probability of winning (a reachability
objective; an endless fight counts as not won) — to ``tolerance``. The same graph is evaluated
with the side playing its own policy (``tactical``), so the two figures come from one model:
if they agree, no play of the side wins more often than its policy does, and
:attr:`BestResponse.worse` counts the decisions where the policy's choice is worth less than the
best one (by more than the tolerance).

Small encounters only (``max_nodes``): the duel has a few thousand nodes.
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from caltrop.core.model import EncounterDef, Side
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.sim.exact import StateSpaceTooLargeError
from caltrop.sim.policies import Policy

#: Nodes (chance states and the side's decision states) built before refusing.
DEFAULT_MAX_NODES = 200_000
#: Value iteration stops when no node's value moves by more than this in a sweep.
DEFAULT_TOLERANCE = 1e-13

#: what a node's successor is when the encounter ends there: won (1) or not (0)
_WON, _LOST = -1, -2


@dataclass(frozen=True, slots=True)
class BestResponse:
    """P(side wins) with its best play and with its own policy, both against the other side's
    policy, on the same graph; decisions where the policy's choice falls short of the best."""

    side: Side
    best: float
    policy: float
    nodes: int
    decisions: int
    #: decision states (any play reaches) where the policy's choice is worth less than the best
    worse: int
    #: of those, the ones reached when the side plays its policy
    worse_on_path: int
    seconds: float


class _Graph:
    def __init__(
        self, side: Side, policies: Mapping[str, Policy], own: Policy, max_nodes: int
    ) -> None:
        self.side = side
        self.policies = policies
        self.own = own
        self.max_nodes = max_nodes
        self.index: dict[Hashable, int] = {}
        #: per node: chance → [(probability, successor)]; decision → [successor per command]
        self.chance: list[bool] = []
        self.succ: list[list[tuple[float, int]]] = []
        #: per decision node: the successor index (within succ) of the policy's own choice
        self.choice: list[int] = []
        self.pending: list[tuple[int, Encounter]] = []

    def _key(self, encounter: Encounter) -> Hashable:
        held = encounter.round
        encounter.round = min(held, 1)
        try:
            return encounter.key()
        finally:
            encounter.round = held

    def node(self, encounter: Encounter) -> int:
        """Advance the other side's decisions; the node (or end code) reached."""
        seen: set[Hashable] = set()
        began = encounter.round
        while True:
            who = encounter.current()
            if who == TERMINAL:
                return _WON if encounter.winner is self.side else _LOST
            if who != CHANCE and encounter.creature(who).side is not self.side:
                if encounter.round != began:  # rounds with no roll and no own decision
                    began = encounter.round
                    key = self._key(encounter)
                    if key in seen:
                        return _LOST  # endless: never won
                    seen.add(key)
                policy = self.policies[encounter.creature(who).side.value]
                encounter.apply(policy.choose(encounter, who))
                continue
            key = self._key(encounter)
            found = self.index.get(key)
            if found is None:
                if len(self.index) >= self.max_nodes:
                    raise StateSpaceTooLargeError(
                        f"more than {self.max_nodes:,} states: too large for a best response"
                    )
                found = self.index[key] = len(self.succ)
                self.chance.append(who == CHANCE)
                self.succ.append([])
                self.choice.append(-1)
                self.pending.append((found, encounter))
            return found

    def build(self, start: Encounter) -> int:
        root = self.node(start)
        while self.pending:
            here, encounter = self.pending.pop()
            out: list[tuple[float, int]] = []
            if self.chance[here]:
                for total, p in encounter.chance_outcomes():
                    child = encounter.clone()
                    child.apply(total)
                    out.append((float(p), self.node(child)))
            else:
                who = encounter.current()
                mine = self.own.choose(encounter, who)
                commands = list(encounter.legal_actions(who))
                if mine not in commands:
                    commands.append(mine)
                for k, command in enumerate(commands):
                    child = encounter.clone()
                    child.apply(command)
                    out.append((1.0, self.node(child)))
                    if command == mine:
                        self.choice[here] = k
            self.succ[here] = out
        return root

    def solve(self, *, best: bool, tolerance: float) -> list[float]:
        values = [0.0] * len(self.succ)

        def v(s: int) -> float:
            return 1.0 if s == _WON else 0.0 if s == _LOST else values[s]

        while True:
            moved = 0.0
            for n in range(len(self.succ) - 1, -1, -1):
                out = self.succ[n]
                if self.chance[n]:
                    new = sum(p * v(s) for p, s in out)
                elif best:
                    new = max(v(s) for _, s in out)
                else:
                    new = v(out[self.choice[n]][1])
                moved = max(moved, abs(new - values[n]))
                values[n] = new
            if moved <= tolerance:
                return values

    def on_path(self, root: int) -> set[int]:
        """The nodes reached when the side plays its policy."""
        reached: set[int] = set()
        stack = [root] if root >= 0 else []
        while stack:
            n = stack.pop()
            if n in reached:
                continue
            reached.add(n)
            out = self.succ[n] if self.chance[n] else [self.succ[n][self.choice[n]]]
            stack.extend(s for _, s in out if s >= 0)
        return reached


def best_response(
    definition: EncounterDef,
    side: Side,
    policies: Mapping[str, Policy],
    *,
    max_nodes: int = DEFAULT_MAX_NODES,
    tolerance: float = DEFAULT_TOLERANCE,
) -> BestResponse:
    """P(``side`` wins) with its best play against ``policies[other side]``, and with
    ``policies[side]`` (deterministic policies; see the module docs)."""
    began = time.monotonic()
    graph = _Graph(side, policies, policies[side.value], max_nodes)
    root = graph.build(Encounter.begin(definition, 0, record=False))
    best = graph.solve(best=True, tolerance=tolerance)
    own = graph.solve(best=False, tolerance=tolerance)

    def at(values: list[float]) -> float:
        return 1.0 if root == _WON else 0.0 if root == _LOST else values[root]

    def value(s: int) -> float:
        return 1.0 if s == _WON else 0.0 if s == _LOST else best[s]

    worse = {
        n
        for n in range(len(graph.succ))
        if not graph.chance[n]
        and max(value(s) for _, s in graph.succ[n])
        > value(graph.succ[n][graph.choice[n]][1]) + 1e-9
    }
    path = graph.on_path(root)
    return BestResponse(
        side,
        at(best),
        at(own),
        len(graph.succ),
        sum(1 for c in graph.chance if not c),
        len(worse),
        len(worse & path),
        time.monotonic() - began,
    )


def best_response_summary(
    definition: EncounterDef,
    side: str,
    policies: Mapping[str, str],
    *,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> dict[str, Any]:
    """``caltrop sim --best-response SIDE`` (issue 25 item 5): the ceiling a designer compares
    tactics against — P(``side`` wins) with its best play against the other side's named
    policy, beside its own policy's, from one graph (JSON-ready). Refused, with the reason,
    for a random policy (no single choice to compare) or a graph past ``max_nodes``."""
    import numpy as np

    from caltrop.sim.exact import NotDeterministicError
    from caltrop.sim.registry import make_policy, policy_entry

    for who, name in policies.items():
        if not policy_entry(name).deterministic:
            raise NotDeterministicError(
                f"--best-response needs deterministic tactics; the {who} policy {name!r} is random"
            )
    made = {who: make_policy(name, np.random.default_rng(0)) for who, name in policies.items()}
    found = best_response(definition, Side(side), made, max_nodes=max_nodes)
    return {
        "side": side,
        "against": policies["npc" if side == "pc" else "pc"],
        "policy_name": policies[side],
        "best": found.best,
        "policy": found.policy,
        "gain": found.best - found.policy,
        "nodes": found.nodes,
        "decisions": found.decisions,
        "worse": found.worse,
        "worse_on_path": found.worse_on_path,
        "seconds": round(found.seconds, 3),
    }


def best_response_text(name: str, found: Mapping[str, Any]) -> str:
    """One line of the CLI and report.md: the best play's win rate beside the policy's."""
    who = "PCs" if found["side"] == "pc" else "NPCs"
    return (
        f"best response, {name}: the {who} win {100 * found['best']:.3f}% playing their best "
        f"against {found['against']}, {100 * found['policy']:.3f}% playing "
        f"{found['policy_name']} ({100 * found['gain']:+.3f} pp to gain; "
        f"{found['worse_on_path']:,} of its decisions on its own path fall short, "
        f"{found['worse']:,} of {found['decisions']:,} anywhere; {found['nodes']:,} states)"
    )


__all__ = [
    "DEFAULT_MAX_NODES",
    "DEFAULT_TOLERANCE",
    "BestResponse",
    "best_response",
    "best_response_summary",
    "best_response_text",
]
