"""Issue 21 item 6: ``gm: add`` costs the same work at the 150th add as at the 10th.

R48: "add a participant mid-encounter (it joins the turn order where the GM says, or by its
initiative roll)". Each add made a new definition, and the Action Load module built its tables
for it from nothing: every creature's choices against every target, and every creature's
reactions for every roller — the cube of the creatures per add (25 adds 12 s, 100 adds 81 s,
205 not done in 300 s at the table). Now the tables of the definition before the add are
widened: the new creature's rows, and one target and one roller column for each other creature
(:meth:`caltrop.economy.load.actions.LoadActions.joined`). Each add also rebuilt every roller's
reaction window (R15: the others in turn order after it), the square of the creatures; now a
window is built when a roll first asks for it (:class:`caltrop.encounter.windows.TurnWindows`).
The tests count that work, and check that the widened tables are exactly the tables built afresh.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from caltrop.content import load_encounter
from caltrop.content.resolve import resolve_creature
from caltrop.core.commands import parse_command
from caltrop.economy.load import actions as load_actions
from caltrop.encounter import Encounter
from caltrop.encounter.windows import TurnWindows
from tests.fuzzing import fuzz


def _adds(enc: Encounter, n: int, *lines: str) -> None:
    goblin = resolve_creature("goblin")
    for k in range(n):
        line = lines[k % len(lines)] if lines else "gm: add goblin"
        enc.apply(replace(parse_command(line), creature=goblin))


def test_each_add_builds_only_the_new_creatures_choices(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scans over every creature (``_Choices.of``) an add makes: the newcomer's own actions
    and reactions, the same number at every add; no table is built from nothing."""
    built: list[str] = []
    fresh: list[int] = []
    real_of = load_actions._Choices.of.__func__  # type: ignore[attr-defined]
    real_init = load_actions._Tables.__init__

    def of(cls: type, creatures: tuple[object, ...], i: int, action: object, economy: object):  # type: ignore[no-untyped-def]
        built.append(str(i))
        return real_of(cls, creatures, i, action, economy)

    def init(self: object, definition: object, joined: object = None) -> None:
        if joined is None:
            fresh.append(1)
        real_init(self, definition, joined)  # type: ignore[arg-type]

    enc = Encounter.begin(load_encounter("orc-bridge"), seed=8)
    _adds(enc, 5)
    monkeypatch.setattr(load_actions._Choices, "of", classmethod(of))
    monkeypatch.setattr(load_actions._Tables, "__init__", init)
    per_add = []
    for _ in range(150):
        before = len(built)
        _adds(enc, 1)
        per_add.append(len(built) - before)
    assert not fresh, "an add rebuilt the tables from nothing"
    goblin = resolve_creature("goblin")
    rolled = sum(1 for a in goblin.actions if a.kind.value != "team")
    reacting = sum(1 for a in goblin.actions if a.reaction)
    assert set(per_add) == {rolled + reacting}
    assert len(enc.creatures) == 4 + 5 + 150


@pytest.mark.parametrize("name", ["orc-bridge", "goblin-ambush", "duel"])
@pytest.mark.parametrize(
    "lines",
    [
        ("gm: add goblin",),
        ("gm: add goblin after {first}", "gm: add goblin"),
    ],
)
def test_widened_tables_are_the_tables_built_afresh(name: str, lines: tuple[str, ...]) -> None:
    enc = Encounter.begin(load_encounter(name), seed=3)
    first = enc.creatures[0].id
    _adds(enc, 12, *(line.format(first=first) for line in lines))
    module = enc.module
    assert isinstance(module, load_actions.LoadActions)
    widened, again = module.tables, load_actions._Tables(enc.definition)
    assert widened.own_turn == again.own_turn
    assert widened.reaction_choices == again.reaction_choices
    assert widened.reactions == again.reactions
    assert widened.passes == again.passes
    assert widened.end_turns == again.end_turns
    assert widened.actions == again.actions


def test_an_add_builds_no_reaction_window_until_one_is_asked_for() -> None:
    """R15's windows (the others in turn order after the roller) were rebuilt for every roller
    on every change of the order, so each add cost the square of the creatures; now a window is
    built when a roll first asks for it, and an add builds none."""
    enc = Encounter.begin(load_encounter("orc-bridge"), seed=8)
    _adds(enc, 30)
    assert len(enc.windows) == 0, "an add built reaction windows nobody asked for"
    first = enc.order[0]
    asked = enc.windows[first]
    assert asked == tuple(enc.order[1:])
    assert len(enc.windows) == 1


@fuzz(100)
@given(order=st.permutations(range(12)).flatmap(lambda p: st.just(p[: len(p) // 2 + 1])))
def test_a_window_is_the_turn_order_rotated_past_its_roller(order: list[int]) -> None:
    """R15: "others, in turn order starting after the roller"; one not in the order has none."""
    windows = TurnWindows(order)
    for pos, roller in enumerate(order):
        assert windows[roller] == (*order[pos + 1 :], *order[:pos])
        assert roller not in windows[roller]
        assert sorted((*windows[roller], roller)) == sorted(order)
    for absent in set(range(12)) - set(order):
        assert windows[absent] == ()


_LOAD_CREATURES = ["goblin", "goblin-archer", "hobgoblin-captain", "orc-brute", "aria", "bron"]


@fuzz(20)
@given(
    name=st.sampled_from(["orc-bridge", "goblin-ambush", "duel"]),
    adds=st.lists(
        st.tuples(st.sampled_from(_LOAD_CREATURES), st.sampled_from(["", " after {first}"])),
        min_size=1,
        max_size=25,
    ),
)
def test_any_run_of_adds_scans_only_each_newcomers_actions(
    name: str, adds: list[tuple[str, str]]
) -> None:
    """The class's generator: whichever creatures join, in whichever place, each add scans the
    newcomer's own actions and reactions (``_Choices.of``), never the table's; the tables widened
    are the tables built afresh."""
    enc = Encounter.begin(load_encounter(name), seed=5)
    first = enc.creatures[0].id
    scans: list[int] = []
    real_of = load_actions._Choices.of.__func__  # type: ignore[attr-defined]

    def of(cls: type, creatures: tuple[object, ...], i: int, action: object, economy: object):  # type: ignore[no-untyped-def]
        scans.append(i)
        return real_of(cls, creatures, i, action, economy)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(load_actions._Choices, "of", classmethod(of))
        for source, where in adds:
            newcomer = resolve_creature(source)
            del scans[:]
            line = f"gm: add {source}{where.format(first=first)}"
            enc.apply(replace(parse_command(line), creature=newcomer))
            rolled = sum(1 for a in newcomer.actions if a.kind.value != "team")
            reacting = sum(1 for a in newcomer.actions if a.reaction)
            assert len(scans) == rolled + reacting
            assert set(scans) == {len(enc.creatures) - 1}
    module = enc.module
    assert isinstance(module, load_actions.LoadActions)
    again = load_actions._Tables(enc.definition)
    assert module.tables.own_turn == again.own_turn
    assert module.tables.reactions == again.reactions
