"""The vendored htmx files are the ones VENDORED.md records (issue 12: pinned, with licences)."""

from __future__ import annotations

import hashlib
import re
from importlib.resources import files

VENDOR = files("caltrop.web").joinpath("static", "vendor")


def _recorded() -> dict[str, tuple[str, str]]:
    """file → (version, sha256) from the table in VENDORED.md."""
    text = VENDOR.joinpath("VENDORED.md").read_text(encoding="utf-8")
    rows = re.findall(
        r"^\| (\S+\.js) \| (\S+) \| (\S+) \| (\S+) \(\S+\) \| ([0-9a-f]{64}) \|$", text, re.M
    )
    return {name: (version, digest) for name, _, version, _, digest in rows}


def test_every_vendored_script_has_its_recorded_sha256() -> None:
    recorded = _recorded()
    assert set(recorded) == {"htmx.min.js", "htmx-ext-ws.min.js"}
    for name, (_, digest) in recorded.items():
        data = VENDOR.joinpath(name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == digest, name


def test_the_pinned_versions_are_htmx_2() -> None:
    recorded = _recorded()
    assert recorded["htmx.min.js"][0].startswith("2.0.")
    assert recorded["htmx-ext-ws.min.js"][0].startswith("2.0.")
    assert b'version:"2.0.' in VENDOR.joinpath("htmx.min.js").read_bytes()


def test_each_vendored_script_ships_with_its_licence() -> None:
    text = VENDOR.joinpath("VENDORED.md").read_text(encoding="utf-8")
    for licence in re.findall(r"\| (\S+\.LICENSE) \(", text):
        assert "Permission to use, copy, modify" in VENDOR.joinpath(licence).read_text()
