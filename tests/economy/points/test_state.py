"""``Resources.key``: the hashable key :meth:`Encounter.key` is built from (issue 13: the
Action Point search remembers ``tactical``'s choices by it; the exact solvers memoise on it).

A key must tell two states apart exactly when what they show (``as_dict``) does: a key that
told fewer apart would give a remembered choice to a state that differs (another choice, a
wrong answer), one that told more apart would only lose hits. Checked for every field of
:class:`PointsState` (a field added later and left out of the key fails here) and, with
Hypothesis, for random pairs of states.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from caltrop.economy.points.state import PointsState

NAMES = st.sampled_from(["aria", "bron", "orc", "archer"])
SORTED_NAMES = st.lists(NAMES, unique=True, max_size=3).map(lambda xs: tuple(sorted(xs)))
DISTANCES = st.sampled_from([0.0, 1.5, 3.0, 9.0])

#: a strategy per field of PointsState, each with its default among its values
FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "ap": st.integers(0, 6),
    "rp": st.integers(0, 2),
    "floating": st.integers(0, 3),
    "stamina": st.integers(0, 4),
    "x": DISTANCES,
    "y": DISTANCES,
    "equipped": SORTED_NAMES,
    "moved": DISTANCES,
    "aim": st.integers(0, 2),
    "aim_target": st.none() | NAMES,
    "unseen": DISTANCES,
    "prone": st.booleans(),
    "grappled_by": st.none() | NAMES,
    "scaling": st.none() | NAMES,
    "cover_from": SORTED_NAMES,
    "unaware_of": SORTED_NAMES,
    "no_sight": SORTED_NAMES,
    "hints": st.integers(0, 2),
}

STATES = st.fixed_dictionaries(FIELDS).map(lambda kw: PointsState(**kw))


def test_the_strategies_cover_every_field() -> None:
    assert set(FIELDS) == {f.name for f in dataclasses.fields(PointsState)}


def _changed(value: Any) -> Any:
    """Another value of the same kind as ``value`` (a field's default or not)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, tuple):
        return (*value, "someone")
    return "someone" if value is None else None


def test_each_field_on_its_own_changes_the_key_and_what_is_shown() -> None:
    base = PointsState(ap=6, rp=2, floating=0, stamina=3, x=0.0, y=0.0, equipped=("sword",))
    for field in dataclasses.fields(PointsState):
        other = dataclasses.replace(base, **{field.name: _changed(getattr(base, field.name))})
        assert other.as_dict() != base.as_dict(), field.name
        assert other.key() != base.key(), field.name


@given(STATES, STATES)
def test_points_keys_are_equal_exactly_when_the_states_show_the_same(
    a: PointsState, b: PointsState
) -> None:
    assert (a.key() == b.key()) == (a.as_dict() == b.as_dict())
    hash(a.key())


@given(STATES)
def test_a_copy_has_the_same_key(a: PointsState) -> None:
    assert a.copy().key() == a.key()
    assert hash(a.copy().key()) == hash(a.key())
