"""Nothing a player taps is lost (issue 22 item 5), and the pages send their commands over the
page socket (issue 20 §1): a tap made offline waits ("waiting to send"), is sent with its
command_id once the socket is back and applied once; refused with the reason (409) if the
table moved on meanwhile; without the socket the forms still post over HTTP."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from tests.browser.screens import join, last_seq, live, open_table, option, press, type_command


def commands(gm: Page, base: str) -> list[str]:
    """The commands in the table's log, read with the GM's cookie (``GET /api/log``)."""
    log = gm.request.get(f"{base}/api/log")
    assert log.ok, log.text()
    events = [json.loads(line) for line in log.text().splitlines() if line]
    return [e["command"] for e in events if "command" in e]


def thrown(page: Page) -> list[str]:
    """Every uncaught script error on the page from now on."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


def posts(page: Page) -> list[str]:
    """Every HTTP POST the page makes from now on (its URLs)."""
    made: list[str] = []
    page.on("request", lambda r: made.append(r.url) if r.method == "POST" else None)
    return made


def test_an_offline_tap_waits_and_is_applied_once_back(browser: Browser, server: str) -> None:
    gm, links = open_table(browser, server, "Orc Bridge")
    ctx, bron = join(browser, links["bron"])
    made = posts(bron)
    errors = thrown(bron)
    ctx.set_offline(True)
    expect(bron.locator("#badge")).to_be_visible()
    press(bron, "bron: end turn")
    waiting = bron.locator("#outbox .waiting-to-send")
    expect(waiting).to_have_text(["waiting to send: bron: end turn"])
    press(bron, "bron: end turn")  # a second tap of the same button: the same command
    expect(waiting).to_have_count(1)
    assert commands(gm, server) == []
    ctx.set_offline(False)
    expect(waiting).to_have_count(0)
    expect(gm.locator("#log")).to_contain_text("bron: end turn")
    expect(bron.locator("#log")).to_contain_text("bron: end turn")
    expect(bron.locator("#badge")).to_be_hidden()
    # once more offline and back: the answered tap is not sent again
    ctx.set_offline(True)
    expect(bron.locator("#badge")).to_be_visible()
    ctx.set_offline(False)
    expect(bron.locator("#badge")).to_be_hidden()
    bron.reload()
    expect(bron.locator("#log")).to_contain_text("bron: end turn")
    live(bron)
    expect(bron.locator("#outbox .waiting-to-send")).to_have_count(0)
    assert commands(gm, server) == ["bron: end turn"]
    assert made == []  # over the page socket, not an HTTP request per tap
    assert errors == []


def test_an_offline_tap_is_refused_with_the_reason_if_the_table_moved_on(
    browser: Browser, server: str
) -> None:
    gm, links = open_table(browser, server, "Orc Bridge")
    ctx, bron = join(browser, links["bron"])
    errors = thrown(bron)
    ctx.set_offline(True)
    expect(bron.locator("#badge")).to_be_visible()
    press(bron, "bron: end turn")
    expect(bron.locator("#outbox .waiting-to-send")).to_have_count(1)
    type_command(gm, "gm: damage orc-brute 1")  # the GM moves the table on meanwhile
    expect(gm.locator("#live")).to_have_attribute("data-seq", "1")
    ctx.set_offline(False)
    refusal = bron.locator("#outbox .refusal[role=alert]")
    expect(refusal).to_contain_text("bron: end turn: not sent: the table moved on")
    expect(refusal).to_contain_text("stale expected_seq 0: the log is at 1")
    expect(bron.locator("#outbox .waiting-to-send")).to_have_count(0)
    assert last_seq(bron) == 1
    assert commands(gm, server) == ["gm: damage orc-brute 1"]
    # the player looks again and taps again: applied, and the refusal goes
    press(bron, "bron: end turn")
    expect(gm.locator("#log")).to_contain_text("bron: end turn")
    expect(refusal).to_have_count(0)
    assert commands(gm, server) == ["gm: damage orc-brute 1", "bron: end turn"]
    assert errors == []


def test_a_refusal_over_the_socket_lands_beside_its_form(browser: Browser, server: str) -> None:
    gm, links = open_table(browser, server, "Orc Bridge")
    _ctx, bron = join(browser, links["bron"])
    made = posts(bron)
    answer = type_command(bron, "gm: damage orc-brute 5")
    expect(answer.locator(".refusal[role=alert]")).not_to_be_empty()
    answer = type_command(bron, "bron: end turn")
    expect(gm.locator("#log")).to_contain_text("bron: end turn")
    expect(bron.locator("#command-text")).to_have_value("")  # cleared once it went through
    assert commands(gm, server) == ["bron: end turn"]
    assert made == []


