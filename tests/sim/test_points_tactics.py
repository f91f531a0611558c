"""The tactics of the Action Point economy (seed 004): legal choices, Block or Dodge by exact
expected damage (R40, R45), Take Cover and Defense Assist when they pay, aim before a long shot
(R39), hold action when threatened (R33), and the example encounters played to the end."""

from __future__ import annotations

import hashlib
from fractions import Fraction

import numpy as np
import pytest

from caltrop.content import load_encounter
from caltrop.core.commands import Act, Command, EndTurn, Pass, RollDice, RollTotal
from caltrop.core.model import (
    CreatureDef,
    Economy,
    EncounterDef,
    OffTurn,
    Ruleset,
    Side,
    Weapon,
    WeaponKind,
)
from caltrop.dice import blocked, constant, dodged, parse, undefended
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.sim.overrides import apply_overrides, parse_override
from caltrop.sim.points_tactics import (
    AttackWeakestPointsPolicy,
    Guard,
    Planner,
    PointsKnobs,
    book,
    dealt_pmf,
    option_losses,
)
from caltrop.sim.policies import Policy
from caltrop.sim.registry import make_policy
from caltrop.sim.runner import simulate
from caltrop.sim.stats import newcombe_paired
from caltrop.sim.tactics import TacticalPolicy, advisor_for, tactics_for

AP_RULES = Ruleset(name="ap", economy=Economy.ACTION_POINTS)  # GM order: as listed
MAUL = Weapon("maul", parse("3d10"), ap=6)  # one swing a turn: nothing left to save RP for
AXE = Weapon("axe", parse("1d8"), ap=2)
HEAVY = Weapon("heavy", parse("2d8"), ap=4)
CLEAVER = Weapon("cleaver", parse("3d8"), ap=2)
CROSSBOW = Weapon("crossbow", parse("1d10"), WeaponKind.RANGED, ap=3, close=15, far=40)
BOW = Weapon("bow", parse("1d8"), WeaponKind.RANGED, ap=2, close=10, far=30)


def body(
    cid: str,
    side: Side,
    x: float,
    y: float = 0.0,
    *,
    weapons: tuple[Weapon, ...] = (),
    equipped: tuple[str, ...] | None = None,
    health: int = 100,
    dexterity: int = 3,
    **stats: int,
) -> CreatureDef:
    base = {
        "ap": 6,
        "rp": 2,
        "stamina": 6,
        "travel_speed": 2,
        "resistance": 0,
        "block_rating": 2,
        "dodge_rating": 2,
    }
    base.update(stats)
    base.update({"x": int(x), "y": int(y)})
    return CreatureDef(
        id=cid,
        name=cid.capitalize(),
        side=side,
        aspects={"Dexterity": dexterity, "Strength": 3, "Agility": 3, "Perception": 2},
        health=health,
        weapons=weapons,
        stats=base,
        equipped=equipped,
    )


def encounter(*creatures: CreatureDef, seed: int = 1) -> Encounter:
    return Encounter.begin(EncounterDef("test", AP_RULES, creatures), seed, record=False)


def play(
    enc: Encounter, policies: dict[str, Policy], *, max_rounds: int = 100, check: bool = True
) -> int:
    """Play to the end; every command a policy gives must be legal. Returns the decisions."""
    side = {c.id: c.side.value for c in enc.creatures}
    steps = 0
    while enc.current() != TERMINAL and enc.round <= max_rounds:
        who = enc.current()
        if who == CHANCE:
            enc.apply(RollDice())
            continue
        command = policies[side[who]].choose(enc, who)
        if check:
            assert enc.is_legal(command), (command, enc.why_illegal(command))
        enc.apply(command)
        steps += 1
    return steps


# -- wiring ---------------------------------------------------------------------------------------


def test_registered_for_the_action_point_economy() -> None:
    enc = Encounter.begin(load_encounter("bridge-duel-ap"), 1, record=False)
    assert tactics_for(enc) is not None
    assert type(advisor_for(enc)).__name__ == "PointsAdvisor"
    assert isinstance(
        make_policy("attack-weakest", np.random.default_rng(0)), AttackWeakestPointsPolicy
    )


# -- exact numbers ------------------------------------------------------------------------------------


def _mean(dist_mean: Fraction) -> float:
    return float(dist_mean)


