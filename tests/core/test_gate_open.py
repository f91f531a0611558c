"""``gate_open`` (the fast bool) and ``check_gate`` (with the reason) are one rule (R11, R20)."""

from hypothesis import given
from hypothesis import strategies as st

from caltrop.core.model import ActionDef, ActionKind, CreatureDef, LoadReset, Ruleset, Side
from caltrop.core.pool import Revision, check_gate, gate_open
from caltrop.economy.load.economy import ActionLoadEconomy
from caltrop.economy.load.state import LoadState

small = st.integers(-10, 15)


@given(small, small, st.integers(0, 8), st.sampled_from(list(Revision)))
def test_gate_open_agrees_with_check_gate(aspect: int, load: int, cost: int, rev: Revision) -> None:
    """R11: "You can take an action if (Aspect − current Action Load) ≥ the action's Action
    Cost"; R20 legacy also needs Aspect − Load > 0. Both functions give the same answer."""
    assert gate_open(aspect, load, cost, rev) == bool(check_gate(aspect, load, cost, rev))
    assert gate_open(aspect, load, cost, rev.value) == bool(check_gate(aspect, load, cost, rev))


@given(small, small, st.integers(0, 8), st.sampled_from(list(Revision)), st.booleans())
def test_economy_allows_agrees_with_its_gate(
    aspect: int, load: int, cost: int, rev: Revision, on_turn: bool
) -> None:
    economy = ActionLoadEconomy(Ruleset(revision=rev, load_reset=LoadReset.TURN))
    creature = CreatureDef("a", "A", Side.PC, {"Finesse": aspect}, 5)
    action = ActionDef("strike", "Finesse", cost, ActionKind.ATTACK)
    state = LoadState(load)
    assert economy.allows(creature, state, action, on_turn=on_turn) == bool(
        economy.gate(creature, state, action, on_turn=on_turn)
    )
