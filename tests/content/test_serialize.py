"""The save-log form of an encounter definition: JSON-able, deterministic, and round-tripping
(``encounter_from_dict(encounter_to_dict(e)) == e``).

Tests of ``core/codec.py`` (tests/test_layout.py).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caltrop.content import encounter_from_dict, encounter_to_dict, load_encounter
from caltrop.core.model import (
    ActionDef,
    ActionKind,
    CreatureDef,
    Economy,
    EncounterDef,
    Grant,
    Initiative,
    LoadReset,
    Ruleset,
    Side,
    Weapon,
    WeaponKind,
)
from caltrop.core.pool import Revision
from caltrop.dice import parse
from caltrop.errors import ContentError

words = st.text(alphabet="abcdefgxyz0123-", max_size=8).map(lambda s: "w" + s)
aspect_names = st.sampled_from(["Finesse", "Control", "Might", "Insight", "Speed", "Poise"])
small = st.integers(min_value=0, max_value=20)
#: Printable text (names and descriptions hold no control character, issue 10).
printable = st.characters(codec="utf-8", categories=("L", "N", "P", "S", "Zs"))
names = st.text(alphabet=printable, min_size=1, max_size=12).filter(str.strip)
descriptions = st.text(alphabet=printable, max_size=20)
#: Stats every economy accepts (seed 004's stat block; R34 positions).
stat_names = st.sampled_from(["power_mod", "size", "x", "y"])
#: The Aspect an ``initiative: check`` ruleset rolls; every generated creature has it (R30).
INITIATIVE = "Speed"


@st.composite
def dice_text(draw: st.DrawFn) -> str:
    terms = draw(
        st.lists(
            st.one_of(
                st.builds(
                    lambda n, s: f"{n}d{s}",
                    st.integers(1, 6),
                    st.sampled_from([4, 6, 8, 10, 12]),
                ),
                st.integers(0, 5).map(str),
                st.builds(lambda n: f"{n}d8/2", st.integers(1, 3)),
            ),
            min_size=1,
            max_size=3,
        )
    )
    signs = draw(st.lists(st.sampled_from(["+", "-"]), min_size=len(terms), max_size=len(terms)))
    text = terms[0]
    for sign, term in zip(signs[1:], terms[1:], strict=False):
        text += sign + term
    return text


expressions = dice_text().map(parse)


@st.composite
def rulesets(draw: st.DrawFn) -> Ruleset:
    initiative = draw(st.sampled_from(Initiative))
    return Ruleset(
        name=draw(words),
        economy=draw(st.sampled_from(Economy)),
        revision=draw(st.sampled_from(Revision)),
        load_reset=draw(st.sampled_from(LoadReset)),
        initiative=initiative,
        initiative_aspect=INITIATIVE
        if initiative is Initiative.CHECK
        else draw(st.none() | aspect_names),
        gm_roll_counts_load=draw(st.booleans()),
    )


grants = st.builds(
    Grant, kind=st.sampled_from(["adv", "dis"]), to=st.sampled_from(["ally", "enemy"])
)


@st.composite
def actions(draw: st.DrawFn, aspects: list[str], armed: bool) -> ActionDef:
    """An action as a content file may declare it: only checks have a DC, only attacks use a
    weapon, only rolls take extra dice or a fixed pool, a team action grants (R15, R16, R20)."""
    kind = draw(st.sampled_from(ActionKind))
    rolls = kind in (ActionKind.ATTACK, ActionKind.CHECK)
    uses_weapon = kind is ActionKind.ATTACK and armed and draw(st.booleans())
    return ActionDef(
        name=draw(words),
        aspect=draw(st.sampled_from(aspects)),
        cost=draw(small),
        kind=kind,
        dc=draw(st.none() | small) if kind is ActionKind.CHECK else None,
        extra=draw(st.none() | expressions) if rolls else None,
        uses_weapon=uses_weapon,
        weapon_kind=draw(st.none() | st.sampled_from(WeaponKind)) if uses_weapon else None,
        reaction=True if kind is ActionKind.TEAM else draw(st.booleans()),
        fixed_pool=draw(st.none() | st.integers(1, 4)) if rolls else None,
        grant=draw(grants)
        if kind is ActionKind.TEAM
        else (draw(st.none() | grants) if kind is ActionKind.EFFECT else None),
        source=draw(st.none() | words),
        description=draw(descriptions).strip(),
    )


@st.composite
def weapons(draw: st.DrawFn) -> Weapon:
    """A weapon, with the Action Point module's attack AP; a ranged one has its ranges (R39)."""
    kind = draw(st.sampled_from(WeaponKind))
    close = far = None
    if kind is WeaponKind.RANGED:
        close = draw(small)
        far = close + draw(small)
    return Weapon(
        draw(words),
        draw(expressions),
        kind,
        ap=draw(st.none() | st.integers(1, 6)),
        close=close,
        far=far,
    )


