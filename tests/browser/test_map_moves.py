"""Moving on the Action Point map (issue 22 item 1), through the real server and a player's
browser at 360×740 and 1280×800, in Warband, Bridge Duel and a scattered encounter of our own
(tests/fixtures/scattered-ap.yaml, creatures at ±50 m):

* a drag of the player's token shows the cost before anything is sent ("Move to (x, y): 2 AP",
  R35: 1 AP moves up to the travel speed, Kestrel's 3 m) and Confirm sends ``move to X,Y``,
  which the engine applies (the token stands there, the AP are spent, the GM's log has it);
* a tap on the map shows a spot's cost too, and Cancel sends nothing;
* the keyboard: Enter on the token, arrow keys move a cursor a meter at a time, Enter shows the
  cost with Confirm focused, Enter sends it;
* the map screen has no serious or critical axe-core violation, its preview open.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.screens import (
    DESKTOP,
    PHONE,
    accessibility,
    last_seq,
    live,
    open_table,
    option,
    type_command,
)

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "scattered-ap.yaml"
WIDE: dict[str, int] = {"width": 1280, "height": 800}
#: R35: Kestrel's and Brakka's travel speeds (action-points/party/kestrel.yaml,
#: monsters/brakka.yaml), meters per AP
SPEED = 3
BRAKKA_SPEED = 2


def open_scattered(browser: Browser, base: str) -> tuple[Page, dict[str, str]]:
    """The GM uploads the scattered encounter on the home page: the GM screen and seat links."""
    gm = browser.new_context(viewport=DESKTOP).new_page()
    gm.goto(f"{base}/")
    gm.set_input_files("#upload-files", str(FIXTURE))
    gm.get_by_role("button", name="Upload and open").click()
    expect(gm.locator("#seats")).to_be_visible()
    live(gm)
    links = {}
    for card in gm.locator("#seats li").all():
        seat = (card.get_attribute("id") or "").removeprefix("seat-")
        links[seat] = card.locator("a.seat-link").get_attribute("href") or ""
    return gm, links


def sit(browser: Browser, link: str, size: dict[str, int]) -> tuple[BrowserContext, Page]:
    """A player opens their invite link in a browser of ``size`` (touch on the phone)."""
    phone = size["width"] < 800
    context = browser.new_context(viewport=size, has_touch=phone, is_mobile=phone)
    page = context.new_page()
    page.goto(link)
    expect(page).to_have_url(re.compile(r"/table$"))
    live(page)
    return context, page


def step(page: Page, act: Any) -> None:
    """Do ``act`` on the GM's page and wait for the screen after it."""
    seq = last_seq(page)
    act()
    expect(page.locator("#live")).not_to_have_attribute("data-seq", str(seq))


def to_turn_of(gm: Page, creature: str) -> None:
    """The GM rolls initiative with the table's dice, then ends turns until ``creature``'s."""
    for _ in range(12):
        roll = option(gm, "roll")
        if roll.count() == 0:
            break
        step(gm, lambda roll=roll: roll.first.click())
    for _ in range(8):
        owner = gm.locator("#map").get_attribute("data-selected")  # the GM's: the turn owner
        if owner == creature:
            return
        step(gm, lambda owner=owner: type_command(gm, f"{owner}: end turn"))
    pytest.fail(f"never {creature}'s turn")


def spot(page: Page, cid: str) -> tuple[float, float]:
    token = page.locator(f"#map-token-{cid}")
    return float(token.get_attribute("data-x") or "nan"), float(
        token.get_attribute("data-y") or "nan"
    )


def screen_point(page: Page, cid: str, east: float, south: float) -> tuple[float, float]:
    """Where on the screen the spot ``east`` m and ``south`` m from ``cid`` lies (the SVG's own
    transform from map units to pixels, the map's meters-to-units scale)."""
    # the map's foot at the window's foot: on a phone the sticky "now" panel covers the top
    page.locator("#map svg").evaluate("svg => svg.scrollIntoView({block: 'end'})")
    got = page.evaluate(
        """([cid, east, south]) => {
          const map = document.getElementById('map');
          const svg = map.querySelector('svg');
          const scale = parseFloat(map.dataset.scale);
          const g = document.getElementById('map-token-' + cid);
          const m = g.transform.baseVal.consolidate().matrix;
          const p = svg.createSVGPoint();
          p.x = m.e + east * scale; p.y = m.f + south * scale;
          const s = p.matrixTransform(svg.getScreenCTM());
          return [s.x, s.y];
        }""",
        [cid, east, south],
    )
    return float(got[0]), float(got[1])


def ap_left(page: Page) -> int:
    text = page.locator("#sheet .vitals").inner_text()
    found = re.search(r"AP (\d+)", text)
    assert found, text
    return int(found.group(1))


