"""The play screen on an 80-column terminal, the negative-Load legend and the hit-roll panel.

Rendered with ``Console(width=80, record=True)`` for every bundled encounter, at its start and
at every state of a random play-out: every creature id shows whole, and the screen with a
story line and the prompt line fits a 24-line terminal.
"""

from __future__ import annotations

import math
import re
from io import StringIO

import numpy as np
import pytest
from rich.console import Console

from caltrop.cli.encounter_view import _action_labels, abbreviations, odds_text, screen, table_view
from caltrop.content import bundled_encounters, load_encounter
from caltrop.core.commands import Act, RollDice, parse_command
from caltrop.core.pool import net_advantage
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.sim.policies import RandomPolicy

ENCOUNTERS = sorted(bundled_encounters())
#: A terminal's height; the screen shares it with the command's story line and the prompt.
ROWS = 24


def render(encounter: Encounter, width: int = 80) -> str:
    console = Console(width=width, record=True, file=StringIO())
    console.print(screen(encounter))
    return console.export_text()


def whole(creature_id: str, text: str) -> bool:
    """``creature_id`` appears as a word of its own (not cut, not wrapped at a hyphen)."""
    return re.search(rf"(?<![\w-]){re.escape(creature_id)}(?![\w-])", text) is not None


def played(name: str, seed: int, steps: int) -> list[Encounter]:
    """The states of a random play-out (its first ``steps`` commands), each a clone."""
    encounter = Encounter.begin(load_encounter(name), seed)
    policy = RandomPolicy(np.random.default_rng(seed))
    states = [encounter.clone()]
    for _ in range(steps):
        who = encounter.current()
        if who == TERMINAL:
            break
        encounter.apply(RollDice() if who == CHANCE else policy.choose(encounter, who))
        states.append(encounter.clone())
    return states


@pytest.mark.parametrize("name", ENCOUNTERS)
def test_the_first_screen_fits_80_columns_with_every_id_whole(name: str) -> None:
    encounter = Encounter.begin(load_encounter(name), 1)
    text = render(encounter)
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines)
    for creature in encounter.creatures:
        assert whole(creature.id, text), creature.id
        # one table row per creature: its id is on exactly one line
        assert (
            sum(
                whole(creature.id, line)
                for line in lines
                if line.lstrip("▶ ").startswith(creature.id)
            )
            == 1
        )
    assert len(lines) + 1 <= ROWS  # and the prompt line


def test_goblin_ambush_has_eight_creatures_in_one_screen() -> None:
    encounter = Encounter.begin(load_encounter("goblin-ambush"), 1)
    assert len(encounter.creatures) == 8
    lines = render(encounter).splitlines()
    rows = [
        line for line in lines if any(line[3:].startswith(c.id + " ") for c in encounter.creatures)
    ]
    assert len(rows) == 8
    assert len(lines) + 1 <= ROWS


@pytest.mark.parametrize("name", ENCOUNTERS)
@pytest.mark.parametrize("seed", [2, 3])
def test_every_state_of_a_play_out_fits_with_ids_whole(name: str, seed: int) -> None:
    for state in played(name, seed, 80):
        text = render(state)
        for creature in state.creatures:
            assert whole(creature.id, text), (creature.id, text)
        # the screen, the story line of the command before it and the prompt
        assert len(text.splitlines()) + 2 <= ROWS, text


def test_a_wide_terminal_keeps_the_full_table() -> None:
    """Where it fits, the full table: Aspects by name, every action with its cost."""
    encounter = Encounter.begin(load_encounter("goblin-ambush"), 1)
    text = render(encounter, width=250)
    assert "Aspect → Aspect − Load" in text
    aria = encounter.creature("aria")
    assert f"Finesse {aria.aspects['Finesse']}→" in text
    for action in aria.actions:
        assert f"{action.name}({action.cost})" in text
    narrow = render(encounter)
    assert "Aspect → Aspect − Load" not in narrow
    short = abbreviations(aria.aspects)
    assert f"{short['Finesse']}{aria.aspects['Finesse']}→" in narrow


