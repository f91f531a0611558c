"""What the view model gives a screen besides options and odds: the fields the terminal renders
from it (issue 11: "The terminal's caltrop play renders the same model")."""

from __future__ import annotations

import pytest

from caltrop.core.commands import GM, RollDice, parse_command
from caltrop.core.model import Side
from caltrop.core.pool import Revision
from caltrop.errors import InvalidActionError
from caltrop.table import view
from tests.table.plays import begin, random_play


def test_the_gm_may_answer_for_every_creature() -> None:
    """rights.py: the GM may issue the commands of any creature; a player only its own."""
    enc = begin("orc-bridge")
    everyone = [GM, *(c.id for c in enc.creatures)]
    seen = view(enc, GM, answers_for=everyone)
    assert list(seen.options) == everyone
    assert any(o.legal for o in seen.options["bron"])
    # the default: the GM's own, the NPCs' and the PCs' who decide now (issue 22 item 3):
    # bron, whose turn it is, not aria
    assert enc.turn_owner == "bron"
    assert set(view(enc, GM).options) - {c.id for c in enc.creatures if c.side is Side.NPC} == {
        GM,
        "bron",
    }
    # the terminal's PCs as the GM sees them (exact odds against orc-brute, whose Aspects
    # players do not see); the GM screen's as bron's seat sees them (issue 22 item 3)
    strike = "bron: strike orc-brute with sword"
    exact = next(o for o in seen.options["bron"] if o.command == strike)
    screen = next(o for o in view(enc, GM).options["bron"] if o.command == strike)
    assert exact.odds is not None
    assert exact.odds["exact"] is not None
    assert screen == next(o for o in view(enc, "bron").options["bron"] if o.command == strike)
    assert screen.odds is not None
    assert screen.odds["rounded"]
    with pytest.raises(InvalidActionError, match="only its own options"):
        view(enc, "aria", answers_for=["bron"])
    with pytest.raises(InvalidActionError, match="no creature 'zed'"):
        view(enc, GM, answers_for=["zed"])


@pytest.mark.parametrize("name", ["goblin-ambush", "orc-bridge"])
def test_a_greyed_action_says_whether_its_gate_is_open(name: str) -> None:
    """R11: "An action is allowed iff Aspect − Load ≥ Cost … the same on a creature's own turn
    and on other turns"; R46: the Load the gate sees counts the costs of the creature's own
    declared actions still pending."""
    enc = begin(name, 6)
    assert enc.definition.ruleset.revision is Revision.CURRENT
    checked = 0
    for _ in random_play(enc, 6, 50):
        everyone = [c.id for c in enc.creatures]
        tv = view(enc, GM, answers_for=everyone)
        for i, c in enumerate(enc.creatures):
            owed = sum(
                p.action.cost
                for p in enc.pending
                if p.roller == i and p.action is not None and p.kind.value == "action"
            )
            load = enc.resources[i].as_dict()["load"] + owed
            for option in tv.options[c.id]:
                if option.legal or option.gate_open is None:
                    continue
                action = c.action(option.action)
                assert action is not None
                assert option.gate_open == (c.aspects[action.aspect] - load >= action.cost)
                checked += 1
    assert checked


def test_a_pending_roll_says_what_it_is() -> None:
    """R45: the defender knows the damage before choosing Block or Dodge."""
    enc = begin("orc-bridge")
    enc.apply(parse_command("bron: strike orc-brute"))
    pending = view(enc, GM).pending
    assert pending is not None
    assert pending.what == "strike"
    ap = begin("bridge-duel-ap", 4)
    while ap.round == 0:
        ap.apply(RollDice())
    owner = ap.turn_owner
    assert owner is not None
    x, y = ap.resources[ap.index(owner)].as_dict()["position"]
    foe = next(c for c in ap.creatures if c.side is not ap.creature(owner).side)
    ap.apply(parse_command(f"gm: set {foe.id} at {x + 1},{y}"))
    ap.apply(parse_command(f"{owner}: attack {foe.id}"))
    assert view(ap, GM).pending.what == "attack damage"  # type: ignore[union-attr]
    outcome = ap.apply(RollDice())
    assert outcome is not None
    defence = view(ap, GM).pending
    assert defence is not None
    assert defence.what == f"attack defence against {outcome.total} damage"


def test_a_players_view_holds_no_npc_stats() -> None:
    """The Action Point stat block (Resistance, ratings) is hidden like the Aspects."""
    enc = begin("bridge-duel-ap")
    pc = next(c.id for c in enc.creatures if c.side is Side.PC)
    for cv in view(enc, pc).creatures:
        if cv.side == "npc":
            assert cv.stats is None
    shown = {cv.id: cv.stats for cv in view(enc, GM).creatures}
    assert all(shown[c.id] == c.stats for c in enc.creatures if c.stats)