@pytest.mark.parametrize(
    ("incoming", "block", "dodge", "resistance"),
    [(12, 2, 3, 0), (5, 1, 4, 0), (8, 3, 3, 1), (6, 1, 3, 2), (10, 4, 1, 1), (3, 2, 2, 3)],
)
def test_option_losses_are_the_exact_expected_damage(
    incoming: int, block: int, dodge: int, resistance: int
) -> None:
    """With Health to spare, a defender's loss is the exact expected damage of R40's rules."""
    guard = Guard(resistance, block, dodge)
    none, blk, ddg = option_losses(guard, incoming, 1000)
    hit = constant(incoming)
    assert none == pytest.approx(_mean(undefended(hit, resistance).mean_exact))
    assert blk == pytest.approx(_mean(blocked(hit, block, resistance).mean_exact))
    assert ddg == pytest.approx(_mean(dodged(hit, dodge, resistance).mean_exact))


def test_the_attackers_view_of_a_defended_blow() -> None:
    """Before the damage is rolled, the attacker weighs each damage by the defender's best answer."""
    guard = Guard(1, 3, 2)
    damage = parse("2d8")
    from caltrop.dice import distribution

    dist = distribution(damage)
    pmf = np.zeros(dist.max + 1)
    pmf[dist.min :] = dist.probabilities
    dealt = dealt_pmf(pmf, guard, 1000, defends=True)
    expected = 0.0
    for d, p in zip(range(dist.min, dist.max + 1), dist.probabilities, strict=True):
        expected += p * min(option_losses(guard, d, 1000))
    assert float(np.dot(np.arange(len(dealt)), dealt)) == pytest.approx(expected)
    assert dealt.sum() == pytest.approx(1.0)
    undefended_mean = float(np.dot(np.arange(len(pmf)), pmf)) - 1  # Resistance 1, never < 0
    assert float(np.dot(np.arange(len(dealt)), dealt)) < undefended_mean


# -- the defence window (R40, R45) -------------------------------------------------------------------


def _window(incoming: int, defender: CreatureDef, *others: CreatureDef) -> Encounter:
    """The brute swings its maul (6 AP: no swing follows) at the defender, rolling ``incoming``."""
    brute = body("brute", Side.NPC, 1, weapons=(MAUL,))
    enc = encounter(brute, defender, *others)
    enc.apply(Act("brute", "attack", (defender.id,), ("maul",)))
    assert enc.current() == CHANCE
    enc.apply(RollTotal(incoming))
    assert enc.current() == defender.id
    return enc


@pytest.mark.parametrize(
    ("incoming", "block", "dodge", "resistance"),
    [(12, 2, 3, 0), (5, 1, 4, 0), (8, 3, 3, 1), (6, 1, 3, 2), (10, 4, 1, 1), (14, 3, 5, 0)],
)
def test_block_or_dodge_by_exact_expected_damage(
    incoming: int, block: int, dodge: int, resistance: int
) -> None:
    """R45: the damage is known; the defender takes whichever of Block and Dodge leaves the lower
    exact expected damage (caltrop.dice.defence), or no defence if neither lowers it."""
    hero = body("hero", Side.PC, 0, block_rating=block, dodge_rating=dodge, resistance=resistance)
    enc = _window(incoming, hero)
    hit = constant(incoming)
    none = undefended(hit, resistance).mean_exact
    blk = blocked(hit, block, resistance).mean_exact
    ddg = dodged(hit, dodge, resistance).mean_exact
    assert blk != ddg  # the cases are chosen to have a strict answer
    choice = TacticalPolicy().choose(enc, "hero")
    if min(blk, ddg) < none:
        assert choice == Act("hero", "block" if blk < ddg else "dodge")
    else:
        assert choice == Pass("hero")


def test_no_defence_when_resistance_already_stops_it() -> None:
    hero = body("hero", Side.PC, 0, resistance=3)
    enc = _window(3, hero)
    assert TacticalPolicy().choose(enc, "hero") == Pass("hero")


def test_save_the_last_rp_for_a_bigger_blow() -> None:
    """Three axe blows (2 AP each) and 1 RP: a 1-damage blow is taken, the RP kept for later."""
    brute = body("brute", Side.NPC, 1, weapons=(AXE,))
    hero = body("hero", Side.PC, 0, rp=1, block_rating=3, dodge_rating=1)
    enc = encounter(brute, hero)
    enc.apply(Act("brute", "attack", ("hero",), ("axe",)))
    enc.apply(RollTotal(1))
    assert TacticalPolicy().choose(enc, "hero") == Pass("hero")


