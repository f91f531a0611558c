"""Independent oracles for the dice core: brute-force enumeration and icepool.

Nothing here imports Caltrop's distribution, backend, roll or vector code: the brute force
walks the AST itself with ``itertools.product`` and rounds with ``math.ceil`` on a ``Fraction``,
and the icepool oracle rebuilds every expression from icepool's own dice.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction

import icepool
from hypothesis import strategies as st

from caltrop.dice.ast import Const, Dice, Div, Expr, Group, Node, Term

# -- brute force -----------------------------------------------------------------------------------


def slots(expr: Expr) -> list[int]:
    """Sides of every single die in left-to-right order (walked here, not via Expr.dice_slots)."""
    out: list[int] = []

    def node_slots(node: Node) -> None:
        if isinstance(node, Dice):
            out.extend([node.sides] * node.count)
        elif isinstance(node, Group):
            for t in node.expr.terms:
                node_slots(t.node)
        elif isinstance(node, Div):
            node_slots(node.operand)

    for term in expr.terms:
        node_slots(term.node)
    return out


def evaluate(expr: Expr, faces: Iterator[int]) -> int:
    """The total of ``expr`` when its dice show ``faces`` in left-to-right order."""

    def node_value(node: Node) -> int:
        if isinstance(node, Dice):
            return sum(next(faces) for _ in range(node.count))
        if isinstance(node, Const):
            return node.value
        if isinstance(node, Group):
            return evaluate(node.expr, faces)
        assert isinstance(node, Div)
        return math.ceil(Fraction(node_value(node.operand), node.divisor))

    return sum(term.sign * node_value(term.node) for term in expr.terms)


def outcomes(expr: Expr) -> Iterator[tuple[tuple[int, ...], int]]:
    """Every equally likely tuple of faces and the total it gives."""
    for faces in itertools.product(*(range(1, s + 1) for s in slots(expr))):
        yield faces, evaluate(expr, iter(faces))


def brute_pmf(expr: Expr) -> dict[int, Fraction]:
    """The exact PMF by enumerating every combination of faces (keep the pool small)."""
    counts = Counter(total for _, total in outcomes(expr))
    n = math.prod(slots(expr))
    return {t: Fraction(c, n) for t, c in sorted(counts.items())}


def d4_sums(n: int) -> Counter[int]:
    """Counts of every total of ``n`` d4 by enumerating all 4**n face tuples."""
    return Counter(sum(f) for f in itertools.product(range(1, 5), repeat=n))


# -- icepool ---------------------------------------------------------------------------------------


def to_icepool(expr: Expr) -> icepool.Die:
    """The same expression built from icepool dice (the second, independent oracle)."""

    def node_die(node: Node) -> icepool.Die:
        if isinstance(node, Dice):
            return node.count @ icepool.d(node.sides)
        if isinstance(node, Const):
            return icepool.Die([node.value])
        if isinstance(node, Group):
            return to_icepool(node.expr)
        assert isinstance(node, Div)
        k = node.divisor
        return node_die(node.operand).map(lambda x: -(-x // k))

    total = icepool.Die([0])
    for term in expr.terms:
        part = node_die(term.node)
        total = total + part if term.sign > 0 else total - part
    return total


def icepool_pmf(die: icepool.Die) -> dict[int, Fraction]:
    return {
        int(o): Fraction(q, die.denominator())
        for o, q in zip(die.outcomes(), die.quantities(), strict=True)
        if q
    }


def nonzero(pmf: dict[int, Fraction]) -> dict[int, Fraction]:
    """Drop outcomes of probability 0 (Caltrop lists every integer from min to max)."""
    return {t: p for t, p in pmf.items() if p}


# -- Hypothesis strategies for ASTs ----------------------------------------------------------------


def exprs(
    *, max_count: int = 6, max_sides: int = 12, max_const: int = 20, max_terms: int = 3
) -> st.SearchStrategy[Expr]:
    """Random expressions over every node type: Dice, Const, Group, Div (never Div of Div)."""
    dice = st.builds(Dice, st.integers(0, max_count), st.integers(1, max_sides))
    const = st.builds(Const, st.integers(0, max_const))

    def extend(inner: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
        operand = st.one_of(dice, const, st.builds(Group, inner))
        node = st.one_of(
            dice,
            const,
            st.builds(Group, inner),
            st.builds(Div, operand, st.integers(1, 4)),
        )
        return terms_of(node, max_terms)

    base = terms_of(st.one_of(dice, const), max_terms)
    return st.recursive(base, extend, max_leaves=6)


def terms_of(node: st.SearchStrategy[Node], max_terms: int) -> st.SearchStrategy[Expr]:
    term = st.builds(Term, st.sampled_from([1, -1]), node)
    return st.lists(term, min_size=1, max_size=max_terms).map(lambda ts: Expr(tuple(ts)))
