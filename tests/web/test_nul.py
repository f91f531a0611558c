"""Issue 20 §2: "PostgreSQL: a NUL character in command_id or in encounter gives 422, not a 500
with a traceback (every text field the server stores is checked once, for both databases)".
Every route that takes client text is sent a NUL in it, on SQLite and (with
CALTROP_TEST_PG_URL) PostgreSQL, whose text cannot hold one; each answers 422 naming why, and
the table is as it was."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from caltrop.web.seating import COOKIE
from tests.web.test_api import bearer, new_table

Call = Callable[[TestClient, dict[str, Any]], Any]


def _gm(table: dict[str, Any]) -> dict[str, str]:
    return bearer(table["gm"]["token"])


def _cookie(client: TestClient, table: dict[str, Any]) -> TestClient:
    client.cookies.set(COOKIE, table["gm"]["token"])
    return client


CASES: dict[str, Call] = {
    "POST /api/tables encounter": lambda c, t: c.post("/api/tables", json={"encounter": "orc\0"}),
    "POST /api/commands command_id": lambda c, t: c.post(
        "/api/commands", json={"command": "gm: pass all", "command_id": "a\0b"}, headers=_gm(t)
    ),
    "POST /api/commands command": lambda c, t: c.post(
        "/api/commands", json={"command": "gm: pass all\0", "command_id": "ab"}, headers=_gm(t)
    ),
    "POST /api/encounters encounter": lambda c, t: c.post(
        "/api/encounters", json={"encounter": "goblin-ambush\0"}, headers=_gm(t)
    ),
    "POST /api/seats/ID/reissue": lambda c, t: c.post("/api/seats/br%00on/reissue", headers=_gm(t)),
    "PUT /api/visibility creature": lambda c, t: c.put(
        "/api/visibility", json={"orc-brute\0": {}}, headers=_gm(t)
    ),
    "POST /tables encounter": lambda c, t: c.post("/tables", data={"encounter": "orc\0"}),
    "POST /table/command command_id": lambda c, t: _cookie(c, t).post(
        "/table/command", data={"command": "gm: pass all", "command_id": "x\0"}
    ),
    "POST /table/command command": lambda c, t: _cookie(c, t).post(
        "/table/command", data={"command": "gm: pass\0 all", "command_id": "x"}
    ),
    "POST /table/encounters encounter": lambda c, t: _cookie(c, t).post(
        "/table/encounters", data={"encounter": "goblin-ambush\0"}
    ),
    "POST /table/visibility creature": lambda c, t: _cookie(c, t).post(
        "/table/visibility", data={"creature": "orc-brute\0"}
    ),
    "POST /api/tables/upload field": lambda c, t: c.post(
        "/api/tables/upload",
        files={"files": ("e.yaml", b"kind: encounter\n")},
        data={"seed": "1\0"},
    ),
    "POST /api/encounters/upload reset": lambda c, t: c.post(
        "/api/encounters/upload",
        files={"files": ("e.yaml", b"kind: encounter\n")},
        data={"reset": "health\0"},
        headers=_gm(t),
    ),
    "POST /api/tables/upload file name": lambda c, t: c.post(
        "/api/tables/upload",
        content=b'--b\r\nContent-Disposition: form-data; name="files"; filename="e\0.yaml"\r\n'
        b"\r\nkind: encounter\n\r\n--b--\r\n",
        headers={"Content-Type": "multipart/form-data; boundary=b"},
    ),
    "POST /api/tables/upload YAML escape": lambda c, t: c.post(
        "/api/tables/upload", files={"files": ("e.yaml", b'kind: encounter\nname: "a\\0b"\n')}
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_nul_character_is_refused_with_422(client: TestClient, case: str) -> None:
    table = new_table(client)
    before = client.get("/api/log", headers=_gm(table)).text
    response = CASES[case](client, table)
    client.cookies.clear()
    assert response.status_code == 422, response.text[:300]
    text = response.text
    assert "NUL" in text or "control character" in text or "not a" in text, text[:300]
    assert client.get("/api/log", headers=_gm(table)).text == before  # nothing changed


def test_the_schema_refusal_names_the_field(client: TestClient) -> None:
    table = new_table(client)
    response = client.post(
        "/api/commands", json={"command": "roll", "command_id": "ab\0"}, headers=_gm(table)
    )
    assert response.status_code == 422
    detail = response.json()["detail"]  # the one error body (web/errors.py): the field and why
    assert detail.startswith("body.command_id: ")
    assert "NUL character (U+0000) at position 3" in detail


@pytest.mark.parametrize("where", ["name", "creature"])
def test_an_imported_log_with_a_nul_in_its_encounter_is_422(client: TestClient, where: str) -> None:
    """A log is JSON: ``\\u0000`` in its definition reaches the server as a NUL character."""
    table = new_table(client)
    lines = client.get("/api/log", headers=_gm(table)).text.splitlines()
    begin = json.loads(lines[0])
    definition = begin["header"]["definition"]
    if where == "name":
        definition["name"] = "Orc\0Bridge"
    else:
        definition["participants"][0]["name"] = "Br\0n"
    lines[0] = json.dumps(begin)
    response = client.post("/api/tables/import", content="\n".join(lines).encode())
    assert response.status_code == 422, response.text[:300]
