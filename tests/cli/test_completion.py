"""TAB completion at the ``caltrop play`` prompt (:mod:`caltrop.cli.completion`), without a TTY.

Every expectation is derived from the encounter (its creatures, actions, weapons, Aspects and
``legal_actions``), never a list copied from the example files.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caltrop.cli.completion import GM_VERBS, SESSION, candidates
from caltrop.content import bundled_encounters, load_encounter
from caltrop.content.catalogue import bundled_creatures
from caltrop.core.commands import Act, RollDice
from caltrop.economy.points.actions import VERBS
from caltrop.encounter import Encounter

ENCOUNTERS = sorted(bundled_encounters())


def begin(name: str) -> Encounter:
    return Encounter.begin(load_encounter(name), 1)


def started(name: str) -> Encounter:
    """The encounter with its initiative rolled (round 1, someone's turn)."""
    encounter = begin(name)
    while encounter.round == 0:
        encounter.apply(RollDice())
    return encounter


@pytest.mark.parametrize("name", ENCOUNTERS)
def test_an_empty_line_offers_the_session_commands_every_id_and_the_gm(name: str) -> None:
    encounter = begin(name)
    assert candidates(encounter, "") == [
        *SESSION,
        *(f"{c.id}:" for c in encounter.creatures),
        "gm:",
    ]


@pytest.mark.parametrize("name", ENCOUNTERS)
def test_a_partial_id_completes_to_the_id_with_its_colon(name: str) -> None:
    encounter = begin(name)
    for creature in encounter.creatures:
        got = candidates(encounter, creature.id[:3])
        assert f"{creature.id}:" in got
        assert all(word.startswith(creature.id[:3]) for word in got)
        assert candidates(encounter, creature.id) == [
            f"{c.id}:" for c in encounter.creatures if c.id.startswith(creature.id)
        ]


def test_ari_completes_to_aria() -> None:
    encounter = begin("goblin-ambush")
    assert candidates(encounter, "ari") == ["aria:"]
    assert candidates(encounter, "he") == ["help"]
    assert candidates(encounter, "zz") == []


@pytest.mark.parametrize("name", ["goblin-ambush", "orc-bridge"])
def test_after_an_id_come_its_own_actions_then_end_and_pass(name: str) -> None:
    """Action Load: the creature's actions (its file), ``end`` (turn) and ``pass``."""
    encounter = started(name)
    for creature in encounter.creatures:
        got = candidates(encounter, f"{creature.id}: ")
        assert set(got) == {a.name for a in creature.actions} | {"end", "pass"}
        assert len(got) == len(set(got))


def test_the_actions_legal_now_come_first() -> None:
    encounter = started("goblin-ambush")
    owner = encounter.current()
    legal = list(
        dict.fromkeys(c.action for c in encounter.legal_actions(owner) if isinstance(c, Act))
    )
    assert legal, "the turn owner may do something"
    assert candidates(encounter, f"{owner}: ")[: len(legal)] == legal


@pytest.mark.parametrize("name", ["bridge-duel-ap", "warband-ap"])
def test_action_points_ids_are_followed_by_the_module_verbs(name: str) -> None:
    """Action Points: every participant has the module's actions (move, aim, attack, …)."""
    encounter = started(name)
    for creature in encounter.creatures:
        got = candidates(encounter, f"{creature.id}: ")
        assert set(got) == set(VERBS) | {"end", "pass"}
    assert candidates(encounter, f"{encounter.creatures[0].id}: mo") == ["move"]
    assert candidates(encounter, f"{encounter.creatures[0].id}: move ") == ["to", "toward"]


def test_end_completes_to_end_turn() -> None:
    encounter = started("goblin-ambush")
    assert candidates(encounter, "aria: e") == ["end"]
    assert candidates(encounter, "aria: end ") == ["turn"]
    assert candidates(encounter, "aria: pass ") == []


def test_targets_after_an_action_are_the_legal_ones_first_then_the_others() -> None:
    encounter = started("goblin-ambush")
    owner = encounter.current()
    verb = next(c.action for c in encounter.legal_actions(owner) if isinstance(c, Act))
    legal = list(
        dict.fromkeys(
            t
            for c in encounter.legal_actions(owner)
            if isinstance(c, Act) and c.action == verb
            for t in c.targets
        )
    )
    got = candidates(encounter, f"{owner}: {verb} ")
    assert got[: len(legal)] == legal
    ids = {c.id for c in encounter.creatures} - {owner}
    assert ids <= set(got)
    assert owner not in got


def test_with_completes_the_creatures_weapons() -> None:
    encounter = started("goblin-ambush")
    for creature in encounter.creatures:
        names = [w.name for w in creature.weapons]
        uses = [a.name for a in creature.actions if a.uses_weapon]
        for verb in uses:
            assert "with" in candidates(encounter, f"{creature.id}: {verb} x ")
            assert candidates(encounter, f"{creature.id}: {verb} x with ") == names


def test_action_points_weapons_include_unarmed_and_combine_with_plus() -> None:
    encounter = started("warband-ap")
    creature = next(c for c in encounter.creatures if len(c.weapons) >= 2)
    first = creature.weapons[0].name
    names = [w.name for w in creature.weapons] + ["unarmed"]
    assert candidates(encounter, f"{creature.id}: attack x with ") == names
    assert candidates(encounter, f"{creature.id}: attack x with {first}+") == [
        f"{first}+{n}" for n in names
    ]
    assert candidates(encounter, f"{creature.id}: equip ") == names


def test_the_gm_verbs_and_their_words() -> None:
    encounter = started("goblin-ambush")
    ids = [c.id for c in encounter.creatures]
    assert candidates(encounter, "gm: ") == list(GM_VERBS)
    assert candidates(encounter, "gm: e") == ["end"]
    assert candidates(encounter, "gm: end ") == ["encounter"]
    assert candidates(encounter, "gm: pass ") == ["all"]
    for verb in ("damage", "heal", "remove", "call"):
        assert candidates(encounter, f"gm: {verb} ") == ids
    aria = encounter.creature("aria")
    assert candidates(encounter, "gm: call aria ") == list(aria.aspects)
    assert "dc" in candidates(encounter, "gm: call aria Finesse ")
    assert candidates(encounter, "gm: add x af") == ["after"]
    assert candidates(encounter, "gm: add x after ") == ids
    assert candidates(encounter, "gm: add x by ") == ["initiative"]


def test_gm_set_offers_the_numbers_of_the_module() -> None:
    """R48: Action Load sets exhaustion/buffer/load; Action Points sets ap/rp/stamina and the
    facts of R34 (aware, sight, at); both set prone."""
    load = started("goblin-ambush")
    assert candidates(load, "gm: set aria ") == ["exhaustion", "buffer", "load", "prone"]
    assert candidates(load, "gm: set aria prone ") == ["on", "off"]
    points = started("warband-ap")
    who = points.creatures[0].id
    got = candidates(points, f"gm: set {who} ")
    assert {"ap", "rp", "stamina", "prone", "aware", "sight", "at"} == set(got)
    other = points.creatures[1].id
    assert other in candidates(points, f"gm: set {who} aware ")
    assert candidates(points, f"gm: set {who} aware {other} ") == ["on", "off"]


def test_gm_order_completes_id_after_id() -> None:
    encounter = started("goblin-ambush")
    ids = [c.id for c in encounter.creatures]
    got = candidates(encounter, "gm: order ")
    assert got == [f"{i}," for i in ids]
    got = candidates(encounter, f"gm: order {ids[0]},")
    assert got == [f"{ids[0]},{i}," for i in ids[1:]]
    last = ",".join(ids[:-1])
    assert candidates(encounter, f"gm: order {last},") == [f"{last},{ids[-1]}"]


def test_legal_takes_an_id_or_gm() -> None:
    encounter = begin("goblin-ambush")
    assert candidates(encounter, "legal ") == [*(c.id for c in encounter.creatures), "gm"]
    assert candidates(encounter, "nobody: ") == []
    assert candidates(encounter, "roll ") == []


@pytest.mark.parametrize("name", ENCOUNTERS)
@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet="abcdegilmnoprstw:-+, 0123", max_size=30))
def test_completion_never_fails_and_always_extends_the_last_word(name: str, text: str) -> None:
    encounter = begin(name)
    partial = text.split(" ")[-1]
    for word in candidates(encounter, text):
        assert word.startswith(partial)


@pytest.mark.parametrize("name", ENCOUNTERS)
def test_gm_add_offers_the_reserves_the_ids_and_the_bundled_creatures_of_the_module(
    name: str,
) -> None:
    """R48: ``gm: add CREATURE``: a creature the encounter includes or uses, or a bundled one
    of the same module (by name)."""
    encounter = begin(name)
    got = candidates(encounter, "gm: add ")
    economy = encounter.definition.ruleset.economy.value
    bundled = {n for n, f in bundled_creatures().items() if f.economy == economy}
    assert {c.id for c in encounter.definition.reserves} <= set(got)
    assert bundled <= set(got)
    others = {n for n, f in bundled_creatures().items() if f.economy != economy}
    assert not (others - bundled - {c.id for c in encounter.creatures}) & set(got)