def _shot_window(incoming: int, defender: CreatureDef) -> Encounter:
    archer = body("archer", Side.NPC, 12, weapons=(CROSSBOW,), ap=3, dexterity=6)
    enc = encounter(archer, defender)
    enc.apply(Act("archer", "shoot", (defender.id,), ("crossbow",)))
    enc.apply(RollTotal(12))  # the Dexterity check hits (DC 12)
    enc.apply(RollTotal(incoming))
    assert enc.current() == defender.id
    return enc


def test_take_cover_first_when_it_pays_and_is_affordable() -> None:
    """R40: against a 9-damage bolt, cover doubles a 2d4 Dodge (all or nothing) — worth 1 RP of 2."""
    hero = body("hero", Side.PC, 0, block_rating=1, dodge_rating=2)
    enc = _shot_window(9, hero)
    policy = TacticalPolicy()
    assert policy.choose(enc, "hero") == Act("hero", "cover")
    enc.apply(Act("hero", "cover"))
    _, blk, ddg = option_losses(Guard(0, 1, 2), 9, 100, cover=True)
    assert policy.choose(enc, "hero") == Act("hero", "block" if blk < ddg else "dodge")
    # with 1 RP cover and a defence cannot both be paid: the best plain defence instead
    poor = body("hero", Side.PC, 0, block_rating=1, dodge_rating=2, rp=1)
    enc = _shot_window(9, poor)
    _, blk, ddg = option_losses(Guard(0, 1, 2), 9, 100)
    assert policy.choose(enc, "hero") == Act("hero", "block" if blk < ddg else "dodge")


def test_no_cover_from_a_blade() -> None:
    """By default cover is taken from shots only (a GM's reading); the knob allows it in melee."""
    hero = body("hero", Side.PC, 0, block_rating=1, dodge_rating=2)
    enc = _window(9, hero)
    assert TacticalPolicy().choose(enc, "hero") in (Act("hero", "block"), Act("hero", "dodge"))
    bold = TacticalPolicy(points=PointsKnobs(cover_from_melee=True))
    assert bold.choose(enc, "hero") == Act("hero", "cover")


def test_defense_assist_when_it_lowers_the_damage_meaningfully() -> None:
    """R40: an adjacent ally adds a die to a Block when that saves ≥ assist_gain, RP allowing."""
    hero = body("hero", Side.PC, 0, block_rating=1, dodge_rating=0)
    squire = body("squire", Side.PC, 0, 1)
    enc = _window(10, hero, squire)
    policy = TacticalPolicy()
    assert policy.choose(enc, "hero") == Act("hero", "block")
    enc.apply(Act("hero", "block"))
    assert enc.current() == "squire"
    assert policy.choose(enc, "squire") == Act("squire", "assist")  # 1d4 more: −2.5 damage
    # a blow the Block already stops: no RP spent on it
    enc = _window(2, hero, squire)
    enc.apply(Act("hero", "block"))
    assert policy.choose(enc, "squire") == Pass("squire")


# -- the turn --------------------------------------------------------------------------------------------


def test_aim_before_a_long_shot() -> None:
    """R39: 16 m with a crossbow (far range: Disfavor) — 3d4 cannot reach DC 16, so the archer aims
    (each aim a die) before its one shot; at 5 m (close range, Favor) it shoots at once."""
    archer = body(
        "archer", Side.PC, 0, weapons=(CROSSBOW,), dexterity=4, travel_speed=0
    )  # rooted: moving closer is no option
    far = encounter(archer, body("target", Side.NPC, 16, health=10))
    policy = TacticalPolicy()
    assert policy.choose(far, "archer") == Act("archer", "aim", ("target",))
    steps = []
    while far.turn_owner == "archer":
        who = far.current()
        if who == CHANCE:
            far.apply(RollDice())
            continue
        command = policy.choose(far, who)
        steps.append(command)
        far.apply(command)
    assert [c.action for c in steps if isinstance(c, Act)][:4] == ["aim", "aim", "aim", "shoot"]
    near = encounter(archer, body("target", Side.NPC, 5, health=10))
    assert policy.choose(near, "archer") == Act("archer", "shoot", ("target",), ("crossbow",))


