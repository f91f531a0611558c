"""GM-called rolls (R17) and the engine's own guards, through the library API (commands built
in code, not parsed): a "next roll" boon is spent by the GM call it joins (R15, R48), a total
that meets the DC succeeds (R4), and a source named twice is refused (R14, R47).

Tests of ``encounter/gm.py`` (tests/test_layout.py).
"""

from __future__ import annotations

import pytest

from caltrop.core.commands import Act, CallRoll, EndTurn, RollTotal
from caltrop.core.pool import Advantage
from caltrop.encounter import RollKind
from caltrop.errors import InvalidActionError
from tests.encounter.builders import (
    STRIKE,
    WATCH_MY_BACK,
    begin,
    creature,
    npc,
    pending_expr,
    run,
    watch_my_back_example,
)


def test_a_boon_used_by_a_gm_call_is_spent() -> None:
    """docs/rules.md, R15: "'Next roll' effects (Watch My Back, Rally): kept on the creature they
    target and added, with their source key, to its next roll of any kind (an action or a
    GM-called roll); then gone." R17: a GM-called roll takes a pending "next roll" effect. So
    after the GM call is rolled the boon is gone, and the creature's next action rolls without
    it."""
    enc = begin(
        creature("bron", actions=(WATCH_MY_BACK, STRIKE)),
        creature("aria", finesse=4, actions=(STRIKE,)),
        npc("goblin", health=30, evasion=4, actions=(STRIKE,)),
    )
    aria = enc.index("aria")
    enc.apply(Act("bron", "watch-my-back", ("aria",)))
    assert enc.boons[aria] == (Advantage("adv", "watch-my-back"),)
    enc.apply(CallRoll("aria", "Finesse"))
    assert pending_expr(enc) == "5d4"  # Finesse 4 + the boon's 1 (R17)
    outcome = enc.apply(RollTotal(9))
    assert outcome is not None
    assert outcome.kind is RollKind.GM_CALL
    assert enc.boons[aria] == ()
    assert "boons" not in enc.snapshot()["participants"][aria]
    enc.apply(EndTurn("bron"))
    enc.apply(Act("aria", "strike", ("goblin",)))
    assert enc.pending_roll is not None
    assert enc.pending_roll.advantages == []  # the boon did not stay for the next action
    assert pending_expr(enc) == "4d4+1d4"


def test_a_boon_spent_by_a_gm_call_is_not_spent_twice_by_two_allies() -> None:
    """R14: two allies' Watch My Back is one source: +1 on the GM call, and both are gone."""
    enc = begin(*watch_my_back_example().participants)
    run(enc, "bron: watch-my-back aria", "bron: end turn", "cara: watch-my-back aria")
    enc.apply(CallRoll("aria", "Finesse"))
    assert pending_expr(enc) == "5d4"
    enc.apply(RollTotal(5))
    assert enc.boons[enc.index("aria")] == ()


@pytest.mark.parametrize(("total", "success"), [(6, False), (7, True), (8, True)])
def test_a_gm_call_that_meets_its_dc_succeeds(total: int, success: bool) -> None:
    """R4: "Success iff total ≥ DC"; R16: "A check against a DC succeeds iff total ≥ DC" — a
    total equal to the DC succeeds, one below fails."""
    enc = begin(creature("a", finesse=4), npc("b"))
    enc.apply(CallRoll("a", "Finesse", dc=7))
    outcome = enc.apply(RollTotal(total))
    assert outcome is not None
    assert (outcome.dc, outcome.total, outcome.success) == (7, total, success)


def test_a_gm_call_without_a_dc_has_no_success() -> None:
    enc = begin(creature("a"), npc("b"))
    enc.apply(CallRoll("a", "Finesse"))
    outcome = enc.apply(RollTotal(4))
    assert outcome is not None
    assert outcome.success is None


@pytest.mark.parametrize(
    "command",
    [
        Act("a", "strike", ("b",), advantages=(Advantage("adv", "torch"),) * 2),
        Act(
            "a",
            "strike",
            ("b",),
            advantages=(
                Advantage("dis", "dark"),
                Advantage("adv", "torch"),
                Advantage("dis", "dark"),
            ),
        ),
        CallRoll("a", "Finesse", advantages=(Advantage("adv", "torch"),) * 2),
    ],
    ids=["act", "act-mixed", "gm-call"],
)
def test_the_engine_refuses_a_source_named_twice_in_one_command(command: object) -> None:
    """R14: "Within one action, a source key counts once"; R47: one creature applying the same
    source key twice "is refused ('adds nothing')". The engine's own guard, for a command built
    in code (parse_command has its own): refused as malformed, and nothing changes."""
    enc = begin(creature("a"), npc("b"))
    before = (enc.to_json(), enc.log_lines())
    with pytest.raises(
        InvalidActionError, match=r"the same source twice adds nothing \(R14, R47\)"
    ):
        enc.apply(command)  # type: ignore[arg-type]
    assert (enc.to_json(), enc.log_lines()) == before
    assert not enc.is_legal(command)  # type: ignore[arg-type]


def test_two_different_sources_in_one_command_are_accepted() -> None:
    """R14: "different keys stack": the guard refuses a repeat, not a second source."""
    enc = begin(creature("a", finesse=4), npc("b"))
    enc.apply(
        Act(
            "a",
            "strike",
            ("b",),
            advantages=(Advantage("adv", "torch"), Advantage("adv", "advice")),
        )
    )
    assert pending_expr(enc) == "6d4+1d4"
