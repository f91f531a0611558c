"""The whole log on the page and the table screen in the browser (issue 22 item 6, the table
view, item 8): a player scrolls back through 100+ entries at 360×740 and 1280×800 while the
table goes on; the TV view updates live after a command and shows no hidden number; a refused
command (over the socket and over HTTP) leaves no console error; a vibration waits for the
first tap; axe finds no serious or critical violation on the log or the TV screen."""

from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect

from tests.browser.screens import accessibility, join, open_table, shoot, type_command

SIZES = {"phone": {"width": 360, "height": 740}, "laptop": {"width": 1280, "height": 800}}
#: a number the GM keeps hidden, as a player's page would show it if it leaked
LEAK = re.compile(r"orc-brute (load )?\d")


def console_errors(page: Page) -> list[str]:
    """Every console error and uncaught script error on the page from now on."""
    errors: list[str] = []

    def seen(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(message.text)

    page.on("console", seen)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


def gm_token(gm: Page) -> str:
    href = gm.locator("#gm-link").get_attribute("href") or ""
    return href.rsplit("/", 1)[-1]


def tool(server: str, token: str, command: str) -> None:
    """A command from a tool (the GM's bearer token): the table goes on without a page."""
    body = {"command": command, "command_id": uuid.uuid4().hex}
    got = httpx.post(
        f"{server}/api/commands", json=body, headers={"Authorization": f"Bearer {token}"}
    )
    assert got.status_code == 200, got.text


def seed(server: str, token: str, count: int) -> None:
    """``count`` GM commands: the brute's Health, which players see only as a label."""
    for n in range(count):
        tool(server, token, "gm: damage orc-brute 1" if n % 2 == 0 else "gm: heal orc-brute 1")


def shown_seqs(page: Page) -> list[int]:
    return [
        int(s)
        for s in page.locator("#log li[data-seq]").evaluate_all(
            "els => els.map(e => e.getAttribute('data-seq'))"
        )
    ]


@pytest.mark.parametrize("size", list(SIZES))
def test_a_player_scrolls_back_through_the_whole_log(
    browser: Browser, server: str, screenshots: Path, size: str
) -> None:
    gm, links = open_table(browser, server, "Orc Bridge")
    token = gm_token(gm)
    seed(server, token, 104)
    ctx, bron = join(browser, links["bron"])
    bron.set_viewport_size(SIZES[size])
    errors = console_errors(bron)
    expect(bron.locator("#log-live li[data-seq]")).to_have_count(30)
    older = bron.get_by_role("button", name="Older entries")
    older.scroll_into_view_if_needed()
    older.click()
    expect(bron.locator("#log-older li[data-seq]")).to_have_count(50)
    # the table goes on meanwhile: new entries arrive at the top, none is lost between
    tool(server, token, "gm: damage orc-brute 1")
    expect(bron.locator("#log-live li[data-seq]").first).to_have_attribute("data-seq", "105")
    while bron.locator(".log-start").count() == 0:
        count = bron.locator("#log-older li[data-seq]").count()
        bron.get_by_role("button", name="Older entries").click()
        bron.wait_for_function(
            "n => document.querySelectorAll('#log-older li[data-seq]').length > n"
            " || document.querySelector('.log-start') !== null",
            arg=count,
        )
    expect(bron.locator(".log-start")).to_have_text("The start of the log.")
    assert shown_seqs(bron) == list(range(105, 0, -1))
    text = bron.locator("#log").inner_text()
    assert "gm: damage orc-brute (hidden)" in text
    assert not LEAK.search(text), LEAK.search(text)
    assert accessibility(bron, f"log {size}") == []
    # item 8: "Conditions" is not clipped, and nothing scrolls sideways
    head = bron.locator("#creatures th", has_text=re.compile("Con"))
    assert head.evaluate("e => e.scrollWidth <= e.clientWidth"), head.inner_text()
    wide = bron.evaluate("document.documentElement.scrollWidth")
    assert wide <= SIZES[size]["width"], wide
    shoot(bron, screenshots, f"log-{size}")
    assert errors == []
    ctx.close()
    gm.context.close()


def test_the_tv_view_is_live_and_read_only(
    browser: Browser, server: str, screenshots: Path
) -> None:
    gm, links = open_table(browser, server, "Orc Bridge")
    token = gm_token(gm)
    tool(server, token, "gm: damage orc-brute 2")
    tool(server, token, "gm: set orc-brute load 3")
    gm.get_by_role("button", name="Make a table screen link").click()
    link = gm.locator("#tv-link-a")
    expect(link).to_be_visible()
    expect(gm.locator('#tv-card svg[role="img"]')).to_have_attribute(
        "aria-label", "QR code: the table screen link"
    )
    url = link.get_attribute("href") or ""
    assert accessibility(gm, "GM screen with the table screen link") == []
    assert "/tv/" in url
    for size in SIZES.values():
        tv_ctx = browser.new_context(viewport=size)
        tv = tv_ctx.new_page()
        errors = console_errors(tv)
        tv.goto(url)
        live_tv(tv)
        brute = tv.locator("#tv-orc-brute .tv-health")
        expect(brute).to_be_visible()
        assert not re.search(r"\d", brute.inner_text()), brute.inner_text()
        before = tv.locator("#tv-live").get_attribute("data-seq")
        # a command on a player's phone: the TV shows the roll and its dice, live
        ctx, bron = join(browser, links["bron"])
        type_command(bron, "bron: strike orc-brute with sword")
        expect(tv.locator("#tv-live")).not_to_have_attribute("data-seq", before or "")
        expect(tv.locator(".tv-roll")).to_contain_text("Bron")
        expect(tv.locator(".tv-roll .die-to-roll").first).to_be_visible()
        assert tv.locator("form").count() == 0  # nothing to tap
        assert not LEAK.search(tv.locator("#tv").inner_text())
        assert accessibility(tv, f"tv {size['width']}") == []
        shoot(tv, screenshots, f"tv-{size['width']}")
        tool(server, token, "gm: undo")
        ctx.close()
        assert errors == []
        tv_ctx.close()
    # revoked on the GM screen: the TV says so
    tv_ctx = browser.new_context(viewport=SIZES["laptop"])
    tv = tv_ctx.new_page()
    tv.goto(url)
    live_tv(tv)
    gm.get_by_role("button", name="Revoke the table screen link").click()
    expect(gm.locator("#tv-card")).to_contain_text("was revoked")
    expect(tv.locator("#tv-live")).to_contain_text("This table screen link was revoked")
    tv_ctx.close()
    gm.context.close()


def live_tv(page: Page) -> None:
    """The TV page is up and its socket open (the badge hidden)."""
    page.wait_for_function("document.getElementById('tv-live') !== null")
    page.wait_for_function(
        "() => { const b = document.getElementById('badge'); return b && b.hidden; }"
    )


def test_a_refused_command_leaves_no_console_error(browser: Browser, server: str) -> None:
    gm, links = open_table(browser, server, "Orc Bridge")
    ctx, bron = join(browser, links["bron"])
    errors = console_errors(bron)
    # over the page socket
    answer = type_command(bron, "gm: damage orc-brute 3")
    expect(answer).to_contain_text("only the GM")
    # over HTTP (htmx's request, as a page without its socket sends it)
    bron.evaluate(
        "htmx.ajax('POST', '/table/command', {target: '#command-box output', values: "
        "{command: 'gm: damage orc-brute 3', command_id: 'http-refusal'}})"
    )
    expect(bron.locator("#command-box output")).to_contain_text("only the GM")
    bron.wait_for_timeout(200)
    assert errors == []
    ctx.close()
    # a page whose socket never opens posts its forms over HTTP: refused, no console error,
    # and the refused text stays in the box to be corrected
    ctx, aria = join_without_socket(browser, links["aria"])
    errors = console_errors(aria)
    answer = type_command(aria, "gm: damage orc-brute 3")
    expect(answer).to_contain_text("only the GM")
    expect(aria.locator("#command-text")).to_have_value("gm: damage orc-brute 3")
    aria.wait_for_timeout(200)
    assert errors == []
    ctx.close()
    gm.context.close()


def join_without_socket(browser: Browser, link: str) -> tuple[Any, Page]:
    """A phone whose page socket is refused (a proxy that drops WebSockets, say)."""
    context = browser.new_context(viewport=SIZES["phone"], has_touch=True, is_mobile=True)
    page = context.new_page()
    page.route_web_socket("**/ws/screen", lambda ws: ws.close())
    page.goto(link)
    expect(page.locator("#command-text")).to_be_visible()
    return context, page


def test_a_vibration_waits_for_the_first_tap(browser: Browser, server: str) -> None:
    """Chromium blocks navigator.vibrate before the page's first tap (and logs it): the cue
    is given only once the player has tapped."""
    gm, links = open_table(browser, server, "Orc Bridge")
    token = gm_token(gm)
    ctx, aria = join(browser, links["aria"])
    tool(server, token, "bron: strike orc-brute with sword")  # a window opens for Aria
    expect(aria.locator("#actions.cue")).to_be_visible()
    assert aria.evaluate("window.vibrations.length") == 0  # no tap yet: no call
    aria.locator("#turn").click()  # her first tap
    tool(server, token, "gm: undo")
    expect(aria.locator("#actions.cue")).to_have_count(0)
    tool(server, token, "bron: strike orc-brute with sword")
    expect(aria.locator("#actions.cue")).to_be_visible()
    aria.wait_for_function("window.vibrations.length === 1")
    ctx.close()
    gm.context.close()


def test_conditions_fit_at_360_px_on_the_widest_table(browser: Browser, server: str) -> None:
    """Item 8: "Conditions" was clipped at 360 px; the Action Point table (a Position column
    too, six creatures) is the widest a player sees."""
    gm, links = open_table(browser, server, "Warband")
    ctx, page = join(browser, next(iter(links.values())))
    head = page.locator("#creatures th", has_text=re.compile("Con"))
    expect(head).to_be_visible()
    assert head.evaluate("e => e.scrollWidth <= e.clientWidth"), head.inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    ctx.close()
    gm.context.close()


def test_the_next_encounter_starts_the_pages_again(browser: Browser, server: str) -> None:
    """The log starts again with the night's next encounter: the pages fetched of the one
    before go, "Older entries" pages the new log."""
    gm, links = open_table(browser, server, "Orc Bridge")
    token = gm_token(gm)
    seed(server, token, 40)
    ctx, bron = join(browser, links["bron"])
    bron.get_by_role("button", name="Older entries").click()
    expect(bron.locator("#log-older li[data-seq]")).to_have_count(10)
    expect(bron.locator(".log-start")).to_be_visible()
    got = httpx.post(
        f"{server}/api/encounters",
        json={"encounter": "orc-bridge"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert got.status_code == 201, got.text
    expect(bron.locator("#log-live .log-empty")).to_be_visible()
    expect(bron.locator("#log-older li")).to_have_count(0)
    seed(server, token, 33)
    expect(bron.locator("#log-live li[data-seq]").first).to_have_attribute("data-seq", "33")
    bron.get_by_role("button", name="Older entries").click()
    expect(bron.locator(".log-start")).to_be_visible()
    assert shown_seqs(bron) == list(range(33, 0, -1))
    ctx.close()
    gm.context.close()


def test_a_refused_page_is_said_beside_the_button(browser: Browser, server: str) -> None:
    """A seat revoked meanwhile: "Older entries" says why, nothing lands in the log, and the
    console stays clean (the refusal is answered 200 with its status in a header)."""
    gm, links = open_table(browser, server, "Orc Bridge")
    seed(server, gm_token(gm), 40)
    ctx, bron = join(browser, links["bron"])
    errors = console_errors(bron)
    got = httpx.post(
        f"{server}/api/seats/bron/reissue", headers={"Authorization": f"Bearer {gm_token(gm)}"}
    )
    assert got.status_code == 200, got.text
    expect(bron.locator("#live")).to_contain_text("This seat was revoked")
    bron.get_by_role("button", name="Older entries").click()
    expect(bron.locator("#log-more .refusal")).to_have_text(
        "Older entries: unknown or revoked seat token"
    )
    expect(bron.locator("#log-older li")).to_have_count(0)
    assert errors == []
    ctx.close()
    gm.context.close()


def test_a_double_tap_on_older_fetches_one_page(browser: Browser, server: str) -> None:
    """htmx sends no second request from an element while its first is in flight: a double
    tap fetches one page, and no entry is listed twice."""
    gm, links = open_table(browser, server, "Orc Bridge")
    seed(server, gm_token(gm), 100)
    ctx, bron = join(browser, links["bron"])
    bron.get_by_role("button", name="Older entries").dblclick()
    expect(bron.locator("#log-older li[data-seq]")).to_have_count(50)
    bron.get_by_role("button", name="Older entries").click()
    expect(bron.locator(".log-start")).to_be_visible()
    assert shown_seqs(bron) == list(range(100, 0, -1))
    ctx.close()
    gm.context.close()
