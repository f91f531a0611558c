"""Properties of the gate, the pool size and Net Advantage (R3, R11, R12, R14, R17, R20)."""

from __future__ import annotations

import inspect

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caltrop.core.pool import (
    Advantage,
    Gate,
    Revision,
    check_gate,
    gm_pool_size,
    net_advantage,
    pool_size,
)
from caltrop.errors import ContentError, InvalidActionError

aspects = st.integers(-10, 20)
loads = st.integers(-10, 20)
costs = st.integers(0, 10)
advs = st.integers(-15, 15)
revisions = st.sampled_from(list(Revision))

# -- pool size -------------------------------------------------------------------------------------


@settings(max_examples=300)
@given(aspects, loads, advs, revisions, st.none() | st.integers(-3, 6))
def test_pool_is_never_below_one_d4(
    aspect: int, load: int, adv: int, revision: Revision, fixed: int | None
) -> None:
    """R3: after Net Advantage the d4 pool is never below 1d4."""
    assert pool_size(aspect, load, adv, revision, fixed_pool=fixed) >= 1


@settings(max_examples=300)
@given(aspects, loads, advs)
def test_current_pool_formula(aspect: int, load: int, adv: int) -> None:
    """R12: d4 count = Aspect − max(0, Load) + NetAdvantage, minimum 1."""
    assert pool_size(aspect, load, adv) == max(1, aspect - max(0, load) + adv)


@settings(max_examples=200)
@given(aspects, st.integers(-10, -1), advs)
def test_negative_load_never_adds_dice(aspect: int, load: int, adv: int) -> None:
    """R12: "A negative Load never adds dice" — a Load below 0 rolls as Load 0."""
    assert pool_size(aspect, load, adv) == pool_size(aspect, 0, adv)
    assert gm_pool_size(aspect, load, adv, count_load=True) == gm_pool_size(aspect, 0, adv)


def test_negative_load_by_hand() -> None:
    # Aspect 4 at Load −2 (Load Buffer 2): 4 − max(0, −2) = 4 dice, not 6.
    assert pool_size(4, -2) == 4
    assert pool_size(4, 1) == 3


@settings(max_examples=200)
@given(aspects, st.integers(0, 20), advs, st.none() | st.integers(1, 6))
def test_legacy_pool_formula(aspect: int, load: int, adv: int, fixed: int | None) -> None:
    """R20: legacy pool = Aspect − Load (+ Net Advantage, R14 still applies); an action that
    names a fixed pool ("use only 1d4") rolls it whatever the Load."""
    got = pool_size(aspect, load, adv, Revision.LEGACY, fixed_pool=fixed)
    base = fixed if fixed is not None else aspect - load
    assert got == max(1, base + adv)


def test_fixed_pool_ignores_load() -> None:
    """Seed 001: "Some abilities have a Cost of 0 or use only 1d4" — at any Load."""
    for load in range(0, 8):
        assert pool_size(5, load, 0, Revision.LEGACY, fixed_pool=1) == 1
        assert pool_size(5, load, 0, fixed_pool=1) == 1
    assert pool_size(5, 4, 2, Revision.LEGACY, fixed_pool=1) == 3  # advantage still adds


@settings(max_examples=200)
@given(aspects, loads, advs, st.booleans())
def test_gm_pool(aspect: int, load: int, adv: int, count_load: bool) -> None:
    """R17: max(1, Aspect − (max(0, Load) if Load counts, else 0) + NetAdvantage)."""
    got = gm_pool_size(aspect, load, adv, count_load=count_load)
    assert got >= 1
    assert got == max(1, aspect - (max(0, load) if count_load else 0) + adv)


