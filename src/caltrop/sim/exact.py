"""Exact win probabilities of small encounters under deterministic tactics (no sampling error),
with no round cap: the encounter solved as an absorbing Markov chain.

Decisions are made by the policies (which must be deterministic: the same state always gets the
same choice), so the encounter is a Markov chain over its *chance states* (a roll is pending and
nobody can react to it any more): from each, every total of the pending roll leads, with its
exact probability (:meth:`Encounter.chance_outcomes`), through the policies' decisions to the
next chance state or to the end. The chain is built once (:func:`explore`), then solved exactly
(:func:`solve_chain`).

**No round counter.** A state's key is :meth:`Encounter.key` with the round number left out
(only "initiative done or not" is kept): neither the Action Load rules nor the bundled tactics
read the round number, so two states that differ only in it have the same future (tested:
``tests/sim/test_exact.py`` compares their legal actions and the policies' choices). Rounds in
which nobody deals damage then *return* to a state already seen: the chain has cycles, and
they are solved, not unrolled. A policy that does read the round (the Action Point module's
``tactical``, whose patience runs out after 12 rounds) keeps the round in the key and needs a
round cap (``max_rounds``); so does any explicit ``max_rounds``, which makes fights still going
after that many rounds draws, exactly as in sampled runs.

**Exact arithmetic.** The chain's strongly connected components are solved one at a time, sinks
first (Tarjan's order): a component's states depend only on each other and on components already
solved, so each is one small linear system, eliminated over :class:`~fractions.Fraction`. The
answer is the exact rational probability; nothing is rounded.

**Refused up front.** Before any solving, :func:`estimate_states` explores the states reachable
without anyone losing Health (a few seconds at most) and multiplies by the number of Health
combinations still undecided; an encounter whose estimate is over ``max_states`` is refused then,
with the estimate in the message. Past the estimate, exploration counts real states toward
``max_states`` (``progress`` is called as they add up) and stops at the cap.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from caltrop.core.model import EncounterDef, Side
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.errors import NotDeterministicError as NotDeterministicError
from caltrop.errors import StateSpaceTooLargeError as StateSpaceTooLargeError
from caltrop.sim.policies import Policy
from caltrop.sim.registry import make_policy, policy_entry

#: Distinct chance states the solver visits before it refuses.
DEFAULT_MAX_STATES = 100_000
#: States explored between two calls of a ``progress`` callback.
PROGRESS_EVERY = 500
#: At most this long is spent estimating the size of the chain before exploring it.
ESTIMATE_SECONDS = 3.0

_ZERO = Fraction(0)
_ONE = Fraction(1)

#: what a chance outcome leads to when the encounter ends there (not a state index); ENDLESS:
#: rounds go by with no roll and nothing changes (nobody acts), so it never ends
PC_WINS, NPC_WINS, DRAWN, ENDLESS = -1, -2, -3, -4


@dataclass(frozen=True, slots=True)
class ExactResult:
    """Exact probabilities that each side wins or neither does (``draw``: the round cap, a GM's
    end, or a fight that never ends: ``endless``, part of ``draw``); the exact expected number
    of rounds of the fights that end; how many chance states were solved; the seconds it took."""

    pc: Fraction
    npc: Fraction
    draw: Fraction
    rounds: Fraction
    states: int
    endless: Fraction = _ZERO
    seconds: float = field(default=0.0, compare=False)
    max_rounds: int | None = None

    def win_rate(self, side: str) -> Fraction:
        return self.pc if side == Side.PC.value else self.npc

    def as_dict(self) -> dict[str, Any]:
        return {
            "win_rate": {
                "pc": _fraction_json(self.pc),
                "npc": _fraction_json(self.npc),
                "draw": _fraction_json(self.draw),
            },
            "endless": float(self.endless),
            "rounds_mean": float(self.rounds),
            "states": self.states,
            "seconds": round(self.seconds, 3),
            "max_rounds": self.max_rounds,
        }


def _fraction_json(value: Fraction) -> dict[str, Any]:
    return {"p": float(value), "exact": f"{value.numerator}/{value.denominator}"}


# -- the chain ---------------------------------------------------------------------------------

#: one chance outcome: (next state's index, or PC_WINS / NPC_WINS / DRAWN; its probability;
#: the rounds that began on the way)
Edge = tuple[int, Fraction, int]


@dataclass(slots=True)
class Chain:
    """The encounter's chance states and their outcomes. ``start`` is the first chance state
    (or an end code, if the encounter ends before any roll), ``start_round`` the round then."""

    edges: list[list[Edge]]
    start: int
    start_round: int


def reads_round(definition: EncounterDef, policies: Mapping[str, str]) -> bool:
    """Whether the named policies read the round number in this encounter's economy (then the
    round stays in the state key, and a round cap is needed)."""
    economy = definition.ruleset.economy
    return any(economy in policy_entry(name).reads_round_in for name in policies.values())


class _Walker:
    """Follows the policies' decisions to the next chance state or the end, and keys states."""

    def __init__(
        self,
        definition: EncounterDef,
        policies: Mapping[str, Policy],
        max_rounds: int | None,
    ) -> None:
        self.side_of = {c.id: c.side.value for c in definition.participants}
        self.policy_of = {who: policies[side] for who, side in self.side_of.items()}
        self.max_rounds = max_rounds

    def advance(self, encounter: Encounter) -> int | None:
        """Apply decisions until a chance point (returns None) or the end (returns its code)."""
        cap = self.max_rounds
        began = encounter.round
        seen: set[Hashable] = set()  # the states at each new round with no roll in between
        while True:
            who = encounter.current()
            if who == TERMINAL:
                if encounter.winner is Side.PC:
                    return PC_WINS
                if encounter.winner is Side.NPC:
                    return NPC_WINS
                return DRAWN
            if cap is not None and encounter.round > cap:  # a draw that lasted the rounds allowed
                return DRAWN
            if who == CHANCE:
                return None
            if cap is None and encounter.round != began:
                began = encounter.round
                key = self.key(encounter)
                if key in seen:
                    return ENDLESS
                seen.add(key)
            encounter.apply(self.policy_of[who].choose(encounter, who))

    def key(self, encounter: Encounter) -> Hashable:
        """:meth:`Encounter.key` with the round number reduced to "started or not" (unless a
        cap keeps it: then the round decides the future)."""
        if self.max_rounds is not None:
            return encounter.key()
        held = encounter.round
        encounter.round = min(held, 1)
        try:
            return encounter.key()
        finally:
            encounter.round = held

    def rounds_to(self, encounter: Encounter, code: int | None) -> int:
        """The round the walk stopped in (a draw at the cap lasted ``max_rounds``)."""
        if self.max_rounds is not None and code == DRAWN:
            return min(encounter.round, self.max_rounds)
        return encounter.round


