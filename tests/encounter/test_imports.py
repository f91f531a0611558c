"""The engine is a library: importing it pulls in no web, database or CLI framework.

Issue 3: "A test that importing ``caltrop.encounter`` pulls in no web, database or CLI
framework." (The layering in ``caltrop/__init__.py``: dice <- core <- economy <- encounter <-
content / sim <- table <- store <- web, and cli.)
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

FORBIDDEN = [
    "typer",
    "click",
    "rich",
    "fastapi",
    "starlette",
    "sqlalchemy",
    "uvicorn",
    "matplotlib",
    "flask",
    "django",
    "aiohttp",
    "sqlite3",
    "caltrop.cli",
    "caltrop.content",
    "pydantic",  # validation belongs to caltrop.content; the engine takes plain dataclasses
    "yaml",
    "numba",
    "dask",
    "alembic",
    "psycopg",
    "httpx",
    "caltrop.store",
    "caltrop.web",
]


@pytest.mark.parametrize("module", ["caltrop.encounter", "caltrop.table"])
def test_importing_the_engine_pulls_in_no_frameworks(module: str) -> None:
    """Issue 3 ("Tests"); no ruling decides this: the engine (R10–R21) stays a plain library.
    Issue 11: the view model (``caltrop.table``) is pure too: no web, database or CLI."""
    code = f"import {module}, sys, json; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    loaded = json.loads(out)
    assert module in loaded
    bad = sorted(m for m in loaded for f in FORBIDDEN if m == f or m.startswith(f + "."))
    assert bad == [], f"importing {module} loaded {bad}"
