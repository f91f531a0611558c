"""Issue 21 item 3 at the web table: the GM downs a creature while initiative is rolled.

R30: "Each participant makes a Speed check (R1). Order by total, highest first." R48: the GM
may "damage or heal a creature" at any moment. ``gm: damage brakka 1000`` before Brakka's Speed
check, then ``roll`` for each creature, crashed the engine (``AssertionError`` in
``_finish_initiative``) — at the terminal and at the web table alike, whose commands the same
engine applies; the table could not go on. Brakka now rolls, keeps her place, and is skipped
while down (docs/rules.md, R30 "A creature down during initiative").
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.web.test_api import bearer, new_table, send


@pytest.mark.parametrize(("name", "creatures"), [("bridge-duel-ap", 4), ("warband-ap", 6)])
def test_the_gm_downs_a_creature_during_initiative_and_the_table_goes_on(
    client: TestClient, name: str, creatures: int
) -> None:
    gm = new_table(client, name)["gm"]["token"]
    assert send(client, gm, "gm: damage brakka 1000").status_code == 200
    for _ in range(creatures):
        rolled = send(client, gm, "roll")
        assert rolled.status_code == 200, rolled.text
    shown = client.get("/api/view", headers=bearer(gm)).json()
    assert shown["round"] == 1
    brakka = next(c for c in shown["creatures"] if c["id"] == "brakka")
    assert brakka["down"]
    assert shown["turn"] != "brakka"
    # undo the last roll and roll it again: the table is not stuck
    assert send(client, gm, "gm: undo").status_code == 200
    assert send(client, gm, "roll").status_code == 200
    assert client.get("/api/view", headers=bearer(gm)).json()["round"] == 1
