"""The GM's controls (R48), both modules: each one changes the state as the ruling says, is
logged, undone and replayed like every command, round-trips its text, and is refused with a
clear reason (changing nothing) when it cannot apply.

R48: "At a table the GM adjusts what the rules do not track, in both modules, as logged and
undoable commands: damage or heal a creature (Health stays within 0…max; 0 is down, healing
above 0 brings it back up), set Exhaustion, Load Buffer or Load, set AP/RP/Stamina, add a
participant mid-encounter (it joins the turn order where the GM says, or by its initiative
roll), remove one, reorder the turn order, and set any condition or fact. Players cannot issue
them."

Tests of ``encounter/gm.py`` (tests/test_layout.py).
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from caltrop.core.commands import (
    GM_COMMANDS,
    AddCreature,
    ChangeHealth,
    Command,
    PassAll,
    Reorder,
    SetStat,
    command_actor,
    parse_command,
)
from caltrop.core.model import Initiative, Side
from caltrop.encounter import CHANCE, Encounter
from caltrop.errors import IllegalActionError, InvalidActionError
from tests.encounter import points_builders as pb
from tests.encounter.builders import (
    HELP,
    HINDER,
    STRIKE,
    creature,
    definition,
    health,
    load,
    npc,
    replayed,
    run,
)


def _party() -> Encounter:
    """Aria and Bron against two goblins, the GM's order; a spare goblin in reserve."""
    aria = creature("aria", finesse=5, health=10, evasion=8, actions=(STRIKE, HELP))
    bron = creature("bron", finesse=4, health=12, evasion=8, actions=(STRIKE, HELP))
    g1 = npc("goblin-1", name="Goblin 1", finesse=4, health=6, evasion=7, actions=(STRIKE, HINDER))
    g2 = npc("goblin-2", name="Goblin 2", finesse=4, health=6, evasion=7, actions=(STRIKE, HINDER))
    spare = npc("goblin", name="Goblin", finesse=4, health=6, evasion=7, actions=(STRIKE, HINDER))
    d = replace(definition(aria, g1, bron, g2, name="party"), reserves=(spare,))
    return Encounter.begin(d, seed=5)


def _refused(enc: Encounter, line: str, error: type[Exception], match: str) -> None:
    """The command is refused with the reason, and nothing changed: state and log."""
    before, log = enc.to_json(), enc.log_lines()
    with pytest.raises(error, match=match):
        enc.apply(parse_command(line))
    assert enc.to_json() == before
    assert enc.log_lines() == log


def _same_after_replay_and_undo(enc: Encounter, line: str) -> None:
    """The command is logged: replaying the log gives the same state; undo takes it back."""
    before = enc.to_json()
    enc.apply(parse_command(line))
    after = enc.to_json()
    assert replayed(enc).to_json() == after
    enc.undo()
    assert enc.to_json() == before


GM_LINES = [
    "gm: damage goblin-1 3",
    "gm: heal bron 5",
    "gm: set bron load 2",
    "gm: set bron exhaustion 1",
    "gm: set bron buffer 2",
    "gm: set kestrel ap 4",
    "gm: set kestrel rp 1",
    "gm: set kestrel stamina 0",
    "gm: set aria prone on",
    "gm: set aria poisoned off",
    "gm: add goblin",
    "gm: add goblin as goblin-4",
    "gm: add goblin as goblin-4 after goblin-3",
    "gm: add monsters/troll.yaml by initiative",
    "gm: remove goblin-2",
    "gm: order aria,goblin-1,bron",
    "gm: pass all",
]


@pytest.mark.parametrize("line", GM_LINES)
def test_gm_commands_round_trip_their_text(line: str) -> None:
    """The shared notation: ``str(parse_command(t)) == t`` and ``parse(str(c)) == c``; they are
    the GM's, not any creature's (R48: "Players cannot issue them")."""
    command = parse_command(line)
    assert isinstance(command, GM_COMMANDS)
    assert str(command) == line
    assert parse_command(str(command)) == command
    assert command_actor(command) == "gm"


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ("gm: heal bron 0", "heal needs a positive number"),
        ("gm: damage bron -2", "damage needs a positive number"),
        ("gm: heal bron", "'gm: heal CREATURE N'"),
        ("gm: damage bron lots", "must be a whole number"),
        ("gm: set bron load", "gm: set"),
        ("gm: set bron load x", "must be a whole number"),
        ("gm: add", "gm: add CREATURE"),
        ("gm: add goblin after", "gm: add CREATURE"),
        ("gm: add goblin after aria by initiative", "gm: add CREATURE"),
        ("gm: remove", "gm: remove CREATURE"),
        ("gm: order", "every creature, once each"),
        ("gm: dance", "the GM's commands are"),
    ],
)
def test_malformed_gm_commands_say_what_is_wrong(line: str, match: str) -> None:
    with pytest.raises(InvalidActionError, match=match):
        parse_command(line)


