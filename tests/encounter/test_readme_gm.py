"""The README's GM walkthrough plays as written on Goblin Ambush (R48): reinforcements, healing,
a reorder, a condition and ``gm: pass all``, each accepted by the engine and doing what the
README says it does."""

from __future__ import annotations

import re
from pathlib import Path

from caltrop.content import load_encounter
from caltrop.core.commands import parse_command
from caltrop.encounter import CHANCE, Encounter

README = Path(__file__).resolve().parents[2] / "README.md"


def _gm_lines() -> list[str]:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## GM controls") :]
    block = section[section.index("```") + 3 :]
    block = block[: block.index("```")]
    lines = []
    for raw in block.strip().splitlines():
        command = raw.removeprefix("> ")
        lines.append(re.split(r"\s{2,}", command.strip())[0])
    return lines


def test_the_readme_gm_walkthrough_plays() -> None:
    enc = Encounter.begin(load_encounter("goblin-ambush"), seed=2026)
    # "Later in the fight, at the start of Bron's turn": the first three end their turns and
    # Bron has taken a wound
    for line in ("goblin-archer: end turn", "goblin-1: end turn", "aria: end turn"):
        enc.apply(parse_command(line))
    enc.apply(parse_command("gm: damage bron 6"))
    assert enc.turn_owner == "bron"
    wounded = enc.health[enc.index("bron")]
    lines = _gm_lines()
    assert lines[0].startswith("gm: add goblin")
    for line in lines:
        enc.apply(parse_command(line))
        enc.settle()
    order = enc.snapshot()["order"]
    assert order[0] == "hobgoblin-captain"
    assert {"goblin-3", "goblin-4"} <= set(order)
    assert enc.health[enc.index("bron")] == min(wounded + 5, enc.creature("bron").max_health or 0)
    assert "prone" in enc.conditions[enc.index("dain")]
    assert enc.turn_owner == "bron"  # "Bron keeps the turn he is taking"
    assert enc.current() != CHANCE