def previewed(page: Page) -> tuple[float, float, str]:
    """The spot and cost the map's preview says: 'Move to (x, y): 2 AP (4 m)'."""
    text = page.locator("#map-status").inner_text()
    found = re.match(r"Move to \((-?[\d.]+), (-?[\d.]+)\): (\d+ AP) \(", text)
    assert found, text
    return float(found.group(1)), float(found.group(2)), found.group(3)


def moved_to(page: Page, cid: str, where: tuple[float, float]) -> None:
    token = page.locator(f"#map-token-{cid}")
    expect(token).to_have_attribute("data-x", re.compile(rf"^{where[0]:g}(\.0)?$"))
    expect(token).to_have_attribute("data-y", re.compile(rf"^{where[1]:g}(\.0)?$"))


CASES = {
    "warband": lambda browser, base: open_table(browser, base, "Warband"),
    "bridge-duel": lambda browser, base: open_table(browser, base, "Bridge Duel"),
    "scattered": open_scattered,
}


@pytest.mark.parametrize("size", [PHONE, WIDE], ids=["360px", "1280px"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_drag_tap_and_keys_move_kestrel(
    browser: Browser, server: str, screenshots: Path, case: str, size: dict[str, int]
) -> None:
    gm, links = CASES[case](browser, server)
    to_turn_of(gm, "kestrel")
    _ctx, page = sit(browser, links["kestrel"], size)
    expect(page.locator("#map")).to_have_attribute("data-selected", "kestrel")
    ap = ap_left(page)
    assert ap == 6
    start = spot(page, "kestrel")

    # a drag 4 m east: shown as 2 AP (4 m at 3 m per AP, R35) before anything is sent
    x0, y0 = screen_point(page, "kestrel", 0, 0)
    x1, y1 = screen_point(page, "kestrel", 4, 0)
    seq = last_seq(page)
    assert (
        page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y).closest('g.token')?.id", [x0, y0]
        )
        == "map-token-kestrel"
    ), page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y).outerHTML.slice(0, 300)", [x0, y0]
    )
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x1, y1, steps=8)
    page.mouse.up()
    expect(page.locator("#map-status")).to_contain_text(": 2 AP")
    x, y, cost = previewed(page)
    assert cost == "2 AP"
    assert abs(x - (start[0] + 4)) < 0.6
    assert abs(y - start[1]) < 0.6
    assert last_seq(page) == seq, "nothing is sent before Confirm"
    confirm = page.locator("#map form.map-move button.confirm")
    expect(confirm).to_be_focused()
    expect(confirm).to_have_text("Confirm: 2 AP")
    page.screenshot(path=str(screenshots / f"map-move-{case}-{size['width']}px.png"))
    bad = accessibility(page, f"map {case} {size['width']} px")
    assert bad == [], bad
    confirm.click()
    moved_to(page, "kestrel", (x, y))
    expect(page.locator("#sheet .vitals")).to_contain_text(f"AP {ap - 2}")
    expect(gm.locator("#log")).to_contain_text(f"kestrel: move to {x:g},{y:g}")

    # a tap south of the token (clear of its circle) shows that spot's cost, R35's
    # ceil(distance / 3 m); Cancel sends nothing
    here = spot(page, "kestrel")
    scale = float(page.locator("#map").get_attribute("data-scale") or "nan")
    south = max(2.0, 5.0 / scale)  # 5 map units: past the token's 3.2-unit circle
    tx, ty = screen_point(page, "kestrel", 0, south)
    seq = last_seq(page)
    assert page.evaluate(
        "([x, y]) => !!document.elementFromPoint(x, y).closest('#map svg')", [tx, ty]
    ), "the spot is under another panel"
    page.mouse.click(tx, ty)
    expect(page.locator("#map-status")).to_contain_text(" AP (")
    x, y, cost = previewed(page)
    assert cost == f"{math.ceil(math.hypot(x - here[0], y - here[1]) / SPEED)} AP"
    page.locator("#map form.map-move button.cancel").click()
    expect(page.locator("#map form.map-move")).to_be_hidden()
    assert last_seq(page) == seq
    assert spot(page, "kestrel") == here

    # the keyboard: Enter on the token, three meters south by the arrow key, Enter, Enter
    token = page.locator("#map-token-kestrel")
    token.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#map-status")).to_contain_text("Kestrel is there")
    for _ in range(3):
        page.keyboard.press("ArrowDown")
    expect(page.locator("#map-status")).to_contain_text(": 1 AP (3 m)")
    page.keyboard.press("Enter")
    expect(confirm).to_be_focused()
    goal = (round(here[0], 1), round(here[1] + 3, 1))
    assert previewed(page)[:2] == goal
    page.keyboard.press("Enter")
    moved_to(page, "kestrel", goal)
    expect(page.locator("#map-token-kestrel")).to_be_focused()  # ready for the next move
    expect(page.locator("#sheet .vitals")).to_contain_text(f"AP {ap - 3}")
    expect(gm.locator("#log")).to_contain_text(f"kestrel: move to {goal[0]:g},{goal[1]:g}")
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]