def test_move_to_engage_then_attack() -> None:
    """A melee fighter 8 m away moves to adjacency (R35, R34) and attacks with its AP left."""
    hero = body("hero", Side.PC, 0, weapons=(AXE,), travel_speed=3)
    enc = encounter(hero, body("orc", Side.NPC, 8, weapons=(AXE,)))
    policy = TacticalPolicy()
    first = policy.choose(enc, "hero")
    assert isinstance(first, Act)
    assert first.action == "move"
    assert first.to is not None
    enc.apply(first)
    assert abs(enc.resources[0].as_dict()["position"][0] - 8) <= 1.5
    assert policy.choose(enc, "hero") == Act("hero", "attack", ("orc",), ("axe",))


def test_archer_keeps_away_from_melee() -> None:
    """A shooter next to a brute steps out of its reach before shooting, when it can."""
    archer = body("archer", Side.PC, 0, weapons=(BOW,), dexterity=5, travel_speed=3, health=12)
    brute = body("brute", Side.NPC, 1, weapons=(CLEAVER,), health=40, travel_speed=1)
    enc = encounter(archer, brute)
    first = TacticalPolicy().choose(enc, "archer")
    assert isinstance(first, Act)
    assert first.action == "move"
    assert first.to is not None
    assert abs(first.to[0] - 1) > 1.5 + 1 * 4  # beyond the brute's reach next turn (1 m/AP)


def test_hold_action_when_threatened() -> None:
    """R33: after its one 4-AP blow, with 2 AP left and an axe-wielder next to it (3 blows a turn
    against 2 RP), the hero holds the AP as a floating RP; the plan counts that RP's worth."""
    hero = body("hero", Side.PC, 0, weapons=(HEAVY,), stamina=0)
    enc = encounter(hero, body("ogre", Side.NPC, 1, weapons=(AXE,)))
    enc.resources[0].ap = 2  # type: ignore[attr-defined]
    assert TacticalPolicy().choose(enc, "hero") == Act("hero", "hold")
    planner = Planner(enc, PointsKnobs())
    assert planner.hold_value(0, planner.threat_at(0, (0.0, 0.0)), 1) > 0
    # an ogre that swings once a turn (its 2 RP answer that): a held RP is still free to keep
    enc = encounter(hero, body("ogre", Side.NPC, 1, weapons=(HEAVY,)))
    enc.resources[0].ap = 2  # type: ignore[attr-defined]
    planner = Planner(enc, PointsKnobs())
    assert planner.hold_value(0, planner.threat_at(0, (0.0, 0.0)), 1) == 0
    assert TacticalPolicy().choose(enc, "hero") == Act("hero", "hold")
    # nobody can reach the (rooted) hero next round: the AP are simply left
    rooted = body("hero", Side.PC, 0, weapons=(HEAVY,), stamina=0, travel_speed=0)
    enc = encounter(rooted, body("ogre", Side.NPC, 60, weapons=(AXE,), travel_speed=1))
    enc.resources[0].ap = 2  # type: ignore[attr-defined]
    assert TacticalPolicy().choose(enc, "hero") == EndTurn("hero")


def test_equip_a_weapon_when_needed() -> None:
    """R44: a bow in the pack and the enemy far off: equip it (then shoot)."""
    hunter = body("hunter", Side.PC, 0, weapons=(BOW,), equipped=(), dexterity=5)
    enc = encounter(hunter, body("deer", Side.NPC, 20, health=10))
    assert TacticalPolicy().choose(enc, "hunter") == Act("hunter", "equip", ("bow",))


# -- whole encounters ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["bridge-duel-ap", "warband-ap"])
def test_every_choice_is_legal_and_encounters_finish(name: str) -> None:
    definition = load_encounter(name)
    tactical = make_policy("tactical", np.random.default_rng(0))
    simple = make_policy("attack-weakest", np.random.default_rng(0))
    pairs: list[dict[str, Policy]] = [
        {"pc": tactical, "npc": tactical},
        {"pc": tactical, "npc": simple},
        {"pc": simple, "npc": tactical},
        {"pc": simple, "npc": simple},
    ]
    for seed, policies in enumerate(pairs * 2):
        enc = Encounter.begin(definition, seed, record=False)
        play(enc, policies)
        assert enc.over, f"{name} seed {seed} reached round {enc.round}"


