"""Seed 000/001 examples for the gate and the pool, each quoting the text it checks."""

from caltrop.core.pool import (
    Advantage,
    Revision,
    check_gate,
    gm_pool_size,
    net_advantage,
    pool_size,
)


def test_trap_example_rolls_5d4() -> None:
    """Seed 000: "Their Finesse value is 4 and they already acted this turn, so their Action Load
    is 0 … darkly lit dungeon which gives Disadvantage … holding a torch, giving Advantage …
    giving advice, granting another advantage - the pool is now 5. The player will roll 5d4."
    """
    net = net_advantage(
        [Advantage("dis", "dark"), Advantage("adv", "torch"), Advantage("adv", "advice")]
    )
    assert check_gate(4, 0, 1)
    assert pool_size(4, 0, net) == 5


def test_dagger_example_rolls_4d4_plus_1d4() -> None:
    """Seed 000: "Your Finesse is 6 and your Action Load is 2 … You roll 6 − 2 = 4d4 + 1d4"."""
    assert pool_size(6, 2) == 4
    assert pool_size(6, 2, revision=Revision.LEGACY) == 4


def test_watch_my_back_counts_once() -> None:
    """Seed 000 / R14: "If two allies both use the "Watch My Back" feature to give you Advantage
    on your next roll, you still only gain +1d4"."""
    assert net_advantage([("adv", "watch-my-back"), ("adv", "watch-my-back")]) == 1


def test_gate_refusal_spells_out_the_arithmetic() -> None:
    """R11: allowed iff Aspect − Load ≥ Cost; the refusal says why."""
    gate = check_gate(4, 3, 2, aspect_name="Finesse")
    assert not gate
    assert gate.reason == "Finesse 4 − Load 3 = 1 < cost 2"


# -- more of seed 000 (current revision) ------------------------------------------------------------


def test_trap_example_step_by_step() -> None:
    """Seed 000: "their Action Load is 0 (it started at −1 from their Load Buffer of 1) - the d4
    pool is 4. … darkly lit dungeon which gives Disadvantage - the d4 pool is now 3. … holding a
    torch, giving Advantage - the d4 pool is now back to 4. … giving advice, granting another
    advantage - the pool is now 5."
    """
    steps = [
        ([], 4),
        ([Advantage("dis", "dark")], 3),
        ([Advantage("dis", "dark"), Advantage("adv", "torch")], 4),
        ([Advantage("dis", "dark"), Advantage("adv", "torch"), Advantage("adv", "advice")], 5),
    ]
    for sources, pool in steps:
        assert pool_size(4, 0, net_advantage(sources)) == pool
    # Before acting, at Load −1, the pool was 4 as well: "Start with: Aspect – max(0, Action
    # Load)" — a negative Load never adds dice (R12).
    assert pool_size(4, -1) == 4


def test_zero_cost_action_at_zero() -> None:
    """Seed 000: "A 0-cost action can be taken whenever Aspect − Load is 0 or more." """
    assert check_gate(3, 3, 0)
    assert not check_gate(3, 4, 0)
    assert not check_gate(3, 3, 1)


def test_disadvantage_never_takes_the_pool_below_one() -> None:
    """Seed 000: "If Disadvantage would take the pool below 1, you still roll 1d4 (the
    minimum)." (R3)"""
    assert pool_size(2, 1, -3) == 1
    assert pool_size(1, 0, -1) == 1


def test_advantage_dice_do_not_count_against_the_cap() -> None:
    """Seed 000: "Advantage and Disadvantage are applied after that, so extra Advantage dice never
    count against the Aspect − Load cap, and Disadvantage never changes your Load." Aspect 3 at
    Load 1 leaves 2; two advantages roll 4d4 although 4 > Aspect − Load."""
    gate = check_gate(3, 1, 1)
    assert gate
    assert gate.load == 1
    assert pool_size(3, 1, net_advantage([("adv", "torch"), ("adv", "advice")])) == 4


