"""The GM's facts in the Action Point module (R34): prone, awareness, line of sight, position.

"Line of sight, awareness and cover are facts the GM sets; the engine does not trace walls."
Cover is taken by the Take Cover reaction (R40); the others are set with :class:`SetFact`.
"""

from __future__ import annotations

from caltrop.core.commands import SetFact
from caltrop.core.model import Economy
from caltrop.economy.action_points import points
from caltrop.economy.base import Table
from caltrop.errors import IllegalActionError


def check_fact(enc: Table, fact: SetFact) -> None:
    """Raise unless ``fact`` can be set now (the module must be Action Points)."""
    if enc.definition.ruleset.economy is not Economy.ACTION_POINTS:
        raise IllegalActionError(
            "GM facts (prone, aware, sight, at) belong to the Action Point module"
        )
    i = enc.index(fact.subject)
    if fact.other is not None and enc.index(fact.other) == i:
        raise IllegalActionError(f"{fact.fact} is a fact about another creature")


def apply_fact(enc: Table, fact: SetFact) -> None:
    """Set ``fact``; a new position ends cover by and against the creature (R40)."""
    s = points(enc.resources[enc.index(fact.subject)])
    if fact.fact == "prone":
        s.prone = fact.value
    elif fact.fact in ("aware", "sight"):
        assert fact.other is not None
        name = "unaware_of" if fact.fact == "aware" else "no_sight"
        current: tuple[str, ...] = getattr(s, name)
        without = tuple(x for x in current if x != fact.other)
        setattr(s, name, without if fact.value else (*without, fact.other))
    elif fact.fact == "at":
        assert fact.at is not None
        s.x, s.y = fact.at
        s.cover_from = ()
        for other in enc.resources:
            o = points(other)
            if fact.subject in o.cover_from:
                o.cover_from = tuple(c for c in o.cover_from if c != fact.subject)
