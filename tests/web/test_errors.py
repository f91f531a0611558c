"""Issue 20 §4, "The API says what it does": one error model for every refusal
(:class:`caltrop.web.errors.ErrorOut`: ``detail`` in words, ``head`` for a stale
``expected_seq``), request validation errors in the same model and readable, and strict types
(``"seed": false`` was taken as seed 0)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Final

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from caltrop.web import Settings, create_app
from caltrop.web.errors import ErrorOut, validation_detail
from tests.web.test_api import bearer, new_table, send

#: JSON values that are not integers (a bool is not one, though Python says it is)
NOT_INTEGERS: Final = st.one_of(
    st.booleans(),
    st.text(max_size=5),
    st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer()),
    st.lists(st.integers(0, 9), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(0, 9), max_size=1),
)
#: JSON values that are not booleans
NOT_BOOLEANS: Final = st.one_of(
    st.integers(), st.text(max_size=5), st.lists(st.booleans(), max_size=1)
)


def refusal(response: Any, status: int) -> ErrorOut:
    """The response's body, checked to be a refusal of ``status`` in the one error model."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    return ErrorOut.model_validate(response.json(), strict=True)


def test_every_kind_of_refusal_has_the_one_body(client: TestClient) -> None:
    table = new_table(client)
    gm, aria = table["gm"]["token"], table["players"]["aria"]["token"]
    assert send(client, gm, "bron: strike orc-brute", "c1").status_code == 200
    assert refusal(client.get("/api/view"), 401).detail.startswith("no seat")
    assert "Bearer" in refusal(client.get("/api/view", headers={"Authorization": "x"}), 401).detail
    assert "GM" in refusal(client.get("/api/log", headers=bearer(aria)), 403).detail
    gone = client.get("/api/log", params={"position": 5}, headers=bearer(gm))
    assert refusal(gone, 404).detail == "no encounter 5: this night has 1 (0 to 0)"
    stale = refusal(send(client, gm, "roll", "c2", expected_seq=0), 409)
    assert stale.head == 1
    assert "stale expected_seq 0" in stale.detail
    assert refusal(send(client, gm, "nonsense words"), 422).detail  # the rules refuse
    schema = client.post("/api/commands", json={"command": "roll"}, headers=bearer(gm))
    assert refusal(schema, 422).detail == "body.command_id: Field required"  # the schema does
    unreadable = client.post(
        "/api/commands",
        content=b'{"command": "\xff"}',
        headers={**bearer(gm), "Content-Type": "application/json"},
    )
    assert refusal(unreadable, 400).detail
    assert refusal(client.get("/api/nowhere"), 404).detail == "Not Found"


def test_a_request_the_schema_refuses_says_where_and_why(client: TestClient) -> None:
    got = refusal(client.post("/api/tables", json={"encounter": "duel", "seed": False}), 422)
    assert got.detail == "body.seed: Input should be a valid integer"
    table = new_table(client)
    gm = bearer(table["gm"]["token"])
    missing = refusal(client.post("/api/commands", json={"command": "roll"}, headers=gm), 422)
    assert missing.detail == "body.command_id: Field required"
    query = refusal(client.get("/api/events", params={"after": "x"}, headers=gm), 422)
    assert query.detail.startswith("query.after: Input should be a valid integer")
    shown = {"orc-brute": {"health": "exact", "aspects": 1}}
    bad = refusal(client.put("/api/visibility", json=shown, headers=gm), 422)
    assert bad.detail == "body.orc-brute.aspects: Input should be a valid boolean"


def test_many_wrong_fields_are_named_three_then_counted() -> None:
    errors = [{"loc": ("body", f"f{n}"), "msg": "Field required"} for n in range(5)]
    assert validation_detail(errors) == (
        "body.f0: Field required; body.f1: Field required; body.f2: Field required; and 2 more"
    )


def test_a_multipart_upload_that_does_not_parse_is_refused_in_words(client: TestClient) -> None:
    broken = b"--b\r\n\xf1\xa4>\x02R--b--\r\n"
    got = client.post(
        "/api/tables/upload",
        content=broken,
        headers={"Content-Type": "multipart/form-data; boundary=b"},
    )
    assert refusal(got, 422).detail.startswith("not a multipart upload: ")


@settings(max_examples=40, deadline=None)
@given(seed=NOT_INTEGERS, expected_seq=NOT_INTEGERS, aspects=NOT_BOOLEANS)
def test_a_field_the_schema_types_takes_that_type_only(
    strict_client: tuple[TestClient, dict[str, str]], seed: Any, expected_seq: Any, aspects: Any
) -> None:
    """Every integer and boolean field of the bodies taken is strict: no bool for an integer,
    no number or text for a boolean, nothing stored."""
    client, gm = strict_client
    opened = client.post("/api/tables", json={"encounter": "duel", "seed": seed})
    assert refusal(opened, 422).detail.startswith("body.seed: "), json.dumps(seed)
    nxt = client.post("/api/encounters", json={"encounter": "duel", "seed": seed}, headers=gm)
    assert refusal(nxt, 422).detail.startswith("body.seed: ")
    body = {"command": "bron: strike orc-brute", "command_id": "s", "expected_seq": expected_seq}
    sent = client.post("/api/commands", json=body, headers=gm)
    assert refusal(sent, 422).detail.startswith("body.expected_seq: ")
    shown = {"orc-brute": {"aspects": aspects}}
    put = client.put("/api/visibility", json=shown, headers=gm)
    assert refusal(put, 422).detail.startswith("body.orc-brute.aspects: ")
    assert client.get("/api/events", headers=gm).json()["events"][-1]["seq"] == 0


@pytest.fixture(scope="module")
def strict_client(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[TestClient, dict[str, str]]]:
    folder = tmp_path_factory.mktemp("strict")
    app = create_app(Settings(database_url=f"sqlite:///{folder / 'c.db'}", base_url="http://t"))
    with TestClient(app) as client:
        yield client, bearer(new_table(client)["gm"]["token"])
