"""Issue 21 item 4: content that validates never meets a roll past the dice limits in play.

"A creature with Finesse 6 and a weapon ``1000d4`` passes ``caltrop validate``, then ``caltrop
play`` fails with ``DiceLimitError: 6d4+1000d4: 1006 dice``. Done means validation checks each
action's largest pool together with its weapon dice against the dice limits." The rule
(:mod:`caltrop.economy.pools`) is written once and runs wherever content comes in:

* a creature file on its own (``caltrop validate creature.yaml``: the issue's very case);
* an encounter file of either module — the Action Point module's rolls too: R40 "Block: roll
  block_rating d4s", one more for each assist, and R38's melee attack with several weapons "as
  one" (its dice summed);
* the definition a save log carries (a log is uploaded by anyone);
* a creature joining mid-encounter (R48 ``gm: add``), which may bring a Load of −100 (legacy
  R20: "Aspect − Load", a negative Load adds dice) or a new source of advantage (R14: "each
  source counts once; different sources stack") that enlarges everyone's pools.

The last test is the class's generator for the CI fuzzers: content with extreme numbers is
refused, or plays with no roll and no offered action past the limits.
"""

from __future__ import annotations

import copy
import re
import shutil
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from caltrop.cli import app
from caltrop.content import (
    check_file,
    examples_root,
    load_creature,
    load_encounter,
    load_encounter_text,
)
from caltrop.content.serialize import encounter_from_dict, encounter_to_dict
from caltrop.core.commands import MAX_ADVANTAGES, Act, AddCreature, parse_command
from caltrop.core.model import EncounterDef
from caltrop.core.pool import Advantage
from caltrop.encounter import CHANCE, TERMINAL, Encounter
from caltrop.errors import ContentError, InvalidActionError
from caltrop.table.view import view
from tests.fuzzing import fuzz

EXAMPLES = Path(str(examples_root()))

GIANT = """\
kind: creature
include: [caltrop:actions]
id: giant
name: Giant
side: npc
aspects: {{Finesse: 6, Control: 2, Insight: 2}}
health: 12
evasion: 8
weapons: [{{name: huge, dice: {dice}}}]
actions: [{actions}]
"""


