"""Issue 21 item 4: content that validates never crashes play, and the view never raises.

R12: "d4 count = Aspect − max(0, Load) + NetAdvantage, minimum 1 (R3); then extra dice." R14:
each source of advantage counts once, different sources stack. A creature with Finesse 6 and a
weapon of ``1000d4`` passed ``caltrop validate``; ``caltrop play`` then stopped in the view
model on ``DiceLimitError: 6d4+1000d4: 1006 dice`` (the same view serves the web table).

Now validation checks each action's largest pool — its Aspect, every advantage a roll may
gather, the weapon's dice (:mod:`caltrop.economy.pools`) — against the dice limits, and the
view shows a pool past them as refused (``refused``) instead of computing its odds.
"""

from __future__ import annotations

import pytest

from caltrop.content import load_encounter_text
from caltrop.core.commands import MAX_ADVANTAGES, parse_command
from caltrop.core.model import Weapon
from caltrop.dice import parse
from caltrop.dice.parse import MAX_DICE
from caltrop.encounter import Encounter
from caltrop.errors import CaltropError, IllegalActionError
from caltrop.table.view import view
from tests.encounter.builders import STRIKE, begin, creature, npc

ENCOUNTER = """
kind: encounter
name: Big
ruleset: {revision}
include: [caltrop:actions]
participants:
  - id: hero
    name: Hero
    side: pc
    aspects: {{Finesse: 6, Insight: 2}}
    health: 12
    evasion: 8
    weapons: [{{name: huge, dice: {dice}}}]
    actions: [strike, help]
  - id: brigand
    name: Brigand
    side: npc
    aspects: {{Finesse: 4, Insight: 2}}
    health: 14
    evasion: 7
    weapons: [{{name: club, dice: 1d6}}]
    actions: [strike, hinder]
"""


def test_the_issues_creature_is_refused_with_the_arithmetic() -> None:
    with pytest.raises(CaltropError) as caught:
        load_encounter_text(ENCOUNTER.format(revision="current", dice="1000d4"))
    message = str(caught.value)
    assert "hero: action 'strike' with huge could roll" in message
    assert f"Finesse 6 + {MAX_ADVANTAGES} advantages" in message
    assert "at most 1000 per expression" in message


@pytest.mark.parametrize(
    ("revision", "largest_fitting"),
    # current: 6 + 20 advantages + 1 (help) = 27 d4; legacy adds 100 more for a Load of −100
    [("current", MAX_DICE - 27), ("legacy", MAX_DICE - 127)],
)
def test_the_largest_weapon_that_fits_passes_and_one_more_die_does_not(
    revision: str, largest_fitting: int
) -> None:
    load_encounter_text(ENCOUNTER.format(revision=revision, dice=f"{largest_fitting}d4"))
    with pytest.raises(CaltropError, match="past the dice limits"):
        load_encounter_text(ENCOUNTER.format(revision=revision, dice=f"{largest_fitting + 1}d4"))


def _giant(weapon_dice: str) -> Encounter:
    """Content built in code (no validation): Finesse 6 with a huge weapon, against a goblin."""
    huge = Weapon("huge", parse(weapon_dice))
    hero = creature("hero", finesse=6, actions=(STRIKE,), weapons=(huge,))
    return begin(hero, npc("goblin", health=10, evasion=5, actions=(STRIKE,)), seed=1)


def test_a_pool_past_the_limits_is_shown_refused_never_raised() -> None:
    enc = _giant("1000d4")
    view(enc, "gm")  # raised DiceLimitError before
    strike = next(o for o in view(enc, "hero").options["hero"] if o.action == "strike")
    assert strike.legal
    assert strike.odds is None
    assert strike.refused is not None
    assert "1006 dice" in strike.refused
    enc.apply(parse_command("hero: strike goblin"))
    for who in ("gm", "hero"):
        shown = view(enc, who)
        assert shown.pending is not None
        assert shown.pending.odds is None
        assert shown.pending.refused is not None
        assert "cannot be rolled" in shown.pending.refused
    with pytest.raises(IllegalActionError, match="cannot be rolled"):
        enc.apply(parse_command("roll"))
    enc.apply(parse_command("gm: undo"))  # the GM's way out
    assert not enc.pending


def test_a_pool_of_exactly_the_limit_shows_its_odds_without_one_more_help() -> None:
    enc = _giant("994d4")  # 6d4+994d4: 1,000 dice, the most there may be
    enc.apply(parse_command("hero: strike goblin"))
    shown = view(enc, "gm")
    assert shown.pending is not None
    assert shown.pending.refused is None
    assert shown.pending.odds is not None
    assert shown.pending.odds["with_help"] is None  # 1,001 dice: past the limit
    assert shown.pending.odds["with_hinder"] is not None