def test_abbreviations_are_the_shortest_unique_prefixes() -> None:
    assert abbreviations(["Finesse", "Insight", "Might", "Control"]) == {
        "Finesse": "F",
        "Insight": "I",
        "Might": "M",
        "Control": "C",
    }
    assert abbreviations(["Speed", "Strength", "Power", "Poise", "Perception"]) == {
        "Speed": "Sp",
        "Strength": "St",
        "Power": "Pow",
        "Poise": "Poi",
        "Perception": "Pe",
    }


# -- the negative Load legend (R10, R12) ------------------------------------------------------


LEGEND = "= Exhaustion − Load Buffer (R10); a negative Load adds no dice (R12)"


@pytest.mark.parametrize("name", ["goblin-ambush", "orc-bridge"])
def test_the_legend_explains_a_negative_starting_load(name: str) -> None:
    """R10: Load := Exhaustion − Load Buffer, so a Load Buffer of 1 starts at Load −1;
    R12: "A negative Load never adds dice"."""
    encounter = Encounter.begin(load_encounter(name), 1)
    lowest = min(c.exhaustion - c.load_buffer for c in encounter.creatures)
    assert lowest < 0, "the example has a creature with a Load Buffer"
    legend = [line for line in render(encounter).splitlines() if LEGEND in line]
    assert legend == [f"Load {lowest} {LEGEND}"]
    assert len(legend[0]) <= 80


@pytest.mark.parametrize("name", ["goblin-ambush", "orc-bridge"])
def test_the_legend_shows_exactly_while_some_load_is_negative(name: str) -> None:
    for state in played(name, 4, 60):
        loads = [state.resources[i].as_dict()["load"] for i in range(len(state.creatures))]
        assert (LEGEND in render(state)) == (min(loads) < 0)


# -- the hit roll of the Action Point module (R39) ---------------------------------------------


def to_a_shot(name: str, seed: int, aims: int, extra: str = "") -> Encounter:
    """Play until a creature with a bow may shoot on its turn; it aims ``aims`` times, shoots."""
    encounter = Encounter.begin(load_encounter(name), seed)
    for _ in range(300):
        who = encounter.current()
        assert who != TERMINAL
        if who == CHANCE:
            encounter.apply(RollDice())
            continue
        legal = list(encounter.legal_actions(who))
        shots = [c for c in legal if isinstance(c, Act) and c.action == "shoot"]
        if shots and encounter.turn_owner == who:
            shot = shots[0]
            for _ in range(aims):
                encounter.apply(parse_command(f"{who}: aim {shot.targets[0]}"))
            encounter.apply(parse_command(f"{shot}{extra}"))
            return encounter
        moves = [c for c in legal if isinstance(c, Act) and c.action == "move"]
        encounter.apply(moves[0] if moves else legal[-1])
    raise AssertionError("nobody shot")


@pytest.mark.parametrize(
    ("name", "aims", "extra"),
    [
        ("warband-ap", 0, ""),
        ("warband-ap", 2, ""),
        ("bridge-duel-ap", 1, " +adv:high-ground"),
        ("bridge-duel-ap", 0, " +dis:wind"),
    ],
)
def test_the_hit_panel_shows_the_dc_and_the_favor_before_the_roll(
    name: str, aims: int, extra: str
) -> None:
    """R39: "Dexterity check with DC = distance. Within close range: 1 Favor; beyond close and
    within far range: 1 Disfavor … Aim: +1 Favor on the next ranged attack, stacking"."""
    encounter = to_a_shot(name, 1, aims, extra)
    pending = encounter.pending_roll
    assert pending is not None
    assert pending.stage == "hit"
    shot = encounter.commands[-1]
    assert isinstance(shot, Act)
    shooter = encounter.creature(shot.actor)
    at = encounter.resources[encounter.index(shot.actor)].as_dict()
    them = encounter.resources[encounter.index(shot.targets[0])].as_dict()
    distance = math.ceil(math.dist(at["position"], them["position"]) - 1e-9)  # R34: rounded up
    weapon = shooter.weapon(shot.weapons[0])
    assert weapon is not None
    assert weapon.close is not None
    near = distance <= weapon.close
    favor = (1 if near else -1) + aims + net_advantage(shot.advantages)
    text = render(encounter, width=120)  # the panel's lines unbroken
    dexterity = shooter.aspects["Dexterity"]
    # the pool explained (issue 12): R3, never below 1d4; each Favor with its source
    assert f"roll is pending: {max(1, dexterity + favor)}d4: Dexterity {dexterity}, " in text
    assert ("+1 close range (R39)" if near else "−1 far range (R39)") in text
    assert (f"+{aims} aim (R39)" in text) == (aims > 0)
    for advantage in shot.advantages:
        assert f"{'+1' if advantage.kind == 'adv' else '−1'} {advantage.source}" in text
    assert f" vs DC {distance}; help " in text  # the odds line: the DC is the distance (R39)
    assert pending.context["favor"] == favor  # the engine agrees with the rule


