"""The fast path (:mod:`caltrop.sim.fast`) against the reference engine.

Two checks, on every example encounter and both ``load_reset`` variants:

* **Roll by roll**: a fast-path encounter replayed in the engine on the kernel's own totals, with
  :class:`FastTacticPolicy` deciding, makes the same attacks (round, roller, action, weapon,
  target), the same hinders, the same damage and ends the same way (also on the legacy revision
  and on a hand-built encounter with the corner cases).
* **Statistically**: the engine's own dice (``n`` = 1500 for the 4-versus-4, 2000 for the
  2-versus-2, on two worker processes) and the kernel's dice (``n`` = 200,000) give PC win rates
  and mean rounds that agree at the 99% level (two-sample z-tests, and overlapping 99% Wilson
  intervals; ``pytest -s`` prints them).
"""

from __future__ import annotations

import io
import math
import multiprocessing
import threading
from dataclasses import replace

import numpy as np
import pytest

from caltrop.content import load_encounter
from caltrop.core.model import (
    ActionDef,
    ActionKind,
    CreatureDef,
    Economy,
    EncounterDef,
    Grant,
    Initiative,
    Ruleset,
    Side,
    Weapon,
    WeaponKind,
)
from caltrop.dice import parse
from caltrop.encounter import Encounter
from caltrop.sim.fast import (
    FastPathError,
    FastTacticPolicy,
    ReferenceResult,
    compile_encounter,
    play_reference,
    play_reference_batch,
    replay_fast_dice,
    simulate,
    with_options,
)
from caltrop.sim.fast.reference import expr_max, play_one_reference

EXAMPLES = ("goblin-ambush", "orc-bridge")
RESETS = ("turn", "round")
CASES = [(name, reset) for name in EXAMPLES for reset in RESETS]
#: engine runs per case: the 4-versus-4 plays at about 100-200 encounters/s on one core
REFERENCE_N = {"goblin-ambush": 1500, "orc-bridge": 2000}
REFERENCE_SEED = 20_251
FAST_N = 200_000
FAST_SEED = 4_711
Z99 = 2.5758  # two-sided 99%


def wilson(k: int, n: int, z: float = Z99) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n`` trials."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


# -- an encounter with the corner cases the examples lack -------------------------------------


def _team(name: str, aspect: str, source: str | None = None, cost: int = 1) -> ActionDef:
    return ActionDef(
        name,
        aspect,
        cost,
        ActionKind.TEAM,
        reaction=True,
        grant=Grant("dis", "enemy"),
        source=source,
    )


