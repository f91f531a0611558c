"""The rules reference belongs in the repository (issue 9).

Issue 9: "Write ``docs/rules.md`` as a self-contained reference in the project's own words: each
ruling ID with what Caltrop does, its options and defaults, and the decisions already recorded
there; refusals may link to it. Nothing in the repo may refer to ``../shared/`` for the rules."
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path

from caltrop.core.model import Ruleset

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules.md"
README = ROOT / "README.md"

#: A ruling ID as code, docs and refusals cite it (R12, R40…).
RULING = re.compile(r"\bR\d+\b")
#: A ruling's heading in docs/rules.md: ``### R12 — Pool``.
RULING_HEADING = re.compile(r"^#{2,4} (R\d+) — \S", re.MULTILINE)
#: How the rules used to be found outside the repository.
OUTSIDE = ("../shared", "shared/rulings", "shared/seeds")


def _texts(*roots: Path, skip: Path | None = None) -> Iterator[tuple[Path, str]]:
    """Every text file under ``roots`` (a root may be a file), except caches and ``skip``."""
    for root in roots:
        paths = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in paths:
            if "__pycache__" in path.parts or path == skip:
                continue
            try:
                yield path, path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue  # a binary file (a picture) cites nothing


def _headings() -> list[str]:
    return RULING_HEADING.findall(RULES.read_text(encoding="utf-8"))


def _anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(markdown: str) -> set[str]:
    return {_anchor(h) for h in re.findall(r"^#+ (.+)$", markdown, re.MULTILINE)}


def test_every_cited_ruling_has_a_heading_in_the_rules_reference() -> None:
    """Issue 9: "a user who clones it" can look up every R-number the README and every refusal
    cite: each ID found in src/, README.md or docs/ has its own heading in docs/rules.md."""
    headed = set(_headings())
    cited: dict[str, Path] = {}
    for path, text in _texts(ROOT / "src", README, ROOT / "docs"):
        for ruling in RULING.findall(text):
            cited.setdefault(ruling, path)
    assert cited, "no ruling cited anywhere: the scan found no files"
    missing = {r: str(p.relative_to(ROOT)) for r, p in cited.items() if r not in headed}
    assert not missing, f"cited but without a heading in docs/rules.md: {missing}"


def test_the_reference_heads_each_ruling_once_and_covers_the_ranges() -> None:
    """The rulings the brief lists (R1–R5, R10–R21, R30–R48) are each headed exactly once."""
    headings = _headings()
    twice = sorted({r for r in headings if headings.count(r) > 1})
    assert not twice, f"headed more than once: {twice}"
    expected = {f"R{n}" for n in (*range(1, 6), *range(10, 22), *range(30, 49))}
    assert sorted(expected - set(headings), key=lambda r: int(r[1:])) == []


def test_nothing_in_the_repository_points_outside_it_for_the_rules() -> None:
    """Issue 9: "Nothing in the repo may refer to ``../shared/`` for the rules"."""
    offenders = [
        f"{path.relative_to(ROOT)}: {needle}"
        for path, text in _texts(
            ROOT / "src",
            ROOT / "tests",
            ROOT / "docs",
            ROOT / "benchmarks",
            README,
            skip=Path(__file__).resolve(),
        )
        for needle in OUTSIDE
        if needle in text
    ]
    assert not offenders


def test_every_ruleset_option_is_in_the_options_table() -> None:
    """Issue 9: the reference gives each ruling's "options and defaults": every field of
    ``Ruleset`` (so new options too, once they are added) is a row of the Options table."""
    text = RULES.read_text(encoding="utf-8")
    section = text.split("\n## Options\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z_]+)` \|", section, re.MULTILINE)
    missing = [f.name for f in fields(Ruleset) if f.name not in rows]
    assert not missing, f"ruleset options missing from docs/rules.md's Options table: {missing}"


def test_links_into_the_rules_reference_reach_a_heading() -> None:
    """A refusal or the README may link to ``docs/rules.md#r12--pool``: every such link in the
    README, and every in-page link of docs/rules.md, names a heading that exists."""
    rules = RULES.read_text(encoding="utf-8")
    anchors = _anchors(rules)
    readme = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(#([^)]+)\)", rules)
    links += re.findall(r"\]\(docs/rules\.md#([^)]+)\)", readme)
    assert links, "no links found: the pattern is wrong"
    broken = sorted({link for link in links if link not in anchors})
    assert not broken, f"links to no heading of docs/rules.md: {broken}"
    readme_links = re.findall(r"\]\(#([^)]+)\)", readme)
    assert sorted({link for link in readme_links if link not in _anchors(readme)}) == []


def test_anchor_follows_github() -> None:
    """The anchors the link test relies on are GitHub's: the em dash drops out, leaving '--'."""
    assert _anchor("R12 — Pool") == "r12--pool"
    assert _anchor("R21 — Turn order (Action Load)") == "r21--turn-order-action-load"
    assert _anchor("Action Point encounters (seed 004)") == "action-point-encounters-seed-004"
