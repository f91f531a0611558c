"""R38 (amended): "Each equipped weapon joins an attack at most once; an unarmed attack is made
alone. Halving, option ``multi_weapon_halving``: ``together`` (default: all the weapons' dice
summed, then halved up once …) or ``each`` (each weapon's dice halved up, then summed)."

Tests of ``economy/points/attacks.py`` (tests/test_layout.py).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from caltrop.core.commands import parse_command
from caltrop.core.model import Halving
from caltrop.encounter import Encounter
from caltrop.errors import IllegalActionError
from tests.encounter.points_builders import DAGGER, SWORD, ap_creature, ap_npc, definition


def _pair(halving: Halving = Halving.TOGETHER) -> Encounter:
    aria = ap_creature("aria", weapons=(SWORD, DAGGER), equipped=("sword", "dagger"))
    d = definition(aria, ap_npc("orc", at=(1, 0)))
    return Encounter.begin(replace(d, ruleset=replace(d.ruleset, multi_weapon_halving=halving)), 1)


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ("aria: attack orc with dagger+dagger", "dagger is named twice"),
        ("aria: attack orc with sword+sword+dagger", "sword is named twice"),
        ("aria: attack orc with unarmed+unarmed", "unarmed is named twice"),
        ("aria: attack orc with unarmed+dagger", "unarmed attack is made alone"),
    ],
)
def test_each_weapon_joins_once_and_unarmed_is_alone(line: str, match: str) -> None:
    enc = _pair()
    before = enc.to_json()
    with pytest.raises(IllegalActionError, match=match):
        enc.apply(parse_command(line))
    assert enc.to_json() == before


def test_together_halves_the_summed_dice_once() -> None:
    """2d8 (sword) + 1d4 (dagger): ceil((2d8 + 1d4) / 2)."""
    enc = _pair()
    enc.apply(parse_command("aria: attack orc with sword+dagger"))
    assert str(enc.pending_expression()) == "(2d8+1d4)/2"


def test_each_halves_every_weapon_on_its_own() -> None:
    """``each``: ceil(2d8 / 2) + ceil(1d4 / 2); with the dice 1,2 and 1 that is 2 + 1 = 3, where
    ``together`` gives ceil(4 / 2) = 2."""
    enc = _pair(Halving.EACH)
    enc.apply(parse_command("aria: attack orc with sword+dagger"))
    assert str(enc.pending_expression()) == "2d8/2+1d4/2"
    outcome = enc.apply(parse_command("roll 1,2,1"))
    assert outcome is not None
    assert outcome.total == 2 + 1  # ceil(3/2) + ceil(1/2); together would be ceil(4/2) = 2
