"""The compiled tactical policy playing on from the middle of a fight
(:mod:`caltrop.sim.fast.tactical.resume`, issue 13: the strong player's playouts).

The search stops a copy of the encounter at an attack roll and hands it to the kernel, which
lands the roll with a given total and plays the fight to its end. Checked as the kernel's whole
fights are (``test_fast_tactical.py``): from each snapshot, the kernel's fight is played on in
the engine with :class:`~caltrop.sim.tactics.TacticalPolicy` deciding and the kernel's totals
rolled, and every command, every roll's roller, target and d4 pool (R12), and the end must be
the kernel's — on the bundled Action Load encounters under both ``load_reset`` (R19) and both
``revision`` (R20), from every point of a fight, and on random small encounters (Hypothesis).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from caltrop.content import load_encounter
from caltrop.core.commands import (
    AddCreature,
    ChangeHealth,
    Command,
    EndTurn,
    Reorder,
    RollTotal,
    SetFact,
)
from caltrop.core.model import EncounterDef
from caltrop.encounter import CHANCE, TERMINAL, Encounter, RollDice
from caltrop.sim.fast import with_options
from caltrop.sim.fast.tactical import compile_tactical
from caltrop.sim.fast.tactical.replay import follow
from caltrop.sim.fast.tactical.resume import Resume, Snapshot
from caltrop.sim.tactics import TacticalPolicy
from tests.sim.test_fast_tactical import BUNDLED, small_encounters

_ROLL = RollDice()


def _to_roll(encounter: Encounter, rolls: int, policy: TacticalPolicy) -> bool:
    """Play ``encounter`` on under tactical past ``rolls`` attack rolls, stopping at the next
    chance point; False if the fight ended first."""
    seen = 0
    while (who := encounter.current()) != TERMINAL:
        if who == CHANCE:
            if seen == rolls:
                return True
            seen += 1
            encounter.apply(_ROLL)
        else:
            encounter.apply(policy.choose(encounter, who))
    return False


def _check_from(resume: Resume, encounter: Encounter, pick: int, stream: int, label: str) -> int:
    """The kernel's fight from ``encounter`` (a chance point) with its ``pick``-th total, on
    stream ``stream``, played on in the engine step by step; the steps checked."""
    snap = resume.snapshot(encounter)
    assert snap is not None, label
    outcomes = encounter.chance_outcomes()
    total = outcomes[pick % len(outcomes)][0].total
    trace = resume.trace(snap, total, seed=11, index=stream)
    played = encounter.clone()
    played.apply(RollTotal(total))
    replay = follow(resume.compiled, played, trace, label)
    return replay.steps


def _stopped(name: str, seed: int, rolls: int) -> tuple[Resume, Encounter, Snapshot]:
    """Encounter ``name`` of ``seed`` stopped at its attack roll after ``rolls`` rolls, with
    its kernel and snapshot."""
    definition = load_encounter(name)
    resume = Resume(compile_tactical(definition))
    encounter = Encounter.begin(definition, seed, record=False)
    assert _to_roll(encounter, rolls, TacticalPolicy())
    snap = resume.snapshot(encounter)
    assert snap is not None
    return resume, encounter, snap


@pytest.mark.parametrize(("name", "reset", "revision"), BUNDLED)
def test_the_engine_plays_on_as_the_kernel_does_from_any_roll(
    name: str, reset: str, revision: str
) -> None:
    """From the 0th, 1st, … 5th attack roll of 24 fights: the kernel's every later choice is
    the engine's (R12 pool, R14 sources, R15 windows, R16 damage, R19 resets)."""
    definition = with_options(load_encounter(name), load_reset=reset, revision=revision)
    resume = Resume(compile_tactical(definition))
    checked = steps = 0
    for seed in range(24):
        encounter = Encounter.begin(definition, seed, record=False)
        if not _to_roll(encounter, seed % 6, TacticalPolicy()):
            continue
        steps += _check_from(resume, encounter, seed, seed, f"{name} seed {seed}")
        checked += 1
    assert checked >= 12  # most fights last six rolls
    assert steps >= checked  # something was played on and compared


