"""The live chance of winning in Chromium (issue 23 item 4): on Orc Bridge the GM's screen shows
P(PC win) with its interval and the line over the log; the line moves after Bron's hit; Bron's
phone is sent nothing of it (every socket frame checked) until the GM ticks "Show it to the
players", then shows the same figure; axe finds no serious or critical violation, at 360×740
and 1280×800. The server here runs with the chance on (``caltrop serve``'s default)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import serve
from tests.browser.screens import PHONE, accessibility, live, open_table, press

SERVE = """
import sys, uvicorn
from caltrop.web import Settings, create_app
port = int(sys.argv[2])
settings = Settings(database_url=sys.argv[1], base_url=f"http://127.0.0.1:{port}", chance=True,
                    chance_n=400)
uvicorn.run(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
"""
LAPTOP: dict[str, int] = {"width": 1280, "height": 800}
#: the worker process starts and loads the compiled kernels before its first answer
FIRST = 90_000


@pytest.fixture(scope="module")
def chance_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serve(tmp_path_factory.mktemp("chance-server"), SERVE)


def after(page: Page, seq: int, timeout: int = 30_000) -> str:
    """Wait for the panel's figure after event ``seq``; the figure."""
    now = page.locator("#chance .chance-now")
    expect(now).to_contain_text(re.compile(rf"after #{seq}\b"), timeout=timeout)
    found = re.search(r"PCs win ([\d.]+%)", now.inner_text())
    assert found is not None
    return found[1]


def seq_of(page: Page) -> int:
    return int(page.locator("#live").get_attribute("data-seq") or "0")


def test_the_line_moves_after_a_hit_and_a_player_sees_it_only_when_shown(
    browser: Browser, chance_server: str, screenshots: Path
) -> None:
    gm, links = open_table(browser, chance_server, "Orc Bridge")
    gm.set_viewport_size(LAPTOP)
    start = after(gm, 0, FIRST)
    said = gm.locator("#chance .chance-now").inner_text()
    assert re.search(r"PCs win [\d.]+% \(95%: [\d.]+%–[\d.]+%, 400 fights", said), said
    # Bron's phone, every frame its sockets are sent recorded
    frames: list[str] = []
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    bron = context.new_page()

    def listen(ws: Any) -> None:
        ws.on("framereceived", lambda payload: frames.append(str(payload)))

    bron.on("websocket", listen)
    bron.goto(links["bron"])
    live(bron)

    press(gm, "bron: strike orc-brute with sword")
    press(gm, "gm: pass all")
    before_hit = after(gm, seq_of(gm))
    line = gm.locator("#chance polyline.line").get_attribute("points")
    fields = gm.locator("#pending form.physical input[name=die]")
    for field in fields.all():  # every die at its highest: a hit
        field.fill(field.get_attribute("data-faces") or "4")
    gm.locator("#pending form.physical button[type=submit]").click()
    expect(gm.locator("#log")).to_contain_text("damage")
    hit = after(gm, seq_of(gm))
    assert hit != before_hit, (start, before_hit, hit)
    assert gm.locator("#chance polyline.line").get_attribute("points") != line
    expect(gm.locator("#chance .turns li").first).to_be_visible()
    assert accessibility(gm, "GM screen with the chance, 1280×800") == []
    gm.locator("#chance").screenshot(path=str(screenshots / "chance-gm-1280px.png"))
    gm.set_viewport_size(PHONE)
    expect(gm.locator("#chance svg.chance-line")).to_be_visible()
    assert accessibility(gm, "GM screen with the chance, 360×740") == []

    # the player was sent nothing of it while the GM did not show it
    expect(bron.locator("#live")).to_have_attribute("data-seq", str(seq_of(gm)))
    expect(bron.locator("#chance")).to_be_hidden()
    assert not any("PCs win" in f or '"chance"' in f for f in frames), frames[-3:]

    gm.get_by_label("Show it to the players").check()
    # the panel comes back from the worker with the switch on (the table's, from the database)
    expect(gm.locator("#chance .chance-switch input[name=shown][checked]")).to_have_count(1)
    assert after(bron, seq_of(gm)) == hit
    expect(bron.locator("#chance svg.chance-line")).to_be_visible()
    expect(bron.get_by_label("Show it to the players")).to_have_count(0)
    assert accessibility(bron, "player screen with the chance, 360×740") == []
    bron.locator("#chance").screenshot(path=str(screenshots / "chance-player-360px.png"))
    bron.set_viewport_size(LAPTOP)
    assert accessibility(bron, "player screen with the chance, 1280×800") == []
    context.close()
    gm.context.close()


def test_the_switch_is_the_tables(browser: Browser, chance_server: str, tmp_path: Path) -> None:
    """Shown once, a player who opens the screen later sees it at once (it is the table's)."""
    gm, links = open_table(browser, chance_server, "Duel")
    after(gm, 0, FIRST)
    gm.get_by_label("Show it to the players").check()
    # the panel comes back from the worker with the switch on (the table's, from the database)
    expect(gm.locator("#chance .chance-switch input[name=shown][checked]")).to_have_count(1)
    context = browser.new_context(viewport=PHONE)
    player = context.new_page()
    player.goto(links["sellsword"])
    live(player)
    assert after(player, 0) == after(gm, 0)
    context.close()
    gm.context.close()
