"""Exact, immutable distributions of dice expressions and of the game's damage mechanics.

A :class:`Distribution` is defined by one recipe and evaluated lazily in either backend of
:mod:`caltrop.dice.backends`: float64 for speed (``pmf()``, ``p_at_least()``, …) or exact
integers for ``Fraction`` results (``pmf_exact()``, ``p_at_least_exact()``, …). Both come from
the same fold, so they cannot disagree about a mechanic. Results are cached.

>>> d = distribution("3d4")
>>> d.p_at_least_exact(10)
Fraction(5, 32)
"""

from __future__ import annotations

import heapq
import math
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import Protocol, Self, TypeVar

import numpy as np

from caltrop.dice.ast import Const, Dice, Div, Expr, Group, Node
from caltrop.dice.backends import ExactPMF, FloatArray, FloatPMF
from caltrop.dice.parse import check_limits, parse
from caltrop.errors import DiceTypeError


class _PMF(Protocol):
    """What both backends provide; the recipes below are written against this."""

    def add(self, other: Self) -> Self: ...
    def power(self, n: int) -> Self: ...
    def negate(self) -> Self: ...
    def scale(self, k: int) -> Self: ...
    def div_ceil(self, k: int) -> Self: ...
    def clamp_min(self, floor: int) -> Self: ...
    def dodge(self, defence: Self) -> Self: ...


P = TypeVar("P", FloatPMF, ExactPMF)


class Recipe(Protocol):
    """How to compute a distribution in either backend: ``recipe(FloatPMF)`` or ``recipe(ExactPMF)``."""

    def __call__(self, backend: type[P], /) -> P: ...


class Step(Protocol):
    """One mechanic applied to a PMF of either backend."""

    def __call__(self, pmf: P, /) -> P: ...


