"""The compiled tactical policy for Action Point encounters (:mod:`caltrop.sim.fast.
points_tactical`, issue 23 item 5) against the Python one (:mod:`caltrop.sim.points_tactics`).

Issue 23: "compile ``tactical`` for the Action Point module (the same choices as the Python
policy, checked command by command and die by die by replaying kernel encounters in the
engine, as for Action Load)". Checked here:

* **Command by command, die by die**: kernel encounters replayed in the engine with
  :class:`~caltrop.sim.tactics.TacticalPolicy` deciding and the kernel's totals rolled
  (``RollTotal``): every decision — equip (R44), moves with their destination to the bit (R34,
  R35), aims (R39), Hold Action (R33), attacks with their weapons and target (R38, R39), Take
  Cover, Block, Dodge, Defense Assist (R40), allies' off-turn steps (R32 ``any``), passes and
  turn ends — and every roll's roller, stage, other party and d4 pool, with the same hit and
  the same damage through the defence, on the bundled Action Point encounters under both
  ``off_turn_actions`` (R32) and both ``initiative`` rules (R30).
* The kernel's records (steps, rounds, AP and RP paid, damage dealt, reactions, Health) are the
  engine's counts of the same encounters.
* Results depend neither on the threads, nor on how a run is split, nor on what the numbers
  table already held; refusals in words.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from caltrop.content import load_encounter
from caltrop.core.model import EncounterDef, Halving, Initiative, OffTurn
from caltrop.sim.fast import FastPathError
from caltrop.sim.fast.points_tactical import (
    compile_points_tactical,
    play_points_tactical,
    replay_points_tactical,
)
from caltrop.sim.fast.points_tactical.compile import C_HEALTH
from caltrop.sim.runner import NPC_WINS, PC_WINS


def _ruled(definition: EncounterDef, **changes: Any) -> EncounterDef:
    return replace(definition, ruleset=replace(definition.ruleset, **changes))


VARIANTS = [
    (name, off_turn, initiative)
    for name in ("warband-ap", "bridge-duel-ap")
    for off_turn in (OffTurn.ANY, OffTurn.REACTIONS)
    for initiative in (Initiative.CHECK, Initiative.GM)
]


@pytest.mark.parametrize(("name", "off_turn", "initiative"), VARIANTS)
def test_the_engine_makes_the_kernels_every_choice(
    name: str, off_turn: OffTurn, initiative: Initiative
) -> None:
    definition = _ruled(load_encounter(name), off_turn_actions=off_turn, initiative=initiative)
    compiled = compile_points_tactical(definition)
    count = 6
    replays = [replay_points_tactical(compiled, 23, i) for i in range(count)]
    assert all(r.rolls > 0 and r.steps > 20 for r in replays)
    records = play_points_tactical(compiled, count, 23)
    assert list(records.steps) == [r.steps for r in replays]
    assert list(records.rounds) == [r.rounds for r in replays]
    winners = {0: PC_WINS, 1: NPC_WINS}
    assert [int(w) for w in records.winner] == [winners.get(r.winner, 0) for r in replays]
    assert [tuple(c) for c in records.cost] == [r.cost for r in replays]
    assert [tuple(d) for d in records.dealt] == [r.dealt for r in replays]
    assert [tuple(x) for x in records.reactions] == [r.reacted for r in replays]


def test_the_replays_reach_every_kind_of_choice() -> None:
    """Over a few Warband fights the policy equips, moves, aims, holds, shoots, attacks,
    blocks or dodges, takes cover and assists, and allies step off turn (R32 any): the replay
    above checks each of them, not only the common ones."""
    compiled = compile_points_tactical(load_encounter("warband-ap"))
    seen: set[str] = set()
    for i in range(8):
        replay = replay_points_tactical(compiled, 5, i)
        for command in replay.commands:
            seen.add(getattr(command, "action", type(command).__name__))
    for verb in ("equip", "move", "aim", "hold", "shoot", "attack", "cover", "Pass", "EndTurn"):
        assert verb in seen, verb
    assert {"block", "dodge"} & seen


def test_results_do_not_depend_on_threads_the_split_or_the_table() -> None:
    definition = load_encounter("bridge-duel-ap")
    warm = compile_points_tactical(definition)
    whole = play_points_tactical(warm, 40, 9, threads=2)
    halves = [
        play_points_tactical(warm, 20, 9, threads=1),
        play_points_tactical(warm, 20, 9, first=20, threads=2),
    ]
    fresh = compile_points_tactical(definition, cached=False)
    assert len(fresh.numbers.known) == 0 < len(warm.numbers.known)
    cold = play_points_tactical(fresh, 40, 9, threads=1)
    assert np.array_equal(whole.winner, cold.winner)
    assert np.array_equal(whole.steps, cold.steps)
    assert np.array_equal(whole.health, cold.health)
    assert np.array_equal(whole.steps, np.concatenate([h.steps for h in halves]))
    assert np.array_equal(whole.dealt, np.concatenate([h.dealt for h in halves]))


def test_refuses_what_it_cannot_play_in_words() -> None:
    warband = load_encounter("warband-ap")
    with pytest.raises(FastPathError, match="multi_weapon_halving: each"):
        compile_points_tactical(_ruled(warband, multi_weapon_halving=Halving.EACH))
    with pytest.raises(FastPathError, match="not an Action Point encounter"):
        compile_points_tactical(load_encounter("duel"))
    big = replace(
        warband,
        participants=(replace(warband.participants[0], health=300), *warband.participants[1:]),
    )
    with pytest.raises(FastPathError, match="Health 300 is beyond 0–255"):
        compile_points_tactical(big)


def test_an_encounter_compiled_again_keeps_its_numbers_and_a_changed_one_does_not() -> None:
    """The same definition compiled again in a process finds its table filled (a web table's
    panel asks again after every change); any change of the definition compiles anew."""
    definition = load_encounter("bridge-duel-ap")
    first = compile_points_tactical(definition)
    play_points_tactical(first, 4, 1)
    assert compile_points_tactical(load_encounter("bridge-duel-ap")) is first
    tougher = replace(
        definition,
        participants=(replace(definition.participants[0], health=20), *definition.participants[1:]),
    )
    other = compile_points_tactical(tougher)
    assert other is not first
    assert other.creatures[0, C_HEALTH] == 20


STAT_RANGES = {
    "ap": (2, 8),
    "rp": (0, 3),
    "resistance": (0, 3),
    "block_rating": (0, 4),
    "dodge_rating": (0, 4),
    "travel_speed": (1, 4),
}


@st.composite
def _varied(draw: st.DrawFn) -> EncounterDef:
    """Warband or Bridge Duel AP with each creature's Health and Action Point stats drawn
    (R31 AP and RP, R35 speed, R40 ratings and Resistance), under either off-turn rule (R32)."""
    base = load_encounter(draw(st.sampled_from(["warband-ap", "bridge-duel-ap"])))
    creatures = []
    for c in base.participants:
        stats = dict(c.stats)
        for name, (lo, hi) in STAT_RANGES.items():
            stats[name] = draw(st.integers(lo, hi))
        creatures.append(replace(c, health=draw(st.integers(3, 20)), stats=stats))
    off_turn = draw(st.sampled_from([OffTurn.ANY, OffTurn.REACTIONS]))
    return _ruled(replace(base, participants=tuple(creatures)), off_turn_actions=off_turn)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(definition=_varied(), seed=st.integers(0, 10_000))
def test_varied_encounters_make_the_same_choices(definition: EncounterDef, seed: int) -> None:
    """The fuzz generator of this class of defect (a choice or a rule the kernel writes
    differently): random stat blocks, one fight each replayed in the engine."""
    compiled = compile_points_tactical(definition, cached=False)
    replay = replay_points_tactical(compiled, seed, 0, max_rounds=30)
    records = play_points_tactical(compiled, 1, seed, max_rounds=30)
    assert records.steps[0] == replay.steps
    assert tuple(records.dealt[0]) == replay.dealt


def test_a_pool_of_the_dc_or_more_hits_for_certain() -> None:
    """R39 with R3: a check of ``pool`` d4s rolls at least ``pool``, so at DC ≤ pool it hits
    for certain — the policy's hit_chance is exactly 1.0 there, for every DC the kernel's keys
    hold; the kernel names every such pool by one code (an Aim stack may grow without end)."""
    from caltrop.sim.fast.points_tactical.compile import hit_code
    from caltrop.sim.points_tactics import hit_chance

    for dc in range(128):
        for pool in range(max(1, dc), 160):
            assert hit_chance(pool, 0, dc) == 1.0, (pool, dc)
            assert hit_code(pool, dc) == hit_code(dc, dc)
    assert hit_chance(4, 0, 5) < 1.0
    assert hit_code(4, 5) != hit_code(5, 5)
