"""How far a creature may move now and its weapons' reach, for the Action Point map (issue 22
item 1): the view model's ``movement`` of a creature, read off the engine's own rules.

* ``speed``: its travel speed in meters per AP (R35; 0 grappled, halved grappling, R42);
* ``points``: the AP it can pay now — on its own turn its AP, on another's the AP its RP and
  floating RP buy at 2 RP per AP (R32) — and ``unit``, what it pays in (``AP`` or ``RP``);
* ``steps``: for each price, the farthest a move of that price goes (``{"ap": 2, "meters":
  6.000000006, "cost": "2 AP"}``: R35's 6 m and the float noise the engine forgives), from :func:`caltrop.economy.points.movement.move_steps`. A move of ``d``
  meters costs the first step whose ``meters`` is at least ``d`` (R35's ceil(d ÷ speed),
  :func:`~caltrop.economy.points.movement.move_price`): the map's preview reads the cost off
  this list, it never works it out by a formula of its own;
* ``range``: the farthest it may move now, travel speed × points (R35), 0 if it cannot;
* ``adjacent``: melee reach, R34's 1.5 m;
* ``weapons``: each ranged weapon it carries, with its close and far ranges in meters (R39:
  Favor within close range, Disfavor within far range, no shot beyond) and whether it is in
  hand (R44: only an equipped weapon shoots).

None outside the Action Point module. The view gives it only where the viewer sees the
creature's Aspects and resources (its stat block and points, :mod:`caltrop.table.visibility`).
"""

from __future__ import annotations

from typing import Any

from caltrop.core.model import Economy, WeaponKind
from caltrop.economy.points.common import ADJACENT
from caltrop.economy.points.movement import move_budget, move_steps
from caltrop.economy.points.state import points
from caltrop.encounter import Encounter

#: R32: off its own turn an AP price is paid 2 RP per AP
RP_PER_AP = 2


def movement(enc: Encounter, i: int) -> dict[str, Any] | None:
    """Creature ``i``'s ``movement`` (see the module's docstring), or None outside the Action
    Point module and for a creature down or gone."""
    if enc.definition.ruleset.economy is not Economy.ACTION_POINTS:
        return None
    if enc.down[i] or enc.gone[i]:
        return None
    speed, can_pay, on_turn = move_budget(enc, i)
    unit = "AP" if on_turn else "RP"
    per = 1 if on_turn else RP_PER_AP
    steps = [
        {"ap": k, "meters": reach, "cost": f"{k * per} {unit}"}
        for k, reach in move_steps(speed, can_pay)
    ]
    creature = enc.creatures[i]
    held = points(enc.resources[i]).equipped
    weapons = [
        {"name": w.name, "close": w.close, "far": w.far, "equipped": w.name in held}
        for w in creature.weapons
        if w.kind is WeaponKind.RANGED and w.close is not None and w.far is not None
    ]
    return {
        "speed": speed,
        "points": can_pay,
        "unit": unit,
        "steps": steps,
        "range": speed * can_pay if steps else 0.0,
        "adjacent": ADJACENT,
        "weapons": weapons,
    }


__all__ = ["RP_PER_AP", "movement"]
