"""Each defence choice shows its consequence (issue 22 item 2): in an Action Point defence
window, no defence / Block / Dodge / Take Cover (then Block) — and each with one more Defense
Assist die — show the exact chance of taking no damage and the damage taken, computed from the
rolled damage and the defender's dice, checked two ways: against the engine walked through the
window for that choice, and against icepool.

R40: "Block: damage −= (Block Rating d4s + Resistance), never below 0. Dodge: if (Dodge Rating
d4s + Resistance) ≥ the incoming damage, the damage is 0; otherwise the full damage is dealt,
Resistance not subtracted. No defence: damage − Resistance, never below 0. Take Cover: … the
dice total of Block or Dodge against that source is doubled (then Resistance is added).
Defense Assist: an adjacent participant spends 1 RP to add 1 d4 to the defender's Block or Dodge
pool." R45: "The defender therefore knows the damage before choosing Block or Dodge."
"""

from __future__ import annotations

from fractions import Fraction

import icepool

from caltrop.core.commands import Act, Command, Pass, parse_command
from caltrop.encounter import CHANCE, Encounter
from caltrop.table import view
from caltrop.table.odds import Odds, defence_window, reaction_odds
from tests.table.plays import begin
from tests.table.test_odds import ap_encounter, engine_walk, to_turn_of


def windows() -> list[tuple[Encounter, str, str | None]]:
    """Every defence window of Brakka's two-weapon swing at Torvald in Bridge Duel (one per
    damage total the engine can roll, 1–7), Kestrel adjacent to assist: the defender and the
    ally who may assist."""
    enc = begin("bridge-duel-ap", 4)
    to_turn_of(enc, creature="brakka")
    enc.apply(parse_command("gm: set brakka at 1,0"))
    enc.apply(parse_command("gm: set torvald at 0,0"))
    enc.apply(parse_command("gm: set kestrel at 0,1"))
    enc.apply(parse_command("brakka: attack torvald with handaxe+dagger"))
    out = []
    for total, _ in enc.chance_outcomes():  # the damage roll (R45)
        window = enc.clone()
        window.apply(total)
        assert defence_window(window) is not None
        assert window.current() == "torvald"
        out.append((window, "torvald", "kestrel"))
    assert len(out) == 7  # (1d8 + 1d6) halved up: 1..7 (R38)
    return out


def walk(enc: Encounter, commands: list[Command]) -> tuple[Fraction, Fraction]:
    """The engine's own resolution after ``commands`` (everyone else passing): P(no damage to
    the defender), E[damage taken]."""
    probe = enc.clone()
    for command in commands:
        probe.apply(command)
    # the window is the roll on top: walk it and its settling
    hurt, mean, _ = engine_walk(probe)
    return 1 - hurt, mean


def oracle(
    incoming: int, mode: str | None, rating: int, resistance: int, cover: bool, assists: int
) -> tuple[Fraction, Fraction]:
    """R40 with icepool: (P(no damage), E[damage taken])."""
    if mode is None:
        taken = icepool.Die([max(0, incoming - resistance)])
    else:
        pool = max(1, rating + assists) @ icepool.d4
        total = (pool * 2 if cover else pool) + resistance
        if mode == "block":
            taken = (incoming - total).map(lambda v: max(0, v))
        else:
            taken = total.map(lambda v: 0 if v >= incoming else incoming)
    none = Fraction(taken.probability(0) if 0 in taken else 0)
    return none, Fraction(taken.mean())


def assert_matches(odds: Odds | None, got: tuple[Fraction, Fraction]) -> None:
    assert odds is not None
    assert odds.kind == "defence"
    assert (odds.success, odds.expected_damage) == got


def test_each_defence_choice_is_the_engines_and_icepools() -> None:
    checked = 0
    for enc, defender, ally in windows():
        top = defence_window(enc)
        assert top is not None
        incoming = int(top.context["incoming"])
        c = enc.creature(defender)
        resistance = c.stats.get("resistance", 0)
        # no defence: the pass (R40 "damage − Resistance")
        odds = reaction_odds(enc, Pass(defender))
        assert_matches(odds, walk(enc, []))
        assert_matches(odds, oracle(incoming, None, 0, resistance, False, 0))
        choices: list[tuple[str, list[str], str, bool]] = [
            ("block", ["block"], "block", False),
            ("dodge", ["dodge"], "dodge", False),
            ("cover", ["cover", "block"], "block", True),
        ]
        for verb, steps, mode, cover in choices:
            command = Act(defender, verb)
            odds = reaction_odds(enc, command)
            rating = c.stats[f"{mode}_rating"]
            acts: list[Command] = [Act(defender, s) for s in steps]
            assert_matches(odds, walk(enc, acts))
            assert_matches(odds, oracle(incoming, mode, rating, resistance, cover, 0))
            assert odds is not None
            assert odds.then == ("block" if verb == "cover" else None)
            if verb == "cover":  # and followed by a Dodge instead
                dodge = odds.or_then
                assert dodge is not None
                assert dodge.then == "dodge"
                rating_d = c.stats["dodge_rating"]
                assert_matches(dodge, walk(enc, [command, Act(defender, "dodge")]))
                assert_matches(dodge, oracle(incoming, "dodge", rating_d, resistance, True, 0))
                assert (
                    dodge.with_help == oracle(incoming, "dodge", rating_d, resistance, True, 1)[0]
                )
            else:
                assert odds.or_then is None
            # one more Defense Assist die (R40), by the engine when an ally may assist
            helped = oracle(incoming, mode, rating, resistance, cover, 1)[0]
            assert odds.with_help == helped
            if ally is not None:
                after = enc.clone()
                for a in acts:
                    after.apply(a)
                assist = Act(ally, "assist")
                if after.is_legal(assist):
                    assisted = reaction_odds(after, assist)  # the ally's own option
                    assert assisted is not None
                    assert assisted.success == walk(after, [assist])[0] == helped
                    checked += 1
    assert checked == 7 * 3  # the assist walked through the engine in every window


def test_the_options_carry_their_consequence() -> None:
    """The view offers each choice with those odds, and the cost as paid (never negative)."""
    enc, defender, _ = windows()[-1]
    options = {o.action: o for o in view(enc, defender).options[defender] if o.legal}
    for name in ("block", "dodge", "cover", "pass"):
        assert name in options, name
        odds = options[name].odds
        assert odds is not None
        assert odds["kind"] == "defence"
        assert odds["expected_exact"] is not None  # its own numbers: exact
    for name in ("block", "dodge", "cover"):
        assert all(v < 0 for k, v in options[name].cost.items() if k in ("ap", "rp"))


def test_outside_a_defence_window_there_is_no_reaction_odds() -> None:
    enc = ap_encounter()
    owner = enc.turn_owner
    assert owner is not None
    assert reaction_odds(enc, Pass(owner)) is None
    assert enc.current() != CHANCE
