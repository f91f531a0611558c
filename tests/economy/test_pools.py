"""The pool rule's numbers agree with the limits they stand for (issue 21 item 4)."""

from __future__ import annotations

from caltrop.content.limits import MAX_PARTICIPANTS
from caltrop.economy.pools import ASSISTS
from caltrop.encounter.gm import MAX_CREATURES


def test_the_assists_a_defence_may_gather_are_every_other_creature_a_table_may_hold() -> None:
    """R40: "+1 die per assisting ally"; at most every other creature of the encounter, which
    holds at most 200 (content, and ``gm: add``)."""
    assert ASSISTS == MAX_PARTICIPANTS - 1 == MAX_CREATURES - 1
