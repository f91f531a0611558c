"""The store and the command path (issue 11, "Start and storage", "The command path").

"A table is its event log: an append-only table of (table, seq, event JSON with every die),
UNIQUE(table, seq); state is rebuilt by replaying it." "A retry with the same command_id gets
the stored answer, not a second application; a stale expected_seq gets 409 with the current
head." "Two players reacting at the same moment both get a definite answer … and the log has no
gap and no duplicate."
"""

from __future__ import annotations

import threading
import time
import uuid

import pytest
from sqlalchemy import Engine, inspect, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from caltrop.content import encounter_from_dict
from caltrop.encounter import Encounter
from caltrop.store import Repository, open_database
from caltrop.store.models import EventRow
from caltrop.store.repository import Seat
from caltrop.store.service import RefusalError, Tables, token_hash
from caltrop.web.errors import status_of


def seat(tables: Tables, token: str) -> Seat:
    return tables.seat(token)


def replayed(tables: Tables, table_id: str) -> Encounter:
    repo = tables.repository
    record = repo.current_encounter(table_id)
    events = [e for _, e in repo.events(record.id)]
    return Encounter.replay(encounter_from_dict(record.definition), events)


def test_migrations_make_the_tables_and_run_again_as_a_no_op(database_url: str) -> None:
    engine = open_database(database_url)
    open_database(database_url).dispose()  # a second start: nothing to apply
    names = set(inspect(engine).get_table_names())
    assert {"tables", "encounters", "seats", "events", "commands", "alembic_version"} <= names
    uniques = {u["name"] for u in inspect(engine).get_unique_constraints("events")}
    assert "uq_events_encounter_seq" in uniques
    engine.dispose()


def test_sqlite_runs_in_wal_mode_with_a_busy_timeout(tmp_path: object) -> None:
    engine = open_database(f"sqlite:///{tmp_path}/x.db")
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert int(connection.exec_driver_sql("PRAGMA busy_timeout").scalar() or 0) >= 1000
    engine.dispose()


def test_the_log_refuses_a_second_event_with_the_same_seq(tables: Tables, engine: Engine) -> None:
    new = tables.create("orc-bridge", seed=3)
    encounter_id = tables.repository.current_encounter(new.table_id).id
    with Session(engine) as session:
        session.add(EventRow(encounter_id=encounter_id, seq=0, event="{}"))
        with pytest.raises(IntegrityError):
            session.commit()


def test_seats_keep_only_token_hashes(tables: Tables, engine: Engine) -> None:
    new = tables.create("orc-bridge", seed=3)
    assert set(new.player_tokens) == {"bron", "aria"}
    with engine.connect() as connection:
        stored = {row[0] for row in connection.execute(text("SELECT token_hash FROM seats"))}
    tokens = {new.gm_token, *new.player_tokens.values()}
    assert stored == {token_hash(t) for t in tokens}
    assert not stored & tokens
    assert tables.seat(new.gm_token).role == "gm"
    assert tables.seat(new.player_tokens["aria"]).creature_id == "aria"
    with pytest.raises(RefusalError) as refused:
        tables.seat("not-a-token")
    assert status_of(refused.value) == 401


def test_commands_are_committed_and_the_state_is_a_replay(tables: Tables) -> None:
    new = tables.create("orc-bridge", seed=3)
    gm, bron = tables.seat(new.gm_token), tables.seat(new.player_tokens["bron"])
    first = tables.submit(bron, "bron: strike orc-brute", "c1")
    assert first.answer["seq"] == 1
    tables.submit(gm, "gm: pass all", "c2")
    rolled = tables.submit(gm, "roll", "c3")
    assert rolled.answer["outcomes"][0]["roller"] == "bron"
    seqs = [
        seq
        for seq, _ in tables.repository.events(tables.repository.current_encounter(new.table_id).id)
    ]
    assert seqs == list(range(len(seqs)))
    assert replayed(tables, new.table_id).snapshot()["commands"] == 3
    # a fresh process over the same database rebuilds the same state from the log alone
    again = Tables(Repository(tables.repository.engine))
    assert again.view(again.seat(new.gm_token)).to_json() == tables.view(gm).to_json()
    assert replayed(tables, new.table_id).snapshot() == replayed(again, new.table_id).snapshot()


