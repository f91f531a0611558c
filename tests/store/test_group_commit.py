"""Group commit on SQLite (issue 11, "The command path": "commits the events, then
acknowledges"): the appends of commands arriving together share one transaction and one sync
to disk, each in a savepoint of its own — a refused command rolls back alone, a failed commit
fails every command of its batch, and no caller hears "done" before its work is committed."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.orm import Session, sessionmaker

from caltrop.store.database import WRITE, _sqlite_setup
from caltrop.store.group_commit import GroupCommit


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = create_engine(f"sqlite:///{tmp_path / 'g.db'}")
    _sqlite_setup(engine)
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE log (who TEXT, n INTEGER)")
    yield engine
    engine.dispose()


def writer(engine: Engine) -> Callable[[], Session]:
    return sessionmaker(engine.execution_options(**{WRITE: True}))


def rows(engine: Engine) -> list[tuple[str, int]]:
    with engine.connect() as connection:
        found = connection.execute(text("SELECT who, n FROM log ORDER BY who, n"))
        return [(str(w), int(n)) for w, n in found]


def insert(who: str, n: int) -> Callable[[Session], str]:
    def work(session: Session) -> str:
        session.execute(text("INSERT INTO log VALUES (:w, :n)"), {"w": who, "n": n})
        return f"{who}{n}"

    return work


def until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.001)


def run_while_held(
    group: GroupCommit, works: list[Callable[[Session], str]]
) -> dict[int, str | BaseException]:
    """Run ``works[0]`` as the leader and hold its transaction open until every other work has
    queued behind it, so they make up the next batch together; each caller's outcome."""
    inside, release = threading.Event(), threading.Event()
    outcomes: dict[int, str | BaseException] = {}

    def first(session: Session) -> str:
        inside.set()
        release.wait(10)
        return works[0](session)

    def call(k: int, work: Callable[[Session], str]) -> None:
        try:
            outcomes[k] = group.run(work)
        except Exception as exc:
            outcomes[k] = exc

    threads = [threading.Thread(target=call, args=(0, first))]
    threads[0].start()
    assert inside.wait(10)  # the leader is inside its work, holding the transaction
    for k, work in enumerate(works[1:], start=1):
        threads.append(threading.Thread(target=call, args=(k, work)))
        threads[-1].start()
    until(lambda: group.queued == len(works) - 1)
    release.set()
    for thread in threads:
        thread.join(10)
    return outcomes


def test_works_that_arrive_together_are_committed_in_one_transaction(engine: Engine) -> None:
    group = GroupCommit(writer(engine))
    works = [insert(f"t{k}", 1) for k in range(6)]
    outcomes = run_while_held(group, works)
    assert outcomes == {k: f"t{k}1" for k in range(6)}
    assert rows(engine) == [(f"t{k}", 1) for k in range(6)]
    # the leader's own batch, then the five that queued behind it: one more transaction
    assert (group.batches, group.works) == (2, 6)


def test_a_refused_work_rolls_back_alone(engine: Engine) -> None:
    group = GroupCommit(writer(engine))

    def refused(session: Session) -> str:
        session.execute(text("INSERT INTO log VALUES ('bad', 1)"))
        raise ValueError("Finesse 4 - Load 3 = 1 < cost 2")

    outcomes = run_while_held(group, [insert("a", 1), insert("b", 1), refused, insert("c", 1)])
    assert [outcomes[k] for k in (0, 1, 3)] == ["a1", "b1", "c1"]
    assert isinstance(outcomes[2], ValueError)
    assert "cost 2" in str(outcomes[2])
    assert rows(engine) == [("a", 1), ("b", 1), ("c", 1)]  # nothing of the refused one


def test_a_failed_commit_fails_every_work_of_its_batch_and_keeps_nothing(engine: Engine) -> None:
    sessions = writer(engine)
    failing = {"on": False}

    def factory() -> Session:
        session = sessions()
        if failing["on"]:

            def commit() -> None:  # the disk "fails": the real commit is never reached
                raise OSError("disk I/O error")

            session.commit = commit  # type: ignore[method-assign]
        return session

    group = GroupCommit(factory)
    assert group.run(insert("before", 1)) == "before1"
    failing["on"] = True
    outcomes = run_while_held(group, [insert("x", 1), insert("y", 1), insert("z", 1)])
    assert all(isinstance(o, OSError) for o in outcomes.values()), outcomes
    assert rows(engine) == [("before", 1)]
    failing["on"] = False
    assert group.run(insert("after", 1)) == "after1"  # the group goes on after a failure
    assert rows(engine) == [("after", 1), ("before", 1)]


def test_many_threads_each_get_their_own_answer_once_committed(engine: Engine) -> None:
    group = GroupCommit(writer(engine))
    answers: dict[tuple[int, int], str] = {}

    def client(k: int) -> None:
        for n in range(25):
            answer = group.run(insert(f"c{k}", n))
            # acknowledged means committed: another connection already sees it
            assert (f"c{k}", n) in rows(engine)
            answers[(k, n)] = answer

    threads = [threading.Thread(target=client, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert answers == {(k, n): f"c{k}{n}" for k in range(8) for n in range(25)}
    assert len(rows(engine)) == 200
    assert group.works == 200
