"""The Action Point map fits every creature (issue 22 item 1): each token's circle and label lie
inside the SVG's viewBox, measured by the browser (getBBox in the map's own units), in Warband
(the sides 24–36 m apart: 2 of 6 tokens were inside at the start, 0 from round 2), Bridge Duel
(labels were cut at the edge) and a scattered encounter of our own (creatures at ±50 m) — at the
start and after the creatures moved, since the frame is recomputed on every screen."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from caltrop.content import load_encounter
from caltrop.core.commands import parse_command
from caltrop.encounter import Encounter
from caltrop.table import Reveal, view
from caltrop.web.screen import positions, screen_fragments
from tests.browser.screens import DESKTOP, PHONE

CSS = Path(__file__).resolve().parents[2] / "src" / "caltrop" / "web" / "static" / "caltrop.css"

#: every token's circle and label in the map's units (its transform is a translate), and the
#: viewBox they must lie in
MEASURE = """() => {
  const svg = document.querySelector('#map svg');
  const vb = svg.viewBox.baseVal;
  const tokens = [...svg.querySelectorAll('g.token')].map(g => {
    const m = g.transform.baseVal.consolidate().matrix;
    const parts = [...g.querySelectorAll('circle, text')].map(el => {
      const b = el.getBBox();
      return {part: el.tagName, x0: b.x + m.e, y0: b.y + m.f,
              x1: b.x + b.width + m.e, y1: b.y + b.height + m.f};
    });
    return {label: g.getAttribute('aria-label'), parts};
  });
  return {box: [vb.x, vb.y, vb.width, vb.height], tokens,
          wide: document.documentElement.scrollWidth};
}"""


#: the NPCs' points shown, positions with them (as the GM shows them at the table)
SHOWN = {c: Reveal(aspects=True, resources=True) for c in ("brakka", "wolf", "bandit-archer")}


def initiative(enc: Encounter) -> None:
    """Roll initiative with the encounter's own seeded dice until the first turn starts."""
    for _ in range(20):
        if not view(enc, "gm").as_dict()["pending"]:
            return
        enc.apply(parse_command("roll"))
    pytest.fail("initiative did not end")


def warband() -> Encounter:
    return Encounter.begin(load_encounter("warband-ap"), 1)


def bridge_duel() -> Encounter:
    return Encounter.begin(load_encounter("bridge-duel-ap"), 1)


def scattered() -> Encounter:
    """Warband spread to the corners of a 100 m field by the GM (R34 placement)."""
    enc = warband()
    for fact in (
        "torvald at -50,-50",
        "maren at 50,50",
        "kestrel at -50,50",
        "brakka at 50,-50",
        "wolf at 0,0",
        "bandit-archer at 50,0",
    ):
        enc.apply(parse_command(f"gm: set {fact}"))
    return enc


def moved(enc: Encounter) -> Encounter:
    """Two rounds of moves: whoever's turn it is moves toward its nearest foe or ends it."""
    initiative(enc)
    before = positions(view(enc, "gm", SHOWN).as_dict())
    for _ in range(8):
        turn = view(enc, "gm").as_dict()["turn"]
        seen = view(enc, turn).as_dict()  # a PC's options are on its own screen
        moves = [o["command"] for o in seen["options"].get(turn, ()) if o["legal"]]
        step = next((c for c in moves if ": move to " in c), None)
        if step:
            enc.apply(parse_command(step))
        enc.apply(parse_command(f"{turn}: end turn"))
    after = positions(view(enc, "gm", SHOWN).as_dict())
    assert [t["at"] for t in after] != [t["at"] for t in before], "nobody moved"
    return enc


CASES = {
    "warband": warband,
    "warband-moved": lambda: moved(warband()),
    "bridge-duel": bridge_duel,
    "bridge-duel-moved": lambda: moved(bridge_duel()),
    "scattered": scattered,
    "scattered-moved": lambda: moved(scattered()),
}


def measure(browser: Browser, enc: Encounter, viewer: str, size: dict[str, int], shot: Path) -> Any:
    """The screen of ``viewer`` (every position shown) rendered into a page of ``size``."""
    html = screen_fragments(view(enc, viewer, SHOWN).as_dict())
    page = browser.new_page(viewport=size)
    page.set_content(
        f'<style>{CSS.read_text()}</style><main><div id="table" class="screen '
        f'{"gm" if viewer == "gm" else "player"}">{html}</div></main>'
    )
    result = page.evaluate(MEASURE)
    page.locator("#map").screenshot(path=str(shot))
    page.close()
    return result


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("viewer", ["gm", "torvald"])
def test_every_token_and_label_lies_inside_the_map(
    browser: Browser, screenshots: Path, case: str, viewer: str
) -> None:
    enc = CASES[case]()
    for size in (PHONE, DESKTOP):
        name = f"map-{case}-{viewer}-{size['width']}px"
        got = measure(browser, enc, viewer, size, screenshots / f"{name}.png")
        x, y, width, height = got["box"]
        placed = positions(view(enc, viewer, SHOWN).as_dict())
        assert len(got["tokens"]) == len(placed) >= 4
        outside = [
            (t["label"], p)
            for t in got["tokens"]
            for p in t["parts"]
            if p["x0"] < x or p["y0"] < y or p["x1"] > x + width or p["y1"] > y + height
        ]
        assert outside == [], f"{case} at {size['width']} px: outside {got['box']}: {outside}"
        assert got["wide"] <= size["width"], "the map makes the page scroll sideways"
        # the labels as Chromium lays their text out do not cover each other
        labels = [(t["label"], p) for t in got["tokens"] for p in t["parts"] if p["part"] == "text"]
        covered = [
            (a, b)
            for i, (a, pa) in enumerate(labels)
            for b, pb in labels[i + 1 :]
            if min(pa["x1"], pb["x1"]) > max(pa["x0"], pb["x0"])
            and min(pa["y1"], pb["y1"]) > max(pa["y0"], pb["y0"])
        ]
        assert covered == [], f"{case} at {size['width']} px: labels over labels: {covered}"
        (screenshots / f"{name}.json").write_text(json.dumps(got, indent=1))
