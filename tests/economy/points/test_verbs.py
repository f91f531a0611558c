"""The Action Point module's one table of verbs (issue 24 item 1): every verb has all its parts.

``caltrop.economy.points.verbs.TABLE`` is the only place the dispatcher looks a verb up (no
handler names built at run time). These tests fail when a verb lacks a part: an example that the
engine plans and carries out with the effect its rule names (legality, plan, effect), a place in
the module's table of actions (its docstring), and flags that agree with the code that lists
legal commands, with the engine's tactics and with the compiled fast path. They also fail when a
phase module has a planner or an effect that no table entry uses (dead code reached by no name).
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from dataclasses import replace
from types import ModuleType

import pytest

from caltrop.core.commands import Act, parse_command
from caltrop.core.model import OffTurn
from caltrop.economy.points import actions, attacks, defence, grapple, misc, movement, stealth
from caltrop.economy.points.verbs import REACTIONS, TABLE, VERBS, Timing
from caltrop.encounter import Encounter
from caltrop.sim import points_tactics
from tests.encounter.points_builders import (
    BOW,
    DAGGER,
    SWORD,
    ap_creature,
    ap_npc,
    definition,
    refused,
    run,
    st,
)

PHASES: tuple[ModuleType, ...] = (movement, attacks, defence, grapple, stealth, misc)


def _table(off_turn: OffTurn = OffTurn.ANY) -> Encounter:
    """Aria (sword and bow in hand, a dagger stowed) and Bron side by side, an orc adjacent to
    Aria (1 m, R34); Aria's turn (the GM's order, R21)."""
    aria = ap_creature("aria", at=(0, 0), weapons=(SWORD, DAGGER, BOW), equipped=("sword", "bow"))
    bron = ap_creature("bron", at=(0, 1))
    defined = definition(aria, bron, ap_npc("orc", at=(1, 0)))
    ruleset = replace(defined.ruleset, off_turn_actions=off_turn)
    return Encounter.begin(replace(defined, ruleset=ruleset), 0)


def _top(enc: Encounter) -> dict[str, object]:
    """The pending roll's stage and context (empty with nothing pending)."""
    if not enc.pending:
        return {}
    return {"stage": enc.pending[-1].stage, **enc.pending[-1].context}


#: The orc's turn, its sword's 2d8 rolled 8+8 (R38): Aria is in the defence window (R45).
_DEFENCE = ("aria: end turn", "bron: end turn", "orc: attack aria with sword", "roll 8,8")
#: The orc grapples Aria (R42: its Strength 4d4 rolls 16 against her 4), then her turn comes.
_GRAPPLED = (
    "aria: end turn",
    "bron: end turn",
    "orc: grapple aria",
    "roll 4,4,4,4",
    "roll 1,1,1,1",
    "orc: end turn",
)

#: verb -> (commands before it, the command, what its rule says it does)
EXAMPLES: dict[str, tuple[tuple[str, ...], str, Callable[[Encounter], bool]]] = {
    # R35: "1 AP per travel speed meters" — 2 m at 2 m per AP
    "move": (
        (),
        "aria: move to 0,-2",
        lambda e: (st(e, "aria").x, st(e, "aria").y, st(e, "aria").ap) == (0, -2, 5),
    ),
    # R36: 3 AP + 3 Stamina, at most Power (3) m without a run-up
    "leap": (
        (),
        "aria: leap to 0,-2",
        lambda e: (st(e, "aria").y, st(e, "aria").stamina) == (-2, 3),
    ),
    # R33: 2 AP -> 1 floating RP
    "hold": ((), "aria: hold", lambda e: (st(e, "aria").ap, st(e, "aria").floating) == (4, 1)),
    # R39: 1 AP, one Aim stack at its target
    "aim": (
        (),
        "aria: aim orc",
        lambda e: (st(e, "aria").aim, st(e, "aria").aim_target) == (1, "orc"),
    ),
    # R44: the weapon's attack AP (the dagger's 2)
    "equip": (
        (),
        "aria: equip dagger",
        lambda e: "dagger" in st(e, "aria").equipped and st(e, "aria").ap == 4,
    ),
    "stow": ((), "aria: stow bow", lambda e: "bow" not in st(e, "aria").equipped),
    # R44: 1 AP to stand up
    "stand": (("gm: set aria prone on",), "aria: stand", lambda e: not st(e, "aria").prone),
    # R37: 1 AP, +1 Stamina (after a leap spent 3)
    "breath": (("aria: leap to 0,-2",), "aria: breath", lambda e: st(e, "aria").stamina == 4),
    # R44: 3 AP and an Analysis check against the GM's DC
    "martial": (
        (),
        "aria: martial dc 12",
        lambda e: _top(e).get("stage") == "check" and _top(e).get("dc") == 12,
    ),
    # R38: melee, no roll to hit: the damage roll comes first
    "attack": ((), "aria: attack orc with sword", lambda e: _top(e).get("stage") == "damage"),
    # R39: a Dexterity check, DC = the distance (1 m)
    "shoot": (
        (),
        "aria: shoot orc with bow",
        lambda e: _top(e).get("stage") == "hit" and _top(e).get("dc") == 1,
    ),
    # R42: 3 AP + 2 Stamina, an opposed contest
    "grapple": (
        (),
        "aria: grapple orc",
        lambda e: _top(e).get("verb") == "grapple" and st(e, "aria").stamina == 4,
    ),
    # R42: the held one's contest against its holder
    "escape": (
        _GRAPPLED,
        "aria: escape",
        lambda e: (_top(e).get("verb"), _top(e).get("opposer")) == ("escape", 2),
    ),
    # R43: Agility against the larger (or same-size) creature's Strength
    "scale": (
        (),
        "aria: scale orc",
        lambda e: (_top(e).get("verb"), _top(e).get("stat_b")) == ("scale", "Strength"),
    ),
    # R43: the one scaled shakes its scaler off (Aria scales the orc unopposed first)
    "shake": (
        ("aria: scale orc", "roll 4,4,4", "aria: end turn", "bron: end turn"),
        "orc: shake",
        lambda e: (_top(e).get("verb"), _top(e).get("opposer")) == ("shake", 0),
    ),
    # R40: the defender's choices in the window; Defense Assist by an adjacent ally
    "block": (_DEFENCE, "aria: block", lambda e: _top(e).get("mode") == "block"),
    "dodge": (_DEFENCE, "aria: dodge", lambda e: _top(e).get("mode") == "dodge"),
    "cover": (
        _DEFENCE,
        "aria: cover",
        lambda e: _top(e).get("cover") is True and "orc" in st(e, "aria").cover_from,
    ),
    "assist": ((*_DEFENCE, "aria: block"), "bron: assist", lambda e: _top(e).get("assists") == 1),
    # R42: the holder answers the escape (2 Stamina)
    "oppose": (
        (*_GRAPPLED, "aria: escape"),
        "orc: oppose",
        lambda e: _top(e).get("opposed") is True and st(e, "orc").stamina == 2,
    ),
}


