"""Exact odds in the view model (issue 12), checked against two independent oracles: the
engine itself, walked through every total of every roll (``chance_outcomes`` and ``total N``),
and icepool's distributions of the dice the rules name.

Seed 000: "Subtracts the target's Evasion (for attacks) → The remainder becomes damage dealt;
compares the total to a DC → the action succeeds if the total meets or beats the DC" (R16).
Seed 004: melee has no roll to hit (R38); a ranged attack is a Dexterity check against the
distance (R39); "No defence: damage − Resistance" (R40).
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import icepool
import pytest

from caltrop.core.commands import GM, Act, Command, EndTurn, Pass, RollDice, parse_command
from caltrop.core.model import Side
from caltrop.encounter import CHANCE, Encounter
from caltrop.table import HealthShown, Reveal, view
from caltrop.table.odds import option_odds, pending_odds
from tests.table.plays import BUNDLED, begin, random_play
from tests.table.test_view import dicts


def engine_walk(enc: Encounter) -> tuple[Fraction, Fraction, Fraction]:
    """From a declared roll on top of ``enc``'s stack: every way its rolls can fall, by the
    engine's own resolution (each reactor passes: no help, no defence). Returns P(some damage),
    E[damage] and P(the last roll succeeds)."""
    depth = len(enc.pending) - 1
    hurt = mean = won = Fraction(0)
    stack: list[tuple[Encounter, Fraction, int, bool]] = [(enc, Fraction(1), 0, False)]
    while stack:
        e, p, damage, success = stack.pop()
        if e.over or len(e.pending) <= depth:
            hurt += p if damage > 0 else 0
            mean += p * damage
            won += p if success else 0
            continue
        who = e.current()
        if who != CHANCE:
            nxt = e.clone()
            nxt.apply(Pass(who))
            stack.append((nxt, p, damage, success))
            continue
        for total, q in e.chance_outcomes():
            nxt = e.clone()
            outcome = nxt.apply(total)
            assert outcome is not None
            ok = bool(outcome.success) if outcome.success is not None else success
            stack.append((nxt, p * q, damage + (outcome.damage or 0), ok))
    return hurt, mean, won


def declared(enc: Encounter, command: Command) -> Encounter:
    probe = enc.clone()
    probe.apply(command)
    return probe


def with_source(command: Act, sign: str) -> Command:
    """``command`` with one more advantage (``+``) or disadvantage (``-``) of a new source."""
    kind = "adv" if sign == "+" else "dis"
    return parse_command(f"{command} +{kind}:oracle")


def assert_attack_matches_engine(enc: Encounter, command: Act) -> None:
    odds = option_odds(enc, command)
    assert odds is not None
    assert odds.kind == "attack"
    hurt, mean, _ = engine_walk(declared(enc, command))
    assert odds.success == hurt
    assert odds.expected_damage == mean
    assert odds.with_help == engine_walk(declared(enc, with_source(command, "+")))[0]
    assert odds.with_hinder == engine_walk(declared(enc, with_source(command, "-")))[0]


def to_turn_of(enc: Encounter, side: Side | None = None, creature: str | None = None) -> None:
    """Roll initiative and end turns until a creature of ``side`` (or ``creature``) acts."""
    for _ in range(40):
        if enc.pending:
            enc.apply(RollDice())
            continue
        owner = enc.turn_owner
        assert owner is not None
        if creature == owner or (creature is None and enc.creature(owner).side is side):
            return
        enc.apply(EndTurn(owner))
    raise AssertionError("no such turn")


@pytest.mark.parametrize("name", ["orc-bridge", "goblin-ambush", "duel"])
def test_action_load_attack_odds_are_the_engines(name: str) -> None:
    """R16 through the engine: every attack offered on the first turns, each target and weapon,
    its hit chance, expected damage (a miss counts 0) and with one more help / hinder (R14)."""
    enc = begin(name, 3)
    shown = {c.id: Reveal(aspects=True) for c in enc.creatures if c.side is Side.NPC}
    checked = 0
    for _ in range(3):
        owner = enc.turn_owner
        assert owner is not None
        offered = view(enc, owner, shown).options[owner]
        attacks = [o for o in offered if o.odds is not None]
        for option in attacks[:4]:
            command = parse_command(option.command)
            assert isinstance(command, Act)
            assert_attack_matches_engine(enc, command)
            odds = option_odds(enc, command)
            assert odds is not None
            assert option.odds["exact"] == str(odds.success)
            assert option.odds["expected_damage"] == float(odds.expected_damage or 0)
            checked += 1
        enc.apply(EndTurn(owner))
    assert checked >= 2


def test_action_load_odds_match_icepool() -> None:
    """R12: 'Aspect – max(0, Action Load)' d4s ± Net Advantage, then the weapon's die; R16: it
    hits when total − Evasion > 0. Bron (Might 5, Load −1: 5d4, sword 1d8) on the Orc Brute."""
    enc = begin("orc-bridge")
    brute = enc.creature("orc-brute")
    shown = {"orc-brute": Reveal(aspects=True)}  # exact odds: the Brute's Aspects shown
    offered = view(enc, "bron", shown).options["bron"]
    strike = next(o for o in offered if "orc-brute" in o.command)
    assert strike.odds is not None
    might, load = enc.creature("bron").aspects["Might"], enc.resources[0].as_dict()["load"]
    n = might - max(0, load)
    for key, extra in (("success", 0), ("with_help", 1), ("with_hinder", -1)):
        die = max(1, n + extra) @ icepool.d4 + icepool.d8
        assert strike.odds[key] == pytest.approx(float(die.probability(">=", brute.evasion + 1)))
    die = n @ icepool.d4 + icepool.d8
    expected = die.map(lambda t: max(0, t - brute.evasion)).mean()
    assert strike.odds["expected_damage"] == pytest.approx(float(expected))
    assert strike.odds["exact"] == str(die.probability(">=", brute.evasion + 1))
    assert str(brute.evasion) in strike.odds["against"]  # shown: its Evasion may be named


def test_a_help_moves_the_pending_odds_to_what_the_option_said() -> None:
    """R15: "with_help" is the chance the roll would have after one help: Bron's strike said
    so before he declared it, and the pending roll says so once Aria has helped."""
    enc = begin("orc-bridge")
    shown = {"orc-brute": Reveal(aspects=True)}  # exact, as the GM's pending roll is
    offered = view(enc, "bron", shown).options["bron"]
    strike = next(o for o in offered if "orc-brute" in o.command)
    assert strike.odds is not None
    enc.apply(parse_command(strike.command))
    pending = view(enc, GM).pending
    assert pending is not None
    assert pending.odds is not None
    assert pending.odds["success"] == strike.odds["success"]
    assert pending.odds["with_help"] == strike.odds["with_help"]
    enc.apply(parse_command("aria: help"))
    helped = view(enc, GM).pending
    assert helped is not None
    assert helped.odds is not None
    assert helped.odds["success"] == strike.odds["with_help"]
    assert helped.odds["success"] > strike.odds["success"]


def test_a_gm_called_check_against_icepool() -> None:
    """R17: a GM-called roll rolls max(1, Aspect + Net Advantage) d4s (Load not counted by
    default); R16: it succeeds iff total ≥ DC."""
    enc = begin("orc-bridge")
    enc.apply(parse_command("gm: call aria finesse dc 12"))
    odds = pending_odds(enc)
    assert odds is not None
    assert odds.kind == "check"
    finesse = enc.creature("aria").aspects["Finesse"]
    assert odds.success == (finesse @ icepool.d4).probability(">=", 12)
    assert odds.with_help == ((finesse + 1) @ icepool.d4).probability(">=", 12)
    assert odds.with_hinder == ((finesse - 1) @ icepool.d4).probability(">=", 12)
    assert odds.against == "DC 12"
    _, _, won = engine_walk(enc)
    assert odds.success == won


def ap_encounter() -> Encounter:
    """Bridge Duel (seed 004) at the first PC's turn, every enemy placed next to it."""
    enc = begin("bridge-duel-ap", 4)
    to_turn_of(enc, Side.PC)
    owner = enc.turn_owner
    assert owner is not None
    x, y = enc.resources[enc.index(owner)].as_dict()["position"]
    for k, c in enumerate(c for c in enc.creatures if c.side is Side.NPC):
        enc.apply(parse_command(f"gm: set {c.id} at {x + 1},{y + k}"))
    return enc


