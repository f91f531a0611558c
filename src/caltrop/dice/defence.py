"""Exact damage after the Action Point module's defences (R40), given an incoming damage distribution.

Every function returns a :class:`~caltrop.dice.distribution.Distribution` of the damage dealt to
Health, so the exact odds of a whole melee exchange are one expression away. The same rules are
applied to single rolls by the engine; tests check the two agree.
"""

from __future__ import annotations

from caltrop.dice.distribution import Distribution, dice


def defence_total(
    rating: int, resistance: int = 0, *, cover: bool = False, assists: int = 0
) -> Distribution:
    """The defence value of Block or Dodge (R40).

    ``rating`` d4s plus one d4 per Defense Assist, doubled by Take Cover, then Resistance added.
    A pool is never below 1d4 (R3).
    """
    pool = dice(max(1, rating + assists), 4)
    if cover:
        pool = pool.scale(2)
    return pool + resistance


def undefended(incoming: Distribution, resistance: int = 0) -> Distribution:
    """No defence: ``max(0, damage − Resistance)`` — Resistance always applies (R40)."""
    return (incoming - resistance).clamp_min(0)


def blocked(
    incoming: Distribution,
    rating: int,
    resistance: int = 0,
    *,
    cover: bool = False,
    assists: int = 0,
) -> Distribution:
    """Block: ``max(0, damage − (Block Rating d4s [×2 in cover] + Resistance))`` (R40)."""
    return (incoming - defence_total(rating, resistance, cover=cover, assists=assists)).clamp_min(0)


def dodged(
    incoming: Distribution,
    rating: int,
    resistance: int = 0,
    *,
    cover: bool = False,
    assists: int = 0,
) -> Distribution:
    """Dodge, all or nothing: 0 if (Dodge Rating d4s [×2] + Resistance) ≥ damage, else the full damage (R40)."""
    return incoming.dodged_by(defence_total(rating, resistance, cover=cover, assists=assists))
