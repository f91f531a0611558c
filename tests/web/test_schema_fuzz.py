"""Issue 11: "A schemathesis run over the OpenAPI schema finds no 5xx." Every operation of the
API is called with requests generated from its schema (valid and invalid ones), as the GM of a
table with a few commands behind it; none may answer with a server error."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings

from caltrop.web import Settings, create_app
from tests.web.test_api import bearer, new_table, send


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, dict[str, str]]]:
    folder: Path = tmp_path_factory.mktemp("schema")
    app = create_app(Settings(database_url=f"sqlite:///{folder / 'c.db'}", base_url="http://t"))
    with TestClient(app) as client:  # the lifespan runs: the database is open for every call
        table = new_table(client)
        gm = table["gm"]["token"]
        for command in ("bron: strike orc-brute", "gm: pass all", "roll"):
            assert send(client, gm, command).status_code == 200
        yield app, bearer(gm)


#: every operation of the schema (the app's schema needs no database to be written)
OPERATIONS = [
    (method.upper(), path)
    for path, item in create_app(Settings(database_url="sqlite://")).openapi()["paths"].items()
    for method in item
]


@pytest.fixture(scope="module")
def api_schema(served: tuple[Any, dict[str, str]]) -> Any:
    return schemathesis.openapi.from_asgi("/openapi.json", served[0])


def test_the_schema_lists_every_route() -> None:
    assert ("POST", "/api/commands") in OPERATIONS
    assert ("POST", "/api/tables/upload") in OPERATIONS
    assert len(OPERATIONS) >= 14


@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_no_request_makes_the_server_fail(
    api_schema: Any, served: tuple[Any, dict[str, str]], method: str, path: str
) -> None:
    operation = api_schema[path][method]
    headers = served[1]
    statuses: set[int] = set()

    @given(case=operation.as_strategy())
    @settings(
        max_examples=30,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def check(case: Any) -> None:
        response = case.call(headers=headers)
        statuses.add(response.status_code)
        assert response.status_code < 500, f"{method} {path}: {response.text[:300]}"

    check()
    if (method, path) in {("GET", "/api/view"), ("GET", "/api/library"), ("GET", "/api/log")}:
        assert 200 in statuses  # the calls reach the table as its GM, not only refusals