def corner_cases() -> EncounterDef:
    """Fixed pools (R20), constants and negative dice, Load Buffer and Exhaustion, shared and
    distinct source keys (R14), a 0-cost hinder, reactions the tactic never takes (help, a
    reaction attack), an attack on an Aspect the creature lacks, and a creature down from the
    start."""
    strike = ActionDef("strike", "Might", 2, ActionKind.ATTACK, uses_weapon=True)
    jab = ActionDef("jab", "Finesse", 1, ActionKind.ATTACK, fixed_pool=1, extra=parse("1d4+1"))
    smite = ActionDef("smite", "Faith", 1, ActionKind.ATTACK)
    riposte = ActionDef("riposte", "Finesse", 1, ActionKind.ATTACK, reaction=True)
    help_ = ActionDef(
        "help", "Insight", 1, ActionKind.TEAM, reaction=True, grant=Grant("adv", "ally")
    )
    firebolt = ActionDef("firebolt", "Control", 3, ActionKind.ATTACK, extra=parse("1d6"))
    shoot = ActionDef(
        "shoot", "Finesse", 2, ActionKind.ATTACK, uses_weapon=True, weapon_kind=WeaponKind.RANGED
    )
    knight = CreatureDef(
        "knight",
        "Knight",
        Side.PC,
        {"Might": 5, "Finesse": 3, "Insight": 3},
        health=18,
        evasion=9,
        load_buffer=2,
        exhaustion=1,
        actions=(
            strike,
            jab,
            smite,
            riposte,
            help_,
            _team("parry", "Might"),
            _team("hinder", "Insight"),
        ),
        weapons=(Weapon("sword", parse("1d8")), Weapon("flail", parse("(1d4+1d4)+2-1d2"))),
    )
    mage = CreatureDef(
        "mage",
        "Mage",
        Side.PC,
        {"Control": 6, "Insight": 4},
        health=11,
        evasion=8,
        load_buffer=1,
        actions=(firebolt, _team("hinder", "Insight"), _team("shout", "Control", "shout", cost=0)),
    )
    ghost = CreatureDef("ghost", "Ghost", Side.PC, {"Might": 3}, health=0, actions=(strike,))
    ogre = CreatureDef(
        "ogre",
        "Ogre",
        Side.NPC,
        {"Might": 6, "Finesse": 2},
        health=24,
        evasion=10,
        load_buffer=1,
        actions=(strike, _team("dodge", "Finesse", "dodge")),
        weapons=(Weapon("greataxe", parse("1d10")),),
    )
    imp = CreatureDef(
        "imp",
        "Imp",
        Side.NPC,
        {"Finesse": 5, "Insight": 3, "Might": 1},
        health=9,
        evasion=12,
        actions=(shoot, strike, _team("hinder", "Insight"), riposte),
        weapons=(
            Weapon("dagger", parse("1d4")),
            Weapon("longbow", parse("1d8"), WeaponKind.RANGED),
        ),
    )
    return EncounterDef("corner-cases", Ruleset(), (imp, knight, ghost, ogre, mage))


# -- compiling --------------------------------------------------------------------------------


def test_compiles_the_four_versus_four_example() -> None:
    compiled = compile_encounter(load_encounter("goblin-ambush"))
    assert compiled.ids[:3] == ("goblin-archer", "goblin-1", "aria")
    aria = compiled.ids.index("aria")
    start, end = int(compiled.attack_start[aria]), int(compiled.attack_end[aria])
    options = [(o.action.name, o.weapon.name if o.weapon else None) for o in compiled.options]
    assert options[start:end] == [("strike", "dagger"), ("shoot", "shortbow")]
    assert list(compiled.attack_bonus_max[start:end]) == [4, 6]  # 1d4, 1d6
    assert list(compiled.attack_bonus_mean2[start:end]) == [5, 7]  # twice 2.5, twice 3.5
    assert list(compiled.attack_aspect[start:end]) == [6, 6]  # Finesse 6
    assert compiled.reset_load[aria] == -1  # R10: Exhaustion 0 − Load Buffer 1
    hinders = compiled.team_actions[compiled.team_start[aria] : compiled.team_end[aria]]
    assert [a.name for a in hinders] == ["dodge", "hinder"]  # help grants adv: never taken
    assert set(compiled.sources) == {"dodge", "hinder", "parry"}
    assert (compiled.legacy, compiled.round_reset) == (0, 0)
    round_reset = compile_encounter(load_encounter("goblin-ambush"), load_reset="round")
    assert round_reset.round_reset == 1
    legacy = compile_encounter(load_encounter("goblin-ambush"), revision="legacy")
    assert legacy.legacy == 1
    assert not legacy.reset_load.any()  # R20: Load := 0


def test_compiles_constants_and_negative_dice() -> None:
    compiled = compile_encounter(corner_cases())
    by_name = {
        (compiled.ids[o.creature], o.action.name, o.weapon.name if o.weapon else None): a
        for a, o in enumerate(compiled.options)
    }
    flail = by_name[("knight", "strike", "flail")]
    assert compiled.attack_bonus_max[flail] == 4 + 4 + 2 - 1  # (1d4+1d4)+2-1d2
    assert compiled.attack_bonus_mean2[flail] == 5 + 5 + 4 - 3
    assert compiled.attack_fixed[by_name[("knight", "jab", None)]] == 1
    assert ("knight", "smite", None) not in by_name  # no Faith: never legal
    assert ("imp", "shoot", "dagger") not in by_name  # shoot needs a ranged weapon