def test_a_tap_whose_answer_was_lost_is_sent_again_and_applied_once(
    browser: Browser, server: str
) -> None:
    """The server committed the tap but its answer never came (then the socket drops): the tap
    shows as waiting, and the page sends it again with its command_id once reconnected; the
    server answers from the stored answer (one event)."""
    gm, links = open_table(browser, server, "Orc Bridge")
    context = browser.new_context()
    page = context.new_page()
    dropped: list[str] = []
    sent: list[str] = []
    routes: list[tuple[WebSocketRoute, WebSocketRoute]] = []

    def relay(ws: WebSocketRoute) -> None:
        server_side = ws.connect_to_server()

        def to_server(message: str | bytes) -> None:
            sent.append(str(message))
            server_side.send(message)

        def to_page(message: str | bytes) -> None:
            if str(message).startswith("{") and not dropped:  # the first answer: lost
                dropped.append(str(message))
                return
            ws.send(message)

        ws.on_message(to_server)
        server_side.on_message(to_page)
        routes.append((ws, server_side))

    page.route_web_socket("**/ws/screen", relay)
    page.goto(links["bron"])
    live(page)
    press(page, "bron: end turn")
    expect(gm.locator("#log")).to_contain_text("bron: end turn")
    # no answer came: after a while the tap shows as waiting (the socket looks open)
    waiting = page.locator("#outbox .waiting-to-send")
    expect(waiting).to_have_text(["waiting to send: bron: end turn"])
    assert len(dropped) == 1
    ws, server_side = routes[0]
    ws.close(code=1012, reason="restarting")  # then the socket drops; the page reconnects
    server_side.close()
    expect(page.locator("#log")).to_contain_text("bron: end turn")  # reconnected
    expect(page.locator("#outbox .waiting-to-send")).to_have_count(0)
    taps = [json.loads(m) for m in sent if m.startswith("{")]
    assert len(taps) == 2, sent  # sent, and sent again once the socket was back
    assert taps[0]["command_id"] == taps[1]["command_id"]
    assert json.loads(dropped[0])["type"] == "answer"
    assert commands(gm, server) == ["bron: end turn"]


def test_the_forms_use_the_page_socket_and_http_without_it(browser: Browser, server: str) -> None:
    """With the socket the page makes no HTTP request per tap; where the socket never opens
    (a proxy without WebSockets) the same forms post over HTTP as before."""
    gm, links = open_table(browser, server, "Orc Bridge")
    _ctx, bron = join(browser, links["bron"])
    over_socket = posts(bron)
    press(bron, "bron: end turn")
    expect(gm.locator("#log")).to_contain_text("bron: end turn")
    assert over_socket == []
    press(gm, "orc-brute: end turn")
    expect(gm.locator("#turn .whose")).to_contain_text("Aria")
    context = browser.new_context()
    page = context.new_page()
    page.route_web_socket("**/ws/screen", lambda ws: ws.close())
    page.goto(links["aria"])
    over_http = posts(page)
    press(page, "aria: end turn")
    expect(gm.locator("#log")).to_contain_text("aria: end turn")
    assert [u.removeprefix(server) for u in over_http] == ["/table/command"]
    assert commands(gm, server) == ["bron: end turn", "orc-brute: end turn", "aria: end turn"]


def test_without_javascript_the_forms_still_post(browser: Browser, server: str) -> None:
    """A browser without JavaScript posts the form itself: back to its screen, the command in
    the log; a refusal on a page of its own, with the reason and the way back."""
    gm, links = open_table(browser, server, "Orc Bridge")
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(links["bron"])
    expect(page).to_have_url(re.compile(r"/table$"))
    option(page, "bron: end turn").click()
    expect(page).to_have_url(re.compile(r"/table$"))
    expect(page.locator("#log")).to_contain_text("bron: end turn")
    expect(gm.locator("#log")).to_contain_text("bron: end turn")
    page.locator("#command-text").fill("gm: damage orc-brute 5")
    page.locator("#command-box button[type=submit]").click()
    expect(page.get_by_role("alert")).to_contain_text("only the GM may give it")
    page.get_by_role("link", name="Back to the table").click()
    expect(page.locator("#log")).to_contain_text("bron: end turn")
    assert commands(gm, server) == ["bron: end turn"]


def test_a_tap_while_the_socket_reconnects_waits_even_across_a_reload(
    browser: Browser, server: str
) -> None:
    """The server's socket keeps dropping (1012, as a restart does) while the phone is online:
    a tap waits, still waits after a reload (the outbox is kept for the tab), and is applied
    once the socket stays up."""
    gm, links = open_table(browser, server, "Orc Bridge")
    context = browser.new_context()
    page = context.new_page()
    blocked: list[bool] = [False]
    opened: list[WebSocketRoute] = []
    errors = thrown(page)

    def gate(ws: WebSocketRoute) -> None:
        if blocked[0]:
            ws.close(code=1012, reason="restarting")
        else:
            ws.connect_to_server()  # messages pass through both ways
            opened.append(ws)

    page.route_web_socket("**/ws/screen", gate)
    page.goto(links["bron"])
    live(page)
    made = posts(page)
    blocked[0] = True
    gm_seq = last_seq(gm)
    opened[-1].close(code=1012, reason="restarting")  # the page retries, refused each time
    expect(page.locator("#badge")).to_be_visible()
    press(page, "bron: end turn")
    waiting = page.locator("#outbox .waiting-to-send")
    expect(waiting).to_have_text(["waiting to send: bron: end turn"])
    page.reload()
    expect(page.locator("#badge")).to_be_visible()
    expect(waiting).to_have_text(["waiting to send: bron: end turn"])  # kept for the tab
    assert commands(gm, server) == []
    assert last_seq(gm) == gm_seq
    blocked[0] = False  # the server is back: the page's next retry stays up
    expect(waiting).to_have_count(0, timeout=15_000)
    expect(page.locator("#badge")).to_be_hidden()
    expect(gm.locator("#log")).to_contain_text("bron: end turn")
    assert commands(gm, server) == ["bron: end turn"]
    assert made == []
    assert errors == []