def test_gm_pool_by_hand() -> None:
    """Seeds 000/001: "If the GM calls for a roll, you always roll at least 1d4, even with a
    negative Aspect." By default Load does not count (R17)."""
    assert gm_pool_size(-3, 0) == 1
    assert gm_pool_size(-3, 0, 2) == 1  # −3 + 2 = −1 → still 1d4
    assert gm_pool_size(4, 3) == 4  # Load ignored by default
    assert gm_pool_size(4, 3, count_load=True) == 1
    assert gm_pool_size(4, -3, count_load=True) == 4


# -- the gate --------------------------------------------------------------------------------------


def test_gate_has_no_advantage_parameter() -> None:
    """R11: "Advantage and Disadvantage never change whether you can act"."""
    params = inspect.signature(check_gate).parameters
    assert set(params) == {"aspect", "load", "cost", "revision", "aspect_name"}


@settings(max_examples=300)
@given(aspects, loads, costs, revisions, advs, advs)
def test_advantage_changes_the_pool_never_the_gate(
    aspect: int, load: int, cost: int, revision: Revision, adv1: int, adv2: int
) -> None:
    """For the same Aspect/Load/Cost the gate is one answer, while the pool moves with Net
    Advantage: where both pools are above the 1d4 floor they differ by exactly adv1 − adv2."""
    gate = check_gate(aspect, load, cost, revision)
    p1 = pool_size(aspect, load, adv1, revision)
    p2 = pool_size(aspect, load, adv2, revision)
    assert check_gate(aspect, load, cost, revision) == gate
    if p1 > 1 and p2 > 1:
        assert p1 - p2 == adv1 - adv2


@pytest.mark.parametrize("revision", list(Revision))
def test_advantage_cannot_open_or_close_the_gate(revision: Revision) -> None:
    """Seed 000: "Disadvantage can't take an action away, and Help still matters on the roll."
    Aspect 2 at Load 2 with cost 1 is refused although +3 advantage would make a 3d4 pool;
    Aspect 3 at Load 0 with cost 3 is allowed although −5 disadvantage leaves only 1d4."""
    assert not check_gate(2, 2, 1, revision)
    assert pool_size(2, 2, 3, revision) == 3
    assert check_gate(3, 0, 3, revision)
    assert pool_size(3, 0, -5, revision) == 1


@settings(max_examples=300)
@given(aspects, loads, costs)
def test_current_gate(aspect: int, load: int, cost: int) -> None:
    """R11: allowed iff Aspect − Load ≥ Cost."""
    gate = check_gate(aspect, load, cost)
    assert bool(gate) == gate.allowed == (aspect - load >= cost)
    assert (gate.aspect, gate.load, gate.cost, gate.revision) == (
        aspect,
        load,
        cost,
        Revision.CURRENT,
    )


@settings(max_examples=300)
@given(aspects, loads, costs)
def test_legacy_gate(aspect: int, load: int, cost: int) -> None:
    """R20: allowed iff Aspect − Load > 0 and Aspect − Load ≥ Cost."""
    gate = check_gate(aspect, load, cost, Revision.LEGACY)
    assert gate.allowed == (aspect - load > 0 and aspect - load >= cost)


@settings(max_examples=200)
@given(aspects, st.integers(-5, 0))
def test_legacy_refuses_at_zero_or_less_even_for_cost_zero(aspect: int, margin: int) -> None:
    """Seed 001: "If Aspect − Action Load ≤ 0, you cannot choose to act using that Aspect." """
    load = aspect - margin  # Aspect − Load = margin ≤ 0
    gate = check_gate(aspect, load, 0, Revision.LEGACY)
    assert not gate
    assert "not more than 0" in gate.reason
    assert "R20" in gate.reason


@settings(max_examples=200)
@given(aspects)
def test_current_allows_cost_zero_at_zero(aspect: int) -> None:
    """Seed 000: "A 0-cost action can be taken whenever Aspect − Load is 0 or more." """
    assert check_gate(aspect, aspect, 0)
    assert check_gate(aspect, aspect - 3, 0)
    assert not check_gate(aspect, aspect + 1, 0)


