"""A night of encounters (issue 11, "A night, not one fight"): "when the GM starts the next one
… the player characters carry their Health, Stamina and Exhaustion over (the GM can reset any
of it)"."""

from __future__ import annotations

import pytest

from caltrop.content import load_encounter
from caltrop.core.commands import parse_command
from caltrop.core.model import CreatureDef, EncounterDef
from caltrop.errors import InvalidActionError
from caltrop.table.night import carry_over
from tests.table.plays import begin


def by_id(definition: EncounterDef) -> dict[str, CreatureDef]:
    return {c.id: c for c in definition.participants}


def test_health_and_exhaustion_carry_over() -> None:
    bridge = begin("orc-bridge")
    bridge.apply(parse_command("gm: damage bron 7"))
    bridge.apply(parse_command("gm: set aria exhaustion 2"))
    ambush = load_encounter("goblin-ambush")
    nxt = by_id(carry_over(bridge, ambush))
    fresh = by_id(ambush)
    assert nxt["bron"].health == 13
    assert nxt["bron"].max_health == 20
    assert nxt["aria"].exhaustion == 2
    assert nxt["cass"] == fresh["cass"]  # new to the table: as written
    assert nxt["goblin-1"] == fresh["goblin-1"]


def test_the_gm_resets_what_it_names() -> None:
    bridge = begin("orc-bridge")
    bridge.apply(parse_command("gm: damage bron 7"))
    bridge.apply(parse_command("gm: set bron exhaustion 3"))
    nxt = by_id(carry_over(bridge, load_encounter("goblin-ambush"), ["health"]))
    assert nxt["bron"].health == 20
    assert nxt["bron"].exhaustion == 3
    with pytest.raises(InvalidActionError, match="cannot reset luck"):
        carry_over(bridge, load_encounter("goblin-ambush"), ["luck"])


def test_stamina_carries_over_in_the_action_point_module() -> None:
    duel = begin("bridge-duel-ap")
    duel.apply(parse_command("gm: set torvald stamina 3"))
    nxt = by_id(carry_over(duel, load_encounter("warband-ap")))
    assert nxt["torvald"].stats["stamina"] == 3
    again = by_id(carry_over(duel, load_encounter("warband-ap"), ["stamina"]))
    assert again["torvald"] == by_id(load_encounter("warband-ap"))["torvald"]