def test_a_player_cannot_issue_a_gm_command() -> None:
    """R48: "Players cannot issue them": written as a creature's, it is that creature's action,
    which it does not have."""
    enc = _party()
    _refused(enc, "aria: damage goblin-1 3", InvalidActionError, "has no action 'damage'")


# -- Health -------------------------------------------------------------------------------------


def test_damage_and_heal_keep_health_within_zero_and_max() -> None:
    """R48: "Health stays within 0…max; 0 is down"."""
    enc = _party()
    run(enc, "gm: damage bron 5")
    assert health(enc, "bron") == 7
    run(enc, "gm: heal bron 50")
    assert health(enc, "bron") == 12  # not above max
    _refused(enc, "gm: heal bron 1", IllegalActionError, r"Health is full \(12/12\)")
    run(enc, "gm: damage goblin-1 99")
    assert health(enc, "goblin-1") == 0
    assert enc.down[enc.index("goblin-1")]
    _refused(enc, "gm: damage goblin-1 1", IllegalActionError, "already down")
    _same_after_replay_and_undo(enc, "gm: heal goblin-1 2")


def test_healing_a_downed_creature_brings_it_back_into_the_turn_order() -> None:
    """R48: "healing above 0 brings it back up": it is standing and takes its next turn."""
    enc = _party()  # order: aria, goblin-1, bron, goblin-2
    run(enc, "gm: damage goblin-1 6")
    run(enc, "aria: end turn")
    assert enc.turn_owner == "bron"  # the downed goblin is skipped
    run(enc, "gm: heal goblin-1 3", "bron: end turn", "goblin-2: end turn", "aria: end turn")
    assert enc.turn_owner == "goblin-1"
    assert health(enc, "goblin-1") == 3


def test_damage_that_downs_the_last_of_a_side_ends_the_encounter() -> None:
    enc = _party()
    run(enc, "gm: damage goblin-1 6", "gm: damage goblin-2 6")
    assert enc.over
    assert enc.winner is Side.PC
    assert enc.current() == "terminal"


def test_damage_to_a_roller_drops_its_pending_roll() -> None:
    """R16 as the engine plays it: a creature that goes down loses its pending rolls."""
    enc = _party()
    run(enc, "aria: strike goblin-1")
    assert enc.pending
    run(enc, "gm: damage aria 10")
    assert not enc.pending
    assert enc.turn_owner == "goblin-1"  # the downed owner's turn ended


# -- stats --------------------------------------------------------------------------------------


def test_the_gm_sets_load_now_and_exhaustion_and_buffer_at_the_next_reset() -> None:
    """R48 ("set Exhaustion, Load Buffer or Load") with R10: "Load := Exhaustion − Load Buffer"
    at the start of the creature's own turn: Load changes now; Exhaustion and Buffer at the
    next reset."""
    enc = _party()
    run(enc, "gm: set aria load 3")
    assert load(enc, "aria") == 3
    run(enc, "gm: set bron exhaustion 2", "gm: set bron buffer 1")
    assert load(enc, "bron") == 0  # not yet
    run(enc, "aria: end turn", "goblin-1: end turn")
    assert enc.turn_owner == "bron"
    assert load(enc, "bron") == 1  # 2 − 1
    assert enc.creature("bron").exhaustion == 2
    _same_after_replay_and_undo(enc, "gm: set bron exhaustion 0")


def test_stat_refusals_name_the_module_and_the_bounds() -> None:
    enc = _party()
    _refused(enc, "gm: set aria ap 3", IllegalActionError, "ap is an Action Point stat")
    _refused(enc, "gm: set aria load 101", IllegalActionError, "from -100 to 100")
    _refused(enc, "gm: set aria buffer -1", IllegalActionError, "from 0 to 100")
    _refused(enc, "gm: set nobody load 1", InvalidActionError, r"no creature 'nobody' \(known:")


def test_the_gm_sets_points_and_stamina_in_the_action_point_module() -> None:
    """R48: "set AP/RP/Stamina"; Stamina within 0…max (R37 "can never go below 0")."""
    enc = pb.begin(pb.ap_creature("kestrel"), pb.ap_npc("brakka", at=(1, 0)))
    run(enc, "gm: set kestrel ap 2", "gm: set brakka rp 5", "gm: set kestrel stamina 1")
    assert (pb.st(enc, "kestrel").ap, pb.st(enc, "brakka").rp) == (2, 5)
    assert pb.st(enc, "kestrel").stamina == 1
    _refused(enc, "gm: set kestrel stamina 99", IllegalActionError, "from 0 to")
    _refused(enc, "gm: set kestrel load 1", IllegalActionError, "load is an Action Load stat")
    _same_after_replay_and_undo(enc, "gm: set kestrel rp 0")


