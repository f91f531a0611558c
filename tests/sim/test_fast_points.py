"""The Action Point fast path (:mod:`caltrop.sim.fast.points`) against the reference engine.

* **Roll by roll**: a kernel encounter replayed in the engine with ``attack-weakest`` deciding
  and every chance point resolved with the kernel's total makes the same rolls (round, roller,
  stage, target or attacker, dice), with the same results (hit or miss, damage through the
  defence), and ends the same way, on both Action Point examples, on GM initiative and on a
  hand-built encounter with the corner cases; the per-creature details match the engine's
  counts. A kernel given wrong numbers (each rule it models, broken in turn) is caught.
* **Statistically**: the engine's own dice (``caltrop.sim.runner.simulate`` with
  ``attack-weakest``) and the kernel's give PC win rates and mean rounds that agree at the 99%
  level (two-sample z-tests and overlapping 99% Wilson intervals; ``pytest -s`` prints them).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caltrop.content import load_encounter
from caltrop.core.model import (
    CreatureDef,
    EncounterDef,
    Initiative,
    Side,
    Weapon,
    WeaponKind,
)
from caltrop.dice import parse
from caltrop.sim.fast import FastPathError, FastResult, simulate
from caltrop.sim.fast.points import (
    CompiledPoints,
    compile_points,
    replay_points,
    simulate_points,
    trace_points,
)
from caltrop.sim.fast.points import compile as pc
from caltrop.sim.fast.points.geometry import hypot, round2
from caltrop.sim.fast.reference import ReplayMismatchError
from caltrop.sim.overrides import Variant
from caltrop.sim.runner import NPC_WINS, PC_WINS
from caltrop.sim.runner import simulate as engine_simulate

EXAMPLES = ("bridge-duel-ap", "warband-ap")
#: engine encounters per example (the 3-versus-3 plays at ~25 encounters/s on one core)
REFERENCE_N = {"bridge-duel-ap": 800, "warband-ap": 600}
REFERENCE_SEED = 4_004
FAST_N = 100_000
FAST_SEED = 31
Z99 = 2.5758  # two-sided 99%
POLICIES = {"pc": "attack-weakest", "npc": "attack-weakest"}


def wilson(k: int, n: int, z: float = Z99) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


# -- an encounter with the corner cases the examples lack ------------------------------------


def _ranged(name: str, dice: str, ap: int, close: int, far: int | None) -> Weapon:
    return Weapon(name, parse(dice), WeaponKind.RANGED, ap=ap, close=close, far=far)


def corner_cases() -> EncounterDef:
    """Speed ties everywhere (1d4 and 2d4 initiative: PC against NPC, NPCs of different and equal
    scores), two melee weapons at once with constants (R38), unarmed with a negative Power Mod,
    a ranged weapon with a constant and one not in hand, a shooter without RP (never Blocks)
    and a fighter with no Block Rating (1d4), high Resistance, a shooter that cannot move (it
    shoots at far range, with Disfavor), no AP to attack after a move, and a creature down from
    the start."""
    ruleset = load_encounter("bridge-duel-ap").ruleset
    brute = CreatureDef(
        "brute",
        "Brute",
        Side.PC,
        {"Speed": 1, "Dexterity": 1},
        health=15,
        stats={"ap": 5, "resistance": 3, "travel_speed": 2, "x": 0, "y": 0},
        weapons=(
            Weapon("club", parse("1d6+1"), ap=3),
            Weapon("knife", parse("2d4-1"), ap=2),
            Weapon("maul", parse("2d10"), ap=5),
        ),
        equipped=("club", "knife"),
    )
    sniper = CreatureDef(
        "sniper",
        "Sniper",
        Side.PC,
        {"Speed": 2, "Dexterity": 4},
        health=9,
        stats={"rp": 0, "travel_speed": 3, "x": -4, "y": 3, "block_rating": 2},
        weapons=(_ranged("bow", "1d8+1", 2, 6, 14), _ranged("sling", "1d4", 1, 3, 9)),
        equipped=("bow",),
    )
    ghost = CreatureDef("ghost", "Ghost", Side.PC, {"Speed": 2}, health=0)
    rat = CreatureDef(
        "rat",
        "Rat",
        Side.NPC,
        {"Speed": 1, "Dexterity": 2},
        health=8,
        stats={"power_mod": -1, "travel_speed": 5, "x": 13, "y": 5, "block_rating": 0},
    )
    slinger = CreatureDef(
        "slinger",
        "Slinger",
        Side.NPC,
        {"Speed": 2, "Dexterity": 3},
        health=10,
        stats={"ap": 7, "rp": 3, "resistance": 1, "travel_speed": 0, "x": 17, "y": -6},
        weapons=(_ranged("sling", "1d6", 2, 4, 16), Weapon("dagger", parse("1d6"), ap=2)),
    )
    mole = CreatureDef(
        "mole",
        "Mole",
        Side.NPC,
        {"Speed": 1},
        health=14,
        stats={"travel_speed": 2, "x": 9, "y": 9, "resistance": 2},
        weapons=(Weapon("pick", parse("2d10+2"), ap=4),),
    )
    return EncounterDef("corner-cases", ruleset, (brute, sniper, ghost, rat, slinger, mole))


def gm_order(name: str) -> EncounterDef:
    d = load_encounter(name)
    return replace(d, ruleset=replace(d.ruleset, initiative=Initiative.GM))


# -- compiling --------------------------------------------------------------------------------


def test_compiles_the_bridge_duel() -> None:
    c = compile_points(load_encounter("bridge-duel-ap"))
    assert c.ids == ("torvald", "kestrel", "brakka", "bandit-archer")
    cre = c.creatures
    assert list(cre[:, pc.C_SIDE]) == [0, 0, 1, 1]
    assert list(cre[:, pc.C_HEALTH]) == [16, 12, 14, 10]
    assert list(cre[:, pc.C_INIT_D4]) == [3, 4, 3, 3]  # Speed (R30)
    assert list(cre[:, pc.C_INIT_SCORE]) == [0, 0, 3, 3]  # NPC ties by the score
    assert list(cre[:, pc.C_RESIST]) == [1, 0, 2, 0]
    assert list(cre[:, pc.C_BLOCK_D4]) == [3, 2, 2, 2]
    # R38: the highest AP of the weapons in hand; unarmed (the archer's dagger is sheathed) 2
    assert list(cre[:, pc.C_MELEE_AP]) == [3, 2, 2, 2]
    assert c.melee_text == ("2d8/2", "1d6/2", "(1d8+1d6)/2", "1d8/2")
    # kestrel's shortbow and the archer's crossbow: AP, close, far
    assert c.ranged_names == ("shortbow", "crossbow")
    assert [list(r[: pc.W_T0]) for r in c.ranged] == [[2, 10, 30], [3, 15, 40]]
    assert list(cre[:, pc.C_R1] - cre[:, pc.C_R0]) == [0, 1, 0, 1]
    # where a move stops short of the nearest enemy: 1 m, or close range less 1 m
    assert list(c.places[:, pc.F_STOP]) == [1.0, 9.0, 1.0, 14.0]
    assert list(c.places[:, pc.F_X]) == [0.0, -8.0, 10.0, 22.0]
    assert c.check_initiative == 1


def test_compiles_constants_and_unarmed_power_mod() -> None:
    c = compile_points(corner_cases())
    cre = c.creatures
    brute, rat = 0, 3
    assert c.melee_text[brute] == "(1d6+2d4)/2"  # constants outside the halving (R38)
    assert cre[brute, pc.C_MELEE_CONST] == 0  # +1 - 1
    assert c.melee_text[rat] == "1d8/2-1"
    assert cre[rat, pc.C_MELEE_CONST] == -1
    assert c.ranged_names == ("bow", "sling")  # the sniper's sling is not in hand
    assert c.ranged[0, pc.W_CONST] == 1


def test_refuses_what_it_cannot_play() -> None:
    with pytest.raises(FastPathError, match="not an Action Point encounter"):
        compile_points(load_encounter("orc-bridge"))
    d = corner_cases()
    slow = replace(d.participants[0], aspects={"Dexterity": 1})
    with pytest.raises(FastPathError, match="initiative: Brute has no Aspect 'Speed'"):
        compile_points(replace(d, participants=(slow, *d.participants[1:])))
    halved = replace(d.participants[1], weapons=(_ranged("bow", "1d8/2", 2, 6, 14),))
    with pytest.raises(FastPathError, match="dice and constants only"):
        compile_points(replace(d, participants=(d.participants[0], halved, *d.participants[2:])))
    flat = replace(d.participants[0], weapons=(Weapon("stick", parse("2"), ap=1),), equipped=None)
    with pytest.raises(FastPathError, match="melee attack without dice"):
        compile_points(replace(d, participants=(flat, *d.participants[1:])))


def test_geometry_is_cpythons() -> None:
    rng = np.random.default_rng(5)
    for _ in range(20_000):
        a, b = (float(v) for v in np.round(rng.uniform(-40, 40, 2), int(rng.integers(0, 3))))
        assert hypot(a, b) == math.hypot(a, b), (a, b)
        x = float(rng.integers(-4000, 4000)) / 100 + 0.005 * float(rng.integers(0, 2))
        assert round2(x) == round(x, 2), x
    assert round2(0.125) == 0.12
    assert round2(0.375) == 0.38
    assert round2(2.675) == 2.67  # 2.675 is 2.67499999... in binary


@settings(max_examples=3000, deadline=None)
@given(
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300),
)
def test_hypot_is_cpythons_at_every_magnitude(a: float, b: float) -> None:
    """The exponent read from the float's bits (normal numbers) or by frexp (subnormal and
    the largest ones) gives CPython's ``math.hypot`` to the bit, tiny and huge alike."""
    assert hypot(a, b) == math.hypot(a, b), (a, b)


