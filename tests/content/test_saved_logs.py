"""A save log is checked as content, field by field (issue 10, "Nothing edited slips through").

Issue 10: "A log with an event's ``roll`` record deleted replays without checking its dice; the
header's definition is only shape-checked (cost −1, Evasion 1e30 replay); ``format`` and ``n``
are not checked. Validate the header's definition exactly as a content file is validated, check
every field of every event, and refuse an unknown format version."
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from caltrop.content import (
    encounter_from_dict,
    encounter_to_dict,
    load_encounter,
    log_definition,
)
from caltrop.core.commands import Command, RollDice, parse_command
from caltrop.encounter import CHANCE, Encounter
from caltrop.errors import CaltropError, ContentError, InvalidActionError
from tests.fuzzing import fuzz, within

Events = list[dict[str, Any]]


@cache
def _played(name: str, seed: int = 5, steps: int = 40) -> tuple[str, ...]:
    """The log lines of ``steps`` random commands of a bundled encounter, as a save holds them."""
    definition = load_encounter(name)
    encounter = Encounter.begin(
        definition, seed, header={"definition": encounter_to_dict(definition)}
    )
    rng = random.Random(seed)
    for _ in range(steps):
        if encounter.is_terminal():
            break
        command: Command
        if encounter.current() == CHANCE:
            command = RollDice()
        else:
            command = rng.choice(list(encounter.legal_actions()))
        encounter.apply(command)
    return tuple(encounter.log_lines())


def events(name: str = "orc-bridge") -> Events:
    return [json.loads(line) for line in _played(name)]


def replay(log: Events, *, verify: bool = True) -> Encounter:
    """What a log reader does: the definition checked as content, then the replay."""
    return Encounter.replay(log_definition(log), log, verify=verify)


def test_a_saved_game_replays_to_the_same_state() -> None:
    for name in ("orc-bridge", "goblin-ambush", "bridge-duel-ap", "warband-ap"):
        log = events(name)
        assert replay(log).log_lines() == list(_played(name))


def _definition(log: Events) -> dict[str, Any]:
    return log[0]["header"]["definition"]  # type: ignore[no-any-return]


def _first_action(log: Events) -> dict[str, Any]:
    return _definition(log)["participants"][0]["actions"][0]  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            lambda log: _first_action(log).__setitem__("cost", -1),
            ["participants[1].actions[1].cost", "expected a number ≥ 0, got -1"],
        ),
        (
            lambda log: _definition(log)["participants"][1].__setitem__("evasion", 10**30),
            ["participants[2].evasion", "a number of 31 digits", "≤ 10000", "from 0 to 10,000"],
        ),
        (
            lambda log: _definition(log)["participants"][1].__setitem__("evasion", 1e30),
            ["participants[2].evasion", "expected an integer"],
        ),
        (
            lambda log: _definition(log)["participants"][0]["aspects"].__setitem__("Might", 10**9),
            ["participants[1].aspects.Might", "≤ 100"],
        ),
        (
            lambda log: _definition(log)["participants"][0].__setitem__("name", "\x1b[31mBron"),
            ["participants[1].name", "control character U+001B"],
        ),
        (
            lambda log: _first_action(log).__setitem__("grant", {"kind": "adv", "to": "ally"}),
            ["participants[1].actions[1].grant", "only team and effect actions grant"],
        ),
        (
            lambda log: _definition(log)["participants"][0].__setitem__("health", 0),
            ["participants[1].health", "≥ 1"],
        ),
        (
            lambda log: _definition(log).__setitem__("format", "caltrop-encounter/9"),
            ["unknown format"],
        ),
        (
            lambda log: _definition(log)["ruleset"].update(
                initiative="check", initiative_aspect="Luck"
            ),
            ["participants[1]", "no Aspect 'Luck'"],
        ),
    ],
)
def test_the_header_definition_is_checked_as_a_content_file_is(
    change: Callable[[Events], None], words: list[str]
) -> None:
    log = events()
    change(log)
    with pytest.raises(ContentError) as info:
        log_definition(log)
    message = str(info.value)
    for word in words:
        assert word in message
    assert len(message.splitlines()) == 1
    assert "\x1b" not in message
    with pytest.raises(ContentError):
        encounter_from_dict(_definition(log))


def test_an_added_creature_is_checked_as_a_creature_file_is() -> None:
    """R48: a ``gm: add`` event carries the creature's definition so the log replays alone."""
    definition = load_encounter("goblin-ambush")
    encounter = Encounter.begin(definition, 3, header={"definition": encounter_to_dict(definition)})
    encounter.apply(parse_command("gm: add goblin as goblin-9"))
    log = [json.loads(line) for line in encounter.log_lines()]
    assert replay(log).creature("goblin-9").name == "Goblin 9"
    log[-1]["creature"]["aspects"]["Finesse"] = 10**9
    with pytest.raises(ContentError, match=r"log event 2: saved creature: creature\.aspects"):
        log_definition(log)


