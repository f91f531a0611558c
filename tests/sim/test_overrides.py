"""``KEY=VALUE`` variants and sweep parameters applied to encounter definitions."""

from __future__ import annotations

import re

import pytest

from caltrop.content import load_encounter
from caltrop.core.model import LoadReset
from caltrop.core.pool import Revision
from caltrop.sim.overrides import (
    OverrideError,
    apply_overrides,
    parse_override,
    parse_sweep,
    parse_values,
    parse_variant,
    select_creatures,
)


@pytest.fixture(scope="module")
def ambush():  # type: ignore[no-untyped-def]
    return load_encounter("goblin-ambush")


def test_ruleset_fields_by_name(ambush) -> None:  # type: ignore[no-untyped-def]
    variant = parse_variant("load_reset=round,revision=legacy")
    assert variant.name == "load_reset=round,revision=legacy"
    changed = variant.apply(ambush)
    assert changed.ruleset.load_reset is LoadReset.ROUND
    assert changed.ruleset.revision is Revision.LEGACY
    assert ambush.ruleset.load_reset is LoadReset.TURN  # definitions are never mutated
    assert parse_variant("ruleset.load_reset=round").apply(ambush).ruleset.load_reset == "round"


def test_named_and_baseline_variants() -> None:
    assert parse_variant("baseline").overrides == ()
    named = parse_variant("round:load_reset=round")
    assert named.name == "round"
    assert [str(o) for o in named.overrides] == ["load_reset=round"]


def test_creature_prefix_names_numbered_copies_only(ambush) -> None:  # type: ignore[no-untyped-def]
    assert select_creatures(ambush, "goblin") == ["goblin-1", "goblin-2"]
    assert select_creatures(ambush, "goblin-archer") == ["goblin-archer"]
    assert select_creatures(ambush, "pc") == ["aria", "bron", "cass", "dain"]
    with pytest.raises(OverrideError, match="no creature 'ogre'"):
        select_creatures(ambush, "ogre")


def test_nested_paths(ambush) -> None:  # type: ignore[no-untyped-def]
    changed = apply_overrides(
        ambush,
        [
            parse_override("goblin.aspects.Finesse=8"),
            parse_override("aria.health=30"),
            parse_override("bron.actions.strike.cost=2"),
        ],
    )
    by_id = {c.id: c for c in changed.participants}
    assert by_id["goblin-1"].aspects["Finesse"] == 8
    assert by_id["goblin-2"].aspects["Finesse"] == 8
    assert by_id["goblin-archer"].aspects["Finesse"] == 6
    assert by_id["aria"].health == 30
    assert by_id["aria"].max_health == 30
    strike = by_id["bron"].action("strike")
    assert strike is not None
    assert strike.cost == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("load_reset=sometimes", "expected one of turn, round"),
        ("nonsense=1", "Ruleset has no field 'nonsense'"),
        ("aria.health=lots", "expected a whole number"),
        ("aria.actions.fly.cost=1", "no 'fly'"),
        ("aria.aspects.Finesse.x=1", "cannot step into"),
    ],
)
def test_bad_overrides_say_why(ambush, text: str, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(OverrideError, match=message):
        apply_overrides(ambush, [parse_override(text)])


def test_parse_errors() -> None:
    with pytest.raises(OverrideError, match="KEY=VALUE"):
        parse_override("load_reset")
    with pytest.raises(OverrideError, match="not a field path"):
        parse_override("a..b=1")


def test_sweep_values() -> None:
    assert parse_values("2..5") == ["2", "3", "4", "5"]
    assert parse_values("8..2..-3") == ["8", "5", "2"]
    assert parse_values("turn, round") == ["turn", "round"]
    assert parse_sweep("goblin.aspects.Finesse=2..4") == (
        ("goblin", "aspects", "Finesse"),
        ["2", "3", "4"],
    )
    with pytest.raises(OverrideError, match="never reaches"):
        parse_values("2..8..-1")


@pytest.mark.parametrize(
    ("encounter", "variant", "words"),
    [
        ("bridge-duel-ap", "load_reset=round", "Action Load module (R19)"),
        ("bridge-duel-ap", "revision=legacy", "Action Load module (R20)"),
        ("duel", "off_turn_actions=reactions", "Action Point module (R32)"),
        ("duel", "min_spacing=1", "Action Point module (R34)"),
    ],
)
def test_a_variant_of_the_other_modules_option_is_refused(
    encounter: str, variant: str, words: str
) -> None:
    """An option only one module reads (R19 load reset, R20 revision: Action Load; R32
    off-turn actions, R34 spacing: Action Points) changes nothing in the other module's
    encounter: a variant of it would report "+0.0 pp" as if it had answered the question."""
    from caltrop.content import load_encounter
    from caltrop.sim.overrides import OverrideError, apply_overrides, parse_variant

    with pytest.raises(OverrideError, match=re.escape(words)):
        apply_overrides(load_encounter(encounter), parse_variant(variant).overrides)