# -- roll by roll: the kernel and the engine make the same decisions --------------------------


@pytest.mark.parametrize(
    ("name", "make", "n", "seed", "max_rounds"),
    [
        ("bridge-duel-ap", load_encounter, 300, 11, 100),
        ("warband-ap", load_encounter, 200, 12, 100),
        ("warband-ap", gm_order, 60, 13, 100),
        ("corner-cases", lambda _: corner_cases(), 200, 14, 12),
    ],
)
def test_engine_replays_the_kernel_roll_by_roll(
    name: str, make: object, n: int, seed: int, max_rounds: int
) -> None:
    compiled = compile_points(make(name))  # type: ignore[operator]
    results = simulate_points(compiled, n, seed, max_rounds=max_rounds, details=True)
    stages: set[str] = set()
    outcomes = set()
    for i in range(n):
        replay = replay_points(compiled, seed, i, max_rounds=max_rounds)
        assert replay.winner == results.winner[i]
        assert replay.rounds == results.rounds[i]
        assert results.damage_dealt is not None
        assert results.team_actions is not None
        assert results.load_spent is not None
        assert results.health is not None
        assert replay.dealt == tuple(results.damage_dealt[i])
        assert replay.blocks == tuple(results.team_actions[i])
        assert replay.spent == tuple(results.load_spent[i])
        assert replay.health == tuple(results.health[i])
        stages.update(r.stage for r in trace_points(compiled, seed, i, max_rounds=max_rounds).rolls)
        outcomes.add(int(results.winner[i]))
    initiative = {"initiative"} if compiled.check_initiative else set()
    assert stages == {*initiative, "hit", "damage", "defence"}
    assert {0, 1} <= outcomes  # both sides win some
    if name == "corner-cases":
        assert -1 in outcomes  # the mole and a shooter out of reach stall: draws at the cap


