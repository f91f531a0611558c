"""The phone puts "what I must do now" first (issue 22 item 4): at 360×740, in every reaction
or defence window of a journey, the first option this creature may take is inside the first
740 px of the page without scrolling — in the Action Load module (Orc Bridge: a Team Action
window, R15, and a defence window) and the Action Point module (Bridge Duel: the windows of an
attack, R40, R45). The GM's Health table is on the first screen, not two screens down."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.browser.screens import (
    PHONE,
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

#: what a page measures at the top of the page (scrollY 0): is a reaction window open for this
#: creature (a legal off-turn option while a roll is pending), and where its first option is
FIRST_OPTION = """() => {
  window.scrollTo(0, 0);
  const pending = document.querySelector('#pending.open') !== null;
  const reaction = document.querySelector('#actions li.option.legal.reaction') !== null;
  // the first thing this creature may do, in page order: the Roll when it is the roller,
  // else its first legal option
  const button = document.querySelector(
    '#now .roll-controls button, #now #actions li.option.legal button');
  const box = button ? button.getBoundingClientRect() : null;
  // not hidden under anything nor clipped by the panel's own scrolling: a tap there hits it
  const hit = box ? document.elementFromPoint(box.left + box.width / 2,
                                              box.top + box.height / 2) : null;
  return {
    window: pending && reaction,
    tappable: !!(hit && button.contains(hit)),
    scrollY: window.scrollY,
    top: box ? box.top : null,
    bottom: box ? box.bottom : null,
    label: button ? button.textContent.trim() : null,
    page: document.documentElement.scrollHeight,
  };
}"""


def windows(pages: dict[str, Page], seq: int, seen: list[dict[str, Any]], step: str) -> None:
    """Every phone that has a window open now: its first option lies inside the first 740 px."""
    same_seq(list(pages.values()), seq)
    for who, page in pages.items():
        m = page.evaluate(FIRST_OPTION)
        if not m["window"]:
            continue
        m.update(who=who, step=step)
        seen.append(m)
        assert m["scrollY"] == 0, m
        assert m["top"] is not None, m
        assert m["top"] >= 0, m
        assert m["bottom"] <= PHONE["height"], f"the first option is below the fold: {m}"
        assert m["tappable"], f"the first option is covered or clipped: {m}"


def step(gm: Page, do: Any) -> int:
    """Do one step and wait until the GM's screen moved on: the new seq."""
    seq = last_seq(gm)
    do()
    expect(gm.locator("#live")).not_to_have_attribute("data-seq", str(seq))
    return last_seq(gm)


def record(screenshots: Path, name: str, seen: list[dict[str, Any]]) -> None:
    """The measured positions, for the issue's notes (build/ is ignored by git)."""
    (screenshots / f"{name}.json").write_text(json.dumps(seen, indent=1))


def gm_on_a_phone(gm: Page) -> None:
    """The GM's Health table is on the first screen of a phone too."""
    gm.set_viewport_size(PHONE)
    gm.evaluate("window.scrollTo(0, 0)")
    top = gm.locator("#creatures").bounding_box()
    assert top is not None
    assert top["y"] + 100 < PHONE["height"], f"the GM's Health table starts at {top['y']} px"