def _file(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# -- a creature file on its own -------------------------------------------------------------------


def test_the_issues_creature_file_is_refused_by_validate(tmp_path: Path) -> None:
    """Finesse 6 + the 20 advantages any command may name + its weapon's 1000d4: past 1,000 dice
    in every encounter, so the file is refused on its own, with the arithmetic."""
    from typer.testing import CliRunner

    path = _file(tmp_path, "giant.yaml", GIANT.format(dice="1000d4", actions="strike"))
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert "action 'strike' with huge could roll 26d4+1000d4" in result.output
    assert f"Finesse 6 + {MAX_ADVANTAGES} advantages a command may name" in result.output
    assert "1026 dice; at most 1000 per expression" in result.output
    # the largest weapon that fits any encounter passes: 6 + 20 + 974 = 1,000 dice
    check_file(_file(tmp_path, "ok.yaml", GIANT.format(dice="974d4", actions="strike")))
    with pytest.raises(ContentError, match="past the dice limits"):
        check_file(_file(tmp_path, "no.yaml", GIANT.format(dice="975d4", actions="strike")))


# -- the Action Point module ---------------------------------------------------------------------


def _points_examples(tmp_path: Path, edit: dict[str, tuple[str, str]]) -> Path:
    """A copy of the bundled examples with ``edit`` (file → (pattern, replacement)) applied;
    the path of its bridge-duel-ap encounter."""
    root = tmp_path / "examples"
    shutil.copytree(EXAMPLES, root)
    for name, (pattern, replacement) in edit.items():
        path = root / name
        text, n = re.subn(pattern, replacement, path.read_text(encoding="utf-8"))
        assert n, f"{pattern!r} not in {name}"
        path.write_text(text, encoding="utf-8")
    return root / "encounters" / "bridge-duel-ap.yaml"


def test_a_block_rating_past_the_limits_with_its_assists_is_refused(tmp_path: Path) -> None:
    """R40: a Block rolls block_rating d4s (one more per assist, at most 199 others): 5,000
    validated and every Block then stopped the table ("5000d4 cannot be rolled")."""
    path = _points_examples(
        tmp_path, {"action-points/party/torvald.yaml": (r"block_rating: \d+", "block_rating: 5000")}
    )
    with pytest.raises(ContentError) as caught:
        check_file(path)
    assert "torvald: a block could roll 5199d4 (block_rating 5000 + 199 assists (R40))" in str(
        caught.value
    )
    fits = _points_examples(
        tmp_path / "b",
        {"action-points/party/torvald.yaml": (r"block_rating: \d+", "block_rating: 801")},
    )
    check_file(fits)  # 801 + 199 = 1,000 dice


def test_melee_weapons_past_the_limits_together_are_refused(tmp_path: Path) -> None:
    """R38: a melee attack with several weapons rolls their damage dice as one: a longsword of
    600d8 and a dagger of 600d6 are each within the limits, together 1,200 dice."""
    path = _points_examples(
        tmp_path,
        {
            "action-points/weapons.yaml": (
                r"\{name: longsword, dice: 2d8",
                "{name: longsword, dice: 600d8",
            )
        },
    )
    text = path.parent.parent / "action-points" / "weapons.yaml"
    text.write_text(
        text.read_text(encoding="utf-8").replace(
            "{name: dagger, dice: 1d6", "{name: dagger, dice: 600d6"
        ),
        encoding="utf-8",
    )
    with pytest.raises(ContentError) as caught:
        check_file(path)
    assert "torvald: a melee attack with longsword+dagger could roll" in str(caught.value)
    assert "1200 dice; at most 1000" in str(caught.value)


# -- a save log's definition ---------------------------------------------------------------------


def test_a_saved_definition_is_checked_as_an_encounter_file_is() -> None:
    data = encounter_to_dict(load_encounter("orc-bridge"))
    bron = data["participants"][0]
    bron["weapons"] = [{"name": "huge", "dice": "1000d4", "kind": "melee"}]
    with pytest.raises(ContentError, match=r"bron: action 'strike' with huge could roll"):
        encounter_from_dict(data)


# -- gm: add --------------------------------------------------------------------------------------

LEGACY = """
kind: encounter
name: Legacy Bridge
ruleset: legacy
include: [caltrop:actions]
participants:
  - id: hero
    name: Hero
    side: pc
    aspects: {Finesse: 4, Control: 2, Insight: 2}
    health: 12
    evasion: 8
    weapons: [{name: club, dice: 1d6}]
    actions: [strike, help]
  - id: brigand
    name: Brigand
    side: npc
    aspects: {Finesse: 4, Control: 2, Insight: 2}
    health: 14
    evasion: 7
    weapons: [{name: club, dice: 1d6}]
    actions: [strike, hinder]
"""


def _refused_unchanged(enc: Encounter, command: AddCreature) -> str:
    before, log = enc.to_json(), enc.log_lines()
    with pytest.raises(InvalidActionError) as caught:
        enc.apply(command)
    assert enc.to_json() == before
    assert enc.log_lines() == log
    return str(caught.value)


def test_a_newcomer_past_the_limits_in_this_encounter_is_refused(tmp_path: Path) -> None:
    """Legacy R20: Aspect − Load, and the GM may set a Load of −100 (R48): 6 + 20 + 1 (help) +
    100 + 900 = 1,027 dice. The creature file alone is within them (6 + 20 + 900)."""
    giant = load_creature(
        _file(tmp_path, "giant.yaml", GIANT.format(dice="900d4", actions="strike"))
    )
    enc = Encounter.begin(load_encounter_text(LEGACY), seed=1)
    message = _refused_unchanged(enc, AddCreature("giant", creature=giant))
    assert message.startswith("Giant cannot join: giant: action 'strike' with huge could roll")
    assert "+ 100 from a Load of -100 (legacy, R20, R48)" in message
    assert "1027 dice" in message
    # the largest that fits joins, and its largest roll is then made
    fits = load_creature(_file(tmp_path, "fits.yaml", GIANT.format(dice="873d4", actions="strike")))
    enc.apply(AddCreature("giant", creature=fits))
    assert enc.creatures[-1].id == "giant"


def test_a_newcomer_with_a_new_source_of_advantage_is_checked_against_everyone(
    tmp_path: Path,
) -> None:
    """R14: a new source of advantage stacks on every roll it may help: the hero's pool is at
    the limit (4 + 20 + 1 help + 975 = 1,000 dice), so a newcomer bringing ``rally`` (an effect
    granting advantage to an ally) would put the hero's strike one die past it."""
    text = LEGACY.replace("ruleset: legacy", "ruleset: current").replace(
        "weapons: [{name: club, dice: 1d6}]\n    actions: [strike, help]",
        "weapons: [{name: maul, dice: 975d4}]\n    actions: [strike, help]",
    )
    enc = Encounter.begin(load_encounter_text(text), seed=1)
    ally = GIANT.format(dice="1d4", actions="strike, rally").replace("side: npc", "side: pc")
    rallier = load_creature(_file(tmp_path, "rallier.yaml", ally))
    message = _refused_unchanged(enc, AddCreature("giant", creature=rallier))
    assert "Giant cannot join: hero: action 'strike' with maul could roll" in message
    assert "+ 2 granted by the encounter's team actions and effects" in message
    helper = load_creature(
        _file(tmp_path, "helper.yaml", ally.replace("strike, rally", "strike, help"))
    )
    enc.apply(AddCreature("giant", creature=helper))  # help is a source the table had


# -- the class's generator -----------------------------------------------------------------------


@cache
def _bundled(name: str) -> dict[str, Any]:
    return encounter_to_dict(load_encounter(name))


_ENCOUNTERS = ["orc-bridge", "duel", "goblin-ambush", "bridge-duel-ap", "warband-ap"]


@st.composite
def _extreme(draw: st.DrawFn) -> dict[str, Any]:
    """A bundled definition with one creature's numbers pushed toward the dice limits: an
    Aspect to 100, a weapon's dice to hundreds, a Block or Dodge rating to hundreds."""
    data = copy.deepcopy(_bundled(draw(st.sampled_from(_ENCOUNTERS), label="encounter")))
    if draw(st.booleans(), label="legacy"):
        data["ruleset"]["revision"] = "legacy"
    for _ in range(draw(st.integers(1, 3), label="edits")):
        c = draw(st.sampled_from(data["participants"]), label="creature")
        what = draw(st.sampled_from(["aspect", "weapon", "rating"]), label="what")
        if what == "aspect" and c["aspects"]:
            aspect = draw(st.sampled_from(sorted(c["aspects"])), label="aspect")
            c["aspects"][aspect] = draw(st.integers(0, 100), label="value")
        elif what == "weapon" and c["weapons"]:
            w = draw(st.sampled_from(c["weapons"]), label="weapon")
            count = draw(st.one_of(st.integers(1, 1000), st.integers(850, 1000)), label="n")
            sides = draw(st.integers(1, 12), label="sides")
            w["dice"] = f"{count}d{sides}"
        elif what == "rating":
            mode = draw(st.sampled_from(["block_rating", "dodge_rating"]), label="mode")
            rating = st.one_of(st.integers(0, 1200), st.integers(750, 850))
            c["stats"][mode] = draw(rating, label="rating")
    return data


def _hostile_step(enc: Encounter, data: st.DataObject) -> None:
    """One decision, made as large as the rules allow: an Action Load act names the most
    advantages a command may (R14), and the GM may set the actor's Load to −100 (R48) first."""
    command = data.draw(st.sampled_from(list(enc.legal_actions())), label="step")
    if isinstance(command, Act) and enc.definition.ruleset.economy.value == "action_load":
        if data.draw(st.booleans(), label="low load"):
            enc.apply(parse_command(f"gm: set {command.actor} load -100"))
        most = tuple(Advantage("adv", f"fuzz-{k}") for k in range(MAX_ADVANTAGES))
        larger = replace(command, advantages=most)
        if enc.is_legal(larger):
            command = larger
    if enc.is_legal(command):
        enc.apply(command)


def _nothing_past_the_limits(enc: Encounter) -> None:
    shown = view(enc, "gm")
    if shown.pending is not None:
        assert shown.pending.refused is None, shown.pending.refused
    for c in enc.creatures:
        for option in view(enc, c.id).options.get(c.id, []):
            assert option.refused is None, option.refused


@fuzz(40)
@given(data=st.data(), definition=_extreme())
def test_extreme_content_is_refused_or_never_rolls_past_the_limits(
    definition: dict[str, Any], data: st.DataObject
) -> None:
    refused: str | None = None
    try:
        loaded: EncounterDef = encounter_from_dict(definition)
    except ContentError as exc:
        refused = str(exc)
    if refused is not None:
        assert refused.strip(), "a refusal says why"
        event("refused by validation")
        return
    event("validated: played")
    enc = Encounter.begin(loaded, seed=data.draw(st.integers(0, 2**16), label="seed"))
    for _ in range(data.draw(st.integers(1, 30), label="steps")):
        _nothing_past_the_limits(enc)
        if enc.current() == TERMINAL:
            return
        if enc.current() == CHANCE:
            enc.apply(next(iter(enc.legal_actions())))
            continue
        _hostile_step(enc, data)
    _nothing_past_the_limits(enc)