# -- the events -------------------------------------------------------------------------------


def _roll_event(log: Events) -> int:
    return next(i for i, e in enumerate(log) if "roll" in e)


def _drop_roll(log: Events) -> None:
    del log[_roll_event(log)]["roll"]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            lambda log: log[0].__setitem__("format", "caltrop-log/2"),
            ["event 1", "unknown log format"],
        ),
        (lambda log: log[0].__setitem__("seed", 1e400), ["event 1", "seed is a whole number"]),
        (lambda log: log[0].__setitem__("seed", -1), ["event 1", "from 0 to 2^128"]),
        (lambda log: log[0].__setitem__("seed", 2**130), ["event 1", "from 0 to 2^128"]),
        (lambda log: log[0].__setitem__("seed", True), ["event 1", "whole number"]),
        (lambda log: log[0].__setitem__("extra", 1), ["event 1", "no field 'extra'"]),
        (lambda log: log[1].__setitem__("n", 7), ["event 2", "'n' is 7, but this is command 1"]),
        (lambda log: log[1].pop("n"), ["event 2", "'n' is the command's number"]),
        (lambda log: log[1].__setitem__("n", "1"), ["event 2", "'n' is the command's number"]),
        (
            lambda log: log[1].__setitem__("command", 5),
            ["event 2", "'command' is the command's text"],
        ),
        (lambda log: log[1].__setitem__("command", "x" * 10_001), ["event 2", "10,000"]),
        (lambda log: log[1].__setitem__("event", "cheat"), ["event 2", "unknown event 'cheat'"]),
        (lambda log: log[1].__setitem__("dice", [4]), ["event 2", "no field 'dice'"]),
        (lambda log: log.__setitem__(1, [1]), ["event 2", "a mapping"]),
        (
            lambda log: log[_roll_event(log)].__setitem__("roll", None),
            ["'roll' is a roll record"],
        ),
        (
            lambda log: log[_roll_event(log)]["roll"].__setitem__("faces", "4,4"),
            ["'faces' is not list"],
        ),
        (
            lambda log: log[_roll_event(log)]["roll"].pop("total"),
            ["the roll record has no 'total'"],
        ),
        (_drop_roll, ["rolled dice, but the event has no roll record"]),
    ],
)
def test_every_field_of_every_event_is_checked(
    change: Callable[[Events], None], words: list[str]
) -> None:
    log = events()
    change(log)
    with pytest.raises(InvalidActionError) as info:
        Encounter.replay(load_encounter("orc-bridge"), log)
    for word in words:
        assert word in str(info.value)
    assert len(str(info.value)) < 400


def test_a_deleted_roll_record_replays_only_unverified() -> None:
    """``verify=False`` asks not to check the dice: a log without a record then replays."""
    log = events()
    _drop_roll(log)
    again = Encounter.replay(load_encounter("orc-bridge"), log, verify=False)
    assert len(again.commands) == len(log) - 1


# -- fuzzing ----------------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside nested dicts and lists (the root excluded)."""
    found: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        for key, inner in value.items():
            found.append((*prefix, key))
            found.extend(_paths(inner, (*prefix, key)))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            found.append((*prefix, i))
            found.extend(_paths(inner, (*prefix, i)))
    return found