def test_every_window_of_an_action_load_journey_is_on_the_first_screen(
    browser: Browser, server: str, screenshots: Path
) -> None:
    gm, links = open_table(browser, server, "Orc Bridge")
    _ca, a = join(browser, links["bron"])
    _cb, b = join(browser, links["aria"])
    phones = {"bron": a, "aria": b}
    seen: list[dict[str, Any]] = []

    # Bron strikes: Aria's Team Action window opens (R15)
    seq = step(gm, lambda: press(a, "bron: strike orc-brute with sword"))
    windows(phones, seq, seen, "bron strikes: aria may help")
    assert accessibility(b, "aria's phone in a window") == []
    seq = step(gm, lambda: press(b, "aria: help"))
    windows(phones, seq, seen, "aria helped")
    seq = step(gm, lambda: type_command(gm, "gm: pass all"))
    seq = step(gm, lambda: enter_dice(a, [4, 1, 3, 2, 2, 2, 7]))
    seq = step(gm, lambda: press(a, "bron: end turn"))
    # the Brute cleaves Bron: Bron's defence window and Aria's window (R15)
    seq = step(gm, lambda: press(gm, "orc-brute: cleave bron with greataxe"))
    windows(phones, seq, seen, "the brute cleaves bron")
    seq = step(gm, lambda: press(a, "bron: parry"))
    windows(phones, seq, seen, "bron parried")

    assert {m["who"] for m in seen} == {"bron", "aria"}, seen
    assert len(seen) >= 4, seen
    shoot(gm, screenshots, "phone-first-load-gm")
    shoot(b, screenshots, "phone-first-load-player")
    # the GM's Health table is on the GM's first screen, at a laptop's size
    gm.evaluate("window.scrollTo(0, 0)")
    top = gm.locator("#creatures").bounding_box()
    assert top is not None
    record(screenshots, "phone-first-load", [*seen, {"gm_health_table_top": top["y"]}])
    # on the first screen, under the one line of whose turn it is (was 954 px: two
    # screens of a phone, below the roll and every NPC's greyed options)
    assert top["y"] < 200, f"the GM's Health table starts at {top['y']} px"
    gm_on_a_phone(gm)


def test_every_window_of_an_action_point_journey_is_on_the_first_screen(
    browser: Browser, server: str, screenshots: Path
) -> None:
    gm, links = open_table(browser, server, "Bridge Duel")
    _ca, a = join(browser, links["torvald"])
    _cb, b = join(browser, links["kestrel"])
    phones = {"torvald": a, "kestrel": b}
    seen: list[dict[str, Any]] = []

    for faces in ([4, 4, 4], [1, 1, 1, 1], [4, 4, 3], [1, 1, 1]):  # initiative (R30)
        seq = step(gm, lambda faces=faces: enter_dice(gm, faces))
    seq = step(gm, lambda: type_command(a, "torvald: move toward brakka"))
    seq = step(gm, lambda: press(a, "torvald: end turn"))
    # Brakka attacks Torvald: the declaration's window, then the defence window once the
    # damage is rolled (R45: declare → damage → defend)
    seq = step(gm, lambda: press(gm, "brakka: attack torvald"))
    windows(phones, seq, seen, "brakka declares")
    seq = step(gm, lambda: enter_dice(gm, [5]))
    windows(phones, seq, seen, "damage rolled: torvald may defend")
    assert accessibility(a, "torvald's phone in a defence window") == []
    assert any(m["who"] == "torvald" and m["step"].startswith("damage") for m in seen), seen
    seq = step(gm, lambda: press(a, "torvald: block"))
    windows(phones, seq, seen, "torvald blocked")

    assert {m["who"] for m in seen} == {"torvald", "kestrel"}, seen
    # the creatures table fits the phone, "Conditions" and Position included (item 8)
    fits = a.evaluate(
        "() => { const s = document.querySelector('#creatures .scroll');"
        " return [s.clientWidth, s.querySelector('table').scrollWidth]; }"
    )
    assert fits[1] <= fits[0], f"the creatures table is {fits[1]} px in {fits[0]} px"
    assert len(seen) >= 4, seen
    shoot(gm, screenshots, "phone-first-points-gm")
    shoot(a, screenshots, "phone-first-points-player")
    gm.evaluate("window.scrollTo(0, 0)")
    top = gm.locator("#creatures").bounding_box()
    assert top is not None
    record(screenshots, "phone-first-points", [*seen, {"gm_health_table_top": top["y"]}])
    # on the first screen, under the one line of whose turn it is (was 954 px: two
    # screens of a phone, below the roll and every NPC's greyed options)
    assert top["y"] < 200, f"the GM's Health table starts at {top['y']} px"
    gm_on_a_phone(gm)
