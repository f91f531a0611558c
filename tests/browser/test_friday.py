"""Friday night (issue 22, the last "Done means" item): two journeys a group would play, through
the pages only, the GM on a 1280×800 laptop and two players on 360×740 phones (touch):

* **Goblin Ambush** (Action Load): the GM opens the table from the home page and a table screen
  (TV) link; the archer shoots Aria (her and Bron's windows are on their first screen, R15); the
  GM changes a goblin's Health with its row's − / +; Aria strikes in two taps (the strike, the
  Roll); Bron's strike made offline waits ("waiting to send") and is applied once when back;
  the GM plays Cass's turn (no seat) by tapping her row; the TV follows live; "Older entries"
  reaches the start of the log; the GM's live chance panel shows a figure.
* **Warband** (Action Points): Kestrel drags her token on the map, sees the AP cost (R35) and
  confirms the move; Brakka's attack opens Torvald's defence window, whose choices say the
  chance of no damage, the expected damage taken and "1 RP" (R40, R45, R32); Torvald blocks in
  two taps; the GM plays Maren's turn (no seat) from her row and changes Health on a row; a tap
  made offline is applied once; the TV follows live.

axe-core runs on every distinct screen visited (GM, phone in and out of a window, TV, the map
preview); every violation is collected and asserted absent at the end. Screenshots go to
build/screenshots (ignored by git). The server runs with the live chance on
(tests/browser/test_chance.py's server)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, expect

from tests.browser.screens import (
    accessibility,
    dice_count,
    enter_dice,
    join,
    last_seq,
    live,
    option,
    press,
    same_seq,
    shoot,
    type_command,
)
from tests.browser.test_chance import FIRST, chance_server  # noqa: F401  (the fixture)
from tests.browser.test_map_moves import moved_to, previewed, screen_point, spot
from tests.browser.test_phone_first import windows

LAPTOP: ViewportSize = {"width": 1280, "height": 800}


def open_gm(browser: Browser, base: str, title: str) -> tuple[Page, dict[str, str]]:
    """The GM opens ``title`` from the home page on a laptop: the GM screen, the seat links."""
    gm = browser.new_context(viewport=LAPTOP).new_page()
    gm.goto(f"{base}/")
    gm.get_by_role("button", name=f"Open table: {title}").click()
    expect(gm.locator("#seats")).to_be_visible()
    live(gm)
    links = {
        (card.get_attribute("id") or "").removeprefix("seat-"): card.locator(
            "a.seat-link"
        ).get_attribute("href")
        or ""
        for card in gm.locator("#seats li").all()
    }
    assert links, "the GM screen shows no seat"
    assert all(links.values()), links
    return gm, links


def open_tv(browser: Browser, gm: Page) -> tuple[BrowserContext, Page]:
    """The GM makes the table screen link and opens it on another screen (the TV)."""
    gm.get_by_role("button", name="Make a table screen link").click()
    link = gm.locator("#tv-link-a")
    expect(link).to_be_visible()
    context = browser.new_context(viewport=LAPTOP)
    tv = context.new_page()
    tv.goto(link.get_attribute("href") or "")
    tv.wait_for_function("document.getElementById('tv-live') !== null")
    tv.wait_for_function(
        "() => { const b = document.getElementById('badge'); return b && b.hidden; }"
    )
    return context, tv


def step(gm: Page, do: Any) -> int:
    """Do one step and wait until the GM's screen moved on: the new seq."""
    seq = last_seq(gm)
    do()
    expect(gm.locator("#live")).not_to_have_attribute("data-seq", str(seq))
    return last_seq(gm)


def resolve(gm: Page, face: int) -> int:
    """The GM closes what is pending: everyone else passes, each roll is entered as dice all
    showing ``face`` (physical dice, R5), until no roll is pending."""
    for _ in range(8):
        if "No roll pending" in gm.locator("#pending").inner_text():
            return last_seq(gm)
        if option(gm, "gm: pass all").count():
            step(gm, lambda: press(gm, "gm: pass all"))
        else:
            step(gm, lambda: enter_dice(gm, [face] * dice_count(gm)))
    raise AssertionError("the roll never closed: " + gm.locator("#pending").inner_text())


