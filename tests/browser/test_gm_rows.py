"""The GM acts on every creature from its row (issue 22 items 7 and 8), in Chromium at a
laptop's 1280×800 and a phone's 360×740: the GM plays an unseated PC's turn by tapping its row
(Orc Bridge, Action Load; Bridge Duel, Action Points), opens an NPC's row by tapping it,
changes Health by − 1 / + 1 and by an amount, toggles prone, moves a row up by keyboard, and
switches an NPC's odds off — the player's page, and the frames its socket received, then lack
them; a typed tool form keeps its values after a refusal and is emptied after an Apply. axe-core
finds no serious or critical violation on the GM screen."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.screens import (
    PHONE,
    accessibility,
    dice_count,
    enter_dice,
    last_seq,
    live,
    open_table,
    shoot,
)

SIZES = {"laptop": {"width": 1280, "height": 800}, "phone": PHONE}


def tap_in_row(gm: Page, creature: str, command: str) -> None:
    """Tap ``command`` among the choices on ``creature``'s row of the GM screen."""
    button = gm.locator(
        f'#row-{creature} form.cmd:has(input[name=command][value="{command}"]) button'
    )
    expect(button).to_be_visible()
    button.click()


def row_order(gm: Page) -> list[str]:
    ids = gm.locator("#creatures li.gm-row").evaluate_all("rows => rows.map(r => r.id)")
    return [i.removeprefix("row-") for i in ids]


def new_seq(gm: Page, seq: int) -> int:
    expect(gm.locator("#live")).not_to_have_attribute("data-seq", str(seq))
    return last_seq(gm)