def test_the_trace_is_the_encounter() -> None:
    compiled = compile_points(load_encounter("bridge-duel-ap"))
    result = simulate_points(compiled, 30, 8)
    for i in range(30):
        t = trace_points(compiled, 8, i)
        assert (t.winner, t.rounds) == (result.winner[i], result.rounds[i])
        assert [r.stage for r in t.rolls[:4]] == ["initiative"] * 4
        assert all(r.round == 0 for r in t.rolls[:4])
        # every damage roll is followed by its defence roll, by the target
        for a, b in zip(t.rolls, t.rolls[1:], strict=False):
            if a.stage == "damage":
                assert b.stage == "defence"
                assert b.roller == a.other
                assert b.other == a.roller
                assert 0 <= b.result <= max(0, a.total)  # what gets through the defence


def test_adjacent_means_within_one_and_a_half_meters() -> None:
    """R34 (option): 1.5 m is adjacent. With 3 AP and a 3-AP club, a fighter exactly 1.5 m from
    its enemy attacks at once; a hair further it must step in (1 AP) and cannot attack."""
    ruleset = replace(load_encounter("bridge-duel-ap").ruleset, initiative=Initiative.GM)
    fighter = CreatureDef(
        "fighter",
        "Fighter",
        Side.PC,
        {"Speed": 1},
        health=30,
        stats={"ap": 3, "travel_speed": 2},
        weapons=(Weapon("club", parse("1d6"), ap=3),),
    )
    dummy = CreatureDef("dummy", "Dummy", Side.NPC, {"Speed": 1}, health=30, stats={"x": 2})
    compiled = compile_points(EncounterDef("step", ruleset, (fighter, dummy)))
    for x, first_roller, spent in ((1.5, 0, 3), (math.nextafter(1.5, 2.0), 1, 1)):
        places = compiled.places.copy()
        places[1, pc.F_X] = x
        moved = replace(compiled, places=places)
        first = trace_points(moved, 5, 0, max_rounds=1).rolls[0]
        assert (first.stage, first.roller) == ("damage", first_roller), x
        result = simulate_points(moved, 1, 5, max_rounds=1, details=True)
        assert result.load_spent is not None
        assert result.team_actions is not None
        blocks = int(result.team_actions[0, 0])  # 1 RP each, on the dummy's turn
        assert result.load_spent[0, 0] == spent + blocks, x