def _health(encounter: Encounter) -> tuple[int, ...]:
    return tuple(encounter.health)


@dataclass(frozen=True, slots=True)
class Estimate:
    """How many chance states an encounter has, roughly: the states reachable before anyone
    loses Health (``unhurt``; ``complete`` if all were found in the time allowed) times the
    Health combinations in which both sides still stand (``combinations``)."""

    unhurt: int
    complete: bool
    combinations: int

    @property
    def states(self) -> int:
        return self.unhurt * self.combinations


def _combinations(definition: EncounterDef) -> int:
    """Health combinations with someone standing on each side: ∏(h+1) − 1 per side, times."""
    out = 1
    for side in Side:
        hs = [c.health for c in definition.participants if c.side is side]
        out *= max(1, math.prod(max(0, h) + 1 for h in hs) - 1)
    return out


def estimate_states(
    definition: EncounterDef,
    policies: Mapping[str, Policy],
    *,
    limit: int,
    seconds: float = ESTIMATE_SECONDS,
    max_rounds: int | None = None,
) -> Estimate:
    """:class:`Estimate` from a short exploration: at most ``limit`` unhurt states, at most
    ``seconds`` long. The states of one Health combination (Load, turn, pending roll) are about
    as many in every combination, so this is the right order of magnitude (tested against the
    full count)."""
    walker = _Walker(definition, policies, max_rounds)
    start = Encounter.begin(definition, 0, record=False)
    if walker.advance(start) is not None:
        return Estimate(0, True, _combinations(definition))
    full = _health(start)
    seen = {walker.key(start)}
    stack = [start]
    deadline = time.monotonic() + seconds
    while stack:
        if len(seen) >= limit or time.monotonic() > deadline:
            return Estimate(len(seen), False, _combinations(definition))
        encounter = stack.pop()
        for total, _p in encounter.chance_outcomes():
            child = encounter.clone()
            child.apply(total)
            if walker.advance(child) is not None or _health(child) != full:
                continue
            key = walker.key(child)
            if key not in seen:
                seen.add(key)
                stack.append(child)
    return Estimate(len(seen), True, _combinations(definition))


