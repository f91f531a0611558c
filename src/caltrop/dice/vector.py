"""Vectorised rolling: totals of many independent rolls of one expression at once.

For the simulator and Monte-Carlo checks. Dice with a power-of-two number of sides (d2, d4, d8,
…) are rolled from raw random bits: one 16-bit word holds eight d4 faces, and a lookup table maps
the packed faces to their sum, so a 5d4 pool costs one masked table look-up per roll. Every bit
pattern is equally likely, so each face is exactly uniform. Other dice use ``Generator.integers``.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import numpy.typing as npt

from caltrop.dice.ast import Const, Dice, Div, Expr, Group, Node
from caltrop.dice.parse import parse

IntArray = npt.NDArray[np.int64]

_WORD_BITS = 16


@lru_cache(maxsize=64)
def _packed_sum_table(bits: int, per_word: int) -> npt.NDArray[np.int16]:
    """``table[w]`` = sum of the ``per_word`` faces packed ``bits`` bits each in ``w`` (faces 1..2**bits)."""
    words = np.arange(1 << (bits * per_word), dtype=np.int64)
    total = np.zeros_like(words)
    mask = (1 << bits) - 1
    for i in range(per_word):
        total += ((words >> (bits * i)) & mask) + 1
    table = total.astype(np.int16)
    table.setflags(write=False)
    return table


def _dice_totals(dice: Dice, n: int, rng: np.random.Generator) -> IntArray:
    sides, count = dice.sides, dice.count
    if count == 0:
        return np.zeros(n, dtype=np.int64)
    bits = sides.bit_length() - 1
    if sides & (sides - 1) or bits == 0 or bits > _WORD_BITS:
        faces = rng.integers(1, sides + 1, size=(n, count), dtype=np.int16)
        summed: IntArray = faces.sum(axis=1, dtype=np.int64)
        return summed
    per_word = _WORD_BITS // bits
    out: IntArray | None = None
    left = count
    while left:
        k = min(per_word, left)
        table = _packed_sum_table(bits, k)
        words = np.frombuffer(rng.bytes(2 * n), dtype=np.uint16)
        if k * bits < _WORD_BITS:
            words = words & np.uint16((1 << (k * bits)) - 1)
        chunk = table[words]
        out = chunk.astype(np.int64) if out is None else out + chunk
        left -= k
    assert out is not None
    return out


def _node_totals(node: Node, n: int, rng: np.random.Generator) -> IntArray:
    match node:
        case Dice():
            return _dice_totals(node, n, rng)
        case Const(value=value):
            return np.full(n, value, dtype=np.int64)
        case Group(expr=expr):
            return roll_totals(expr, n, rng)
        case Div(operand=operand, divisor=divisor):
            return -(-_node_totals(operand, n, rng) // divisor)
    raise TypeError(node)  # pragma: no cover


def roll_totals(expr: Expr | str, n: int, rng: np.random.Generator) -> IntArray:
    """Totals of ``n`` independent rolls of ``expr``, drawn from ``rng``."""
    parsed = parse(expr) if isinstance(expr, str) else expr
    total: IntArray | None = None
    for term in parsed.terms:
        # every part is a fresh array, so the first one becomes the running total in place
        part = _node_totals(term.node, n, rng)
        if total is None:
            total = np.negative(part, out=part) if term.sign < 0 else part
        elif term.sign < 0:
            total -= part
        else:
            total += part
    return total if total is not None else np.zeros(n, dtype=np.int64)
