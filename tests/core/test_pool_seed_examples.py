"""Seed 000/001 examples for the gate and the pool, each quoting the text it checks."""

from caltrop.core.pool import Advantage, Revision, check_gate, net_advantage, pool_size


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