def test_every_verb_has_an_example_and_every_example_a_verb() -> None:
    assert set(EXAMPLES) == set(TABLE)


@pytest.mark.parametrize("verb", list(TABLE))
def test_the_engine_plans_and_carries_out_each_verb_by_its_table_entry(verb: str) -> None:
    """The verb's planner accepts the example and its effect does what its rule says."""
    before, line, effect = EXAMPLES[verb]
    enc = _table()
    run(enc, *before)
    command = parse_command(line)
    assert isinstance(command, Act)
    assert command.action == verb
    assert enc.is_legal(command)
    assert not effect(enc)  # the effect is not there yet
    enc.apply(command)
    assert effect(enc)


@pytest.mark.parametrize("verb", REACTIONS)
def test_a_reaction_is_refused_with_nothing_to_react_to(verb: str) -> None:
    """R45: reactions answer a roll stage; on one's turn with nothing pending there is none."""
    refused(_table(), f"aria: {verb}", f"{verb} is a reaction", "R40, R45")


@pytest.mark.parametrize("verb", [v for v, e in TABLE.items() if e.timing is Timing.TURN])
def test_an_own_turn_verb_is_refused_off_turn(verb: str) -> None:
    """R32 (``off_turn_actions: reactions``): off its turn a creature only reacts, escapes or
    shakes off."""
    _, line, _ = EXAMPLES[verb]
    actor, _, rest = line.partition(": ")
    other = "bron" if actor != "bron" else "aria"
    refused(_table(OffTurn.REACTIONS), f"{other}: {rest}", "own turn", "R32")


@pytest.mark.parametrize("verb", [v for v, e in TABLE.items() if not e.off_turn])
def test_a_verb_not_off_turn_is_refused_off_turn_even_when_any_action_may_be(verb: str) -> None:
    """R33: Hold Action turns one's own AP into floating RP, on one's own turn (R32 ``any``
    does not lift it)."""
    _, line, _ = EXAMPLES[verb]
    refused(_table(OffTurn.ANY), f"bron: {line.partition(': ')[2]}", "own turn", TABLE[verb].rule)


def _docstring_verbs() -> set[str]:
    doc = actions.__doc__ or ""
    rows = [line for line in doc.splitlines() if "``" in line and " R" in line]
    names: set[str] = set()
    for row in rows:
        head = row.split("``")[0].strip()
        names.update(n.strip() for n in head.split("/") if n.strip())
    return names


def test_the_modules_table_of_actions_lists_every_verb() -> None:
    assert _docstring_verbs() == set(VERBS)


def _named_verbs(source: str) -> set[str]:
    """The verbs a piece of code names (string constants equal to a verb)."""
    tree = ast.parse(source)
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in TABLE
    }


def test_listed_says_which_verbs_the_legal_command_list_proposes() -> None:
    names = _named_verbs(inspect.getsource(actions.legal))
    assert names == {v for v, e in TABLE.items() if e.listed}


def test_tactics_says_which_verbs_the_engines_tactics_take() -> None:
    names = _named_verbs(inspect.getsource(points_tactics))
    assert names == {v for v, e in TABLE.items() if e.tactics}


def test_kernel_says_which_verbs_the_compiled_fast_path_plays() -> None:
    """The fast path plays ``simple_points_command``'s choices and nothing else (its docstring):
    a verb that tactic takes must be compiled, and one the kernel claims must be taken."""
    names = _named_verbs(inspect.getsource(points_tactics.simple_points_command))
    assert names == {v for v, e in TABLE.items() if e.kernel}
    assert all(TABLE[v].tactics for v in names)


def test_every_planner_and_effect_of_the_phase_modules_is_in_the_table() -> None:
    """No handler waits to be found by a name built at run time: each public ``plan_*`` and
    ``do_*`` function is some verb's entry."""
    used = {f for e in TABLE.values() for f in (e.plan, e.do)}
    for module in PHASES:
        for name, value in vars(module).items():
            if (name.startswith(("plan_", "do_"))) and inspect.isfunction(value):
                assert value in used, f"{module.__name__}.{name} is in no verb's entry"


def test_no_handler_is_found_by_a_name_built_at_run_time() -> None:
    """Issue 24 item 1: no ``getattr(…, f"_plan_{verb}")`` — no ``getattr`` on a built name."""
    for module in (actions, *PHASES):
        for node in ast.walk(ast.parse(inspect.getsource(module))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "getattr":
                assert not isinstance(node.args[1], ast.JoinedStr | ast.BinOp), module.__name__