def test_a_stealth_roll_shows_its_favor_sources() -> None:
    """R41: "In the observer's line of sight: 2 Disfavor. Spending double AP on the action:
    1 Favor"; an aware observer answers with an opposed Perception check (R4)."""
    encounter = Encounter.begin(load_encounter("bridge-duel-ap"), 1)
    while encounter.round == 0:
        encounter.apply(RollDice())
    actor = encounter.current()
    encounter.apply(parse_command(f"{actor}: hold +stealth +careful +adv:shadows"))
    pending = encounter.pending_roll
    assert pending is not None
    observer = encounter.creatures[int(pending.context["opposer"])]
    me = encounter.creature(actor)
    text = render(encounter, width=160)
    assert f" vs {observer.name}'s Perception (opposed, R4); help " in text
    assert (
        f"Poise {me.aspects['Poise']}, +1 careful (R41), +1 shadows, "
        f"−2 in {observer.name}'s line of sight (R41)"
    ) in text
    assert pending.context["favor"] == 1 + 1 - 2


def test_a_stealth_check_against_an_unaware_observer_shows_its_dc() -> None:
    """R41: "Poise check against the observer's Perception score"; out of its sight, no
    Disfavor."""
    encounter = Encounter.begin(load_encounter("bridge-duel-ap"), 1)
    while encounter.round == 0:
        encounter.apply(RollDice())
    me = encounter.creature(encounter.current())
    for other in encounter.creatures:
        if other.side is not me.side:
            encounter.apply(parse_command(f"gm: set {other.id} aware {me.id} off"))
            encounter.apply(parse_command(f"gm: set {other.id} sight {me.id} off"))
    encounter.apply(parse_command(f"{me.id}: hold +stealth"))
    pending = encounter.pending_roll
    assert pending is not None
    assert pending.stage == "check"
    them = encounter.creatures[int(pending.context["observer"])]
    text = render(encounter, width=160)
    dc = pending.context["dc"]
    assert dc == them.aspects["Perception"] * (2 if them.stats.get("gifted_perception") else 1)
    assert f" vs DC {dc}; help " in text  # the GM's screen: the DC is shown
    # no Favor and no Disfavor: the pool is the Poise alone
    assert re.search(rf"pending: [0-9]+d4: Poise {me.aspects['Poise']} *│", text)


def test_the_compact_action_point_table_lists_conditions_under_it() -> None:
    """At 80 columns the conditions leave the table for a line per creature (they never
    squeeze the ids); a wide screen keeps its conditions column."""
    encounter = Encounter.begin(load_encounter("warband-ap"), 1)
    who = encounter.creatures[-1].id
    encounter.apply(parse_command(f"gm: set {who} prone on"))
    assert f"{who}: prone" in render(encounter).splitlines()
    wide = render(encounter, width=250)
    assert "conditions" in wide
    (row,) = [line for line in wide.splitlines() if whole(who, line)]
    assert "prone" in row


# -- the screen renders the shared view model (issue 11) ---------------------------------------


@pytest.mark.parametrize("name", ENCOUNTERS)
def test_the_panel_shows_the_view_models_pool_and_odds(name: str) -> None:
    """Issue 11: "The terminal's caltrop play renders the same model": every pending roll of a
    play-out shows the view's pool and odds (issue 12), and who the view says is asked."""
    shown = 0
    for state in played(name, 2, 60):
        tv = table_view(state)
        if tv.pending is None:
            continue
        text = render(state, width=250)
        assert f"roll is pending: {tv.pending.pool}" in text
        if tv.pending.odds is not None:
            assert odds_text(tv.pending.odds) in text
            shown += 1
        if tv.current not in (CHANCE, TERMINAL):
            assert tv.pending.waiting_on[0] == tv.current
            assert f"({tv.current}) may react: " in text
    assert shown


