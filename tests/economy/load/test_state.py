"""``LoadState.key``: the hashable key :meth:`Encounter.key` is built from (issue 13), for the
Action Load module: a creature's one Load (R13), so two keys are equal exactly when the Loads are.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from caltrop.economy.load.state import LoadState


@given(st.integers(-3, 9), st.integers(-3, 9))
def test_load_keys_are_equal_exactly_when_the_loads_are(a: int, b: int) -> None:
    assert (LoadState(a).key() == LoadState(b).key()) == (a == b)
