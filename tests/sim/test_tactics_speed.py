"""The tactics' caches change no choice: they follow each definition, and emptying them is safe."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from caltrop.core.commands import Act
from caltrop.core.model import EncounterDef, Ruleset
from caltrop.encounter import Encounter
from caltrop.sim import tactics
from caltrop.sim.runner import Records, Task, run_task
from caltrop.sim.tactics import TacticalPolicy, harm, profile, roll_expr, score_attack
from tests.sim.tiny import STAB, skirmish


def _with_hero(definition: EncounterDef, **changes: object) -> EncounterDef:
    """The same encounter with one stat of the hero changed (as a sweep does)."""
    hero = definition.participants[1]
    assert hero.id == "hero"
    changed = dataclasses.replace(hero, **changes)  # type: ignore[arg-type]
    participants = (definition.participants[0], changed, *definition.participants[2:])
    return EncounterDef(definition.name, definition.ruleset, participants)


def _play(definition: EncounterDef, n: int = 40) -> Records:
    policies = (("npc", "tactical"), ("pc", "tactical"))
    return run_task(Task(0, definition, policies, 7, 0, n))[2]


def _same(a: Records, b: Records) -> bool:
    return all(
        np.array_equal(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a)
    )


def test_scores_follow_each_definition() -> None:
    # Two definitions of the same shape sharing the very same action objects, the ogre's
    # Evasion apart: one policy scoring in both must use each one's numbers every time.
    base = skirmish()
    ogre = base.participants[0]
    tough = EncounterDef(
        base.name,
        base.ruleset,
        (dataclasses.replace(ogre, evasion=ogre.evasion + 2), *base.participants[1:]),
    )
    policy = TacticalPolicy()
    seen: dict[str, float] = {}
    for name, definition in (("base", base), ("tough", tough), ("base", base)):
        enc = Encounter.begin(definition, 1, record=False)
        value = score_attack(policy, enc, 1, Act("hero", STAB.name, ("ogre",)))
        target = definition.participants[0]
        expected = harm(
            roll_expr(enc, 1, STAB, None, 0),
            target.evasion,
            enc.health[0],
            profile(definition).threat[0],
        )
        assert value == expected
        assert seen.setdefault(name, expected) == expected
    assert seen["tough"] < seen["base"]


def test_results_do_not_depend_on_what_was_played_before() -> None:
    base = skirmish(Ruleset())
    swept = _with_hero(base, evasion=1)
    tactics._PROFILES.clear()
    fresh = _play(swept)
    tactics._PROFILES.clear()
    _play(base)  # fills the caches with the other definition's numbers
    after = _play(swept)
    assert _same(fresh, after)
    assert not _same(fresh, _play(base))  # the stat changed does change the results


def test_a_memo_emptied_at_every_decision_changes_no_choice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    definition = skirmish()
    kept = _play(definition)
    monkeypatch.setattr(tactics, "_MEMO_LIMIT", 0)
    tactics._PROFILES.clear()
    emptied = _play(definition)
    assert _same(kept, emptied)
