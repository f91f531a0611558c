"""Parse dice notation (grammar in ``grammar.lark``) into frozen :mod:`caltrop.dice.ast` nodes."""

from __future__ import annotations

from functools import lru_cache
from importlib.resources import files
from typing import Any

from lark import Lark, Token, Transformer, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput

from caltrop.dice.ast import Const, Dice, Div, Expr, Group, Node, Sign, Term
from caltrop.errors import DiceLimitError, DiceSyntaxError

#: A cap on dice per expression and sides per die, as in d20's roller: keeps odds and rolls cheap.
MAX_DICE = 1000
MAX_SIDES = 1000
#: A cap on the number of distinct totals (the sum of count × (sides − 1) over all dice), so
#: exact distributions stay small: 1000d4 spans 3001 totals; 1000d1000 would span ~a million.
MAX_SPAN = 20_000


@lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = files("caltrop.dice").joinpath("grammar.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", propagate_positions=False)


def _sign(token: Token) -> Sign:
    return -1 if str(token) == "-" else 1


class _ToAst(Transformer[Token, Any]):
    def start(self, items: list[Any]) -> Expr:
        terms: list[Term] = [items[0]]
        for sign_token, node in zip(items[1::2], items[2::2], strict=True):
            terms.append(Term(_sign(sign_token), node))
        return Expr(tuple(terms))

    def first_term(self, items: list[Any]) -> Term:
        if len(items) == 2:
            return Term(_sign(items[0]), items[1])
        return Term(1, items[0])

    def dice(self, items: list[Token]) -> Dice:
        count = int(items[0]) if len(items) == 2 else 1
        sides = int(items[-1])
        return Dice(count, sides)

    def const(self, items: list[Token]) -> Const:
        return Const(int(items[0]))

    def group(self, items: list[Expr]) -> Group:
        return Group(items[0])

    def div(self, items: list[Any]) -> Div:
        operand: Node = items[0]
        if isinstance(operand, Div):  # pragma: no cover - the grammar forbids a/b/c
            raise AssertionError("nested division")
        return Div(operand, int(items[1]))


def parse(text: str) -> Expr:
    """Parse ``text`` (``5d4+1d8``, ``3d4-2``, ``2d8/2+3``) into an :class:`Expr`.

    Raises :class:`DiceSyntaxError` pointing at the offending character, and
    :class:`DiceLimitError` for zero-sided dice, division by zero or more than ``MAX_DICE`` dice.
    """
    try:
        tree = _parser().parse(text)
    except UnexpectedCharacters as exc:
        bad = text[exc.pos_in_stream] if exc.pos_in_stream is not None else "?"
        raise DiceSyntaxError(text, exc.column, f"unexpected character {bad!r}") from None
    except UnexpectedEOF:
        raise DiceSyntaxError(text, len(text) + 1, "the expression ends too early") from None
    except UnexpectedInput as exc:
        column = exc.column if isinstance(exc.column, int) and exc.column > 0 else len(text) + 1
        token = getattr(exc, "token", None)
        if token is not None and getattr(token, "type", "") == "$END":
            raise DiceSyntaxError(text, len(text) + 1, "the expression ends too early") from None
        shown = repr(str(token)) if token is not None else "input"
        raise DiceSyntaxError(text, column, f"unexpected {shown}") from None
    expr: Expr = _ToAst().transform(tree)
    check_limits(expr)
    return expr


def check_limits(expr: Expr) -> None:
    """Reject dice with fewer than 1 side, division by zero, more than ``MAX_DICE`` dice and
    expressions whose totals span more than ``MAX_SPAN``."""
    total = 0
    span = 0
    for d in expr.dice():
        if d.sides < 1:
            raise DiceLimitError(f"{d}: a die needs at least 1 side")
        if d.sides > MAX_SIDES:
            raise DiceLimitError(f"{d}: at most {MAX_SIDES} sides per die")
        total += d.count
        span += d.count * (d.sides - 1)
    if total > MAX_DICE:
        raise DiceLimitError(f"{expr}: {total} dice; at most {MAX_DICE} per expression")
    if span > MAX_SPAN:
        raise DiceLimitError(
            f"{expr}: {span + 1} possible totals; at most {MAX_SPAN + 1} per expression"
        )
    _check_divisors(expr)


def _check_divisors(expr: Expr) -> None:
    for term in expr.terms:
        node = term.node
        if isinstance(node, Div):
            if node.divisor < 1:
                raise DiceLimitError(f"{node}: cannot divide by {node.divisor}")
            node = node.operand
        if isinstance(node, Group):
            _check_divisors(node.expr)
