from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from caltrop.web import Settings, create_app
from tests.store.databases import BACKENDS, fresh_url


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return fresh_url(str(request.param), tmp_path)


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    app = create_app(Settings(database_url=database_url, base_url="http://testserver"))
    with TestClient(app) as client:
        yield client