def tap_row(gm: Page, creature: str, command: str) -> None:
    """The GM taps ``command`` among the choices on ``creature``'s row."""
    button = gm.locator(
        f'#row-{creature} form.cmd:has(input[name=command][value="{command}"]) button'
    )
    expect(button).to_be_visible()
    button.click()


def first_choice(page: Page, scope: str, prefix: str) -> str:
    """The first offered command in ``scope`` that starts with ``prefix``."""
    values = page.locator(f"{scope} form.cmd input[name=command]").evaluate_all(
        "els => els.map(e => e.value)"
    )
    found = [v for v in values if v.startswith(prefix)]
    assert found, f"no {prefix!r} among {values}"
    return str(found[0])


def commands(gm: Page, base: str) -> list[str]:
    """The commands in the table's log, read with the GM's cookie (``GET /api/log``)."""
    log = gm.request.get(f"{base}/api/log")
    assert log.ok, log.text()
    events = [json.loads(line) for line in log.text().splitlines() if line]
    return [e["command"] for e in events if "command" in e]


def offline_tap(context: BrowserContext, page: Page, gm: Page, base: str, command: str) -> None:
    """A tap made offline waits, shown as "waiting to send"; back online it is applied once."""
    before = commands(gm, base).count(command)
    context.set_offline(True)
    expect(page.locator("#badge")).to_be_visible()
    option(page, command).click()
    expect(page.locator("#outbox .waiting-to-send")).to_have_text([f"waiting to send: {command}"])
    assert commands(gm, base).count(command) == before  # nothing reached the table yet
    context.set_offline(False)
    expect(page.locator("#outbox .waiting-to-send")).to_have_count(0)
    expect(gm.locator("#log")).to_contain_text(command)
    expect(page.locator("#badge")).to_be_hidden()
    assert commands(gm, base).count(command) == before + 1  # one event, not two


def end_turns_until(gm: Page, phones: dict[str, Page], name: str) -> None:
    """Each creature ends its turn (a player on their phone, the GM on its row) until
    ``name``'s turn."""
    for _ in range(10):
        if name in gm.locator("#turn .whose").inner_text():
            return
        ends = [
            v
            for v in gm.locator("#creatures form.cmd input[name=command]").evaluate_all(
                "els => els.map(e => e.value)"
            )
            if v.endswith(": end turn")
        ]
        assert len(ends) == 1, ends  # only the creature whose turn it is may end it
        who = ends[0].split(":")[0]
        page = phones.get(who, gm)
        step(gm, lambda page=page, end=ends[0]: press(page, end))
    raise AssertionError(f"never {name}'s turn")


def shown_seqs(page: Page) -> list[int]:
    """The log entries on the page, top to bottom (newest first)."""
    seqs = page.locator("#log li[data-seq]").evaluate_all(
        "els => els.map(e => +e.getAttribute('data-seq'))"
    )
    return [int(s) for s in seqs]


def roll_button(page: Page) -> Any:
    """The Roll button of the pending roll in the phone's "now" panel (the table's dice)."""
    return page.locator("#now .roll-controls button").first