def test_what_a_command_tells_the_sockets_is_what_a_later_read_tells_them(
    tables: Tables,
) -> None:
    """The broadcast of a command is worked out in the command's own trip (issue 11: "commits
    the events, then acknowledges and broadcasts") from the state it committed: the same
    events as each viewer may see them, and the same views, as a read of the table after it."""
    new = tables.create("orc-bridge", seed=3)
    bron = tables.seat(new.player_tokens["bron"])
    viewers = {"gm", "bron", "aria"}
    accepted = tables.submit(bron, "bron: strike orc-brute", "t1", tell=viewers)
    assert accepted.told is not None
    assert accepted.told == tables.told(new.table_id, accepted.events, viewers)
    shown, views = accepted.told
    assert set(views) == viewers
    assert views["gm"]["seq"] == accepted.answer["seq"]
    assert [e["seq"] for e in shown["bron"]] == [seq for seq, _ in accepted.events]
    # asked for nothing, it works nothing out; a retry tells nobody again
    gm = tables.seat(new.gm_token)
    assert tables.submit(gm, "gm: damage orc-brute 1", "t2").told is None
    assert tables.submit(bron, "bron: strike orc-brute", "t1", tell=viewers).told is None


def test_a_retry_gets_the_stored_answer_and_applies_nothing(tables: Tables) -> None:
    new = tables.create("orc-bridge", seed=3)
    bron = tables.seat(new.player_tokens["bron"])
    first = tables.submit(bron, "bron: strike orc-brute", "same")
    head = tables.head(bron)
    retry = tables.submit(bron, "bron: strike orc-brute", "same")
    assert retry.replayed
    assert retry.answer == first.answer
    assert tables.head(bron) == head
    aria = tables.seat(new.player_tokens["aria"])
    with pytest.raises(RefusalError) as refused:
        tables.submit(aria, "aria: pass", "same")
    assert status_of(refused.value) == 409


def test_another_command_under_a_used_command_id_is_refused_not_answered_as_the_first(
    tables: Tables,
) -> None:
    """A retry is the same command again (spaces aside); another command under a used id would
    be dropped without a word if it got the first one's stored answer: it is refused with 409,
    naming both, and nothing is applied."""
    new = tables.create("orc-bridge", seed=3)
    bron = tables.seat(new.player_tokens["bron"])
    tables.submit(bron, "bron: strike orc-brute", "once")
    head = tables.head(bron)
    assert tables.submit(bron, "  bron:   strike  orc-brute ", "once").replayed
    for other in ("bron: end turn", "bron: strike goblin", "nonsense words"):
        with pytest.raises(RefusalError) as refused:
            tables.submit(bron, other, "once")
        assert status_of(refused.value) == 409
        assert "was used for 'bron: strike orc-brute'" in str(refused.value)
    assert tables.head(bron) == head


def test_a_stale_expected_seq_is_refused_with_the_head(tables: Tables) -> None:
    new = tables.create("orc-bridge", seed=3)
    bron = tables.seat(new.player_tokens["bron"])
    tables.submit(bron, "bron: strike orc-brute", "c1", expected_seq=0)
    with pytest.raises(RefusalError) as refused:
        tables.submit(bron, "bron: end turn", "c2", expected_seq=0)
    assert status_of(refused.value) == 409
    assert refused.value.extra["head"] == 1
    assert tables.head(bron) == 1


@pytest.mark.parametrize(
    ("who", "command", "status", "words"),
    [
        ("bron", "bron: strike nobody", 422, "nobody"),
        ("bron", "bron: fly", 422, "no action 'fly'"),
        ("bron", "garbage ((", 422, ""),
        ("aria", "bron: strike orc-brute", 403, "plays aria"),
        ("bron", "gm: damage orc-brute 5", 403, "GM command"),
        ("bron", "gm: end encounter", 403, "GM command"),
        ("aria", "aria: strike orc-brute", 422, "turn"),
        ("gm", "gm: add /etc/passwd", 422, ""),
        # issue 21: the server takes only ids its logs replay with (the one id rule)
        ("gm", "gm: add goblin as gm", 422, "'gm' is a reserved word"),
        ("gm", "gm: add goblin as WITH", 422, "not a creature id"),
        ("gm", "gm: add goblin as Goblin", 422, "not a creature id"),
        ("gm", f"gm: add goblin as {'g' * 41}", 422, "at most 40 characters"),
    ],
)
def test_a_refused_command_stores_nothing(
    tables: Tables, who: str, command: str, status: int, words: str
) -> None:
    """Issue 11: "a player acts only for their own creature; GM commands … are refused to
    players with 403 and a reason; nothing changes"; an action the rules forbid is a 4xx."""
    new = tables.create("orc-bridge", seed=3)
    token = new.gm_token if who == "gm" else new.player_tokens[who]
    seat_ = tables.seat(token)
    before = tables.view(tables.seat(new.gm_token)).to_json()
    with pytest.raises(RefusalError) as refused:
        tables.submit(seat_, command, "x1")
    assert status_of(refused.value) == status
    assert words in refused.value.reason
    assert tables.head(seat_) == 0
    assert tables.view(tables.seat(new.gm_token)).to_json() == before
    # nothing was recorded under the id: a good command may use it now
    if who != "gm":
        ok = "bron: end turn" if who == "bron" else "aria: pass"
        if who == "bron":
            assert tables.submit(seat_, ok, "x1").answer["command"] == ok