# -- conditions ---------------------------------------------------------------------------------


def test_conditions_work_in_the_action_load_module_too() -> None:
    """R48: "set any condition or fact", in both modules: prone, and any condition the ruleset
    names; it shows in the state and replays."""
    base = _party()
    d = replace(
        base.definition,
        ruleset=replace(base.definition.ruleset, conditions=("poisoned",)),
    )
    enc = Encounter.begin(d, seed=1)
    run(enc, "gm: set aria prone on", "gm: set aria poisoned on")
    aria = enc.snapshot()["participants"][0]
    assert aria["conditions"] == ["prone", "poisoned"]
    _refused(enc, "gm: set aria prone on", IllegalActionError, "already prone")
    _refused(enc, "gm: set aria blessed on", IllegalActionError, "no condition 'blessed'")
    _same_after_replay_and_undo(enc, "gm: set aria poisoned off")


def test_prone_is_the_action_point_modules_own_fact() -> None:
    """R44: prone has its rule there (Stand Up costs 1 AP); the GM sets it."""
    enc = pb.begin(pb.ap_creature("kestrel"), pb.ap_npc("brakka", at=(5, 0)))
    run(enc, "gm: set kestrel prone on")
    assert pb.st(enc, "kestrel").prone
    run(enc, "kestrel: stand")
    assert not pb.st(enc, "kestrel").prone


# -- the turn order -----------------------------------------------------------------------------


def test_reorder_keeps_the_turn_owners_turn() -> None:
    """R48: "reorder the turn order"; the creature whose turn it is keeps it."""
    enc = _party()  # aria, goblin-1, bron, goblin-2
    run(enc, "aria: end turn")
    run(enc, "gm: order bron,goblin-2,goblin-1,aria")
    assert enc.turn_owner == "goblin-1"
    run(enc, "goblin-1: end turn")
    assert enc.turn_owner == "aria"
    run(enc, "aria: end turn")
    assert (enc.round, enc.turn_owner) == (2, "bron")
    _same_after_replay_and_undo(enc, "gm: order aria,bron,goblin-1,goblin-2")


def test_a_reorder_names_every_creature_once() -> None:
    enc = _party()
    _refused(enc, "gm: order aria,bron", InvalidActionError, "missing: goblin-1, goblin-2")
    _refused(
        enc, "gm: order aria,aria,bron,goblin-1,goblin-2", InvalidActionError, "more than once"
    )


def test_removed_creatures_leave_the_order_and_the_encounter_may_end() -> None:
    """R48: "remove one": gone, not down; if it is its turn, the turn passes on; its pending
    rolls are dropped; a side with nobody left loses."""
    enc = _party()
    run(enc, "aria: strike goblin-1")
    run(enc, "gm: remove aria")
    assert not enc.pending
    assert enc.turn_owner == "goblin-1"
    assert "aria" not in enc.snapshot()["order"]
    assert enc.snapshot()["participants"][0]["removed"] is True
    _refused(enc, "gm: heal aria 1", IllegalActionError, "has left the encounter")
    _same_after_replay_and_undo(enc, "gm: remove goblin-2")
    run(enc, "gm: remove goblin-1", "gm: remove goblin-2")
    assert enc.over
    assert enc.winner is Side.PC


# -- reinforcements -----------------------------------------------------------------------------


def test_reinforcements_join_where_the_gm_says() -> None:
    """R48: "add a participant mid-encounter (it joins the turn order where the GM says …)":
    a creature of the reserves, under a free id (goblin-3 after goblin-1, goblin-2), last by
    default or right after the one named."""
    enc = _party()
    run(enc, "gm: add goblin")
    assert enc.snapshot()["order"][-1] == "goblin-3"
    assert enc.creature("goblin-3").name == "Goblin 3"
    run(enc, "gm: add goblin as scout after aria")
    assert enc.snapshot()["order"] == ["aria", "scout", "goblin-1", "bron", "goblin-2", "goblin-3"]
    assert enc.turn_owner == "aria"
    run(enc, "aria: end turn")
    assert enc.turn_owner == "scout"
    assert load(enc, "scout") == 0  # R10: as at the start of an encounter
    _refused(enc, "gm: add goblin as aria", IllegalActionError, "already a creature 'aria'")
    _refused(enc, "gm: add troll", InvalidActionError, r"no creature 'troll' to add .*goblin")
    _refused(enc, "gm: add goblin by initiative", IllegalActionError, "the GM's \\(R21\\)")
    run(enc, "gm: add goblin as goblin-7")
    assert enc.creature("goblin-7").name == "Goblin 7"  # numbered like the bundled goblins