@st.composite
def creatures(draw: st.DrawFn, creature_id: str) -> CreatureDef:
    health = draw(st.integers(1, 30))
    armed = draw(st.lists(weapons(), max_size=3, unique_by=lambda w: w.name))
    aspects = draw(st.dictionaries(aspect_names, st.integers(-2, 8), min_size=1))
    aspects.setdefault(INITIATIVE, draw(st.integers(-2, 8)))
    return CreatureDef(
        id=creature_id,
        name=draw(names),
        side=draw(st.sampled_from(Side)),
        aspects=aspects,
        health=health,
        evasion=draw(small),
        load_buffer=draw(st.integers(0, 3)),
        exhaustion=draw(st.integers(0, 3)),
        max_health=draw(st.none() | st.integers(health, 40)),
        actions=tuple(
            draw(
                st.lists(
                    actions(list(aspects), bool(armed)), max_size=4, unique_by=lambda a: a.name
                )
            )
        ),
        weapons=tuple(armed),
        stats=draw(st.dictionaries(stat_names, st.integers(-5, 10), max_size=2)),
        equipped=draw(
            st.none() | st.lists(st.sampled_from([w.name for w in armed]), unique=True).map(tuple)
        )
        if armed
        else draw(st.none() | st.just(())),
    )


@st.composite
def encounters(draw: st.DrawFn) -> EncounterDef:
    ids = draw(st.lists(words, min_size=1, max_size=5, unique=True))
    # Reserves (R48) are kept under their own ids, which participants may share (goblin and
    # its renamed copies goblin-1, goblin-2; or an unrenamed participant and its creature).
    reserve_ids = draw(st.lists(words, max_size=3, unique=True))
    return EncounterDef(
        name=draw(names),
        ruleset=draw(rulesets()),
        participants=tuple(draw(creatures(i)) for i in ids),
        description=draw(descriptions),
        reserves=tuple(draw(creatures(i)) for i in reserve_ids),
    )


@settings(max_examples=150, deadline=None)
@given(encounters())
def test_round_trip(encounter: EncounterDef) -> None:
    data = encounter_to_dict(encounter)
    assert encounter_from_dict(data) == encounter
    text = json.dumps(data, ensure_ascii=False)  # JSON-able as it stands
    assert encounter_from_dict(json.loads(text)) == encounter


@settings(max_examples=50, deadline=None)
@given(encounters())
def test_serialisation_is_deterministic(encounter: EncounterDef) -> None:
    again = encounter_from_dict(encounter_to_dict(encounter))
    assert json.dumps(encounter_to_dict(again)) == json.dumps(encounter_to_dict(encounter))


def test_dice_are_text_and_keys_are_fixed() -> None:
    data = encounter_to_dict(load_encounter("goblin-ambush"))
    assert list(data) == ["format", "name", "description", "ruleset", "participants", "reserves"]
    aria = next(p for p in data["participants"] if p["id"] == "aria")
    assert list(aria) == [
        "id",
        "name",
        "side",
        "aspects",
        "health",
        "max_health",
        "evasion",
        "load_buffer",
        "exhaustion",
        "stats",
        "actions",
        "weapons",
    ]
    assert aria["weapons"][0] == {"name": "dagger", "dice": "1d4", "kind": "melee"}
    assert aria["weapons"][1] == {"name": "shortbow", "dice": "1d6", "kind": "ranged"}
    assert list(aria["aspects"]) == ["Finesse", "Control", "Might", "Insight"]
    assert aria["side"] == "pc"
    assert data["ruleset"]["revision"] == "current"


def _saved() -> dict[str, Any]:
    return json.loads(json.dumps(encounter_to_dict(load_encounter("orc-bridge"))))  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d["participants"][0].pop("health"), ["participants[1].health", "missing"]),
        (
            lambda d: d["participants"][1].__setitem__("side", "monster"),
            ["participants[2].side", "'monster'"],
        ),
        (
            lambda d: d["participants"][0]["weapons"][0].__setitem__("dice", "1d"),
            ["participants[1].weapons[1].dice", "bad dice"],
        ),
        (lambda d: d["ruleset"].__setitem__("gm_roll_counts_load", 1), ["gm_roll_counts_load"]),
        (lambda d: d.__setitem__("format", "other/9"), ["unknown format"]),
        (
            lambda d: d["participants"].append(dict(d["participants"][0])),
            ["unique", "bron"],
        ),
    ],
)
def test_a_bad_saved_dict_raises_content_error(change: Any, words: list[str]) -> None:
    data = _saved()
    change(data)
    with pytest.raises(ContentError) as info:
        encounter_from_dict(data)
    for word in words:
        assert word in str(info.value)