def test_an_encounter_decided_before_it_starts() -> None:
    """A side with nobody standing has lost before initiative (no rolls, round 0), as in the
    engine; nobody standing at all is a draw."""
    d = corner_cases()
    brute, sniper, ghost, rat = d.participants[:4]
    alone = compile_points(replace(d, participants=(brute, ghost, sniper)))
    nobody = compile_points(replace(d, participants=(ghost, replace(rat, health=0))))
    for compiled, winner in ((alone, 0), (nobody, -1)):
        result = simulate_points(compiled, 3, 1)
        assert list(result.winner) == [winner] * 3
        assert list(result.rounds) == [0] * 3
        replay = replay_points(compiled, 1, 0)
        assert (replay.winner, replay.rounds, replay.rolls) == (winner, 0, 0)


BREAKS = [
    ("resistance", lambda c: _bump(c, "creatures", pc.C_RESIST, 1)),
    ("melee AP", lambda c: _bump(c, "creatures", pc.C_MELEE_AP, -1)),
    ("block pool", lambda c: _bump(c, "creatures", pc.C_BLOCK_D4, 1)),
    ("RP", lambda c: _bump(c, "creatures", pc.C_RP, -1)),
    ("AP", lambda c: _bump(c, "creatures", pc.C_AP, -1)),
    ("Dexterity", lambda c: _bump(c, "creatures", pc.C_DEX, 1)),
    ("initiative ties", lambda c: _bump(c, "creatures", pc.C_INIT_SCORE, 0, row=3, to=9)),
    ("melee damage", lambda c: _bump(c, "creatures", pc.C_MELEE_CONST, 1)),
    ("close range", lambda c: _bump(c, "ranged", pc.W_CLOSE, -1)),
    ("far range", lambda c: _bump(c, "ranged", pc.W_FAR, -8)),
    ("ranged damage", lambda c: _bump(c, "ranged", pc.W_CONST, 1)),
    ("stop distance", lambda c: _bump(c, "places", pc.F_STOP, 0.5)),
    ("travel speed", lambda c: _bump(c, "places", pc.F_SPEED, 0.25)),
]


