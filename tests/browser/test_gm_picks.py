"""The GM calls for rolls, removes and adds creatures by picking (issue 22 item 7), in Chromium
at 1280×800 and 360×740: Goblin Ambush (Action Load) and Warband (Action Points). A row's
"Call a roll of" offers that creature's Aspects and a DC; Remove asks first (cancel sends
nothing); Add picks from the reserves and this module's bundled creatures, and a choice made
before another command's screen arrives is still the choice after it. No page scrolls
sideways; axe-core finds no serious or critical violation."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.screens import PHONE, accessibility, dice_count, enter_dice, last_seq, open_table

SIZES = {"laptop": {"width": 1280, "height": 800}, "phone": PHONE}


def new_seq(gm: Page, seq: int) -> int:
    expect(gm.locator("#live")).not_to_have_attribute("data-seq", str(seq))
    return last_seq(gm)


def rows(gm: Page) -> list[str]:
    ids = gm.locator("#creatures li.gm-row").evaluate_all("rows => rows.map(r => r.id)")
    return [i.removeprefix("row-") for i in ids]


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize(
    ("title", "caller", "aspect", "gone", "added", "as_label"),
    [
        ("Goblin Ambush", "dain", "Insight", "goblin-1", "hobgoblin-captain", "Hobgoblin Captain"),
        ("Warband", "maren", "Perception", "wolf", "bandit", "Bandit"),
    ],
)
def test_the_gm_calls_removes_and_adds_by_picking(
    browser: Browser,
    server: str,
    screenshots: Path,
    size: str,
    title: str,
    caller: str,
    aspect: str,
    gone: str,
    added: str,
    as_label: str,
) -> None:
    gm, _links = open_table(browser, server, title)
    gm.set_viewport_size(SIZES[size])
    seq = last_seq(gm)
    while "initiative" in gm.locator("#pending").inner_text():  # Warband rolls it first (R30)
        enter_dice(gm, [3] * dice_count(gm))
        seq = new_seq(gm, seq)

    # Add: nothing is chosen at first (a tap on Add alone is refused by the browser: required)
    picker = gm.locator("#add-source")
    expect(picker).to_have_value("")
    gm.get_by_role("button", name="Add", exact=True).click()
    assert last_seq(gm) == seq
    # the choice is made, then another command's screen arrives; the choice stays
    picker.select_option(added)
    expect(picker).to_have_value(added)
    picker.evaluate("el => { el.dataset.mark = 'the same element'; }")
    first = rows(gm)[0]
    gm.get_by_role("button", name=f"Health − 1 for {first_name(gm, first)}").click()
    seq = new_seq(gm, seq)
    expect(gm.locator("#add-source")).to_have_value(added)
    # not swapped (its choices did not change): an open picker is not closed under the GM
    expect(gm.locator("#add-source")).to_have_attribute("data-mark", "the same element")
    gm.get_by_role("button", name="Add", exact=True).click()
    seq = new_seq(gm, seq)
    new_rows = [r for r in rows(gm) if r.startswith(added)]
    assert new_rows, rows(gm)
    expect(gm.locator(f"#row-{new_rows[-1]} .name")).to_contain_text(as_label)
    # after an Add nothing is chosen again: a second tap cannot add a creature unasked
    expect(gm.locator("#add-source")).to_have_value("")
    expect(gm.locator("#add-source option:checked")).to_have_text("Choose a creature…")

    # a row's call: its own Aspects, a DC, one tap; the pending roll is that creature's
    row = gm.locator(f"#row-{caller}")
    row.locator(f"#call-aspect-{caller}").select_option(aspect)
    row.locator(f"#call-dc-{caller}").fill("9")
    row.locator(f"#call-roll-{caller}").click()
    seq = new_seq(gm, seq)
    expect(gm.locator("#log")).to_contain_text(f"gm: call {caller} {aspect} dc 9")
    expect(gm.locator("#pending")).to_contain_text(aspect)
    expect(gm.locator(f"#call-dc-{caller}")).to_have_value("")

    # Remove asks first: cancelled, nothing is sent; accepted, the creature leaves the order
    gm.once("dialog", lambda dialog: dialog.dismiss())
    gm.locator(f"#remove-{gone}").click()
    gm.once("dialog", lambda dialog: dialog.accept())
    gm.locator(f"#remove-{gone}").click()
    seq = new_seq(gm, seq)
    expect(gm.locator("#log")).to_contain_text(f"gm: remove {gone}")
    expect(gm.locator(f"#remove-{gone}")).to_have_count(0)
    assert gone not in gm.locator("#order").inner_text().split()
    logged = gm.request.get(f"{server}/api/log").text()
    assert logged.count(f'"gm: remove {gone}"') == 1  # the cancelled tap sent nothing

    wide = gm.evaluate("document.documentElement.scrollWidth")
    assert wide <= SIZES[size]["width"], f"the GM screen scrolls sideways: {wide} px"
    gm.evaluate("window.scrollTo(0, 0)")
    name = title.lower().replace(" ", "-")
    gm.screenshot(path=str(screenshots / f"gm-picks-{name}-{size}.png"), full_page=True)
    assert accessibility(gm, f"GM screen, picks ({title}, {size})") == []
    gm.context.close()


def first_name(gm: Page, cid: str) -> str:
    return gm.locator(f"#row-{cid} .name").inner_text().strip()


def test_the_add_picker_follows_the_table_to_its_next_encounter(
    browser: Browser, server: str
) -> None:
    """The picker is kept across screens of one encounter, and swapped when the table goes on
    to the next: Goblin Ambush's creatures, then Warband's (another module's)."""
    from tests.browser.test_log_tv import gm_token

    gm, _links = open_table(browser, server, "Goblin Ambush")
    expect(gm.locator('#add-source option[value="goblin"]')).to_have_count(1)
    got = httpx.post(
        f"{server}/api/encounters",
        json={"encounter": "warband-ap"},
        headers={"Authorization": f"Bearer {gm_token(gm)}"},
    )
    assert got.status_code == 201, got.text
    expect(gm.locator('#add-source option[value="brakka"]')).to_have_count(1)
    expect(gm.locator('#add-source option[value="goblin"]')).to_have_count(0)
    expect(gm.locator("#add-source")).to_have_attribute("data-choices", re.compile(r"^Warband"))
    gm.context.close()