def explore(
    definition: EncounterDef,
    policies: Mapping[str, Policy],
    *,
    max_states: int = DEFAULT_MAX_STATES,
    max_rounds: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> Chain:
    """Every chance state reachable under the policies, with its outcomes; refuses past
    ``max_states``."""
    walker = _Walker(definition, policies, max_rounds)
    start = Encounter.begin(definition, 0, record=False)
    code = walker.advance(start)
    if code is not None:
        return Chain([], code, walker.rounds_to(start, code))
    index: dict[Hashable, int] = {walker.key(start): 0}
    edges: list[list[Edge]] = [[]]
    stack = [(0, start)]
    reported = 0
    while stack:
        here, encounter = stack.pop()
        out: list[Edge] = []
        for total, p in encounter.chance_outcomes():
            child = encounter.clone()
            child.apply(total)
            code = walker.advance(child)
            if code is not None:
                out.append((code, p, walker.rounds_to(child, code) - encounter.round))
                continue
            key = walker.key(child)
            there = index.get(key)
            if there is None:
                if len(index) >= max_states:
                    raise StateSpaceTooLargeError(
                        f"more than {max_states:,} chance states: too large to solve exactly; "
                        "sample it instead (drop --exact), or raise --max-states"
                    )
                there = index[key] = len(edges)
                edges.append([])
                stack.append((there, child))
                if progress is not None and len(index) - reported >= PROGRESS_EVERY:
                    progress(PROGRESS_EVERY)
                    reported += PROGRESS_EVERY
            out.append((there, p, child.round - encounter.round))
        edges[here] = out
    return Chain(edges, 0, start.round)


# -- solving -----------------------------------------------------------------------------------

#: per state: P(PC wins), P(NPC wins), P(ended undecided), E[rounds · 1{the fight ends}]
_Value = tuple[Fraction, Fraction, Fraction, Fraction]

_ENDS: dict[int, _Value] = {
    PC_WINS: (_ONE, _ZERO, _ZERO, _ZERO),
    NPC_WINS: (_ZERO, _ONE, _ZERO, _ZERO),
    DRAWN: (_ZERO, _ZERO, _ONE, _ZERO),
    ENDLESS: (_ZERO, _ZERO, _ZERO, _ZERO),
}


def _components(edges: list[list[Edge]]) -> list[list[int]]:
    """Tarjan's strongly connected components, iteratively; sinks come first."""
    n = len(edges)
    order = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    out: list[list[int]] = []
    counter = 0
    for root in range(n):
        if order[root] >= 0:
            continue
        work = [(root, 0)]
        order[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            v, i = work[-1]
            succ = edges[v]
            while i < len(succ) and (succ[i][0] < 0 or order[succ[i][0]] >= 0):
                w = succ[i][0]
                if w >= 0 and on_stack[w]:
                    low[v] = min(low[v], order[w])
                i += 1
            if i < len(succ):
                w = succ[i][0]
                work[-1] = (v, i + 1)
                order[w] = low[w] = counter
                counter += 1
                stack.append(w)
                on_stack[w] = True
                work.append((w, 0))
                continue
            work.pop()
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == order[v]:
                comp: list[int] = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
    return out


def _ended(v: _Value) -> Fraction:
    return v[0] + v[1] + v[2]


def _solve_component(
    comp: list[int], edges: list[list[Edge]], values: list[_Value | None]
) -> list[_Value]:
    """x = Q x + b over one component (Q: its inner transitions), by Gaussian elimination over
    rationals. A component nothing leaves is a fight that never ends (all zeros)."""
    where = {s: k for k, s in enumerate(comp)}
    m = len(comp)
    leaves = False
    # rows: m coefficients for the win/draw values, then the right-hand side (3 numbers)
    a = [[_ZERO] * m for _ in range(m)]
    b = [[_ZERO, _ZERO, _ZERO] for _ in range(m)]
    for k, s in enumerate(comp):
        a[k][k] += _ONE
        for t, p, _dr in edges[s]:
            if t >= 0 and t in where:
                a[k][where[t]] -= p
                continue
            leaves = True
            v = _ENDS[t] if t < 0 else values[t]
            assert v is not None
            for j in range(3):
                b[k][j] += p * v[j]
    if not leaves:
        return [(_ZERO, _ZERO, _ZERO, _ZERO)] * m
    probs = _eliminate(a, b)
    # E[rounds · 1{ends}] = Σ p (Δrounds · P(ends | next) + E[…| next]): the same matrix
    c = [[_ZERO] for _ in range(m)]
    inner = [probs[k][0] + probs[k][1] + probs[k][2] for k in range(m)]
    for k, s in enumerate(comp):
        for t, p, dr in edges[s]:
            if t >= 0 and t in where:
                if dr:
                    c[k][0] += p * dr * inner[where[t]]
                continue
            v = _ENDS[t] if t < 0 else values[t]
            assert v is not None
            c[k][0] += p * (dr * _ended(v) + v[3])
    a2 = [[_ZERO] * m for _ in range(m)]
    for k, s in enumerate(comp):
        a2[k][k] += _ONE
        for t, p, _dr in edges[s]:
            if t >= 0 and t in where:
                a2[k][where[t]] -= p
    rounds = _eliminate(a2, c)
    return [(probs[k][0], probs[k][1], probs[k][2], rounds[k][0]) for k in range(m)]


def _eliminate(a: list[list[Fraction]], b: list[list[Fraction]]) -> list[list[Fraction]]:
    """Solve a x = b (several right-hand sides) by Gauss–Jordan elimination, skipping zeros
    (the rows are sparse). ``a`` is nonsingular: every state of a component that something
    leaves can reach the exit, so I − Q is invertible."""
    m = len(a)
    for col in range(m):
        pivot = next((r for r in range(col, m) if a[r][col] != 0), None)
        if pivot is None:  # a state no path leaves: it never ends (all its values are zero)
            continue
        if pivot != col:
            a[col], a[pivot] = a[pivot], a[col]
            b[col], b[pivot] = b[pivot], b[col]
        row, rhs = a[col], b[col]
        inv = 1 / row[col]
        if inv != 1:
            for j in range(col, m):
                if row[j]:
                    row[j] *= inv
            for j in range(len(rhs)):
                rhs[j] *= inv
        nonzero = [j for j in range(col + 1, m) if row[j]]
        for r in range(m):
            if r == col:
                continue
            f = a[r][col]
            if not f:
                continue
            target = a[r]
            target[col] = _ZERO
            for j in nonzero:
                target[j] -= f * row[j]
            tb = b[r]
            for j in range(len(rhs)):
                if rhs[j]:
                    tb[j] -= f * rhs[j]
    return b


def solve_chain(chain: Chain) -> tuple[_Value, int]:
    """The value of the start state, and the number of states."""
    if chain.start < 0:
        pc, npc, draw, _ = _ENDS[chain.start]
        return (pc, npc, draw, Fraction(chain.start_round)), 0
    values: list[_Value | None] = [None] * len(chain.edges)
    for comp in _components(chain.edges):
        for s, v in zip(comp, _solve_component(comp, chain.edges, values), strict=True):
            values[s] = v
    start = values[chain.start]
    assert start is not None
    return start, len(chain.edges)


# -- the entry points --------------------------------------------------------------------------


def solve(
    definition: EncounterDef,
    policies: Mapping[str, str],
    *,
    max_states: int = DEFAULT_MAX_STATES,
    max_rounds: int | None = None,
    progress: Callable[[int], None] | None = None,
    estimated: Callable[[Estimate], None] | None = None,
) -> ExactResult:
    """The exact outcome distribution of ``definition`` with the named policies per side.

    ``max_rounds`` None: no round cap (a round-reading policy gets the sampler's default cap,
    :data:`caltrop.sim.runner.DEFAULT_MAX_ROUNDS`). ``estimated(e)`` hears the size estimate
    before exploration; ``progress(k)`` is called as states are found (``k`` more each time)."""
    for side, name in policies.items():
        if not policy_entry(name).deterministic:
            raise NotDeterministicError(
                f"--exact needs deterministic tactics; the {side} policy {name!r} is random"
            )
    if max_rounds is None and reads_round(definition, policies):
        from caltrop.sim.runner import DEFAULT_MAX_ROUNDS

        max_rounds = DEFAULT_MAX_ROUNDS
    import numpy as np

    rng = np.random.default_rng(0)  # never drawn from: the policies are deterministic
    chosen = {side: make_policy(name, rng) for side, name in policies.items()}
    return solve_with(
        definition,
        chosen,
        max_states=max_states,
        max_rounds=max_rounds,
        progress=progress,
        estimated=estimated,
    )


def solve_with(
    definition: EncounterDef,
    policies: Mapping[str, Policy],
    *,
    max_states: int = DEFAULT_MAX_STATES,
    max_rounds: int | None = None,
    progress: Callable[[int], None] | None = None,
    estimated: Callable[[Estimate], None] | None = None,
) -> ExactResult:
    """:func:`solve` with policy objects (which must be deterministic and, with no
    ``max_rounds``, must not read the round number)."""
    began = time.monotonic()
    estimate = estimate_states(definition, policies, limit=max_states, max_rounds=max_rounds)
    if estimated is not None:
        estimated(estimate)
    if estimate.states > max_states:
        about = "at least" if not estimate.complete else "about"
        raise StateSpaceTooLargeError(
            f"{about} {estimate.states:,} chance states ({estimate.unhurt:,} before anyone is "
            f"hurt × {estimate.combinations:,} Health combinations), more than --max-states "
            f"{max_states:,}: too large to solve exactly; sample it instead (drop --exact), or "
            "raise --max-states"
        )
    chain = explore(
        definition, policies, max_states=max_states, max_rounds=max_rounds, progress=progress
    )
    (pc, npc, draw, rounds_ended), states = solve_chain(chain)
    ended = pc + npc + draw
    endless = 1 - ended
    rounds = chain.start_round + rounds_ended / ended if ended else _ZERO
    if chain.start < 0:
        rounds = rounds_ended
    return ExactResult(
        pc,
        npc,
        draw + endless,
        rounds,
        states,
        endless=endless,
        seconds=time.monotonic() - began,
        max_rounds=max_rounds,
    )


__all__ = [
    "DEFAULT_MAX_STATES",
    "Chain",
    "Estimate",
    "ExactResult",
    "NotDeterministicError",
    "StateSpaceTooLargeError",
    "estimate_states",
    "explore",
    "reads_round",
    "solve",
    "solve_chain",
    "solve_with",
]