def test_refuses_what_it_cannot_play() -> None:
    goblins = load_encounter("goblin-ambush")
    points = replace(goblins, ruleset=replace(goblins.ruleset, economy=Economy.ACTION_POINTS))
    with pytest.raises(FastPathError, match="Action Load economy only"):
        compile_encounter(points)
    check = replace(
        goblins,
        ruleset=replace(goblins.ruleset, initiative=Initiative.CHECK, initiative_aspect="Finesse"),
    )
    with pytest.raises(FastPathError, match="initiative"):
        simulate(check, 10, 1)
    halved = corner_cases()
    imp = replace(halved.participants[0], weapons=(Weapon("club", parse("1d8/2")),))
    with pytest.raises(FastPathError, match="halved"):
        compile_encounter(replace(halved, participants=(imp, *halved.participants[1:])))
    free = replace(imp, actions=(ActionDef("poke", "Finesse", 0, ActionKind.ATTACK),), weapons=())
    with pytest.raises(FastPathError, match="costs 0"):
        compile_encounter(replace(halved, participants=(free, *halved.participants[1:])))


# -- roll by roll: the kernel and the engine make the same decisions -------------------------


@pytest.mark.parametrize(
    ("name", "reset", "revision", "count"),
    [
        *[(name, reset, "current", 80) for name, reset in CASES],
        ("goblin-ambush", "turn", "legacy", 40),
        ("orc-bridge", "round", "legacy", 40),
        ("corner-cases", "turn", "current", 80),
        ("corner-cases", "round", "current", 80),
        ("corner-cases", "turn", "legacy", 80),
        ("corner-cases", "round", "legacy", 80),
    ],
)
def test_engine_replays_the_kernel_roll_by_roll(
    name: str, reset: str, revision: str, count: int
) -> None:
    definition = corner_cases() if name == "corner-cases" else load_encounter(name)
    compiled = compile_encounter(definition, load_reset=reset, revision=revision)
    replays = [replay_fast_dice(compiled, 99, i) for i in range(count)]
    assert sum(r.rolls for r in replays) > count  # several attacks an encounter
    hinders = sum(r.hinders for r in replays)
    if reset == "round":
        assert hinders > 0  # reactions matter: creatures that have not acted yet hinder
    fast = simulate(compiled, count, 99)
    assert list(fast.winner) == [r.winner for r in replays]
    assert list(fast.rounds) == [r.rounds for r in replays]


def test_policy_hinders_only_while_the_roll_could_down_its_target() -> None:
    definition = load_encounter("orc-bridge")
    encounter = Encounter.begin(definition, 3, record=False)
    policy = FastTacticPolicy()
    first = policy.choose(encounter, "bron")  # bron moves first: attacks the weakest enemy
    assert str(first) == "bron: strike goblin-archer with sword"
    encounter.apply(first)
    # the archer (9 Health, Evasion 10) is threatened by 5d4+1d8 (up to 28): the orc parries,
    # once (a second parry would add nothing, R47, so it is not asked again); Aria is Bron's
    # ally and passes; the archer adds its own hinder (another source key)
    assert expr_max(encounter.pending_expression()) == 28
    for expected in ("orc-brute: parry", "aria: pass", "goblin-archer: hinder"):
        command = policy.choose(encounter, encounter.current())
        assert str(command) == expected
        encounter.apply(command)
    assert str(encounter.pending_expression()) == "3d4+1d8"
    # with a tougher archer Bron strikes the orc (22 Health, Evasion 10), which 5d4+1d8 (at
    # most 18 damage) cannot down: nobody spends Load on it
    bron, orc, aria, archer = definition.participants
    tough = replace(definition, participants=(bron, orc, aria, replace(archer, health=30)))
    encounter = Encounter.begin(tough, 3, record=False)
    encounter.apply(policy.choose(encounter, "bron"))
    assert encounter.pending[-1].target == 1
    for expected in ("orc-brute: pass", "aria: pass", "goblin-archer: pass"):
        command = policy.choose(encounter, encounter.current())
        assert str(command) == expected
        encounter.apply(command)
    assert encounter.current() == "chance"