def test_a_player_rolls_its_own_roll_once_nobody_is_left_to_answer(tables: Tables) -> None:
    """R15: the window stays open until everyone asked has answered; then the roller's player
    may roll (caltrop.table.rights); the other player may not."""
    new = tables.create("orc-bridge", seed=3)
    bron = tables.seat(new.player_tokens["bron"])
    aria = tables.seat(new.player_tokens["aria"])
    gm = tables.seat(new.gm_token)
    tables.submit(bron, "bron: strike orc-brute", "c1")
    with pytest.raises(RefusalError) as early:
        tables.submit(bron, "roll", "c2")
    assert status_of(early.value) == 403
    while (waiting := tables.view(gm).pending) is not None and waiting.waiting_on:
        who = waiting.waiting_on[0]
        token_seat = aria if who == "aria" else gm
        tables.submit(token_seat, f"{who}: pass", f"p-{who}")
    with pytest.raises(RefusalError) as other:
        tables.submit(aria, "roll", "c3")
    assert status_of(other.value) == 403
    assert tables.submit(bron, "roll", "c4").answer["outcomes"][0]["roller"] == "bron"


def test_concurrent_commands_leave_one_gapless_log(database_url: str) -> None:
    """Issue 11: "Two players reacting at the same moment both get a definite answer
    (accepted, or refused with the reason), and the log has no gap and no duplicate" — here
    through two services over one database (two processes' worth of caches)."""
    engines = [open_database(database_url) for _ in range(2)]
    services = [Tables(Repository(e)) for e in engines]
    new = services[0].create("orc-bridge", seed=3)
    gm_seats = [s.seat(new.gm_token) for s in services]
    answers: list[str] = []
    lock = threading.Lock()

    def worker(k: int) -> None:
        service = services[k % 2]
        for n in range(6):
            command = ["gm: damage orc-brute 1", "gm: heal orc-brute 1"][n % 2]
            try:
                got = service.submit(gm_seats[k % 2], command, f"w{k}-{n}-{uuid.uuid4().hex[:6]}")
                outcome = f"ok {got.answer['seq']}"
            except RefusalError as exc:
                outcome = f"refused {status_of(exc)}"
            with lock:
                answers.append(outcome)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    accepted = sorted(int(a.split()[1]) for a in answers if a.startswith("ok"))
    assert len(answers) == 24
    assert accepted == list(range(1, 25))
    record = services[0].repository.current_encounter(new.table_id)
    seqs = [seq for seq, _ in services[0].repository.events(record.id)]
    assert seqs == list(range(25))
    views = [s.view(g).to_json() for s, g in zip(services, gm_seats, strict=True)]
    assert views[0] == views[1]
    for e in engines:
        e.dispose()


def test_a_seat_revoked_by_another_process_is_refused_within_seconds(
    tables: Tables, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seats are trusted for SEAT_SECONDS once looked up (no query per request); a revocation
    made through another process's repository is refused once that time has passed."""
    import caltrop.store.service as service

    new = tables.create("orc-bridge", seed=1)
    token = new.player_tokens["aria"]
    assert tables.seat(token).creature_id == "aria"
    other = Tables(Repository(tables.repository.engine))  # another process, same database
    other.reissue(other.seat(new.gm_token), "aria")
    assert tables.known_seat(token) is not None  # still trusted here for a moment
    later = time.monotonic() + service.SEAT_SECONDS + 0.1
    monkeypatch.setattr(service.time, "monotonic", lambda: later)
    assert tables.known_seat(token) is None
    with pytest.raises(RefusalError, match="revoked"):
        tables.seat(token)
