"""Journey B (issue 12), the Action Point module: Bridge Duel played by a GM and two players,
with a Block reaction (R40, R45) and an off-turn Stand (R32: any payable action off-turn, R44)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect

from tests.browser.screens import (
    accessibility,
    enter_dice,
    join,
    last_seq,
    open_table,
    press,
    same_seq,
    shoot,
    type_command,
)

#: physical initiative dice (R30, highest first): Torvald 12, Brakka 11, Kestrel 4, archer 3
INITIATIVE = ([4, 4, 4], [1, 1, 1, 1], [4, 4, 3], [1, 1, 1])


def test_bridge_duel_journey(browser: Browser, server: str, screenshots: Path) -> None:
    gm, links = open_table(browser, server, "Bridge Duel")
    assert set(links) == {"torvald", "kestrel"}
    ctx_a, a = join(browser, links["torvald"])
    _ctx_b, b = join(browser, links["kestrel"])

    for faces in INITIATIVE:  # the GM types everyone's initiative dice
        seq = last_seq(gm)
        enter_dice(gm, faces)
        expect(gm.locator("#live")).not_to_have_attribute("data-seq", str(seq))
    expect(a.locator("#turn .whose")).to_contain_text("Torvald")
    expect(a.locator("#sheet .vitals")).to_contain_text("AP 6")

    # positions ride with an NPC's points, hidden by default: the GM shows Brakka's
    # (on Brakka's row of the GM screen: a tick is sent at once, issue 22 item 7)
    brakka = gm.locator("#row-brakka form.vis")
    brakka.get_by_label("Points").check()
    expect(a.locator("#row-brakka .res")).to_contain_text("AP")
    expect(gm.locator("#shown-resources-brakka")).to_be_checked()  # the GM's screen says so

    # the map is keyboard-usable too: Enter on a creature fills the command box
    a.locator('#map [data-fill="torvald: move toward kestrel"]').focus()
    a.keyboard.press("Enter")
    expect(a.locator("#command-text")).to_have_value("torvald: move toward kestrel")
    expect(a.locator("#command-text")).to_be_focused()

    # A taps Brakka on the distance map: the command box gets "move toward"; A sends it
    a.locator('#map [data-fill="torvald: move toward brakka"]').click()
    expect(a.locator("#command-text")).to_have_value("torvald: move toward brakka")
    a.locator("#command-box button[type=submit]").click()
    expect(gm.locator("#log")).to_contain_text("torvald: move toward brakka")
    # a keyboard user keeps focus across a screen update: Tab to End Turn and press Enter
    end = a.locator('form.cmd:has(input[value="torvald: end turn"]) button')
    end.focus()
    a.keyboard.press("Enter")
    expect(gm.locator("#turn .whose")).to_contain_text("Brakka")

    # Brakka attacks Torvald; the damage is rolled; A is offered Block in the window (R45)
    press(gm, "brakka: attack torvald")
    seq = last_seq(gm)
    enter_dice(gm, [5])
    expect(gm.locator("#live")).not_to_have_attribute("data-seq", str(seq))
    expect(a.locator("#actions.cue")).to_be_visible()
    press(a, "torvald: block")
    expect(a.locator("#sheet .vitals")).to_contain_text("RP 1")

    # the GM knocks Kestrel prone; A's phone goes offline; B stands up off-turn (R32, R44)
    type_command(gm, "gm: set kestrel prone on")
    expect(b.locator("#log")).to_contain_text("gm: set kestrel prone on")
    expect(b.locator("#sheet .vitals")).to_contain_text("RP 2")
    ctx_a.set_offline(True)
    expect(a.locator("#badge")).to_be_visible()
    answer = type_command(b, "kestrel: stand")
    expect(gm.locator("#log")).to_contain_text("kestrel: stand")
    expect(answer).not_to_contain_text("cannot")
    # Stand costs 1 AP (R44); off-turn an AP price is paid 2 RP per AP (R32): RP 2 → 0
    expect(b.locator("#sheet .vitals")).to_contain_text("RP 0")
    expect(a.locator("#log")).not_to_contain_text("kestrel: stand")
    ctx_a.set_offline(False)
    expect(a.locator("#log")).to_contain_text("kestrel: stand")
    expect(a.locator("#badge")).to_be_hidden()

    # A rolls the Block dice; the attack resolves on every screen
    seq = last_seq(gm)
    enter_dice(a, [2, 2, 2])
    expect(gm.locator("#live")).not_to_have_attribute("data-seq", str(seq))
    expect(gm.locator("#pending")).to_contain_text("No roll pending")
    same_seq([gm, a, b], last_seq(gm))
    log = gm.locator("#log").inner_text()
    for page in (a, b):
        expect(page.locator("#log")).to_have_text(log)
        for pc in ("torvald", "kestrel"):
            expect(page.locator(f"#row-{pc} .res")).to_have_text(
                gm.locator(f"#row-{pc} .res").inner_text()
            )
    a.reload()
    expect(a.locator("#log")).to_have_text(log)

    # a player is refused a GM action, with the server's reason
    refused = type_command(b, "gm: heal kestrel 3")
    expect(refused).to_contain_text("only the GM")

    shoot(gm, screenshots, "points-gm")
    shoot(a, screenshots, "points-player")
    problems = accessibility(gm, "GM screen") + accessibility(a, "player screen")
    assert problems == []
