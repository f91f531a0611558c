"""The decision-point interface (OpenSpiel-shaped): who decides, legal actions, chance, clone.

Issue 3: "who must decide now (a creature, including one inside a reaction window, or *chance*
for a pending roll, or *terminal*), its legal actions, apply, the exact outcomes and
probabilities of a chance point, a cheap ``clone()`` (not ``deepcopy``), and the result at the
end."

Tests of ``encounter/legal.py`` (tests/test_layout.py).
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from caltrop.core.commands import Act, EndTurn, Pass, RollDice, RollTotal
from caltrop.core.model import Initiative, Ruleset
from caltrop.dice import distribution
from caltrop.encounter import CHANCE, TERMINAL, Encounter, RollKind
from caltrop.errors import IllegalActionError
from tests.encounter.builders import (
    ACTION_LOAD_RULESETS,
    duel,
    load,
    random_playout,
    ruleset,
    run,
    skirmish,
)


def _chance_matches_distribution(enc: Encounter) -> None:
    outcomes = enc.chance_outcomes()
    assert sum(p for _, p in outcomes) == Fraction(1)
    assert all(isinstance(p, Fraction) and p > 0 for _, p in outcomes)
    pmf = distribution(enc.pending_expression()).pmf_exact()
    assert {rt.total: p for rt, p in outcomes} == {t: p for t, p in pmf.items() if p != 0}


def test_current_walks_creature_window_chance_terminal() -> None:
    """current() is the turn owner, then each creature in the reaction window (R15), then
    chance, and terminal at the end (R16)."""
    enc = Encounter.begin(skirmish(), 3)
    ids = {c.id for c in enc.creatures}
    assert enc.current() == "aria"
    run(enc, "aria: strike goblin with sword")
    seen = []
    while enc.current() != CHANCE:
        who = enc.current()
        assert who in ids
        seen.append(who)
        run(enc, f"{who}: pass")
    assert seen == ["bron", "goblin", "shaman"]  # window order: after the roller
    assert not enc.is_terminal()
    _chance_matches_distribution(enc)
    run(enc, "gm: end encounter")
    assert enc.current() == TERMINAL
    assert enc.is_terminal()
    assert not list(enc.legal_actions())


@pytest.mark.parametrize(
    "setup",
    [
        ("aria: strike goblin with sword +adv:a",),
        ("aria: strike goblin with dagger +dis:a +dis:b +dis:c +dis:d +dis:e +dis:f",),
        ("gm: call shaman Finesse",),  # −1 Aspect: 1d4 (R17)
        ("aria: pick-lock",),
    ],
)
def test_chance_outcomes_are_exact_and_sum_to_one(setup: tuple[str, ...]) -> None:
    """Decision points / R1: the chance outcomes of a pending roll are the exact distribution of
    its dice expression; their probabilities sum exactly to 1."""
    enc = Encounter.begin(skirmish(), 0)
    run(enc, *setup)
    _chance_matches_distribution(enc)


def test_initiative_is_a_chance_point() -> None:
    """R21 ``initiative: check``: each initiative roll is a chance point before any turn."""
    enc = Encounter.begin(skirmish(ruleset(initiative=Initiative.CHECK)), 0)
    for _ in enc.creatures:
        assert enc.current() == CHANCE
        assert enc.pending_roll is not None
        assert enc.pending_roll.kind is RollKind.INITIATIVE
        _chance_matches_distribution(enc)
        run(enc, "roll")
    assert enc.current() in {c.id for c in enc.creatures}
    assert enc.round == 1


def test_roll_total_applies_a_chance_outcome() -> None:
    """RollTotal(t) resolves the pending roll with total t (R16 damage from it), no faces."""
    enc = Encounter.begin(skirmish(), 0)
    run(enc, "aria: strike goblin with dagger")
    outcomes = dict((rt.total, p) for rt, p in enc.chance_outcomes())
    assert min(outcomes) == 6
    assert max(outcomes) == 24
    outcome = enc.apply(RollTotal(10))
    assert outcome is not None
    assert outcome.total == 10
    assert outcome.faces == ()
    assert outcome.damage == 2
    assert enc.health[enc.index("goblin")] == 5
    assert load(enc, "aria") == 0  # −1 + cost 1


def test_legal_actions_is_a_lazy_view() -> None:
    """Issue 3: "``legal_actions`` as a lazy view plus ``is_legal``" — legality is the gate (R11)
    and, with a roll pending, the reaction window (R15)."""
    enc = Encounter.begin(skirmish(), 0)
    view = enc.legal_actions()
    assert Act("aria", "strike", ("goblin",), ("dagger",)) in view
    assert Act("aria", "strike", ("goblin",), ("dagger",), advantages=()) in view
    assert Act("aria", "strike", ("goblin",), ("spoon",)) not in view
    assert EndTurn("aria") in view
    assert EndTurn("bron") not in view
    assert "aria: end turn" not in view  # only command objects
    assert len(view) == len(list(view))
    assert bool(view)
    assert not enc.legal_actions("bron")  # not bron's turn, nothing pending
    run(enc, "aria: strike goblin with dagger")
    assert Pass("bron") in enc.legal_actions("bron")
    assert RollDice() in enc.legal_actions("gm")
    assert view.__contains__(EndTurn("aria")) is False  # the view follows the live state


@pytest.mark.parametrize("name", sorted(ACTION_LOAD_RULESETS))
@pytest.mark.parametrize("build", [skirmish, duel])
def test_random_policy_always_terminates(name: str, build: object) -> None:
    """Decision points: a random policy reaches terminal in bounded steps, and whoever must
    decide always has a legal action (this found the downed-owner bug, R16)."""
    assert callable(build)
    steps = []
    for seed in range(40):
        enc = Encounter.begin(build(ACTION_LOAD_RULESETS[name]), seed, record=False)
        steps.append(random_playout(enc, random.Random(seed), max_steps=3000))
        assert enc.is_terminal()
        assert enc.winner is not None
        result = enc.returns()
        assert sorted(result.values()) == [0.0, 1.0]
    assert max(steps) < 3000


def test_clone_without_a_log_is_independent_and_cannot_undo() -> None:
    """clone() of a record=False encounter (simulations) is independent and carries the seeded
    RNG state (R5), so the same commands give the same dice; without a log there is no undo."""
    enc = Encounter.begin(duel(), 5, record=False)
    twin = enc.clone()
    run(twin, "a: strike b", "roll")
    assert enc.to_json() != twin.to_json()
    assert enc.snapshot()["commands"] == 0
    with pytest.raises(IllegalActionError, match="keeps no log"):
        twin.undo()
    with pytest.raises(IllegalActionError, match="keeps no log"):
        twin.log_lines()
    again = enc.clone()
    run(again, "a: strike b", "roll")
    assert again.to_json() == twin.to_json()  # same RNG state, same result


def test_undo_of_nothing_is_refused() -> None:
    """Issue 3 (undo of the last command): with no command yet there is nothing to take back."""
    enc = Encounter.begin(duel(), 5)
    with pytest.raises(IllegalActionError, match="nothing to undo"):
        enc.undo()


def test_returns_only_at_the_end() -> None:
    """The result at the end: 1 for the winning side, 0 for the other (R16)."""
    enc = Encounter.begin(duel(Ruleset()), 1)
    with pytest.raises(IllegalActionError):
        enc.returns()
    random_playout(enc, random.Random(1))
    assert enc.winner is not None
    assert enc.returns()[enc.winner.value] == 1.0