def test_keep_acting_while_aspect_minus_load_meets_the_cost() -> None:
    """Seed 000: "You can keep acting as long as your Aspect − Action Load is at least the next
    action's Cost." and "Increase your Action Load: Add the action's Cost". Aspect 4 from Load 0:
    costs 1, 1, 2 are allowed (Load 1, 2, 4); then a 0-cost action still is (4 − 4 = 0), a 1-cost
    one is not."""
    load = 0
    for cost in (1, 1, 2):
        assert check_gate(4, load, cost)
        load += cost
    assert load == 4
    assert check_gate(4, load, 0)
    assert not check_gate(4, load, 1)


def test_cannot_choose_an_action_costing_more_than_is_left() -> None:
    """Seed 000: "If Aspect − Action Load is less than the action's Cost, you cannot choose to
    take that action." """
    assert not check_gate(5, 3, 3)
    assert check_gate(5, 3, 2)


def test_goblin_team_action_example() -> None:
    """Seed 000: "A goblin attacks your ally. You have an Action Load of 1. You use a Team Action
    (cost 1) to impose Disadvantage. The goblin rolls its attack with disadvantage and you add 1
    to your Action Load." Seed 001 names the Aspect: "You still have 3 Control"."""
    for revision in Revision:
        assert check_gate(3, 1, 1, revision, aspect_name="Control")
    goblin_net = net_advantage([("dis", "team-action")])
    assert goblin_net == -1
    goblin_aspect = 3  # any goblin Attack pool above the floor loses exactly one d4
    assert pool_size(goblin_aspect, 0, goblin_net) == pool_size(goblin_aspect, 0) - 1
    load_after = 1 + 1
    assert check_gate(3, load_after, 1)  # 3 − 2 = 1 ≥ 1: one more cost-1 action fits


def test_gm_called_roll_with_negative_aspect() -> None:
    """Seeds 000/001: "If the GM calls for a roll, you always roll at least 1d4, even with a
    negative Aspect." "GM-initiated rolls may or may not consider Action Load — this is up to the
    GM." (R17: by default it does not.)"""
    assert gm_pool_size(-2, 0) == 1
    assert gm_pool_size(5, 3) == 5
    assert gm_pool_size(5, 3, count_load=True) == 2


# -- seed 001 (legacy revision, R20) ----------------------------------------------------------------


def test_legacy_act_while_positive() -> None:
    """Seed 001: "Subtract your Action Load from that Aspect's value. If the result is greater
    than 0, you can take the action" and "If Aspect − Action Load ≤ 0, you cannot choose to act
    using that Aspect." — even a 0-cost action (R20)."""
    assert check_gate(3, 2, 1, Revision.LEGACY)
    assert not check_gate(3, 3, 0, Revision.LEGACY)
    assert check_gate(3, 3, 0, Revision.CURRENT)  # the current revision differs here
    assert not check_gate(3, 5, 0, Revision.LEGACY)


def test_legacy_positive_and_meets_the_cost() -> None:
    """Seed 001: "You can keep acting as long as your adjusted Aspect value (Aspect − Action
    Load) remains positive and meets the action's cost." """
    assert not check_gate(4, 3, 2, Revision.LEGACY)  # 1 > 0 but 1 < 2
    assert check_gate(4, 2, 2, Revision.LEGACY)


def test_legacy_roll_aspect_minus_load_and_fixed_pools() -> None:
    """Seed 001: "Roll d4s equal to: Aspect Value − Action Load" and "Some abilities have a Cost
    of 0 or use only 1d4, enabling small actions even late in the round." """
    assert pool_size(6, 2, revision=Revision.LEGACY) == 4
    assert pool_size(6, 5, revision=Revision.LEGACY, fixed_pool=1) == 1
    assert check_gate(6, 5, 0, Revision.LEGACY)  # 6 − 5 = 1 > 0: the small action is allowed
