"""Journey A (issue 12), the Action Load module: Orc Bridge played by a GM and two players in
three browser contexts, through the real server."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect

from tests.browser.screens import (
    accessibility,
    dice_count,
    enter_dice,
    join,
    last_seq,
    open_table,
    press,
    same_seq,
    shoot,
    type_command,
)


def test_orc_bridge_journey(browser: Browser, server: str, screenshots: Path) -> None:
    gm, links = open_table(browser, server, "Orc Bridge")
    assert set(links) == {"bron", "aria"}
    ctx_a, a = join(browser, links["bron"])
    _ctx_b, b = join(browser, links["aria"])
    expect(a.locator("#sheet-h")).to_have_text("Bron")
    expect(b.locator("#sheet-h")).to_have_text("Aria")

    # player A declares an attack: the reaction window opens on B's phone, with a cue
    # each offered action shows its exact odds and its pool before it is taken
    strike = a.locator('li.option:has(input[value="bron: strike orc-brute with sword"])')
    expect(strike).to_contain_text("to deal damage")
    expect(strike).to_contain_text("expected damage")
    expect(strike).to_contain_text("Might 5")
    b.locator("#turn").click()  # B has tapped the page once: a vibration may follow (item 8)
    press(a, "bron: strike orc-brute with sword")
    expect(b.locator("#pending .pool")).to_contain_text("Might 5")
    expect(b.locator("#pending")).to_contain_text("with help")
    expect(b.locator("#actions.cue")).to_be_visible()
    expect(b.locator("#live")).not_to_have_attribute("data-reactions", "0")
    assert b.evaluate("window.vibrations.length") == 1
    assert a.evaluate("window.vibrations.length") == 0  # A's own roll: no reaction cue
    # B adds a team action in the window during A's turn (R15)
    press(b, "aria: help")
    expect(gm.locator("#pending .advantages, #pending .pool")).to_contain_text("help")
    # the GM lets the NPCs pass, then A rolls physical dice; a bad die is refused with the reason
    while gm.locator("#pending .waiting").inner_text().startswith("Waiting on"):
        seq = last_seq(gm)
        # each NPC's pass is on its row of the GM screen (issue 22 item 7)
        npc = gm.locator("#creatures .gm-row.npc form.cmd:has(input[value$=': pass']) button").first
        npc.click()
        expect(gm.locator("#live")).not_to_have_attribute("data-seq", str(seq))
    count = dice_count(a)
    answer = enter_dice(a, [9] * count)
    expect(answer).to_contain_text("d4")
    before = last_seq(a)
    assert count == 7  # 5d4 + 1d4 for Aria's help + the sword's 1d8
    enter_dice(a, [4, 1, 3, 2, 2, 2, 7])
    expect(a.locator("#live")).not_to_have_attribute("data-seq", str(before))
    expect(a.locator("#log .result").first).to_contain_text("damage")
    for page in (gm, a, b):  # die by die, the d4s paired into fives (D4 Math Tips)
        expect(page.locator("#log li").first.locator(".die")).to_have_count(7)
        expect(page.locator("#log .fives").first).to_have_text("fives: (4+1) (3+2)")

    # all three screens show the same log and the same Loads
    seq = last_seq(gm)
    same_seq([gm, a, b], seq)
    log = gm.locator("#log").inner_text()
    for page in (a, b):
        expect(page.locator("#log")).to_have_text(log)
        for pc in ("bron", "aria"):
            expect(page.locator(f"#row-{pc} .res")).to_have_text(
                gm.locator(f"#row-{pc} .res").inner_text()
            )

    # A ends the turn, the GM ends the brute's; A's phone goes offline, B acts
    press(a, "bron: end turn")
    press(gm, "orc-brute: end turn")
    expect(b.locator("#turn .whose")).to_contain_text("Aria")
    ctx_a.set_offline(True)
    expect(a.locator("#badge")).to_be_visible()  # the socket dropped: "reconnecting"
    press(b, "aria: shoot goblin-archer with shortbow")
    expect(gm.locator("#log")).to_contain_text("aria: shoot goblin-archer")
    expect(a.locator("#log")).not_to_contain_text("aria: shoot goblin-archer")
    ctx_a.set_offline(False)
    expect(a.locator("#log")).to_contain_text("aria: shoot goblin-archer")
    expect(a.locator("#badge")).to_be_hidden()
    # a reload comes back to the same state
    a.reload()
    expect(a.locator("#log")).to_have_text(gm.locator("#log").inner_text())
    same_seq([gm, a, b], last_seq(gm))
    # a phone that wakes up asks for the whole screen again (fresh command ids show it came)
    before_id = a.locator("#cid-text").get_attribute("value")
    a.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    expect(a.locator("#cid-text")).not_to_have_attribute("value", before_id or "")
    expect(a.locator("#log")).to_have_text(gm.locator("#log").inner_text())

    # a player is refused a GM action, with the server's reason
    refused = type_command(a, "gm: damage goblin-archer 5")
    expect(refused).to_contain_text("only the GM")

    # the GM undoes B's declaration, after confirming (undo sits apart from End Turn)
    expect(gm.locator("#pending")).to_contain_text("Aria")
    gm.once("dialog", lambda dialog: dialog.accept())
    gm.get_by_role("button", name="Undo the last command…").click()
    expect(gm.locator("#pending")).to_contain_text("No roll pending")
    expect(b.locator("#pending")).to_contain_text("No roll pending")
    expect(b.locator("#log")).to_contain_text("gm: undo")
    assert gm.locator("#gm-tools .undo").count() == 1
    assert gm.locator("#actions .undo").count() == 0  # not among the options (End Turn's)

    shoot(gm, screenshots, "load-gm")
    shoot(a, screenshots, "load-player")
    problems = accessibility(gm, "GM screen") + accessibility(a, "player screen")
    home = b.context.new_page()
    home.goto(f"{server}/")
    problems += accessibility(home, "home page")
    assert problems == []