def test_a_fight_nobody_can_win_is_a_draw_at_the_round_limit() -> None:
    definition = corner_cases()
    weak = tuple(replace(c, aspects={k: 0 for k in c.aspects}) for c in definition.participants)
    stalemate = replace(definition, participants=weak)
    fast = simulate(stalemate, 50, 1, max_rounds=3)
    assert set(fast.winner) == {-1}
    assert set(fast.rounds) == {3}
    reference = play_reference(stalemate, 5, 1, max_rounds=3)
    assert set(reference.winner) == {-1}
    assert set(reference.rounds) == {3}
    encounter = Encounter.begin(stalemate, 1, record=False)
    play_one_reference(encounter, FastTacticPolicy(), max_rounds=3)
    assert encounter.over
    assert encounter.winner is None


# -- statistically: the engine's dice and the kernel's dice ------------------------------------


@pytest.fixture(scope="module")
def reference_runs() -> dict[tuple[str, str], ReferenceResult]:
    """The engine's runs of every case, shared among two worker processes."""
    runs = [
        (with_options(load_encounter(name), load_reset=reset), REFERENCE_N[name])
        for name, reset in CASES
    ]
    results = play_reference_batch(runs, REFERENCE_SEED, workers=2)
    return dict(zip(CASES, results, strict=True))


@pytest.mark.parametrize(("name", "reset"), CASES)
def test_win_rates_and_rounds_agree_with_the_engine(
    name: str, reset: str, reference_runs: dict[tuple[str, str], ReferenceResult]
) -> None:
    reference = reference_runs[(name, reset)]
    fast = simulate(load_encounter(name), FAST_N, FAST_SEED, load_reset=reset)
    n1, n2 = reference.winner.size, fast.n
    k1, k2 = int(np.count_nonzero(reference.winner == 0)), fast.wins("pc")
    assert not np.count_nonzero(reference.winner < 0)  # no draws here
    assert not np.count_nonzero(fast.winner < 0)
    p1, p2 = k1 / n1, k2 / n2
    pooled = (k1 + k2) / (n1 + n2)
    z_win = (p1 - p2) / math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    r1, r2 = reference.rounds.astype(float), fast.rounds.astype(float)
    z_rounds = (r1.mean() - r2.mean()) / math.sqrt(r1.var(ddof=1) / n1 + r2.var(ddof=1) / n2)
    lo1, hi1 = wilson(k1, n1)
    lo2, hi2 = wilson(k2, n2)
    report = (
        f"{name} load_reset={reset}: PC win rate engine {p1:.4f} [{lo1:.4f}, {hi1:.4f}] (n={n1}),"
        f" fast {p2:.4f} [{lo2:.4f}, {hi2:.4f}] (n={n2}), z={z_win:+.2f}; mean rounds engine "
        f"{r1.mean():.3f}, fast {r2.mean():.3f}, z={z_rounds:+.2f}"
    )
    print(report)
    assert abs(z_win) < Z99, report
    assert abs(z_rounds) < Z99, report
    assert lo1 <= hi2, report  # the 99% Wilson intervals overlap
    assert lo2 <= hi1, report


# -- reproducibility ---------------------------------------------------------------------------


