"""The encounter builder in a browser (issue 23 item 3), at 1280×800 and at 360×740: from the
home page the GM composes an encounter (adds creatures from the library, duplicates one and
removes it again), types a mistake and sees it at the field, fixes it, sees the difficulty
panel, saves the encounter to the library, exports it (``caltrop validate`` accepts the file,
and it holds what was typed), and opens a table from it; axe finds no serious or critical
violation on the builder."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect
from typer.testing import CliRunner

from caltrop.cli import app as cli
from caltrop.content.loader import load_encounter
from tests.browser.screens import accessibility

#: the first panel may wait for the compiled kernel to load (numba's cache) on a busy machine
PANEL_TIMEOUT_MS = 120_000
SIZES: list[ViewportSize] = [{"width": 1280, "height": 800}, {"width": 360, "height": 740}]


def add(page: Page, key: str, count: int) -> None:
    """Choose ``key`` in the picker, press Add: the form comes back with ``count`` creatures."""
    page.get_by_label("Creature (Action Load)").select_option(key)
    page.get_by_role("button", name="Add", exact=True).click()
    expect(page.locator("fieldset.creature")).to_have_count(count)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s['width']}px")
def test_compose_check_save_export_and_open(
    browser: Browser, server: str, tmp_path: Path, screenshots: Path, size: ViewportSize
) -> None:
    context = browser.new_context(viewport=size, accept_downloads=True)
    page = context.new_page()
    page.goto(f"{server}/")
    home = accessibility(page, f"home page {size['width']}px")  # with the builder's links
    page.get_by_role("link", name="Build an encounter").click()
    expect(page.get_by_role("heading", name="Build an encounter")).to_be_visible()
    expect(page.locator("#builder-status")).to_contain_text("1 problem")  # no creature yet

    add(page, "bundled:party/aria", 1)
    add(page, "bundled:monsters/goblin", 2)
    page.get_by_role("button", name="Duplicate Goblin").click()
    expect(page.locator("fieldset.creature")).to_have_count(3)
    expect(page.locator("#f-participants-3-id")).to_have_value("goblin-2")
    page.get_by_role("button", name="Remove Goblin").last.click()
    expect(page.locator("fieldset.creature")).to_have_count(2)

    title = f"Aria and the Goblin {size['width']}"
    page.locator("#f-name").fill(title)
    panel = page.locator("#difficulty-body")
    expect(panel.locator(".band")).to_be_visible(timeout=PANEL_TIMEOUT_MS)
    expect(panel).to_contain_text("PCs win")

    # a mistake, shown at its field as it is typed; fixed, the error goes and the panel returns
    page.locator("#f-participants-1-health").fill("ten")
    error = page.locator("#err-participants-1-health")
    expect(error).to_have_text("expected an integer, got 'ten'")
    expect(page.locator("#builder-status")).to_contain_text("1 problem")
    home += accessibility(page, f"builder with a field error {size['width']}px")
    page.locator("#f-participants-1-health").fill("20")
    expect(error).to_have_text("")
    expect(page.locator("#builder-status")).to_contain_text("No problems")
    expect(panel.locator(".band")).to_be_visible(timeout=PANEL_TIMEOUT_MS)
    # the panel of the draft as it is now: Aria's Health left is out of her new 20
    expect(panel.locator("table.creatures")).to_contain_text(" of 20", timeout=PANEL_TIMEOUT_MS)

    violations = home + accessibility(page, f"builder {size['width']}px")
    page.screenshot(path=str(screenshots / f"builder-{size['width']}px.png"), full_page=True)
    assert violations == []

    page.get_by_role("button", name="Save to the library").click()
    expect(page.locator("#save-answer")).to_contain_text("Saved to the library as")

    with page.expect_download() as download:
        page.get_by_role("button", name="Export YAML").click()
    path = tmp_path / (download.value.suggested_filename or "export.yaml")
    download.value.save_as(path)
    checked = CliRunner().invoke(cli, ["validate", str(path)])
    assert checked.exit_code == 0, checked.stdout
    exported = load_encounter(path)
    assert exported.name == title
    assert [(c.id, c.health) for c in exported.participants] == [("aria", 20), ("goblin", 10)]

    page.get_by_role("button", name="Open a table").click()
    expect(page.locator("#seats")).to_be_visible()
    expect(page).to_have_title(f"Caltrop — {title} (GM)")

    page.goto(f"{server}/")  # the saved encounter is on the home page, ready to open
    expect(page.get_by_role("button", name=f"Open table: {title}")).to_be_visible()
    context.close()
