"""The conformance suite every action economy must pass (``caltrop.economy.base.EconomyRules``).

Issue 3: "A shared conformance suite that any economy must pass (this one now, Action Points
next)." Each test is parametrised over :data:`CASES`; an economy joins by adding an
:class:`EconomyCase` (its ruleset, which of its resources are points, and which way paying moves
them). Issue 4: "The conformance suite passes for both economies" — the Action Point economy
(seed 004) is the case ``action_points``::

    EconomyCase("action_points", ap_ruleset(), ("ap", "rp", "floating_rp", "stamina"),
                spent=lambda r: -(r["ap"] + r["rp"] + r["floating_rp"]), encounter=skirmish)

Nothing here knows what the resources are called: only that they are a JSON-able dict whose
points are whole numbers, that paying never moves them the wrong way, that the gate never depends
on advantage (R11; for seed 004, R2 "Favor is Advantage"), that refusals say why, and that a whole
random encounter ends and replays identically.

Tests of ``economy/actions.py`` (tests/test_layout.py).
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, replace

import pytest

from caltrop.core.commands import Act, RollDice
from caltrop.core.model import ActionDef, ActionKind, CreatureDef, EncounterDef, LoadReset, Ruleset
from caltrop.core.pool import Advantage, Revision
from caltrop.economy import economy_for
from caltrop.economy.base import EconomyRules, Resources
from caltrop.encounter import CHANCE, Encounter
from tests.encounter import points_builders
from tests.encounter.builders import random_playout, replayed, ruleset, skirmish


@dataclass(frozen=True)
class EconomyCase:
    """One economy under one set of options, as the conformance suite sees it."""

    id: str
    ruleset: Ruleset
    #: The keys of ``as_dict()`` that are points: always whole numbers.
    numbers: tuple[str, ...]
    #: How much of a creature's capacity is used, from ``as_dict()``: paying never lowers it.
    spent: Callable[[dict[str, int]], int]
    #: A small mixed encounter (PCs against NPCs) that this economy can play.
    encounter: Callable[[Ruleset], EncounterDef] = skirmish
    #: Actions the economy prices, for creatures whose module has built-in actions instead.
    probes: tuple[ActionDef, ...] = ()

    def actions(self, creature: CreatureDef) -> tuple[ActionDef, ...]:
        return creature.actions or self.probes


#: Seed 004's actions are built in (:mod:`caltrop.economy.points.actions`); the economy still prices an
#: action by its AP cost (R32), so these stand for them in the economy-level checks.
AP_PROBES = (
    ActionDef("probe-free", "Strength", 0, ActionKind.EFFECT),
    ActionDef("probe-1", "Dexterity", 1, ActionKind.CHECK, dc=3),
    ActionDef("probe-3", "Power", 3, ActionKind.ATTACK),
    ActionDef("probe-5", "Speed", 5, ActionKind.EFFECT),
)

CASES = [
    EconomyCase(
        f"action_load-{rev.value}-{reset.value}",
        ruleset(rev, reset),
        ("load",),
        lambda r: r["load"],
    )
    for rev in Revision
    for reset in LoadReset
] + [
    EconomyCase(
        "action_points",
        points_builders.ap_ruleset(),
        ("ap", "rp", "floating_rp", "stamina"),
        lambda r: -(r["ap"] + r["rp"] + r["floating_rp"]),
        encounter=points_builders.skirmish,
        probes=AP_PROBES,
    )
]


@pytest.fixture(params=CASES, ids=[c.id for c in CASES])
def case(request: pytest.FixtureRequest) -> EconomyCase:
    assert isinstance(request.param, EconomyCase)
    return request.param


def _setup(case: EconomyCase) -> tuple[EconomyRules, EncounterDef]:
    definition = case.encounter(case.ruleset)
    return economy_for(definition.ruleset), definition


def _is_json_numbers(resources: Resources, case: EconomyCase) -> dict[str, int]:
    data = resources.as_dict()
    assert isinstance(data, dict)
    assert data
    assert all(isinstance(k, str) for k in data)
    assert all(type(data[k]) is int for k in case.numbers), data
    assert json.loads(json.dumps(data)) == data
    return data


def _walk_states(case: EconomyCase, seeds: range = range(6)) -> list[Encounter]:
    """Encounters caught at many decision points of random play."""
    states: list[Encounter] = []
    for seed in seeds:
        enc = Encounter.begin(case.encounter(case.ruleset), seed, record=False)
        rng = random.Random(seed)
        while not enc.is_terminal() and len(states) < 400 * (seed + 1):
            states.append(enc.clone())
            if enc.current() == CHANCE:
                enc.apply(RollDice())
            else:
                enc.apply(rng.choice(list(enc.legal_actions())))
    return states


def test_economy_is_found_by_name(case: EconomyCase) -> None:
    """``economy_for(ruleset)`` gives the economy the ruleset names, bound to its options (R19,
    R20 for Action Load)."""
    economy, _ = _setup(case)
    assert economy.name == str(case.ruleset.economy)
    assert economy.ruleset == case.ruleset
    for method in ("initial", "on_round_start", "on_turn_start", "gate", "pool", "pay"):
        assert callable(getattr(economy, method))


def test_resources_are_json_numbers_and_copies_are_independent(case: EconomyCase) -> None:
    """Resources (R13: one Load per creature): ``as_dict()`` is JSON-able whole numbers;
    ``copy()`` shares nothing."""
    economy, definition = _setup(case)
    for creature in definition.participants:
        resources = economy.initial(creature)
        data = _is_json_numbers(resources, case)
        twin = resources.copy()
        assert twin.as_dict() == data
        economy.on_turn_start((creature,), [twin], 0)
        for action in case.actions(creature):
            economy.pay(creature, twin, action, on_turn=True)
        assert resources.as_dict() == data


def test_hooks_keep_the_resource_shape(case: EconomyCase) -> None:
    """Turn and round starts (R10, R19) change values, never the keys or their types."""
    economy, definition = _setup(case)
    creatures = definition.participants
    resources = [economy.initial(c) for c in creatures]
    keys = [set(r.as_dict()) for r in resources]
    for owner in range(len(creatures)):
        economy.on_round_start(creatures, resources)
        economy.on_turn_start(creatures, resources, owner)
        assert [set(_is_json_numbers(r, case)) for r in resources] == keys


def test_pay_never_moves_resources_the_wrong_way(case: EconomyCase) -> None:
    """Paying for an action never gives capacity back (R12: "After resolving, Load += Cost";
    seed 000 step 6; R32 for seed 004); paying for an allowed action with a cost spends some."""
    economy, _ = _setup(case)
    paid = 0
    for enc in _walk_states(case, range(3)):
        for creature, resources in zip(enc.creatures, enc.resources, strict=True):
            for action in case.actions(creature):
                for on_turn in (True, False):
                    allowed = bool(economy.gate(creature, resources, action, on_turn=on_turn))
                    after = resources.copy()
                    economy.pay(creature, after, action, on_turn=on_turn)
                    before_spent = case.spent(resources.as_dict())
                    after_spent = case.spent(after.as_dict())
                    assert after_spent >= before_spent
                    if action.cost > 0 and allowed:
                        assert after_spent > before_spent
                        paid += 1
    assert paid > 0


def test_gate_is_pure_and_refusals_have_a_reason(case: EconomyCase) -> None:
    """The gate (R11, R20) changes nothing and always says why, with the cost in it."""
    economy, _ = _setup(case)
    refused = 0
    for enc in _walk_states(case, range(3)):
        for creature, resources in zip(enc.creatures, enc.resources, strict=True):
            data = resources.as_dict()
            for action in case.actions(creature):
                for on_turn in (True, False):
                    gate = economy.gate(creature, resources, action, on_turn=on_turn)
                    assert resources.as_dict() == data
                    assert isinstance(gate.reason, str)
                    assert gate.reason
                    assert bool(gate) is gate.allowed
                    if not gate:
                        refused += 1
                        assert str(action.cost) in gate.reason or "not more than 0" in gate.reason
    assert refused > 0  # the walk did reach closed gates


def test_gate_never_depends_on_advantage(case: EconomyCase) -> None:
    """R11: "Advantage and disadvantage never change the gate." Checked through the engine for
    every action of every creature at many points of random play, with and without advantages."""
    extra = (Advantage("adv", "torch"), Advantage("dis", "dark"), Advantage("dis", "fog"))
    checked = 0
    for enc in _walk_states(case, range(3)):
        for creature in enc.creatures:
            for command in enc.legal_actions(creature.id):
                if isinstance(command, Act):
                    assert enc.is_legal(replace(command, advantages=extra))
                    checked += 1
            for action in case.actions(creature):
                if action.kind is ActionKind.ATTACK:
                    for target in enc.creatures:
                        plain = Act(creature.id, action.name, (target.id,), ("dagger",))
                        assert enc.is_legal(plain) is enc.is_legal(replace(plain, advantages=extra))
    assert checked > 0


def test_pool_is_at_least_one_and_grows_with_advantage(case: EconomyCase) -> None:
    """R3: never below 1d4; R12/R2: each point of net advantage adds a die (until the minimum)."""
    economy, _ = _setup(case)
    for enc in _walk_states(case, range(2)):
        for creature, resources in zip(enc.creatures, enc.resources, strict=True):
            for action in case.actions(creature):
                pools = [economy.pool(creature, resources, action, net) for net in range(-8, 9)]
                assert min(pools) >= 1
                assert pools == sorted(pools)
                assert all(b - a <= 1 for a, b in itertools.pairwise(pools))
                for aspect in (-3, 0, 4):
                    for count_load in (True, False):
                        assert (
                            economy.gm_pool(creature, resources, aspect, 0, count_load=count_load)
                            >= 1
                        )


def test_describe_is_one_short_line(case: EconomyCase) -> None:
    """Displays show each creature's resources in one line (R13: its one Load)."""
    economy, definition = _setup(case)
    for creature in definition.participants:
        text = economy.describe(creature, economy.initial(creature))
        assert text
        assert "\n" not in text


def test_full_random_encounter_ends_and_replays_identically(case: EconomyCase) -> None:
    """A whole random encounter under this economy ends (R16); its log, with every die (R5),
    replays to the same state byte for byte; a clone taken half-way and played on with the same commands ends the same."""
    for seed in range(4):
        enc = Encounter.begin(case.encounter(case.ruleset), seed)
        random_playout(enc, random.Random(seed), max_steps=3000)
        assert enc.is_terminal()
        again = replayed(enc)
        assert again.to_json() == enc.to_json()
        assert again.log_lines() == enc.log_lines()
        commands = enc.commands
        half = Encounter.begin(case.encounter(case.ruleset), seed)
        for command in commands[: len(commands) // 2]:
            half.apply(command)
        twin = half.clone()
        for command in commands[len(commands) // 2 :]:
            twin.apply(command)
        assert twin.to_json() == enc.to_json()
        assert twin.log_lines() == enc.log_lines()
        assert half.snapshot()["commands"] == len(commands) // 2
