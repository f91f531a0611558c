"""Steps the browser journeys share: open a table, join a seat, give a command by its button,
enter physical dice, and check a screen with axe-core (no serious or critical violation)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, expect

DESKTOP: dict[str, int] = {"width": 1280, "height": 900}
PHONE: dict[str, int] = {"width": 360, "height": 740}


def open_table(browser: Browser, base: str, title: str) -> tuple[Page, dict[str, str]]:
    """The GM opens ``title`` from the home page: the GM screen and each seat's link."""
    context = browser.new_context(viewport=DESKTOP)
    gm = context.new_page()
    gm.goto(f"{base}/")
    gm.get_by_role("button", name=f"Open table: {title}").click()
    expect(gm.locator("#seats")).to_be_visible()
    live(gm)
    links = {}
    for card in gm.locator("#seats li").all():
        seat = (card.get_attribute("id") or "").removeprefix("seat-")
        links[seat] = card.locator("a.seat-link").get_attribute("href") or ""
    assert links, "the GM screen shows no seat"
    assert all(links.values()), links
    return gm, links


def join(browser: Browser, link: str) -> tuple[BrowserContext, Page]:
    """A player opens their invite link on a phone-sized screen: their own screen."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    # record the vibration cue (headless Chromium has no motor to ask)
    context.add_init_script(
        "window.vibrations = [];"
        "navigator.vibrate = (p) => { window.vibrations.push(p); return true; };"
    )
    page = context.new_page()
    page.goto(link)
    expect(page).to_have_url(re.compile(r"/table$"))
    live(page)
    return context, page


def live(page: Page) -> None:
    """Wait until the page socket is open (the badge is hidden once it is)."""
    page.wait_for_function("document.getElementById('table') !== null")
    page.wait_for_function(
        "() => { const b = document.getElementById('badge'); return b && b.hidden; }"
    )


def option(page: Page, command: str) -> Any:
    """The button of the offered command ``command`` (the engine's notation)."""
    return page.locator(f'form.cmd:has(input[name=command][value="{command}"]) button')


def press(page: Page, command: str) -> None:
    """Give ``command`` by its button; wait until the page shows the command in its log."""
    button = option(page, command)
    expect(button).to_be_enabled()
    button.click()


def type_command(page: Page, text: str) -> Any:
    """Send ``text`` from the command box; the form's answer slot (refusals land there)."""
    box = page.locator("#command-text")
    box.fill(text)
    page.locator("#command-box button[type=submit]").click()
    return page.locator("#command-box output")


def enter_dice(page: Page, faces: list[int]) -> Any:
    """Type physical dice into the pending roll's fields, one field per die (R5)."""
    form = page.locator("#pending form.physical")
    expect(form).to_be_visible()
    fields = form.locator("input[name=die]")
    assert fields.count() == len(faces), f"{fields.count()} fields for {faces}"
    for field, value in zip(fields.all(), faces, strict=True):
        field.fill(str(value))
    form.locator("button[type=submit]").click()
    return form.locator("output")


def dice_count(page: Page) -> int:
    """How many dice the pending roll takes: one field per die."""
    form = page.locator("#pending form.physical")
    expect(form).to_be_visible()
    return form.locator("input[name=die]").count()


def last_seq(page: Page) -> int:
    return int(page.locator("#live").get_attribute("data-seq") or "0")


def same_seq(pages: list[Page], seq: int) -> None:
    for page in pages:
        expect(page.locator("#live")).to_have_attribute("data-seq", str(seq))


def accessibility(page: Page, what: str) -> list[str]:
    """axe-core's serious and critical violations on the page, as ``rule: nodes`` lines."""
    results = Axe().run(page)
    bad = [
        v
        for v in results.response.get("violations", [])
        if v.get("impact") in ("serious", "critical")
    ]
    return [
        f"{what}: {v['id']} ({v['impact']}): {v['help']} — {len(v['nodes'])} node(s)" for v in bad
    ]


def shoot(page: Page, folder: Path, name: str) -> None:
    """A full-page screenshot at the page's size and at 360 px wide (then back)."""
    size = page.viewport_size or DESKTOP
    page.screenshot(path=str(folder / f"{name}-{size['width']}px.png"), full_page=True)
    other = PHONE if size["width"] > PHONE["width"] else DESKTOP
    page.set_viewport_size(other)
    page.screenshot(path=str(folder / f"{name}-{other['width']}px.png"), full_page=True)
    page.set_viewport_size(size)
