"""R15, the order of a reaction window: "Automated drivers (``current()``, the simulator) ask
each creature that could react, in turn order after the roller, until it passes."

The mutation test of issue 24 (item 7, ``scripts/mutation.py``) found that no test fixed this
order: asking the creatures before the roller first (``order[:pos] + order[pos+1:]``) passed
the suite. These tests fail if the window starts anywhere but just after the roller, wraps
around wrongly, or asks the roller itself.

Tests of ``encounter/windows.py`` (tests/test_layout.py).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from caltrop.encounter import CHANCE, Encounter
from tests.encounter.builders import run, skirmish


def _asked(enc: Encounter) -> list[str]:
    """Who ``current()`` asks in the pending roll's window, each passing in turn."""
    asked = []
    while enc.current() != CHANCE:
        who = enc.current()
        asked.append(who)
        run(enc, f"{who}: pass")
    return asked


def test_the_third_in_turn_order_is_answered_by_the_fourth_then_the_first() -> None:
    """Turn order Aria, Bron, Goblin, Shaman: the Goblin's strike is answered first by the
    Shaman (after it), then Aria and Bron (wrapping round), never by the Goblin."""
    enc = Encounter.begin(skirmish(), 1)
    run(enc, "aria: end turn", "bron: end turn", "goblin: strike aria with dagger")
    assert _asked(enc) == ["shaman", "aria", "bron"]


@settings(max_examples=30, deadline=None)
@given(st.permutations(range(4)), st.integers(0, 3))
def test_every_window_is_the_turn_order_after_its_roller(order: list[int], pos: int) -> None:
    """For any turn order and any roller's place in it, the window is the creatures after the
    roller in turn order, then those before it: ``order[pos+1:] + order[:pos]``."""
    enc = Encounter.begin(skirmish(), 1)
    enc.set_order(list(order))
    roller = order[pos]
    assert list(enc.windows[roller]) == [*order[pos + 1 :], *order[:pos]]
    assert roller not in enc.windows[roller]