@pytest.mark.parametrize("size", list(SIZES))
def test_the_gm_works_an_action_load_table_from_its_rows(
    browser: Browser, server: str, screenshots: Path, size: str
) -> None:
    gm, links = open_table(browser, server, "Orc Bridge")
    gm.set_viewport_size(SIZES[size])
    # Aria's phone, with every frame its page socket receives
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    aria = context.new_page()
    frames: list[str] = []
    aria.on(
        "websocket",
        lambda ws: ws.on(
            "framereceived", lambda p: frames.append(p if isinstance(p, str) else p.decode())
        ),
    )
    aria.goto(links["aria"])
    expect(aria).to_have_url(re.compile(r"/table$"))
    live(aria)

    # Bron has no seat and it is his turn: his row is open with his seat's choices and odds
    bron = gm.locator("#actor-bron")
    expect(bron).to_have_attribute("open", "")
    expect(bron.locator(".odds").first).to_contain_text("to deal damage")
    # the brute's row is shut (it decides nothing now); a tap opens it, reasons and all
    brute = gm.locator("#actor-orc-brute")
    expect(brute).not_to_have_attribute("open", "")
    brute.locator("> summary").click()
    expect(brute.locator(".idle")).to_contain_text("Nothing Orc Brute may do right now")
    expect(brute.locator(".greyed-list summary")).to_be_visible()

    # Health − 1 and + 1, one tap each; the opened row stays open over the new screens
    seq = last_seq(gm)
    gm.get_by_role("button", name="Health − 1 for Orc Brute").click()
    seq = new_seq(gm, seq)
    expect(gm.locator("#row-orc-brute .vitals")).to_contain_text("21/22")
    expect(brute).to_have_attribute("open", "")
    gm.get_by_role("button", name="Health + 1 for Orc Brute").click()
    seq = new_seq(gm, seq)
    expect(gm.locator("#row-orc-brute .vitals")).to_contain_text("22/22")
    # an amount: applied, then the field is empty for the next
    gm.locator("#amount-goblin-archer").fill("3")
    gm.get_by_role("button", name="Damage Goblin Archer by the amount").click()
    seq = new_seq(gm, seq)
    expect(gm.locator("#row-goblin-archer .vitals")).to_contain_text("6/9")
    expect(gm.locator("#amount-goblin-archer")).to_have_value("")
    # two taps on one row, the second before the first's screen came: both applied
    gm.get_by_role("button", name="Health − 1 for Goblin Archer").click()
    gm.get_by_role("button", name="prone for Goblin Archer").click()
    expect(gm.locator("#row-goblin-archer .vitals")).to_contain_text("5/9")
    expect(gm.locator("#row-goblin-archer .vitals")).to_contain_text("prone")
    seq = last_seq(gm)
    # a condition toggle
    prone = gm.get_by_role("button", name="prone for Orc Brute")
    expect(prone).to_have_attribute("aria-pressed", "false")
    prone.click()
    seq = new_seq(gm, seq)
    expect(gm.get_by_role("button", name="prone for Orc Brute")).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(gm.locator("#row-orc-brute .vitals")).to_contain_text("prone")
    # a row moved up, by keyboard; the turn stays Bron's
    assert row_order(gm) == ["bron", "orc-brute", "aria", "goblin-archer"]
    gm.get_by_role("button", name="Move Aria up in the turn order").focus()
    gm.keyboard.press("Enter")
    seq = new_seq(gm, seq)
    assert row_order(gm) == ["bron", "aria", "orc-brute", "goblin-archer"]
    expect(aria.locator("#order")).to_contain_text(re.compile(r"Bron\s+Aria\s+Orc Brute"))

    # a typed (advanced) form: a refusal keeps what was typed; an Apply empties it
    gm.locator("#gm-tools details.advanced > summary").click()
    fact = gm.locator("#gm-tools form:has(legend:text-is('Set a fact or stat'))")
    fact.get_by_label("Creature").fill("bron")
    fact.get_by_label("Fact").fill("flying on")
    fact.get_by_role("button", name="Set").click()
    expect(fact.locator("output")).to_contain_text("no condition 'flying'")
    expect(fact.get_by_label("Creature")).to_have_value("bron")
    expect(fact.get_by_label("Fact")).to_have_value("flying on")
    used = fact.locator("input[name=command_id]").get_attribute("value")
    fact.get_by_label("Fact").fill("prone on")
    fact.get_by_role("button", name="Set").click()
    seq = new_seq(gm, seq)
    expect(gm.locator("#row-bron .vitals")).to_contain_text("prone")
    expect(fact.get_by_label("Creature")).to_have_value("")
    expect(fact.get_by_label("Fact")).to_have_value("")
    expect(fact.locator("output")).to_be_empty()
    expect(fact.locator("input[name=command_id]")).not_to_have_attribute("value", used or "")

    # the GM plays Bron's turn by tapping his row: the strike opens Aria's window, with odds
    tap_in_row(gm, "bron", "bron: strike orc-brute with sword")
    seq = new_seq(gm, seq)
    expect(aria.locator("#pending .odds")).to_contain_text("to deal damage")
    assert any('class="odds"' in f for f in frames if 'id="pending"' in f)
    # the brute's odds switched off: Aria's page, and her socket's frames, lack them
    screens = len(frames)
    gm.locator("#shown-odds-orc-brute").uncheck()
    expect(aria.locator("#pending .odds")).to_have_count(0)
    expect(aria.locator("#pending")).to_contain_text("Bron")
    later = [f for f in frames[screens:] if 'id="pending"' in f]
    assert later, "no screen reached Aria's socket after the switch"
    assert 'class="odds"' not in later[-1]
    expect(gm.locator("#shown-odds-orc-brute")).not_to_be_checked()
    # the GM rolls Bron's dice and ends his turn from his row
    enter_dice(gm, [4] * dice_count(gm))
    seq = new_seq(gm, seq)
    tap_in_row(gm, "bron", "bron: end turn")
    new_seq(gm, seq)
    expect(gm.locator("#log")).to_contain_text("bron: end turn")
    expect(aria.locator("#log")).to_contain_text("bron: end turn")

    gm.evaluate("window.scrollTo(0, 0)")
    gm.screenshot(path=str(screenshots / f"gm-rows-load-{size}.png"), full_page=True)
    assert accessibility(gm, f"GM screen with rows ({size})") == []
    context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_the_gm_plays_an_action_point_pc_from_its_row(
    browser: Browser, server: str, screenshots: Path, size: str
) -> None:
    gm, _links = open_table(browser, server, "Bridge Duel")
    gm.set_viewport_size(SIZES[size])
    # a refusal is shown at the row, with the engine's reason (R48: no reorder mid-initiative)
    gm.get_by_role("button", name="Move Kestrel up in the turn order").click()
    expect(gm.locator("#row-kestrel .row-taps output")).to_contain_text(
        "initiative is being rolled"
    )
    seq = last_seq(gm)
    for faces in ([4, 4, 4], [1, 1, 1, 1], [4, 4, 3], [1, 1, 1]):  # initiative (R30)
        enter_dice(gm, faces)
        seq = new_seq(gm, seq)
    # Torvald's turn, no seat taken: his row holds his seat's choices
    torvald = gm.locator("#actor-torvald")
    expect(torvald).to_have_attribute("open", "")
    tap_in_row(gm, "torvald", "torvald: move to 9,0")
    seq = new_seq(gm, seq)
    expect(gm.locator("#log")).to_contain_text("torvald: move to 9,0")
    expect(gm.locator("#row-torvald .vitals")).to_contain_text("at 9, 0")
    # prone is the Action Point module's own fact (R44): toggled from the row all the same
    gm.get_by_role("button", name="prone for Brakka").click()
    seq = new_seq(gm, seq)
    expect(gm.get_by_role("button", name="prone for Brakka")).to_have_attribute(
        "aria-pressed", "true"
    )
    gm.get_by_role("button", name="Health − 1 for Brakka").click()
    seq = new_seq(gm, seq)
    expect(gm.locator("#row-brakka .vitals")).to_contain_text("prone")
    gm.get_by_role("button", name="Move Kestrel up in the turn order").click()
    seq = new_seq(gm, seq)
    assert row_order(gm) == ["torvald", "kestrel", "brakka", "bandit-archer"]
    tap_in_row(gm, "torvald", "torvald: end turn")
    new_seq(gm, seq)
    expect(gm.locator("#turn .whose")).to_contain_text("Kestrel")
    expect(gm.locator("#actor-kestrel")).to_have_attribute("open", "")

    shoot(gm, screenshots, f"gm-rows-points-{size}")
    gm.set_viewport_size(SIZES[size])
    assert accessibility(gm, f"GM screen with rows, Action Points ({size})") == []
