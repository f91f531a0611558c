"""The test databases themselves: a session an earlier test left in a transaction fails the
next PostgreSQL test by name instead of hanging the run (the CI run that timed out at 5,400 s
waited in ``DROP SCHEMA``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

from tests.store import databases
from tests.store.databases import PG_URL, fresh_url


@pytest.mark.skipif(PG_URL is None, reason="CALTROP_TEST_PG_URL names no PostgreSQL database")
def test_a_session_left_in_a_transaction_is_named_and_ended_not_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert PG_URL is not None
    fresh_url("postgresql", tmp_path)
    monkeypatch.setattr(databases, "LOCK_WAIT", "1s")
    engine = create_engine(PG_URL)
    left = engine.connect()
    left.execute(text("CREATE TABLE held (n int)"))
    left.commit()
    left.execute(text("SET application_name = 'left-behind'"))
    left.execute(text("SELECT * FROM held"))  # a lock on held, kept by the open transaction
    pid = left.execute(text("SELECT pg_backend_pid()")).scalar_one()
    with pytest.raises(AssertionError, match="left-behind") as failed:
        fresh_url("postgresql", tmp_path)
    assert f"'pid': {pid}" in str(failed.value)
    check = create_engine(PG_URL)
    try:
        assert inspect(check).get_table_names() == []  # emptied all the same
        alive = check.connect().execute(
            text("SELECT count(*) FROM pg_stat_activity WHERE pid = :pid"), {"pid": pid}
        )
        assert alive.scalar_one() == 0
    finally:
        check.dispose()
        left.invalidate()
        engine.dispose()