def test_tactical_beats_attack_weakest_on_paired_seeds() -> None:
    """Bridge Duel: the party with the tactics against the party playing attack-weakest, both
    against the same attack-weakest bandits on the same dice (paired seeds): the tactical party
    wins more often, and Newcombe's paired interval of the difference lies above 0."""
    definition = load_encounter("bridge-duel-ap")
    n = 60
    smart = simulate(definition, [], {"pc": "tactical", "npc": "attack-weakest"}, n=n, seed=7)
    plain = simulate(definition, [], {"pc": "attack-weakest", "npc": "attack-weakest"}, n=n, seed=7)
    a = plain.runs[0].records.wins("pc")
    b = smart.runs[0].records.wins("pc")
    diff = newcombe_paired(a, b)
    assert diff.estimate > 0
    assert diff.lo > 0, diff
    assert not smart.runs[0].records.timeout.any()


def test_deterministic() -> None:
    definition = load_encounter("warband-ap")
    logs: list[tuple[Command, ...]] = []
    for _ in range(2):
        enc = Encounter.begin(definition, 3)
        play(enc, {"pc": TacticalPolicy(), "npc": TacticalPolicy()}, max_rounds=4, check=False)
        logs.append(enc.commands)
    assert logs[0] == logs[1]


def test_book_prefers_range_for_shooters() -> None:
    """Who fights better at range: a fresh turn of shots (unhalved dice, R39) against one of melee
    blows (halved up, R38). Maren's javelin (1d8) beats her spear (1d10 halved)."""
    definition = load_encounter("warband-ap")
    shooter = dict(
        zip((c.id for c in definition.participants), book(definition).shooter, strict=True)
    )
    assert [k for k, v in shooter.items() if v] == ["maren", "kestrel", "bandit-archer"]


def test_the_point_tactics_do_not_import_the_tactical_policy() -> None:
    """Issue 13's debt: sim/tactics.py and sim/points_tactics.py imported each other; what they
    share (PointsKnobs, TacticsHost) lives in caltrop.sim.knobs."""
    import subprocess
    import sys

    code = "import sys, caltrop.sim.points_tactics; print('caltrop.sim.tactics' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- off-turn actions outside windows (R32 off_turn_actions: any) ---------------------------------

#: Digests of tactical's commands, seed by seed, recorded with ``off_turn_actions: reactions`` by
#: the code before off-turn steps existed (commit 96112d5): that option's choices must not move.
BEFORE_OFF_TURN_STEPS = {
    "bridge-duel-ap": [
        "fd7ff72d735337a3",
        "b6c82b066b6deaeb",
        "391dd369f80d4783",
        "b47968ed053c16c7",
        "04d725bd8c35af6b",
        "2635bfcab23411ba",
        "277e6e95d4624411",
        "01ea71d301941732",
        "27c605d4bd7d3013",
        "15b36fa174103fc1",
        "7988643948970800",
        "4c4fd6436f38e1f8",
        "4330404137e86138",
        "861dbc38f8be92a6",
        "8067426b6103a1ac",
        "2d220d0e1b83b343",
        "0142e15684a34297",
        "936fe932f3a96e15",
        "8c92810f8cf38d39",
        "219d9f37869f4b09",
        "5eb84bcf7d49c004",
        "1e9bbf51e27c7270",
        "1f454a3b1e4a26c6",
        "949872ebca8b6771",
    ],
    "warband-ap": [
        "2e979c16106b8fb5",
        "8195192375a18927",
        "90eb361872ea55e0",
        "05c6120043a9aaaf",
        "ccdf9de31f4400c4",
        "c9304c02311a0f2d",
        "e0dc9da3a857a4d4",
        "d136041806c05879",
    ],
}


def _choices_digest(definition: EncounterDef, seed: int) -> str:
    enc = Encounter.begin(definition, seed, record=False)
    policy = TacticalPolicy()
    digest = hashlib.sha256()
    while (who := enc.current()) != TERMINAL:
        if who == CHANCE:
            enc.apply(RollDice())
            continue
        command = policy.choose(enc, who)
        digest.update(str(command).encode() + b";")
        enc.apply(command)
    return digest.hexdigest()[:16]


@pytest.mark.parametrize("name", ["bridge-duel-ap", "warband-ap"])
def test_with_reactions_only_the_choices_are_exactly_the_old_ones(name: str) -> None:
    """R32 ``off_turn_actions: reactions``: "only Block, Dodge, Take Cover, Defense Assist,
    Oppose, Escape and Shake Off, and only inside a window" — so the off-turn steps never apply,
    and every command of every recorded seed is the one the tactics chose before they existed."""
    definition = apply_overrides(
        load_encounter(name), [parse_override("off_turn_actions=reactions")]
    )
    expected = BEFORE_OFF_TURN_STEPS[name]
    assert [_choices_digest(definition, seed) for seed in range(len(expected))] == expected


