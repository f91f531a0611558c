"""The bundled example content: every file loads, is marked as an example, and the two example
encounters can be played to the end by the engine."""

from __future__ import annotations

from importlib.resources.abc import Traversable

import pytest

from caltrop.content import (
    bundled_encounters,
    bundled_rulesets,
    check_file,
    default_encounter_path,
    encounter_from_dict,
    encounter_policies,
    encounter_to_dict,
    examples_root,
    load_actions,
    load_creature,
    load_document,
    load_encounter,
    load_ruleset,
    load_weapons,
)
from caltrop.core.model import ActionKind, Initiative, LoadReset, Side
from caltrop.core.pool import Revision
from caltrop.dice import parse

HEADER = "# Example content, not official rules."


def _walk(folder: Traversable, prefix: str = "") -> list[tuple[str, Traversable]]:
    found: list[tuple[str, Traversable]] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.is_dir():
            found += _walk(entry, f"{prefix}{entry.name}/")
        elif entry.name.endswith(".yaml"):
            found.append((prefix + entry.name, entry))
    return found


EXAMPLE_FILES = _walk(examples_root())


def test_examples_are_found() -> None:
    names = {name for name, _ in EXAMPLE_FILES}
    assert {
        "actions.yaml",
        "weapons.yaml",
        "rulesets/current.yaml",
        "rulesets/legacy.yaml",
        "rulesets/round-reset.yaml",
        "encounters/goblin-ambush.yaml",
        "encounters/orc-bridge.yaml",
        "rulesets/action-points.yaml",
        "action-points/weapons.yaml",
        "encounters/bridge-duel-ap.yaml",
        "encounters/warband-ap.yaml",
    } <= names
    assert len([n for n in names if n.startswith("party/")]) == 4
    assert len([n for n in names if n.startswith("monsters/")]) >= 4


@pytest.mark.parametrize(("name", "entry"), EXAMPLE_FILES, ids=[n for n, _ in EXAMPLE_FILES])
def test_every_example_file_loads_and_is_marked(name: str, entry: Traversable) -> None:
    text = entry.read_text(encoding="utf-8")
    assert text.startswith(HEADER), f"{name} must start with {HEADER!r}"
    document = check_file(entry)
    assert document.example is True
    assert load_document(entry) == document


def test_bundled_rulesets() -> None:
    assert list(bundled_rulesets()) == ["action-points", "current", "legacy", "round-reset"]
    current = load_ruleset("current")
    assert (current.name, current.revision, current.load_reset, current.initiative) == (
        "current",
        Revision.CURRENT,
        LoadReset.TURN,
        Initiative.GM,
    )
    assert current.gm_roll_counts_load is False  # R17 default
    assert load_ruleset("legacy").revision is Revision.LEGACY  # R20
    assert load_ruleset("round-reset").load_reset is LoadReset.ROUND  # R19
    assert load_ruleset() == current


def test_library_files() -> None:
    weapons = {w.name: str(w.dice) for w in load_weapons(examples_root() / "weapons.yaml")}
    assert weapons["dagger"] == "1d4"
    assert weapons["sword"] == "1d8"
    actions = {a.name: a for a in load_actions(examples_root() / "actions.yaml")}
    help_, hinder = actions["help"], actions["hinder"]
    assert help_.kind is ActionKind.TEAM
    assert help_.reaction
    assert help_.grant is not None
    assert (help_.grant.kind, help_.grant.to) == ("adv", "ally")
    assert hinder.grant is not None
    assert (hinder.grant.kind, hinder.grant.to) == ("dis", "enemy")
    watch = actions["watch-my-back"]
    assert watch.kind is ActionKind.EFFECT
    assert not watch.reaction
    assert watch.source_key == "watch-my-back"
    assert actions["pick-lock"].dc == 12
    assert actions["strike"].uses_weapon
    assert actions["strike"].aspect == "Finesse"


def test_aria_is_the_seed_example_character() -> None:
    aria = load_creature(examples_root() / "party" / "aria.yaml")
    assert aria.side is Side.PC
    assert aria.aspects == {"Finesse": 6, "Control": 3, "Might": 2, "Insight": 3}
    assert aria.load_buffer == 1
    assert aria.max_health == aria.health
    dagger = aria.weapon("dagger")
    assert dagger is not None
    assert dagger.dice == parse("1d4")


def test_override_changes_the_aspect() -> None:
    bron = load_creature(examples_root() / "party" / "bron.yaml")
    strike = bron.action("strike")
    assert strike is not None
    assert strike.aspect == "Might"
    assert strike.uses_weapon
    orc = load_creature(examples_root() / "monsters" / "orc-brute.yaml")
    cleave = orc.action("cleave")
    assert cleave is not None
    assert cleave.aspect == "Might"
    assert cleave.description == "A great two-handed swing."


def test_goblin_ambush_is_four_versus_four() -> None:
    encounter = load_encounter(default_encounter_path())
    assert encounter.name == "Goblin Ambush"
    sides = [c.side for c in encounter.participants]
    assert sides.count(Side.PC) == 4
    assert sides.count(Side.NPC) == 4
    ids = [c.id for c in encounter.participants]
    assert {"goblin-1", "goblin-2", "aria", "bron", "cass", "dain"} <= set(ids)
    assert load_encounter("goblin-ambush") == encounter
    assert encounter_policies("goblin-ambush") == {"pc": "greedy", "npc": "greedy"}


def test_orc_bridge() -> None:
    encounter = load_encounter(bundled_encounters()["orc-bridge"])
    assert encounter.ruleset.name == "current"
    assert [c.side for c in encounter.participants].count(Side.NPC) == 2


@pytest.mark.parametrize("name", ["goblin-ambush", "orc-bridge"])
def test_example_encounters_round_trip(name: str) -> None:
    encounter = load_encounter(name)
    assert encounter_from_dict(encounter_to_dict(encounter)) == encounter


def _greedy_play(name: str, seed: int) -> tuple[str, int]:
    """Play an encounter with a simple policy: the first legal attack, else end the turn;
    pass on reactions. Returns the winner and the number of rounds."""
    from caltrop.encounter import CHANCE, TERMINAL, Act, Encounter, EndTurn, Pass, RollDice

    encounter = Encounter.begin(load_encounter(name), seed, record=False)
    while encounter.current() != TERMINAL:
        who = encounter.current()
        if who == CHANCE:
            encounter.apply(RollDice())
            continue
        if encounter.pending_roll is not None:
            encounter.apply(Pass(who))
            continue
        creature = encounter.creature(who)
        attack = next(
            (
                c
                for c in encounter.legal_actions(who)
                if isinstance(c, Act)
                and (a := creature.action(c.action)) is not None
                and a.kind is ActionKind.ATTACK
            ),
            None,
        )
        encounter.apply(attack if attack is not None else EndTurn(who))
        assert encounter.round < 40, "the example fight should end in a handful of rounds"
    assert encounter.winner is not None
    return str(encounter.winner), encounter.round


@pytest.mark.parametrize("name", ["goblin-ambush", "orc-bridge"])
def test_example_encounters_play_to_the_end(name: str) -> None:
    results = [_greedy_play(name, seed) for seed in range(12)]
    assert all(rounds <= 15 for _, rounds in results)