def test_goblin_ambush_on_a_friday(
    browser: Browser,
    chance_server: str,  # noqa: F811
    screenshots: Path,
) -> None:
    base = chance_server
    gm, links = open_gm(browser, base, "Goblin Ambush")
    bad: list[str] = []
    _tv_ctx, tv = open_tv(browser, gm)
    bad += accessibility(gm, "GM screen (Action Load)")
    bad += accessibility(tv, "TV (Action Load)")
    _ca, aria = join(browser, links["aria"])
    ctx_b, bron = join(browser, links["bron"])
    phones = {"aria": aria, "bron": bron}
    seen: list[dict[str, Any]] = []
    bad += accessibility(bron, "phone out of a window (Action Load)")

    # round 1: the archer (the GM's, from its row) shoots Aria: both phones get a window
    seq = step(gm, lambda: tap_row(gm, "goblin-archer", "goblin-archer: shoot aria with shortbow"))
    windows(phones, seq, seen, "the archer shoots aria")
    assert {m["who"] for m in seen} == {"aria", "bron"}, seen
    bad += accessibility(aria, "phone in a window (Action Load)")
    expect(tv.locator(".tv-roll")).to_contain_text("Goblin Archer")  # the TV, live
    seq = step(gm, lambda: press(aria, "aria: dodge"))
    windows(phones, seq, seen, "aria dodged")
    resolve(gm, 1)
    step(gm, lambda: tap_row(gm, "goblin-archer", "goblin-archer: end turn"))

    # Goblin 1's turn: the GM changes its Health with the row's − and +
    step(gm, lambda: gm.get_by_role("button", name="Health − 1 for Goblin 1").click())
    expect(gm.locator("#row-goblin-1 .vitals")).to_contain_text("9/10")
    step(gm, lambda: gm.get_by_role("button", name="Health + 1 for Goblin 1").click())
    expect(gm.locator("#row-goblin-1 .vitals")).to_contain_text("10/10")
    step(gm, lambda: tap_row(gm, "goblin-1", "goblin-1: end turn"))

    # Aria's turn: a strike in two taps, the strike and the Roll
    expect(aria.locator("#turn .whose")).to_contain_text("Aria")
    strike = first_choice(aria, "#actions", "aria: strike hobgoblin-captain")
    taps = 0
    seq = step(gm, lambda: press(aria, strike))
    taps += 1
    windows(phones, seq, seen, "aria strikes")
    if option(gm, "gm: pass all").count():  # the others' windows (R15): the GM closes them
        step(gm, lambda: press(gm, "gm: pass all"))
    expect(roll_button(aria)).to_be_visible()
    step(gm, lambda: roll_button(aria).click())
    taps += 1
    assert taps <= 2
    expect(gm.locator("#log")).to_contain_text(re.compile(r"Aria rolls \d+d4"))
    resolve(gm, 1)
    step(gm, lambda: press(aria, "aria: end turn"))

    # Bron's turn: his strike, tapped while his phone is offline, is applied once back
    expect(bron.locator("#turn .whose")).to_contain_text("Bron")
    offline_tap(ctx_b, bron, gm, base, first_choice(bron, "#actions", "bron: strike goblin-2"))
    resolve(gm, 1)
    step(gm, lambda: press(bron, "bron: end turn"))
    step(gm, lambda: tap_row(gm, "goblin-2", "goblin-2: end turn"))

    # Cass has no seat: the GM plays her turn by tapping her row
    expect(gm.locator("#actor-cass")).to_have_attribute("open", "")
    cass = first_choice(gm, "#row-cass", "cass: strike goblin-2")
    seq = step(gm, lambda: tap_row(gm, "cass", cass))
    windows(phones, seq, seen, "cass strikes")
    expect(aria.locator("#log")).to_contain_text(cass)
    resolve(gm, 1)
    step(gm, lambda: tap_row(gm, "cass", "cass: end turn"))
    step(gm, lambda: tap_row(gm, "hobgoblin-captain", "hobgoblin-captain: end turn"))
    seq = step(gm, lambda: tap_row(gm, "dain", "dain: end turn"))
    expect(tv.locator("#tv-live")).to_have_attribute("data-seq", str(seq))
    expect(tv.locator("#tv")).to_contain_text("round 2")
    same_seq([aria, bron], seq)

    # round 2: the NPCs attack from their rows, every window measured; Dain (no seat) strikes
    for npc, target in (("goblin-archer", "shoot bron"), ("goblin-1", "strike aria")):
        attack = first_choice(gm, f"#row-{npc}", f"{npc}: {target}")
        seq = step(gm, lambda npc=npc, attack=attack: tap_row(gm, npc, attack))
        windows(phones, seq, seen, f"round 2: {attack}")
        resolve(gm, 1)
        step(gm, lambda npc=npc: tap_row(gm, npc, f"{npc}: end turn"))
    # Aria's dice are the table's (random): whoever is still up ends their turn until Dain's
    end_turns_until(gm, phones, "Dain")
    dain = first_choice(gm, "#row-dain", "dain: strike goblin-1")
    seq = step(gm, lambda: tap_row(gm, "dain", dain))
    windows(phones, seq, seen, "round 2: dain strikes")
    seq = resolve(gm, 1)
    expect(tv.locator("#tv-live")).to_have_attribute("data-seq", str(seq))
    same_seq([aria, bron], seq)

    # the log on Bron's phone: every entry since he joined kept on the page as the live list
    # moved on; reloaded (a phone woken up), 30 entries and "Older entries" back to the start
    assert seq > 30, seq
    assert shown_seqs(bron) == list(range(seq, 0, -1))
    bron.reload()
    live(bron)
    expect(bron.locator("#log-live li[data-seq]")).to_have_count(30)
    older = bron.get_by_role("button", name="Older entries")
    older.scroll_into_view_if_needed()
    while bron.locator(".log-start").count() == 0:
        count = bron.locator("#log li[data-seq]").count()
        bron.get_by_role("button", name="Older entries").click()
        bron.wait_for_function(
            "n => document.querySelectorAll('#log li[data-seq]').length > n"
            " || document.querySelector('.log-start') !== null",
            arg=count,
        )
    assert shown_seqs(bron) == list(range(seq, 0, -1))

    # the GM's live chance of winning: a figure
    figure = gm.locator("#chance .chance-now")
    expect(figure).to_contain_text(re.compile(r"PCs win \d+(\.\d+)?%"), timeout=FIRST)
    bad += accessibility(gm, "GM screen after two rounds (Action Load)")
    bad += accessibility(tv, "TV after two rounds (Action Load)")
    shoot(gm, screenshots, "friday-load-gm")
    shoot(aria, screenshots, "friday-load-aria")
    shoot(tv, screenshots, "friday-load-tv")
    (screenshots / "friday-load-windows.json").write_text(json.dumps(seen, indent=1))
    assert len(seen) >= 5, seen
    assert bad == [], bad


