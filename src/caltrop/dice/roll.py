"""Rolling a dice expression: from a passed-in seeded RNG or from entered physical dice (R5).

A :class:`Roll` mirrors the expression tree and keeps every die value and the term it belongs
to, so the log can record every die, not just totals. Caltrop never touches module-level
``random``: randomness comes from a ``numpy.random.Generator`` the caller owns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Any, Final, Protocol, TypeAlias

import numpy as np

from caltrop.dice.ast import Const, Dice, Div, Expr, Group, Node, Sign
from caltrop.dice.parse import check_limits, parse
from caltrop.errors import DiceInputError, DiceTypeError


class DiceSource(Protocol):
    """Where die faces come from: ``faces(sides, count)`` returns ``count`` faces in 1..sides."""

    def faces(self, sides: int, count: int) -> tuple[int, ...]: ...


class RngDice:
    """Faces drawn from a seeded ``numpy.random.Generator`` (pass one in; never a global RNG).

    The faces, and the state the generator is left in, are exactly those of
    ``rng.integers(1, sides + 1, size=count)``. A handful of dice is drawn here word by word,
    through the bit generator's own ``next_uint32`` and the bounded-integer method numpy's
    ``Generator.integers`` applies to ranges below 2**32 (Lemire's multiply-and-reject), several
    times faster than numpy's array call for the few dice of a roll. Anything else (a d1, a
    range of 2**32 or more, a count that is not a positive int, a generator without the ctypes
    interface) goes to numpy.
    ``tests/dice/test_roll.py`` checks that both give the same stream.
    """

    __slots__ = ("_bound", "_next_uint32", "_state", "rng")

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        #: the ctypes hooks are looked up at the first roll, not here: an encounter's clone
        #: makes dice it mostly never rolls (the view's look-aheads, issue 20 §5)
        self._bound = False
        self._next_uint32: Any = None
        self._state: Any = None

    def _bind(self) -> None:
        interface = getattr(getattr(self.rng, "bit_generator", None), "ctypes", None)
        self._next_uint32 = None if interface is None else interface.next_uint32
        self._state = None if interface is None else interface.state_address  # an int: quicker
        self._bound = True

    def __reduce__(self) -> tuple[type[RngDice], tuple[np.random.Generator]]:
        # the ctypes hooks point into this generator: a copy (or a pickle) wraps its own copy
        return RngDice, (self.rng,)

    def faces(self, sides: int, count: int) -> tuple[int, ...]:
        if count == 0:
            return ()
        if not self._bound:
            self._bind()
        next_uint32 = self._next_uint32
        if (
            next_uint32 is None
            or not (type(sides) is int and 2 <= sides < _WORD)
            or not (type(count) is int and count > 0)
        ):  # numpy draws it, or raises as it always did (a negative count, say)
            return tuple(self.rng.integers(1, sides + 1, size=count).tolist())
        state = self._state
        if sides & (sides - 1) == 0:  # a power of two (a d4, a d8): the method never rejects
            return tuple([(next_uint32(state) * sides >> 32) + 1 for _ in range(count)])
        out: list[int] = []
        for _ in range(count):
            m = next_uint32(state) * sides  # the word scaled to 0 … sides·2**32
            if m & _LOW < sides:  # the low word is small: reject the few that would bias
                threshold = (_WORD - sides) % sides
                while m & _LOW < threshold:
                    m = next_uint32(state) * sides
            out.append((m >> 32) + 1)
        return tuple(out)


_WORD: Final = 2**32
_LOW: Final = _WORD - 1


class EnteredDice:
    """Faces read off physical dice at the table, in the order of ``Expr.dice_slots()`` (R5).

    Validated against the expression up front: the right count, each face within 1..sides.
    """

    __slots__ = ("_next", "_values")

    def __init__(self, expr: Expr, values: Sequence[int]) -> None:
        check_limits(expr)  # before dice_slots(): never a tuple of a billion slots
        slots = expr.dice_slots()
        if len(values) != len(slots):
            raise DiceInputError(
                f"{expr} needs {len(slots)} dice ({_describe_slots(slots)}); {len(values)} entered"
            )
        for i, (value, sides) in enumerate(zip(values, slots, strict=True), start=1):
            if isinstance(value, bool) or not isinstance(value, Integral):
                # 2.5 used to be truncated to 2 and "3" raised a bare TypeError
                raise DiceInputError(
                    f"die {i} of {len(slots)} is a d{sides}: a face is a whole number, not {value!r}"
                )
            if not 1 <= value <= sides:
                raise DiceInputError(
                    f"die {i} of {len(slots)} is a d{sides} and shows 1 to {sides}, not {value}"
                )
        self._values = tuple(int(v) for v in values)
        self._next = 0

    def faces(self, sides: int, count: int) -> tuple[int, ...]:
        out = self._values[self._next : self._next + count]
        self._next += count
        return out


def _describe_slots(slots: tuple[int, ...]) -> str:
    parts: list[str] = []
    for sides in dict.fromkeys(slots):
        parts.append(f"{slots.count(sides)}×d{sides}")
    return ", ".join(parts) if parts else "no dice"


# -- the roll tree ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DiceRoll:
    """The faces of one ``NdS`` term."""

    dice: Dice
    values: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.values)


@dataclass(frozen=True, slots=True)
class ConstRoll:
    const: Const

    @property
    def total(self) -> int:
        return self.const.value


@dataclass(frozen=True, slots=True)
class GroupRoll:
    inner: Roll

    @property
    def total(self) -> int:
        return self.inner.total


@dataclass(frozen=True, slots=True)
class DivRoll:
    """An operand divided rounding up (R38 halving)."""

    operand: DiceRoll | ConstRoll | GroupRoll
    divisor: int

    @property
    def total(self) -> int:
        return -(-self.operand.total // self.divisor)


NodeRoll: TypeAlias = DiceRoll | ConstRoll | GroupRoll | DivRoll


@dataclass(frozen=True, slots=True)
class TermRoll:
    sign: Sign
    node: NodeRoll


@dataclass(frozen=True, slots=True)
class Roll:
    """A rolled expression: every die kept, by term. ``str(roll)`` is ``5d4 (3,1,4,4,2) + 1d8 (7) = 21``."""

    expr: Expr
    terms: tuple[TermRoll, ...]

    @property
    def total(self) -> int:
        return sum(t.sign * t.node.total for t in self.terms)

    def dice_rolls(self) -> Iterator[DiceRoll]:
        """Every :class:`DiceRoll`, in roll/entry order."""
        for term in self.terms:
            yield from _dice_rolls(term.node)

    @property
    def faces(self) -> tuple[int, ...]:
        """Every die face in roll/entry order: feeding these back as entered dice gives the same roll."""
        return tuple(v for d in self.dice_rolls() for v in d.values)

    def __str__(self) -> str:
        return render_plain(self)


def _dice_rolls(node: NodeRoll) -> Iterator[DiceRoll]:
    match node:
        case DiceRoll():
            yield node
        case ConstRoll():
            return
        case GroupRoll(inner=inner):
            yield from inner.dice_rolls()
        case DivRoll(operand=operand):
            yield from _dice_rolls(operand)


def _roll_node(node: Node, source: DiceSource) -> NodeRoll:
    match node:
        case Dice(count=count, sides=sides):
            return DiceRoll(node, source.faces(sides, count))
        case Const():
            return ConstRoll(node)
        case Group(expr=expr):
            return GroupRoll(_roll_expr(expr, source))
        case Div(operand=operand, divisor=divisor):
            inner = _roll_node(operand, source)
            assert not isinstance(inner, DivRoll)
            return DivRoll(inner, divisor)
    raise TypeError(f"not a dice node: {node!r}")  # pragma: no cover


def _roll_expr(expr: Expr, source: DiceSource) -> Roll:
    return Roll(expr, tuple(TermRoll(t.sign, _roll_node(t.node, source)) for t in expr.terms))


#: id(expr) → (expr, its dice as (sides, count, sign) triples, its constant part), for plain sums
#: of dice and constants; None instead of the triples for any other expression. Holding the
#: expression keeps its id from being reused while the entry exists.
_PLAIN: dict[int, tuple[Expr, tuple[tuple[int, int, int], ...] | None, int]] = {}
_PLAIN_KEPT: Final = 4096


def _plain(expr: Expr) -> tuple[Expr, tuple[tuple[int, int, int], ...] | None, int]:
    known = _PLAIN.get(id(expr))
    if known is not None and known[0] is expr:
        return known
    check_limits(expr)  # once per expression: the dice layer never rolls past its limits
    dice: list[tuple[int, int, int]] | None = []
    const = 0
    for term in expr.terms:
        node = term.node
        if type(node) is Dice and dice is not None:
            dice.append((node.sides, node.count, term.sign))
        elif type(node) is Const:
            const += term.sign * node.value
        else:
            dice = None
    known = (expr, None if dice is None else tuple(dice), const)
    if len(_PLAIN) >= _PLAIN_KEPT:
        _PLAIN.clear()
    _PLAIN[id(expr)] = known
    return known


def roll_faces(expr: Expr, rng: np.random.Generator | RngDice) -> tuple[tuple[int, ...], int]:
    """``(faces, total)`` of ``roll(expr, rng)``, the same dice drawn by the same calls, without
    building the :class:`Roll` tree when ``expr`` is a plain sum of dice and constants (every
    roll of an encounter simulation is; others are rolled by :func:`roll`). ``rng`` may be an
    :class:`RngDice` already wrapping the generator (an encounter keeps one)."""
    _, dice, total = _plain(expr)
    generator = rng.rng if isinstance(rng, RngDice) else rng
    if dice is None:
        rolled = roll(expr, generator)
        return rolled.faces, rolled.total
    source = rng if isinstance(rng, RngDice) else RngDice(rng)
    if len(dice) == 1:
        sides, count, sign = dice[0]
        faces = source.faces(sides, count)
        return faces, total + sign * sum(faces)
    faces_all: tuple[int, ...] = ()
    for sides, count, sign in dice:
        values = source.faces(sides, count)
        faces_all += values
        total += sign * sum(values)
    return faces_all, total


def roll(
    expr: Expr | str,
    rng: np.random.Generator | None = None,
    *,
    entered: Sequence[int] | None = None,
) -> Roll:
    """Roll ``expr`` with ``rng``, or take the faces of physical dice from ``entered`` (R5).

    Exactly one of ``rng`` and ``entered`` must be given. Entered faces are validated (count and
    range) before anything is rolled, and raise :class:`DiceInputError` with the reason. An
    expression past the limits of :func:`~caltrop.dice.parse.check_limits` (a pool of a billion
    dice built from content, say) raises :class:`~caltrop.errors.DiceLimitError` before any die.
    """
    if (rng is None) == (entered is None):
        raise TypeError("roll() needs exactly one of rng= or entered=")
    if isinstance(expr, str):
        parsed = parse(expr)
    elif not isinstance(expr, Expr):
        raise DiceTypeError(f"a dice expression is text or an Expr, not {type(expr).__name__}")
    else:
        parsed = expr
        if rng is not None:  # EnteredDice checks the limits itself
            check_limits(parsed)
    source: DiceSource = (
        RngDice(rng)
        if rng is not None
        else EnteredDice(parsed, entered if entered is not None else ())
    )
    return _roll_expr(parsed, source)


# -- the plain rendering (``str(roll)``) -------------------------------------------------------


def plain_node(node: NodeRoll) -> str:
    match node:
        case DiceRoll(dice=d, values=values):
            return f"{d} ({','.join(map(str, values))})"
        case ConstRoll(const=c):
            return str(c.value)
        case GroupRoll(inner=inner):
            return f"({plain_terms(inner)})"
        case DivRoll(operand=operand, divisor=divisor):
            return f"{plain_node(operand)}/{divisor}"
    raise TypeError(node)  # pragma: no cover


def plain_terms(roll: Roll, node_text: Callable[[NodeRoll], str] = plain_node) -> str:
    """The terms of ``roll`` with their signs, each node as ``node_text`` writes it."""
    out: list[str] = []
    for i, term in enumerate(roll.terms):
        text = node_text(term.node)
        if term.sign < 0:
            out.append(f"- {text}" if i else f"-{text}")
        else:
            out.append(f"+ {text}" if i else text)
    return " ".join(out)


def render_plain(roll: Roll) -> str:
    """The plain rendering (also ``str(roll)``; :mod:`caltrop.dice.render` has the others):
    ``5d4 (3,1,4,4,2) + 1d8 (7) = 21``: every die, by term, then the total."""
    return f"{plain_terms(roll)} = {roll.total}"
