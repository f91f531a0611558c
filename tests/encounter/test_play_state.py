"""The encounter's state of play as one object (:class:`~caltrop.encounter.play_state.PlayState`):
a field added to it is copied everywhere or nowhere. These tests fail if a field of the state
is not reachable as ``enc.<field>``, if a clone shares anything mutable with its original (so a
change to one would show in the other), or if an undo does not restore every field."""

from __future__ import annotations

import dataclasses
import enum
import random
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

import pytest

from caltrop.content import load_encounter
from caltrop.core.commands import RollDice, parse_command
from caltrop.core.model import EncounterDef, Side
from caltrop.core.pool import Advantage
from caltrop.encounter import TERMINAL, Encounter
from caltrop.encounter.play_state import PlayState
from tests.encounter.builders import skirmish, watch_my_back_example

FIELDS = [f.name for f in dataclasses.fields(PlayState)]

#: fields a copy shares on purpose: replaced whole (``set_order`` makes new ``windows`` from
#: the order), never changed in place, so sharing one cannot let a change show in the other
SHARED_WHOLE = {"windows"}


#: the slots of an encounter that play does not change (replaced whole by a GM's reinforcement,
#: R48, never changed in place), each shared by a clone
FIXED = {
    "initial",
    "definition",
    "creatures",
    "economy",
    "module",
    "seed",
    "header",
    "rng",
    "_dice",
    "_by_id",
    "_commands",
    "_free",
    "_events",
    "_record",
}


def test_every_slot_of_the_encounter_is_fixed_or_a_field_of_the_state() -> None:
    """A slot added to the encounter is either named fixed here or is a field of the state, and
    so copied by a clone and restored by an undo."""
    assert set(Encounter.__slots__) == FIXED | set(FIELDS)
    assert not FIXED & set(FIELDS)


def test_the_state_gathers_the_slots_and_restore_sets_every_one() -> None:
    enc = Encounter.begin(skirmish(), 1)
    state = enc.state
    for name in FIELDS:
        assert getattr(state, name) is getattr(enc, name)
    other = Encounter.begin(skirmish(), 2)
    copied = state.copy()
    other._restore(copied)
    for name in FIELDS:
        assert getattr(other, name) is getattr(copied, name)


def _mutable(value: Any) -> bool:
    if value is None or isinstance(value, int | float | str | bytes | Fraction | enum.Enum):
        return False
    if isinstance(value, tuple | frozenset):
        return False
    if dataclasses.is_dataclass(value):
        return not type(value).__dataclass_params__.frozen  # type: ignore[attr-defined]
    return True


