"""The Action Load economy on its own (``caltrop.economy.load.economy``), rule by rule."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caltrop.core.model import ActionDef, ActionKind, LoadReset
from caltrop.core.pool import Revision
from caltrop.economy import economy_for
from caltrop.economy.load.economy import ActionLoadEconomy
from caltrop.economy.load.state import LoadState
from tests.encounter.builders import creature, npc, ruleset


def _economy(
    revision: Revision = Revision.CURRENT, reset: LoadReset = LoadReset.TURN
) -> ActionLoadEconomy:
    economy = economy_for(ruleset(revision, reset))
    assert isinstance(economy, ActionLoadEconomy)
    return economy


def _action(cost: int, aspect: str = "Finesse", fixed_pool: int | None = None) -> ActionDef:
    return ActionDef("act", aspect, cost, ActionKind.ATTACK, fixed_pool=fixed_pool)


@pytest.mark.parametrize(
    ("revision", "exhaustion", "load_buffer", "expected"),
    [
        (Revision.CURRENT, 0, 0, 0),
        (Revision.CURRENT, 0, 1, -1),
        (Revision.CURRENT, 3, 1, 2),
        (Revision.LEGACY, 3, 1, 0),
        (Revision.LEGACY, 0, 2, 0),
    ],
)
def test_reset_value(revision: Revision, exhaustion: int, load_buffer: int, expected: int) -> None:
    """R10: "Load := Exhaustion − Load Buffer"; R20 (seed 001): "Set your Action Load to 0"."""
    c = creature("c", exhaustion=exhaustion, load_buffer=load_buffer)
    economy = _economy(revision)
    assert economy.reset_value(c) == expected
    assert economy.initial(c).load == expected


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    aspect=st.integers(-3, 8),
    load=st.integers(-4, 10),
    cost=st.integers(0, 4),
    revision=st.sampled_from(list(Revision)),
)
def test_gate_formula_and_same_on_and_off_turn(
    aspect: int, load: int, cost: int, revision: Revision
) -> None:
    """R11: "allowed iff Aspect − Load ≥ Cost … the same on a creature's own turn and on other
    turns." R20: legacy also needs Aspect − Load > 0."""
    economy = _economy(revision)
    c = creature("c", finesse=aspect)
    state = LoadState(load)
    on = economy.gate(c, state, _action(cost), on_turn=True)
    off = economy.gate(c, state, _action(cost), on_turn=False)
    assert on == off
    expected = aspect - load >= cost and (revision is Revision.CURRENT or aspect - load > 0)
    assert on.allowed is expected
    assert f"Finesse {aspect} − Load {load} = {aspect - load}" in on.reason
    assert state.load == load


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    aspect=st.integers(-3, 8),
    load=st.integers(-4, 10),
    cost=st.integers(0, 4),
    revision=st.sampled_from(list(Revision)),
)
def test_the_ceiling_is_the_gate(aspect: int, load: int, cost: int, revision: Revision) -> None:
    """R11 as a Load ceiling (what the engine compares in its hot loops): Load ≤ ceiling exactly
    when the gate is open, for every Load — current ``Aspect − Cost``, legacy (R20) also below
    the Aspect."""
    economy = _economy(revision)
    c = creature("c", finesse=aspect)
    action = _action(cost)
    ceiling = economy.ceiling(c, action)
    assert (load <= ceiling) is economy.allows(c, LoadState(load), action, on_turn=True)
    assert (load <= ceiling) is bool(economy.gate(c, LoadState(load), action, on_turn=False))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    aspect=st.integers(-3, 8),
    load=st.integers(-4, 10),
    net=st.integers(-5, 5),
    fixed=st.one_of(st.none(), st.integers(1, 3)),
)
def test_pool_formula(aspect: int, load: int, net: int, fixed: int | None) -> None:
    """R12: "d4 count = Aspect − max(0, Load) + NetAdvantage, minimum 1 (R3)"; R20: legacy pool
    = Aspect − Load; a fixed pool "rolls that pool whatever the Load"."""
    c = creature("c", finesse=aspect)
    state = LoadState(load)
    current = _economy(Revision.CURRENT).pool(c, state, _action(1, fixed_pool=fixed), net)
    legacy = _economy(Revision.LEGACY).pool(c, state, _action(1, fixed_pool=fixed), net)
    if fixed is None:
        assert current == max(1, aspect - max(0, load) + net)
        assert legacy == max(1, aspect - load + net)
    else:
        assert current == legacy == max(1, fixed + net)


@pytest.mark.parametrize("cost", [0, 1, 3])
def test_pay_adds_the_cost(cost: int) -> None:
    """R12 ("After resolving, Load += Cost") and seed 000 step 6: "Add the action's Cost (usually
    1 or more) to your Action Load." """
    state = LoadState(-1)
    _economy().pay(creature("c"), state, _action(cost), on_turn=False)
    assert state.load == -1 + cost
    assert state.as_dict() == {"load": -1 + cost}


@pytest.mark.parametrize(
    ("aspect", "load", "net", "count_load", "expected"),
    [
        (4, 3, 0, False, 4),
        (4, 3, 0, True, 1),
        (4, -2, 0, True, 4),  # a negative Load never adds dice
        (-2, 0, 0, False, 1),  # "at least 1d4, even with a negative Aspect"
        (-2, 0, 2, False, 1),
        (2, 5, 1, True, 1),
        (3, 1, 1, True, 3),
    ],
)
def test_gm_pool(aspect: int, load: int, net: int, count_load: bool, expected: int) -> None:
    """R17: "max(1, Aspect − (max(0, Load) if Load counts, else 0) + NetAdvantage)"."""
    pool = _economy().gm_pool(creature("c"), LoadState(load), aspect, net, count_load=count_load)
    assert pool == expected


@pytest.mark.parametrize("reset", list(LoadReset))
def test_reset_hooks(reset: LoadReset) -> None:
    """R19: ``turn``: only the owner resets at its turn start; ``round``: everyone resets at the
    round start and nobody at turn starts."""
    economy = _economy(reset=reset)
    creatures = (creature("a", load_buffer=1), npc("b", exhaustion=2), creature("c"))
    states: list[LoadState] = [LoadState(5), LoadState(5), LoadState(5)]
    economy.on_turn_start(creatures, list(states), 1)
    assert [s.load for s in states] == ([5, 2, 5] if reset is LoadReset.TURN else [5, 5, 5])
    economy.on_round_start(creatures, list(states))
    assert [s.load for s in states] == ([5, 2, 5] if reset is LoadReset.TURN else [-1, 2, 0])


def test_describe() -> None:
    """R13: one Load per creature, shown as such."""
    assert _economy().describe(creature("c"), LoadState(2)) == "Load 2"


def test_unknown_economy_is_refused() -> None:
    """A ruleset naming an economy nobody registered gets a clear error (the module options R19,
    R20 belong to a known economy)."""
    from dataclasses import replace

    bad = replace(ruleset(), economy="barter")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no economy named 'barter'"):
        economy_for(bad)