def test_a_reinforcement_from_a_file_lives_in_the_log() -> None:
    """The log keeps the added creature's whole definition, so it replays with no file."""
    enc = _party()
    troll = npc("troll", name="Troll", finesse=6, health=20, evasion=9, actions=(STRIKE,))
    enc.apply(AddCreature("monsters/troll.yaml", after="bron", creature=troll))
    event = json.loads(enc.log_lines()[-1])
    assert event["command"] == "gm: add monsters/troll.yaml after bron"
    assert event["creature"]["id"] == "troll"
    again = Encounter.replay(enc.initial, [json.loads(x) for x in enc.log_lines()])
    assert again.to_json() == enc.to_json()
    assert again.creature("troll").health == 20
    enc.undo()
    assert "troll" not in enc.snapshot()["order"]


def test_a_reinforcement_by_initiative_rolls_and_takes_its_place() -> None:
    """R48 "… or by its initiative roll" with R30: the total decides its place (a PC wins ties)."""
    enc = pb.begin(
        pb.ap_creature("kestrel"), pb.ap_npc("brakka", at=(5, 0)), initiative=Initiative.CHECK
    )
    while enc.round == 0:
        enc.apply(parse_command("roll 1,1,1"))
    wolf = pb.ap_npc("wolf", at=(9, 0))
    enc.apply(AddCreature("wolf", by_initiative=True, creature=wolf))
    assert enc.current() == CHANCE
    assert enc.pending_roll is not None
    assert enc.pending_roll.kind.value == "initiative"
    enc.apply(parse_command("roll 4,4,4"))  # 12 beats the others' 3
    assert enc.snapshot()["order"][0] == "wolf"
    assert enc.turn_owner in ("kestrel", "brakka")  # the owner kept its turn
    assert replayed(enc).to_json() == enc.to_json()


def test_an_action_point_reinforcement_starts_with_its_rp() -> None:
    """R31: RP on others' turns; 6 AP when its own turn comes."""
    enc = pb.begin(pb.ap_creature("kestrel"), pb.ap_npc("brakka", at=(5, 0)))
    enc.apply(AddCreature("wolf", creature=pb.ap_npc("wolf", at=(9, 0))))
    assert pb.st(enc, "wolf").rp == 2
    run(enc, "kestrel: end turn", "brakka: end turn")
    assert enc.turn_owner == "wolf"
    assert pb.st(enc, "wolf").ap == 6


# -- the reaction window ------------------------------------------------------------------------


def test_pass_all_closes_the_window_for_everyone_still_to_answer() -> None:
    """``gm: pass all``: everyone still to be asked passes; the roll is the GM's to roll."""
    enc = _party()
    run(enc, "aria: strike goblin-1")
    assert enc.current() != CHANCE
    assert PassAll() in enc.legal_actions("gm")
    _same_after_replay_and_undo(enc, "gm: pass all")
    run(enc, "gm: pass all")
    assert enc.current() == CHANCE
    _refused(enc, "gm: pass all", IllegalActionError, "nobody is left to answer")
    run(enc, "roll")
    _refused(enc, "gm: pass all", IllegalActionError, "no roll is pending")


def test_gm_commands_are_refused_once_the_encounter_is_over() -> None:
    enc = _party()
    run(enc, "gm: end encounter")
    for line in ("gm: heal bron 1", "gm: add goblin", "gm: order aria,bron,goblin-1,goblin-2"):
        _refused(enc, line, IllegalActionError, "the encounter is over")


def test_every_gm_command_applied_in_play_replays_from_its_log() -> None:
    """A night's worth of adjustments in one log: replay gives the same state at the end."""
    enc = _party()
    lines = [
        "gm: damage goblin-1 2",
        "aria: strike goblin-1",
        "gm: pass all",
        "roll",
        "gm: add goblin after bron",
        "gm: set aria load 1",
        "gm: order goblin-3,aria,goblin-1,bron,goblin-2",
        "gm: set bron prone on",
        "aria: end turn",
        "gm: heal goblin-1 1",
        "gm: remove goblin-2",
    ]
    commands: list[Command] = []
    for line in lines:
        command = parse_command(line)
        enc.apply(command)
        commands.append(command)
    assert list(enc.commands) == commands
    assert replayed(enc).to_json() == enc.to_json()
    assert isinstance(commands[0], ChangeHealth)
    assert isinstance(commands[5], SetStat)
    assert isinstance(commands[6], Reorder)
