"""Parse dice notation (grammar in ``grammar.lark``) into frozen :mod:`caltrop.dice.ast` nodes.

Every expression, typed or built in code, is held to the same limits (:func:`check_limits`): a
bounded length and nesting depth are checked on the text before the parser sees it, so neither a
megabyte of ``1+1+…`` nor ten thousand parentheses costs more than a scan; dice, sides, totals,
terms and numbers are checked on the tree. A refusal is a :class:`~caltrop.errors.DiceLimitError`
(or :class:`~caltrop.errors.DiceSyntaxError` / :class:`~caltrop.errors.DiceTypeError`), never a
``RecursionError``, ``MemoryError`` or ``OverflowError``.
"""

from __future__ import annotations

import functools
from functools import lru_cache
from importlib.resources import files
from typing import Any

from lark import Lark, Token, Transformer, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput

from caltrop.dice.ast import Const, Dice, Div, Expr, Group, Node, Sign, Term
from caltrop.errors import DiceLimitError, DiceSyntaxError, DiceTypeError

#: A cap on dice per expression and sides per die, as in d20's roller: keeps odds and rolls cheap.
MAX_DICE = 1000
MAX_SIDES = 1000
#: A cap on the number of distinct totals (the sum of count × (sides − 1) over all dice), so
#: exact distributions stay small: 1000d4 spans 3001 totals; 1000d1000 would span ~a million.
MAX_SPAN = 20_000
#: The longest expression text: far beyond any table's need (``500d4+500d4`` is 11 characters),
#: short enough that refusing or parsing it costs microseconds, and numbers in it stay far below
#: Python's 4,300-digit limit on integer conversion.
MAX_LENGTH = 1000
#: Parentheses nested deeper than this are refused before parsing (the tree walks recurse).
MAX_DEPTH = 16
#: Signed terms in an expression, counting those inside groups (``1+1+…`` a hundred times).
MAX_TERMS = 100
#: The largest constant or divisor: keeps every total and mean a finite float.
MAX_NUMBER = 1_000_000


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
    :class:`DiceLimitError` for zero-sided dice, division by zero, more than ``MAX_DICE`` dice
    or any other limit of :func:`check_limits`; and :class:`DiceTypeError` for anything that is
    not a ``str`` (``None``, bytes).
    """
    if not isinstance(text, str):
        raise DiceTypeError(f"a dice expression is text, not {type(text).__name__}")
    return _parse(text)


@functools.lru_cache(maxsize=4096)
def _parse(text: str) -> Expr:
    """:func:`parse` of a ``str``, kept for texts seen before (an :class:`Expr` is frozen, so
    sharing one is safe; the same pools are read again and again: every view shows the log's
    rolls). A refusal is raised anew each time (exceptions are not kept)."""
    _check_text(text)
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


def _check_text(text: str) -> None:
    """The limits a text breaks before it is parsed: its length and its nesting depth."""
    if len(text) > MAX_LENGTH:
        raise DiceLimitError(
            f"the expression is {len(text):,} characters long; at most {MAX_LENGTH:,}"
        )
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
            if depth > MAX_DEPTH:
                raise DiceLimitError(f"parentheses nested more than {MAX_DEPTH} deep")
        elif ch == ")":
            depth -= 1


def check_limits(expr: Expr) -> None:
    """Reject what Caltrop will not evaluate: dice with fewer than 1 or more than ``MAX_SIDES``
    sides, division by zero, more than ``MAX_DICE`` dice, totals spanning more than
    ``MAX_SPAN``, more than ``MAX_TERMS`` terms, groups nested deeper than ``MAX_DEPTH``, and
    counts, constants or divisors above ``MAX_NUMBER`` (or below 0).

    The walk is iterative, so an expression built in code (not parsed) that nests too deep is
    refused rather than overflowing the stack. Raises :class:`DiceLimitError`.
    """
    total = 0
    span = 0
    terms = 0
    stack: list[tuple[Expr, int]] = [(expr, 0)]
    while stack:
        current, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise DiceLimitError(f"parentheses nested more than {MAX_DEPTH} deep")
        terms += len(current.terms)
        if terms > MAX_TERMS:
            raise DiceLimitError(f"more than {MAX_TERMS} terms; at most {MAX_TERMS} per expression")
        for term in current.terms:
            node = term.node
            if isinstance(node, Div):
                if not 1 <= node.divisor <= MAX_NUMBER:
                    divisor = _digits(node.divisor)
                    why = f"cannot divide by {divisor}" if node.divisor < 1 else _at_most()
                    raise DiceLimitError(f"{_brief(node.operand)}/{divisor}: {why}")
                node = node.operand
            match node:
                case Dice(count=count, sides=sides):
                    shown = f"{_digits(count)}d{_digits(sides)}"
                    if sides < 1:
                        raise DiceLimitError(f"{shown}: a die needs at least 1 side")
                    if sides > MAX_SIDES:
                        raise DiceLimitError(f"{shown}: at most {MAX_SIDES} sides per die")
                    if count < 0:
                        raise DiceLimitError(f"{shown}: a count of dice is at least 0")
                    if count > MAX_DICE:
                        raise DiceLimitError(
                            f"{shown}: {_digits(count)} dice; at most {MAX_DICE} per expression"
                        )
                    total += count
                    span += count * (sides - 1)
                case Const(value=value):
                    if not 0 <= value <= MAX_NUMBER:
                        raise DiceLimitError(f"the constant {_digits(value)}: {_at_most()}")
                case Group(expr=inner):
                    stack.append((inner, depth + 1))
    if total > MAX_DICE:
        raise DiceLimitError(f"{_brief(expr)}: {total} dice; at most {MAX_DICE} per expression")
    if span > MAX_SPAN:
        raise DiceLimitError(
            f"{_brief(expr)}: {span + 1} possible totals; at most {MAX_SPAN + 1} per expression"
        )


def _at_most() -> str:
    return f"numbers in an expression are 0 to {MAX_NUMBER:,}"


def _digits(value: int) -> str:
    """``value`` as text, or its length when it is too long to show (or to convert at all:
    Python refuses integers past 4,300 digits)."""
    if -(10**12) < value < 10**12:
        return str(value)
    if value.bit_length() < 14_000:  # under ~4,200 digits: str() may convert it
        return f"a {len(str(abs(value)))}-digit number"
    return f"a number of about {value.bit_length() * 30103 // 100_000:,} digits"


def _brief(node: Expr | Node) -> str:
    """The text of ``node`` (whose numbers are already checked), cut to fit a one-line error."""
    text = str(node)
    return text if len(text) <= 60 else text[:57] + "…"