def test_gate_reasons_spell_out_the_arithmetic() -> None:
    assert check_gate(4, 1, 2).reason == "Aspect 4 − Load 1 = 3 ≥ cost 2"
    assert check_gate(4, 3, 2, aspect_name="Control").reason == "Control 4 − Load 3 = 1 < cost 2"
    assert (
        check_gate(3, 3, 0, Revision.LEGACY).reason
        == "Aspect 3 − Load 3 = 0 is not more than 0 (legacy rule, R20)"
    )
    assert isinstance(check_gate(1, 0, 1), Gate)


def test_negative_cost_is_rejected() -> None:
    with pytest.raises(ContentError, match="0 or more"):
        check_gate(3, 0, -1)


def test_revision_given_as_text() -> None:
    """Bug fixed: ``"legacy"`` as a plain string used to fall through to the current rules
    (``is`` comparison on a StrEnum), and a typo was silently accepted."""
    assert not check_gate(2, 2, 0, "legacy")  # type: ignore[arg-type]
    assert check_gate(2, 2, 0, "current")  # type: ignore[arg-type]
    assert check_gate(2, 2, 0, "legacy").revision is Revision.LEGACY  # type: ignore[arg-type]
    assert pool_size(3, -2, 0, "legacy") == 5  # type: ignore[arg-type]
    assert pool_size(3, -2, 0, "current") == 3  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="legcy"):
        check_gate(2, 2, 0, "legcy")  # type: ignore[arg-type]


# -- Net Advantage ---------------------------------------------------------------------------------

keys = st.sampled_from(["torch", "advice", "dark", "watch-my-back", "flank", "prone", "aim"])
sources = st.lists(st.tuples(st.sampled_from(["adv", "dis"]), keys), max_size=12)


@settings(max_examples=300)
@given(sources)
def test_net_advantage_counts_each_key_once(items: list[tuple[str, str]]) -> None:
    """R14: a source key counts once, whoever applies it and however many times."""
    distinct = set(items)
    want = sum(1 for k, _ in distinct if k == "adv") - sum(1 for k, _ in distinct if k == "dis")
    assert net_advantage(items) == want  # type: ignore[arg-type]
    assert net_advantage(items + items) == want  # type: ignore[arg-type]


@settings(max_examples=200)
@given(sources, st.randoms(use_true_random=False))
def test_net_advantage_is_order_independent(items: list[tuple[str, str]], rnd: object) -> None:
    shuffled = list(items)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    assert net_advantage(shuffled) == net_advantage(items)  # type: ignore[arg-type]


def test_net_advantage_examples() -> None:
    """R14: two allies using Watch My Back give +1 in all; a torch and advice give +2."""
    assert net_advantage([("adv", "watch-my-back"), ("adv", "watch-my-back")]) == 1
    assert net_advantage([Advantage("adv", "torch"), Advantage("adv", "advice")]) == 2
    # An Advantage object and the equivalent tuple are the same key.
    assert net_advantage([Advantage("adv", "torch"), ("adv", "torch")]) == 1
    assert net_advantage([Advantage("dis", "dark"), ("dis", "dark"), ("adv", "torch")]) == 0
    assert net_advantage([]) == 0
    assert net_advantage(iter([("dis", "a"), ("dis", "b")])) == -2


def test_advantage_validation_and_text() -> None:
    assert str(Advantage("adv", "torch")) == "+adv:torch"
    assert str(Advantage("dis", "dark")) == "+dis:dark"
    with pytest.raises(InvalidActionError, match="'adv' or 'dis'"):
        Advantage("fav", "x")  # type: ignore[arg-type]
    with pytest.raises(InvalidActionError, match="one word"):
        Advantage("adv", "two words")
    with pytest.raises(InvalidActionError, match="one word"):
        Advantage("adv", "")
    with pytest.raises(InvalidActionError, match="'adv' or 'dis'"):
        net_advantage([("favor", "torch")])  # type: ignore[list-item]
