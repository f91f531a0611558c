"""Group commit: the appends of many tables share one transaction and one sync to disk.

SQLite has one writer at a time, and each commit waits for the disk (``synchronous=FULL``:
the log is on disk before the command is acknowledged, issue 11) — a few milliseconds on a
quiet disk, tens on a busy one. Committing every command alone serialises the whole server
behind that wait. Here the writers that arrive while a commit is under way queue up, and the
next of them to lead runs all their work in one transaction — each in a savepoint of its own,
so a refused command rolls back alone (a batch of one needs none: its failure rolls the
transaction back) — and commits once: the disk is waited for once per
batch, not once per command. No background thread: the first writer of a batch leads it
(leader/follower), then hands the lead to the first writer that queued meanwhile.

The work runs in the leader's thread; the others wait for its answer. A caller gets its work's
result only after the batch committed, or its own exception (its savepoint rolled back, the
others kept), or the commit's exception if the batch could not be committed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

R = TypeVar("R")


class Transactional(Protocol):
    """What a batch runs on: a SQLAlchemy ``Connection`` (the table server's appends: no ORM
    unit of work to pay for, issue 20 §5) or a ``Session``."""

    def begin(self) -> Any: ...
    def begin_nested(self) -> Any: ...
    def commit(self) -> None: ...
    def rollback(self) -> None: ...
    def close(self) -> None: ...


T = TypeVar("T", bound=Transactional)


@dataclass(eq=False)
class _Job(Generic[R]):
    work: Callable[[Any], R]
    wake: threading.Event = field(default_factory=threading.Event)
    finished: bool = False
    result: R | None = None
    error: BaseException | None = None

    def outcome(self) -> R:
        if self.error is not None:
            raise self.error
        return self.result  # type: ignore[return-value]


class GroupCommit(Generic[T]):
    """Runs each caller's work in a shared write transaction; see the module docstring.

    ``session`` opens a session or connection whose ``begin()`` takes the database's write
    lock (``BEGIN IMMEDIATE`` on SQLite). ``limit`` caps how many works one transaction
    holds."""

    def __init__(self, session: Callable[[], T], limit: int = 64) -> None:
        self._session = session
        self._limit = limit
        self._lock = threading.Lock()
        self._waiting: list[_Job[Any]] = []
        self._leading = False
        #: transactions committed and works run in them (for tests and benchmarks)
        self.batches = 0
        self.works = 0

    @property
    def queued(self) -> int:
        """How many works wait for a transaction now (the one being committed not counted)."""
        with self._lock:
            return len(self._waiting)

    def run(self, work: Callable[[T], R]) -> R:
        """``work(session)`` inside a savepoint of a write transaction; its result once that
        transaction is committed."""
        job: _Job[R] = _Job(work)
        with self._lock:
            self._waiting.append(job)
            lead = not self._leading
            self._leading = True
        if not lead:
            job.wake.wait()
            if job.finished:
                return job.outcome()
            # woken to lead: this job is still waiting, first in line
        with self._lock:
            batch, self._waiting = self._waiting[: self._limit], self._waiting[self._limit :]
        try:
            self._commit(batch)
        finally:
            for other in batch:
                other.finished = True
                if other is not job:
                    other.wake.set()
            with self._lock:
                if self._waiting:
                    self._waiting[0].wake.set()  # not finished: it leads the next batch
                else:
                    self._leading = False
        return job.outcome()

    def _commit(self, batch: list[_Job[Any]]) -> None:
        session = self._session()
        try:
            session.begin()
            alone = len(batch) == 1
            for job in batch:
                try:
                    if alone:  # its failure rolls the whole transaction back: no savepoint
                        job.result = job.work(session)
                    else:
                        with session.begin_nested():
                            job.result = job.work(session)
                except Exception as exc:  # this work's own failure: its savepoint is undone
                    job.error = exc
            if alone and batch[0].error is not None:
                session.rollback()
                return
            try:
                session.commit()
            except Exception as exc:
                session.rollback()
                for job in batch:
                    if job.error is None:
                        job.result, job.error = None, exc
            else:
                self.batches += 1
                self.works += len(batch)
        except BaseException as exc:  # the transaction could not begin, or an interrupt
            session.rollback()
            for job in batch:
                if job.error is None:
                    job.result, job.error = None, exc
            if not isinstance(exc, Exception):
                raise
        finally:
            session.close()