def ap_defence_stage() -> tuple[Encounter, str]:
    """:func:`ap_encounter` after the PC's attack on the first NPC hit for 6 (R45): the
    defence stage open, no defence chosen yet (R40); the encounter and the defender's id."""
    enc = ap_encounter()
    owner = enc.turn_owner
    assert owner is not None
    foe = next(c for c in enc.creatures if c.side is Side.NPC)
    enc.apply(parse_command(f"{owner}: attack {foe.id}"))
    enc.apply(parse_command("roll 6"))  # the damage: the defence stage opens
    return enc, foe.id


def test_action_point_melee_odds_are_the_engines() -> None:
    """R38: no roll to hit, damage halved up; R40: against no defence, damage − Resistance —
    the engine walked through the damage roll and an undefended defence window."""
    enc = ap_encounter()
    owner = enc.turn_owner
    assert owner is not None
    attacks = [o for o in view(enc, owner).options[owner] if o.action == "attack"]
    assert attacks
    for option in attacks:
        command = parse_command(option.command)
        assert isinstance(command, Act)
        odds = option_odds(enc, command)
        assert odds is not None
        hurt, mean, _ = engine_walk(declared(enc, command))
        assert (odds.success, odds.expected_damage) == (hurt, mean)
        assert odds.with_help is None  # R38: Favor does not touch melee damage


