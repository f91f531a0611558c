"""Issue 11: "A schemathesis run over the OpenAPI schema finds no 5xx"; issue 20 §4: "The API
says what it does": schemathesis ``--checks all`` is clean. Every operation of the API is called
with requests generated from its schema, valid ones and invalid ones, as the GM of a table with
a few commands behind it, and every answer goes through all of schemathesis's checks: no server
error; every status and every body (refusals included) as the schema documents it; invalid data
refused, valid data not refused but by a documented refusal (``schemathesis.toml``: the rules'
422); the seat's token required where the schema says so."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import CHECKS, load_all_checks
from schemathesis.config import SchemathesisConfig

from caltrop.web import Settings, create_app
from caltrop.web.errors import ANSWERS
from tests.web.test_api import bearer, new_table, send

#: examples an operation and mode (the issue's budget): bounded, the file runs in well under a minute
EXAMPLES: Final = 50
CONFIG: Final = Path(__file__).parents[2] / "schemathesis.toml"


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
SCHEMA: Final = create_app(Settings(database_url="sqlite://")).openapi()
OPERATIONS: Final = [
    (method.upper(), path) for path, item in SCHEMA["paths"].items() for method in item
]
#: each operation in both modes; an operation that takes no input has no invalid request
CASES: Final = [
    (method, path, mode)
    for method, path in OPERATIONS
    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
    if mode is GenerationMode.POSITIVE
    or SCHEMA["paths"][path][method.lower()].get("parameters")
    or "requestBody" in SCHEMA["paths"][path][method.lower()]
]


@pytest.fixture(scope="module")
def api_schema(served: tuple[Any, dict[str, str]]) -> Any:
    return schemathesis.openapi.from_asgi(
        "/openapi.json", served[0], config=SchemathesisConfig.from_path(CONFIG)
    )


def test_the_schema_lists_every_route() -> None:
    assert ("POST", "/api/commands") in OPERATIONS
    assert ("POST", "/api/tables/upload") in OPERATIONS
    assert len(OPERATIONS) >= 14
    assert {f"{m} {p}" for m, p in OPERATIONS} == set(ANSWERS)  # each says what it answers


def test_every_refusal_is_documented_with_the_one_error_model() -> None:
    """Each operation documents the refusals of :data:`caltrop.web.errors.ANSWERS`, each with
    the body ``ErrorOut``; FastAPI's validation-error list is nowhere."""
    assert "HTTPValidationError" not in SCHEMA["components"]["schemas"]
    for method, path in OPERATIONS:
        documented = SCHEMA["paths"][path][method.lower()]["responses"]
        refusals = {int(s) for s in documented if int(s) >= 400}
        assert refusals == set(ANSWERS[f"{method} {path}"]), (method, path)
        for status in refusals:
            body = documented[str(status)]["content"]["application/json"]["schema"]
            assert body == {"$ref": "#/components/schemas/ErrorOut"}, (method, path, status)


@pytest.mark.parametrize(
    ("method", "path", "mode"), CASES, ids=[f"{m} {p} {g.value}" for m, p, g in CASES]
)
def test_every_answer_is_the_documented_one(
    api_schema: Any,
    served: tuple[Any, dict[str, str]],
    method: str,
    path: str,
    mode: GenerationMode,
) -> None:
    load_all_checks()
    operation = api_schema[path][method]
    headers = served[1]
    statuses: set[int] = set()

    @given(case=operation.as_strategy(mode))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def check(case: Any) -> None:
        response = case.call_and_validate(headers=headers, checks=CHECKS.get_all())
        statuses.add(response.status_code)

    check()
    reads = {("GET", "/api/view"), ("GET", "/api/library"), ("GET", "/api/log")}
    if mode is GenerationMode.POSITIVE and (method, path) in reads:
        assert 200 in statuses  # the calls reach the table as its GM, not only refusals