def test_same_seed_same_results_whatever_the_threads_and_the_split() -> None:
    definition = load_encounter("goblin-ambush")
    a = simulate(definition, 3000, 12345, load_reset="round", details=True)
    b = simulate(definition, 3000, 12345, load_reset="round", details=True, threads=1)
    assert a.seed == b.seed == 12345
    assert np.array_equal(a.winner, b.winner)
    assert np.array_equal(a.rounds, b.rounds)
    assert a.damage_dealt is not None
    assert b.damage_dealt is not None
    assert np.array_equal(a.damage_dealt, b.damage_dealt)
    head = simulate(definition, 1000, 12345, load_reset="round")
    tail = simulate(definition, 2000, 12345, load_reset="round", first=1000)
    assert np.array_equal(np.concatenate([head.winner, tail.winner]), a.winner)
    assert np.array_equal(np.concatenate([head.rounds, tail.rounds]), a.rounds)
    other = simulate(definition, 3000, 12346, load_reset="round")
    assert not np.array_equal(other.rounds, a.rounds)
    fresh = simulate(definition, 10)
    assert np.array_equal(simulate(definition, 10, fresh.seed).rounds, fresh.rounds)


def _orc_bridge_winners(n: int, seed: int) -> list[int]:
    return [int(w) for w in simulate(load_encounter("orc-bridge"), n, seed).winner]


def test_forked_processes_and_python_threads_can_run_it() -> None:
    expected = _orc_bridge_winners(3000, 3)  # the kernel has run in this process
    # GNU OpenMP would kill a child forked now; the fork-safe threading layer does not
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply(_orc_bridge_winners, (3000, 3)) == expected
    results: list[list[int]] = []
    threads = [
        threading.Thread(target=lambda: results.append(_orc_bridge_winners(3000, 3)))
        for _ in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 3


def test_reference_results_do_not_depend_on_workers() -> None:
    definition = load_encounter("orc-bridge")
    one = play_reference(definition, 12, 5, load_reset="round")
    two = play_reference(definition, 12, 5, load_reset="round", workers=2)
    assert np.array_equal(one.winner, two.winner)
    assert np.array_equal(one.rounds, two.rounds)


def test_details_add_up() -> None:
    definition = load_encounter("goblin-ambush")
    result = simulate(definition, 4000, 8, load_reset="round", details=True)
    assert result.damage_dealt is not None
    assert result.down is not None
    assert result.team_actions is not None
    assert result.load_spent is not None
    pcs = np.array([s is Side.PC for s in result.sides])
    health = np.array([c.health for c in definition.participants])
    pc_won = result.winner == 0
    # when the PCs win, their attacks removed every NPC's Health, and every NPC is down
    assert np.array_equal(
        result.damage_dealt[pc_won][:, pcs].sum(axis=1), np.full(pc_won.sum(), health[~pcs].sum())
    )
    assert result.down[pc_won][:, ~pcs].all()
    assert not result.down[pc_won][:, pcs].all(axis=1).any()
    assert result.team_actions.sum() > 0
    assert (result.load_spent >= result.team_actions).all()  # hinders cost at least 1 here
    # Health at the end: down exactly at 0 (R16), and each side's Health lost is what the other
    # side's attacks removed
    assert result.health is not None
    assert np.array_equal(result.down, result.health <= 0)
    assert (result.health >= 0).all()
    lost = health[None, :] - result.health
    assert np.array_equal(lost[:, ~pcs].sum(axis=1), result.damage_dealt[:, pcs].sum(axis=1))
    assert np.array_equal(lost[:, pcs].sum(axis=1), result.damage_dealt[:, ~pcs].sum(axis=1))
    assert 0.0 < result.win_rate("pc") < 1.0
    assert result.n == 4000


def test_benchmark_section_runs_at_a_tiny_size() -> None:
    from benchmarks.run import SECTIONS
    from rich.console import Console

    from benchmarks import fast as fast_bench

    assert SECTIONS["fast"][0] == "benchmarks.fast"
    out = io.StringIO()
    sizes = fast_bench.Sizes(reference=12, reference_repeat=1, fast=20_000, fast_repeat=1)
    targets = fast_bench.run(Console(file=out, width=160), sizes=sizes)
    assert "encounters/s" in out.getvalue()
    assert [t.check for t in targets] == [True, False]  # the win-rate check, the speed target
    assert "fast-path" in targets[1].name
    assert all(t.passed for t in targets if t.check)
    assert all(t.verdict in {"PASS", "MISS"} for t in targets if not t.check)