@st.composite
def mutated_logs(draw: st.DrawFn) -> Events:
    """A real log with one to three edits: a value replaced, a key or an event deleted."""
    log = copy.deepcopy(events(draw(st.sampled_from(["orc-bridge", "bridge-duel-ap"]))))
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(log)
        path = draw(st.sampled_from(paths))
        parent: Any = log
        for part in path[:-1]:
            parent = parent[part]
        action = draw(st.sampled_from(["replace", "delete"]))
        if action == "delete":
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(json_values)
    return log


@fuzz(150)
@given(mutated_logs())
def test_a_mutated_log_is_refused_in_words_or_replays(log: Events) -> None:
    """Only the project's own errors escape the log reader, each in one bounded line, and a log
    replays within seconds whatever was edited."""

    def read() -> None:
        try:
            replay(log)
        except CaltropError as exc:
            text = str(exc)
            assert text
            assert "Traceback" not in text

    within(10, read)


# -- issue 21: the header is as strict as every other field -----------------------------------


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda log: log[0]["header"].__setitem__("extra", 1), ["header has no field 'extra'"]),
        (
            lambda log: log[0]["header"].__setitem__("Definition", {}),
            ["header has no field 'Definition'"],
        ),
        (
            lambda log: log[0].__setitem__("encounter", "Troll Bridge"),
            ["names 'Troll Bridge', but its definition is 'Orc Bridge'"],
        ),
        (lambda log: log[0].pop("encounter"), ["names no encounter"]),
        (
            lambda log: log[0].__setitem__("name", log[0].pop("encounter")),
            ["names no encounter"],
        ),
    ],
)
def test_an_unknown_header_key_or_an_edited_encounter_field_is_refused(
    change: Callable[[Events], None], words: list[str]
) -> None:
    """Issue 21: an unknown key inside the header, and a renamed ``encounter`` field, were
    accepted; the log reader is strict, so both are refused, naming what is wrong."""
    log = events()
    change(log)
    with pytest.raises(CaltropError) as info:
        replay(log)
    for word in words:
        assert word in str(info.value), str(info.value)
    assert "event 1" in str(info.value)


#: Maps whose keys are the content's own names (a creature's Aspects and stats): any key there
#: is a name the designer chose, so adding one is an edit of the game, not an unknown field.
_OPEN_MAPS = frozenset({"aspects", "stats"})


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


@st.composite
def logs_with_a_key_added_or_renamed(draw: st.DrawFn) -> Events:
    """The class of issue 21's header edits: a real log with one unknown key added to one of
    its objects (an event, the header, the definition, a creature, a roll record…), or one key
    renamed (a typo, another case, a plural)."""
    log = copy.deepcopy(events(draw(st.sampled_from(["orc-bridge", "bridge-duel-ap"]))))
    objects = [
        path
        for path in _paths(log)
        if isinstance(_at(log, path), dict) and path[-1] not in _OPEN_MAPS
    ]
    target: dict[str, Any] = _at(log, draw(st.sampled_from(objects)))
    old = draw(st.sampled_from(sorted(target))) if target and draw(st.booleans()) else None
    stem = old if old is not None else draw(st.sampled_from(sorted(target) or ["encounter"]))
    new = draw(
        st.sampled_from([stem.upper(), stem.title(), f"{stem}s", f"{stem}_", f" {stem}"])
        | st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8).map(
            lambda text: f"x_{text}"
        )
    )
    if new in target:
        new = f"x_{new}"
    if old is not None:
        target[new] = target.pop(old)
    else:
        target[new] = draw(json_values)
    return log


@fuzz(150)
@given(logs_with_a_key_added_or_renamed())
def test_fuzz_an_added_or_renamed_key_anywhere_in_a_log_is_refused(log: Events) -> None:
    """Issue 21: an unknown key inside the header and a renamed ``encounter`` field were
    accepted. Every object of a log is strict (but the Aspect and stat maps, whose keys are
    names): a key added or renamed anywhere is refused, in one line, never replayed."""

    def read() -> None:
        with pytest.raises(CaltropError) as info:
            replay(log)
        assert "\n" not in str(info.value).strip()

    within(10, read)
