"""What the tactical policy and its Action Point tactics share, in a module of its own so that
neither imports the other: the weights of the Action Point tactics (:class:`PointsKnobs`) and
what an economy's own tactics may read of the policy that calls them (:class:`TacticsHost`).

:mod:`caltrop.sim.tactics` imports :mod:`caltrop.sim.points_tactics` (to register its tactics
for ``action_points``); :mod:`caltrop.sim.points_tactics` imports only this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class PointsKnobs:
    """The weights of the Action Point tactics (see the module docs)."""

    safety: float = 0.5
    hold: float = 0.5
    equip: float = 0.5
    #: weight of cover's effect on the attacker's next turn (when it stays adjacent)
    cover_future: float = 0.5
    #: least drop in the defender's loss (≈ expected damage) a Defense Assist must make
    assist_gain: float = 0.5
    #: least harm an attack plan must do to count as an attack
    min_harm: float = 1e-3
    #: a stand-off is broken: after this many rounds the ``safety`` weight halves every
    #: ``patience_halflife`` rounds, so a kiter that cannot be caught (nor hurt its chaser through
    #: Take Cover) commits to the fight instead of running for ever
    patience: int = 12
    patience_halflife: float = 4.0
    #: take cover from melee attacks too (the engine allows it; a GM seldom would: a blade at
    #: arm's length is not a shot one can duck behind a wall from)
    cover_from_melee: bool = False


class TacticsHost(Protocol):
    """The policy an economy's tactics are called with (:class:`~caltrop.sim.tactics.
    TacticalPolicy`): its Action Point weights."""

    @property
    def points_knobs(self) -> PointsKnobs: ...


__all__ = ["PointsKnobs", "TacticsHost"]