class Distribution:
    """The distribution of an integer outcome, exact and float64, immutable and cached.

    Build one with :func:`distribution` (from an expression) and combine with ``+``, ``-``,
    :meth:`halve_up`, :meth:`scale`, :meth:`damage` and the defences of :mod:`caltrop.dice.defence`.
    """

    __slots__ = ("__dict__", "_recipe", "label")

    def __init__(self, recipe: Recipe, label: str) -> None:
        self._recipe: Recipe = recipe
        self.label = label

    def __repr__(self) -> str:
        return f"Distribution({self.label!r})"

    # -- evaluation -----------------------------------------------------------------------------

    @cached_property
    def _float(self) -> FloatPMF:
        return self._recipe(FloatPMF)

    @cached_property
    def _exact(self) -> ExactPMF:
        return self._recipe(ExactPMF)

    def _derive(self, label: str, step: Step) -> Distribution:
        parent = self

        def recipe(backend: type[P]) -> P:
            return step(parent._in(backend))

        return Distribution(recipe, label)

    def _in(self, backend: type[P]) -> P:
        pmf: FloatPMF | ExactPMF = self._float if backend is FloatPMF else self._exact
        assert isinstance(pmf, backend)
        return pmf

    # -- float64 queries ------------------------------------------------------------------------

    @property
    def min(self) -> int:
        """The smallest possible outcome."""
        return self._float.offset

    @property
    def max(self) -> int:
        """The largest possible outcome."""
        return self._float.offset + len(self._float.probs) - 1

    @property
    def outcomes(self) -> range:
        """Every outcome from :attr:`min` to :attr:`max` (some may have probability 0)."""
        return range(self.min, self.max + 1)

    @property
    def probabilities(self) -> FloatArray:
        """Read-only float64 array: ``probabilities[i]`` is P(outcome = min + i)."""
        return self._float.probs

    def pmf(self) -> dict[int, float]:
        """P(outcome = t) for every t in :attr:`outcomes`, as floats."""
        return {t: float(p) for t, p in zip(self.outcomes, self._float.probs, strict=True)}

    @cached_property
    def _at_least(self) -> FloatArray:
        a = np.cumsum(self._float.probs[::-1])[::-1].copy()
        a.setflags(write=False)
        return a

    def at_least(self) -> FloatArray:
        """Read-only array: ``at_least()[i]`` is P(outcome ≥ min + i)."""
        return self._at_least

    def p_at_least(self, dc: int) -> float:
        """P(total ≥ dc): a check against a DC succeeds iff the total meets or beats it (R16)."""
        if dc <= self.min:
            return 1.0
        if dc > self.max:
            return 0.0
        return float(self._at_least[dc - self.min])

    def p_at_most(self, k: int) -> float:
        """P(total ≤ k)."""
        return 1.0 - self.p_at_least(k + 1)

    @property
    def mean(self) -> float:
        return float(np.dot(np.arange(self.min, self.max + 1), self._float.probs))

    @property
    def stdev(self) -> float:
        """The standard deviation, in float64 (:attr:`variance_exact` is the exact variance):
        odds shown as percentages never need the exact backend (issue 21: ``odds 1000d21``
        spent its time on exact counts it did not show)."""
        values = np.arange(self.min, self.max + 1) - self.mean
        return math.sqrt(max(0.0, float(np.dot(values * values, self._float.probs))))

    def expected_damage(self, evasion: int) -> float:
        """E[max(0, total − evasion)], the mean damage of an attack against Evasion (R16)."""
        values = np.arange(self.min, self.max + 1) - evasion
        return float(np.dot(np.maximum(values, 0), self._float.probs))

    def expected_damage_curve(self, evasions: range) -> FloatArray:
        """:meth:`expected_damage` for every Evasion in ``evasions``, vectorised."""
        values = np.arange(self.min, self.max + 1)
        e = np.asarray(evasions)[:, None]
        curve: FloatArray = np.maximum(values[None, :] - e, 0) @ self._float.probs
        return curve

    # -- exact queries --------------------------------------------------------------------------

    @cached_property
    def _exact_probs(self) -> tuple[Fraction, ...]:
        return self._exact.probabilities()

    def exact_counts(self) -> tuple[tuple[int, ...], int]:
        """The exact PMF as integers: P(outcome = min + i) = ``counts[i] / denominator``
        (running sums of integers are cheap where sums of fractions are not)."""
        e = self._exact
        return e.counts, e.denominator

    def pmf_exact(self) -> dict[int, Fraction]:
        """P(outcome = t) for every t in :attr:`outcomes`, as exact fractions."""
        return dict(zip(self.outcomes, self._exact_probs, strict=True))

    def p_at_least_exact(self, dc: int) -> Fraction:
        """Exact P(total ≥ dc)."""
        e = self._exact
        start = max(dc - e.offset, 0)
        return Fraction(sum(e.counts[start:]), e.denominator)

    def p_at_most_exact(self, k: int) -> Fraction:
        """Exact P(total ≤ k)."""
        return 1 - self.p_at_least_exact(k + 1)

    @cached_property
    def mean_exact(self) -> Fraction:
        e = self._exact
        return Fraction(sum((e.offset + i) * c for i, c in enumerate(e.counts)), e.denominator)

    @cached_property
    def variance_exact(self) -> Fraction:
        e = self._exact
        m = self.mean_exact
        second = Fraction(
            sum((e.offset + i) ** 2 * c for i, c in enumerate(e.counts)), e.denominator
        )
        return second - m * m

    def expected_damage_exact(self, evasion: int) -> Fraction:
        """Exact E[max(0, total − evasion)] (R16)."""
        e = self._exact
        total = sum(max(0, e.offset + i - evasion) * c for i, c in enumerate(e.counts))
        return Fraction(total, e.denominator)

    # -- combinators ----------------------------------------------------------------------------

    def __add__(self, other: Distribution | int) -> Distribution:
        rhs = constant(other) if isinstance(other, int) else other

        def recipe(backend: type[P]) -> P:
            return self._in(backend).add(rhs._in(backend))

        return Distribution(recipe, f"{self.label}+{rhs.label}")

    def __neg__(self) -> Distribution:
        return self._derive(f"-({self.label})", lambda p: p.negate())

    def __sub__(self, other: Distribution | int) -> Distribution:
        rhs = constant(other) if isinstance(other, int) else other
        return self + (-rhs)

    def scale(self, k: int) -> Distribution:
        """Distribution of ``k × outcome`` (``k ≥ 1``): Take Cover doubles a defence total (R40)."""
        if k < 1:
            raise ValueError(f"scale factor must be at least 1, not {k}")
        return self._derive(f"{k}*({self.label})", lambda p: p.scale(k))

    def div_ceil(self, k: int) -> Distribution:
        """Distribution of ``ceil(outcome / k)``."""
        if k < 1:
            raise ValueError(f"divisor must be at least 1, not {k}")
        return self._derive(f"({self.label})/{k}", lambda p: p.div_ceil(k))

    def halve_up(self) -> Distribution:
        """Halved, rounding up: melee damage dice (R38)."""
        return self.div_ceil(2)

    def clamp_min(self, floor: int) -> Distribution:
        """Distribution of ``max(floor, outcome)``."""
        return self._derive(f"max({floor},{self.label})", lambda p: p.clamp_min(floor))

    def damage(self, evasion: int) -> Distribution:
        """Damage of an attack: ``max(0, total − evasion)`` (R16)."""
        return (self - evasion).clamp_min(0)

    def dodged_by(self, defence: Distribution) -> Distribution:
        """All-or-nothing: ``0`` if ``defence ≥ self`` else ``self`` (R40 Dodge)."""

        def recipe(backend: type[P]) -> P:
            return self._in(backend).dodge(defence._in(backend))

        return Distribution(recipe, f"dodge({self.label} vs {defence.label})")


def constant(value: int) -> Distribution:
    """The distribution that is always ``value``."""

    def recipe(backend: type[P]) -> P:
        return backend.const(value)

    return Distribution(recipe, str(value))