def test_many_totals_and_streams_from_one_snapshot() -> None:
    """Each of the roll's totals (R16: the damage over Evasion differs), each on its own
    stream, plays on as the engine does; and :meth:`Resume.play` gives the traced winners."""
    resume, encounter, snap = _stopped("goblin-ambush", 4, 3)
    outcomes = [t.total for t, _ in encounter.chance_outcomes()]
    winners, _ = resume.play(snap, outcomes, seed=11, first=0)
    for k, total in enumerate(outcomes):
        trace = resume.trace(snap, total, seed=11, index=k)
        assert trace.winner == winners[k]
        played = encounter.clone()
        played.apply(RollTotal(total))
        follow(resume.compiled, played, trace, f"total {total}")
    assert len(set(winners.tolist())) > 1 or len(outcomes) == 1  # the totals matter somewhere


def test_the_playouts_win_as_often_as_the_engines() -> None:
    """The kernel's fights from one snapshot on its streams, and the engine's on its own dice,
    end in the same PC win rate within a 99.9 % interval (3.29 standard errors)."""
    resume, encounter, snap = _stopped("orc-bridge", 2, 2)
    outcomes = encounter.chance_outcomes()
    rng = np.random.default_rng(5)
    cdf = np.cumsum([float(p) for _, p in outcomes])
    n = 400
    picks = [
        outcomes[min(int(np.searchsorted(cdf, rng.random())), len(outcomes) - 1)][0]
        for _ in range(n)
    ]
    kernel_wins, _ = resume.play(snap, [t.total for t in picks], seed=3)
    engine_wins = []
    policy = TacticalPolicy()
    for k, pick in enumerate(picks):
        played = encounter.clone()
        played.rng = np.random.default_rng(1000 + k)
        played.apply(pick)
        while (who := played.current()) != TERMINAL:
            played.apply(_ROLL if who == CHANCE else policy.choose(played, who))
        engine_wins.append(played.winner is not None and played.winner.value == "pc")
    a, b = float(np.mean(kernel_wins == 0)), float(np.mean(engine_wins))
    se = np.sqrt((a * (1 - a) + b * (1 - b)) / n)
    assert abs(a - b) <= 3.29 * se + 1e-9, (a, b)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_encounters(), st.integers(0, 2**32), st.integers(0, 8), st.integers(0, 30))
def test_random_encounters_play_on_the_same(
    definition: EncounterDef, seed: int, rolls: int, pick: int
) -> None:
    resume = Resume(compile_tactical(definition), max_rounds=30)
    encounter = Encounter.begin(definition, seed, record=False)
    policy = TacticalPolicy()
    seen = 0
    while (who := encounter.current()) != TERMINAL and encounter.round <= 30:
        if who == CHANCE:
            snap = resume.snapshot(encounter)
            if seen == rolls and snap is not None:
                outcomes = encounter.chance_outcomes()
                total = outcomes[pick % len(outcomes)][0].total
                trace = resume.trace(snap, total, seed=seed, index=pick)
                encounter.apply(RollTotal(total))
                follow(resume.compiled, encounter, trace, "random", max_rounds=30)
                return
            if snap is not None:
                seen += 1
            encounter.apply(_ROLL)
        else:
            encounter.apply(policy.choose(encounter, who))


def _at_roll(definition: EncounterDef, before: tuple[Command, ...] = ()) -> Encounter:
    encounter = Encounter.begin(definition, 1, record=False)
    for command in before:
        encounter.apply(command)
    assert _to_roll(encounter, 0, TacticalPolicy())
    return encounter


def test_a_snapshot_refuses_what_the_kernel_cannot_hold() -> None:
    """R48: a GM's changes the kernel does not model — a reinforcement (a new definition), a
    condition, a new turn order — give no snapshot (the search plays on in the engine); a
    change of Health it does model."""
    definition = load_encounter("goblin-ambush")
    resume = Resume(compile_tactical(definition))
    ids = [c.id for c in definition.participants]
    assert resume.snapshot(_at_roll(definition)) is not None
    assert resume.snapshot(_at_roll(definition, (ChangeHealth(ids[-1], 2),))) is not None
    assert resume.snapshot(_at_roll(definition, (SetFact(ids[0], "prone"),))) is None
    reordered = (Reorder(tuple(reversed(ids))),)
    assert resume.snapshot(_at_roll(definition, reordered)) is None
    added = (AddCreature(definition.participants[-1].id, as_id="extra"),)
    assert resume.snapshot(_at_roll(definition, added)) is None
    # not at a roll: nothing pending
    fresh = Encounter.begin(definition, 1, record=False)
    assert resume.snapshot(fresh) is None
    fresh.apply(EndTurn(fresh.current()))
    assert resume.snapshot(fresh) is None