def test_the_gm_selects_a_creature_and_drags_it(
    browser: Browser, server: str, screenshots: Path
) -> None:
    """The GM moves any creature (R48): the map selects the turn owner; tapping another
    creature selects it instead (its rings and reach in words), and dragging the turn owner
    shows the cost and sends the move."""
    gm, _links = open_table(browser, server, "Warband")
    errors: list[str] = []
    gm.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    gm.on("pageerror", lambda e: errors.append(str(e)))
    to_turn_of(gm, "brakka")
    gm.set_viewport_size(WIDE)
    mapped = gm.locator("#map")
    expect(mapped).to_have_attribute("data-selected", "brakka")
    expect(gm.locator('#map .reach-text[data-for="brakka"]')).to_be_visible()
    gm.locator("#map-token-wolf").click()
    expect(mapped).to_have_attribute("data-selected", "wolf")
    expect(gm.locator('#map .reach-text[data-for="wolf"]')).to_be_visible()
    expect(gm.locator('#map .reach-text[data-for="brakka"]')).to_be_hidden()
    expect(gm.locator('#map g.reach[data-for="wolf"]')).not_to_have_class(re.compile(r"\boff\b"))
    gm.locator("#map-token-brakka").click()
    expect(mapped).to_have_attribute("data-selected", "brakka")
    start = spot(gm, "brakka")
    # dropped on the Wolf: the cost is shown, and Confirm is refused with R34's reason beside
    # it (standing creatures keep 0.5 m apart); nothing moves
    wolf = spot(gm, "wolf")
    x0, y0 = screen_point(gm, "brakka", 0, 0)
    x1, y1 = screen_point(gm, "brakka", wolf[0] - start[0], wolf[1] - start[1])
    gm.mouse.move(x0, y0)
    gm.mouse.down()
    gm.mouse.move(x1, y1, steps=6)
    gm.mouse.up()
    expect(gm.locator("#map-status")).to_contain_text(" AP (")
    seq = last_seq(gm)
    gm.locator("#map form.map-move button.confirm").click()
    expect(gm.locator("#map form.map-move output")).to_contain_text("min_spacing")
    assert last_seq(gm) == seq
    assert spot(gm, "brakka") == start
    gm.locator("#map form.map-move button.cancel").click()

    x0, y0 = screen_point(gm, "brakka", 0, 0)
    x1, y1 = screen_point(gm, "brakka", 0, -5)  # 5 m north, toward the party
    gm.mouse.move(x0, y0)
    gm.mouse.down()
    gm.mouse.move(x1, y1, steps=6)
    gm.mouse.up()
    x, y, cost = previewed(gm)
    assert cost == f"{math.ceil(math.hypot(x - start[0], y - start[1]) / BRAKKA_SPEED)} AP"
    bad = accessibility(gm, "GM map, preview open")
    assert bad == [], bad
    gm.screenshot(path=str(screenshots / "map-move-gm-1280px.png"))
    gm.locator("#map form.map-move button.confirm").click()
    moved_to(gm, "brakka", (x, y))
    expect(gm.locator("#log")).to_contain_text(f"brakka: move to {x:g},{y:g}")
    assert errors == [], errors  # the refusal too: no console error, no script error


def test_a_finger_drags_the_token_on_a_phone(browser: Browser, server: str) -> None:
    """Touch (the phone's own events, through the DevTools protocol): a finger on Kestrel's
    token drags it 4 m without scrolling the page, and the spot's cost, 2 AP, is shown (the
    browser used to take the gesture for a scroll and cancel the drag halfway)."""
    gm, links = open_table(browser, server, "Warband")
    to_turn_of(gm, "kestrel")
    context, page = sit(browser, links["kestrel"], PHONE)
    x0, y0 = screen_point(page, "kestrel", 0, 0)
    x1, _ = screen_point(page, "kestrel", 4, 0)
    cdp = context.new_cdp_session(page)
    before = page.evaluate("window.scrollY")

    def touch(kind: str, x: float | None = None) -> None:
        points = [] if x is None else [{"x": x, "y": y0}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", x0)
    for k in range(1, 9):
        touch("touchMove", x0 + (x1 - x0) * k / 8)
    assert page.evaluate("window.scrollY") == before, "the drag scrolled the page"
    touch("touchEnd")
    expect(page.locator("#map-status")).to_contain_text(": 2 AP (")
    x, y, _cost = previewed(page)
    page.locator("#map form.map-move button.confirm").click()
    moved_to(page, "kestrel", (x, y))
    expect(gm.locator("#log")).to_contain_text(f"kestrel: move to {x:g},{y:g}")