@lru_cache(maxsize=4096)
def dice(count: int, sides: int) -> Distribution:
    """The sum of ``count`` dice with ``sides`` faces (cached)."""

    def recipe(backend: type[P]) -> P:
        return backend.dice(count, sides)

    return Distribution(recipe, f"{count}d{sides}")


def _of_node(node: Node) -> Distribution:
    match node:
        case Dice(count=count, sides=sides):
            return dice(count, sides)
        case Const(value=value):
            return constant(value)
        case Group(expr=inner):
            return distribution(inner)
        case Div(operand=operand, divisor=divisor):
            return _of_node(operand).div_ceil(divisor)
    raise TypeError(f"not a dice node: {node!r}")  # pragma: no cover


#: The most dice of one kind added to a larger sum one die at a time (:func:`_of_expr`).
_BY_DIE = 64


@lru_cache(maxsize=4096)
def _of_expr(expr: Expr) -> Distribution:
    check_limits(expr)  # an expression built in code meets the limits of a typed one
    # Dice of one kind and sign are one sum (500d21+500d21 is 1000d21): one linear-time count
    # (ExactPMF.dice) instead of a product of two huge polynomials.
    # A group added or subtracted as it is, (33d8) or -(2d6+1d4), is its terms with the sign
    # carried in (a sum is the same in any grouping), so its dice join their kind.
    same: dict[tuple[int, int], int] = {}
    others: list[tuple[int, Distribution]] = []
    flat: list[tuple[int, Node]] = [(term.sign, term.node) for term in expr.terms]
    while flat:
        sign, node = flat.pop(0)
        if isinstance(node, Group):
            flat[:0] = [(sign * t.sign, t.node) for t in node.expr.terms]
        elif isinstance(node, Dice):
            key = (sign, node.sides)
            same[key] = same.get(key, 0) + node.count
        else:
            others.append((sign, _of_node(node)))
    # A few dice beside a much larger sum (50d6+906d20) are added to it one die at a time
    # (ExactPMF.add_dice: additions over its totals), not multiplied in as a polynomial of few
    # small counts by one of many big ones.
    span = sum(count * (sides - 1) for (_, sides), count in same.items()) + sum(
        d.max - d.min for _, d in others
    )
    by_die = {
        key: count
        for key, count in same.items()
        if count <= _BY_DIE and 8 * count * (key[1] - 1) <= span - count * (key[1] - 1)
    }
    parts = (
        *(
            (sign, dice(count, sides))
            for (sign, sides), count in same.items()
            if (sign, sides) not in by_die
        ),
        *others,
    )
    if not parts:  # every kind is small: the largest is the base the others are added to
        largest = max(by_die, key=lambda key: by_die[key] * (key[1] - 1))
        parts = ((largest[0], dice(by_die.pop(largest), largest[1])),)

    # One flat loop over the (cached) parts, not a chain of ``a + b`` nodes: a sum of a hundred
    # terms evaluates in one frame instead of recursing a hundred parents deep. The two smallest
    # are summed first (Huffman's order; a sum is the same in any order): a fold from the left
    # multiplied the whole growing total by each of k kinds of die, k products of the full size
    # (issue 21 item 6: 50d2+50d3+…+50d21 --exact); this order makes about log2(k) rounds of
    # products whose sizes add up to the whole.
    def recipe(backend: type[P]) -> P:
        heap: list[tuple[int, int, P]] = []
        for k, (sign, part) in enumerate(parts):
            pmf = part._in(backend)
            heap.append((part.max - part.min + 1, k, pmf.negate() if sign < 0 else pmf))
        heapq.heapify(heap)
        seq = len(heap)
        while len(heap) > 1:
            size_a, _, a = heapq.heappop(heap)
            size_b, _, b = heapq.heappop(heap)
            heapq.heappush(heap, (size_a + size_b - 1, seq, a.add(b)))
            seq += 1
        total = heap[0][2]
        for (sign, sides), count in by_die.items():
            if isinstance(total, ExactPMF):
                total = total.add_dice(count, sides, sign)
            else:
                pmf = dice(count, sides)._in(backend)
                total = total.add(pmf.negate() if sign < 0 else pmf)
        return total

    return Distribution(recipe, str(expr))


def distribution(expr: Expr | str) -> Distribution:
    """The exact distribution of a dice expression (text or parsed), cached by expression.

    Raises :class:`~caltrop.errors.DiceLimitError` for an expression past the limits of
    :func:`~caltrop.dice.parse.check_limits`, and :class:`~caltrop.errors.DiceTypeError` for
    anything that is neither text nor an :class:`~caltrop.dice.ast.Expr`."""
    if isinstance(expr, str):
        return _of_expr(parse(expr))
    if not isinstance(expr, Expr):
        raise DiceTypeError(f"a dice expression is text or an Expr, not {type(expr).__name__}")
    return _of_expr(expr)


def clear_caches() -> None:
    """Forget every cached distribution (benchmarks use this to measure cold builds)."""
    dice.cache_clear()
    _of_expr.cache_clear()
