from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from caltrop.store import Repository, open_database
from caltrop.store.service import Tables
from tests.store.databases import BACKENDS, fresh_url


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return fresh_url(str(request.param), tmp_path)


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = open_database(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def tables(engine: Engine) -> Tables:
    return Tables(Repository(engine))
