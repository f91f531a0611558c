"""How the table server's SQLite commits wait for the disk (issue 11: "commits the events,
then acknowledges"; a crash — the SIGKILL test in ``test_serve.py`` — loses no acknowledged
command at the default). The default ``normal``: a commit is in the write-ahead log, which
survives the process; ``full`` (``caltrop serve --sync full``): each commit also waits for the
disk. Either way no commit checkpoints the log: the server's checkpointer thread does."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest
from fastapi.testclient import TestClient

from caltrop.web import Settings, create_app

SQLITE_SYNC = {"normal": 1, "full": 2}  # PRAGMA synchronous's numbers


@pytest.mark.parametrize("sync", ["normal", "full"])
def test_the_server_opens_sqlite_as_told_and_checkpoints_apart(
    tmp_path: Path, sync: Literal["normal", "full"]
) -> None:
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 't.db'}", sqlite_sync=sync))
    with TestClient(app) as client:
        engine = client.app.state.tables.repository.engine  # type: ignore[attr-defined]
        with engine.connect() as connection:
            synchronous = connection.exec_driver_sql("PRAGMA synchronous").scalar()
            autocheckpoint = connection.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar()
            journal = connection.exec_driver_sql("PRAGMA journal_mode").scalar()
        # a command still commits and is read back
        made = client.post("/api/tables", json={"encounter": "duel", "seed": 1}).json()
        gm = {"Authorization": f"Bearer {made['gm']['token']}"}
        assert client.get("/api/view", headers=gm).status_code == 200
    assert synchronous == SQLITE_SYNC[sync]
    assert autocheckpoint == 0
    assert journal == "wal"


def test_serve_takes_normal_or_full_and_refuses_anything_else() -> None:
    from typer.testing import CliRunner

    from caltrop.cli import app

    refused = CliRunner().invoke(app, ["serve", "--sync", "sometimes"], terminal_width=200)
    assert refused.exit_code == 2
    assert "normal" in refused.output
    assert "full" in refused.output
    assert "Traceback" not in refused.output
    assert Settings().sqlite_sync == "normal"
