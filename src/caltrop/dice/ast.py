"""Frozen syntax nodes of a dice expression.

``str(node)`` gives the canonical text form, and ``parse(str(node)) == node`` (a property test
checks it). Nodes are immutable and hashable, so they serve as cache keys for exact distributions.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal, TypeAlias

Sign: TypeAlias = Literal[1, -1]


@dataclass(frozen=True, slots=True)
class Dice:
    """``count`` dice with ``sides`` faces each, summed: ``5d4``."""

    count: int
    sides: int

    def __str__(self) -> str:
        return f"{self.count}d{self.sides}"


@dataclass(frozen=True, slots=True)
class Const:
    """A non-negative integer constant; its sign belongs to the enclosing :class:`Term`."""

    value: int

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True, slots=True)
class Group:
    """A parenthesised sub-expression: ``(1d8+1d6)``."""

    expr: Expr

    def __str__(self) -> str:
        return f"({self.expr})"


@dataclass(frozen=True, slots=True)
class Div:
    """``operand`` divided by ``divisor``, rounding up (R38's "halved up" is ``/2``)."""

    operand: Dice | Const | Group
    divisor: int

    def __str__(self) -> str:
        return f"{self.operand}/{self.divisor}"


Node: TypeAlias = Dice | Const | Group | Div


@dataclass(frozen=True, slots=True)
class Term:
    """One signed summand of an expression."""

    sign: Sign
    node: Node


@dataclass(frozen=True, slots=True)
class Expr:
    """A sum of signed terms: the root of every dice expression."""

    terms: tuple[Term, ...]

    def __post_init__(self) -> None:
        if not self.terms:
            raise ValueError("a dice expression needs at least one term")

    def __str__(self) -> str:
        parts: list[str] = []
        for i, term in enumerate(self.terms):
            if term.sign < 0:
                parts.append(f"-{term.node}")
            elif i:
                parts.append(f"+{term.node}")
            else:
                parts.append(str(term.node))
        return "".join(parts)

    def dice(self) -> Iterator[Dice]:
        """Every :class:`Dice` node, in the order their dice are rolled or entered."""
        for term in self.terms:
            yield from _dice_of(term.node)

    def dice_slots(self) -> tuple[int, ...]:
        """The number of sides of every single die, in roll/entry order (``5d4+1d8`` → 4,4,4,4,4,8)."""
        return tuple(d.sides for d in self.dice() for _ in range(d.count))


def _dice_of(node: Node) -> Iterator[Dice]:
    match node:
        case Dice():
            yield node
        case Const():
            return
        case Group(expr=expr):
            yield from expr.dice()
        case Div(operand=operand):
            yield from _dice_of(operand)


def pool(d4: int, *extra: Dice | Const) -> Expr:
    """The expression of a d4 pool plus extra dice: ``pool(4, Dice(1, 8))`` is ``4d4+1d8``."""
    terms = [Term(1, Dice(d4, 4))]
    terms.extend(Term(1, e) for e in extra)
    return Expr(tuple(terms))
