"""The compiled Action Point tactical policy playing on from the middle of a fight
(:mod:`caltrop.sim.fast.points_tactical.resume`, issue 23 item 5: "resume from a snapshot at
any stage (initiative, defence stages)").

Checked as the kernel's whole fights are (``test_fast_points_tactical.py``): engine play-outs of
Warband and Bridge Duel under :class:`~caltrop.sim.tactics.TacticalPolicy` are stopped at every
kind of stage — an initiative roll with some Speed checks rolled (R30), the turn owner's
decision with AP and RP spent (R31–R33), a shot's hit roll (R39), a damage roll (R38), the
defender choosing (R45, after Take Cover or not), an ally asked for Defense Assist and the
defence roll (R40) — and from each snapshot the kernel's fight, its roll landed with a total of
the roll's own outcomes, is played on in the engine with the Python policy deciding and the
kernel's totals rolled: every command, every roll's roller, stage, other party and d4 pool (R12),
the hit, the damage through the defence, and the end must be the kernel's.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from caltrop.content import load_encounter
from caltrop.core.commands import RollDice, RollTotal
from caltrop.core.model import EncounterDef, OffTurn
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.sim.fast.points_tactical import compile_points_tactical, kernel
from caltrop.sim.fast.points_tactical.replay import follow
from caltrop.sim.fast.points_tactical.resume import Resume
from caltrop.sim.tactics import TacticalPolicy

#: every stage a snapshot can be taken at, by its kernel code
STAGES = {
    kernel.R_INITIATIVE: "initiative roll",
    kernel.R_HIT: "hit roll",
    kernel.R_DAMAGE: "damage roll",
    kernel.R_DEFENCE: "defence roll",
    kernel.W_TURN: "turn owner's decision",
    kernel.W_DEFEND: "defender's choice",
    kernel.W_ASSIST: "ally's assist",
}


def _ruled(definition: EncounterDef, off_turn: OffTurn) -> EncounterDef:
    return replace(definition, ruleset=replace(definition.ruleset, off_turn_actions=off_turn))


def _check(resume: Resume, encounter: Encounter, pick: int, stream: int, label: str) -> int:
    """The kernel's fight from ``encounter`` (its roll landed with its ``pick``-th total) on
    stream ``stream``, played on in the engine; the steps followed."""
    snap = resume.snapshot(encounter)
    assert snap is not None, label
    played = encounter.clone()
    total = 0
    if snap.roll:
        outcomes = encounter.chance_outcomes()
        total = outcomes[pick % len(outcomes)][0].total
        played.apply(RollTotal(total))
    trace = resume.trace(snap, total, seed=17, index=stream)
    winner, rounds = resume.play(snap, [total], seed=17, first=stream)
    assert (int(winner[0]), int(rounds[0])) == (trace.winner, trace.rounds), label
    return follow(resume.compiled, played, trace, label).steps


def _play_out(definition: EncounterDef, seed: int) -> dict[int, list[Encounter]]:
    """One engine play-out under tactical: a copy of the encounter at every step where the
    kernel can take it, by stage (a step it cannot take fails the test: tactical never leaves
    the kernel's states)."""
    resume = Resume(compile_points_tactical(definition))
    encounter = Encounter.begin(definition, seed, record=False)
    policy = TacticalPolicy()
    stops: dict[int, list[Encounter]] = {stage: [] for stage in STAGES}
    step = 0
    while (who := encounter.current()) != TERMINAL:
        snap = resume.snapshot(encounter)
        assert snap is not None, f"step {step}: the kernel cannot hold it"
        step += 1
        stops[int(snap.pending[kernel.P_STAGE])].append(encounter.clone())
        encounter.apply(RollDice() if who == CHANCE else policy.choose(encounter, who))
    return stops


CASES = [
    ("warband-ap", OffTurn.ANY, 3),
    ("bridge-duel-ap", OffTurn.ANY, 5),
    ("bridge-duel-ap", OffTurn.REACTIONS, 8),
]


@pytest.mark.parametrize(("name", "off_turn", "seed"), CASES)
def test_from_every_stage_the_engine_plays_the_kernels_fight(
    name: str, off_turn: OffTurn, seed: int
) -> None:
    definition = _ruled(load_encounter(name), off_turn)
    resume = Resume(compile_points_tactical(definition))
    stops = _play_out(definition, seed)
    checked = steps = 0
    for stage, copies in stops.items():
        # the middle one and the last (a stage's first is mostly the fight's start: the
        # initiative rolls are, and the first Warband turns follow from them)
        for k in sorted({len(copies) // 2, len(copies) - 1}) if copies else []:
            label = f"{name} seed {seed}, {STAGES[stage]} #{k} of {len(copies)}"
            steps += _check(resume, copies[k], pick=k + stage, stream=k, label=label)
            checked += 1
    assert checked >= 10
    assert steps > 100


def test_every_stage_is_reached() -> None:
    """The play-outs above stop at every kind of stage, so each is checked, not only the
    common ones: Warband's first fights reach an assist (R40) and a hit roll (R39)."""
    definition = load_encounter("warband-ap")
    seen: set[int] = set()
    for seed in (3, 4, 5, 6):
        seen |= {stage for stage, copies in _play_out(definition, seed).items() if copies}
        if seen == set(STAGES):
            break
    assert seen == set(STAGES), {STAGES[s] for s in set(STAGES) - seen}


def test_a_batch_is_its_fights_one_by_one_and_a_cold_table_gives_the_same() -> None:
    definition = load_encounter("bridge-duel-ap")
    stops = _play_out(definition, 5)
    encounter = stops[kernel.R_DEFENCE][0]
    warm = Resume(compile_points_tactical(definition))
    snap = warm.snapshot(encounter)
    assert snap is not None
    assert snap.roll
    totals = [t.total for t, _ in encounter.chance_outcomes()] * 8
    winner, rounds = warm.play(snap, totals, seed=4)
    alone = [warm.play(snap, [t], seed=4, first=i) for i, t in enumerate(totals)]
    assert winner.tolist() == [int(w[0]) for w, _ in alone]
    assert rounds.tolist() == [int(r[0]) for _, r in alone]
    cold = Resume(compile_points_tactical(definition, cached=False))
    assert len(cold.compiled.numbers.known) == 0
    again, _ = cold.play(cold.snapshot(encounter), totals, seed=4)  # type: ignore[arg-type]
    assert np.array_equal(winner, again)


def test_what_it_cannot_hold_is_none() -> None:
    definition = load_encounter("bridge-duel-ap")
    resume = Resume(compile_points_tactical(definition))
    other = Encounter.begin(load_encounter("warband-ap"), 1, record=False)
    assert resume.snapshot(other) is None  # another definition
    encounter = Encounter.begin(definition, 1, record=False)
    policy = TacticalPolicy()
    while (who := encounter.current()) != TERMINAL:
        encounter.apply(RollDice() if who == CHANCE else policy.choose(encounter, who))
    assert resume.snapshot(encounter) is None  # over


# -- the one entry point for either module (caltrop.sim.fast.resume) --------------------------


def test_one_entry_point_serves_both_modules() -> None:
    from caltrop.sim.fast import resume as entry
    from caltrop.sim.fast.tactical import resume as action_load

    assert set(entry.RESUMES) == {"action_load", "action_points"}
    assert isinstance(entry.resume_for(load_encounter("warband-ap")), Resume)
    assert isinstance(entry.resume_for(load_encounter("goblin-ambush")), action_load.Resume)


def test_fights_resumed_from_the_first_state_win_as_often_as_whole_kernel_fights() -> None:
    """From Bridge Duel's first state (its initiative rolls pending, R30), 4,000 fights resumed
    by this kernel (:func:`caltrop.sim.live.play_on`, the live chance's one estimate) win within
    4 standard errors of 4,000 whole kernel fights (other streams, the same policy); the
    encounter is not changed."""
    from caltrop.sim.fast.points_tactical import play_points_tactical
    from caltrop.sim.fast.resume import resume_for
    from caltrop.sim.live import play_on

    definition = load_encounter("bridge-duel-ap")
    encounter = Encounter.begin(definition, 2, record=False)
    before = encounter.key()
    wins, resumed = play_on(encounter, 4000, 6, resume=resume_for(definition))
    assert resumed
    assert encounter.key() == before
    whole = play_points_tactical(compile_points_tactical(definition), 4000, 6)
    rate = float((whole.winner == 1).mean())  # PC_WINS is 1 in the runner's codes
    se = math.sqrt(rate * (1 - rate) / 4000) * math.sqrt(2)
    assert abs(wins / 4000 - rate) < 4 * se, (wins, rate)


def test_action_load_states_go_on_to_their_attack_roll() -> None:
    """An Action Load state at a decision is played on by tactical's decisions (no dice) to
    its attack roll, where its kernel lands it: the same chance as asked at that roll."""
    from caltrop.sim.live import chance_at

    definition = load_encounter("goblin-ambush")
    encounter = Encounter.begin(definition, 3, record=False)
    policy = TacticalPolicy()
    assert chance_at(encounter, n=50, seed=9).how == "start"  # no command yet: the kernel's start
    # one decision in (the ambush opens on the archer's choice, no initiative roll): mid-fight
    encounter.apply(policy.choose(encounter, encounter.current()))
    while encounter.current() == CHANCE:
        encounter.apply(RollDice())
    assert encounter.current() not in (CHANCE, TERMINAL)
    assert encounter.commands  # not the start any more, so not the kernel's start either
    asked = chance_at(encounter, n=500, seed=9)
    at_roll = encounter.clone()
    while (who := at_roll.current()) not in (CHANCE, TERMINAL):
        at_roll.apply(policy.choose(at_roll, who))
    assert asked.how == "resume"
    assert asked == chance_at(at_roll, n=500, seed=9)
    assert 0.0 < asked.pc_win.estimate < 1.0


def test_the_playouts_kernel_is_ready_before_the_resume_kernel_compiles() -> None:
    """In a fresh process whose first use of the Action Point kernel is a resume, the
    playouts' entry (``play_listed``) is compiled or loaded before ``play_resumed`` is: where
    the resume compiled first, a later compile of the playouts took its callees' general
    overloads instead of constant-folded ones, and numba's cache kept that kernel (Warband
    1,719 → 257 fights a second; simulate.playouts_first)."""
    import subprocess
    import sys

    program = """
from caltrop.content import load_encounter
from caltrop.encounter import Encounter
from caltrop.sim.fast.points_tactical import compile_points_tactical, kernel
from caltrop.sim.fast.points_tactical.resume import Resume
definition = load_encounter("warband-ap")
assert not kernel.play_listed.signatures and not kernel.play_resumed.signatures
resume = Resume(compile_points_tactical(definition))
assert kernel.play_listed.signatures, "play_listed not ready when a Resume exists"
assert not kernel.play_resumed.signatures
snap = resume.snapshot(Encounter.begin(definition, 1))
assert snap is not None
winner, _ = resume.play(snap, [3] * 4, seed=2)
assert kernel.play_resumed.signatures and len(winner) == 4
print("ok")
"""
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"
