"""Stealth in the Action Point module (seed 004): ``+stealth`` on any action (R41) queues a
Poise check against each observer, before the action's own rolls.
"""

from __future__ import annotations

from caltrop.core.commands import Act
from caltrop.core.pool import net_advantage
from caltrop.economy.base import Engine
from caltrop.economy.points.common import push, set_unaware, state_of
from caltrop.economy.points.rolls import Check, Contest
from caltrop.economy.points.state import stat


def stealth_decided(enc: Engine, contest: Contest, success: bool) -> None:
    """R41: an aware observer beaten in the contest loses track of the sneaker (is unaware of
    it); one that wins notices it."""
    set_unaware(enc, contest.opposer, enc.creatures[contest.initiator].id, success)


def queue_stealth(enc: Engine, i: int, command: Act) -> None:
    """R41: one Poise check per observer (each enemy aware of the field), pushed so that they
    resolve before the action's own rolls."""
    me = enc.creatures[i]
    favor = net_advantage(command.advantages) + (1 if "careful" in command.flags else 0)
    for j in reversed(range(len(enc.creatures))):
        other = enc.creatures[j]
        if j == i or enc.down[j] or other.side is me.side:
            continue
        obs = state_of(enc, j)
        in_sight = me.id not in obs.no_sight
        f = favor - (2 if in_sight else 0)  # R41: in line of sight, 2 Disfavor
        aware = me.id not in obs.unaware_of
        score = other.aspects.get("Perception", 0) * (2 if stat(other, "gifted_perception") else 1)
        if aware:
            contest = Contest(
                verb="stealth",
                initiator=i,
                opposer=j,
                stat_a="Poise",
                stat_b="Perception",
                favor=f,
                opposed=True,
            )
            push(enc, i, contest)
        else:
            push(enc, i, Check(verb="stealth", stat="Poise", dc=score, favor=f, observer=j))