def test_action_point_ranged_odds_are_the_engines() -> None:
    """R39: a Dexterity check against the distance (close range 1 Favor, far 1 Disfavor), then
    the weapon's damage, not halved; R40 without a defence."""
    enc = begin("bridge-duel-ap", 4)
    to_turn_of(enc, creature="bandit-archer")
    shots = [o for o in view(enc, GM).options["bandit-archer"] if o.action == "shoot"]
    assert shots
    for option in shots:
        command = parse_command(option.command)
        assert isinstance(command, Act)
        assert_attack_matches_engine(enc, command)
        assert option.odds is not None
        assert option.odds["against"].startswith("DC ")


def test_action_point_defence_and_contest_odds() -> None:
    """R40: a Block takes Block Rating d4s + Resistance off the known damage (success: it
    stops all of it); one more Defense Assist die is "with help". R4/R42: a grapple succeeds
    iff the grappler's Strength total beats the target's roll."""
    enc = ap_encounter()
    owner = enc.turn_owner
    assert owner is not None
    foe = next(c for c in enc.creatures if c.side is Side.NPC)
    enc.apply(parse_command(f"{owner}: attack {foe.id}"))
    enc.apply(RollDice())  # the damage: the defence window opens (R45)
    assert enc.current() == foe.id
    enc.apply(parse_command(f"{foe.id}: block"))
    odds = pending_odds(enc)
    assert odds is not None
    assert odds.kind == "defence"
    assert odds.with_hinder is None  # nobody takes a die off a defence
    top = enc.pending_roll
    assert top is not None
    incoming = int(top.context["incoming"])
    rating, resistance = foe.stats["block_rating"], foe.stats.get("resistance", 0)
    for got, extra in ((odds.success, 0), (odds.with_help, 1)):
        block = max(1, rating + extra) @ icepool.d4 + resistance
        assert got == block.probability(">=", incoming)
    _, mean, _ = engine_walk(enc)
    assert odds.expected_damage == mean
    grapple_enc = ap_encounter()
    command = parse_command(f"{owner}: grapple {foe.id}")
    assert isinstance(command, Act)
    grapple = option_odds(grapple_enc, command)
    assert grapple is not None
    _, _, won = engine_walk(declared(grapple_enc, command))
    assert grapple.success == won


def test_players_never_see_a_hidden_npcs_evasion() -> None:
    """Hidden information: a player's odds against an NPC name its Evasion only when the GM
    reveals its Aspects, and carry no odds at all when the GM hides them (``Reveal.odds``)."""
    for name in BUNDLED:
        enc = begin(name, 2)
        pcs = [c.id for c in enc.creatures if c.side is Side.PC]
        npcs = {c.id: c for c in enc.creatures if c.side is Side.NPC}
        evasions = {f"Evasion {c.evasion}" for c in npcs.values()} - {
            f"Evasion {c.evasion}" for c in enc.creatures if c.side is Side.PC
        }
        for _ in random_play(enc, 2, 40):
            for pc in pcs:
                payload = json.loads(view(enc, pc).to_json())
                for obj in dicts(payload):
                    assert obj.get("against") not in evasions, (pc, obj)
    enc = begin("orc-bridge")
    strike = "bron: strike orc-brute with sword"

    def option(reveal: dict[str, Reveal]) -> dict[str, Any]:
        found = next(o for o in view(enc, "bron", reveal).options["bron"] if o.command == strike)
        return found.as_dict()

    hidden = option({})
    assert hidden["odds"]["against"] is None
    assert hidden["odds"]["success"] > 0
    shown = option({"orc-brute": Reveal(HealthShown.LABEL, aspects=True)})
    assert shown["odds"]["against"] == f"Evasion {enc.creature('orc-brute').evasion}"
    assert "odds" not in option({"orc-brute": Reveal(odds=False)})
    assert "odds" in option({"goblin-archer": Reveal(odds=False)})
    assert view(enc, GM, {"orc-brute": Reveal(odds=False)}).options  # the GM is never limited


