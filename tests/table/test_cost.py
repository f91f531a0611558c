"""A cost is shown as what is paid, never as a negative figure (issue 22 item 2: "cost RP -1"
becomes "cost 1 RP"). Paying raises Load (R12) and lowers AP, RP, floating RP and Stamina (R30,
R40: "Block … 1 AP or 1 RP")."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from caltrop.table.cost import RESOURCES, cost_text

changes = st.dictionaries(
    st.sampled_from([*RESOURCES, "favor"]),
    st.integers(-50, 50) | st.floats(-50, 50, allow_nan=False).map(lambda v: round(v, 2)),
)


@given(changes)
def test_no_figure_in_a_cost_is_negative(cost: dict[str, float]) -> None:
    text = cost_text(cost)
    assert "-" not in text
    assert "−" not in text
    assert not re.search(r"\+\d", text)
    named = sum(1 for v in cost.values() if v != 0)
    assert text.count(",") + text.count(";") == max(0, named - 1)


@given(changes)
def test_each_change_is_paid_or_gained_by_its_direction(cost: dict[str, float]) -> None:
    text = cost_text(cost)
    paid, _, gained = text.partition("gives ")
    for key, change in cost.items():
        if change == 0:
            continue
        name, sign = RESOURCES.get(key, (key, -1))
        amount = abs(change)
        words = f"{int(amount) if float(amount).is_integer() else amount} {name}"
        assert words in (paid if change * sign > 0 else gained)


def test_the_defence_costs_read_as_paid() -> None:
    assert cost_text({"rp": -1}) == "cost 1 RP"
    assert cost_text({"ap": -2, "stamina": -2}) == "cost 2 AP, 2 Stamina"
    assert cost_text({"load": 3}) == "cost 3 Load"
    assert cost_text({"rp": 1}) == "gives 1 RP"
    assert cost_text({}) == ""
