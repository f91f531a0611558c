"""What an option costs, in words: ``cost 1 RP``, never ``RP -1`` (issue 22 item 2).

The view model keeps each resource's signed change (``{"rp": -1}``, ``{"load": 3}``); a
player reads a cost as what is paid. Paying raises Load (seed 000: an action's Cost is added to
Load, R12) and lowers AP, RP, floating RP and Stamina (seed 004: R30, R40); a change the other
way is something gained and is named as such, so no figure shown is negative.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

#: each resource's name on screen, and +1 if paying raises it, −1 if paying lowers it
RESOURCES: Final[Mapping[str, tuple[str, int]]] = {
    "load": ("Load", 1),
    "ap": ("AP", -1),
    "rp": ("RP", -1),
    "floating_rp": ("floating RP", -1),
    "stamina": ("Stamina", -1),
}


def _amount(value: float) -> str:
    """A whole amount without ``.0``; a fractional one as it is."""
    return str(int(value)) if float(value).is_integer() else str(value)


def cost_text(cost: Mapping[str, float]) -> str:
    """``cost`` as what is paid and what is gained: ``cost 1 AP, 2 Stamina``,
    ``cost 3 Load``, ``gives 1 RP``; empty when nothing changes. A resource this table does not
    know is named by its key, counted as paid when it falls."""
    paid: list[str] = []
    gained: list[str] = []
    for key, change in cost.items():
        if change == 0:
            continue
        name, sign = RESOURCES.get(key, (key, -1))
        spent = change * sign
        (paid if spent > 0 else gained).append(f"{_amount(abs(spent))} {name}")
    parts = []
    if paid:
        parts.append("cost " + ", ".join(paid))
    if gained:
        parts.append("gives " + ", ".join(gained))
    return "; ".join(parts)


__all__ = ["RESOURCES", "cost_text"]
