"""Renderers over one roll tree: plain text, JSON, and the "D4 Math Tips" pairing form.

* :func:`render_plain` — ``5d4 (3,1,4,4,2) + 1d8 (7) = 21``
* :func:`render_json` — a JSON-ready dict with every die, by term
* :func:`render_d4_math` — the way the rulebook's D4 Math Tips sidebar (named at the end of seed
  000) teaches players to add d4s quickly: pair 1s with 4s and 2s with 3s, count the fives, add
  what is left — ``7d4: (1+4) (1+4) (2+3) + 4 = 19``.
"""

from __future__ import annotations

from typing import Any

from caltrop.dice.roll import (
    ConstRoll,
    DiceRoll,
    DivRoll,
    GroupRoll,
    NodeRoll,
    Roll,
    plain_node,
    plain_terms,
    render_plain,
)

__all__ = ["d4_pairs", "render_d4_math", "render_json", "render_plain"]


def d4_pairs(values: tuple[int, ...]) -> tuple[list[tuple[int, int]], list[int]]:
    """Split d4 faces into fives — (1, 4) and (2, 3) pairs — and what is left, largest first."""
    counts = {face: values.count(face) for face in (1, 2, 3, 4)}
    pairs: list[tuple[int, int]] = []
    for low, high in ((1, 4), (2, 3)):
        n = min(counts[low], counts[high])
        pairs.extend([(low, high)] * n)
        counts[low] -= n
        counts[high] -= n
    rest = [face for face in (4, 3, 2, 1) for _ in range(counts[face])]
    return pairs, rest


def _d4_math(values: tuple[int, ...]) -> str:
    pairs, rest = d4_pairs(values)
    parts = [f"({a}+{b})" for a, b in pairs]
    if rest:
        rest_text = "+".join(map(str, rest))
        parts.append(f"+ {rest_text}" if parts else rest_text)
    return " ".join(parts) if parts else "0"


def _d4_node(node: NodeRoll) -> str:
    if isinstance(node, DiceRoll) and node.dice.sides == 4:
        return f"{node.dice} [{_d4_math(node.values)}]"
    if isinstance(node, GroupRoll):
        return f"({plain_terms(node.inner, _d4_node)})"
    if isinstance(node, DivRoll):
        return f"{_d4_node(node.operand)}/{node.divisor}"
    return plain_node(node)


def render_d4_math(roll: Roll) -> str:
    """The D4 Math Tips form: pair 1+4 and 2+3 into fives, then add what is left.

    A lone d4 pool reads ``7d4: (1+4) (1+4) (2+3) + 4 = 19``; in a longer expression each d4
    term is bracketed: ``5d4 [(1+4) (2+3) + 4] + 1d8 (7) = 21``.
    """
    if len(roll.terms) == 1 and roll.terms[0].sign > 0:
        node = roll.terms[0].node
        if isinstance(node, DiceRoll) and node.dice.sides == 4:
            return f"{node.dice}: {_d4_math(node.values)} = {roll.total}"
    return f"{plain_terms(roll, _d4_node)} = {roll.total}"


def _json_node(node: NodeRoll) -> dict[str, Any]:
    match node:
        case DiceRoll(dice=d, values=values):
            return {
                "kind": "dice",
                "count": d.count,
                "sides": d.sides,
                "values": list(values),
                "total": node.total,
            }
        case ConstRoll(const=c):
            return {"kind": "const", "value": c.value, "total": c.value}
        case GroupRoll(inner=inner):
            return {"kind": "group", "terms": _json_terms(inner), "total": node.total}
        case DivRoll(operand=operand, divisor=divisor):
            return {
                "kind": "div",
                "divisor": divisor,
                "operand": _json_node(operand),
                "total": node.total,
            }
    raise TypeError(node)  # pragma: no cover


def _json_terms(roll: Roll) -> list[dict[str, Any]]:
    return [{"sign": t.sign, **_json_node(t.node)} for t in roll.terms]


def render_json(roll: Roll) -> dict[str, Any]:
    """A JSON-ready dict: ``expression``, ``total``, ``faces`` (entry order) and ``terms``."""
    return {
        "expression": str(roll.expr),
        "total": roll.total,
        "faces": list(roll.faces),
        "terms": _json_terms(roll),
    }