def _bump(
    c: CompiledPoints, table: str, column: int, by: float, *, row: int | None = None, to: int = 0
) -> CompiledPoints:
    array = getattr(c, table).copy()
    if row is None:
        array[:, column] += by
    else:
        array[row, column] = to
    return replace(c, **{table: array})


@pytest.mark.parametrize(("what", "breaking"), BREAKS, ids=[b[0] for b in BREAKS])
def test_the_replay_catches_a_wrong_kernel(what: str, breaking: object) -> None:
    """The engine plays the definition, the kernel the (broken) arrays: a rule the kernel got
    wrong shows up as a mismatch within a few encounters."""
    # far-range shots come from a shooter that cannot move (the tactic closes in otherwise)
    definition = corner_cases() if what == "far range" else load_encounter("warband-ap")
    compiled = compile_points(definition)
    if what == "far range":
        for i in range(60):
            replay_points(compiled, 3, i, max_rounds=12)  # unbroken, it replays
    broken = breaking(compiled)  # type: ignore[operator]
    with pytest.raises(ReplayMismatchError):
        _replay_all(broken, 60)


def _replay_all(compiled: CompiledPoints, n: int) -> None:
    for i in range(n):
        replay_points(compiled, 3, i, max_rounds=12)


# -- statistically: the engine's own dice -------------------------------------------------------


@pytest.fixture(scope="module")
def engine_runs() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    out = {}
    for name in EXAMPLES:
        result = engine_simulate(
            load_encounter(name),
            [Variant("baseline")],
            POLICIES,
            n=REFERENCE_N[name],
            seed=REFERENCE_SEED,
            workers=2,
        )
        records = result.runs[0].records
        out[name] = (records.winner.copy(), records.rounds.copy())
    return out


@pytest.mark.parametrize("name", EXAMPLES)
def test_win_rates_and_rounds_agree_with_the_engine(
    name: str, engine_runs: dict[str, tuple[np.ndarray, np.ndarray]]
) -> None:
    winner, rounds = engine_runs[name]
    fast = simulate_points(load_encounter(name), FAST_N, FAST_SEED)
    assert not np.count_nonzero(fast.winner < 0)  # no draws here
    n1, n2 = winner.size, fast.n
    assert np.count_nonzero((winner == PC_WINS) | (winner == NPC_WINS)) == n1
    k1, k2 = int(np.count_nonzero(winner == PC_WINS)), fast.wins("pc")
    p1, p2 = k1 / n1, k2 / n2
    pooled = (k1 + k2) / (n1 + n2)
    z_win = (p1 - p2) / math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    r1, r2 = rounds.astype(float), fast.rounds.astype(float)
    z_rounds = (r1.mean() - r2.mean()) / math.sqrt(r1.var(ddof=1) / n1 + r2.var(ddof=1) / n2)
    lo1, hi1 = wilson(k1, n1)
    lo2, hi2 = wilson(k2, n2)
    report = (
        f"{name}: PC win rate engine {p1:.4f} [{lo1:.4f}, {hi1:.4f}] (n={n1}), fast {p2:.4f} "
        f"[{lo2:.4f}, {hi2:.4f}] (n={n2}), z={z_win:+.2f}; mean rounds engine {r1.mean():.3f}, "
        f"fast {r2.mean():.3f}, z={z_rounds:+.2f}"
    )
    print(report)
    assert abs(z_win) < Z99, report
    assert abs(z_rounds) < Z99, report
    assert lo1 <= hi2, report  # the 99% Wilson intervals overlap
    assert lo2 <= hi1, report
    assert 0.05 < p2 < 0.95  # a real contest: the check can tell the sides apart