def test_action_point_fields_are_written_only_when_set() -> None:
    """Seed 004's weapon ``ap``/``close``/``far`` and a creature's ``equipped`` are written when
    set; a saved definition without them (written before they existed) still loads."""
    bow = Weapon("bow", parse("1d8"), WeaponKind.RANGED, ap=2, close=10, far=30)
    scout = CreatureDef(
        "scout", "Scout", Side.PC, {"Speed": 3}, 8, weapons=(bow,), equipped=("bow",)
    )
    data = encounter_to_dict(EncounterDef("Duel", Ruleset(economy=Economy.ACTION_POINTS), (scout,)))
    saved = data["participants"][0]
    assert saved["weapons"] == [
        {"name": "bow", "dice": "1d8", "kind": "ranged", "ap": 2, "close": 10, "far": 30}
    ]
    assert saved["equipped"] == ["bow"]
    assert list(saved)[-1] == "equipped"
    old = json.loads(json.dumps(data))
    # A ranged weapon without ranges is refused in the Action Point module (R39), in a saved
    # definition as in a content file; the Action Load module has no ranges.
    old["ruleset"]["economy"] = "action_load"
    old["participants"][0].pop("equipped")
    for key in ("ap", "close", "far"):
        old["participants"][0]["weapons"][0].pop(key)
    (loaded,) = encounter_from_dict(old).participants
    assert loaded.equipped is None
    assert (loaded.weapons[0].ap, loaded.weapons[0].close, loaded.weapons[0].far) == (None,) * 3


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            lambda w, c: w.__setitem__("close", "near"),
            ["participants[2].weapons[1].close", "an integer or null", "'near'"],
        ),
        (lambda w, c: w.__setitem__("kind", "thrown"), ["weapons[1].kind", "'thrown'"]),
        (lambda w, c: c.__setitem__("equipped", "bow"), ["participants[2].equipped", "list"]),
        (lambda w, c: c.__setitem__("equipped", [1]), ["participants[2].equipped", "list"]),
    ],
)
def test_a_bad_saved_action_point_field_raises_content_error(change: Any, words: list[str]) -> None:
    data = json.loads(json.dumps(encounter_to_dict(load_encounter("bridge-duel-ap"))))
    creature = data["participants"][1]
    change(creature["weapons"][0], creature)
    with pytest.raises(ContentError) as info:
        encounter_from_dict(data)
    for word in words:
        assert word in str(info.value)


def test_reserves_are_written_only_when_there_are_some() -> None:
    """R48: the GM may add the creatures an encounter includes (its ``reserves``); the log keeps
    them so it replays on its own. A definition without reserves is written as before, and a
    saved dict without the key (written before it existed) loads with none."""
    goblin = CreatureDef("goblin", "Goblin", Side.NPC, {"Finesse": 4}, 9)
    hero = CreatureDef("hero", "Hero", Side.PC, {"Finesse": 5}, 12)
    plain = EncounterDef("Duel", Ruleset(), (hero, goblin))
    assert "reserves" not in encounter_to_dict(plain)
    with_reserves = EncounterDef("Duel", Ruleset(), (hero,), reserves=(goblin,))
    data = encounter_to_dict(with_reserves)
    assert list(data)[-1] == "reserves"
    assert [r["id"] for r in data["reserves"]] == ["goblin"]
    assert encounter_from_dict(json.loads(json.dumps(data))) == with_reserves
    assert encounter_from_dict(encounter_to_dict(plain)).reserves == ()


def test_the_bundled_reserves_round_trip() -> None:
    encounter = load_encounter("goblin-ambush")
    assert encounter.reserves
    again = encounter_from_dict(json.loads(json.dumps(encounter_to_dict(encounter))))
    assert again.reserves == encounter.reserves
    assert again == encounter


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.__setitem__("reserves", {"goblin": 1}), ["encounter.reserves", "a list"]),
        (lambda d: d["reserves"][0].pop("health"), ["reserves[1].health", "missing"]),
    ],
)
def test_bad_saved_reserves_raise_content_error(change: Any, words: list[str]) -> None:
    data = json.loads(json.dumps(encounter_to_dict(load_encounter("goblin-ambush"))))
    change(data)
    with pytest.raises(ContentError) as info:
        encounter_from_dict(data)
    for word in words:
        assert word in str(info.value)
