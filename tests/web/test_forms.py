"""The GM tool forms and physical-dice fields become the engine's notation (issue 12)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from caltrop.core.commands import parse_command
from caltrop.web.forms import FormError, command_text


def form(**fields: str | list[str]) -> dict[str, list[str]]:
    return {k: v if isinstance(v, list) else [v] for k, v in fields.items()}


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (form(op="health", verb="damage", target="goblin", amount="3"), "gm: damage goblin 3"),
        (form(op="health", verb="heal", target="bron", amount="5"), "gm: heal bron 5"),
        (form(op="call", target="aria", aspect="finesse", dc="12"), "gm: call aria finesse dc 12"),
        (form(op="call", target="aria", aspect="finesse", dc=""), "gm: call aria finesse"),
        (form(op="add", source="goblin", as_id="goblin-4"), "gm: add goblin as goblin-4"),
        (form(op="remove", target="goblin-2"), "gm: remove goblin-2"),
        (form(op="order", order="aria, goblin-1 ,bron"), "gm: order aria,goblin-1,bron"),
        (form(op="set", target="aria", fact="prone on"), "gm: set aria prone on"),
        (form(command="bron: strike orc-brute"), "bron: strike orc-brute"),
        (form(command="roll"), "roll"),
        (form(command="roll", die=["3", "1", "4", "7"]), "roll 3,1,4,7"),
        (form(command="roll", faces="3, 1 4,7"), "roll 3,1,4,7"),
    ],
)
def test_a_form_says_the_command_a_terminal_user_would_type(
    fields: dict[str, list[str]], expected: str
) -> None:
    text = command_text(fields)
    assert text == expected
    assert str(parse_command(text)) == expected  # the engine reads it back as the same


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (form(command="roll", die=["3", "", "4"]), "enter every die"),
        (form(op="remove", target="gob lin"), "target is not a creature id: expected one"),
        (form(op="health", verb="poison", target="x", amount="1"), "damage or heal"),
        (form(op="health", verb="damage", target="x"), "fill in amount"),
        (form(op="teleport"), "unknown form"),
        # issue 21: every creature id field follows the one id rule (caltrop.core.ids)
        (form(op="add", source="goblin", as_id="gm"), "as id is not a creature id: 'gm' is a"),
        (form(op="add", source="goblin", as_id="Goblin"), "as id is not a creature id: expected"),
        (form(op="add", source="Goblin"), "source is not a creature id: expected one lowercase"),
        (form(op="call", target="roll", aspect="finesse"), "'roll' is a reserved word"),
        (form(op="add", source="goblin", as_id="a" * 41), "at most 40 characters, got 41"),
        (form(), "fill in command"),
    ],
)
def test_a_bad_form_is_named_in_one_line(fields: dict[str, list[str]], message: str) -> None:
    with pytest.raises(FormError, match=message):
        command_text(fields)


@given(st.lists(st.integers(min_value=1, max_value=20), min_size=1, max_size=12))
def test_one_field_per_die_keeps_the_dice_in_order(faces: list[int]) -> None:
    """R5: physical dice are entered in the pool's order; the fields keep it."""
    text = command_text(form(command="roll", die=[str(f) for f in faces]))
    assert text == "roll " + ",".join(str(f) for f in faces)