def test_the_action_cells_follow_the_view_models_options() -> None:
    """Bold: a legal option of the view; green: greyed with its gate open (R11, only the
    moment is wrong); struck: its gate is shut."""
    for state in played("goblin-ambush", 3, 40):
        tv = table_view(state)
        for cv in tv.creatures:
            if cv.down:
                continue
            options = tv.options[cv.id]
            for (label, style), (name, cost) in zip(
                _action_labels(tv, cv), (cv.actions or {}).items(), strict=True
            ):
                assert label == f"{name}({cost})"
                legal = any(o.legal and o.action == name for o in options)
                open_ = any(not o.legal and o.action == name and o.gate_open for o in options)
                assert style == ("bold green" if legal else "green" if open_ else "dim strike")


def test_a_shut_gate_is_struck() -> None:
    """R11: "Aspect − Load ≥ Cost": with Load 5 Bron's Might 5 strike (cost 3) is shut."""
    encounter = Encounter.begin(load_encounter("orc-bridge"), 1)
    encounter.apply(parse_command("gm: set bron load 5"))
    tv = table_view(encounter)
    bron = next(c for c in tv.creatures if c.id == "bron")
    labels = dict(_action_labels(tv, bron))
    assert labels["strike(3)"] == "dim strike"
    strike = next(o for o in tv.options["bron"] if o.action == "strike")
    assert strike.gate_open is False
    assert strike.reason is not None
    assert "Might 5 − Load 5 = 0 < cost 3" in strike.reason


def test_odds_are_shown_compactly() -> None:
    """``hit 56%  dmg 3.2`` — percentages never round a possibility away (``>99%``)."""
    attack = {
        "kind": "attack",
        "success": 0.975,
        "exact": "39/40",
        "expected_damage": 7.0146,
        "against": "Evasion 10",
        "with_help": 0.9963,
        "with_hinder": 0.8887,
    }
    assert odds_text(attack) == "hit 98%  dmg 7.0 vs Evasion 10; help >99%, hinder 89%"
    check = {
        "kind": "check",
        "success": 1.0,
        "exact": "1",
        "expected_damage": None,
        "against": None,
        "with_help": None,
        "with_hinder": None,
    }
    assert odds_text(check) == "success 100%"


def test_a_defence_choice_reads_as_the_defenders_odds() -> None:
    """Issue 22 item 2 (R40): a defence's odds are the chance of taking no damage and the
    damage taken, not "hit"; Take Cover names the Block it assumes follows."""
    from caltrop.table import view
    from tests.table.test_defence_odds import windows

    enc, defender, _ = next(w for w in windows() if w[0].pending_roll.context["incoming"] == 6)
    options = {o.action: o.odds for o in view(enc, defender).options[defender] if o.legal}
    assert options["block"] is not None
    assert odds_text(options["block"]) == "unhurt 94%  taken 0.1; +1 assist die >99%"
    assert options["cover"] is not None
    assert odds_text(options["cover"]) == (
        "then block: unhurt 100%  taken 0.0; +1 assist die 100%; "
        "then dodge: unhurt 94%  taken 0.4; +1 assist die 100%"
    )
    assert options["pass"] is not None
    assert odds_text(options["pass"]) == "unhurt 0%  taken 5.0"


def test_a_defence_not_yet_chosen_says_roll_goes_on_with_no_dice() -> None:
    """R40: until the defender chooses, the defence has no dice ("0: no defence chosen"); the
    terminal says 'roll' goes on as it stands, not that it rolls. Once Block is chosen, the
    defence has dice and 'roll' rolls them."""
    from tests.table.test_odds import ap_defence_stage

    enc, foe = ap_defence_stage()
    text = render(enc, width=120)
    assert "(or type 'roll' to go on: no dice)" in text
    assert "to roll now" not in text
    enc.apply(parse_command(f"{foe}: block"))
    text = render(enc, width=120)
    assert "no dice" not in text
