"""Content at the table server (issue 11): the library of encounters ready to open (the bundled
examples, put into the database on first start), tables and next encounters from uploaded
YAML files, and the export of a whole night."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from caltrop.content import bundled_encounters
from tests.web.test_api import bearer, new_table, send

HERO = """\
kind: creature
id: hero
name: Hero
side: pc
aspects: {Finesse: 5}
health: 12
evasion: 8
weapons: [dagger]
actions:
  - {use: strike, cost: 2}
"""

ENCOUNTER = """\
kind: encounter
name: Road Fight
ruleset: current
include: [caltrop:actions, caltrop:weapons]
participants:
  - creature: party/hero.yaml
  - creature: caltrop:monsters/goblin
"""


def upload(
    client: TestClient, files: dict[str, bytes], path: str = "/api/tables/upload", **kw: Any
) -> Any:
    parts = [("files", (name, data, "application/yaml")) for name, data in files.items()]
    return client.post(path, files=parts, **kw)


def test_the_library_holds_the_bundled_examples_once(client: TestClient) -> None:
    listed = client.get("/api/library")
    assert listed.status_code == 200
    names = [e["name"] for e in listed.json()]
    assert names == sorted(bundled_encounters())
    duel = next(e for e in listed.json() if e["name"] == "duel")
    assert duel["title"] == "Duel"
    assert duel["module"] == "action_load"
    assert "sellsword" in duel["summary"]
    assert [e["name"] for e in client.get("/api/library").json()] == names  # not seeded twice
    wrong = client.post("/api/tables", json={"encounter": "nowhere"})
    assert wrong.status_code == 422
    assert "goblin-ambush" in wrong.json()["detail"]


def test_a_table_from_uploaded_files_that_include_each_other(client: TestClient) -> None:
    made = upload(
        client,
        {"road.yaml": ENCOUNTER.encode(), "party/hero.yaml": HERO.encode()},
        data={"seed": "7"},
    )
    assert made.status_code == 201, made.text
    assert set(made.json()["players"]) == {"hero"}
    gm = made.json()["gm"]["token"]
    view = client.get("/api/view", headers=bearer(gm)).json()
    assert view["encounter"] == "Road Fight"
    assert [c["id"] for c in view["creatures"]] == ["hero", "goblin"]


@pytest.mark.parametrize(
    ("files", "status", "words"),
    [
        ({}, 422, "no files"),
        ({"road.yaml": ENCOUNTER.encode()}, 422, "party/hero.yaml"),  # the include is missing
        ({"road.yaml": b"kind: encounter\nname: [\n"}, 422, "road.yaml"),
        ({"a.yaml": HERO.encode()}, 422, "none of the uploaded files"),
        (
            {
                "a.yaml": ENCOUNTER.encode(),
                "b.yaml": ENCOUNTER.encode(),
                "party/hero.yaml": HERO.encode(),
            },
            422,
            "2 encounter files",
        ),
        ({"road.yaml": b"\xff\xfe k"}, 422, "not UTF-8"),
        ({"../road.yaml": ENCOUNTER.encode()}, 422, "relative path"),
        (
            {"road.yaml": ENCOUNTER.replace("party/hero.yaml", "../../etc/passwd").encode()},
            422,
            "cannot follow",
        ),
        ({"road.yaml": b"x" * (2 * 1024 * 1024 + 1)}, 413, "at most"),
    ],
)
def test_a_bad_upload_is_refused_naming_what_is_wrong(
    client: TestClient, files: dict[str, bytes], status: int, words: str
) -> None:
    before = len(client.get("/api/library").json())
    got = (
        upload(client, files)
        if files
        else client.post("/api/tables/upload", files=[("seed", (None, "1"))])
    )
    assert got.status_code == status, got.text
    assert words in got.json()["detail"]
    assert len(client.get("/api/library").json()) == before


def test_an_upload_that_is_not_multipart_or_too_large_is_refused(client: TestClient) -> None:
    assert client.post("/api/tables/upload", json={"files": []}).status_code == 422
    huge = client.post(
        "/api/tables/upload",
        content=b"x" * (9 * 1024 * 1024),
        headers={"content-type": "multipart/form-data; boundary=x"},
    )
    assert huge.status_code == 413
    assert "at most" in huge.json()["detail"]


def test_the_gm_uploads_the_next_encounter_and_exports_the_night(
    client: TestClient, tmp_path: Path
) -> None:
    from caltrop.cli import app

    table = new_table(client, "orc-bridge")
    gm, bron = table["gm"]["token"], table["players"]["bron"]["token"]
    assert send(client, gm, "gm: damage bron 3").status_code == 200
    files = {"road.yaml": ENCOUNTER.encode(), "party/hero.yaml": HERO.encode()}
    refused = upload(client, files, "/api/encounters/upload", headers=bearer(bron))
    assert refused.status_code == 403
    nxt = upload(client, files, "/api/encounters/upload", headers=bearer(gm), data={"seed": "2"})
    assert nxt.status_code == 201, nxt.text
    assert set(nxt.json()["players"]) == {"hero"}  # a seat for the newcomer
    assert send(client, gm, "gm: damage goblin 1").status_code == 200
    first = client.get("/api/log", params={"position": 0}, headers=bearer(gm)).text
    assert json.loads(first.splitlines()[1])["command"] == "gm: damage bron 3"
    assert client.get("/api/log", params={"position": 5}, headers=bearer(gm)).status_code == 404
    night = client.get("/api/night", headers=bearer(gm))
    assert night.status_code == 200
    assert night.headers["content-type"] == "application/zip"
    assert client.get("/api/night", headers=bearer(bron)).status_code == 403
    with zipfile.ZipFile(io.BytesIO(night.content)) as archive:
        names = archive.namelist()
        assert names == ["1-orc-bridge.jsonl", "2-road-fight.jsonl"]
        for name in names:
            path = tmp_path / name
            path.write_bytes(archive.read(name))
            replayed = CliRunner().invoke(app, ["replay", str(path), "--json"])
            assert replayed.exit_code == 0, replayed.output
            assert json.loads(replayed.stdout)["commands"] == 1