def _children(value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield f"[{k!r}]", v
    elif isinstance(value, list | tuple):
        for k, v in enumerate(value):
            yield f"[{k}]", v
    elif isinstance(value, set | frozenset):
        return  # hashable elements: immutable
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield f".{f.name}", getattr(value, f.name)


def _shared(a: Any, b: Any, path: str) -> Iterator[str]:
    """The paths at which ``a`` and ``b`` hold one and the same mutable object."""
    if _mutable(a) and a is b:
        yield path
        return
    if type(a) is not type(b):
        return
    theirs = dict(_children(b))
    for key, child in _children(a):
        if key in theirs:
            yield from _shared(child, theirs[key], path + key)


def _walk(definition: EncounterDef, seed: int, steps: int) -> Iterator[Encounter]:
    """An encounter after each of ``steps`` seeded random legal commands (rolls included)."""
    enc = Encounter.begin(definition, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if enc.current() == TERMINAL:
            return
        enc.apply(rng.choice(list(enc.legal_actions())))
        yield enc


ENCOUNTERS = {
    "skirmish": skirmish(),
    "watch-my-back": watch_my_back_example(),
    "goblin-ambush": load_encounter("goblin-ambush"),
    "bridge-duel-ap": load_encounter("bridge-duel-ap"),
    "warband-ap": load_encounter("warband-ap"),
}


@pytest.mark.parametrize("name", list(ENCOUNTERS))
def test_a_clone_shares_nothing_mutable_and_changes_apart(name: str) -> None:
    """Every field of the state, at every step of a random play: the clone's copy is equal but
    holds no list, dict, set or mutable record of the original's, however deep; playing the
    clone on leaves the original as it was."""
    seen: set[str] = set()
    for enc in _walk(ENCOUNTERS[name], 3, 60):
        other = enc.clone()
        assert other.state == enc.state
        for field in FIELDS:
            if field in SHARED_WHOLE:
                continue
            assert (
                list(_shared(getattr(enc.state, field), getattr(other.state, field), field)) == []
            )
            if getattr(enc.state, field):
                seen.add(field)
        before = (enc.to_json(), enc.key(), dataclasses.replace(enc.state).copy())
        rng = random.Random(7)
        for _ in range(20):
            if other.current() == TERMINAL:
                break
            other.apply(rng.choice(list(other.legal_actions())))
        assert (enc.to_json(), enc.key(), enc.state) == before
    assert {"health", "resources", "order", "pending", "round"} <= seen  # the walk reached them


def test_a_field_shared_whole_is_never_changed_in_place() -> None:
    """``windows`` is set only by ``Encounter.set_order``, which builds new windows from the
    order: after a reorder the original's windows are the same object as before, unchanged."""
    enc = Encounter.begin(skirmish(), 1)
    before = enc.windows
    snapshot = {roller: tuple(before[roller]) for roller in enc.order}
    other = enc.clone()
    other.set_order(list(reversed(other.order)))
    assert enc.windows is before
    assert {roller: tuple(before[roller]) for roller in enc.order} == snapshot
    assert other.windows is not before


def test_the_copy_constructor_names_every_field() -> None:
    """:meth:`PlayState.copy` passes every field (the dataclass has no defaults, so one left out
    is a TypeError at once, not a field shared in silence)."""
    assert all(
        f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        for f in dataclasses.fields(PlayState)
    )


@pytest.mark.parametrize("name", ["skirmish", "bridge-duel-ap"])
def test_an_undo_restores_every_field(name: str) -> None:
    """``gm: undo`` rebuilds the state from the commands before (R48): every field equals that
    of the encounter replayed without the last decision."""
    for enc in _walk(ENCOUNTERS[name], 5, 25):
        if enc.is_terminal():
            break
        probe = Encounter.replay(enc.initial, enc.events)
        probe.undo()
        fresh = Encounter.begin(enc.initial, enc.seed, header=enc.header)
        for command in enc.commands[: len(probe.commands)]:
            fresh.apply(command)
        assert probe.state == fresh.state


def _declared() -> Encounter:
    """A skirmish with a roll pending (the Goblin's strike, R15's window open)."""
    enc = Encounter.begin(skirmish(), 1)
    for command in ("aria: end turn", "bron: end turn", "goblin: strike aria with dagger"):
        enc.apply(parse_command(command))
    assert enc.pending
    return enc


def _bump_load(enc: Encounter) -> None:
    enc.resources[0].load += 1  # type: ignore[attr-defined]


#: how to change each field of the state that decides the future: ``Encounter.key()`` (the
#: exact solvers' memo key) must differ after the change
KEYED: dict[str, Callable[[Encounter], None]] = {
    "health": lambda e: e.health.__setitem__(0, e.health[0] - 1),
    "down": lambda e: e.down.__setitem__(0, not e.down[0]),
    "resources": _bump_load,
    "boons": lambda e: e.boons.__setitem__(0, (Advantage("adv", "torch"),)),
    "conditions": lambda e: e.conditions.__setitem__(0, ("prone",)),
    "gone": lambda e: e.gone.__setitem__(0, True),
    "order": lambda e: e.set_order(list(reversed(e.order))),
    "initiative": lambda e: e.initiative.__setitem__(0, 12),
    "turn_pos": lambda e: setattr(e, "turn_pos", e.turn_pos + 1),
    "round": lambda e: setattr(e, "round", e.round + 1),
    "pending": lambda e: e.pending.pop(),
    "over": lambda e: setattr(e, "over", not e.over),
    "winner": lambda e: setattr(e, "winner", Side.PC),
}
#: the fields the key leaves out, and why: neither changes what any command does next
NOT_KEYED = {
    "windows": "made from order by set_order (order is in the key)",
    "last_outcome": "the last roll's outcome, the past: no rule reads it",
}


def test_every_field_is_in_the_key_or_said_to_be_left_out() -> None:
    """A field added to the state is named here: either how changing it must change
    ``Encounter.key()`` (so an exact solver never takes two different states for one), or why
    the key leaves it out."""
    assert set(KEYED) | set(NOT_KEYED) == set(FIELDS)
    assert not set(KEYED) & set(NOT_KEYED)


@pytest.mark.parametrize("field", list(KEYED))
def test_changing_a_keyed_field_changes_the_key(field: str) -> None:
    enc = _declared()
    other = enc.clone()
    KEYED[field](other)
    assert getattr(other.state, field) != getattr(enc.state, field)
    assert other.key() != enc.key()
    assert enc.key() == _declared().key()  # the original is untouched


def test_the_fields_left_out_of_the_key_do_not_enter_it() -> None:
    enc = _declared()
    outcome = enc.clone().apply(RollDice())  # an outcome this encounter has not had
    assert outcome is not None
    probe = enc.clone()
    probe.windows = tuple(reversed(probe.windows))
    probe.last_outcome = outcome
    assert (probe.windows, probe.last_outcome) != (enc.windows, enc.last_outcome)
    assert probe.key() == enc.key()