# -- reproducibility ----------------------------------------------------------------------------


def test_same_seed_same_results_whatever_the_threads_and_the_split() -> None:
    definition = load_encounter("warband-ap")
    a = simulate_points(definition, 3000, 12345, details=True)
    b = simulate_points(definition, 1000, 12345, details=True, threads=1)
    c = simulate_points(definition, 2000, 12345, details=True, first=1000, threads=2)
    for field in ("winner", "rounds", "damage_dealt", "team_actions", "load_spent", "health"):
        whole = getattr(a, field)
        assert np.array_equal(whole, np.concatenate([getattr(b, field), getattr(c, field)]))
    assert (b.first, c.first) == (0, 1000)
    other = simulate_points(definition, 3000, 12346)
    assert not np.array_equal(a.winner, other.winner)


def test_details_add_up() -> None:
    definition = load_encounter("warband-ap")
    r = simulate_points(definition, 2000, 77, details=True)
    assert r.damage_dealt is not None
    assert r.team_actions is not None
    assert r.load_spent is not None
    assert r.down is not None
    assert r.health is not None
    sides = np.array([0 if s is Side.PC else 1 for s in r.sides])
    start = np.array([c.health for c in definition.participants])
    lost = start - r.health
    for side in (0, 1):
        # damage through the defences covers the Health the other side lost (not capped)
        assert np.all(r.damage_dealt[:, sides == side].sum(1) >= lost[:, sides != side].sum(1))
    assert np.array_equal(r.down, r.health == 0)
    assert np.all(r.load_spent >= r.team_actions)  # a Block costs 1 RP
    pc_won = r.winner == 0
    assert np.all(r.down[pc_won][:, sides == 1])
    assert np.all(r.down[~pc_won][:, sides == 0])
    assert np.all(r.rounds >= 1)


def test_argument_checks() -> None:
    definition = load_encounter("bridge-duel-ap")
    with pytest.raises(FastPathError, match="n must"):
        simulate_points(definition, -1, 1)
    with pytest.raises(FastPathError, match="first must"):
        simulate_points(definition, 1, 1, first=-1)
    with pytest.raises(FastPathError, match="max_rounds"):
        simulate_points(definition, 1, 1, max_rounds=0)
    with pytest.raises(FastPathError, match="threads"):
        simulate_points(definition, 1, 1, threads=0)
    assert simulate_points(definition, 0, 1).n == 0
    short = simulate_points(definition, 500, 3, max_rounds=2)
    assert np.all(short.rounds <= 2)
    assert np.count_nonzero(short.winner == -1) > 0


# -- through caltrop.sim.fast.simulate --------------------------------------------------------


@pytest.mark.parametrize("name", EXAMPLES)
def test_simulate_plays_an_action_point_definition_here(name: str) -> None:
    definition = load_encounter(name)
    whole = simulate(definition, 50, 2024, details=True)
    assert isinstance(whole, FastResult)
    assert whole.ids == tuple(c.id for c in definition.participants)
    head = simulate(definition, 20, 2024, details=True)
    tail = simulate(definition, 30, 2024, details=True, first=20, threads=1)
    direct = simulate_points(compile_points(definition), 50, 2024, details=True, threads=2)
    for field in ("winner", "rounds", "damage_dealt", "team_actions", "load_spent", "health"):
        got = getattr(whole, field)
        assert np.array_equal(got, np.concatenate([getattr(head, field), getattr(tail, field)]))
        assert np.array_equal(got, getattr(direct, field))
    assert np.array_equal(simulate(compile_points(definition), 50, 2024).winner, whole.winner)
    assert whole.team_actions is not None
    assert whole.team_actions.sum() > 0  # the Blocks
