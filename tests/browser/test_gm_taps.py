"""The GM acts for any creature by tapping it (issue 22 item 3), in Chromium: on Goblin
Ambush with no seat taken, the GM shoots Dain and taps Dain's answer on the GM screen (R48:
the GM may issue every command); the GM's browser opening an invite link is asked first and
comes back to its GM screen in one tap."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect

from tests.browser.screens import accessibility, live, open_table, option, press


def test_the_gm_plays_an_unseated_pc_by_tapping(browser: Browser, server: str) -> None:
    gm, links = open_table(browser, server, "Goblin Ambush")
    press(gm, "goblin-archer: shoot dain with shortbow")
    dain = gm.locator("#actor-dain")  # his row: his choices
    expect(dain).to_be_visible()  # Dain may answer the shot: his options on the GM screen
    expect(option(gm, "dain: hinder")).to_be_visible()
    press(gm, "dain: hinder")
    expect(gm.locator("#log")).to_contain_text("dain: hinder")
    # the GM's browser opens Cass's invite link: asked, not turned into Cass's seat
    gm.goto(links["cass"])
    expect(gm.get_by_role("heading", name="Take cass's seat in this browser?")).to_be_visible()
    assert accessibility(gm, "join question") == []
    gm.get_by_role("link", name="Back to the GM screen").click()
    expect(gm).to_have_url(re.compile(r"/table$"))
    live(gm)
    expect(gm.locator("#actions-h")).to_have_text("Declare")
    expect(gm.locator("#log")).to_contain_text("dain: hinder")
    # asked again, its yes makes this browser Cass's screen
    gm.goto(links["cass"])
    gm.get_by_role("button", name="Take cass's seat here").click()
    expect(gm).to_have_url(re.compile(r"/table$"))
    live(gm)
    expect(gm.locator("#actions-h")).not_to_have_text("Declare")
    expect(gm.locator("#actor-dain")).to_have_count(0)