def test_the_pool_is_explained() -> None:
    """Seed 000's example: "Finesse value is 4 … Action Load is 0 … darkly lit … Disadvantage
    … holding a torch, giving Advantage … giving advice, granting another advantage"; R12 the
    pool's base Aspect − max(0, Load), R14 each source once with its sign, the weapon's die."""
    enc = begin("orc-bridge")
    enc.apply(parse_command("gm: set bron load 2"))
    enc.apply(parse_command("bron: strike orc-brute +adv:torch +adv:advice +dis:dark"))
    pending = view(enc, "bron").pending
    assert pending is not None
    might = enc.creature("bron").aspects["Might"]
    n = might - 2 + 1
    assert (
        pending.pool
        == f"{n}d4+1d8: Might {might} − Load 2, +1 torch, +1 advice, −1 dark, sword 1d8"
    )
    assert pending.dice == (4,) * n + (8,)
    options = view(enc, GM).options
    archer_pool = [o.pool for opts in options.values() for o in opts if o.pool]
    assert all(":" in p for p in archer_pool)


def test_a_player_sees_no_npc_numbers_in_a_pool() -> None:
    """An NPC's Aspects and Load are hidden by default: its pool names the Aspect, not the
    number; the GM sees the number."""
    enc = begin("goblin-ambush")
    owner = enc.turn_owner
    assert owner is not None
    assert enc.creature(owner).side is Side.NPC
    attack = next(o for o in view(enc, GM).options[owner] if o.pool)
    enc.apply(parse_command(attack.command))
    aspect = enc.pending_roll.action.aspect  # type: ignore[union-attr]
    value = enc.creature(owner).aspects[aspect]
    assert f"{aspect} {value}" in view(enc, GM).pending.pool  # type: ignore[union-attr]
    pc = next(c.id for c in enc.creatures if c.side is Side.PC)
    seen = view(enc, pc).pending
    assert seen is not None
    assert aspect in seen.pool
    assert f"{aspect} {value}" not in seen.pool


def test_an_action_load_check_option_is_the_engines() -> None:
    """R16: "A check against a DC succeeds iff total ≥ DC": Aria's pick-lock (Finesse, DC 12),
    on her own turn, through the engine and against icepool (R12: Finesse − max(0, Load))."""
    enc = begin("orc-bridge")
    to_turn_of(enc, creature="aria")
    option = next(o for o in view(enc, "aria").options["aria"] if o.action == "pick-lock")
    assert option.legal
    command = parse_command(option.command)
    assert isinstance(command, Act)
    odds = option_odds(enc, command)
    assert odds is not None
    assert odds.kind == "check"
    assert odds.against == "DC 12"
    _, _, won = engine_walk(declared(enc, command))
    assert odds.success == won
    assert odds.with_help == engine_walk(declared(enc, with_source(command, "+")))[2]
    finesse = enc.creature("aria").aspects["Finesse"]
    load = enc.resources[enc.index("aria")].as_dict()["load"]
    n = finesse - max(0, load)
    assert odds.success == (n @ icepool.d4).probability(">=", 12)
    assert odds.with_hinder == ((n - 1) @ icepool.d4).probability(">=", 12)
    assert option.pool == f"{n}d4: Finesse {finesse}"


@pytest.mark.parametrize("name", ["orc-bridge", "goblin-ambush", "warband-ap"])
def test_a_player_gets_rounded_odds_against_an_npc_whose_aspects_are_hidden(name: str) -> None:
    """Issue 20 §3 (docs/rules.md, "What the odds tell a player"): "for players, against a
    creature whose Evasion the GM has not shown, send rounded percentages only (no fraction, no
    expected damage to more than one decimal)". The same options with the NPC's Aspects shown
    carry the exact figures, and the rounded ones are those to the nearest whole percent."""
    enc = begin(name, 5)
    npcs = [c.id for c in enc.creatures if c.side is Side.NPC]
    shown = {npc: Reveal(aspects=True) for npc in npcs}
    compared = 0
    for step in range(40):
        owner = enc.turn_owner
        if owner is not None and enc.creature(owner).side is Side.PC:
            hidden = {o.command: o.odds for o in view(enc, owner).options.get(owner, [])}
            exact = {o.command: o.odds for o in view(enc, owner, shown).options.get(owner, [])}
            for command, odds in hidden.items():
                full = exact[command]
                if odds is None or full is None or not any(n in command for n in npcs):
                    continue
                assert odds["exact"] is None
                assert odds["rounded"] is True
                assert "/" not in json.dumps(odds)
                p = full["success"]
                # the nearest whole percent, but never 0% or 100% unless it is so
                nearest = min(max(round(p * 100), 1), 99) / 100 if 0 < p < 1 else p
                assert odds["success"] == pytest.approx(nearest)
                if full["expected_damage"] is not None:
                    assert odds["expected_damage"] == round(full["expected_damage"], 1)
                assert full["exact"] is not None
                assert full["rounded"] is False
                compared += 1
        if not list(random_play(enc, seed=step, steps=1)):
            break
    assert compared >= 1