#: Warband's initiative (R30), as the GM enters it: Torvald 9, Maren 6, Kestrel 16, Brakka 12,
#: Wolf 5, the archer 3 — Kestrel, Brakka, Torvald, Maren, Wolf, Bandit Archer
INITIATIVE = ([3, 3, 3], [2, 2, 2], [4, 4, 4, 4], [4, 4, 4], [1] * 5, [1, 1, 1])


def test_warband_on_a_friday(
    browser: Browser,
    chance_server: str,  # noqa: F811
    screenshots: Path,
) -> None:
    base = chance_server
    gm, links = open_gm(browser, base, "Warband")
    bad: list[str] = []
    _tv_ctx, tv = open_tv(browser, gm)
    ctx_t, torvald = join(browser, links["torvald"])
    ctx_k, kestrel = join(browser, links["kestrel"])
    phones = {"torvald": torvald, "kestrel": kestrel}
    seen: list[dict[str, Any]] = []
    for faces in INITIATIVE:
        step(gm, lambda faces=faces: enter_dice(gm, faces))
    expect(gm.locator("#turn .whose")).to_contain_text("Kestrel")
    bad += accessibility(gm, "GM screen (Action Points)")
    bad += accessibility(torvald, "phone out of a window (Action Points)")

    # Kestrel drags her token 4 m east: the cost (R35: 3 m per AP, 2 AP) before any is sent
    start = spot(kestrel, "kestrel")
    x0, y0 = screen_point(kestrel, "kestrel", 0, 0)
    x1, y1 = screen_point(kestrel, "kestrel", 4, 0)
    seq = last_seq(kestrel)
    kestrel.mouse.move(x0, y0)
    kestrel.mouse.down()
    kestrel.mouse.move(x1, y1, steps=8)
    kestrel.mouse.up()
    expect(kestrel.locator("#map-status")).to_contain_text(": 2 AP")
    x, y, cost = previewed(kestrel)
    assert cost == "2 AP"
    assert abs(x - (start[0] + 4)) < 0.6
    assert abs(y - start[1]) < 0.6
    assert last_seq(kestrel) == seq, "nothing is sent before Confirm"
    bad += accessibility(kestrel, "map preview (Action Points)")
    shoot(kestrel, screenshots, "friday-points-map-preview")
    step(gm, lambda: kestrel.locator("#map form.map-move button.confirm").click())
    moved_to(kestrel, "kestrel", (x, y))
    expect(gm.locator("#log")).to_contain_text(f"kestrel: move to {x:g},{y:g}")
    expect(tv.locator("#tv-live")).to_have_attribute("data-seq", str(last_seq(gm)))  # live
    # her end of turn, tapped offline: applied once back
    offline_tap(ctx_k, kestrel, gm, base, "kestrel: end turn")

    # the GM puts Brakka beside Torvald (R34: the GM places), and on Brakka's turn attacks
    step(gm, lambda: type_command(gm, "gm: set brakka at 1,1"))
    found = re.search(r"\d+/\d+", gm.locator("#row-torvald .vitals").inner_text())
    assert found, gm.locator("#row-torvald .vitals").inner_text()
    whole = found[0]
    seq = step(gm, lambda: tap_row(gm, "brakka", "brakka: attack torvald"))
    windows(phones, seq, seen, "brakka attacks torvald")
    expect(tv.locator(".tv-roll")).to_contain_text("Brakka")
    seq = step(gm, lambda: enter_dice(gm, [5]))  # the damage (R45: declare → damage → defend)
    windows(phones, seq, seen, "damage rolled: torvald may defend")
    assert any(m["who"] == "torvald" and m["step"].startswith("damage") for m in seen), seen
    bad += accessibility(torvald, "phone in a defence window (Action Points)")
    # each defence says its consequence and its price (R40, R45; off-turn 1 RP, R32)
    for choice in ("block", "dodge", "cover"):
        row = torvald.locator(
            f'#actions li.option:has(input[name=command][value="torvald: {choice}"])'
        )
        expect(row).to_contain_text(re.compile(r"\d+(\.\d+)?% to take no damage"))
        expect(row).to_contain_text("expected damage taken")
        expect(row).to_contain_text("cost 1 RP")
        expect(row).not_to_contain_text("RP -")
    no_defence = torvald.locator(
        '#actions li.option:has(input[name=command][value="torvald: pass"])'
    )
    expect(no_defence).to_contain_text("0.0% to take no damage, 2.00 expected damage taken")
    shoot(torvald, screenshots, "friday-points-defence")
    # Block in two taps: the choice, then the Roll of its dice
    step(gm, lambda: press(torvald, "torvald: block"))
    expect(roll_button(torvald)).to_be_visible()
    step(gm, lambda: roll_button(torvald).click())
    expect(gm.locator("#log")).to_contain_text(re.compile(r"Torvald rolls 3d4"))
    resolve(gm, 1)
    # the Block's dice always meet 3 damage (100.0% to take no damage): his Health is whole
    expect(gm.locator("#row-torvald .vitals")).to_contain_text(whole)
    step(gm, lambda: tap_row(gm, "brakka", "brakka: end turn"))

    # Torvald's turn: his attack on Brakka, one tap
    expect(torvald.locator("#turn .whose")).to_contain_text("Torvald")
    seq = step(gm, lambda: press(torvald, "torvald: attack brakka"))
    windows(phones, seq, seen, "torvald attacks")
    resolve(gm, 1)
    step(gm, lambda: press(torvald, "torvald: end turn"))

    # Maren has no seat: the GM moves her and ends her turn from her row
    expect(gm.locator("#actor-maren")).to_have_attribute("open", "")
    move = first_choice(gm, "#row-maren", "maren: move to")
    step(gm, lambda: tap_row(gm, "maren", move))
    expect(torvald.locator("#log")).to_contain_text(move)
    # the GM changes the Wolf's Health on its row, − then +
    wolf = gm.locator("#row-wolf .vitals")
    found = re.search(r"(\d+)/(\d+)", wolf.inner_text())
    assert found, wolf.inner_text()
    health, most = int(found[1]), int(found[2])
    step(gm, lambda: gm.get_by_role("button", name="Health − 1 for Wolf").click())
    expect(wolf).to_contain_text(f"{health - 1}/{most}")
    step(gm, lambda: gm.get_by_role("button", name="Health + 1 for Wolf").click())
    expect(wolf).to_contain_text(f"{health}/{most}")
    seq = step(gm, lambda: tap_row(gm, "maren", "maren: end turn"))
    expect(tv.locator("#tv-live")).to_have_attribute("data-seq", str(seq))
    expect(tv.locator("#tv")).to_contain_text("Wolf")
    same_seq([torvald, kestrel], seq)

    bad += accessibility(gm, "GM screen after a round (Action Points)")
    bad += accessibility(tv, "TV (Action Points)")
    shoot(gm, screenshots, "friday-points-gm")
    shoot(tv, screenshots, "friday-points-tv")
    (screenshots / "friday-points-windows.json").write_text(json.dumps(seen, indent=1))
    assert {m["who"] for m in seen} == {"torvald", "kestrel"}, seen
    ctx_t.close()
    assert bad == [], bad