def _first_turn(enc: Encounter) -> str:
    while enc.current() == CHANCE:
        enc.apply(RollDice())
    return enc.current()


def _with(rules: Ruleset, *creatures: CreatureDef) -> Encounter:
    return Encounter.begin(EncounterDef("test", rules, creatures), 1, record=False)


REACTIONS_ONLY = Ruleset(
    name="ap", economy=Economy.ACTION_POINTS, off_turn_actions=OffTurn.REACTIONS
)


def test_an_idle_archer_aims_during_its_allys_turn_when_any_action_is_allowed() -> None:
    """R32 ``any``: "during another participant's turn a participant may take any action it can
    pay for, at any moment". During the fighter's turn the archer's 2 RP (R31) would go unused;
    it Aims (1 AP = 2 RP, R32; R39: +1 Favor on its next shot, stacking) up to its limit, paid
    from regular RP, never floating RP; then the fighter takes its own turn."""
    fighter = body("fighter", Side.PC, 0, weapons=(AXE,))
    archer = body("archer", Side.PC, -2, weapons=(BOW,))
    foe = body("foe", Side.NPC, 20, weapons=(AXE,))
    enc = _with(AP_RULES, fighter, archer, foe)
    assert _first_turn(enc) == "fighter"
    policy = TacticalPolicy()
    command = policy.choose(enc, "fighter")
    assert command == Act("archer", "aim", ("foe",))
    enc.apply(command)
    state = enc.resources[1]
    assert (state.aim, state.rp, state.floating) == (1, 0, 0)  # type: ignore[attr-defined]
    after = policy.choose(enc, "fighter")
    assert after.actor == "fighter"  # no RP left to spend: the owner's own step


def test_the_same_turn_with_reactions_only_has_no_off_turn_step() -> None:
    fighter = body("fighter", Side.PC, 0, weapons=(AXE,))
    archer = body("archer", Side.PC, -2, weapons=(BOW,))
    foe = body("foe", Side.NPC, 20, weapons=(AXE,))
    enc = _with(REACTIONS_ONLY, fighter, archer, foe)
    assert _first_turn(enc) == "fighter"
    assert TacticalPolicy().choose(enc, "fighter").actor == "fighter"


def test_an_idle_fighter_closes_in_and_a_winded_one_breathes_off_turn() -> None:
    """A melee ally adjacent to no enemy moves toward the nearest as far as 1 AP goes (R35:
    travel speed × AP); one already adjacent with Stamina down takes a Deep Breath (R37)."""
    lead = body("lead", Side.PC, 0, weapons=(AXE,))
    runner = body("runner", Side.PC, -10, weapons=(AXE,))
    foe = body("foe", Side.NPC, 20, weapons=(AXE,))
    enc = _with(AP_RULES, lead, runner, foe)
    assert _first_turn(enc) == "lead"
    command = TacticalPolicy().choose(enc, "lead")
    assert isinstance(command, Act)
    assert (command.actor, command.action) == ("runner", "move")
    assert command.to is not None
    assert command.to[0] == pytest.approx(-8.0, abs=0.05)
    winded = body("winded", Side.PC, 19, weapons=(AXE,))
    enc = _with(AP_RULES, lead, winded, foe)
    assert _first_turn(enc) == "lead"
    enc.resources[1].stamina = 3  # type: ignore[attr-defined]
    assert TacticalPolicy().choose(enc, "lead") == Act("winded", "breath")


def test_an_encounter_with_off_turn_steps_plays_to_the_end_legally() -> None:
    """Every command, an ally's off-turn step included, is legal where it is given."""
    definition = load_encounter("warband-ap")
    tactical = TacticalPolicy()
    steps = 0
    for seed in range(2):
        enc = Encounter.begin(definition, seed, record=False)
        while (who := enc.current()) != TERMINAL:
            if who == CHANCE:
                enc.apply(RollDice())
                continue
            command = tactical.choose(enc, who)
            assert enc.is_legal(command), (command, enc.why_illegal(command))
            steps += command.actor != who
            enc.apply(command)
    assert steps > 0  # some ally did act off turn
